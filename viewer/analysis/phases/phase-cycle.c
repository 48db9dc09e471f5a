/* phase-cycle.c: the default level of detail — a section made of short
 * alternating steps is one phase.
 *
 * An application's loop often alternates two or three kinds of work faster
 * than a person wants to read them: HPL's panel factorization and update,
 * a time step's compute and halo exchange.  Detection cuts every step; at
 * the default level (vw_phase_params.level 0) the steps of such a cycle
 * are put back together, and the phase's code column says what it is made
 * of ("dgemm_ 85%, MPI 10%").  The finer cut is level 1 (mcview
 * --phase-level fine, the 'c' key of the Phases view).
 *
 * A cycle is a maximal run of at least VW_CYCLE_MIN consecutive segments
 * over 2 or 3 classes, one of which comes back at least 3 times (or 6
 * segments or more, each class at least twice), none of them longer than a
 * quarter of the run nor than a twentieth of the recording: steps, not
 * phases (3 x 30 s of compute then I/O in a 200 s run stay 6 phases; HPL's
 * 0.5 to 2 s steps in a 1-minute hpcc run are one).
 *
 * Then excursions: two phases of one class with phases of other classes
 * between them, together no longer than half the shorter of the two (and
 * each no longer than a twentieth of the recording), are one phase of that
 * class: an update interrupted by a short broadcast.
 * So the samples' triad, gemm, triad, gemm (each class twice) stay four
 * phases.  A cycle's class is new, the same for cycles of the same classes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "phase.h"

#define VW_CYCLE_MIN 5
#define VW_CYCLE_CLASSES 3

/* Whether s[i..j] is a cycle (see above); run: the whole recording's span. */
static int cycle_is(const vw_phase_seg *s, size_t i, size_t j, int64_t run)
{
	int cls[VW_CYCLE_CLASSES], cnt[VW_CYCLE_CLASSES], nc = 0, rec = 0;
	int64_t span = s[j].end - s[i].start;
	for (size_t k = i; k <= j; k++) {
		int64_t len = s[k].end - s[k].start;
		if (4 * len > span || 20 * len > run)
			return 0;
		int c = 0;
		while (c < nc && cls[c] != s[k].cls)
			c++;
		if (c == nc) {
			if (nc == VW_CYCLE_CLASSES)
				return 0;
			cls[nc] = s[k].cls;
			cnt[nc++] = 0;
		}
		rec |= ++cnt[c] >= 3;
	}
	/* six steps of two or three kinds, each kind at least twice, cycle too */
	int twice = 1;
	for (int c = 0; c < nc; c++)
		twice &= cnt[c] >= 2;
	return nc >= 2 && (rec || (j - i + 1 >= 6 && twice));
}

/* The classes of s[i..j] as a sorted key, for cycles of the same classes. */
static void cycle_key(const vw_phase_seg *s, size_t i, size_t j, int key[VW_CYCLE_CLASSES])
{
	int n = 0;
	for (int k = 0; k < VW_CYCLE_CLASSES; k++)
		key[k] = -1;
	for (size_t k = i; k <= j; k++) {
		int c = 0;
		while (c < n && key[c] != s[k].cls)
			c++;
		if (c == n && n < VW_CYCLE_CLASSES)
			key[n++] = s[k].cls;
	}
	for (int a = 1; a < n; a++) /* insertion sort of <= 3 */
		for (int b = a; b > 0 && key[b - 1] > key[b]; b--) {
			int t = key[b];
			key[b] = key[b - 1];
			key[b - 1] = t;
		}
}

/* Excursions: phases i and j > i + 1 of one class, the phases between them
 * of others and together no longer than half the shorter of the two, each
 * no longer than a twentieth of the recording: merged into one phase of
 * that class (HPL's update interrupted by its panel's broadcast).  In
 * place; returns the new count. */
static size_t cycle_excursions(vw_phase_seg *s, size_t n, int64_t run)
{
	for (int again = 1; again;) {
		again = 0;
		for (size_t i = 0; i + 2 < n && !again; i++) {
			int64_t between = 0, li = s[i].end - s[i].start;
			for (size_t j = i + 1; j < n; j++) {
				int64_t lj = s[j].end - s[j].start;
				if (s[j].cls == s[i].cls) {
					if (j > i + 1 && 2 * between <= (li < lj ? li : lj)) {
						s[i].end = s[j].end;
						memmove(s + i + 1, s + j + 1, (n - j - 1) * sizeof *s);
						n -= j - i;
						again = 1;
					}
					break;
				}
				between += lj;
				if (20 * lj > run || 2 * between > li)
					break;
			}
		}
	}
	return n;
}

/* The cycles of vw_phase_cycles (see phase.h). */
static size_t cycle_runs(vw_phase_seg *s, size_t n)
{
	if (n < VW_CYCLE_MIN)
		return n;
	int maxcls = 0;
	for (size_t k = 0; k < n; k++)
		maxcls = s[k].cls > maxcls ? s[k].cls : maxcls;
	int (*keys)[VW_CYCLE_CLASSES] = malloc(n * sizeof *keys);
	if (!keys)
		return n; /* the finer cut is still right */
	size_t nkeys = 0, out = 0;
	for (size_t i = 0; i < n;) {
		/* the run's end can go as far as its 4th class */
		size_t last = i;
		int seen[VW_CYCLE_CLASSES], ns = 0;
		for (; last < n; last++) {
			int c = 0;
			while (c < ns && seen[c] != s[last].cls)
				c++;
			if (c == ns && ns == VW_CYCLE_CLASSES)
				break;
			if (c == ns)
				seen[ns++] = s[last].cls;
		}
		size_t best = i;
		for (size_t j = i + VW_CYCLE_MIN - 1; j < last; j++)
			if (cycle_is(s, i, j, s[n - 1].end - s[0].start))
				best = j;
		vw_phase_seg seg = s[i];
		if (best > i) {
			int key[VW_CYCLE_CLASSES];
			cycle_key(s, i, best, key);
			size_t k = 0;
			while (k < nkeys && memcmp(keys[k], key, sizeof key))
				k++;
			if (k == nkeys)
				memcpy(keys[nkeys++], key, sizeof key);
			seg.end = s[best].end;
			seg.cls = maxcls + 1 + (int)k;
		}
		s[out++] = seg;
		i = best + 1;
	}
	free(keys);
	return out;
}

/* Classes renumbered 0, 1, ... in order of first appearance, as the
 * detector's. */
static void cycle_renumber(vw_phase_seg *s, size_t n)
{
	int maxcls = 0, next = 0;
	for (size_t k = 0; k < n; k++)
		maxcls = s[k].cls > maxcls ? s[k].cls : maxcls;
	int *map = malloc((size_t)(maxcls + 1) * sizeof *map);
	if (!map)
		return;
	for (int c = 0; c <= maxcls; c++)
		map[c] = -1;
	for (size_t k = 0; k < n; k++) {
		if (map[s[k].cls] < 0)
			map[s[k].cls] = next++;
		s[k].cls = map[s[k].cls];
	}
	free(map);
}

size_t vw_phase_cycles(vw_phase_seg *s, size_t n)
{
	n = cycle_runs(s, n);
	if (n >= 3)
		n = cycle_excursions(s, n, s[n - 1].end - s[0].start);
	cycle_renumber(s, n);
	return n;
}
