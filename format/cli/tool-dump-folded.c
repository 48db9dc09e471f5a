/* tool-dump-folded.c: `mcz dump --code --folded [--from T] [--to T]
 * [--rank R] FILE`: the code profile as "folded" stacks, one line per
 * stack, `root;caller;...;leaf samples`, as flamegraph.pl, inferno and
 * speedscope read them (Brendan Gregg's stackcollapse output).  A frame is
 * a function by the name people read (mcz_code_name's brief form); a
 * location inlined into others gives one frame per function, outermost
 * first, as perf script shows inlined frames; code without a name is its
 * object, "[libfoo.so]".  Without call stacks (recorded without
 * --call-graph) each line is one location's functions alone.  A job file
 * gives its ranks' stacks added up, or rank R's.  Identical lines are
 * merged, and sorted, as stackcollapse sorts them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

/* The folded lines gathered (from one file or several ranks). */
typedef struct fold_line {
	char *line; /* "a;b;c" (no count) */
	uint64_t count;
} fold_line;

typedef struct fold_set {
	fold_line *v;
	size_t n, cap;
} fold_set;

static int fold_add(fold_set *s, const char *line, uint64_t count)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 256;
		fold_line *nv = realloc(s->v, nc * sizeof *nv);
		if (!nv)
			return -1;
		s->v = nv;
		s->cap = nc;
	}
	if (!(s->v[s->n].line = strdup(line)))
		return -1;
	s->v[s->n++].count = count;
	return 0;
}

/* The stack of frame f, root first, into buf. */
static void fold_stack(const mcz_code *c, uint32_t f, char *buf, size_t cap)
{
	uint32_t path[512];
	size_t n = 0, len = 0;
	for (uint32_t x = f; x != MCZ_CODE_ROOT && x < c->nframes && n < 512; x = c->frames[x].parent)
		path[n++] = x;
	buf[0] = 0;
	while (n-- > 0 && len + 2 < cap) {
		if (len)
			buf[len++] = ';';
		mcz_code_loc_frames(c, c->frames[path[n]].loc, buf + len, cap - len);
		len += strlen(buf + len);
	}
}

/* The stacks of one recording's intervals in [a, b) added to s. */
static int fold_file(const mcz_code *c, int64_t a, int64_t b, fold_set *s)
{
	int stacks = c->nframes > 0;
	size_t n = stacks ? c->nframes : c->nlocs;
	uint64_t *sum = calloc(n ? n : 1, sizeof *sum);
	char *buf = malloc(65536);
	int rc = !sum || !buf;
	if (stacks) {
		for (size_t i = 0; !rc && i < c->nstackhits; i++) {
			const mcz_code_stackhit *h = &c->stackhits[i];
			if (c->t[h->interval] >= a && c->t[h->interval] < b)
				sum[h->frame] += h->count;
		}
	} else {
		for (size_t i = 0; !rc && i < c->nintervals; i++)
			if (c->t[i] >= a && c->t[i] < b)
				for (size_t k = c->first[i]; k < c->first[i + 1]; k++)
					sum[c->hits[k].loc] += c->hits[k].count;
	}
	for (size_t i = 0; !rc && i < n; i++) {
		if (!sum[i])
			continue;
		if (stacks)
			fold_stack(c, (uint32_t)i, buf, 65536);
		else
			mcz_code_loc_frames(c, i, buf, 65536);
		rc = fold_add(s, buf, sum[i]);
	}
	free(sum), free(buf);
	return rc;
}

static int fold_cmp(const void *x, const void *y)
{
	return strcmp(((const fold_line *)x)->line, ((const fold_line *)y)->line);
}

/* s sorted, equal lines merged, printed. */
static void fold_print(fold_set *s)
{
	if (s->n)
		qsort(s->v, s->n, sizeof *s->v, fold_cmp);
	for (size_t i = 0; i < s->n;) {
		uint64_t total = 0;
		size_t j = i;
		for (; j < s->n && !strcmp(s->v[j].line, s->v[i].line); j++)
			total += s->v[j].count;
		printf("%s %" PRIu64 "\n", s->v[i].line, total);
		i = j;
	}
}

static int fold_code(mcz_reader *r, const char *path, const char *cmd, const mcz_code **c)
{
	int rc = mcz_code_get(r, c);
	if (rc == MCZ_E_NOTFOUND) {
		fprintf(stderr, "mcz %s: %s: no code profile (recorded without the code source: "
			"see mcrec --list)\n", cmd, tool_common_esc(path));
		return 1;
	}
	if (rc) {
		tool_common_error(cmd, path, rc);
		return 1;
	}
	return 0;
}

int tool_dump_folded(mcz_reader *r, const char *path, const char *from, const char *to,
		     int64_t f, int64_t t, long rank)
{
	fold_set s = {0};
	int rc = 0, found = 0;
	size_t nm = mcz_member_count(r);
	for (size_t m = 0; m < (nm ? nm : 1) && !rc; m++) {
		mcz_reader *one = r;
		if (nm && mcz_member_open(r, m, 0, &one)) {
			tool_common_error("dump", path, MCZ_E_CORRUPT);
			rc = 1;
			break;
		}
		const char *rk = mcz_meta(one, "rank");
		if (rank < 0 || (rk && strtol(rk, NULL, 10) == rank && *rk)) {
			const mcz_file_info *fi = mcz_info(one);
			const mcz_code *c;
			int64_t a = from ? fi->t_first + f : INT64_MIN, b = to ? fi->t_first + t : INT64_MAX;
			rc = fold_code(one, nm ? mcz_member_name(r, m) : path, "dump", &c);
			if (!rc && fold_file(c, a, b, &s)) {
				fprintf(stderr, "mcz dump: out of memory\n");
				rc = 1;
			}
			found = 1;
		}
		if (one != r)
			mcz_close(one);
	}
	if (!rc && !found) {
		fprintf(stderr, "mcz dump: %s: no rank %ld in it (mcz info %s names its ranks)\n",
			tool_common_esc(path), rank, tool_common_esc(path));
		rc = 1;
	}
	if (!rc)
		fold_print(&s);
	for (size_t i = 0; i < s.n; i++)
		free(s.v[i].line);
	free(s.v);
	return rc;
}
