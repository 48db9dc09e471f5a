/* view-probe.c: the value of one stream of a recording at a time, read with
 * mcz_read alone (not through the viewer), for end-to-end tests to compare
 * with what mcview shows.
 *
 *   view-probe FILE LABEL T     LABEL: name, name[instance] or name#id; T in seconds
 *
 * Prints "SAMPLE_T_NS VALUE" of the present sample nearest to T (mcview
 * prints sample times to the millisecond): a gauge's value x scale, a
 * counter's rate delta x scale / interval since the previous present sample,
 * per second.  Exit 1 with a message on error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../format/mcz.h"

static long find(mcz_reader *r, const char *label)
{
	char buf[256];
	const char *hash = strrchr(label, '#');
	if (hash) /* mcview's label for streams of the same name: name#id */
		return atol(hash + 1) < (long)mcz_stream_count(r) ? atol(hash + 1) : -1;
	for (size_t i = 0; i < mcz_stream_count(r); i++) {
		const mcz_stream_desc *d = mcz_stream(r, i);
		if (d->instance && *d->instance)
			snprintf(buf, sizeof buf, "%s[%s]", d->name, d->instance);
		else
			snprintf(buf, sizeof buf, "%s", d->name);
		if (strcmp(buf, label) == 0)
			return (long)i;
	}
	return -1;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: view-probe FILE LABEL SECONDS\n");
		return 2;
	}
	mcz_reader *r;
	int rc = mcz_open(&r, argv[1], 0);
	if (rc) {
		fprintf(stderr, "view-probe: %s: %s\n", argv[1], mcz_strerror(rc));
		return 1;
	}
	long s = find(r, argv[2]);
	if (s < 0) {
		fprintf(stderr, "view-probe: no stream %s\n", argv[2]);
		return 1;
	}
	const mcz_stream_desc *d = mcz_stream(r, (size_t)s);
	int64_t t = llround(atof(argv[3]) * 1e9);
	mcz_series se = {0};
	const mcz_file_info *fi = mcz_info(r);
	if (mcz_read(r, (uint32_t)s, fi->t_first, fi->t_last + 1, &se)) {
		fprintf(stderr, "view-probe: read failed\n");
		return 1;
	}
	long hit = -1, prev = -1, last = -1;
	for (size_t i = 0; i < se.n; i++) {
		if (!se.present[i])
			continue;
		if (hit < 0 || llabs(se.t[i] - t) < llabs(se.t[hit] - t)) {
			hit = (long)i;
			prev = last;
		}
		last = (long)i;
	}
	if (hit < 0 || (d->kind == MCZ_COUNTER && prev < 0)) {
		fprintf(stderr, "view-probe: no sample\n");
		return 1;
	}
	double v;
	if (d->kind == MCZ_COUNTER)
		v = (double)se.delta[hit] * d->scale / ((double)(se.t[hit] - se.t[prev]) * 1e-9);
	else
		v = (d->type == MCZ_F64   ? se.v[hit].f
		     : d->type == MCZ_I64 ? (double)se.v[hit].i
					  : (double)se.v[hit].u) *
		    d->scale;
	printf("%lld %.9g\n", (long long)se.t[hit], v);
	mcz_series_free(&se);
	mcz_close(r);
	return 0;
}
