/* fuzz-rec-parse.c: libFuzzer target for the recorder's parsers of outside
 * input: the mark datagram (from any process holding MCMARK_FD), perf event
 * names with PMU terms (from -e, resolved against the fixture sysfs tree
 * tests/data/rec-sysfs), and -i intervals.  The first byte picks the parser.
 * The parsers' files are compiled into this target directly, so it links
 * with libmcz alone as every fuzz target does (make fuzz, make check replay). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../recorder/clock.c"
#include "../../recorder/sources/mark-wire.c"
#include "../../recorder/sources/perf/perf-event.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 4096)
		return 0;
	char *s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	char err[256];
	switch (data[0] % 3) {
	case 0: {
		mcz_mark_kind k;
		int64_t t;
		uint32_t pid;
		char *text;
		if (src_mark_wire_parse(s, &k, &t, &pid, &text) == 0 && (t < 0 || k > MCZ_MARK_END ||
									  text < s || text > s + size))
			abort();
		double amount[4];
		char *name[4];
		int n = src_mark_wire_count(s, &t, &pid, amount, name, 4);
		if (n == 0 || n > 4 || (n > 0 && t < 0))
			abort();
		for (int i = 0; i < n; i++)
			if (!(amount[i] >= 0) || name[i] < s || name[i] >= s + size ||
			    !mcmark_count_name_ok(name[i]))
				abort();
		break;
	}
	case 1: {
		src_perf_ev ev;
		if (src_perf_event_parse(s, "tests/data/rec-sysfs", &ev, err, sizeof err) == 0 &&
		    (ev.ncpus < 0 || ev.ncpus > 16 || !memchr(ev.stream, '\0', sizeof ev.stream)))
			abort();
		break;
	}
	default: {
		int64_t ns;
		if (rec_clock_parse_interval(s, &ns, err, sizeof err) == 0 &&
		    (ns < 1000000 || ns > 3600000000000LL))
			abort();
		break;
	}
	}
	free(s);
	return 0;
}
