/* tool-info.c: `mcz info FILE`: what a recording holds, in the spirit of
 * `pmdumplog -l -L`: host, command, time range, metadata, the roofline's
 * ceilings (tool-ceilings.c), topology, and a
 * table of streams with their units, sources, native events, the bytes
 * each takes on disk and how often it was read (EVERY: the metadata's
 * interval_ns.SOURCE for a source read at a rate of its own, else
 * interval_ns; "-" when the file does not say, as an import).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../mcz.h"
#include "tool.h"

#define E tool_common_esc /* every string from the file, before the terminal */

static const char *info_kind[] = {"counter", "gauge"};
static const char *info_type[] = {"u64", "i64", "f64"};
static const char *info_topo[] = {"machine", "package", "numa", "l3", "l2", "l1",
				  "core",    "pu",	"gpu",	"nic", "other"};

/* Widen column *w to fit s, up to 48 characters (a longer cell overflows
 * its own row only). */
static void info_widen(int *w, const char *s)
{
	int n = (int)strlen(s);
	if (n > *w)
		*w = n < 48 ? n : 48;
}

/* How often the recorder read stream d ("100ms", "0.5s"), or "-". */
static void info_every(mcz_reader *r, const mcz_stream_desc *d, char *buf, size_t n)
{
	char key[96];
	snprintf(key, sizeof key, "interval_ns.%s", d->source);
	const char *v = mcz_meta(r, key);
	if (!v)
		v = mcz_meta(r, "interval_ns");
	char *end;
	long long ns = v ? strtoll(v, &end, 10) : 0;
	if (!v || *end || ns <= 0)
		snprintf(buf, n, "-");
	else if (ns < 1000000000LL && ns % 1000000 == 0)
		snprintf(buf, n, "%lldms", ns / 1000000);
	else if (ns < 1000000LL)
		snprintf(buf, n, "%lldus", ns / 1000);
	else
		snprintf(buf, n, "%.4gs", (double)ns * 1e-9);
}

static void info_wall(char *buf, size_t n, int64_t ns)
{
	time_t s = (time_t)(ns / 1000000000);
	struct tm tm;
	if (ns <= 0 || !gmtime_r(&s, &tm) || !strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, n, "unknown");
}

/* A job file (mcz merge): one line per recording in it, each one it lacks
 * or holds only in part named; a damaged or cut job file says so and is
 * exit status 1. */
static int info_job(const char *path, mcz_reader *j)
{
	const mcz_file_info *fi = mcz_info(j);
	char b[32], wall[40];
	size_t n = mcz_member_count(j), want = mcz_member_expected(j), cut = 0;
	for (size_t i = 0; i < n; i++)
		cut += (size_t)mcz_member_is_cut(j, i);
	size_t absent = want > n ? want - n : 0;
	tool_common_bytes(b, sizeof b, fi->file_bytes);
	const char *job = mcz_meta(j, "job");
	job = job ? E(job) : NULL;
	printf("file       %s (%s, format %u.%u): a job file of %zu recording%s%s%s\n", E(path), b,
	       fi->version_major, fi->version_minor, n + absent,
	       n + absent == 1 ? "" : "s", job ? ", job " : "", job ? job : "");
	if (fi->recovered || cut || absent)
		printf("DAMAGED    %zu of %zu readable%s%s (run mcz check)\n", n - cut, n + absent,
		       fi->recovered ? "; the job file's index is missing or damaged: "
				       "opened by scanning"
				     : "",
		       absent ? "; the file ends before the rest" : "");
	printf("members    (mcz info %s:NAME for one; mcz split gives the files back)\n", E(path));
	printf("  %-24s %6s %-16s %-20s %9s %8s %10s\n", "NAME", "RANK", "HOST", "STARTED",
	       "SECONDS", "ROWS", "BYTES");
	int status = 0;
	for (size_t i = 0; i < n; i++) {
		mcz_reader *r;
		const char *name = E(mcz_member_name(j, i));
		int rc = mcz_member_open(j, i, 0, &r);
		if (rc) {
			const char *d = mcz_errdetail(), *c = strstr(d, ": ");
			printf("  %-24s %s\n", name,
			       rc == MCZ_E_TRUNCATED && c ? E(c + 2) : mcz_strerror(rc));
			status = 1;
			continue;
		}
		const mcz_file_info *m = mcz_info(r);
		const char *rank = mcz_meta(r, "rank"), *host = mcz_meta(r, "host");
		rank = rank ? E(rank) : NULL;
		host = host ? E(host) : NULL;
		info_wall(wall, sizeof wall, m->wall_epoch_ns + m->t_first);
		tool_common_bytes(b, sizeof b, m->file_bytes);
		printf("  %-24s %6s %-16s %-20s %9.3f %8" PRIu64 " %10s%s\n", name, rank ? rank : "-",
		       host ? host : "-", wall, (double)(m->t_last - m->t_first) / 1e9, m->nrows, b,
		       m->recovered ? "  (no index: opened by scanning)" : "");
		mcz_close(r);
	}
	if (absent)
		printf("  (%zu more recording%s not in the file: it was cut before %s)\n", absent,
		       absent == 1 ? "" : "s", absent == 1 ? "it" : "them");
	return status || fi->recovered || absent ? 1 : 0;
}

int tool_info(int argc, char **argv)
{
	if (argc < 2)
		return tool_common_usage_error("info", "no file given");
	if (argv[1][0] == '-' && argv[1][1])
		return tool_common_usage_error("info", "unknown option '%s'", argv[1]);
	if (argc > 2)
		return tool_common_usage_error("info", "one file at a time ('%s' is a second)", argv[2]);
	const char *path = argv[1];
	mcz_reader *r;
	if (tool_common_open("info", path, 0, &r))
		return 1;
	if (mcz_member_count(r) || mcz_member_expected(r)) { /* a job file, even cut before its members */
		int st = info_job(path, r);
		mcz_close(r);
		return st;
	}
	const mcz_file_info *fi = mcz_info(r);
	char b1[32], b2[32], wall[40];
	tool_common_bytes(b1, sizeof b1, fi->file_bytes);
	printf("file       %s (%s, format %u.%u)\n", E(path), b1, fi->version_major,
	       fi->version_minor);
	const char *host = mcz_meta(r, "host"), *cmd = mcz_meta(r, "command");
	printf("host       %s\n", host ? E(host) : "unknown");
	printf("command    %s\n", cmd ? E(cmd) : "unknown");
	info_wall(wall, sizeof wall, fi->wall_epoch_ns + fi->t_first);
	double dur = (double)(fi->t_last - fi->t_first) / 1e9;
	printf("recorded   %s, %.3f s (t = %.6f .. %.6f s), %" PRIu64 " rows in %" PRIu64
	       " chunks\n",
	       wall, dur, (double)fi->t_first / 1e9, (double)fi->t_last / 1e9, fi->nrows,
	       fi->nchunks);
	tool_common_bytes(b2, sizeof b2, fi->sample_bytes);
	printf("values     %" PRIu64 " stored in %s of chunks: %.3f bytes/value\n", fi->nvalues, b2,
	       fi->nvalues ? (double)fi->sample_bytes / (double)fi->nvalues : 0.0);
	if (fi->recovered && !fi->nrows && !mcz_stream_count(r))
		printf("index      MISSING or damaged, and nothing readable by scanning (run mcz "
		       "check)\n");
	else if (fi->recovered && mcz_damaged_blocks(r, NULL, 0))
		printf("index      MISSING or damaged: opened by scanning; %" PRIu64
		       " damaged block%s left out (run mcz check)\n", mcz_damaged_blocks(r, NULL, 0),
		       mcz_damaged_blocks(r, NULL, 0) == 1 ? "" : "s");
	else if (fi->recovered && fi->valid_bytes == fi->file_bytes)
		/* as mcz check's INCOMPLETE: every block whole, no index yet */
		printf("index      none yet (still being recorded, or its recorder was killed): "
		       "opened by scanning, every byte readable\n");
	else if (fi->recovered)
		printf("index      MISSING or damaged: opened by scanning; %" PRIu64
		       " bytes of %" PRIu64 " readable (run mcz check)\n",
		       fi->valid_bytes, fi->file_bytes);
	else /* what was verified, and what was not (a full check reads every byte) */
		printf("index      ok (chunks not checked: mcz check verifies every CRC)\n");
	if (fi->recovered && fi->nparts)
		printf("gathering  %" PRIu64 " rows after the last chunk, in %" PRIu64
		       " PART blocks\n",
		       fi->part_rows, fi->nparts);
	if (fi->skipped_blocks)
		printf("skipped    %" PRIu64 " blocks of a newer minor version\n",
		       fi->skipped_blocks);
	printf("marks      %zu\n", mcz_mark_count(r));
	const mcz_code *code; /* the code profile, when the recorder made one */
	int crc = mcz_code_get(r, &code);
	if (crc == MCZ_OK) {
		uint64_t ns = 0;
		for (size_t h = 0; h < code->nhits; h++)
			ns += code->hits[h].count;
		printf("code       %" PRIu64 " samples (%s, every %" PRIu64 "), %zu locations in %zu "
		       "objects, %zu intervals (mcz dump --code)\n", ns, E(code->event), code->period,
		       code->nlocs, code->nobjects, code->nintervals);
		if (code->note[0])
			printf("code note  %s\n", E(code->note));
	} else if (crc != MCZ_E_NOTFOUND) {
		printf("code       unreadable: %s\n", mcz_strerror(crc));
	}
	for (size_t i = 0; i < mcz_meta_count(r); i++) {
		const char *k, *v;
		mcz_meta_at(r, i, &k, &v);
		if (strcmp(k, "host") && strcmp(k, "command") && !tool_ceilings_is_key(k))
			printf("meta       %s = %s\n", E(k), E(v));
	}
	tool_ceilings_print(r);
	size_t count[11] = {0};
	for (size_t i = 0; i < mcz_topo_count(r); i++)
		count[mcz_topo(r, i)->type]++;
	printf("topology   %zu objects", mcz_topo_count(r));
	for (int t = 0; t < 11; t++)
		if (count[t])
			printf(", %zu %s", count[t], info_topo[t]);
	printf("\n");
	uint64_t tb = 0;
	mcz_query_col_bytes(r, UINT32_MAX, &tb);
	tool_common_bytes(b1, sizeof b1, tb);
	printf("streams    %zu (timestamps: %s)\n", mcz_stream_count(r), b1);
	/* columns as wide as their longest cell (a pcp native name or a
	 * "Machine (11.6 GiB)" topology object would push the rest out) */
	int wn = 24, wi = 10, wu = 12, wv = 28, wt = 10;
	for (size_t s = 0; s < mcz_stream_count(r); s++) {
		const mcz_stream_desc *d = mcz_stream(r, s);
		const mcz_topo_obj *o = d->topo >= 0 ? mcz_topo(r, (size_t)d->topo) : NULL;
		info_widen(&wn, E(d->name));
		info_widen(&wi, E(d->instance));
		info_widen(&wu, E(d->unit));
		info_widen(&wv, E(d->native));
		if (o)
			info_widen(&wt, E(o->name));
	}
	printf("  %4s  %-*s %-*s %-7s %-4s %-*s %-6s %-*s %-*s %9s %7s %7s\n", "ID", wn, "NAME", wi,
	       "INSTANCE", "KIND", "TYPE", wu, "UNIT", "SOURCE", wv, "NATIVE", wt, "TOPO", "BYTES",
	       "B/VAL", "EVERY");
	for (size_t s = 0; s < mcz_stream_count(r); s++) {
		const mcz_stream_desc *d = mcz_stream(r, s);
		uint64_t bytes = 0;
		mcz_query_col_bytes(r, (uint32_t)s, &bytes);
		const mcz_bucket *sums;
		uint64_t n = 0;
		if (mcz_query_sums(r, (uint32_t)s, &sums) == 0)
			for (size_t c = 0; c < fi->nchunks; c++)
				n += sums[c].count;
		char bpv[16] = "-";
		const mcz_topo_obj *o = d->topo >= 0 ? mcz_topo(r, (size_t)d->topo) : NULL;
		if (n)
			snprintf(bpv, sizeof bpv, "%.3f", (double)bytes / (double)n);
		char every[24];
		info_every(r, d, every, sizeof every);
		printf("  %4zu  %-*s %-*s %-7s %-4s %-*s %-6s %-*s %-*s %9" PRIu64 " %7s %7s%s\n", s,
		       wn, E(d->name), wi, *d->instance ? E(d->instance) : "-", info_kind[d->kind],
		       info_type[d->type], wu, *d->unit ? E(d->unit) : "-", E(d->source), wv,
		       *d->native ? E(d->native) : "-", wt, o ? E(o->name) : "-", bytes, bpv, every,
		       d->flags & MCZ_SF_ESTIMATED ? "  estimated" : "");
		if (*d->note)
			printf("        note: %s\n", E(d->note));
	}
	int dam = tool_common_damage("info", path, r);
	mcz_close(r);
	return dam;
}
