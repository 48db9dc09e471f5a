/* mcmark.h: marks from an application into the mcrec recording it runs under.
 *
 * A single header, no library to link:
 *
 *     #include "mcmark.h"
 *     mcmark("DMC start");          // a point in time
 *     mcmark_begin("resort");       // a region ...
 *     ...
 *     mcmark_end();                 // ... ends here (the innermost open one)
 *     mcmark_count("flops", 2.0 * n); // work done: the counter stream app.flops
 *     mcmark_work(2.0 * n, 24.0 * n); // flops and bytes together (the roofline)
 *
 * Under mcrec the environment holds MCMARK_FD, the number of a descriptor
 * the recorder passes down to its child (and so to every process the child
 * starts, e.g. the `mcmark` command in a shell script).  Each mark is one
 * datagram "K <ns> <pid> <text>" where K is P, B or E and <ns> is
 * CLOCK_MONOTONIC at the call, so the mark carries the time it was made, not
 * the time the recorder read it.  Without MCMARK_FD every call is a no-op
 * costing one branch.
 *
 * Why a datagram socket (socketpair AF_UNIX/SOCK_DGRAM) and not a pipe: a
 * datagram keeps each mark whole, and send(MSG_NOSIGNAL|MSG_DONTWAIT) never
 * raises SIGPIPE in the application if the recorder died, and never blocks it
 * if the recorder is slow (the mark is dropped instead).
 *
 * Thread-safe: each call is a single send().  Texts are cut at 200 bytes.
 *
 * Work counts (mcmark_count) travel as "C <ns> <pid> <amount> <name>" and
 * become the counter stream app.<name>: the recorder adds every amount of
 * an interval.  mcmark_work(flops, bytes) sends both in one datagram
 * ("C <ns> <pid> <flops> flops <bytes> bytes"), so that no sample holds a
 * piece of work's flops without its bytes: two mcmark_count calls are two
 * datagrams, and an application descheduled between them (a busy machine)
 * puts a sample's edge in the middle, a phase's intensity then off by one
 * piece in the many it holds.  "flops" (floating-point operations) and
 * "bytes" (bytes moved to and from memory) are recorded always and feed
 * the roofline; any other name is recorded when mcrec is given
 * -e mark:NAME.  A name is 1 to 48 of [A-Za-z0-9_.-]; a bad name, or an
 * amount that is negative or not finite, is not counted (mcrec says at the
 * end how many such calls it saw).
 */
#ifndef MCMARK_H
#define MCMARK_H

/* POSIX clock_gettime() even when the application compiles as strict ISO C
 * (-std=c11), if this header comes first; see also below. */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef CLOCK_MONOTONIC
/* <time.h> was read earlier in strict ISO C mode: Linux's own value. */
#define CLOCK_MONOTONIC 1
extern int clock_gettime(int clk, struct timespec *ts);
#endif

#define MCMARK_ENV "MCMARK_FD"
#define MCMARK_TEXT_MAX 200

/* The descriptor from the environment, looked up once: -1 = not under mcrec. */
static inline int mcmark_fd_(void)
{
	static int fd = -2;
	if (fd == -2) {
		const char *e = getenv(MCMARK_ENV);
		char *end = NULL;
		long v = e ? strtol(e, &end, 10) : -1;
		fd = (e && end != e && *end == '\0' && v >= 0 && v < 1 << 20) ? (int)v : -1;
	}
	return fd;
}

/* 0 sent, -1 not (not under mcrec, or the recorder's queue full). */
static inline int mcmark_send_(char kind, const char *text)
{
	int fd = mcmark_fd_();
	if (fd < 0)
		return -1;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	char buf[MCMARK_TEXT_MAX + 64];
	int n = snprintf(buf, sizeof buf, "%c %lld %ld %.*s", kind,
			 (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec, (long)getpid(),
			 MCMARK_TEXT_MAX, text ? text : "");
	if (n <= 0)
		return -1;
	return send(fd, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1,
		    MSG_NOSIGNAL | MSG_DONTWAIT) < 0 ? -1 : 0;
}

/* A point mark. */
static inline void mcmark(const char *text)
{
	(void)mcmark_send_('P', text);
}

/* Start of a region named text. */
static inline void mcmark_begin(const char *text)
{
	(void)mcmark_send_('B', text);
}

/* End of the innermost open region. */
static inline void mcmark_end(void)
{
	(void)mcmark_send_('E', "");
}

#define MCMARK_COUNT_NAME_MAX 48

/* 1 when name is a valid counter name (see above). */
static inline int mcmark_count_name_ok(const char *name)
{
	size_t n = 0;
	if (!name)
		return 0;
	for (; name[n]; n++) {
		char c = name[n];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-') || n >= MCMARK_COUNT_NAME_MAX)
			return 0;
	}
	return n > 0;
}

/* !(a >= 0): NaN too; the bound keeps it finite and printable. */
static inline int mcmark_amount_ok_(double a)
{
	return a >= 0 && a <= 1e300;
}

/* One count datagram: name1 += a1, and name2 += a2 when name2 is given. */
static inline void mcmark_counts_(const char *name1, double a1, const char *name2, double a2)
{
	int fd = mcmark_fd_();
	if (fd < 0)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	char buf[2 * MCMARK_COUNT_NAME_MAX + 128];
	long long ns = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	int n;
	/* a bad call is sent without its names or amounts, for mcrec to count */
	if (!mcmark_amount_ok_(a1) || !mcmark_count_name_ok(name1) ||
	    (name2 && (!mcmark_amount_ok_(a2) || !mcmark_count_name_ok(name2))))
		n = snprintf(buf, sizeof buf, "C %lld %ld bad", ns, (long)getpid());
	else if (name2)
		n = snprintf(buf, sizeof buf, "C %lld %ld %.17g %s %.17g %s", ns, (long)getpid(), a1,
			     name1, a2, name2);
	else
		n = snprintf(buf, sizeof buf, "C %lld %ld %.17g %s", ns, (long)getpid(), a1, name1);
	if (n > 0 && (size_t)n < sizeof buf)
		(void)send(fd, buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Add amount (>= 0: flops, bytes, items...) to the counter app.<name>. */
static inline void mcmark_count(const char *name, double amount)
{
	mcmark_counts_(name, amount, NULL, 0);
}

/* A piece of work's floating-point operations and memory bytes (both >= 0),
 * to app.flops and app.bytes at once (see above). */
static inline void mcmark_work(double flops, double bytes)
{
	mcmark_counts_("flops", flops, "bytes", bytes);
}

/* 1 when running under mcrec (marks are recorded). */
static inline int mcmark_active(void)
{
	return mcmark_fd_() >= 0;
}

#endif
