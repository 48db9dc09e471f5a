/* spool.c: the hand-off between mcrec's sampling thread and its writer
 * thread, so that encoding, compression and I/O never delay a sample.
 *
 * Rows go through a single-producer single-consumer ring of fixed slots
 * (C11 acquire/release indices, no lock): the sampler fills a slot in place
 * (sources read straight into it) and publishes it; when the ring is full
 * the row is dropped and counted, never waited for.  Marks are rare and
 * come from several places, so they use a small mutex-protected queue.
 *
 * The writer thread sleeps on a condition variable until a sync is due
 * (every REC_SYNC_NS, or --chunk if shorter), the ring is half full, the mark
 * queue is half full, or the recording stops; then it appends what arrived
 * and, when due, flushes a chunk (--chunk, default 5 s) or syncs: the rows
 * of the chunk still being gathered go to the file as a PART block
 * (mcz_writer_sync), so a SIGKILL of mcrec or a full disk loses at most
 * REC_SYNC_NS of rows while chunks stay long.  So it wakes once or twice a
 * second instead of every few tens of ms, and a stop
 * is answered at once (the sampler signals only at those crossings: one
 * futex call per half ring, nothing per tick).  The first write error (a
 * full disk) is kept, the thread stops writing and discards what follows,
 * and the sampler learns of it through rec_spool_failed().
 *
 * The writer (mcz_writer) may be attached after the first rows, with a
 * function the writer thread runs before anything else: mcrec writes the
 * file's header there, after the command has started (rec_spool_attach).
 */
#include "rec.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { SPOOL_MARKS = 1024, SPOOL_MARK_TEXT = 256 };

struct spool_mark {
	int64_t t;
	uint32_t src;
	uint8_t kind;
	char text[SPOOL_MARK_TEXT];
};

struct rec_spool {
	mcz_writer *w;
	size_t nvals, cap, stride;
	unsigned char *slots;
	_Alignas(64) atomic_size_t head; /* next slot the sampler publishes */
	_Alignas(64) atomic_size_t tail; /* next slot the writer consumes */
	int64_t t0, flush_ns, sync_ns;
	size_t pending;                  /* sampler: slot handed out, not committed */

	pthread_mutex_t mlock;
	struct spool_mark *marks;
	size_t mhead, mcount;
	atomic_uint_fast64_t marks_dropped;

	pthread_t thread;
	int running;
	atomic_int stop;
	pthread_mutex_t wlock;           /* the writer's sleep: wcond, kick */
	pthread_cond_t wcond;
	int kick;
	int (*first)(void *arg);         /* run by the writer thread first */
	void *first_arg;
	int (*on_sync)(void *arg, mcz_writer *w); /* before each flush or sync */
	void *sync_arg;
	void (*on_row)(void *arg, int64_t t, mcz_value *v, uint8_t *present); /* each row */
	void *row_arg;
	atomic_llong writer_cpu_ns;
	atomic_int failed, failed_errno;
	atomic_uint_fast64_t rows, dropped, bytes;
};

static int64_t *spool_t(rec_spool *sp, size_t i)
{
	return (int64_t *)(sp->slots + (i % sp->cap) * sp->stride);
}

int rec_spool_new(rec_spool **out, mcz_writer *w, size_t nvals, size_t capacity,
		  int64_t t0_mono, int64_t flush_ns)
{
	rec_spool *sp = calloc(1, sizeof *sp);
	if (!sp)
		return -1;
	sp->w = w;
	sp->nvals = nvals;
	sp->cap = capacity < 16 ? 16 : capacity;
	sp->stride = (8 + nvals * sizeof(mcz_value) + nvals + 7) & ~(size_t)7;
	sp->slots = calloc(sp->cap, sp->stride);
	sp->marks = calloc(SPOOL_MARKS, sizeof *sp->marks);
	sp->t0 = t0_mono;
	sp->flush_ns = flush_ns;
	sp->sync_ns = flush_ns < REC_SYNC_NS ? flush_ns : REC_SYNC_NS;
	pthread_mutex_init(&sp->mlock, NULL);
	pthread_mutex_init(&sp->wlock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* rec_clock_now's clock */
	pthread_cond_init(&sp->wcond, &ca);
	pthread_condattr_destroy(&ca);
	if (!sp->slots || !sp->marks) {
		rec_spool_free(sp);
		return -1;
	}
	*out = sp;
	return 0;
}

void rec_spool_on_row(rec_spool *sp, void (*fn)(void *arg, int64_t t, mcz_value *v, uint8_t *present),
		      void *arg)
{
	sp->on_row = fn;
	sp->row_arg = arg;
}

void rec_spool_on_sync(rec_spool *sp, int (*fn)(void *arg, mcz_writer *w), void *arg)
{
	sp->on_sync = fn;
	sp->sync_arg = arg;
}

void rec_spool_attach(rec_spool *sp, mcz_writer *w, int (*first)(void *arg), void *arg)
{
	sp->w = w;
	sp->first = first;
	sp->first_arg = arg;
}

/* Wake the writer now (any thread). */
static void spool_kick(rec_spool *sp)
{
	pthread_mutex_lock(&sp->wlock);
	sp->kick = 1;
	pthread_cond_signal(&sp->wcond);
	pthread_mutex_unlock(&sp->wlock);
}

/* The writer: sleep until the deadline or a kick. */
static void spool_wait(rec_spool *sp, int64_t deadline)
{
	struct timespec ts = {deadline / 1000000000LL, deadline % 1000000000LL};
	pthread_mutex_lock(&sp->wlock);
	while (!sp->kick && !atomic_load(&sp->stop))
		if (pthread_cond_timedwait(&sp->wcond, &sp->wlock, &ts) != 0)
			break; /* ETIMEDOUT */
	sp->kick = 0;
	pthread_mutex_unlock(&sp->wlock);
}

int rec_spool_row(rec_spool *sp, mcz_value **v, uint8_t **present)
{
	size_t head = atomic_load_explicit(&sp->head, memory_order_relaxed);
	size_t tail = atomic_load_explicit(&sp->tail, memory_order_acquire);
	if (head - tail >= sp->cap) {
		atomic_fetch_add_explicit(&sp->dropped, 1, memory_order_relaxed);
		return -1;
	}
	int64_t *t = spool_t(sp, head);
	*v = (mcz_value *)(t + 1);
	*present = (uint8_t *)(*v + sp->nvals);
	memset(*present, 0, sp->nvals);
	sp->pending = 1;
	return 0;
}

void rec_spool_commit(rec_spool *sp, int64_t t)
{
	if (!sp->pending)
		return;
	size_t head = atomic_load_explicit(&sp->head, memory_order_relaxed);
	*spool_t(sp, head) = t;
	sp->pending = 0;
	atomic_store_explicit(&sp->head, head + 1, memory_order_release);
	/* Half full: the writer drains before rows are dropped.  Exactly at
	 * the crossing, so one wake-up per half ring. */
	size_t tail = atomic_load_explicit(&sp->tail, memory_order_acquire);
	if (head + 1 - tail == sp->cap / 2)
		spool_kick(sp);
}

int rec_spool_mark(rec_spool *sp, int64_t t_mono, mcz_mark_kind kind, uint32_t src,
		   const char *text)
{
	int rc = 0;
	pthread_mutex_lock(&sp->mlock);
	if (sp->mcount == SPOOL_MARKS) {
		atomic_fetch_add(&sp->marks_dropped, 1);
		rc = -1;
	} else {
		struct spool_mark *m = &sp->marks[(sp->mhead + sp->mcount++) % SPOOL_MARKS];
		int64_t t = t_mono - sp->t0;
		m->t = t < 0 ? 0 : t;
		m->kind = (uint8_t)kind;
		m->src = src;
		snprintf(m->text, sizeof m->text, "%s", text ? text : "");
	}
	int half = sp->mcount == SPOOL_MARKS / 2;
	pthread_mutex_unlock(&sp->mlock);
	if (half)
		spool_kick(sp);
	return rc;
}

static void spool_fail(rec_spool *sp, int rc)
{
	int e = errno;
	if (atomic_load(&sp->failed) == 0) {
		atomic_store(&sp->failed_errno, e);
		atomic_store(&sp->failed, rc);
	}
}

static void spool_drain_marks(rec_spool *sp)
{
	struct spool_mark m;
	for (;;) {
		pthread_mutex_lock(&sp->mlock);
		int have = sp->mcount > 0;
		if (have) {
			m = sp->marks[sp->mhead];
			sp->mhead = (sp->mhead + 1) % SPOOL_MARKS;
			sp->mcount--;
		}
		pthread_mutex_unlock(&sp->mlock);
		if (!have)
			return;
		if (atomic_load(&sp->failed))
			continue;
		int rc = mcz_writer_mark(sp->w, m.t, (mcz_mark_kind)m.kind, m.src, m.text);
		if (rc != MCZ_OK)
			spool_fail(sp, rc);
	}
}

/* Append every published row; returns the number appended. */
static size_t spool_drain_rows(rec_spool *sp)
{
	size_t tail = atomic_load_explicit(&sp->tail, memory_order_relaxed);
	size_t head = atomic_load_explicit(&sp->head, memory_order_acquire);
	size_t n = 0;
	for (; tail != head; tail++, n++) {
		int64_t *t = spool_t(sp, tail);
		mcz_value *v = (mcz_value *)(t + 1);
		uint8_t *present = (uint8_t *)(v + sp->nvals);
		if (sp->on_row && !atomic_load(&sp->failed))
			sp->on_row(sp->row_arg, *t, v, present);
		if (!atomic_load(&sp->failed)) {
			int rc = mcz_writer_append(sp->w, *t, v, present);
			if (rc != MCZ_OK)
				spool_fail(sp, rc);
			else
				atomic_fetch_add(&sp->rows, 1);
		}
		atomic_store_explicit(&sp->tail, tail + 1, memory_order_release);
	}
	return n;
}

/* The sources' blocks before a flush or sync, so that the sync makes them
 * durable with the rows. */
static void spool_sources(rec_spool *sp)
{
	int rc = sp->on_sync && !atomic_load(&sp->failed) ? sp->on_sync(sp->sync_arg, sp->w) : 0;
	if (rc)
		spool_fail(sp, rc);
}

static void *spool_main(void *arg)
{
	rec_spool *sp = arg;
	if (sp->first) {
		int rc = sp->first(sp->first_arg);
		if (rc != MCZ_OK)
			spool_fail(sp, rc);
	}
	int64_t due = rec_clock_now() + sp->flush_ns, sync_due = rec_clock_now() + sp->sync_ns;
	size_t unflushed = 0, unsynced = 0;
	for (;;) {
		int stopping = atomic_load(&sp->stop);
		spool_drain_marks(sp);
		size_t n = spool_drain_rows(sp);
		unflushed += n;
		unsynced += n;
		int64_t now = rec_clock_now();
		if (now >= due) {
			if (unflushed && !atomic_load(&sp->failed)) {
				spool_sources(sp);
				int rc = mcz_writer_flush(sp->w);
				if (rc != MCZ_OK)
					spool_fail(sp, rc);
			}
			unflushed = unsynced = 0;
			due = now + sp->flush_ns;
			sync_due = now + sp->sync_ns;
		} else if (now >= sync_due) {
			if (unsynced && !atomic_load(&sp->failed)) {
				spool_sources(sp);
				int rc = mcz_writer_sync(sp->w);
				if (rc != MCZ_OK)
					spool_fail(sp, rc);
			}
			unsynced = 0;
			sync_due = now + sp->sync_ns;
		}
		if (!atomic_load(&sp->failed))
			atomic_store(&sp->bytes, mcz_writer_bytes(sp->w));
		if (stopping)
			break;
		spool_wait(sp, due < sync_due ? due : sync_due);
	}
	struct timespec cpu;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
		atomic_store(&sp->writer_cpu_ns, (long long)cpu.tv_sec * 1000000000LL + cpu.tv_nsec);
	return NULL;
}

int rec_spool_start(rec_spool *sp)
{
	if (pthread_create(&sp->thread, NULL, spool_main, sp) != 0)
		return -1;
	sp->running = 1;
	return 0;
}

int rec_spool_stop(rec_spool *sp)
{
	if (sp->running) {
		atomic_store(&sp->stop, 1);
		spool_kick(sp);
		pthread_join(sp->thread, NULL);
		sp->running = 0;
	}
	/* Anything published after the thread's last pass. */
	if (sp->w) {
		spool_drain_marks(sp);
		spool_drain_rows(sp);
	}
	return atomic_load(&sp->failed);
}

int rec_spool_failed(const rec_spool *sp, int *err_no)
{
	if (err_no)
		*err_no = atomic_load(&sp->failed_errno);
	return atomic_load(&sp->failed);
}

void rec_spool_stats(const rec_spool *sp, uint64_t *rows, uint64_t *dropped, uint64_t *bytes)
{
	if (rows)
		*rows = atomic_load(&sp->rows);
	if (dropped)
		*dropped = atomic_load(&sp->dropped);
	if (bytes)
		*bytes = atomic_load(&sp->bytes);
}

int64_t rec_spool_writer_cpu(const rec_spool *sp)
{
	return atomic_load(&sp->writer_cpu_ns);
}

void rec_spool_free(rec_spool *sp)
{
	if (!sp)
		return;
	if (sp->running)
		rec_spool_stop(sp);
	pthread_mutex_destroy(&sp->mlock);
	pthread_mutex_destroy(&sp->wlock);
	pthread_cond_destroy(&sp->wcond);
	free(sp->slots);
	free(sp->marks);
	free(sp);
}
