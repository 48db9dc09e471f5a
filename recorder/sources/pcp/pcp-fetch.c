/* pcp-fetch.c: one thread per pmcd context doing the pmFetch round trips,
 * so that the sampling thread waits at most until a deadline (see
 * pcp-fetch.h).  Requests carry a sequence number and a result is handed
 * over only to the tick that asked for it: a fetch that comes back late is
 * freed, not recorded at the wrong time.
 *
 * libpcp keeps the current context per thread, so this thread does every
 * PMAPI call on its context once started (pmUseContext, pmFetch,
 * pmReconnectContext); the source set the context up before.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "pcp-fetch.h"

struct src_pcp_fetch {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;   /* CLOCK_MONOTONIC: requests, results, quit */
	int ctx, n;
	pmID *pmids;
	uint64_t asked, answered; /* sequence numbers of requests */
	uint64_t tick;            /* the request of the current tick, 0: none */
	int busy, quit, lost;
	pmResult *res;       /* result of request `answered`, or NULL */
};

static void *fetch_main(void *arg)
{
	src_pcp_fetch *f = arg;

	pthread_mutex_lock(&f->mu);
	for (;;) {
		while (!f->quit && f->asked == f->answered)
			pthread_cond_wait(&f->cv, &f->mu);
		if (f->quit)
			break;
		uint64_t seq = f->asked;
		int lost = f->lost;
		f->busy = 1;
		pthread_mutex_unlock(&f->mu);

		pmResult *r = NULL;
		int rc = pmUseContext(f->ctx);
		if (rc >= 0 && lost)
			rc = pmReconnectContext(f->ctx); /* backs off by itself */
		if (rc >= 0)
			rc = pmFetch(f->n, f->pmids, &r);

		pthread_mutex_lock(&f->mu);
		f->busy = 0;
		f->lost = rc < 0;
		if (f->res)
			pmFreeResult(f->res); /* nobody took it: it was late */
		f->res = rc < 0 ? NULL : r;
		f->answered = seq;
		pthread_cond_broadcast(&f->cv);
	}
	pthread_mutex_unlock(&f->mu);
	return NULL;
}

int src_pcp_fetch_start(src_pcp_fetch **out, int ctx, int n, pmID *pmids)
{
	src_pcp_fetch *f = calloc(1, sizeof *f);
	pthread_condattr_t ca;

	if (!f)
		return -1;
	f->ctx = ctx;
	f->n = n;
	f->pmids = pmids;
	pthread_mutex_init(&f->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&f->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&f->th, NULL, fetch_main, f) != 0) {
		pthread_cond_destroy(&f->cv);
		pthread_mutex_destroy(&f->mu);
		free(f);
		return -1;
	}
	*out = f;
	return 0;
}

void src_pcp_fetch_request(src_pcp_fetch *f)
{
	pthread_mutex_lock(&f->mu);
	f->tick = 0; /* still fetching for an earlier tick: this one goes without */
	if (!f->busy && f->asked == f->answered) {
		if (f->res) { /* a late answer to an earlier tick */
			pmFreeResult(f->res);
			f->res = NULL;
		}
		f->tick = ++f->asked;
		pthread_cond_broadcast(&f->cv);
	}
	pthread_mutex_unlock(&f->mu);
}

pmResult *src_pcp_fetch_wait(src_pcp_fetch *f, int64_t deadline_ns)
{
	struct timespec ts = { (time_t)(deadline_ns / 1000000000LL), (long)(deadline_ns % 1000000000LL) };
	pmResult *r = NULL;

	pthread_mutex_lock(&f->mu);
	while (f->tick && f->answered != f->tick)
		if (pthread_cond_timedwait(&f->cv, &f->mu, &ts) == ETIMEDOUT)
			break;
	if (f->tick && f->answered == f->tick) {
		r = f->res;
		f->res = NULL;
	}
	f->tick = 0;
	pthread_mutex_unlock(&f->mu);
	return r;
}

void src_pcp_fetch_stop(src_pcp_fetch *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->mu);
	f->quit = 1;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
	pthread_join(f->th, NULL);
	if (f->res)
		pmFreeResult(f->res);
	pthread_cond_destroy(&f->cv);
	pthread_mutex_destroy(&f->mu);
	free(f);
}
