/* pcp-cache.c: the recordings mcview converted from PCP archives, kept in
 * the user's cache folder (format/cache/cachedir.c) so that a second open of the
 * same archive skips the conversion (SPEC-PCP.md, "The viewer's cache").
 *
 *     char *key, *id;
 *     if (pcp_cache_identity(src, o, &key, &id) == MCZ_OK) {
 *         if (pcp_cache_get(key, id, &r) == MCZ_OK) ...;     // verified entry
 *         else { convert into tmp; pcp_cache_put(key, id, tmp, o); }
 *     }
 *
 * An entry, "pcp-<hash of the source's file names and options>.mcz", is a
 * head — magic "MCZPCPC1", the head's length, the identity's length, the
 * recording's length and its CRC32, the identity text (every file of the
 * archive: real path, size, mtime) — then the recording, mapped in place.
 * A grown or replaced archive has the same name and another identity: its
 * entry is made again over the old one.  Entries are written whole by
 * rename (several mcview at once each see a whole one or none), checked
 * (identity, length, CRC) before they are trusted, touched when used, and
 * the least recently used removed when the folder's entries would pass the
 * bound (pcp_import_opts.cache_max) — only files the cache made (own_name,
 * own_entry), in a folder of the user's own (mcz_cachedir).  Nothing here costs the view: a cache
 * that cannot be read is a conversion, one that cannot be written a note.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "../mcz.h"
#include "pcp-int.h"

#define CACHE_MAGIC "MCZPCPC1"
#define CACHE_FIXED 32 /* magic 8, head length 4, identity length 4, mcz length 8, CRC32 4, 0 4 */
/* 3: a counter that went backwards has no rate in the summaries (SPEC.md
 * 7.3); 4: every file's whole content in the identity: entries made before
 * are made again once */
#define CACHE_VERSION "pcp-cache 4 (viewer conversion, format 1.5)"
#define CACHE_ID_MAX (1u << 20)

typedef struct idbuf {
	char *p;
	size_t len, cap;
	int err;
	int names_only; /* the files' names listed, nothing read (pcp_cache_files) */
	int stamp;      /* without the whole content's CRC (pcp_cache_stamp) */
} idbuf;

static void id_add(idbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void id_add(idbuf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int n = b->err ? 0 : vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (b->err || n < 0)
			return;
		if ((size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		size_t nc = (b->cap + (size_t)n + 1) * 2;
		char *q = nc <= CACHE_ID_MAX ? realloc(b->p, nc) : NULL;
		if (!q) {
			b->err = 1;
			return;
		}
		b->p = q;
		b->cap = nc;
	}
}

/* The bytes at the start of an archive's file that never change while
 * pmlogger appends to it: its label (pid, start time, host), which another
 * pmlogger's or pmlogextract's archive of the same name does not share. */
#define ID_HEAD 64

/* "path size mtime head all" of one file (head: CRC32 of its first ID_HEAD
 * bytes, all: of its whole content); its real path in the list of names.
 *
 * An entry is trusted only when every byte of the archive is the one it
 * was made from: path, size and mtime are not enough (a byte changed and
 * the mtime set back, touch -r, passes them), nor is PCP's label (the same
 * in every copy and every extract of an archive).  The whole-content CRC
 * costs one read of the archive (zlib's crc32), a fraction of an open
 * from the cache and far less than a conversion.  The head CRC finds an entry whose
 * archive has grown (id_grown).
 * The stamp a viewer compares every 2 s to see growth does without it. */
static void id_file(idbuf *id, idbuf *names, const char *path)
{
	struct stat st;
	char real[PATH_MAX];
	unsigned char head[ID_HEAD];
	if (id->names_only) {
		if (!realpath(path, real))
			id->err = 1;
		else
			id_add(names, "%s\n", real);
		return;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t got = fd < 0 ? -1 : pread(fd, head, sizeof head, 0);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || got < 0 ||
	    !realpath(path, real)) {
		if (fd >= 0)
			close(fd);
		id->err = 1;
		return;
	}
	uLong all = 0;
	if (!id->stamp && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			close(fd);
			id->err = 1;
			return;
		}
		all = crc32_z(0, m, (size_t)st.st_size);
		munmap(m, (size_t)st.st_size);
	}
	close(fd);
	id_add(names, "%s\n", real);
	id_add(id, "%s %lld %lld.%09ld %08lx", real, (long long)st.st_size,
	       (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec,
	       (unsigned long)crc32_z(0, head, (size_t)got));
	if (id->stamp)
		id_add(id, "\n");
	else
		id_add(id, " %08lx\n", (unsigned long)all);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file of dir whose name is base + a PCP suffix (base NULL: every
 * file of an archive in dir), in name order. */
static void id_dir(idbuf *id, idbuf *names, const char *dir, const char *base)
{
	DIR *d = opendir(dir);
	if (!d) {
		id->err = 1;
		return;
	}
	char **v = NULL;
	size_t n = 0, cap = 0, bl = base ? strlen(base) : 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const char *s = e->d_name;
		if (base) {
			if (strncmp(s, base, bl) != 0 || s[bl] != '.' ||
			    pcp_path_suffix_len(s + bl) != strlen(s + bl))
				continue;
		} else {
			int ok = 0;
			for (const char *p = strchr(s + 1, '.'); p && !ok; p = strchr(p + 1, '.'))
				ok = pcp_path_suffix_len(p) == strlen(p);
			if (!ok)
				continue;
		}
		if (n == cap) {
			char **v2 = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof *v);
			if (!v2)
				break;
			v = v2;
		}
		if (!(v[n] = strdup(s)))
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof *v, by_name);
	for (size_t i = 0; i < n; i++) {
		char p[PATH_MAX];
		if (snprintf(p, sizeof p, "%s/%s", dir, v[i]) >= (int)sizeof p)
			id->err = 1;
		else
			id_file(id, names, p);
		free(v[i]);
	}
	free(v);
	if (!n)
		id->err = 1;
}

/* One archive named as libpcp takes it: a base name, a volume, .meta or
 * .index, or a directory of archives. */
static void id_archive(idbuf *id, idbuf *names, const char *src)
{
	struct stat st;
	if (stat(src, &st) == 0 && S_ISDIR(st.st_mode)) {
		id_dir(id, names, src, NULL);
		return;
	}
	char *dir, *base;
	if (pcp_path_split(src, &dir, &base) != 0) {
		id->err = 1;
		return;
	}
	id_dir(id, names, dir, base);
	free(dir);
	free(base);
}

/* Every file of the source src: a folio and its archives, libpcp's
 * "a,b,c" list, or one archive. */
static void id_source(idbuf *id, idbuf *names, const char *src)
{
	char **a = NULL, e[8];
	size_t n = 0;
	int folio = strchr(src, ',') ? 0 : pcp_path_folio(src, NULL, &a, &n, e, sizeof e);
	if (folio == 1) {
		id_file(id, names, src);
		for (size_t i = 0; i < n; i++)
			id_archive(id, names, a[i]);
		pcp_path_free_list(a, n);
	} else if (folio == 0) {
		char *list = strdup(src), *save = NULL;
		if (!list)
			id->err = 1;
		for (char *p = list ? strtok_r(list, ",", &save) : NULL; p;
		     p = strtok_r(NULL, ",", &save))
			id_archive(id, names, p);
		free(list);
	} else {
		id->err = 1;
	}
}

char *pcp_cache_files(const char *src)
{
	idbuf id = { .names_only = 1 }, names = {0};
	if (pcp_path_is_ssh(src))
		return NULL;
	id_source(&id, &names, src);
	if (names.err) {
		free(names.p);
		return NULL;
	}
	return names.p; /* those found, even when some were not */
}

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static int cache_identity(const char *src, const pcp_import_opts *o, int stamp, char **key,
			  char **ident)
{
	*key = *ident = NULL;
	if (pcp_path_is_ssh(src))
		return MCZ_E_ARG; /* the remote files' sizes and times are not known here */
	idbuf id = { .stamp = stamp }, names = {0};
	id_add(&id, "%s\nmetrics %s\n", CACHE_VERSION, o && o->metrics ? o->metrics : "*");
	id_add(&names, "%s\n", id.p ? id.p : "");
	id_source(&id, &names, src);
	if (id.err || names.err || !id.p || !names.p) {
		free(id.p);
		free(names.p);
		return MCZ_E_NOTFOUND;
	}
	char k[64];
	snprintf(k, sizeof k, "pcp-%016llx.mcz", (unsigned long long)fnv1a(names.p, names.len));
	free(names.p);
	if (!(*key = strdup(k))) {
		free(id.p);
		return MCZ_E_NOMEM;
	}
	*ident = id.p;
	return MCZ_OK;
}

int pcp_cache_identity(const char *src, const pcp_import_opts *o, char **key, char **ident)
{
	return cache_identity(src, o, 0, key, ident);
}

char *pcp_cache_stamp(const char *src, const pcp_import_opts *o)
{
	char *key, *ident;
	if (cache_identity(src, o, 1, &key, &ident) != MCZ_OK)
		return NULL;
	free(key);
	return ident;
}

char *pcp_cache_stamp_of(const char *ident)
{
	char *st = ident ? strdup(ident) : NULL;
	if (!st)
		return NULL;
	/* past the version and metrics lines, each file's last field dropped */
	char *w = st, *r = st;
	for (int line = 0; *r; line++) {
		char *nl = strchr(r, '\n'), *end = nl ? nl : r + strlen(r);
		char *cut = end;
		if (line >= 2)
			for (cut = end; cut > r && cut[-1] != ' ';)
				cut--;
		if (line >= 2 && cut > r)
			cut--; /* the space before it */
		memmove(w, r, (size_t)(cut - r));
		w += cut - r;
		if (nl)
			*w++ = '\n';
		r = nl ? nl + 1 : end;
	}
	*w = '\0';
	return st;
}

/* The fetched files under dir, by name below it: "name size crc32" each. */
static void id_fetched(idbuf *id, const char *dir, const char *rel)
{
	char path[4200];
	snprintf(path, sizeof path, "%s%s%s", dir, *rel ? "/" : "", rel);
	struct dirent **v;
	int n = scandir(path, &v, NULL, alphasort);
	if (n < 0) {
		id->err = 1;
		return;
	}
	for (int i = 0; i < n; i++) {
		const char *e = v[i]->d_name;
		char sub[4200], full[8500];
		struct stat st;
		int ok = snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e) <
				 (int)sizeof sub &&
			 snprintf(full, sizeof full, "%s/%s", dir, sub) < (int)sizeof full;
		if (!ok)
			id->err = 1;
		else if (strcmp(e, ".") && strcmp(e, "..") && lstat(full, &st) == 0) {
			if (S_ISDIR(st.st_mode)) {
				id_fetched(id, dir, sub);
			} else if (S_ISREG(st.st_mode)) {
				int fd = open(full, O_RDONLY | O_CLOEXEC);
				void *m = fd >= 0 && st.st_size ? mmap(NULL, (size_t)st.st_size, PROT_READ,
								     MAP_PRIVATE, fd, 0)
							       : NULL;
				if (fd < 0 || m == MAP_FAILED)
					id->err = 1;
				else
					id_add(id, "%s %lld %08lx\n", sub, (long long)st.st_size,
					       m ? (unsigned long)crc32_z(0, m, (size_t)st.st_size) : 0ul);
				if (m && m != MAP_FAILED)
					munmap(m, (size_t)st.st_size);
				if (fd >= 0)
					close(fd);
			}
		}
		free(v[i]);
	}
	free(v);
}

int pcp_cache_identity_fetched(const char *url, const char *dir, const pcp_import_opts *o,
			       char **key, char **ident)
{
	*key = *ident = NULL;
	idbuf id = {0};
	id_add(&id, "%s\nmetrics %s\n%s\n", CACHE_VERSION, o && o->metrics ? o->metrics : "*", url);
	char k[64];
	snprintf(k, sizeof k, "pcp-%016llx.mcz",
		 (unsigned long long)fnv1a(id.p ? id.p : "", id.p ? id.len : 0));
	id_fetched(&id, dir, "");
	if (id.err || !id.p || !(*key = strdup(k))) {
		free(id.p);
		return id.err ? MCZ_E_NOTFOUND : MCZ_E_NOMEM;
	}
	*ident = id.p;
	return MCZ_OK;
}

/* the head's fields, little-endian */
static void put32(unsigned char *b, uint64_t v)
{
	uint32_t x = htole32((uint32_t)v);
	memcpy(b, &x, 4);
}

static uint64_t get32(const unsigned char *b)
{
	uint32_t x;
	memcpy(&x, b, 4);
	return le32toh(x);
}

static size_t head_len(size_t idlen)
{
	return (CACHE_FIXED + idlen + 63) / 64 * 64; /* the recording on 64 bytes */
}

static int cache_disabled(const pcp_import_opts *o)
{
	const char *off = getenv("MCZ_NO_CACHE");
	return (off && *off && strcmp(off, "0")) || (o && o->cache_max < 0);
}

/* The entry named key, checked whole (head, length, the recording's CRC):
 * its descriptor, the head's length and the identity it was made from
 * (malloc'ed); MCZ_E_CORRUPT, or the cache folder's error. */
static int entry_open(const char *key, int *fdp, size_t *hlp, char **idp)
{
	char path[4200];
	int fd, rc = mcz_cachedir_path(path, sizeof path, key, 0);
	if (rc || (rc = mcz_cachedir_open(path, &fd)))
		return rc;
	struct stat st;
	unsigned char h[CACHE_FIXED];
	size_t idlen = 0, hl = 0;
	char *got = NULL;
	rc = MCZ_E_CORRUPT;
	if (fstat(fd, &st) == 0 && pread(fd, h, sizeof h, 0) == (ssize_t)sizeof h &&
	    !memcmp(h, CACHE_MAGIC, 8) && (idlen = get32(h + 12)) <= CACHE_ID_MAX &&
	    get32(h + 8) == (hl = head_len(idlen)) &&
	    (uint64_t)st.st_size == hl + (get32(h + 16) | get32(h + 20) << 32) &&
	    (got = malloc(idlen + 1)) && pread(fd, got, idlen, CACHE_FIXED) == (ssize_t)idlen) {
		got[idlen] = '\0';
		/* the recording's bytes checked whole before they are trusted */
		size_t ml = (size_t)st.st_size;
		void *m = mmap(NULL, ml, PROT_READ, MAP_SHARED, fd, 0);
		if (m != MAP_FAILED) {
			uLong crc = crc32_z(0, (const Bytef *)m + hl, ml - hl);
			munmap(m, ml);
			if (crc == get32(h + 24))
				rc = MCZ_OK;
		}
	}
	if (rc) {
		free(got);
		close(fd);
		return rc;
	}
	*fdp = fd;
	*hlp = hl;
	*idp = got;
	return MCZ_OK;
}

static int id_grown(const char *old, const char *cur);

/* The entry key, whole, made from ident (grown: from an earlier state of
 * the archive ident is now, id_grown): its descriptor and head length;
 * MCZ_E_NOTFOUND (none, another archive's, no cache) or MCZ_E_CORRUPT. */
static int entry_find(const char *key, const char *ident, const pcp_import_opts *o, int grown,
		      int *fd, size_t *hl)
{
	if (cache_disabled(o))
		return MCZ_E_NOTFOUND;
	char *got;
	int rc = entry_open(key, fd, hl, &got);
	if (rc)
		return rc;
	if (grown ? !id_grown(got, ident) : strcmp(got, ident) != 0) {
		close(*fd);
		rc = grown ? MCZ_E_NOTFOUND : MCZ_E_CORRUPT;
	}
	free(got);
	return rc;
}

int pcp_cache_get(const char *key, const char *ident, const pcp_import_opts *o, mcz_reader **r)
{
	*r = NULL;
	int fd;
	size_t hl;
	int rc = entry_find(key, ident, o, 0, &fd, &hl);
	if (rc)
		return rc;
	if ((rc = mcz_open_fd(r, fd, hl, 0)) == MCZ_OK)
		futimens(fd, NULL); /* used: the last to go (fails harmlessly read-only) */
	close(fd);
	return rc == MCZ_OK ? MCZ_OK : MCZ_E_CORRUPT;
}

/* The next line of an identity at *p (before end): [*p, return), *p moved
 * past its newline; NULL at the end. */
static const char *id_line(const char **p, const char *end)
{
	const char *s = *p, *nl = s < end ? memchr(s, '\n', (size_t)(end - s)) : NULL;
	if (!nl)
		return NULL;
	*p = nl + 1;
	return nl;
}

/* A file's line "path size mtime head all": its path's length, size, and
 * the CRCs of its head and of its whole content. */
static int id_fields(const char *s, const char *e, size_t *plen, long long *size, char crc[9],
		     unsigned long *all)
{
	const char *a = e, *c, *m, *z;
	while (a > s && a[-1] != ' ')
		a--;
	for (c = a - 1; c > s && c[-1] != ' ';)
		c--;
	for (m = c - 1; m > s && m[-1] != ' ';)
		m--;
	for (z = m - 1; z > s && z[-1] != ' ';)
		z--;
	if (a <= s || c <= s || m <= s || z <= s || e - a != 8 || a - 1 - c != 8)
		return -1;
	*plen = (size_t)(z - 1 - s);
	*size = strtoll(z, NULL, 10);
	*all = strtoul(a, NULL, 16);
	memcpy(crc, c, 8);
	crc[8] = '\0';
	return 0;
}

/* The CRC32 of the first len bytes of path (its real path, from an
 * identity); 1 when they are what the entry was made from. */
static int id_prefix_is(const char *path, size_t plen, long long len, unsigned long want)
{
	char p[PATH_MAX];
	if (plen >= sizeof p || len < 0)
		return 0;
	memcpy(p, path, plen);
	p[plen] = '\0';
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < len) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	uLong crc = 0;
	void *m = len ? mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	close(fd);
	if (m == MAP_FAILED)
		return 0;
	if (m) {
		crc = crc32_z(0, m, (size_t)len);
		munmap(m, (size_t)len);
	}
	return crc == want;
}

/* The archive of identity old has grown into cur: the same first two
 * lines (version, metrics), then each of old's files in cur again with the
 * same first bytes (head crc), as long or longer, and its first old-size
 * bytes the ones the entry was made from (their CRC, read again: the entry
 * is continued from them); cur may have more files (new volumes).
 * pmlogger only appends; another archive of the same name has another
 * label, hence other first bytes. */
static int id_grown(const char *old, const char *cur)
{
	const char *o = old, *oe = old + strlen(old), *c = cur, *ce = cur + strlen(cur);
	for (int k = 0; k < 2; k++) {
		const char *os = o, *cs = c, *a = id_line(&o, oe), *b = id_line(&c, ce);
		if (!a || !b || a - os != b - cs || memcmp(os, cs, (size_t)(a - os)))
			return 0;
	}
	const char *files = c;
	for (const char *s = o, *e; (e = id_line(&o, oe)) != NULL; s = o) {
		size_t pl, ql;
		long long sz, qz;
		char crc[9], qcrc[9];
		unsigned long all, qall;
		if (id_fields(s, e, &pl, &sz, crc, &all))
			return 0;
		int found = 0;
		const char *q = files, *qs = q, *qe;
		while (!found && (qe = id_line(&q, ce)) != NULL) {
			found = !id_fields(qs, qe, &ql, &qz, qcrc, &qall) && ql == pl &&
				!memcmp(qs, s, pl) && qz >= sz && !strcmp(qcrc, crc) &&
				(qz == sz ? qall == all : id_prefix_is(s, pl, sz, all));
			qs = q;
		}
		if (!found)
			return 0;
	}
	return 1;
}

int pcp_cache_grown(const char *key, const char *ident, const pcp_import_opts *o, int out_fd,
		    mcz_reader **r)
{
	if (r)
		*r = NULL;
	int fd;
	size_t hl;
	int rc = entry_find(key, ident, o, 1, &fd, &hl);
	if (rc)
		return MCZ_E_NOTFOUND;
	uint8_t buf[1 << 16];
	for (off_t at = (off_t)hl, k; rc == MCZ_OK && out_fd >= 0; at += k) {
		k = pread(fd, buf, sizeof buf, at);
		if (k == 0)
			break;
		if (k < 0 || write(out_fd, buf, (size_t)k) != k)
			rc = MCZ_E_IO;
	}
	if (rc == MCZ_OK && r && (rc = mcz_open_fd(r, fd, hl, 0)) == MCZ_OK)
		futimens(fd, NULL);
	close(fd);
	return rc;
}

int pcp_cache_writable(const pcp_import_opts *o)
{
	char dir[4096];
	if (cache_disabled(o))
		return MCZ_E_NOTFOUND;
	int rc = mcz_cachedir(dir, sizeof dir, 1);
	return rc ? rc : access(dir, W_OK) == 0 ? MCZ_OK : MCZ_E_IO;
}

typedef struct entry {
	char name[64];
	off_t size;
	struct timespec used;
} entry;

static int by_use(const void *a, const void *b)
{
	const entry *x = a, *y = b;
	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	return x->used.tv_nsec < y->used.tv_nsec ? -1 : x->used.tv_nsec > y->used.tv_nsec;
}

/* 1 when name is one the cache makes: "pcp-" + 16 hex digits + ".mcz" (an
 * entry, pcp_cache_identity's key), or that + "." + mkstemp's 6 characters
 * (*tmp: mcz_cachedir_write's temporary). */
static int own_name(const char *name, int *tmp)
{
	size_t l = strlen(name);
	if ((l != 24 && l != 31) || strncmp(name, "pcp-", 4) || strncmp(name + 20, ".mcz", 4))
		return 0;
	for (size_t i = 4; i < 20; i++)
		if (!strchr("0123456789abcdef", name[i]))
			return 0;
	*tmp = l == 31;
	if (*tmp) {
		if (name[24] != '.')
			return 0;
		for (size_t i = 25; i < 31; i++)
			if (!strchr("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
				    name[i]))
				return 0;
	}
	return 1;
}

/* 1 when the regular file name in dir (not followed if a symlink; st its
 * lstat) begins with the cache's magic: one of ours, to remove. */
static int own_entry(int dir, const char *name, const struct stat *st)
{
	unsigned char m[8];
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat fs;
	int ok = fd >= 0 && fstat(fd, &fs) == 0 && S_ISREG(fs.st_mode) &&
		 fs.st_ino == st->st_ino && fs.st_dev == st->st_dev &&
		 pread(fd, m, sizeof m, 0) == (ssize_t)sizeof m && !memcmp(m, CACHE_MAGIC, 8);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* Room for `need` bytes under max: the least recently used entries (not
 * `keep`) removed until the rest and the new one fit; temporary files left
 * by a killed writer removed after an hour.  Only what the cache can show
 * it made is removed: a name it makes, a regular file (lstat), its magic
 * first; anything else in the folder is not its own (a user's pcp-run1.mcz
 * where the folder is shared) and is neither counted nor touched. */
static void cache_evict(const char *dir, const char *keep, uint64_t need, uint64_t max)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	entry *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	time_t now = time(NULL);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		int tmp;
		struct stat st;
		if (!own_name(e->d_name, &tmp) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode) || !own_entry(dirfd(d), e->d_name, &st))
			continue;
		if (tmp) { /* "pcp-<hash>.mcz.XXXXXX" */
			if (now - st.st_mtim.tv_sec > 3600)
				unlinkat(dirfd(d), e->d_name, 0);
			continue;
		}
		if (!strcmp(e->d_name, keep))
			continue;
		if (n == cap) {
			entry *v2 = realloc(v, (cap = cap ? cap * 2 : 32) * sizeof *v);
			if (!v2)
				break;
			v = v2;
		}
		snprintf(v[n].name, sizeof v[n].name, "%s", e->d_name);
		v[n].size = st.st_size;
		v[n].used = st.st_mtim;
		total += (uint64_t)st.st_size;
		n++;
	}
	if (n)
		qsort(v, n, sizeof *v, by_use);
	for (size_t i = 0; i < n && total + need > max; i++)
		if (unlinkat(dirfd(d), v[i].name, 0) == 0 || errno == ENOENT)
			total -= (uint64_t)v[i].size;
	closedir(d);
	free(v);
}

int pcp_cache_put(const char *key, const char *ident, const char *mcz_path,
		  const pcp_import_opts *o, char *note, size_t notelen)
{
	if (cache_disabled(o))
		return MCZ_OK;
	uint64_t max = o && o->cache_max > 0 ? (uint64_t)o->cache_max : PCP_CACHE_MAX_DEFAULT;
	int fd = open(mcz_path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		return MCZ_E_IO;
	}
	size_t idlen = strlen(ident), hl = head_len(idlen), len = (size_t)st.st_size;
	if (hl + len > max) { /* larger than the whole cache: not kept */
		close(fd);
		return MCZ_OK;
	}
	char dir[4096], path[4200];
	int rc = mcz_cachedir(dir, sizeof dir, 1);
	unsigned char *b = rc ? NULL : calloc(1, hl + len);
	if (!rc && !b)
		rc = MCZ_E_NOMEM;
	size_t got = 0;
	while (b && got < len) {
		ssize_t k = pread(fd, b + hl + got, len - got, (off_t)got);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	int shortread = !rc && got != len;
	if (shortread)
		rc = MCZ_E_IO;
	if (!rc) {
		memcpy(b, CACHE_MAGIC, 8);
		put32(b + 8, hl);
		put32(b + 12, idlen);
		put32(b + 16, (uint64_t)len);
		put32(b + 20, (uint64_t)len >> 32);
		put32(b + 24, crc32_z(0, b + hl, len));
		memcpy(b + CACHE_FIXED, ident, idlen);
		cache_evict(dir, key, hl + len, max);
		snprintf(path, sizeof path, "%s/%s", dir, key);
		rc = mcz_cachedir_write(path, b, hl + len);
	}
	free(b);
	if (rc && note) {
		/* the reason first: the line may be cut at the screen's edge */
		const char *why = shortread ? "the conversion read short" : mcz_errdetail();
		const char *colon = why ? strrchr(why, ':') : NULL;
		why = colon && colon[1] == ' ' ? colon + 2 : why;
		snprintf(note, notelen, "not kept in the cache: %s (%s)",
			 why && *why ? why : mcz_strerror(rc), rc == MCZ_E_NOMEM ? "memory" : dir);
	}
	return rc;
}
