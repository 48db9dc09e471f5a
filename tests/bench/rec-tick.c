/* rec-tick.c: cost of one sampling tick per mcrec source, in microseconds
 * (median and p99 over many reads), as the recorder's sampling thread pays
 * it: sources set up as for `mcrec -g all` on this process, then read()
 * timed one source at a time.  Printed as a table by bench-rec-tick.sh.
 *
 *   rec-tick [TICKS [mcrec options...]]   (default 2000 ticks, -g all)
 *
 * REC_TICK_SLEEP_US=10000 sleeps that long between reads, as the recorder
 * does: caches and TLB are cold again at every tick, which is what a real
 * run pays (back to back, the default, is the warm best case). */
#include "../../recorder/rec.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int ticks = argc > 1 ? atoi(argv[1]) : 2000;
	const char *gap = getenv("REC_TICK_SLEEP_US");
	int sleep_us = gap ? atoi(gap) : 0;
	rec_options o;
	char *av[64] = {"rec-tick", "-q"};
	int ac = 2;
	char err[512];
	rec_sourceset ss;
	rec_ctx base;
	if (ticks < 10)
		ticks = 10;
	for (int i = 2; i < argc && ac < 60; i++)
		av[ac++] = argv[i];
	av[ac++] = "--";
	av[ac++] = "true";
	if (rec_options_parse(ac, av, &o, err, sizeof err)) {
		fprintf(stderr, "rec-tick: %s\n", err);
		return 2;
	}
	o.interval_ns = 10000000;
	mcrec_context(&o, &base, NULL);
	if (rec_sourceset_open(&ss, &o, &base, 0, err, sizeof err) ||
	    rec_sourceset_start(&ss, getpid(), err, sizeof err)) {
		fprintf(stderr, "rec-tick: %s\n", err);
		return 1;
	}
	mcz_value *v = calloc(ss.nstreams + 1, sizeof *v);
	uint8_t *pr = calloc(ss.nstreams + 1, 1);
	int64_t *dt = calloc((size_t)ticks, sizeof *dt);
	printf("%-8s %8s %12s %12s %14s\n", "source", "streams", "median_us", "p99_us", "us_per_stream");
	int64_t tot_med = 0;
	for (size_t i = 0; i < ss.n; i++) {
		rec_source *s = &ss.src[i];
		if (ss.state[i] != 1)
			continue;
		for (int k = 0; k < ticks; k++) {
			int64_t a = rec_clock_now();
			s->ops->read(s, v + s->first, pr + s->first);
			dt[k] = rec_clock_now() - a;
			if (sleep_us > 0)
				usleep((useconds_t)sleep_us);
			else if (k % 100 == 99)
				usleep(1000); /* let the kernel move on between bursts */
		}
		qsort(dt, (size_t)ticks, sizeof *dt, cmp_i64);
		int64_t med = dt[ticks / 2], p99 = dt[ticks * 99 / 100];
		tot_med += med;
		printf("%-8s %8zu %12.2f %12.2f %14.3f\n", s->ops->name, s->n, med / 1e3, p99 / 1e3,
		       s->n ? med / 1e3 / (double)s->n : 0.0);
	}
	printf("%-8s %8zu %12.2f\n", "all", ss.nstreams, tot_med / 1e3);
	rec_sourceset_stop(&ss);
	rec_sourceset_free(&ss);
	rec_options_free(&o);
	free(v), free(pr), free(dt);
	return 0;
}
