/* test-phase-cache.c: the "phases" aux block (viewer/analysis/phases/phase-cache.c) — a
 * round trip, a changed key refused, and hostile bytes (truncated at every
 * length, counts that lie, phases out of order) refused without a crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../viewer/model/model.h"
#include "../../../viewer/analysis/phases/phase.h"

static struct vw_phases *sample_phases(void)
{
	struct vw_phases *ph = calloc(1, sizeof *ph);
	ph->n = 3;
	ph->v = calloc(3, sizeof *ph->v);
	int64_t t[4] = {0, 1500000000, 3000000000, 4500000001};
	for (int i = 0; i < 3; i++) {
		ph->v[i].t0 = t[i];
		ph->v[i].t1 = t[i + 1];
		ph->v[i].cls = i % 2;
		ph->v[i].gain = 12.5 * i;
	}
	strcpy(ph->v[1].label, "gemm");
	ph->nclasses = 2;
	ph->nused = 2;
	strcpy(ph->used, "core.task_clock,core.page_faults");
	return ph;
}

static void test_roundtrip(void **st)
{
	vw_model m;
	memset(&m, 0, sizeof m);
	m.t_min = 0;
	m.t_max = 4500000000;
	vw_phase_params p = VW_PHASE_PARAMS_INIT;
	char key[256], key2[256];
	vw_phase_cache_key(&m, &p, VW_PHASES_AUTO, key, sizeof key);
	p.penalty = 2;
	vw_phase_cache_key(&m, &p, VW_PHASES_AUTO, key2, sizeof key2);
	assert_string_not_equal(key, key2); /* a parameter is part of the key */
	struct vw_phases *ph = sample_phases(), back;
	unsigned char *buf;
	size_t len;
	assert_int_equal(vw_phase_cache_encode(ph, key, &buf, &len), 0);
	memset(&back, 0, sizeof back);
	assert_int_equal(vw_phase_cache_decode(buf, len, key, &back), 0);
	assert_int_equal(back.n, 3);
	assert_int_equal(back.nclasses, 2);
	assert_string_equal(back.used, ph->used);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(back.v[i].t0, ph->v[i].t0);
		assert_int_equal(back.v[i].t1, ph->v[i].t1);
		assert_int_equal(back.v[i].cls, ph->v[i].cls);
		assert_true(back.v[i].gain == ph->v[i].gain);
		assert_string_equal(back.v[i].label, ph->v[i].label);
	}
	free(back.v);
	/* another key: refused, nothing changed */
	memset(&back, 0, sizeof back);
	assert_int_equal(vw_phase_cache_decode(buf, len, key2, &back), -1);
	assert_null(back.v);
	/* truncated anywhere: refused */
	for (size_t cut = 0; cut < len; cut++)
		assert_int_equal(vw_phase_cache_decode(buf, cut, key, &back), -1);
	/* a phase count that lies */
	size_t at = 8 + 4 + strlen(key);
	unsigned char *bad = malloc(len);
	memcpy(bad, buf, len);
	bad[at + 3] = 0x7f;
	assert_int_equal(vw_phase_cache_decode(bad, len, key, &back), -1);
	/* phases out of order: t0 of the second before t1 of the first */
	memcpy(bad, buf, len);
	size_t ph1 = at + 16 + strlen(ph->used) + 29; /* second phase's t0 */
	memset(bad + ph1, 0, 8);
	assert_int_equal(vw_phase_cache_decode(bad, len, key, &back), -1);
	free(bad);
	free(buf);
	free(ph->v);
	free(ph);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
