/* tool-dump.c: `mcz dump FILE [--csv|--json] [--streams GLOB,...]
 * [--from T] [--to T]` (and --code: tool-dump-code.c): the samples of the chosen streams as a text table,
 * CSV or JSON, read window by window so that a large file streams out in
 * bounded memory.  Values are printed as stored: counters as the raw
 * cumulative values, floats in the shortest form that reads back to the
 * same bits, missing values as '-', '' or null.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

enum { DUMP_TEXT, DUMP_CSV, DUMP_JSON };

static int dump_match(const mcz_stream_desc *d, const char *globs)
{
	if (!globs)
		return 1;
	char full[512];
	snprintf(full, sizeof full, "%s[%s]", d->name, d->instance);
	char *copy = strdup(globs), *save = NULL;
	int hit = 0;
	for (char *g = strtok_r(copy, ",", &save); g && !hit; g = strtok_r(NULL, ",", &save))
		hit = !strcmp(g, full) || !fnmatch(g, d->name, 0) || !fnmatch(g, full, 0);
	free(copy);
	return hit;
}

static void dump_value(const mcz_stream_desc *d, mcz_value v, int fmt)
{
	if (d->type == MCZ_U64) {
		printf("%" PRIu64, v.u);
	} else if (d->type == MCZ_I64) {
		printf("%" PRId64, v.i);
	} else if (isnan(v.f) || isinf(v.f)) {
		const char *s = isnan(v.f) ? "nan" : v.f > 0 ? "inf" : "-inf";
		printf(fmt == DUMP_JSON ? "\"%s\"" : "%s", s);
	} else {
		/* the shortest form that reads back to the same bits */
		char buf[40];
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(buf, sizeof buf, "%.*g", prec, v.f);
			if (strtod(buf, NULL) == v.f)
				break;
		}
		fputs(buf, stdout);
	}
}

static void dump_header(mcz_reader *r, const uint32_t *sel, size_t nsel, int fmt)
{
	if (fmt == DUMP_JSON) {
		printf("{\"streams\": [");
		for (size_t j = 0; j < nsel; j++) {
			const mcz_stream_desc *d = mcz_stream(r, sel[j]);
			printf("%s{\"id\": %u, \"name\": ", j ? ", " : "", sel[j]);
			tool_common_json_str(d->name);
			printf(", \"instance\": ");
			tool_common_json_str(d->instance);
			printf(", \"unit\": ");
			tool_common_json_str(d->unit);
			printf(", \"kind\": \"%s\"}", d->kind == MCZ_COUNTER ? "counter" : "gauge");
		}
		printf("],\n \"rows\": [");
		return;
	}
	printf(fmt == DUMP_CSV ? "time_s" : "%14s", fmt == DUMP_CSV ? "" : "time_s");
	for (size_t j = 0; j < nsel; j++) {
		const mcz_stream_desc *d = mcz_stream(r, sel[j]);
		char name[1024];
		snprintf(name, sizeof name, *d->instance ? "%s[%s]" : "%s", d->name, d->instance);
		if (fmt == DUMP_CSV) {
			putchar(',');
			tool_common_csv_str(name);
		} else {
			printf("  %s", tool_common_esc(name));
		}
	}
	printf("\n");
}

/* Print rows of window [a, b) (all series share the row times). */
static int dump_window(mcz_reader *r, const uint32_t *sel, size_t nsel, int64_t a, int64_t b,
		       int64_t origin, int fmt, int *first_row)
{
	mcz_series *s = calloc(nsel, sizeof *s);
	int rc = s ? 0 : MCZ_E_NOMEM;
	for (size_t j = 0; j < nsel && !rc; j++)
		rc = mcz_read(r, sel[j], a, b, &s[j]);
	for (size_t i = 0; !rc && nsel && i < s[0].n; i++) {
		double t = (double)(s[0].t[i] - origin) / 1e9;
		if (fmt == DUMP_JSON)
			printf("%s\n  [%.9f", *first_row ? "" : ",", t);
		else
			printf(fmt == DUMP_CSV ? "%.9f" : "%14.6f", t);
		*first_row = 0;
		for (size_t j = 0; j < nsel; j++) {
			const mcz_stream_desc *d = mcz_stream(r, sel[j]);
			fputs(fmt == DUMP_TEXT ? "  " : ",", stdout);
			if (i < s[j].n && s[j].present[i])
				dump_value(d, s[j].v[i], fmt);
			else
				fputs(fmt == DUMP_TEXT ? "-" : fmt == DUMP_JSON ? "null" : "", stdout);
		}
		fputs(fmt == DUMP_JSON ? "]" : "\n", stdout);
	}
	for (size_t j = 0; s && j < nsel; j++)
		mcz_series_free(&s[j]);
	free(s);
	return rc;
}

int tool_dump(int argc, char **argv)
{
	const char *path = NULL, *globs = NULL, *from = NULL, *to = NULL;
	const char *rank_s = NULL;
	int fmt = DUMP_TEXT, code = 0, folded = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--csv") || !strcmp(a, "--json")) {
			int want = a[2] == 'c' ? DUMP_CSV : DUMP_JSON;
			if (fmt != DUMP_TEXT && fmt != want) { /* was: the last one won */
				return tool_common_usage_error("dump", "--csv and --json: choose one");
			}
			fmt = want;
		}
		else if (!strcmp(a, "--code"))
			code = 1;
		else if (!strcmp(a, "--folded"))
			folded = 1;
		else if (!strcmp(a, "--rank") && i + 1 < argc)
			rank_s = argv[++i];
		else if (!strcmp(a, "--streams") && i + 1 < argc)
			globs = argv[++i];
		else if (!strcmp(a, "--from") && i + 1 < argc)
			from = argv[++i];
		else if (!strcmp(a, "--to") && i + 1 < argc)
			to = argv[++i];
		else if (!strcmp(a, "--streams") || !strcmp(a, "--from") || !strcmp(a, "--to") ||
			 !strcmp(a, "--rank"))
			return tool_common_usage_error("dump", "%s needs a value", a);
		else if (a[0] == '-' && a[1])
			return tool_common_usage_error("dump", "unknown option '%s'", a);
		else if (path)
			return tool_common_usage_error("dump", "one file at a time ('%s' is a second)", a);
		else
			path = a;
	}
	if (!path)
		return tool_common_usage_error("dump", "no file given");
	if (folded && (!code || fmt != DUMP_TEXT))
		return tool_common_usage_error("dump", "--folded is a form of --code, without "
					       "--csv or --json");
	if (rank_s && !folded)
		return tool_common_usage_error("dump", "--rank goes with --code --folded (a rank's "
					       "streams: mcz dump JOB.mcz:NAME)");
	long rank = -1;
	if (rank_s) {
		char *e;
		rank = strtol(rank_s, &e, 10);
		if (e == rank_s || *e || rank < 0 || rank > 0x7fffffff)
			return tool_common_usage_error("dump", "--rank '%s': a rank number", rank_s);
	}
	int64_t f = INT64_MIN, t = INT64_MAX;
	if ((from && tool_common_time(from, &f)) || (to && tool_common_time(to, &t))) {
		fprintf(stderr, "mcz dump: bad time '%s' (seconds, or with ms/us/ns)\n",
			from && tool_common_time(from, &f) ? from : to);
		return 2;
	}
	if (from && to && f >= t) { /* as mcview --window: an empty range is a mistake */
		fprintf(stderr, "mcz dump: --from %s is not before --to %s\n", from, to);
		return 2;
	}
	mcz_reader *r;
	if (tool_common_open("dump", path, 0, &r))
		return 1;
	if (folded) {
		int frc = tool_dump_folded(r, path, from, to, f, t, rank);
		mcz_close(r);
		return frc;
	}
	if (mcz_member_count(r)) {
		fprintf(stderr,
			"mcz dump: %s is a job file of %zu recording%s: dump one as %s:%s (mcz info "
			"%s lists them)\n",
			tool_common_esc(path), mcz_member_count(r), mcz_member_count(r) == 1 ? "" : "s",
			tool_common_esc(path), tool_common_esc(mcz_member_name(r, 0)),
			tool_common_esc(path));
		mcz_close(r);
		return 1;
	}
	const mcz_file_info *fi = mcz_info(r);
	if (code) {
		int64_t ca = from ? fi->t_first + f : INT64_MIN, cb = to ? fi->t_first + t : INT64_MAX;
		int crc = tool_dump_code(r, path, fmt == DUMP_CSV, fmt == DUMP_JSON, ca, cb,
					 fi->t_first);
		mcz_close(r);
		return crc;
	}
	size_t ns = mcz_stream_count(r), nsel = 0;
	uint32_t *sel = malloc((ns ? ns : 1) * sizeof *sel);
	for (size_t s = 0; sel && s < ns; s++)
		if (dump_match(mcz_stream(r, s), globs))
			sel[nsel++] = (uint32_t)s;
	if (globs && !nsel) {
		fprintf(stderr, "mcz dump: %s: no stream matches '%s'\n", path, globs);
		free(sel);
		mcz_close(r);
		return 1;
	}
	int64_t origin = fi->t_first;
	int64_t a = from ? origin + f : fi->t_first;
	int64_t b = to ? origin + t : fi->t_last + 1;
	dump_header(r, sel, nsel, fmt);
	/* windows of about 65536 rows */
	double per_row = fi->nrows > 1 ? (double)(fi->t_last - fi->t_first) / (double)(fi->nrows - 1)
					: 1.0;
	double wd = per_row * 65536.0 / (nsel > 64 ? (double)nsel / 64.0 : 1.0);
	int64_t step = wd < 1 ? 1 : wd > 9e18 ? INT64_MAX / 2 : (int64_t)wd;
	int rc = 0, first = 1;
	for (int64_t w = a; w < b && !rc;) {
		int64_t e = b - w > step ? w + step : b;
		rc = dump_window(r, sel, nsel, w, e, origin, fmt, &first);
		w = e;
	}
	if (fmt == DUMP_JSON && !rc)
		printf("\n ]}\n");
	if (rc)
		tool_common_error("dump", path, rc);
	/* Every readable row was printed; a damaged chunk's rows could not be,
	 * and the exit status says so (as --skip-damaged would elsewhere: it is
	 * the default here, the gap is named on stderr). */
	size_t nd = mcz_damaged_count(r);
	if (!rc && nd) {
		int64_t d0, d1, lo = INT64_MAX, hi = INT64_MIN;
		for (size_t i = 0; mcz_damaged_span(r, i, &d0, &d1) == 0; i++) {
			lo = d0 < lo ? d0 : lo;
			hi = d1 > hi ? d1 : hi;
		}
		fprintf(stderr, "mcz dump: %s: %zu damaged chunk%s: rows from %.3f s to %.3f s not "
			"printed, every other row was (mcz check %s --repair FIXED.mcz)\n",
			path, nd, nd == 1 ? "" : "s", (double)(lo - origin) / 1e9,
			(double)(hi - origin) / 1e9, path);
		rc = MCZ_E_CORRUPT;
	}
	/* A file read by scanning whose bytes end in a block cut or broken
	 * (a copy cut short, a damaged index): what follows that byte is lost,
	 * as mcz check says (DAMAGED); every row before it was printed. */
	if (!rc && !nd && tool_common_damage("dump", path, r))
		rc = MCZ_E_CORRUPT;
	else if (!rc && !nd && fi->recovered && fi->valid_bytes < fi->file_bytes) {
		fprintf(stderr, "mcz dump: %s: damaged after byte %llu of %llu: every readable row "
			"was printed, what followed is lost (mcz check %s)\n", path,
			(unsigned long long)fi->valid_bytes, (unsigned long long)fi->file_bytes, path);
		rc = MCZ_E_CORRUPT;
	}
	free(sel);
	mcz_close(r);
	return rc ? 1 : 0;
}
