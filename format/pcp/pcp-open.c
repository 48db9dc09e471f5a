/* pcp-open.c: the one entry that opens anything a user can name — an .mcz
 * recording, a PCP archive (by name, volume, folder or folio) or an ssh://
 * URL to one — as an mcz reader (pcp.h: pcp_open_any).  The programs call
 * this instead of deciding themselves which of libmcz and the importer a
 * path is for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mcz.h"
#include "pcp.h"

/* One line for an .mcz that did not open: the OS error, or libmcz's reason
 * with its detail ("newer major version (3.0)"). */
static void open_error(const char *path, int rc, char *err, size_t errlen)
{
	const char *detail = mcz_errdetail();
	if (rc == MCZ_E_IO)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	else if (detail && *detail && rc != MCZ_E_ISDIR && rc != MCZ_E_EMPTY)
		snprintf(err, errlen, "%s: %s (%s)", path, mcz_strerror(rc), detail);
	else
		snprintf(err, errlen, "%s: %s", path, mcz_strerror(rc));
}

int pcp_open_any(mcz_reader **r, const char *path, const pcp_import_opts *o, char *err,
		 size_t errlen)
{
	*r = NULL;
	if (!pcp_import_claims(path)) {
		int rc = mcz_open(r, path, 0);
		if (rc != MCZ_OK)
			open_error(path, rc, err, errlen);
		return rc;
	}
	/* A PCP source is converted into a private temporary .mcz, opened and
	 * unlinked at once: the reader maps it, so nothing is left behind
	 * however the program ends. */
	char *tmp;
	int rc = pcp_import_temp(path, o, &tmp, NULL, err, errlen);
	if (rc != 0)
		return rc < 0 ? rc : MCZ_E_IO;
	rc = mcz_open(r, tmp, 0);
	unlink(tmp);
	free(tmp);
	if (rc != MCZ_OK)
		open_error(path, rc, err, errlen);
	return rc;
}
