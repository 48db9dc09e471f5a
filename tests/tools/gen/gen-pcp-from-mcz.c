/* gen-pcp-from-mcz.c: writes the values of a .mcz recording as a PCP
 * archive with libpcp_import (LOGIMPORT(3)), so that the storage benchmark
 * can compare mcz with PCP on the same values when the recording did not
 * come from pmlogger.  Streams of one name become one metric, their
 * instances an instance domain; counters keep PM_SEM_COUNTER.  Timestamps
 * are written at microsecond resolution (PCP v2 archives).
 *
 *   gen-pcp-from-mcz IN.mcz ARCHIVE
 */
#include <inttypes.h>
#include <pcp/pmapi.h>
#include <pcp/import.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../format/mcz.h"

int main(int argc, char **argv)
{
	mcz_reader *r;
	if (argc != 3 || mcz_open(&r, argv[1], 0)) {
		fprintf(stderr, "usage: gen-pcp-from-mcz IN.mcz ARCHIVE (IN must open)\n");
		return 2;
	}
	const mcz_file_info *fi = mcz_info(r);
	size_t ns = mcz_stream_count(r);
	if (pmiStart(argv[2], 0) < 0)
		return 1;
	const char *host = mcz_meta(r, "host");
	pmiSetHostname(host ? host : "localhost");
	int *handle = calloc(ns + 1, sizeof *handle);
	int nmetric = 0;
	for (size_t s = 0; s < ns; s++) {
		const mcz_stream_desc *d = mcz_stream(r, s);
		size_t first; /* first stream with this name: it defines the metric */
		for (first = 0; first < s && strcmp(mcz_stream(r, first)->name, d->name); first++)
			;
		pmInDom indom = *d->instance ? pmiInDom(245, (int)first) : PM_INDOM_NULL;
		if (first == s) {
			pmUnits u = {0};
			int type = d->type == MCZ_F64 ? PM_TYPE_DOUBLE
				   : d->type == MCZ_I64 ? PM_TYPE_64 : PM_TYPE_U64;
			int rc = pmiAddMetric(d->name, pmiID(245, 0, nmetric++), type, indom,
					      d->kind == MCZ_COUNTER ? PM_SEM_COUNTER : PM_SEM_INSTANT, u);
			if (rc < 0) {
				fprintf(stderr, "gen-pcp-from-mcz: %s: %s\n", d->name, pmiErrStr(rc));
				return 1;
			}
		}
		if (*d->instance)
			pmiAddInstance(indom, d->instance, (int)s);
		handle[s] = pmiGetHandle(d->name, *d->instance ? d->instance : "");
	}
	mcz_series *ser = calloc(ns + 1, sizeof *ser);
	for (size_t s = 0; s < ns; s++)
		if (mcz_read(r, (uint32_t)s, fi->t_first, fi->t_last + 1, &ser[s]))
			return 1;
	for (size_t i = 0; ns && i < ser[0].n; i++) {
		for (size_t s = 0; s < ns; s++) {
			if (!ser[s].present[i])
				continue;
			char buf[64];
			const mcz_stream_desc *d = mcz_stream(r, s);
			if (d->type == MCZ_F64)
				snprintf(buf, sizeof buf, "%.17g", ser[s].v[i].f);
			else if (d->type == MCZ_I64)
				snprintf(buf, sizeof buf, "%" PRId64, ser[s].v[i].i);
			else
				snprintf(buf, sizeof buf, "%" PRIu64, ser[s].v[i].u);
			pmiPutValueHandle(handle[s], buf);
		}
		int64_t t = fi->wall_epoch_ns + ser[0].t[i];
		int rc = pmiWrite((int)(t / 1000000000), (int)(t % 1000000000 / 1000));
		if (rc < 0) {
			fprintf(stderr, "gen-pcp-from-mcz: write: %s\n", pmiErrStr(rc));
			return 1;
		}
	}
	pmiEnd();
	for (size_t s = 0; s < ns; s++)
		mcz_series_free(&ser[s]);
	free(ser);
	free(handle);
	mcz_close(r);
	return 0;
}
