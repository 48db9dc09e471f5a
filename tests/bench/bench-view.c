/* bench-view.c: how fast mcview opens a recording and redraws, and how much
 * memory it takes (tests/bench/bench-view.sh runs it on a 10^9-value file).
 *
 *   bench-view FILE [W H]
 *   bench-view [--view NAME] [--size WxH] FILE...
 *   bench-view [--view NAME] [--size WxH] --compare A B
 *
 * With --compare, the two runs are opened and compared as `mcview
 * --compare` does (phases of both, matched) and the timeline shows run B
 * under each row of A.
 *
 * Opens the files as mcview does (vw_model_open; several: the rank files
 * of a job; a folder or @LIST: the recordings it names), starts in view
 * NAME (default the timeline), draws the first screen, then times a
 * scripted walk on a W x H screen (200 x 60): zooms in and out
 * around the cursor and the mouse, pans, page pans, cursor moves, a group
 * opened, a filter typed, a reset.  As in mcview's loop, a frame may decode
 * for 8 ms (vw_app.budget_ms) and then draws what it has, and frames are
 * drawn again until the screen is exact (m->refining clear).  A step's
 * first frame is timed with the key's handling (what the user waits for
 * before the screen answers); "settle" is from the key to the exact screen.
 * BENCH_EXACT=1: no budget, every frame exact (the time a frame would take
 * without refinement).  BENCH_STEPS=N: only the walk's first N steps (0: the
 * first screen alone, what a profile of opening looks at).  Prints one line:
 *   open_ms first_ms first_exact_ms steps frame_p50 frame_p95 frame_p99
 *   frame_max settle_p50 settle_p99 settle_max frames peak_rss_mb cpu_ms
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../../viewer/app/app.h"
#include "../../viewer/app/keys.h"
#include "bench-clock.h"

/* The walk: key names as in the help ("Wheel@X" is a wheel-up at column X). */
static const char *const walk[] = {
	"+", "+", "+", "Right", "Right", "l", "PgDn", "PgDn", "+", "+", "+", ".", ".", ".",
	",", "-", "-", "h", "h", "PgUp", "Home", "+", "+", "End", "-", "-", "-", "0",
	"Wheel@60", "Wheel@60", "Wheel@150", "Wheel@150", "Wheel@30", "WheelDown@100",
	"j", "j", "Enter", "j", "j", "j", "Ctrl-d", "Ctrl-u", "k", "Enter",
	"S-Right", "S-Right", "S-Right", "S-Right", "S-Right", "S-Right", "z",
	"+", "+", "+", "+", "+", "+", "+", "+", "Right", "Right", "Right", "Right",
	"0", "/", "c", "y", "Enter", "0", "/", "BS", "BS", "Enter",
	"-", "+", "-", "+", "-", "+", "G", "g", "0",
};

static double pct(double *v, size_t n, int p)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, bench_cmp_double);
	return v[(n * (size_t)p + 99) / 100 - 1];
}

int main(int argc, char **argv)
{
	int w = 200, h = 60, view = 0, a1 = 1, compare = 0;
	for (; a1 + 1 < argc && !strncmp(argv[a1], "--", 2); a1 += 2) {
		if (!strcmp(argv[a1], "--compare")) {
			compare = 1;
			a1++;
			break;
		}
		if (!strcmp(argv[a1], "--view") && (view = vw_views_find(argv[a1 + 1])) < 0) {
			fprintf(stderr, "bench-view: no view '%s'\n", argv[a1 + 1]);
			return 2;
		}
		if (!strcmp(argv[a1], "--size") && sscanf(argv[a1 + 1], "%dx%d", &w, &h) != 2) {
			fprintf(stderr, "bench-view: --size WxH\n");
			return 2;
		}
	}
	if (a1 >= argc) {
		fprintf(stderr, "usage: bench-view FILE [W H] | bench-view [--view NAME] [--size WxH] FILE...\n");
		return 2;
	}
	size_t nfiles = (size_t)(argc - a1);
	if (a1 == 1 && argc == 4 && atoi(argv[2]) > 0 && atoi(argv[3]) > 0) { /* FILE W H */
		w = atoi(argv[2]);
		h = atoi(argv[3]);
		nfiles = 1;
	}
	const char *const *p = (const char *const *)argv + a1;
	char **own = NULL; /* folders and @lists expanded, as mcview does */
	if (!compare &&
	    mcz_inpaths_expand(p, nfiles, MCZ_INPATHS_PCP_DIR, &own, &nfiles) != MCZ_OK) {
		fprintf(stderr, "bench-view: %s\n", mcz_errdetail());
		return 1;
	}
	if (own)
		p = (const char *const *)own;
	char err[256];
	vw_model *m;
	vw_an *an;
	double t0 = bench_wall_ms(), c0 = bench_cpu_ms();
	vw_compare_cli cc = {0};
	if (compare) {
		if (nfiles != 2 || vw_compare_cli_open(&cc, p[0], p[1], NULL, err, sizeof err) != 0) {
			fprintf(stderr, "bench-view: --compare A B: %s\n", nfiles != 2 ? "two runs" : err);
			return 1;
		}
		an = cc.a[0]; /* as mcview */
		cc.a[0] = NULL;
		m = an->m;
		an->compare = &cc.cmp;
		an->compare_b = cc.b[0]->m;
	} else if (vw_model_open(&m, p, nfiles, NULL, err, sizeof err) != 0) {
		fprintf(stderr, "bench-view: %s\n", err);
		return 1;
	} else if (!(an = vw_an_new(m)))
		return 1;
	double t_open = bench_wall_ms() - t0;
	vw_app a;
	vw_canvas *c = vw_canvas_new(w, h);
	if (vw_app_init(&a, an, view) != 0 || !c)
		return 1;
	a.budget_ms = getenv("BENCH_EXACT") ? 0 : 8;
	size_t n = sizeof walk / sizeof walk[0], nf = 0, fcap = 64;
	if (getenv("BENCH_STEPS") && strtoul(getenv("BENCH_STEPS"), NULL, 10) < n)
		n = strtoul(getenv("BENCH_STEPS"), NULL, 10);
	double *frame = malloc(fcap * sizeof *frame), *settle = calloc(n, sizeof *settle);
	if (!frame || !settle)
		return 1;
	/* The first screen: frames until exact. */
	t0 = bench_wall_ms();
	vw_frame_draw(&a, c);
	double t_first = bench_wall_ms() - t0;
	while (m->refining)
		vw_frame_draw(&a, c);
	double t_first_exact = bench_wall_ms() - t0;
	for (size_t i = 0; i < n; i++) {
		int x;
		t0 = bench_wall_ms();
		if (sscanf(walk[i], "Wheel@%d", &x) == 1 || sscanf(walk[i], "WheelDown@%d", &x) == 1) {
			vw_input in = {.act = VW_ACT_MOUSE, .key = VW_KEY_MOUSE, .mouse_x = x,
				       .mouse_y = 10, .mouse_button = walk[i][5] == 'D' ? 5 : 4};
			vw_app_input(&a, &in);
		} else {
			vw_app_key(&a, vw_keys_parse(walk[i]));
		}
		int k = 0;
		do {
			double f0 = k ? bench_wall_ms() : t0;
			vw_frame_draw(&a, c);
			if (nf == fcap && !(frame = realloc(frame, (fcap *= 2) * sizeof *frame)))
				return 1;
			frame[nf++] = bench_wall_ms() - f0;
			if (getenv("BENCH_VERBOSE"))
				fprintf(stderr, "%-12s %s %9.2f ms  window %.3f s\n", k ? "" : walk[i],
					k ? "refine" : "frame ", frame[nf - 1],
					(double)(m->t1 - m->t0) / 1e9);
			k++;
		} while (m->refining);
		settle[i] = bench_wall_ms() - t0;
		if (getenv("BENCH_VERBOSE"))
			fprintf(stderr, "%-12s settled %9.2f ms\n", "", settle[i]);
	}
	double cpu = bench_cpu_ms() - c0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("%.1f %.1f %.1f %zu %.2f %.2f %.2f %.2f %.2f %.2f %.2f %zu %.1f %.1f\n", t_open,
	       t_first, t_first_exact, n, pct(frame, nf, 50), pct(frame, nf, 95), pct(frame, nf, 99),
	       pct(frame, nf, 100), pct(settle, n, 50), pct(settle, n, 99), pct(settle, n, 100), nf,
	       (double)ru.ru_maxrss / 1024.0, cpu);
	free(frame);
	free(settle);
	vw_canvas_free(c);
	m = a.m;
	an = a.an;
	vw_app_free(&a);
	vw_an_free(an);
	vw_model_free(m);
	vw_compare_cli_free(&cc);
	mcz_inpaths_free(own);
	return 0;
}
