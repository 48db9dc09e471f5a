/* code-name.c: the name people read for a function of the code profile
 * (mcz.h, SPEC.md 5.6), as `perf report` prints it: a C++ symbol (and a
 * Rust legacy one, which is Itanium-mangled with a hash) demangled by the
 * toolchain's demangler, libstdc++'s __cxa_demangle, and a compiler clone
 * (`.isra.0`, `.constprop.1`, `.part.0`, `.cold`, `.lto_priv.0`, clang's
 * `.llvm.N`) folded into its function.  Two forms: the full signature
 * (`LAMMPS_NS::PairLJCut::compute(int, int)`) for the readout and JSON,
 * and the brief one (`LAMMPS_NS::PairLJCut::compute`: no return type, no
 * parameters) for narrow columns.  A plain C name comes back as it is.
 *
 *     char full[512], brief[256];
 *     mcz_code_name("_ZN3qmc6WalkerIdE6branchEl.isra.0", full, sizeof full,
 *                   brief, sizeof brief);
 *     // full "qmc::Walker<double>::branch(long)", brief "qmc::Walker<double>::branch"
 *
 * Names are demangled when they are read, not when they are recorded: the
 * file keeps the symbol as the object gave it (the linkage name), so that
 * nothing is lost (overloads stay apart, a better demangler later reads
 * the same file better) and recordings made before this reads them too.
 */
#include <assert.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcz.h"

/* libstdc++'s demangler (extern "C" in cxxabi.h, which C cannot include),
 * loaded when the first mangled name is read, not linked: libstdc++ is
 * the largest library every mcz, mcview and mcrec would relocate at
 * start (a fifth of `mcz --version`), for names most runs never show.
 * Without libstdc++ the names stay as the object gave them. */
typedef char *(*name_demangle_fn)(const char *mangled, char *out, size_t *len, int *status);
static name_demangle_fn name_demangle;
static pthread_once_t name_once = PTHREAD_ONCE_INIT;

static void name_load(void)
{
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (h)
		*(void **)&name_demangle = dlsym(h, "__cxa_demangle");
}

static char *name_cxa_demangle(const char *mangled, int *status)
{
	pthread_once(&name_once, name_load);
	return name_demangle ? name_demangle(mangled, NULL, NULL, status) : NULL;
}

/* Suffixes GCC and clang give a copy of a function they specialised or
 * split: everything from the first of them on is dropped. */
static const char *const name_clones[] = {
	"isra", "constprop", "part", "cold", "lto_priv", "clone", "llvm", "localalias",
};

static void name_copy(char *out, size_t len, const char *s, size_t n)
{
	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

/* The length of sym without its clone suffixes and its symbol version
 * ("clock_gettime@@GLIBC_2.17"). */
static size_t name_fold(const char *sym)
{
	const char *at = strchr(sym, '@');
	size_t n = at && at > sym ? (size_t)(at - sym) : strlen(sym);
	for (const char *d = memchr(sym, '.', n); d; d = memchr(d + 1, '.', n - (size_t)(d + 1 - sym))) {
		if (d == sym)
			continue;
		for (size_t k = 0; k < sizeof name_clones / sizeof *name_clones; k++) {
			size_t w = strlen(name_clones[k]);
			if (!strncmp(d + 1, name_clones[k], w) && (d[1 + w] == '\0' || d[1 + w] == '.'))
				return (size_t)(d - sym);
		}
	}
	return n;
}

/* A Rust legacy symbol demangles to "path::h0123456789abcdef": the hash
 * is not part of the name (perf drops it too).  The length without it. */
static size_t name_rust_hash(const char *s, size_t n)
{
	if (n < 20 || strncmp(s + n - 19, "::h", 3))
		return n;
	for (size_t i = n - 16; i < n; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return n;
	return n - 19;
}

int mcz_code_name_brief(const char *full, char *out, size_t len)
{
	size_t n = strlen(full), end = n;
	/* the parameter list: the '(' matching the last ')', right after a name */
	const char *rp = strrchr(full, ')');
	if (rp && rp > full) {
		int depth = 0;
		for (const char *p = rp; p >= full; p--) {
			depth += *p == ')' ? 1 : *p == '(' ? -1 : 0;
			if (!depth) {
				if (p > full && p[-1] != ' ' && p[-1] != '(')
					end = (size_t)(p - full);
				break;
			}
		}
	}
	/* the return type (templates): up to the last space outside <> and ()
	 * before the name, which ends at an operator if it is one */
	size_t start = 0;
	int depth = 0;
	for (size_t i = 0; i < end; i++) {
		if (!strncmp(full + i, "operator", 8) && (i == 0 || full[i - 1] == ':' || full[i - 1] == ' '))
			break;
		if (full[i] == '<' || full[i] == '(')
			depth++;
		else if ((full[i] == '>' || full[i] == ')') && depth > 0)
			depth--;
		else if (full[i] == ' ' && !depth && end != n)
			start = i + 1;
	}
	name_copy(out, len, full + start, end - start);
	return end != n || start != 0;
}

int mcz_code_name(const char *sym, char *full, size_t fullsz, char *brief, size_t briefsz)
{
	assert(full && fullsz);
	if (!sym)
		sym = "";
	size_t n = name_fold(sym);
	char stack[512], *bare = n < sizeof stack ? stack : malloc(n + 1);
	int demangled = 0;
	if (!bare) {
		name_copy(full, fullsz, sym, n);
	} else {
		memcpy(bare, sym, n);
		bare[n] = '\0';
		int status = -1;
		char *d = n > 2 && bare[0] == '_' && bare[1] == 'Z' ? name_cxa_demangle(bare, &status)
								      : NULL;
		if (d && status == 0) {
			name_copy(full, fullsz, d, name_rust_hash(d, strlen(d)));
			demangled = 1;
		} else {
			name_copy(full, fullsz, bare, n);
		}
		free(d);
		if (bare != stack)
			free(bare);
	}
	if (brief && briefsz) {
		if (demangled)
			mcz_code_name_brief(full, brief, briefsz);
		else
			name_copy(brief, briefsz, full, strlen(full));
	}
	return demangled;
}

/* One frame's name appended to buf (u bytes used): ';' between frames, so
 * none inside a name, and no line break. */
static void frame_put(char *buf, size_t len, size_t *u, const char *name)
{
	if (*u && *u + 1 < len)
		buf[(*u)++] = ';';
	for (const char *p = name; *p && *u + 1 < len; p++)
		buf[(*u)++] = *p == ';' ? ':' : (*p == '\n' || *p == '\r') ? ' ' : *p;
	buf[*u] = '\0';
}

size_t mcz_code_loc_frames(const mcz_code *c, size_t loc, char *buf, size_t len)
{
	if (!len)
		return 0;
	buf[0] = '\0';
	if (!c || loc >= c->nlocs)
		return 0;
	const mcz_code_loc *l = &c->locs[loc];
	char full[512], brief[512];
	size_t u = 0, n = 0;
	if (!l->function[0]) {
		const char *obj = l->object < c->nobjects ? c->objects[l->object].path : "?";
		const char *base = strrchr(obj, '/');
		snprintf(brief, sizeof brief, "[%s]", base ? base + 1 : obj);
		frame_put(buf, len, &u, brief);
		return 1;
	}
	/* "the functions it is inlined into, innermost first": outermost first here */
	const char *part[64];
	size_t plen[64], nin = 0;
	for (const char *in = l->inlined; in && *in && nin < 64;) {
		const char *e = strchr(in, ';');
		part[nin] = in;
		plen[nin++] = e ? (size_t)(e - in) : strlen(in);
		in = e ? e + 1 : NULL;
	}
	while (nin-- > 0) {
		char sym[512];
		snprintf(sym, sizeof sym, "%.*s", (int)plen[nin], part[nin]);
		mcz_code_name(sym, full, sizeof full, brief, sizeof brief);
		frame_put(buf, len, &u, brief);
		n++;
	}
	mcz_code_name(l->function, full, sizeof full, brief, sizeof brief);
	frame_put(buf, len, &u, brief);
	return n + 1;
}
