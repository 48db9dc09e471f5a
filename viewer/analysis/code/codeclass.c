/* codeclass.c: the rules that tell work from waiting in a code sample
 * (codeclass.h): the built-in table, the user's file, and the match. */
#include "codeclass.h"

#include <ctype.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Sources: the object names of the MPI libraries and transports as Debian,
 * the vendors and Spack install them; the functions for the same code
 * linked statically.  Verbs providers are lib<name>-rdmav<N>.so, libfabric
 * providers lib<name>-fi.so. */
const char vw_codeclass_defaults[] =
	"# MPI libraries: Open MPI, MPICH, Intel MPI, Cray MPICH, MVAPICH, Spectrum MPI\n"
	"mpi   libmpi.so*\n"
	"mpi   libmpi_*.so*\n"
	"mpi   libmpich*.so*\n"
	"mpi   libmpifort.so*\n"
	"mpi   libmpicxx.so*\n"
	"mpi   libopen-pal.so*\n"
	"mpi   libopen-rte.so*\n"
	"mpi   libopen-orted-mpir.so*\n"
	"mpi   libprrte.so*\n"
	"mpi   mca_*.so\n"
	"mpi   libmca_common_*.so*\n"
	"# transports and process managers\n"
	"mpi   libucp.so*\n"
	"mpi   libuct.so*\n"
	"mpi   libuct_*.so*\n"
	"mpi   libucs.so*\n"
	"mpi   libucm.so*\n"
	"mpi   libfabric.so*\n"
	"mpi   lib*-fi.so\n"
	"mpi   libpsm2.so*\n"
	"mpi   libpsm_infinipath.so*\n"
	"mpi   libibverbs.so*\n"
	"mpi   lib*-rdmav*.so\n"
	"mpi   libmlx5.so*\n"
	"mpi   libhcoll.so*\n"
	"mpi   libxpmem.so*\n"
	"mpi   libpmix.so*\n"
	"mpi   libpmi.so*\n"
	"mpi   libpmi2.so*\n"
	"# OpenMP runtimes: their own time is barriers, waits and scheduling\n"
	"sync  libgomp.so*\n"
	"sync  libgomp-*.so*\n"
	"sync  libomp.so*\n"
	"sync  libiomp5.so*\n"
	"# the same code linked into the program\n"
	"mpi   *  MPI_*\n"
	"mpi   *  PMPI_*\n"
	"mpi   *  mpi_*_\n"
	"mpi   *  pmpi_*_\n"
	"mpi   *  MPIR_*\n"
	"mpi   *  MPID_*\n"
	"mpi   *  MPIDI_*\n"
	"mpi   *  MPIDU_*\n"
	"mpi   *  ompi_*\n"
	"mpi   *  opal_*\n"
	"mpi   *  ucp_*\n"
	"mpi   *  uct_*\n"
	"mpi   *  ucs_*\n"
	"mpi   *  fi_*\n"
	"mpi   *  psm2_*\n"
	"mpi   *  pmix_*\n"
	"mpi   *  PMIx_*\n"
	"sync  *  gomp_barrier_wait*\n"
	"sync  *  gomp_team_barrier_wait*\n"
	"sync  *  GOMP_barrier*\n"
	"sync  *  __kmp_*barrier*\n"
	"sync  *  __kmp_*wait*\n"
	"sync  *  __kmp_*yield*\n"
	"sync  *  __kmpc_barrier\n";

typedef struct cc_rule {
	int cls;
	char *obj, *fn;          /* fn NULL: any function */
	size_t obj_lit, fn_lit;  /* length of the pattern's literal start */
} cc_rule;

struct vw_codeclass {
	cc_rule *r;
	size_t n, cap;
	char note[256];
};

static size_t cc_literal(const char *pat)
{
	return strcspn(pat, "*?[\\");
}

/* The classes as the rules name them. */
static const char *const cc_names[VW_CC_N] = {"work", "mpi", "sync"};

static int cc_class(const char *w)
{
	for (int k = 0; k < VW_CC_N; k++)
		if (!strcasecmp(w, cc_names[k]))
			return k;
	return -1;
}

static void cc_note(vw_codeclass *cc, const char *origin, size_t line, const char *what)
{
	size_t at = strlen(cc->note);
	if (at + 4 >= sizeof cc->note)
		return;
	snprintf(cc->note + at, sizeof cc->note - at, "%s%s:%zu: %s", at ? "; " : "", origin, line,
		 what);
}

/* The next whitespace-separated word of *s, NUL-terminated in place. */
static char *cc_word(char **s)
{
	char *p = *s;
	while (*p && isspace((unsigned char)*p))
		p++;
	if (!*p)
		return *s = p, NULL;
	char *w = p;
	while (*p && !isspace((unsigned char)*p))
		p++;
	if (*p)
		*p++ = '\0';
	*s = p;
	return w;
}

static int cc_add(vw_codeclass *cc, int cls, const char *obj, const char *fn)
{
	if (cc->n == cc->cap) {
		size_t nc = cc->cap ? 2 * cc->cap : 64;
		cc_rule *nr = realloc(cc->r, nc * sizeof *nr);
		if (!nr)
			return -1;
		cc->r = nr;
		cc->cap = nc;
	}
	cc_rule *r = &cc->r[cc->n];
	r->cls = cls;
	r->obj = strdup(obj);
	r->fn = fn && strcmp(fn, "*") ? strdup(fn) : NULL;
	if (!r->obj || (fn && strcmp(fn, "*") && !r->fn)) {
		free(r->obj);
		free(r->fn);
		return -1;
	}
	r->obj_lit = cc_literal(obj);
	r->fn_lit = r->fn ? cc_literal(r->fn) : 0;
	cc->n++;
	return 0;
}

/* Rules of text into cc; lines that do not parse are named in the note. */
static int cc_parse_into(vw_codeclass *cc, const char *text, size_t len, const char *origin)
{
	size_t line = 0;
	for (size_t at = 0; at < len;) {
		size_t end = at;
		while (end < len && text[end] != '\n')
			end++;
		line++;
		char buf[512];
		size_t n = end - at;
		if (n >= sizeof buf) {
			cc_note(cc, origin, line, "line too long: left out");
			at = end + 1;
			continue;
		}
		memcpy(buf, text + at, n);
		buf[n] = '\0';
		at = end + 1;
		char *hash = strchr(buf, '#'), *s = buf;
		if (hash)
			*hash = '\0';
		char *w1 = cc_word(&s), *w2 = cc_word(&s), *w3 = cc_word(&s), *w4 = cc_word(&s);
		if (!w1)
			continue;
		int cls = cc_class(w1);
		char what[160];
		if (cls < 0) {
			snprintf(what, sizeof what, "unknown class \"%.40s\" (work, mpi or sync): left out",
				 w1);
			cc_note(cc, origin, line, what);
		} else if (!w2 || w4) {
			cc_note(cc, origin, line, "want CLASS OBJECT [FUNCTION]: left out");
		} else if (cc_add(cc, cls, w2, w3)) {
			return -1;
		}
	}
	return 0;
}

vw_codeclass *vw_codeclass_parse(const char *text, size_t len, const char *origin)
{
	vw_codeclass *cc = calloc(1, sizeof *cc);
	if (!cc)
		return NULL;
	if ((text && cc_parse_into(cc, text, len, origin ? origin : "rules")) ||
	    cc_parse_into(cc, vw_codeclass_defaults, sizeof vw_codeclass_defaults - 1, "built-in")) {
		vw_codeclass_free(cc);
		return NULL;
	}
	return cc;
}

/* The user's file: its path into buf, or "" when there is none to look at. */
static void cc_user_path(char *buf, size_t len)
{
	const char *e = getenv("MCZ_CODE_CLASSES"), *x = getenv("XDG_CONFIG_HOME"),
		   *h = getenv("HOME");
	buf[0] = '\0';
	if (e && *e)
		snprintf(buf, len, "%s", e);
	else if (x && *x == '/')
		snprintf(buf, len, "%s/mcz/code-classes", x);
	else if (h && *h)
		snprintf(buf, len, "%s/.config/mcz/code-classes", h);
}

vw_codeclass *vw_codeclass_load(void)
{
	char path[1024];
	cc_user_path(path, sizeof path);
	const char *env = getenv("MCZ_CODE_CLASSES");
	/* never blocks: a FIFO or a device in its place is not read */
	int fd = path[0] ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -2;
	}
	if (fd < 0) {
		vw_codeclass *cc = vw_codeclass_parse(NULL, 0, NULL);
		/* an absent file is a note only where the variable names it */
		if (cc && (fd == -2 || (env && *env)))
			snprintf(cc->note, sizeof cc->note, "%s: %s: the built-in code classes only",
				 path, fd == -2 ? "not a regular file" : "cannot be read");
		return cc;
	}
	size_t cap = 1 << 16; /* a rules file is small */
	char *text = malloc(cap + 1);
	ssize_t n = text ? read(fd, text, cap + 1) : 0;
	close(fd);
	size_t len = n > 0 ? (size_t)n : 0;
	int more = len > cap;
	vw_codeclass *cc = vw_codeclass_parse(text, more ? cap : len, path);
	if (cc && more)
		cc_note(cc, path, 0, "over 64 KiB: the rest left out");
	free(text);
	return cc;
}

void vw_codeclass_free(vw_codeclass *cc)
{
	if (!cc)
		return;
	for (size_t i = 0; i < cc->n; i++) {
		free(cc->r[i].obj);
		free(cc->r[i].fn);
	}
	free(cc->r);
	free(cc);
}

int vw_codeclass_of(const vw_codeclass *cc, const char *path, const char *fn)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	base = base ? base + 1 : path ? path : "";
	fn = fn ? fn : "";
	for (size_t i = 0; cc && i < cc->n; i++) {
		const cc_rule *r = &cc->r[i];
		/* the literal starts reject most rules without fnmatch */
		if (strncmp(base, r->obj, r->obj_lit) || (r->fn && strncmp(fn, r->fn, r->fn_lit)))
			continue;
		if (fnmatch(r->obj, base, 0) == 0 && (!r->fn || fnmatch(r->fn, fn, 0) == 0))
			return r->cls;
	}
	return VW_CC_WORK;
}

int vw_codeclass_rule(const vw_codeclass *cc, size_t i, char *buf, size_t len)
{
	if (!cc || i >= cc->n)
		return -1;
	const cc_rule *r = &cc->r[i];
	snprintf(buf, len, "%-5s %s%s%s", cc_names[r->cls], r->obj, r->fn ? "  " : "",
		 r->fn ? r->fn : "");
	return 0;
}

const char *vw_codeclass_note(const vw_codeclass *cc)
{
	return cc ? cc->note : "";
}

const char *vw_codeclass_name(int cls)
{
	return cls == VW_CC_MPI ? "MPI" : cls == VW_CC_SYNC ? "sync" : "work";
}
