/* fuzz-pcp.c: libFuzzer target for libmczpcp's own parsers — the pmafm
 * folio text, ssh:// URLs, archive names (suffixes, folder/base split) and
 * the stream a remote host sends back over ssh (pcp_pull_parse, for an
 * archive, or for a pattern of recordings with bit 2 of the first byte; it
 * writes files into a private folder emptied after each input), and, with
 * bit 6 of the first byte, an entry of mcview's cache of converted
 * archives (pcp_cache_get: the head's checks, then the recording read in
 * place at its offset; with bit 7 clear the harness writes a valid head
 * around the rest of the input, the CRC included, so that the fuzzer
 * reaches the reader); with bits 6 and 5 both set, the input is the
 * identity an entry was made from, which pcp_cache_grown compares with a
 * grown archive's (id_grown), and the other way round.  The first byte
 * picks the parser.  Any input must give an error code or a result,
 * never a crash, a leak, a write outside the folder or a huge allocation.
 * `make check` replays tests/fuzz/corpus-pcp/ through tests/fuzz/replay.c.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

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
	char path[700];
	fuzz_empty_dir();
	snprintf(path, sizeof path, "%s/mcz/pcp-fuzz.mcz", fuzz_dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/mcz", fuzz_dir);
	rmdir(path);
	rmdir(fuzz_dir);
}

/* mcview's cache entry from the input (see the top): 0 written, -1 not */
static int fuzz_cache_entry(const uint8_t *d, size_t n, const char *ident)
{
	char path[700];
	if (setenv("XDG_CACHE_HOME", fuzz_dir, 1) ||
	    mcz_cachedir_path(path, sizeof path, "pcp-fuzz.mcz", 1))
		return -1;
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	if (d[0] & 0x80) { /* as it is */
		fwrite(d + 1, 1, n - 1, f);
	} else { /* a valid head: magic, head and identity lengths, the recording's length and CRC32 */
		size_t il = strlen(ident), hl = (32 + il + 63) / 64 * 64;
		unsigned char h[32] = "MCZPCPC1";
		uint64_t ml = n - 1, crc = crc32_z(0, d + 1, n - 1);
		for (int i = 0; i < 4; i++) {
			h[8 + i] = (unsigned char)(hl >> (8 * i));
			h[12 + i] = (unsigned char)(il >> (8 * i));
			h[24 + i] = (unsigned char)(crc >> (8 * i));
		}
		for (int i = 0; i < 8; i++)
			h[16 + i] = (unsigned char)(ml >> (8 * i));
		fwrite(h, 1, sizeof h, f);
		fwrite(ident, 1, il, f);
		for (size_t k = 32 + il; k < hl; k++)
			fputc(0, f);
		fwrite(d + 1, 1, n - 1, f);
	}
	return fclose(f) ? -1 : 0;
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
		char *q = pcp_pull_quote(s);
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
		if ((data[0] & 0x60) == 0x60) { /* identities: the input's grown into cur, cur into it */
			static const char cur[] =
				"pcp-cache 3 (viewer conversion, format 1.5)\nmetrics *\n"
				"/a/x.0 900 2.0 0badcafe\n/a/x.1 10 2.0 12345678\n/a/x.meta 800 2.0 abcdef01\n";
			static const uint8_t head = 0; /* a valid head, an empty recording */
			int out = open("/dev/null", O_WRONLY);
			mcz_reader *r = NULL;
			for (int way = 0; way < 2 && out >= 0; way++)
				if (fuzz_cache_entry(&head, 1, way ? cur : s) == 0 &&
				    pcp_cache_grown("pcp-fuzz.mcz", way ? s : cur, NULL, out, &r) == MCZ_OK)
					mcz_close(r);
			if (out >= 0)
				close(out);
			fuzz_empty_dir();
		} else if (data[0] & 0x40) { /* a cache entry */
			static const char ident[] = "mcview-pcp-cache 1\nmetrics *\n/a/x.0 9 1\n";
			mcz_reader *r = NULL;
			if (fuzz_cache_entry(data, size, ident) == 0 &&
			    pcp_cache_get("pcp-fuzz.mcz", ident, NULL, &r) == MCZ_OK) {
				const mcz_file_info *fi = mcz_info(r);
				if (!fi)
					abort();
				mcz_close(r);
			}
			fuzz_empty_dir();
		} else if (data[0] & 4) /* a pattern of recordings: only names it matches are written */
			(void)pcp_pull_parse_mode((const char *)data + 1, size - 1, "run.*.mcz", NULL,
						   PCP_FETCH_GLOB, fuzz_dir, chosen, sizeof chosen,
						   err, sizeof err);
		else
			(void)pcp_pull_parse((const char *)data + 1, size - 1, "x", "x.10", fuzz_dir,
					      chosen, sizeof chosen, err, sizeof err);
		fuzz_empty_dir();
		break;
	}
	free(s);
	return 0;
}
