/* gen-from-pcp.c: converts a PCP archive into a .mcz recording, for the
 * storage benchmark (tests/bench/bench-storage.sh) until `mcz import`
 * (format/cli/tool-import.c) is available everywhere.  Every numeric metric
 * instance becomes a stream (counters stay counters; 32-bit values widen to
 * 64), every archive record a row (records with the same timestamp are
 * merged).  Prints "values N" (values written) on stdout.
 *
 *   gen-from-pcp ARCHIVE OUT.mcz
 */
#include <pcp/pmapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../format/mcz.h"

typedef struct conv_stream {
	pmID pmid;
	int inst;
	uint32_t id;
} conv_stream;

static conv_stream *conv_s;
static size_t conv_n, conv_cap;
static mcz_value *conv_row;
static uint8_t *conv_present;
static size_t conv_row_cap;
static uint64_t conv_values;

static int conv_find(mcz_writer *w, pmID pmid, int inst, const pmDesc *desc)
{
	for (size_t i = conv_n; i-- > 0;) /* recent streams first */
		if (conv_s[i].pmid == pmid && conv_s[i].inst == inst)
			return (int)i;
	char *name = NULL, *iname = NULL;
	if (pmNameID(pmid, &name) < 0)
		return -1;
	if (inst != (int)PM_IN_NULL)
		pmNameInDom(desc->indom, inst, &iname);
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	char native[300];
	snprintf(native, sizeof native, "pcp:%s", name);
	d.name = name;
	d.native = native;
	d.source = "pcp";
	d.instance = iname ? iname : "";
	d.unit = "";
	int counter = desc->sem == PM_SEM_COUNTER;
	switch (desc->type) {
	case PM_TYPE_FLOAT:
	case PM_TYPE_DOUBLE: d.type = MCZ_F64; d.kind = MCZ_GAUGE; break;
	case PM_TYPE_32:
	case PM_TYPE_64: d.type = counter ? MCZ_U64 : MCZ_I64; d.kind = counter ? MCZ_COUNTER : MCZ_GAUGE; break;
	default: d.type = MCZ_U64; d.kind = counter ? MCZ_COUNTER : MCZ_GAUGE; break;
	}
	uint32_t id;
	int rc = mcz_writer_add_stream(w, &d, &id);
	free(name);
	free(iname);
	if (rc)
		return -1;
	if (conv_n == conv_cap) {
		conv_cap = conv_cap ? 2 * conv_cap : 256;
		conv_s = realloc(conv_s, conv_cap * sizeof *conv_s);
	}
	if (id >= conv_row_cap) {
		conv_row_cap = conv_row_cap ? 2 * conv_row_cap : 256;
		conv_row = realloc(conv_row, conv_row_cap * sizeof *conv_row);
		conv_present = realloc(conv_present, conv_row_cap);
		memset(conv_present + id, 0, conv_row_cap - id);
	}
	conv_s[conv_n] = (conv_stream){pmid, inst, id};
	return (int)conv_n++;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: gen-from-pcp ARCHIVE OUT.mcz\n");
		return 2;
	}
	int ctx = pmNewContext(PM_CONTEXT_ARCHIVE, argv[1]);
	if (ctx < 0) {
		fprintf(stderr, "gen-from-pcp: %s: %s\n", argv[1], pmErrStr(ctx));
		return 1;
	}
	pmLogLabel label;
	pmGetArchiveLabel(&label);
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	int64_t start = (int64_t)label.ll_start.tv_sec * 1000000000LL + label.ll_start.tv_usec * 1000LL;
	o.wall_epoch_ns = start;
	mcz_writer *w;
	int rc = mcz_writer_open(&w, argv[2], &o);
	if (rc) {
		fprintf(stderr, "gen-from-pcp: %s: %s\n", argv[2], mcz_strerror(rc));
		return 1;
	}
	mcz_writer_meta(w, "host", label.ll_hostname);
	mcz_writer_meta(w, "recorder", "pmlogger (converted by gen-from-pcp)");
	pmResult *res;
	int64_t row_t = INT64_MIN;
	int e;
	while ((e = pmFetchArchive(&res)) >= 0) {
		int64_t t = (int64_t)res->timestamp.tv_sec * 1000000000LL +
			    res->timestamp.tv_usec * 1000LL - start;
		if (t != row_t && row_t != INT64_MIN && conv_n) {
			if (t < row_t)
				t = row_t; /* never go back: merge into the row */
			else if ((rc = mcz_writer_append(w, row_t, conv_row, conv_present)))
				break;
			else
				memset(conv_present, 0, conv_row_cap);
		}
		row_t = t;
		for (int i = 0; i < res->numpmid; i++) {
			pmValueSet *vs = res->vset[i];
			pmDesc desc;
			if (vs->numval <= 0 || pmLookupDesc(vs->pmid, &desc) < 0 ||
			    desc.type == PM_TYPE_STRING || desc.type == PM_TYPE_AGGREGATE ||
			    desc.type == PM_TYPE_AGGREGATE_STATIC || desc.type == PM_TYPE_EVENT ||
			    desc.type == PM_TYPE_HIGHRES_EVENT)
				continue;
			for (int j = 0; j < vs->numval; j++) {
				int k = conv_find(w, vs->pmid, vs->vlist[j].inst, &desc);
				if (k < 0)
					continue;
				pmAtomValue a;
				int out = desc.type == PM_TYPE_FLOAT ? PM_TYPE_DOUBLE : desc.type;
				if (pmExtractValue(vs->valfmt, &vs->vlist[j], desc.type, &a, out) < 0)
					continue;
				mcz_value v;
				switch (out) {
				case PM_TYPE_DOUBLE: v.f = a.d; break;
				case PM_TYPE_32: v.i = a.l; break;
				case PM_TYPE_U32: v.u = a.ul; break;
				case PM_TYPE_64: v.i = a.ll; break;
				default: v.u = a.ull; break;
				}
				uint32_t id = conv_s[k].id;
				conv_values += !conv_present[id];
				conv_row[id] = v;
				conv_present[id] = 1;
			}
		}
		pmFreeResult(res);
	}
	if (!rc && row_t != INT64_MIN && conv_n)
		rc = mcz_writer_append(w, row_t, conv_row, conv_present);
	int rc2 = mcz_writer_close(w);
	if (rc || rc2) {
		fprintf(stderr, "gen-from-pcp: %s: %s\n", argv[2], mcz_strerror(rc ? rc : rc2));
		return 1;
	}
	printf("values %llu streams %zu\n", (unsigned long long)conv_values, conv_n);
	return 0;
}
