/* tool-dump-code.c: `mcz dump FILE --code [--csv|--json] [--from T] [--to T]`:
 * the file's code profile (SPEC.md 5.6) — one row per interval and code
 * location with its samples (text or CSV), functions by the name people
 * read (mcz_code_name: demangled, clones folded; text: the brief name, CSV
 * and JSON: the stored symbol and the full name), or in JSON the location table,
 * the sparse histograms and the callers ([location, caller, samples], with
 * callchains) as stored.  Times are seconds from the start
 * of the recording, as in the rest of mcz dump.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tool.h"

static void code_json(const mcz_code *c, int64_t origin, int64_t a, int64_t b)
{
	printf("{\"event\": ");
	tool_common_json_str(c->event);
	printf(", \"period\": %" PRIu64 ", \"interval_ns\": %" PRId64 ", \"note\": ", c->period,
	       c->interval_ns);
	tool_common_json_str(c->note);
	printf(",\n \"objects\": [");
	for (size_t i = 0; i < c->nobjects; i++) {
		printf("%s\n  {\"path\": ", i ? "," : "");
		tool_common_json_str(c->objects[i].path);
		printf(", \"build_id\": ");
		tool_common_json_str(c->objects[i].build_id);
		printf(", \"note\": ");
		tool_common_json_str(c->objects[i].note);
		putchar('}');
	}
	printf("],\n \"locations\": [");
	static const char *how[] = {"address", "symtab", "dwarf"};
	for (size_t i = 0; i < c->nlocs; i++) {
		const mcz_code_loc *l = &c->locs[i];
		char full[512], brief[512];
		mcz_code_name(l->function, full, sizeof full, brief, sizeof brief);
		printf("%s\n  {\"id\": %zu, \"function\": ", i ? "," : "", i);
		tool_common_json_str(l->function);
		printf(", \"name\": ");
		tool_common_json_str(full);
		printf(", \"brief\": ");
		tool_common_json_str(brief);
		printf(", \"inlined\": ");
		tool_common_json_str(l->inlined);
		printf(", \"file\": ");
		tool_common_json_str(l->file);
		printf(", \"line\": %u, \"object\": %u, \"offset\": %" PRIu64 ", \"how\": \"%s\"}",
		       l->line, l->object, l->offset, how[l->how]);
	}
	printf("],\n \"intervals\": [");
	int first = 1;
	for (size_t i = 0; i < c->nintervals; i++) {
		if (c->t[i] < a || c->t[i] >= b)
			continue;
		printf("%s\n  {\"t\": %.9f, \"hits\": [", first ? "" : ",",
		       (double)(c->t[i] - origin) / 1e9);
		first = 0;
		for (size_t h = c->first[i]; h < c->first[i + 1]; h++)
			printf("%s[%u, %u]", h > c->first[i] ? ", " : "", c->hits[h].loc,
			       c->hits[h].count);
		printf("]}");
	}
	printf("\n ],\n \"callers\": [");
	for (size_t e = 0; e < c->ncallers; e++)
		printf("%s[%u, %u, %u]", e ? ", " : "", c->callers[e].loc, c->callers[e].caller,
		       c->callers[e].count);
	printf("]}\n");
}

int tool_dump_code(mcz_reader *r, const char *path, int csv, int json, int64_t a, int64_t b,
		   int64_t origin)
{
	const mcz_code *c;
	int rc = mcz_code_get(r, &c);
	if (rc == MCZ_E_NOTFOUND) {
		int sampled = 0; /* the code source ran: its stream is there */
		for (size_t i = 0; i < mcz_stream_count(r); i++)
			sampled |= !strcmp(mcz_stream(r, i)->name, "code.samples");
		if (sampled)
			fprintf(stderr, "mcz dump: %s: no code profile: its recorder was killed before "
				"it wrote any (mcrec before format 1.6 wrote it only at its end)\n", path);
		else
			fprintf(stderr, "mcz dump: %s: no code profile (recorded without the code "
				"source: see mcrec --list)\n", path);
		return 1;
	}
	if (rc) {
		tool_common_error("dump", path, rc);
		return 1;
	}
	if (json) {
		code_json(c, origin, a, b);
		return 0;
	}
	if (csv)
		printf("time_s,samples,function,inlined,file,line,object,offset,name\n");
	else
		printf("%12s %8s  %-28s %-24s %s\n", "time_s", "samples", "function", "file:line",
		       "object+offset");
	for (size_t i = 0; i < c->nintervals; i++) {
		if (c->t[i] < a || c->t[i] >= b)
			continue;
		double t = (double)(c->t[i] - origin) / 1e9;
		for (size_t h = c->first[i]; h < c->first[i + 1]; h++) {
			const mcz_code_loc *l = &c->locs[c->hits[h].loc];
			const char *obj = c->objects[l->object].path;
			char full[512], brief[512];
			mcz_code_name(l->function, full, sizeof full, brief, sizeof brief);
			if (csv) {
				printf("%.9f,%u,", t, c->hits[h].count);
				tool_common_csv_str(l->function);
				putchar(',');
				tool_common_csv_str(l->inlined);
				putchar(',');
				tool_common_csv_str(l->file);
				printf(",%u,", l->line);
				tool_common_csv_str(obj);
				printf(",0x%" PRIx64 ",", l->offset);
				tool_common_csv_str(full);
				putchar('\n');
				continue;
			}
			char fl[300] = "-";
			if (l->file[0])
				snprintf(fl, sizeof fl, "%s:%u", tool_common_esc(l->file), l->line);
			const char *base = strrchr(fl, '/');
			const char *on = strrchr(obj, '/');
			printf("%12.6f %8u  %-28s %-24s %s+0x%" PRIx64 "\n", t, c->hits[h].count,
			       brief[0] ? tool_common_esc(brief) : "?", base ? base + 1 : fl,
			       tool_common_esc(on ? on + 1 : obj),
			       l->offset);
		}
	}
	return 0;
}
