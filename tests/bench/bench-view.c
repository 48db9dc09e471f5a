/* bench-view.c: how fast mcview opens a recording and redraws, and how much
 * memory it takes (tests/bench/bench-view.sh runs it on a 10^9-value file).
 *
 *   bench-view FILE [W H]
 *
 * Opens FILE as mcview does (vw_model_open), draws the first screen, then
 * times each redraw of a scripted walk on a W x H screen (200 x 60): zooms
 * in and out around the cursor and the mouse, pans, page pans, cursor
 * moves, a group opened, a filter typed, a reset.  Prints one line:
 *   open_ms first_ms redraws p50_ms p99_ms max_ms peak_rss_mb p95_ms
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../../viewer/app.h"
#include "../../viewer/keys.h"
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

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench-view FILE [W H]\n");
		return 2;
	}
	int w = argc > 3 ? atoi(argv[2]) : 200, h = argc > 3 ? atoi(argv[3]) : 60;
	const char *p[1] = {argv[1]};
	char err[256];
	vw_model *m;
	double t0 = bench_wall_ms();
	if (vw_model_open(&m, p, 1, NULL, err, sizeof err) != 0) {
		fprintf(stderr, "bench-view: %s\n", err);
		return 1;
	}
	double t_open = bench_wall_ms() - t0;
	vw_app a;
	vw_canvas *c = vw_canvas_new(w, h);
	if (vw_app_init(&a, m, 0) != 0 || !c)
		return 1;
	t0 = bench_wall_ms();
	vw_frame_draw(&a, c);
	double t_first = bench_wall_ms() - t0;
	size_t n = sizeof walk / sizeof walk[0];
	double *dt = calloc(n, sizeof *dt), cpu = 0;
	for (size_t i = 0; i < n; i++) {
		int x;
		if (sscanf(walk[i], "Wheel@%d", &x) == 1 || sscanf(walk[i], "WheelDown@%d", &x) == 1) {
			vw_input in = {.act = VW_ACT_MOUSE, .key = VW_KEY_MOUSE, .mouse_x = x,
				       .mouse_y = 10, .mouse_button = walk[i][5] == 'D' ? 5 : 4};
			vw_app_input(&a, &in);
		} else {
			vw_app_key(&a, vw_keys_parse(walk[i]));
		}
		t0 = bench_wall_ms();
		double c0 = bench_cpu_ms();
		vw_frame_draw(&a, c);
		dt[i] = bench_wall_ms() - t0;
		cpu += bench_cpu_ms() - c0;
		if (getenv("BENCH_VERBOSE"))
			fprintf(stderr, "%-12s %9.2f ms  window %.3f s\n", walk[i], dt[i],
				(double)(m->t1 - m->t0) / 1e9);
	}
	qsort(dt, n, sizeof *dt, bench_cmp_double);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double wall = 0;
	for (size_t i = 0; i < n; i++)
		wall += dt[i];
	printf("%.1f %.1f %zu %.2f %.2f %.2f %.1f %.2f %.1f %.1f\n", t_open, t_first, n, dt[n / 2],
	       dt[(n * 99 + 99) / 100 - 1], dt[n - 1], (double)ru.ru_maxrss / 1024.0,
	       dt[(n * 95 + 99) / 100 - 1], wall, cpu);
	free(dt);
	vw_canvas_free(c);
	vw_app_free(&a);
	vw_model_free(m);
	return 0;
}
