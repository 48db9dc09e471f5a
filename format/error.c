/* error.c: error names and the thread-local error detail.
 *
 * The library returns mcz_err codes and never prints (STYLE.md 12); where a
 * code alone would leave the user guessing (which version, which offset),
 * the failing function also records one line of detail here, which the
 * programs print after the code's name.
 *
 *     if ((rc = mcz_open(&r, path, 0)) != MCZ_OK)
 *         fprintf(stderr, "mcz: %s: %s%s%s\n", path, mcz_strerror(rc),
 *                 *mcz_errdetail() ? ": " : "", mcz_errdetail());
 */
#include <stdio.h>

#include "internal.h"

/* room for a line that quotes a path or two */
static _Thread_local char error_detail[1024];

const char *mcz_strerror(int err)
{
	switch (err) {
	case MCZ_OK: return "success";
	case MCZ_E_IO: return "input/output error";
	case MCZ_E_NOMEM: return "out of memory";
	case MCZ_E_NOTMCZ: return "not an mcz file";
	case MCZ_E_VERSION: return "unsupported format version";
	case MCZ_E_CORRUPT: return "corrupt file";
	case MCZ_E_TRUNCATED: return "truncated file";
	case MCZ_E_ARG: return "invalid argument";
	case MCZ_E_RANGE: return "out of range";
	case MCZ_E_STATE: return "call not allowed in this state";
	case MCZ_E_NOSPC: return "no space left on device";
	case MCZ_E_EMPTY: return "empty file";
	case MCZ_E_ISDIR: return "is a directory";
	case MCZ_E_NOTFOUND: return "not found";
	}
	return "unknown error";
}

const char *mcz_errdetail(void)
{
	return error_detail;
}

int mcz_error_set(int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(error_detail, sizeof error_detail, fmt, ap);
	va_end(ap);
	return err;
}

void mcz_error_clear(void)
{
	error_detail[0] = 0;
}
