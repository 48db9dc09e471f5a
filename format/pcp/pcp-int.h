/* pcp-int.h: what the files of libmczpcp (format/pcp/pcp-*.c) share among
 * themselves; not a public door (that is pcp.h).  Unit tests include
 * it to test the pieces: metric mapping, folio and path parsing, ssh URLs and
 * remote quoting.
 */
#ifndef MCZ_PCP_INT_H
#define MCZ_PCP_INT_H

#include <stddef.h>
#include <stdint.h>

#include <pcp/pmapi.h>

#include "pcp.h"

#include <signal.h>

/* Set (to the signal number) when SIGINT, SIGTERM or SIGHUP arrives during
 * pcp_import(): the fetch and convert loops stop and clean up (pcp-import.c). */
extern volatile sig_atomic_t pcp_import_stop;

/* ---- pcp-map.c: open-addressing hash, uint64 key -> uint32 value ---------- */

typedef struct pcp_map {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, n; /* cap: power of two; 0 = empty map */
} pcp_map;

/* Value of key in *val; returns 1 if found, 0 if not. */
int pcp_map_get(const pcp_map *m, uint64_t key, uint32_t *val);
/* Insert or replace; returns 0 or MCZ_E_NOMEM. */
int pcp_map_put(pcp_map *m, uint64_t key, uint32_t val);
void pcp_map_free(pcp_map *m);

/* ---- pcp-indom.c: instance names, one pmGetInDomArchive per domain -------- */

typedef struct pcp_indom_cache {
	pcp_map of_indom;          /* pmInDom -> index in v */
	struct pcp_indom_one *v;
	size_t nv;
} pcp_indom_cache;

/* Name of instance inst of indom in the current (archive) context; NULL if
 * the archive does not name it.  Owned by the cache. */
const char *pcp_indom_name(pcp_indom_cache *c, pmInDom indom, int inst);
void pcp_indom_free(pcp_indom_cache *c);

/* ---- pcp-metric.c: the --metrics filter ---------------------------------- */
/* (pcp_metric_kind_of() is declared in pcp.h: mcrec uses it too.) */

/* 1 if name matches one of the comma-separated globs of patterns (a pattern
 * without glob characters also matches its PMNS subtree: "kernel.all"
 * matches "kernel.all.load"); NULL or "" matches everything. */
int pcp_metric_match(const char *patterns, const char *name);

/* ---- pcp-path.c: naming archives ------------------------------------------ */

/* 1 if path starts with "ssh://". */
int pcp_path_is_ssh(const char *path);
/* Length of a PCP file suffix at the start of s (".meta", ".index", ".7",
 * each optionally followed by a compression suffix ".xz", ".gz", ".bz2",
 * ".zst", ".lzma") if it makes up all of s; 0 otherwise. */
size_t pcp_path_suffix_len(const char *s);
/* pcp_path_split() is in pcp.h (mcz import names its output with it). */
/* Parse a pmafm folio's text: the archives it lists, each joined to dir
 * (the folio's folder).  Returns 0, MCZ_E_CORRUPT (not a folio, or no
 * archive listed; err says which) or MCZ_E_NOMEM. */
int pcp_path_folio_parse(const char *text, size_t len, const char *dir, char ***archives,
			 size_t *n, char *err, size_t errlen);
/* If path is a folio file, its archives joined to join_dir (NULL: the
 * folio's folder) and 1; 0 if it is not a folio; negative on error. */
int pcp_path_folio(const char *path, const char *join_dir, char ***archives, size_t *n, char *err,
		   size_t errlen);
void pcp_path_free_list(char **v, size_t n);
/* "$TMPDIR/pattern" ("/tmp" without TMPDIR), malloc'd, for mkstemps/mkdtemp. */
char *pcp_path_temp(const char *pattern);

/* ---- pcp-cache.c: the viewer's conversions kept ---------------------------- */

/* The real paths of every file of the source src, one a line (malloc'd;
 * NULL for ssh:// or without memory): what an output must not be. */
char *pcp_cache_files(const char *src);
/* The cache entry's name for src ("pcp-<hash>.mcz", from its files' real
 * paths and the options) and its identity (every file's path, size and
 * mtime), both malloc'd; MCZ_E_ARG for ssh://, MCZ_E_NOTFOUND when a file
 * cannot be named. */
int pcp_cache_identity(const char *src, const pcp_import_opts *o, char **key, char **ident);
/* The identity without each file's whole-content CRC: what a viewer
 * compares every 2 s to see an archive grow (pcp_archive_stamp), read
 * from the head of each file only; _of: the same from a whole identity. */
char *pcp_cache_stamp(const char *src, const pcp_import_opts *o);
char *pcp_cache_stamp_of(const char *ident);
/* The same for an archive fetched from another host (ssh://) into dir: the
 * name from the URL and options, the identity from the fetched files'
 * names, sizes and CRCs (the remote times are not known here). */
int pcp_cache_identity_fetched(const char *url, const char *dir, const pcp_import_opts *o,
			       char **key, char **ident);
/* A reader over the entry key if it holds ident and its bytes are whole:
 * MCZ_OK, else MCZ_E_NOTFOUND (none, or no cache) or MCZ_E_CORRUPT. */
int pcp_cache_get(const char *key, const char *ident, const pcp_import_opts *o, mcz_reader **r);
/* The entry key made from this archive as it was before it grew
 * (pmlogger appended records or volumes; the same archive by its files'
 * first bytes): its recording copied to out_fd (when >= 0) to be
 * continued, and a reader over it in *r (when r): MCZ_OK, else
 * MCZ_E_NOTFOUND (no such entry, another archive, or no cache). */
int pcp_cache_grown(const char *key, const char *ident, const pcp_import_opts *o, int out_fd,
		    mcz_reader **r);
/* The entry key of src as it was before it grew, continued with what the
 * archive holds since into a new private temporary .mcz (*out_path, the
 * caller unlinks it); MCZ_E_NOTFOUND when there is no such entry, or
 * another error when it could not be continued (nothing is left). */
int pcp_import_extend(const char *src, const char *key, const char *ident,
		      const pcp_import_opts *o, char **out_path, char *err, size_t errlen);
/* MCZ_OK when entries can be kept (not turned off, the folder writable). */
int pcp_cache_writable(const pcp_import_opts *o);
/* Keep the recording at mcz_path as entry key, making room under the
 * bound; a failure is one line in note (when not NULL). */
int pcp_cache_put(const char *key, const char *ident, const char *mcz_path,
		  const pcp_import_opts *o, char *note, size_t notelen);

/* ---- pcp-import.c: an archive on another host shown (view) ------------------ */

/* Fetch url's archive, and open its conversion from the cache when the
 * fetched files are those it was made from, else convert and keep it.
 * MCZ_OK, or an error with one line in err. */
int pcp_ssh_view(const char *url, const pcp_import_opts *o, mcz_reader **r, char *err,
		 size_t errlen);

/* ---- pcp-behind.c: the whole archive converted behind the first screen ---- */

/* A process converting src into the cache entry key (pcp.h: first_ms): its
 * id, or 0 when it could not be started. */
int pcp_behind_start(const char *src, const pcp_import_opts *o, const char *key,
		     const char *ident);

/* ---- pcp-ssh.c: ssh://[user@]host[:port]/path ----------------------------- */

typedef struct pcp_ssh_url {
	char user[64];  /* "" = ssh's default (~/.ssh/config, $USER) */
	char host[256];
	int port;       /* 0 = ssh's default */
	char path[4096];/* "/abs/path" or, for "/~/x", the home-relative "x" */
} pcp_ssh_url;

int pcp_ssh_parse(const char *url, pcp_ssh_url *u, char *err, size_t errlen);
/* Fetch the archive(s) named by url into a new private folder: *tmpdir (to
 * give to pcp_ssh_cleanup) and the local archive names in *archives. */
int pcp_ssh_fetch(const char *url, const pcp_import_opts *o, char **tmpdir, char ***archives,
		  size_t *n, char *err, size_t errlen);
/* Remove the folder made by pcp_ssh_fetch and everything in it; frees tmpdir. */
void pcp_ssh_cleanup(char *tmpdir);

/* ---- pcp-pull.c: one ssh transfer ------------------------------------------ */

/* s single-quoted for a POSIX shell ("it's" -> 'it'\''s'); malloc'd.  The
 * only way a user's name enters the remote command line. */
char *pcp_pull_quote(const char *s);

/* Run ssh to u's host and copy into the local folder localdir the files of
 * the archive in remote folder DIR named alt (the name as the user gave it)
 * if alt.meta exists there, else base (alt without its volume suffix);
 * the base name used goes to chosen.  alt NULL: copy the one file DIR/BASE.
 * what names the source in progress lines and errors. */
int pcp_pull_run(const pcp_ssh_url *u, const pcp_import_opts *o, const char *dir,
		  const char *base, const char *alt, const char *localdir, const char *what,
		  char *chosen, size_t chosenlen, char *err, size_t errlen);

/* The same with the mode said: PCP_FETCH_EXACT (the file DIR/BASE),
 * PCP_FETCH_ARCHIVE (as above), PCP_FETCH_GLOB (every regular file of DIR
 * that the shell pattern BASE matches, e.g. "run.*.mcz"). */
enum { PCP_FETCH_EXACT, PCP_FETCH_ARCHIVE, PCP_FETCH_GLOB };
int pcp_pull_run_mode(const pcp_ssh_url *u, const pcp_import_opts *o, const char *dir,
		       const char *base, const char *alt, int mode, const char *localdir,
		       const char *what, char *chosen, size_t chosenlen, char *err, size_t errlen);

/* ssh://host/dir/PATTERN of .mcz recordings: every matching file fetched
 * into a private folder (*tmpdir, for pcp_ssh_cleanup); their local paths
 * in *files (malloc'd list of *n, pcp_path_free_list). */
int pcp_ssh_fetch_files(const char *url, const pcp_import_opts *o, char **tmpdir, char ***files,
			size_t *n, char *err, size_t errlen);
/* 1 if url is ssh:// and its last part names .mcz recordings (ends in
 * ".mcz", possibly a pattern): fetched as they are, not imported. */
int pcp_ssh_is_mcz(const char *url);

/* The same reading of the remote stream, over a buffer (tests, fuzzing):
 * files go to localdir; returns MCZ_OK when the stream is complete and
 * well-formed, else MCZ_E_CORRUPT with the reason in err. */
int pcp_pull_parse(const char *data, size_t len, const char *base, const char *alt,
		    const char *localdir, char *chosen, size_t chosenlen, char *err, size_t errlen);
int pcp_pull_parse_mode(const char *data, size_t len, const char *base, const char *alt,
			 int mode, const char *localdir, char *chosen, size_t chosenlen,
			 char *err, size_t errlen);

/* ---- pcp-archive.c: libpcp archive contexts, read in time order ---------- */

typedef struct pcp_archive {
	int ctx;                 /* libpcp context handle */
	char *name;              /* as opened: one archive, or a comma list of one host's */
	char host[PM_MAX_HOSTNAMELEN];
	char tz[PM_MAX_ZONEINFOLEN];
	int version;             /* archive format: 2 or 3 */
	int64_t start_ns, end_ns;/* label start and archive end, ns since the Unix epoch */
	pmHighResResult *next;   /* the next record; NULL once read to the end */
	int status;              /* 0, or the libpcp error that stopped reading early */
	int64_t last_ns;         /* time of the last record read */
	char *noindex_dir;       /* read without its unusable .index: a private folder of
				    links to its volumes and .meta (removed at close) */
	char note[200];          /* "" or what was worked around (the .index ignored) */
} pcp_archive;

/* Open every archive named (archives of one host share one context, so
 * libpcp joins their volumes and puts <mark>s between them), read each
 * one's label and first record.  On error err names the archive and libpcp's
 * reason. */
int pcp_archive_open_all(char *const *names, size_t n, pcp_archive **out, size_t *nout,
			 char *err, size_t errlen);
/* Index of the archive whose next record is earliest; -1 when all are read. */
int pcp_archive_earliest(const pcp_archive *a, size_t n);
/* Record time in ns since the Unix epoch. */
int64_t pcp_archive_ns(const struct timespec *ts);
/* Free a->next and read the following record (selects a's context). */
void pcp_archive_advance(pcp_archive *a);
void pcp_archive_close_all(pcp_archive *a, size_t n);
/* Place a so that its next record is the first after after_ns (by the
 * archive's .index); MCZ_E_IO when libpcp cannot. */
int pcp_archive_seek(pcp_archive *a, int64_t after_ns);

/* ---- pcp-topo.c: the importer's topology objects -------------------------- */
/* (the rule, pcp_topo_of(), is declared in pcp.h: mcrec uses it too.) */

/* The object pcp_topo_of() gave (type PU, NUMA, GPU or NIC, with its index
 * and instance) in objs[0..*n), a table whose root objs[0] is the machine:
 * found, else added under the root (*n grows; its name is malloc'ed) while
 * *n < cap.  Its id, or -1 (the table full, no memory). */
int32_t pcp_topo_object(mcz_topo_obj *objs, size_t *n, size_t cap, mcz_topo_type type, int index,
			const char *inst);

/* ---- pcp-convert.c --------------------------------------------------------- */

/* Convert local archives (folios expanded) into out_fd when it is >= 0,
 * else into out_path.  label names the source in messages and meta. */
/* Set only in pcp-behind.c's process (forked, its own), not in
 * pcp_import_opts, whose layout libmczpcp.so.1's users (Python's mcz)
 * share: its import puts the rows read so far into its file every
 * pcp_sync_ms of its time (PART blocks, mcz_writer_sync), so that the
 * viewer sees the file grow (pcp_pending_peek), and pcp_import_temp copies
 * that file's path into pcp_sync_name (pcp_sync_len bytes) first. */
extern int pcp_sync_ms;
extern char *pcp_sync_name;
extern size_t pcp_sync_len;

int pcp_convert(char *const *archives, size_t n, const char *label, const char *out_path,
		int out_fd, const pcp_import_opts *o, pcp_import_stats *stats, char *err,
		size_t errlen);
/* The recording at mcz_path, converted earlier from the same archive (one
 * archive, one host), continued with the records after its last row
 * (mcz_writer_resume): streams found again by metric and instance name,
 * 32-bit counters unwrapped on from their last values.  MCZ_E_STATE when
 * the recording is not this archive's start (another time 0). */
int pcp_convert_resume(char *const *archives, size_t n, const char *label, const char *mcz_path,
		       const pcp_import_opts *o, pcp_import_stats *stats, char *err, size_t errlen);

#endif
