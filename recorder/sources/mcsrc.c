/* mcsrc.c: small helpers shared by the multi-component sources (papi, pcp,
 * nvml, rapl): the monotonic clock they time power integrals with, and a
 * formatter for reason lines that may be cut short on purpose.
 *
 *     int64_t t = src_mcsrc_now_ns();
 *     src_mcsrc_fmt(why, sizeof why, "cannot reach pmcd at %s: %s", host, err);
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "mcsrc.h"

int src_mcsrc_node_only(rec_source *s, const rec_ctx *c)
{
	if (c->node_streams)
		return 0;
	s->fatal = 0;
	s->absent = 1;
	return rec_unavailable(s, "node-wide: recorded by the node's first rank only",
			       "nothing to do: the recorder of local rank 0 has it");
}

long src_mcsrc_read_long(const char *path, long def)
{
	long v = def;
	FILE *f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = def;
		fclose(f);
	}
	return v;
}

int src_mcsrc_paranoid(void)
{
	return (int)src_mcsrc_read_long("/proc/sys/kernel/perf_event_paranoid", 2);
}

int64_t src_mcsrc_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void src_mcsrc_fmt(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, len, fmt, ap);
	va_end(ap);
}
