/* src-values.c: the values of some streams of a .mcz file, for the source
 * tests to compare with the reference tools (pmval, perf stat):
 *
 *   src-values FILE [SOURCE:]NAME [INSTANCE]
 *
 * prints, for each stream called NAME (of that source, and of that
 * instance), one line:
 *
 *   instance source native unit scale kind present first last t_first t_last topo
 *
 * where first/last are the first and last present raw values (counters:
 * cumulative, as the source read them; gauges: as stored; "-" when none)
 * and kind is "counter" or "gauge".  With SRC_VALUES_SERIES=1 in the
 * environment, every present sample follows as "  T_NS VALUE".  Exit 1 with
 * one line when the file cannot be read or no stream matches.
 */
#include "../../format/mcz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put(const mcz_stream_desc *d, mcz_value v)
{
	if (d->type == MCZ_F64)
		printf(" %.17g", v.f);
	else if (d->type == MCZ_I64)
		printf(" %lld", (long long)v.i);
	else
		printf(" %llu", (unsigned long long)v.u);
}

int main(int argc, char **argv)
{
	mcz_reader *r;
	int rc, hits = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: src-values FILE NAME [INSTANCE]\n");
		return 2;
	}
	if ((rc = mcz_open(&r, argv[1], 0)) != MCZ_OK) {
		fprintf(stderr, "src-values: %s: %s %s\n", argv[1], mcz_strerror(rc), mcz_errdetail());
		return 1;
	}
	const mcz_file_info *fi = mcz_info(r);
	const char *name = strchr(argv[2], ':') ? strchr(argv[2], ':') + 1 : argv[2];
	size_t srclen = name == argv[2] ? 0 : (size_t)(name - 1 - argv[2]);
	for (size_t i = 0; i < mcz_stream_count(r); i++) {
		const mcz_stream_desc *d = mcz_stream(r, i);
		mcz_series s = { 0 };
		size_t n = 0, a = 0, b = 0;

		if (strcmp(d->name, name) != 0 || (argc > 3 && strcmp(d->instance, argv[3]) != 0) ||
		    (srclen && (strlen(d->source) != srclen || strncmp(d->source, argv[2], srclen) != 0)))
			continue;
		if ((rc = mcz_read(r, (uint32_t)i, fi->t_first, fi->t_last + 1, &s)) != MCZ_OK) {
			fprintf(stderr, "src-values: %s: %s\n", d->name, mcz_strerror(rc));
			mcz_close(r);
			return 1;
		}
		for (size_t k = 0; k < s.n; k++)
			if (s.present[k]) {
				if (!n++)
					a = k;
				b = k;
			}
		printf("%s %s %s %s %.17g %s %zu", d->instance[0] ? d->instance : "-", d->source, d->native,
		       d->unit[0] ? d->unit : "-", d->scale, d->kind == MCZ_COUNTER ? "counter" : "gauge", n);
		if (n) {
			put(d, s.v[a]);
			put(d, s.v[b]);
			printf(" %lld %lld", (long long)s.t[a], (long long)s.t[b]);
		} else {
			printf(" - - - -");
		}
		printf(" %d\n", (int)d->topo);
		if (getenv("SRC_VALUES_SERIES"))
			for (size_t k = 0; k < s.n; k++)
				if (s.present[k]) {
					printf("  %lld", (long long)s.t[k]);
					put(d, s.v[k]);
					printf("\n");
				}
		mcz_series_free(&s);
		hits++;
	}
	mcz_close(r);
	if (!hits) {
		fprintf(stderr, "src-values: no stream '%s'%s%s in %s\n", argv[2], argc > 3 ? " instance " : "",
			argc > 3 ? argv[3] : "", argv[1]);
		return 1;
	}
	return 0;
}
