/* clock.c: the sampling clock of mcrec.  Ticks are planned on absolute
 * CLOCK_MONOTONIC deadlines t0 + k*interval and slept to with
 * clock_nanosleep(TIMER_ABSTIME), so the time spent reading sources never
 * accumulates into drift; a tick that is missed entirely (the machine was
 * busy) is skipped rather than caught up in a burst of back-to-back reads.
 * Also here: the -i interval parser ("100" = ms, "10ms", "0.5s", "250us").
 */
#include "rec.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t rec_clock_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t rec_clock_wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int rec_clock_parse_interval(const char *s, int64_t *ns, char *err, size_t errlen)
{
	static const struct {
		const char *suffix;
		double mult;
	} units[] = {{"", 1e6}, {"ms", 1e6}, {"s", 1e9}, {"us", 1e3}, {"ns", 1.0}, {"m", 60e9}};
	char *end;
	errno = 0;
	double v = s ? strtod(s, &end) : 0;
	if (!s || end == s || errno || !isfinite(v)) {
		snprintf(err, errlen, "interval '%s': not a duration (e.g. 100, 10ms, 0.5s)",
			 s ? s : "");
		return -1;
	}
	size_t u;
	for (u = 0; u < sizeof units / sizeof units[0]; u++)
		if (strcmp(end, units[u].suffix) == 0)
			break;
	if (u == sizeof units / sizeof units[0]) {
		snprintf(err, errlen, "interval '%s': unknown unit '%s' (use ms, s, us)", s, end);
		return -1;
	}
	double n = v * units[u].mult;
	if (!(n >= 1e6)) {
		snprintf(err, errlen, "interval '%s': must be at least 1 ms", s);
		return -1;
	}
	if (n > 3600e9) {
		snprintf(err, errlen, "interval '%s': must be at most 1 hour", s);
		return -1;
	}
	*ns = (int64_t)llround(n);
	return 0;
}

int rec_clock_sleep_until(int64_t deadline)
{
	struct timespec ts = {deadline / 1000000000LL, deadline % 1000000000LL};
	int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	return rc == 0 ? 0 : -1;
}

int64_t rec_clock_next(int64_t planned, int64_t now, int64_t interval, uint64_t *missed)
{
	int64_t next = planned + interval;
	uint64_t skip = 0;
	if (next < now) {
		int64_t k = (now - planned) / interval; /* >= 1 */
		next = planned + (k + 1) * interval;
		skip = (uint64_t)k;
	}
	if (missed)
		*missed = skip;
	return next;
}
