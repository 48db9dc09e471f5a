/* test-pcp-metric.c: the one PCP descriptor -> mcz stream mapping
 * (pcp_metric_kind_of, format/pcp/pcp.h) that the archive importer and
 * mcrec's live pcp source share: kind, stored type, SI unit, scale, 32-bit
 * unwrapping and the note — on hand-made descriptors for the corner cases,
 * and on the real descriptors of a pcp-testsuite archive (pmLookupDesc
 * through libpcp's archive context, as both users get them); and the same
 * mapping backwards (pcp_metric_desc_of, mcz export --pcp): a stream's PCP
 * descriptor maps forward to the stream's kind, type, unit and scale again,
 * for mcrec's units and for every numeric metric of the archive.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <pcp/pmapi.h>

#include "../../../format/mcz.h"
#include "../../../format/pcp/pcp.h"

#define ARCHIVE "/var/lib/pcp/testsuite/archives/20180416.10.00"

static pmDesc desc(int type, int sem, int ds, int dt, int dc, int ss, int st, int sc)
{
	pmDesc d;
	memset(&d, 0, sizeof d);
	d.pmid = 1;
	d.indom = PM_INDOM_NULL;
	d.type = type;
	d.sem = sem;
	d.units.dimSpace = ds;
	d.units.dimTime = dt;
	d.units.dimCount = dc;
	d.units.scaleSpace = (unsigned)ss;
	d.units.scaleTime = (unsigned)st;
	d.units.scaleCount = sc;
	return d;
}

static void same_scale(double got, double want)
{
	if (!(fabs(got - want) <= fabs(want) * 1e-12))
		fail_msg("scale %.17g, expected %.17g", got, want);
}

static void expect(const pmDesc *d, uint8_t kind, uint8_t type, const char *unit, double scale,
		   int wrap32, const char *note)
{
	pcp_metric_kind k;
	memset(&k, 0x5a, sizeof k);
	pcp_metric_kind_of(d, &k);
	assert_int_equal(k.skip, 0);
	assert_null(k.why);
	assert_int_equal(k.kind, kind);
	assert_int_equal(k.type, type);
	assert_string_equal(k.unit, unit);
	same_scale(k.scale, scale);
	assert_int_equal(k.wrap32, wrap32);
	if (note)
		assert_string_equal(k.note, note);
}

static void test_made_up(void **state)
{
	(void)state;
	pmDesc d = desc(PM_TYPE_U32, PM_SEM_COUNTER, 1, 0, 0, PM_SPACE_KBYTE, 0, 0);
	expect(&d, MCZ_COUNTER, MCZ_U64, "B", 1024, 1,
	       "pcp: Kbyte, counter, U32 (unwrapped: stored = raw + k*2^32)");
	d = desc(PM_TYPE_U64, PM_SEM_COUNTER, 0, 1, 0, 0, PM_TIME_MSEC, 0);
	expect(&d, MCZ_COUNTER, MCZ_U64, "s", 1e-3, 0, "pcp: millisec, counter, U64");
	d = desc(PM_TYPE_DOUBLE, PM_SEM_INSTANT, 1, -1, 0, PM_SPACE_MBYTE, PM_TIME_SEC, 0);
	expect(&d, MCZ_GAUGE, MCZ_F64, "B/s", 1048576.0, 0, NULL);
	d = desc(PM_TYPE_64, PM_SEM_INSTANT, 0, -1, 1, 0, PM_TIME_MIN, 3);
	expect(&d, MCZ_GAUGE, MCZ_I64, "count/s", 1000.0 / 60.0, 0, NULL);
	d = desc(PM_TYPE_DOUBLE, PM_SEM_INSTANT, 0, -1, 1, 0, PM_TIME_USEC, 3);
	expect(&d, MCZ_GAUGE, MCZ_F64, "count/s", 1e9, 0, NULL);
	/* a time dimension of -1 alone is a frequency */
	d = desc(PM_TYPE_DOUBLE, PM_SEM_INSTANT, 0, -1, 0, 0, PM_TIME_SEC, 0);
	expect(&d, MCZ_GAUGE, MCZ_F64, "Hz", 1, 0, NULL);
	/* several dimensions below the line share one denominator */
	d = desc(PM_TYPE_DOUBLE, PM_SEM_INSTANT, -1, -1, 1, PM_SPACE_KBYTE, PM_TIME_SEC, 0);
	expect(&d, MCZ_GAUGE, MCZ_F64, "count/B.s", 1.0 / 1024, 0, NULL);
	d = desc(PM_TYPE_U64, PM_SEM_INSTANT, 2, 0, 0, PM_SPACE_BYTE, 0, 0);
	expect(&d, MCZ_GAUGE, MCZ_U64, "B^2", 1, 0, NULL);
	d = desc(PM_TYPE_32, PM_SEM_DISCRETE, 0, 0, 0, 0, 0, 0);
	expect(&d, MCZ_GAUGE, MCZ_I64, "", 1, 0, "pcp: discrete, 32");
	/* mcz counters are U64: a float counter stays a float, as a gauge of its
	 * cumulative value (rounding would lose a seconds counter's fractions) */
	d = desc(PM_TYPE_DOUBLE, PM_SEM_COUNTER, 0, 0, 1, 0, 0, 0);
	expect(&d, MCZ_GAUGE, MCZ_F64, "count", 1, 0,
	       "pcp: count, counter, DOUBLE (cumulative value kept as a gauge)");
	d = desc(PM_TYPE_DOUBLE, PM_SEM_COUNTER, 0, 1, 0, 0, PM_TIME_NSEC, 0);
	expect(&d, MCZ_GAUGE, MCZ_F64, "s", 1e-9, 0, NULL);
	/* a scale code libpcp does not know (damaged metadata): values as they are */
	d = desc(PM_TYPE_U64, PM_SEM_INSTANT, 0, 1, 0, 0, 12, 0);
	expect(&d, MCZ_GAUGE, MCZ_U64, "s", 1, 0, NULL);
	pcp_metric_kind k;
	pcp_metric_kind_of(&d, &k);
	assert_non_null(strstr(k.note, "scale unknown"));

	d = desc(PM_TYPE_STRING, PM_SEM_DISCRETE, 0, 0, 0, 0, 0, 0);
	pcp_metric_kind_of(&d, &k);
	assert_int_equal(k.skip, 1);
	assert_non_null(strstr(k.why, "string"));
	d = desc(PM_TYPE_EVENT, PM_SEM_INSTANT, 0, 0, 0, 0, 0, 0);
	pcp_metric_kind_of(&d, &k);
	assert_int_equal(k.skip, 1);
	assert_non_null(strstr(k.why, "event"));
	d = desc(PM_TYPE_AGGREGATE, PM_SEM_INSTANT, 0, 0, 0, 0, 0, 0);
	pcp_metric_kind_of(&d, &k);
	assert_int_equal(k.skip, 1);
}

/* The descriptor of name in the current (archive) context. */
static pmDesc lookup(const char *name)
{
	pmID pmid;
	pmDesc d;
	if (pmLookupName(1, &name, &pmid) != 1)
		fail_msg("%s: not in %s", name, ARCHIVE);
	assert_int_equal(pmLookupDesc(pmid, &d), 0);
	return d;
}

static void test_real(void **state)
{
	(void)state;
	if (access(ARCHIVE ".meta.xz", R_OK) != 0)
		skip(); /* pcp-testsuite not installed */
	int ctx = pmNewContext(PM_CONTEXT_ARCHIVE, ARCHIVE);
	assert_true(ctx >= 0);
	static const struct {
		const char *name;
		uint8_t kind, type;
		const char *unit;
		double scale;
		int wrap32;
		const char *note;
	} want[] = {
		{ "kernel.percpu.cpu.user", MCZ_COUNTER, MCZ_U64, "s", 1e-3, 0, "pcp: millisec, counter, U64" },
		{ "mem.util.used", MCZ_GAUGE, MCZ_U64, "B", 1024, 0, "pcp: Kbyte, instant, U64" },
		{ "kernel.all.load", MCZ_GAUGE, MCZ_F64, "", 1, 0, "pcp: instant, FLOAT" },
		{ "hinv.ncpu", MCZ_GAUGE, MCZ_U64, "", 1, 0, "pcp: discrete, U32" },
		{ "network.interface.in.bytes", MCZ_COUNTER, MCZ_U64, "B", 1, 0, "pcp: byte, counter, U64" },
		{ "kernel.all.pswitch", MCZ_COUNTER, MCZ_U64, "count", 1, 0, "pcp: count, counter, U64" },
		/* MHz as PCP says it: "/ microsec" */
		{ "hinv.cpu.clock", MCZ_GAUGE, MCZ_F64, "Hz", 1e6, 0, "pcp: / microsec, discrete, FLOAT" },
		/* a 32-bit Kbyte counter: unwrapped, and scaled to bytes */
		{ "disk.dev.read_bytes", MCZ_COUNTER, MCZ_U64, "B", 1024, 1,
		  "pcp: Kbyte, counter, U32 (unwrapped: stored = raw + k*2^32)" },
	};
	pmDesc d;
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		d = lookup(want[i].name);
		expect(&d, want[i].kind, want[i].type, want[i].unit, want[i].scale, want[i].wrap32, want[i].note);
	}
	pcp_metric_kind k;
	d = lookup("kernel.uname.release");
	pcp_metric_kind_of(&d, &k);
	assert_int_equal(k.skip, 1);
	assert_string_equal(k.why, "is a string metric; only numeric metrics can be recorded");
	pmDestroyContext(ctx);
}

/* Stream (unit, scale, kind, type, note) -> PCP descriptor -> stream again. */
static void back(const char *unit, double scale, uint8_t kind, uint8_t type, const char *note,
		 const char *pcp_units, int sem, const char *unit_back, double mul)
{
	mcz_stream_desc s = MCZ_STREAM_DESC_INIT;
	s.unit = unit;
	s.scale = scale;
	s.kind = kind;
	s.type = type;
	s.note = note ? note : "";
	pmDesc d;
	double m;
	char why[160], ub[64];
	int named = pcp_metric_desc_of(&s, &d, &m, why, sizeof why);
	assert_int_equal(named, !strcmp(unit, unit_back));
	assert_int_equal(named && mul == 1, why[0] == '\0');
	same_scale(m, mul);
	assert_int_equal(d.sem, sem);
	assert_int_equal(d.pmid, PM_ID_NULL);
	assert_int_equal(d.indom, PM_INDOM_NULL);
	pmUnitsStr_r(&d.units, ub, sizeof ub);
	if (strcmp(ub, pcp_units))
		fail_msg("%s x %g: PCP units '%s', expected '%s'", unit, scale, ub, pcp_units);
	pcp_metric_kind k;
	pcp_metric_kind_of(&d, &k);
	assert_string_equal(k.unit, unit_back);
	same_scale(k.scale * m, scale);
	if (m != 1.0)
		assert_int_equal(d.type, PM_TYPE_DOUBLE);
	else if (kind == MCZ_COUNTER || d.sem != PM_SEM_COUNTER) { /* float counters stay gauges */
		assert_int_equal(k.kind, kind);
		assert_int_equal(k.type, type);
	}
}

static void test_backwards(void **state)
{
	(void)state;
	/* mcrec's streams */
	back("s", 1e-9, MCZ_COUNTER, MCZ_U64, NULL, "nanosec", PM_SEM_COUNTER, "s", 1);
	back("B", 1, MCZ_GAUGE, MCZ_U64, NULL, "byte", PM_SEM_INSTANT, "B", 1);
	back("B", 1, MCZ_COUNTER, MCZ_U64, NULL, "byte", PM_SEM_COUNTER, "B", 1);
	back("%", 1, MCZ_GAUGE, MCZ_F64, NULL, "", PM_SEM_INSTANT, "", 1);
	back("instructions", 1, MCZ_COUNTER, MCZ_U64, NULL, "count", PM_SEM_COUNTER, "count", 1);
	back("W", 1e-3, MCZ_GAUGE, MCZ_U64, NULL, "count x 10^-3", PM_SEM_INSTANT, "count", 1);
	back("J", 1e-6, MCZ_COUNTER, MCZ_U64, NULL, "count x 10^-6", PM_SEM_COUNTER, "count", 1);
	back("Hz", 1e6, MCZ_GAUGE, MCZ_U64, NULL, "/ microsec", PM_SEM_INSTANT, "Hz", 1);
	back("B/s", 1, MCZ_GAUGE, MCZ_F64, NULL, "byte / sec", PM_SEM_INSTANT, "B/s", 1);
	back("", 1, MCZ_GAUGE, MCZ_I64, NULL, "", PM_SEM_INSTANT, "", 1);
	/* no PCP scale for nanojoules (count goes down to 10^-8): values x 1e-9 */
	back("J", 1e-9, MCZ_COUNTER, MCZ_U64, NULL, "count", PM_SEM_COUNTER, "count", 1e-9);
	back("B", 0.5, MCZ_GAUGE, MCZ_U64, NULL, "byte", PM_SEM_INSTANT, "B", 0.5);
	/* what an imported PCP metric was, from its note */
	back("B", 1024, MCZ_GAUGE, MCZ_U64, "pcp: Kbyte, instant, U64", "Kbyte", PM_SEM_INSTANT, "B", 1);
	back("", 1, MCZ_GAUGE, MCZ_U64, "pcp: discrete, U32", "", PM_SEM_DISCRETE, "", 1);
	back("count", 1, MCZ_GAUGE, MCZ_F64,
	     "pcp: count, counter, DOUBLE (cumulative value kept as a gauge)", "count",
	     PM_SEM_COUNTER, "count", 1);
	back("count/B.s", 1.0 / 1024, MCZ_GAUGE, MCZ_F64, NULL, "count / Kbyte sec",
	     PM_SEM_INSTANT, "count/B.s", 1);
}

static int back_count;

/* pmTraversePMNS's callback: name's stream, back to PCP, forward again. */
static void back_real(const char *name)
{
	pmDesc d, b;
	pmID pmid;
	if (pmLookupName(1, &name, &pmid) != 1 || pmLookupDesc(pmid, &d) < 0)
		return; /* in the namespace, never logged */
	pcp_metric_kind k, k2;
	pcp_metric_kind_of(&d, &k);
	if (k.skip)
		return;
	mcz_stream_desc s = MCZ_STREAM_DESC_INIT;
	s.unit = k.unit;
	s.scale = k.scale;
	s.kind = k.kind;
	s.type = k.type;
	s.note = k.note;
	double m;
	assert_int_equal(pcp_metric_desc_of(&s, &b, &m, NULL, 0), 1);
	same_scale(m, 1);
	assert_int_equal(b.sem, d.sem);
	pcp_metric_kind_of(&b, &k2);
	if (strcmp(k2.unit, k.unit) || fabs(k2.scale - k.scale) > 1e-12 * k.scale ||
	    k2.kind != k.kind || k2.type != k.type)
		fail_msg("%s: %s x %g kind %d type %d came back %s x %g kind %d type %d", name, k.unit,
			 k.scale, k.kind, k.type, k2.unit, k2.scale, k2.kind, k2.type);
	back_count++;
}

/* Every numeric metric of a real archive: its stream, then back to PCP,
 * then forward again gives the same stream. */
static void test_backwards_real(void **state)
{
	(void)state;
	if (access(ARCHIVE ".meta.xz", R_OK) != 0)
		skip(); /* pcp-testsuite not installed */
	int ctx = pmNewContext(PM_CONTEXT_ARCHIVE, ARCHIVE);
	assert_true(ctx >= 0);
	back_count = 0;
	assert_true(pmTraversePMNS("", back_real) > 0);
	if (back_count < 100)
		fail_msg("only %d numeric metrics in %s", back_count, ARCHIVE);
	pmDestroyContext(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_made_up),
		cmocka_unit_test(test_real),
		cmocka_unit_test(test_backwards),
		cmocka_unit_test(test_backwards_real),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
