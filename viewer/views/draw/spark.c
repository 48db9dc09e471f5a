/* spark.c: sparklines — a row of buckets drawn as a min/max envelope.
 *
 * Each bucket's [min, max] is mapped onto the h cells of the row: with
 * braille (the default on a UTF-8 terminal) a cell holds 2 buckets x 4
 * levels of dots, every dot between min and max lit, so a wide zoom shows
 * the true spread of the samples a column covers; with block glyphs
 * (▁▂▃▄▅▆▇█, 8 levels a cell) a bar rises to each bucket's max; in ASCII
 * a cell shows '_', '-', '\'' for one of its 3 levels and '|' for several.
 * Buckets without samples stay blank: a gap in the data is a gap on screen.
 * (Redis sparkline.c draws the same way into strings.)
 */
#include <math.h>

#include "draw.h"

enum { SUB_BRAILLE = 4, SUB_BLOCKS = 8, SUB_ASCII = 3 };

size_t vw_spark_buckets(const vw_canvas *c, int w)
{
	if (w <= 0)
		return 0;
	return (size_t)w * (!c->ascii && !c->blocks ? 2 : 1);
}

/* Level of v among total levels over [lo, hi], clamped. */
static int level(double v, double lo, double hi, int total)
{
	/* A flat row: zero at the bottom, any other value at the top. */
	double f = hi > lo ? (v - lo) / (hi - lo) : v != 0 ? 1.0 : 0.0;
	/* clamped before it becomes an int: a value far outside [lo, hi] (an
	 * overflowing range of a hostile file) or NaN is no level beyond them */
	if (!(f > 0))
		return 0;
	if (f >= 1)
		return total - 1;
	int l = (int)floor(f * total);
	return l >= total ? total - 1 : l;
}

/* Envelope of bucket i as levels [*a, *b]; 0 when the bucket is empty. */
static int span(const vw_bucket *b, size_t nb, size_t i, double lo, double hi, int total,
		int *a, int *z)
{
	if (i >= nb || b[i].count == 0 || isnan(b[i].min) || isnan(b[i].max))
		return 0;
	*a = level(b[i].min, lo, hi, total);
	*z = level(b[i].max, lo, hi, total);
	return 1;
}

static uint32_t braille_cell(const vw_bucket *b, size_t nb, size_t i, int line, int h,
			     double lo, double hi)
{
	static const uint8_t bit[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};
	unsigned dots = 0;
	for (int side = 0; side < 2; side++) {
		int a, z;
		if (!span(b, nb, i + (size_t)side, lo, hi, h * SUB_BRAILLE, &a, &z))
			continue;
		for (int r = 0; r < 4; r++) {
			int lv = (h - 1 - line) * 4 + (3 - r);
			if (lv >= a && lv <= z)
				dots |= bit[side][r];
		}
	}
	return dots ? 0x2800 + dots : ' ';
}

static uint32_t block_cell(const vw_bucket *b, size_t nb, size_t i, int line, int h, double lo,
			   double hi)
{
	int a, z;
	if (!span(b, nb, i, lo, hi, h * SUB_BLOCKS, &a, &z))
		return ' ';
	int fill = z + 1 - (h - 1 - line) * SUB_BLOCKS;
	if (fill <= 0)
		return ' ';
	return fill >= 8 ? 0x2588 : 0x2580 + (uint32_t)fill;
}

static uint32_t ascii_cell(const vw_bucket *b, size_t nb, size_t i, int line, int h, double lo,
			   double hi)
{
	static const char one[3] = {'_', '-', '\''};
	int a, z, n = 0, which = 0;
	if (!span(b, nb, i, lo, hi, h * SUB_ASCII, &a, &z))
		return ' ';
	for (int k = 0; k < 3; k++) {
		int lv = (h - 1 - line) * SUB_ASCII + k;
		if (lv >= a && lv <= z) {
			n++;
			which = k;
		}
	}
	return n == 0 ? ' ' : n == 1 ? (uint32_t)one[which] : '|';
}

void vw_spark_draw(vw_canvas *c, int x, int y, int w, int h, const vw_bucket *b, size_t nb,
		   double lo, double hi, int role)
{
	int per = (int)(vw_spark_buckets(c, 1));
	for (int line = 0; line < h; line++)
		for (int col = 0; col < w; col++) {
			size_t i = (size_t)col * (size_t)per;
			uint32_t ch = c->ascii	  ? ascii_cell(b, nb, i, line, h, lo, hi)
				      : c->blocks ? block_cell(b, nb, i, line, h, lo, hi)
						  : braille_cell(b, nb, i, line, h, lo, hi);
			vw_canvas_put(c, x + col, y + line, ch, role, 0);
		}
}
