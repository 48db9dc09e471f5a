/* mark.c: the mark source — marks sent by the application (recorder/mcmark.h)
 * or by a shell script (the mcmark command) while mcrec records.
 *
 * probe() makes an AF_UNIX datagram socketpair and puts the number of the
 * child's end in the environment (MCMARK_FD) before the command is forked;
 * a receiving thread drains the recorder's end as datagrams come and hands
 * each mark, stamped with the time the application made it, to the
 * recorder (rec_mark_post).  Marks are their own blocks.
 *
 * Work counts (mcmark_count) are streams: the counters app.flops and
 * app.bytes always (they feed the roofline), and app.<name> for each name
 * given with -e mark:NAME.  Each read adds the amounts received since the
 * last tick to the stream's running total (a monotonic counter, rounded to
 * a whole unit).  A count for a name not declared is dropped; stop() says
 * how many and how to keep them.
 * Datagram format: mark-wire.h.
 */
#include "../mcmark.h"
#include "../source.h"
#include "mark-wire.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

enum { MARK_MAX_COUNTERS = 32 };

struct mark_priv {
	int rd, child_end;
	size_t ncount;                            /* counters declared */
	char name[MARK_MAX_COUNTERS][MCMARK_COUNT_NAME_MAX + 1];
	char stream[MARK_MAX_COUNTERS][MCMARK_COUNT_NAME_MAX + 8];
	double total[MARK_MAX_COUNTERS];          /* running sums */
	int32_t machine;                          /* topology id of the node */
	unsigned long dropped;                    /* counts for undeclared names */
	pthread_mutex_t lock;                     /* totals, dropped: receiver vs read */
	pthread_t thread;
	int thread_on;
	atomic_int stop;
	int wake;                                 /* eventfd: stop, to the thread */
	atomic_ulong malformed;                   /* counts with a bad name or amount */
	char dropped_name[MCMARK_COUNT_NAME_MAX + 1];
};

static int src_mark_probe(rec_source *s, const rec_ctx *c)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		return rec_unavailable(s, "socketpair failed", "check the open-file limit (ulimit -n)");
	struct mark_priv *p = malloc(sizeof *p);
	if (!p) {
		close(sv[0]), close(sv[1]);
		return rec_unavailable(s, "out of memory", "");
	}
	int rcv = 1 << 20;
	setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	fcntl(sv[1], F_SETFD, 0); /* the child's end survives exec */
	memset(p, 0, sizeof *p);
	pthread_mutex_init(&p->lock, NULL);
	p->rd = sv[0];
	p->wake = -1;
	p->child_end = sv[1];
	char num[16];
	snprintf(num, sizeof num, "%d", sv[1]);
	setenv(MCMARK_ENV, num, 1);
	s->priv = p;
	return 0;
}

/* Declare app.<name> once; 0, or -1 with the reason in s. */
static int src_mark_counter(rec_source *s, struct mark_priv *p, const char *name,
			    rec_streams *out)
{
	for (size_t i = 0; i < p->ncount; i++)
		if (!strcmp(p->name[i], name))
			return 0;
	if (!mcmark_count_name_ok(name)) {
		char why[128];
		snprintf(why, sizeof why, "bad counter name '%.60s'", name);
		return rec_unavailable(s, why, "a name is 1 to 48 of A-Z a-z 0-9 _ . -");
	}
	if (p->ncount == MARK_MAX_COUNTERS)
		return rec_unavailable(s, "more than 32 counters named with -e mark:NAME", "");
	size_t k = p->ncount++;
	snprintf(p->name[k], sizeof p->name[k], "%s", name);
	snprintf(p->stream[k], sizeof p->stream[k], "app.%s", name);
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	d.name = p->stream[k];
	d.source = "mark";
	d.native = !strcmp(name, "flops") ? "mcmark_count:flops" : !strcmp(name, "bytes") ? "mcmark_count:bytes" : "mcmark_count";
	d.unit = !strcmp(name, "flops") ? "flop" : !strcmp(name, "bytes") ? "B" : "";
	d.note = "reported by the application (mcmark_count)";
	d.kind = MCZ_COUNTER;
	d.type = MCZ_U64;
	d.topo = p->machine;
	return rec_streams_add(out, &d);
}

static int src_mark_streams(rec_source *s, const rec_ctx *c, rec_streams *out)
{
	struct mark_priv *p = s->priv;
	s->on_request = "marks sent by the command ('mcmark TEXT' or mcmark.h); work counts "
			"app.flops, app.bytes, and app.NAME with -e mark:NAME (mcmark_count)";
	p->machine = c->topo_machine ? c->topo_machine() : -1;
	if (src_mark_counter(s, p, "flops", out) || src_mark_counter(s, p, "bytes", out))
		return -1;
	for (size_t i = 0; c->events && c->events[i]; i++)
		if (src_mark_counter(s, p, c->events[i], out))
			return -1;
	return 0;
}

/* The n amounts of one datagram, added together: a sample holds all or none. */
static void src_mark_add(struct mark_priv *p, char **name, const double *amount, int n)
{
	pthread_mutex_lock(&p->lock);
	for (int k = 0; k < n; k++) {
		size_t i = 0;
		while (i < p->ncount && strcmp(p->name[i], name[k]))
			i++;
		if (i < p->ncount)
			p->total[i] += amount[k];
		else if (!p->dropped++)
			snprintf(p->dropped_name, sizeof p->dropped_name, "%s", name[k]);
	}
	pthread_mutex_unlock(&p->lock);
}

/* Receive what is waiting (at most max datagrams); counts go to the totals. */
static void src_mark_drain(struct mark_priv *p, int max)
{
	char buf[MCMARK_TEXT_MAX + 80];
	for (int i = 0; i < max; i++) {
		ssize_t n = recv(p->rd, buf, sizeof buf - 1, MSG_DONTWAIT);
		if (n < 0)
			break;
		buf[n] = '\0';
		mcz_mark_kind kind;
		int64_t t;
		uint32_t pid;
		char *text, *name[MARK_MAX_COUNTERS];
		double amount[MARK_MAX_COUNTERS];
		if (buf[0] == 'C') {
			int np = src_mark_wire_count(buf, &t, &pid, amount, name, MARK_MAX_COUNTERS);
			if (np > 0)
				src_mark_add(p, name, amount, np);
			else
				atomic_fetch_add(&p->malformed, 1);
		} else if (src_mark_wire_parse(buf, &kind, &t, &pid, &text) == 0)
			rec_mark_post(t, kind, pid, text);
	}
}

/* The receiving thread: a busy application sends thousands of counts a
 * second, more than the socket queues between two ticks (its queue is a
 * few hundred datagrams: net.core.rmem_max), so they are taken as they come. */
static void *src_mark_thread(void *arg)
{
	struct mark_priv *p = arg;
	/* It sleeps until a datagram or the stop comes (the eventfd), instead
	 * of waking 20 times a second to look at the flag. */
	while (!atomic_load(&p->stop)) {
		struct pollfd pf[2] = {{p->rd, POLLIN, 0}, {p->wake, POLLIN, 0}};
		if (poll(pf, p->wake >= 0 ? 2 : 1, p->wake >= 0 ? -1 : 50) > 0 && (pf[0].revents & POLLIN))
			src_mark_drain(p, 256);
	}
	return NULL;
}

static int src_mark_start(rec_source *s, const rec_ctx *c)
{
	struct mark_priv *p = s->priv;
	/* The child has its copy now; ours would only keep the socket alive. */
	if (c->child > 0 && p->child_end >= 0) {
		close(p->child_end);
		p->child_end = -1;
		unsetenv(MCMARK_ENV);
	}
	/* without the thread, read() drains at every tick (counts may be lost) */
	p->wake = eventfd(0, EFD_CLOEXEC);
	p->thread_on = pthread_create(&p->thread, NULL, src_mark_thread, p) == 0;
	return 0;
}

static int src_mark_read(rec_source *s, mcz_value *v, uint8_t *present)
{
	struct mark_priv *p = s->priv;
	if (!p->thread_on)
		src_mark_drain(p, 4096);
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < p->ncount; i++) {
		v[i].u = (uint64_t)llround(p->total[i]);
		present[i] = 1;
	}
	pthread_mutex_unlock(&p->lock);
	return 0;
}

static void src_mark_join(struct mark_priv *p)
{
	if (p->thread_on) {
		atomic_store(&p->stop, 1);
		uint64_t one = 1; /* an eventfd's write fails only past 2^64 - 2 */
		while (p->wake >= 0 && write(p->wake, &one, sizeof one) < 0 && errno == EINTR)
			;
		pthread_join(p->thread, NULL);
		p->thread_on = 0;
	}
}

static void src_mark_stop(rec_source *s)
{
	struct mark_priv *p = s->priv;
	if (!p)
		return;
	src_mark_join(p);
	src_mark_drain(p, 4096); /* the last marks */
	unsigned long bad = atomic_load(&p->malformed);
	if (bad)
		fprintf(stderr,
			"mcrec: mark: %lu work count%s ignored: a name not 1 to 48 of A-Z a-z 0-9 _ . -, "
			"or an amount not finite and >= 0\n",
			bad, bad == 1 ? "" : "s");
	if (p->dropped)
		fprintf(stderr,
			"mcrec: mark: %lu work count%s for undeclared counters ('%s'...) not "
			"recorded: name them with -e mark:%s\n",
			p->dropped, p->dropped == 1 ? "" : "s", p->dropped_name, p->dropped_name);
}

static void src_mark_free(rec_source *s)
{
	struct mark_priv *p = s->priv;
	if (!p)
		return;
	src_mark_join(p);
	pthread_mutex_destroy(&p->lock);
	close(p->rd);
	if (p->wake >= 0)
		close(p->wake);
	if (p->child_end >= 0)
		close(p->child_end);
	free(p);
	s->priv = NULL;
}

const rec_source_ops src_mark_ops = {
	"mark", "", src_mark_probe, src_mark_streams, src_mark_start,
	src_mark_read, src_mark_stop, src_mark_free, NULL, NULL, NULL, NULL,
};
