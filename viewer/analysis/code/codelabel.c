/* codelabel.c: the names of code for people (codelabel.h).  Code without
 * symbols is named by its object, one row for all of it ("hpcc (no
 * symbols)"), not one per address: an address says nothing to a reader,
 * and a stripped distribution binary's time spread over a hundred offsets
 * hid that most of the run was in it.  Where names are missing, the report
 * says once how to get them: the file keeps no binary, so names come from
 * the recording host (a debug package, or a debuginfod server that mcrec
 * asks through libdwfl when DEBUGINFOD_URLS is set; recorder/mcrec.1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codelabel.h"

void vw_codelabel_object(const char *base, char *buf, size_t len)
{
	snprintf(buf, len, "%s (no symbols)", base);
}

int vw_codelabel_briefs(char *const *names, size_t n, char ***brief)
{
	char **b = calloc(n + 1, sizeof *b);
	if (!b)
		return -1;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]) + 1;
		if (!(b[i] = malloc(len))) {
			while (i-- > 0)
				free(b[i]);
			free(b);
			return -1;
		}
		mcz_code_name_brief(names[i], b[i], len);
	}
	*brief = b;
	return 0;
}

void vw_codelabel_chain(const char *inlined, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (const char *s = inlined; *s && at + 1 < len;) {
		size_t n = strcspn(s, ";");
		char sym[480], full[480], brief[400];
		snprintf(sym, sizeof sym, "%.*s", (int)(n < sizeof sym ? n : sizeof sym - 1), s);
		mcz_code_name(sym, full, sizeof full, brief, sizeof brief);
		int w = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", brief);
		at += w > 0 && (size_t)w < len - at ? (size_t)w : len - at - 1;
		s += n + (s[n] == ';');
	}
}

/* One object without symbols, by its name, over the dataset's files. */
typedef struct cn_obj {
	const char *base;
	uint64_t samples;
} cn_obj;

static const char *cn_base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Samples per object of the locations without a function, added to o
 * (at most max objects); every sample to *total. */
static size_t cn_count(const mcz_code *c, cn_obj *o, size_t n, size_t max, uint64_t *total)
{
	for (size_t h = 0; h < c->nhits; h++) {
		const mcz_code_loc *l = &c->locs[c->hits[h].loc];
		*total += c->hits[h].count;
		const char *path = c->objects[l->object].path;
		/* anonymous or JIT code: no package names it */
		if (l->function[0] || path[0] == '[' || !path[0])
			continue;
		const char *b = cn_base(path);
		size_t k = 0;
		while (k < n && strcmp(o[k].base, b))
			k++;
		if (k == n && n < max)
			o[n++] = (cn_obj){b, 0};
		if (k < n)
			o[k].samples += c->hits[h].count;
	}
	return n;
}

static int cn_by_samples(const void *a, const void *b)
{
	const cn_obj *x = a, *y = b;
	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

int vw_codelabel_hint(vw_model *m, char *buf, size_t len)
{
	cn_obj o[16];
	size_t n = 0;
	uint64_t total = 0;
	const char *dnote = NULL;
	for (size_t f = 0; f < m->nfiles; f++) {
		const mcz_code *c = vw_model_code_at(m, f, NULL);
		if (!c)
			continue;
		n = cn_count(c, o, n, sizeof o / sizeof *o, &total);
		if (!dnote && c->note)
			dnote = strstr(c->note, "debuginfod: ");
	}
	if (n) /* an empty array may be NULL */
		qsort(o, n, sizeof *o, cn_by_samples);
	size_t at = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < n && o[k].samples * 100 >= total && total; k++) {
		int w = snprintf(buf + at, len - at, "%s%s (%.0f %%)", k ? ", " : "code: no symbols for ",
				 o[k].base, 100.0 * (double)o[k].samples / (double)total);
		at += w <= 0 ? 0 : (size_t)w < len - at ? (size_t)w : len - at - 1;
	}
	if (!at && !dnote)
		return 0;
	/* the recorder's word on its debuginfod server: up to the next note */
	int dlen = dnote ? (int)strcspn(dnote, ";") : 0;
	if (at)
		snprintf(buf + at, len - at, ": install the debug package (Debian: -dbgsym), or record "
			 "again with DEBUGINFOD_URLS set (mcrec(1))%s%.*s", dnote ? "; " : "", dlen,
			 dnote ? dnote : "");
	else
		snprintf(buf, len, "code: %.*s", dlen, dnote);
	return 1;
}
