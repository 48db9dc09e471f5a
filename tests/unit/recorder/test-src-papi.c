/* test-src-papi.c: the papi source's stream naming and units: PAPI presets
 * and libpfm4's perf:: generic events get the perf source's names (the same
 * event has the same name from either source), component events with PAPI
 * units (nJ, mW) get SI units and scales, others a "papi." name.  And the
 * source's probe on this machine: PAPI initialises, and an available papi
 * source says which components are disabled (as papi_component_avail).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <papi.h>

#include "../../../recorder/sources/mcsrc.h"

static void name_is(const char *ev, const char *units, const char *want, const char *wunit, double wscale)
{
	char name[128];
	const char *unit = NULL;
	double scale = 0;

	src_papi_event_stream(ev, units, name, sizeof name, &unit, &scale);
	assert_string_equal(name, want);
	assert_string_equal(unit, wunit);
	assert_true(scale > wscale * (1 - 1e-12) && scale < wscale * (1 + 1e-12));
}

static void test_names(void **state)
{
	name_is("PAPI_TOT_INS", "", "core.instructions", "instructions", 1);
	name_is("PAPI_TOT_CYC", "", "core.cycles", "cycles", 1);
	/* perf:: generic events: the perf source's table */
	name_is("perf::TASK-CLOCK", "", "core.task_clock", "s", 1e-9);
	name_is("perf::PERF_COUNT_SW_TASK_CLOCK", "", "core.task_clock", "s", 1e-9);
	name_is("perf::PAGE-FAULTS", "", "core.page_faults", "faults", 1);
	name_is("perf::FAULTS", "", "core.page_faults", "faults", 1);
	name_is("perf::CS", "", "core.context_switches", "switches", 1);
	name_is("perf::CPU-MIGRATIONS", "", "core.cpu_migrations", "migrations", 1);
	name_is("perf::INSTRUCTIONS", "", "core.instructions", "instructions", 1);
	/* component events with PAPI units */
	name_is("rapl:::PACKAGE_ENERGY:PACKAGE0", "nJ", "papi.rapl_package_energy_package0", "J", 1e-9);
	name_is("nvml:::Tesla_V100-SXM2-16GB:device_0:power", "mW", "papi.nvml_tesla_v100_sxm2_16gb_device_0_power", "W", 1e-3);
	name_is("pcp:::perfevent.hwcounters.nest_mba0_imc.PM_MBA0_READ_BYTES.value:cpu87", "",
		"papi.pcp_perfevent_hwcounters_nest_mba0_imc_pm_mba0_read_bytes_value_cpu87", "", 1);
	/* an event name longer than the buffer is cut, never overrun */
	char small[12];
	const char *u;
	double sc;
	src_papi_event_stream("amd64_fam19h_zen3::RETIRED_INSTRUCTIONS", "", small, sizeof small, &u, &sc);
	assert_string_equal(small, "papi.amd64");
}

static void test_probe(void **state)
{
	rec_source s;
	rec_ctx c;

	memset(&s, 0, sizeof s);
	memset(&c, 0, sizeof c);
	assert_int_equal(src_papi_ops.probe(&s, &c), 0);
	/* every component PAPI reports disabled is named, with its reason */
	for (int i = 0; i < PAPI_num_components(); i++) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(i);
		char want[300];
		if (!ci || !ci->disabled)
			continue;
		snprintf(want, sizeof want, "%s (%.*s)", ci->name, (int)strcspn(ci->disabled_reason, "\n"),
			 ci->disabled_reason);
		want[60] = '\0'; /* the line may be cut at the end */
		assert_non_null(strstr(s.why, want));
	}
	src_papi_ops.free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_probe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
