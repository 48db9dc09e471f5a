/* ruler.c: the time axis drawn above the timeline's rows.
 *
 * The step is the smallest "round" duration (1, 2, 5 x 10^k ns, then 10 s,
 * 15 s, 30 s, 1 min, 2, 5, 10, 15, 30 min, 1 h...) that leaves room for a
 * label between ticks; each tick is a '|' (or '│') followed by its label.
 */
#include <stdio.h>
#include <string.h>

#include "draw.h"

static int64_t pick_step(int64_t span, int w, int label_w)
{
	static const int64_t big[] = {10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200,
				      10800, 21600, 43200, 86400};
	int64_t need = span * (label_w + 2) / (w > 0 ? w : 1);
	if (need < 1)
		need = 1;
	for (int64_t p = 1; p < 10000000000LL; p *= 10)
		for (int k = 0; k < 3; k++) {
			int64_t s = p * (k == 0 ? 1 : k == 1 ? 2 : 5);
			if (s >= need && s <= 5000000000LL)
				return s;
		}
	for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
		if (big[i] * 1000000000LL >= need)
			return big[i] * 1000000000LL;
	return (need / 86400000000000LL + 1) * 86400000000000LL;
}

int64_t vw_ruler_draw(vw_canvas *c, int x, int y, int w, int64_t t0, int64_t t1)
{
	if (w <= 0 || t1 <= t0)
		return 0;
	char lab[32];
	/* The labels' width depends on the step and the step on their width:
	 * widen until the labels of the chosen step fit. */
	int lw = 2;
	int64_t step = pick_step(t1 - t0, w, lw);
	for (int i = 0; i < 4; i++) {
		int a = (int)strlen(vw_fmt_time(lab, sizeof lab, t1, step));
		int b = (int)strlen(vw_fmt_time(lab, sizeof lab, t1 - step / 2, step));
		int need = a > b ? a : b;
		if (need <= lw)
			break;
		lw = need;
		step = pick_step(t1 - t0, w, lw);
	}
	vw_canvas_fill(c, x, y, w, 1, ' ', VW_C_AXIS, 0);
	int64_t first = (t0 >= 0 ? (t0 + step - 1) / step : t0 / step) * step;
	for (int64_t t = first; t < t1; t += step) {
		int col = (int)((double)(t - t0) * w / (double)(t1 - t0));
		if (col < 0 || col >= w)
			continue;
		vw_canvas_put(c, x + col, y, c->ascii ? '|' : 0x2502, VW_C_AXIS, 0);
		vw_fmt_time(lab, sizeof lab, t, step);
		int room = w - col - 1;
		if (room >= (int)strlen(lab))
			vw_canvas_text(c, x + col + 1, y, room, VW_C_AXIS, 0, lab);
	}
	return step;
}
