/* rec-read.c: what the recorder's tests need from a .mcz file, printed as
 * plain lines for shell tests (the format's own `mcz` tool is the user's
 * view; this one is for asserting):
 *
 *   rec-read FILE info        rows, chunks, streams, t_first, t_last, recovered
 *   rec-read FILE streams     id name instance source unit kind flags topo native
 *   rec-read FILE kinds       name|instance|kind|type|unit|scale|note, one per stream
 *   rec-read FILE topo        name|instance|type|os_index|object|percpu, one per
 *                             stream: its topology object ("machine|-1|" for none)
 *                             and its MCZ_SF_PERCPU flag (1 or 0)
 *   rec-read FILE total NAME  sum over instances of NAME: counters' last raw
 *                             value x scale (the count since the start), gauges' max
 *   rec-read FILE marks       t_ns kind source text
 *   rec-read FILE times       every row's timestamp (ns), one per line
 *   rec-read FILE meta KEY    a metadata value
 *   rec-read FILE chunks      per chunk in the index: number, block offset, rows,
 *                             t_first, t_last (damage tests flip bytes inside one)
 *   rec-read FILE series NAME per row: t_ns and the sum over NAME's instances of
 *                             the per-interval delta x scale (counters) or value
 *                             (gauges)
 * Exit 1 with one line on any error (unreadable file, unknown stream).
 */
#include "../../format/mcz.h"
#include "../../format/container/reader.h" /* chunks: the index (a test may look inside) */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int die(const char *what, int rc)
{
	fprintf(stderr, "rec-read: %s: %s %s\n", what, mcz_strerror(rc), mcz_errdetail());
	return 1;
}

int main(int argc, char **argv)
{
	mcz_reader *r;
	int rc;
	if (argc < 3) {
		fprintf(stderr, "usage: rec-read FILE info|streams|kinds|topo|total NAME|marks|times|meta KEY\n");
		return 2;
	}
	if ((rc = mcz_open(&r, argv[1], 0)) != MCZ_OK)
		return die(argv[1], rc);
	const mcz_file_info *fi = mcz_info(r);
	const char *cmd = argv[2];
	size_t ns = mcz_stream_count(r);
	if (!strcmp(cmd, "info")) {
		printf("rows %llu\nchunks %llu\nstreams %zu\nmarks %zu\nt_first %lld\nt_last %lld\n"
		       "recovered %d\nwall_epoch_ns %lld\n",
		       (unsigned long long)fi->nrows, (unsigned long long)fi->nchunks, ns,
		       mcz_mark_count(r), (long long)fi->t_first, (long long)fi->t_last, fi->recovered,
		       (long long)fi->wall_epoch_ns);
	} else if (!strcmp(cmd, "streams")) {
		for (size_t i = 0; i < ns; i++) {
			const mcz_stream_desc *d = mcz_stream(r, i);
			printf("%zu %s %s %s %s %s %u %d %s\n", i, d->name, d->instance[0] ? d->instance : "-",
			       d->source, d->unit[0] ? d->unit : "-",
			       d->kind == MCZ_COUNTER ? "counter" : "gauge", d->flags, d->topo, d->native);
		}
	} else if (!strcmp(cmd, "kinds")) {
		static const char *const type[] = {"u64", "i64", "f64"};
		for (size_t i = 0; i < ns; i++) {
			const mcz_stream_desc *d = mcz_stream(r, i);
			printf("%s|%s|%s|%s|%s|%.17g|%s\n", d->name, d->instance,
			       d->kind == MCZ_COUNTER ? "counter" : "gauge",
			       d->type < 3 ? type[d->type] : "?", d->unit, d->scale, d->note);
		}
	} else if (!strcmp(cmd, "topo")) {
		static const char *const type[] = {"machine", "package", "numa", "l3", "l2", "l1",
						   "core", "pu", "gpu", "nic", "other"};
		for (size_t i = 0; i < ns; i++) {
			const mcz_stream_desc *d = mcz_stream(r, i);
			const mcz_topo_obj *o = d->topo >= 0 ? mcz_topo(r, (size_t)d->topo) : NULL;
			printf("%s|%s|%s|%d|%s|%d\n", d->name, d->instance,
			       !o ? "machine" : o->type <= MCZ_TOPO_OTHER ? type[o->type] : "?",
			       o ? o->os_index : -1, o && o->name ? o->name : "",
			       !!(d->flags & MCZ_SF_PERCPU));
		}
	} else if (!strcmp(cmd, "total") && argc > 3) {
		double total = 0;
		int found = 0;
		for (size_t i = 0; i < ns; i++) {
			const mcz_stream_desc *d = mcz_stream(r, i);
			if (strcmp(d->name, argv[3]))
				continue;
			mcz_series s = {0};
			if ((rc = mcz_read(r, (uint32_t)i, fi->t_first, fi->t_last + 1, &s)) != MCZ_OK)
				return die("read", rc);
			double best = 0;
			for (size_t k = 0; k < s.n; k++) {
				if (!s.present[k])
					continue;
				double v = d->type == MCZ_F64 ? s.v[k].f
					   : d->type == MCZ_I64 ? (double)s.v[k].i : (double)s.v[k].u;
				if (d->kind == MCZ_COUNTER || v > best)
					best = v;
			}
			total += best * d->scale;
			found = 1;
			mcz_series_free(&s);
		}
		if (!found) {
			fprintf(stderr, "rec-read: no stream named %s\n", argv[3]);
			return 1;
		}
		printf("%.17g\n", total);
	} else if (!strcmp(cmd, "marks")) {
		static const char *kinds[] = {"point", "begin", "end", "gap"};
		for (size_t i = 0; i < mcz_mark_count(r); i++) {
			const mcz_mark *m = mcz_mark_at(r, i);
			printf("%lld %s %u %s\n", (long long)m->t, m->kind < 4 ? kinds[m->kind] : "?",
			       m->source, m->text);
		}
	} else if (!strcmp(cmd, "chunks")) {
		for (size_t i = 0; i < r->ix.nchunks; i++) {
			const mcz_index_chunk *k = &r->ix.chunks[i];
			printf("%zu %llu %u %lld %lld\n", i, (unsigned long long)k->off, k->nrows,
			       (long long)k->t_first, (long long)k->t_last);
		}
	} else if (!strcmp(cmd, "times")) {
		mcz_series s = {0};
		if (ns == 0) {
			fprintf(stderr, "rec-read: no streams\n");
			return 1;
		}
		if ((rc = mcz_read(r, 0, fi->t_first, fi->t_last + 1, &s)) != MCZ_OK)
			return die("read", rc);
		for (size_t k = 0; k < s.n; k++)
			printf("%lld\n", (long long)s.t[k]);
		mcz_series_free(&s);
	} else if (!strcmp(cmd, "series") && argc > 3) {
		mcz_series acc = {0};
		double *sum = NULL;
		for (size_t i = 0; i < ns; i++) {
			const mcz_stream_desc *d = mcz_stream(r, i);
			mcz_series s = {0};
			if (strcmp(d->name, argv[3]))
				continue;
			if ((rc = mcz_read(r, (uint32_t)i, fi->t_first, fi->t_last + 1, &s)) != MCZ_OK)
				return die("read", rc);
			if (!sum) {
				acc = s;
				sum = calloc(s.n ? s.n : 1, sizeof *sum);
			} else if (s.n != acc.n) {
				fprintf(stderr, "rec-read: instances of %s differ in rows\n", argv[3]);
				return 1;
			}
			for (size_t k = 0; k < s.n; k++) {
				double v = d->kind == MCZ_COUNTER ? (double)s.delta[k]
					   : d->type == MCZ_F64 ? s.v[k].f
					   : d->type == MCZ_I64 ? (double)s.v[k].i : (double)s.v[k].u;
				if (s.present[k])
					sum[k] += v * d->scale;
			}
			if (sum && s.t != acc.t)
				mcz_series_free(&s);
		}
		if (!sum) {
			fprintf(stderr, "rec-read: no stream named %s\n", argv[3]);
			return 1;
		}
		for (size_t k = 0; k < acc.n; k++)
			printf("%lld %.17g\n", (long long)acc.t[k], sum[k]);
		free(sum);
		mcz_series_free(&acc);
	} else if (!strcmp(cmd, "meta") && argc > 3) {
		const char *v = mcz_meta(r, argv[3]);
		if (!v) {
			fprintf(stderr, "rec-read: no metadata %s\n", argv[3]);
			return 1;
		}
		puts(v);
	} else {
		fprintf(stderr, "rec-read: unknown command %s\n", cmd);
		return 2;
	}
	mcz_close(r);
	return 0;
}
