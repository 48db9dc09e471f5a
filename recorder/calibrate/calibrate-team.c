/* calibrate-team.c: a team of threads for the calibration kernels, one
 * pinned to each CPU given, each setting up its own data (first touch on
 * its own NUMA node), then running repetitions in lock step: all threads
 * start together after a barrier, the repetition ends when the last one
 * ends, and the best (shortest) repetition is kept, as STREAM does.
 */
#include "calibrate.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

struct team {
	const rec_calib_work *w;
	const int *cpus;
	int n, reps, stop;
	double max_s, best;
	pthread_barrier_t bar;
};

struct member {
	struct team *t;
	int i;
};

static double team_now(void)
{
	return (double)rec_clock_now() * 1e-9;
}

static void *team_thread(void *arg)
{
	struct member *me = arg;
	struct team *t = me->t;
	if (t->cpus[me->i] >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(t->cpus[me->i], &set);
		pthread_setaffinity_np(pthread_self(), sizeof set, &set);
	}
	if (t->w->setup)
		t->w->setup(me->i, t->w->arg);
	double start = 0, first = 0;
	for (int r = 0;; r++) {
		pthread_barrier_wait(&t->bar);
		if (me->i == 0) {
			start = team_now();
			if (!r)
				first = start;
		}
		t->w->run(me->i, t->w->arg);
		pthread_barrier_wait(&t->bar);
		if (me->i == 0) {
			double end = team_now(), dt = end - start;
			if (dt > 0 && (t->best == 0 || dt < t->best))
				t->best = dt;
			t->stop = r + 1 >= t->reps || end - first >= t->max_s;
		}
		pthread_barrier_wait(&t->bar);
		if (t->stop)
			break;
	}
	return NULL;
}

double rec_calibrate_team_run(const int *cpus, int n, const rec_calib_work *w, int reps,
			      double max_s)
{
	struct team t = {w, cpus, n, reps < 1 ? 1 : reps, 0, max_s, 0, {{0}}};
	struct member *m = calloc((size_t)n, sizeof *m);
	pthread_t *tid = calloc((size_t)n, sizeof *tid);
	int started = 0;
	if (!m || !tid || n < 1 || pthread_barrier_init(&t.bar, NULL, (unsigned)n) != 0) {
		free(m), free(tid);
		return -1;
	}
	for (int i = 1; i < n; i++) {
		m[i] = (struct member){&t, i};
		if (pthread_create(&tid[i], NULL, team_thread, &m[i]) != 0)
			break; /* the barrier would wait for ever: give up below */
		started++;
	}
	if (started == n - 1) {
		m[0] = (struct member){&t, 0};
		team_thread(&m[0]);
	} else {
		pthread_barrier_destroy(&t.bar);
		free(m), free(tid);
		return -1; /* unreachable in practice; threads started stay blocked */
	}
	for (int i = 1; i < n; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&t.bar);
	free(m), free(tid);
	return t.best;
}
