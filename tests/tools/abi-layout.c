/* abi-layout.c: the layout of the C structures python/mcz/_lib.py mirrors
 * with ctypes, and the values of the constants it copies, as the compiler
 * sees them, for tests/integration/py-abi.sh to compare with ctypes':
 *
 *     struct NAME SIZEOF
 *     field NAME MEMBER OFFSETOF SIZEOF
 *     const NAME VALUE
 *
 * The members are listed here by hand, in order; py-abi.py also reads the
 * header's own declarations, so a member added in C and not here fails it.
 *
 *     build/tests/tools/abi-layout
 */
#include <stddef.h>
#include <stdio.h>

#include "../../format/mcz.h"
#include "../../format/pcp/pcp.h"

#define F(s, m) printf("field %s %s %zu %zu\n", #s, #m, offsetof(s, m), sizeof(((s *)0)->m));
#define S(s, fields) printf("struct %s %zu\n", #s, sizeof(s)); fields
#define C(c) printf("const %s %lld\n", #c, (long long)(c));

int main(int argc, char **argv)
{
	if (argc != 1) {
		fprintf(stderr, "usage: abi-layout\n");
		return 2;
	}
	S(mcz_stream_desc, F(mcz_stream_desc, id) F(mcz_stream_desc, name)
	  F(mcz_stream_desc, source) F(mcz_stream_desc, native) F(mcz_stream_desc, unit)
	  F(mcz_stream_desc, note) F(mcz_stream_desc, instance) F(mcz_stream_desc, kind)
	  F(mcz_stream_desc, type) F(mcz_stream_desc, flags) F(mcz_stream_desc, scale)
	  F(mcz_stream_desc, topo))
	S(mcz_topo_obj, F(mcz_topo_obj, parent) F(mcz_topo_obj, type) F(mcz_topo_obj, os_index)
	  F(mcz_topo_obj, size) F(mcz_topo_obj, name))
	S(mcz_mark, F(mcz_mark, t) F(mcz_mark, kind) F(mcz_mark, source) F(mcz_mark, text))
	S(mcz_file_info, F(mcz_file_info, version_major) F(mcz_file_info, version_minor)
	  F(mcz_file_info, file_bytes) F(mcz_file_info, nrows) F(mcz_file_info, nchunks)
	  F(mcz_file_info, nvalues) F(mcz_file_info, t_first) F(mcz_file_info, t_last)
	  F(mcz_file_info, wall_epoch_ns) F(mcz_file_info, recovered)
	  F(mcz_file_info, valid_bytes) F(mcz_file_info, skipped_blocks)
	  F(mcz_file_info, sample_bytes) F(mcz_file_info, nparts) F(mcz_file_info, part_rows))
	S(mcz_series, F(mcz_series, n) F(mcz_series, t) F(mcz_series, v) F(mcz_series, delta)
	  F(mcz_series, present))
	S(mcz_check_report, F(mcz_check_report, blocks_ok) F(mcz_check_report, blocks_bad)
	  F(mcz_check_report, chunks_ok) F(mcz_check_report, rows_ok)
	  F(mcz_check_report, valid_bytes) F(mcz_check_report, file_bytes)
	  F(mcz_check_report, index_ok) F(mcz_check_report, first_problem))
	S(mcz_code_object, F(mcz_code_object, path) F(mcz_code_object, build_id)
	  F(mcz_code_object, note))
	S(mcz_code_loc, F(mcz_code_loc, object) F(mcz_code_loc, offset) F(mcz_code_loc, how)
	  F(mcz_code_loc, function) F(mcz_code_loc, inlined) F(mcz_code_loc, file)
	  F(mcz_code_loc, line))
	S(mcz_code_hit, F(mcz_code_hit, loc) F(mcz_code_hit, count))
	S(mcz_code, F(mcz_code, event) F(mcz_code, period) F(mcz_code, interval_ns)
	  F(mcz_code, note) F(mcz_code, nobjects) F(mcz_code, objects) F(mcz_code, nlocs)
	  F(mcz_code, locs) F(mcz_code, nintervals) F(mcz_code, t) F(mcz_code, first)
	  F(mcz_code, nhits) F(mcz_code, hits) F(mcz_code, ncallers) F(mcz_code, callers)
	  F(mcz_code, nthreads) F(mcz_code, threads) F(mcz_code, nthits) F(mcz_code, thits)
	  F(mcz_code, nframes) F(mcz_code, frames) F(mcz_code, nstackhits)
	  F(mcz_code, stackhits))
	S(pcp_import_opts, F(pcp_import_opts, metrics) F(pcp_import_opts, ssh_options)
	  F(pcp_import_opts, progress) F(pcp_import_opts, progress_arg)
	  F(pcp_import_opts, zstd_level) F(pcp_import_opts, view) F(pcp_import_opts, cache_max)
	  F(pcp_import_opts, note) F(pcp_import_opts, notelen) F(pcp_import_opts, first_ms)
	  F(pcp_import_opts, pending))

	C(MCZ_OK) C(MCZ_E_IO) C(MCZ_E_NOMEM) C(MCZ_E_NOTMCZ) C(MCZ_E_VERSION) C(MCZ_E_CORRUPT)
	C(MCZ_E_TRUNCATED) C(MCZ_E_ARG) C(MCZ_E_RANGE) C(MCZ_E_STATE) C(MCZ_E_NOSPC)
	C(MCZ_E_EMPTY) C(MCZ_E_ISDIR) C(MCZ_E_NOTFOUND)
	C(MCZ_COUNTER) C(MCZ_GAUGE)
	C(MCZ_U64) C(MCZ_I64) C(MCZ_F64)
	C(MCZ_TOPO_MACHINE) C(MCZ_TOPO_PACKAGE) C(MCZ_TOPO_NUMA) C(MCZ_TOPO_L3) C(MCZ_TOPO_L2)
	C(MCZ_TOPO_L1) C(MCZ_TOPO_CORE) C(MCZ_TOPO_PU) C(MCZ_TOPO_GPU) C(MCZ_TOPO_NIC)
	C(MCZ_TOPO_OTHER)
	C(MCZ_MARK_POINT) C(MCZ_MARK_BEGIN) C(MCZ_MARK_END) C(MCZ_MARK_GAP)
	return 0;
}
