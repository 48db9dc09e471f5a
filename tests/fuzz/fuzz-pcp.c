/* fuzz-pcp.c: libFuzzer target for libmczpcp's own parsers — the pmafm
 * folio text, ssh:// URLs, archive names (suffixes, folder/base split) and
 * the stream a remote host sends back over ssh (pcp_fetch_parse, for an
 * archive, or for a pattern of recordings with bit 2 of the first byte; it
 * writes files into a private folder emptied after each input).  The first
 * byte picks the parser.  Any input must give an error code or a result,
 * never a crash, a leak, a write outside the folder or a huge allocation.
 * `make check` replays tests/fuzz/corpus-pcp/ through tests/fuzz/replay.c.
 */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../format/pcp/pcp-int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_dir[] = "/tmp/fuzz-pcp-XXXXXX";
static int fuzz_have_dir;

static void fuzz_empty_dir(void)
{
	DIR *d = opendir(fuzz_dir);
	if (!d)
		return;
	struct dirent *e;
	char path[600];
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof path, "%s/%s", fuzz_dir, e->d_name);
			unlink(path);
		}
	closedir(d);
}

static void fuzz_cleanup(void)
{
	fuzz_empty_dir();
	rmdir(fuzz_dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char *s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0'; /* NUL-terminated copy of the rest */
	char err[300], chosen[1100], **v;
	size_t n;
	switch (data[0] % 4) {
	case 0:
		if (pcp_path_folio_parse((const char *)data + 1, size - 1, "/d", &v, &n, err,
					 sizeof err) == 0)
			pcp_path_free_list(v, n);
		break;
	case 1: {
		pcp_ssh_url u;
		if (pcp_ssh_parse(s, &u, err, sizeof err) == 0 && (u.host[0] == '-' || !u.path[0]))
			abort(); /* a host like an option or an empty path must be refused */
		char *q = pcp_fetch_quote(s);
		free(q);
		break;
	}
	case 2: {
		char *dir, *base;
		(void)pcp_path_suffix_len(s);
		if (pcp_path_split(s, &dir, &base) == 0) {
			if (strchr(base, '/'))
				abort();
			free(dir);
			free(base);
		}
		(void)pcp_metric_match(s, "kernel.all.load");
		break;
	}
	default:
		if (!fuzz_have_dir) {
			if (!mkdtemp(fuzz_dir))
				break;
			fuzz_have_dir = 1;
			atexit(fuzz_cleanup);
		}
		if (data[0] & 4) /* a pattern of recordings: only names it matches are written */
			(void)pcp_fetch_parse_mode((const char *)data + 1, size - 1, "run.*.mcz", NULL,
						   PCP_FETCH_GLOB, fuzz_dir, chosen, sizeof chosen,
						   err, sizeof err);
		else
			(void)pcp_fetch_parse((const char *)data + 1, size - 1, "x", "x.10", fuzz_dir,
					      chosen, sizeof chosen, err, sizeof err);
		fuzz_empty_dir();
		break;
	}
	free(s);
	return 0;
}
