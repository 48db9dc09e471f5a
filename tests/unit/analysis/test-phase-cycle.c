/* test-phase-cycle.c: the default level of detail (viewer/analysis/
 * phase-cycle.c) — a run of short alternating steps is one phase, long
 * phases and the samples' triad, gemm, triad, gemm stay apart, cycles of
 * the same classes share a class, classes are renumbered in order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../../viewer/analysis/phases/phase.h"

/* Segments from lengths and class letters: "A5 B1 A1" ... */
static size_t segs(vw_phase_seg *s, const char *spec)
{
	size_t n = 0;
	int64_t at = 0;
	for (const char *p = spec; *p;) {
		char c;
		int len, used;
		if (sscanf(p, " %c%d%n", &c, &len, &used) != 2)
			break;
		s[n++] = (vw_phase_seg){at, at + len, c - 'A', 0};
		at += len;
		p += used;
	}
	return n;
}

static void str(const vw_phase_seg *s, size_t n, char *out)
{
	for (size_t k = 0; k < n; k++)
		out += sprintf(out, "%s%c%lld", k ? " " : "", 'A' + s[k].cls,
			       (long long)(s[k].end - s[k].start));
}

static void check(const char *in, const char *want)
{
	vw_phase_seg s[64];
	char got[512];
	size_t n = vw_phase_cycles(s, segs(s, in));
	str(s, n, got);
	if (strcmp(got, want))
		fail_msg("%s -> %s, want %s", in, got, want);
}

static void test_cycles(void **state)
{
	(void)state;
	/* the phased sample: two kinds twice each: four phases */
	check("A2 B15 C15 B15 C15 D15 E15", "A2 B15 C15 B15 C15 D15 E15");
	/* HPL: the factorization / update steps of one section, then another */
	check("A400 B10 C5 B8 C6 B12 C4 B9 D300", "A400 B54 C300");
	/* long phases are not steps, however they repeat: 3 x (30 s + 30 s)
	 * in a 200 s run, each over a twentieth of it */
	check("A20 B30 C30 B30 C30 B30 C30", "A20 B30 C30 B30 C30 B30 C30");
	/* four kinds are no cycle */
	check("A5 B5 C5 D5 A5 B5 C5 D5", "A5 B5 C5 D5 A5 B5 C5 D5");
	/* six steps of two kinds, each at least twice */
	check("A500 B3 C3 B3 C3 B3 C3", "A500 B18");
	/* two cycles of the same classes share a class; another pair does not */
	check("A4 B4 A4 B4 A4 C60 A4 B4 A4 B4 A4 D60 A4 D4 A4 D4 A4",
	      "A20 B60 A20 C60 D20");
	check("A40 B40 A40 B40 A40", "A40 B40 A40 B40 A40");
	/* excursions: an update interrupted by short broadcasts is one phase;
	 * equal phases of two kinds stay apart (the samples' triad, gemm) */
	check("A300 B60 C25 B120 D6 C3 B240 C30", "A300 B454 C30");
	check("A300 B60 C25 B120 D30 E40", "A300 B205 C30 D40");
	check("A10 B15 C15 B15 D15", "A10 B15 C15 B15 D15");
	check("A100 B20 C8 B20 D100", "A100 B48 C100");
	/* too few to merge */
	check("A1 B1 A1", "A1 B1 A1");
	vw_phase_seg none[1];
	assert_int_equal(vw_phase_cycles(none, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cycles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
