/* code-sym.c: symbolization of the code profile at the end of a recording
 * (elfutils libdwfl/libdw), so that the file names its code without the
 * binaries: per (object, file offset), the innermost function — the
 * inlined one where DWARF says so, as `perf report --inline` — the chain
 * of functions it is inlined into, and file:line; the symbol table when
 * there is no DWARF; object+offset last.  One Dwfl per object, opened
 * once; distinct offsets are symbolized once each (the cells are sorted by
 * interval, so a table maps (object, offset) to its location).  Locations
 * that name the same place are merged; without DWARF, offsets are binned
 * into 64-byte regions so that phase detection still sees where the code
 * ran (SPEC.md 5.6, issue 16).
 */
#include "code-prof.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Bytes of code one location stands for when only an address is known. */
#define SYM_REGION 64
/* Debug info is read for an object with SYM_DWARF_MIN samples, or with
 * SYM_DWARF_FEW and 0.5 % of them: libdw decompresses every .debug_*
 * section of an object it opens (libc's is a large zlib job), which a sample
 * or two of `sleep` in libc is not worth; their functions come from the
 * symbol table, as `perf report` gives them without --inline. */
#define SYM_DWARF_MIN 50
#define SYM_DWARF_FEW 10

/* An (object, offset) to symbolize, and the location it became. */
typedef struct sym_addr {
	uint32_t obj;
	uint64_t off;
	uint32_t loc;
} sym_addr;

/* A hash of locations by their text, to merge equal ones. */
typedef struct sym_tab {
	uint32_t *slot; /* loc + 1, 0 empty */
	size_t nslot;
} sym_tab;

static char *sym_keep(code_sym_out *o, const char *s)
{
	if (o->nstrs == o->cap_strs) {
		size_t nc = o->cap_strs ? 2 * o->cap_strs : 256;
		char **n = realloc(o->strs, nc * sizeof *n);
		if (!n)
			return NULL;
		o->strs = n;
		o->cap_strs = nc;
	}
	char *d = strdup(s ? s : "");
	if (d)
		o->strs[o->nstrs++] = d;
	return d;
}

static uint64_t sym_hash_loc(const mcz_code_loc *l)
{
	uint64_t h = 1469598103934665603ULL ^ l->object ^ ((uint64_t)l->line << 32) ^ l->how;
	const char *parts[3] = {l->function, l->inlined, l->file};
	for (int k = 0; k < 3; k++)
		for (const char *s = parts[k]; *s; s++)
			h = (h ^ (uint8_t)*s) * 1099511628211ULL;
	if (l->how == MCZ_CODE_ADDR || (l->how == MCZ_CODE_SYMTAB))
		h ^= l->offset * 0x9e3779b97f4a7c15ULL;
	return h;
}

static int sym_same(const mcz_code_loc *a, const mcz_code_loc *b)
{
	if (a->object != b->object || a->how != b->how || a->line != b->line ||
	    strcmp(a->function, b->function) || strcmp(a->inlined, b->inlined) ||
	    strcmp(a->file, b->file))
		return 0;
	/* without DWARF, the 64-byte region is part of the place */
	return a->how == MCZ_CODE_DWARF || a->offset == b->offset;
}

/* Find or add location l (strings not yet kept); its index in *id. */
static int sym_loc(code_sym_out *o, size_t *nlocs, size_t *cap, sym_tab *tab,
		   const mcz_code_loc *l, uint32_t *id)
{
	if ((*nlocs + 1) * 2 > tab->nslot) {
		size_t ns = tab->nslot ? tab->nslot * 2 : 1024;
		uint32_t *s = calloc(ns, sizeof *s);
		if (!s)
			return -1;
		for (size_t i = 0; i < *nlocs; i++) {
			size_t j = sym_hash_loc(&o->locs[i]) & (ns - 1);
			while (s[j])
				j = (j + 1) & (ns - 1);
			s[j] = (uint32_t)i + 1;
		}
		free(tab->slot);
		tab->slot = s;
		tab->nslot = ns;
	}
	size_t j = sym_hash_loc(l) & (tab->nslot - 1);
	for (; tab->slot[j]; j = (j + 1) & (tab->nslot - 1))
		if (sym_same(&o->locs[tab->slot[j] - 1], l)) {
			*id = tab->slot[j] - 1;
			return 0;
		}
	if (*nlocs == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		mcz_code_loc *n = realloc(o->locs, nc * sizeof *n);
		if (!n)
			return -1;
		o->locs = n;
		*cap = nc;
	}
	mcz_code_loc k = *l;
	k.function = sym_keep(o, l->function);
	k.inlined = sym_keep(o, l->inlined);
	k.file = sym_keep(o, l->file);
	if (!k.function || !k.inlined || !k.file)
		return -1;
	o->locs[*nlocs] = k;
	tab->slot[j] = (uint32_t)*nlocs + 1;
	*id = (uint32_t)(*nlocs)++;
	return 0;
}

/* One object opened for symbolization. */
/* The function scopes of one compile unit, read once: every subprogram
 * and inlined_subroutine DIE with its enclosing one, and their address
 * ranges sorted by start, each with the nearest range that contains it.
 * dwarf_getscopes walks the unit from its root for every address, which is
 * quadratic over a large binary (bench-code.sh); this walks it once, and an address
 * then climbs from the last range starting at or before it. */
typedef struct sym_node {
	Dwarf_Die die;
	int parent;       /* enclosing node, -1 */
	int tag;
} sym_node;

typedef struct sym_range {
	Dwarf_Addr lo, hi;
	int node;
	int up;           /* nearest earlier range containing this one, -1 */
	int depth;
} sym_range;

typedef struct sym_cu {
	Dwarf_Off off;    /* the unit's DIE offset */
	sym_node *node;
	size_t nnode, capnode;
	sym_range *range;
	size_t nrange, caprange;
	int oom;
} sym_cu;

typedef struct sym_obj {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;   /* module address = ELF vaddr + bias */
	Elf *elf;
	int dwarf;        /* 1: has DWARF */
	const char *why;  /* why it has no symbols, or NULL */
	/* the last symbol found: addresses come sorted, most fall in it */
	GElf_Addr fn_lo, fn_hi;
	const char *fn_name;
	sym_cu *cu;       /* units read so far */
	size_t ncu;
} sym_obj;

/* debuginfod: libdwfl's search asks the servers of DEBUGINFOD_URLS
 * (through libdebuginfod) for the debug file of an object that has none
 * on this host.  libdebuginfod waits DEBUGINFOD_TIMEOUT seconds (90 by
 * default) for a server that does not answer, per query, and an object
 * makes several (symbols, DWARF), so one object waits a multiple of it.  So
 * mcrec sets DEBUGINFOD_TIMEOUT when the user did not, and its own
 * progress callback ends an object's search that has received nothing
 * within that time, and every search after it (the objects are named by
 * their object, the note says why).  A download that makes progress is
 * not cut (DEBUGINFOD_MAXTIME, when the user sets it, is). */
#define SYM_DEBUGINFOD_TIMEOUT "5"

static double sym_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct {
	int on;          /* DEBUGINFOD_URLS set and not given up */
	double timeout;  /* s */
	double seconds;  /* spent opening objects (searches that may ask a server) */
	unsigned asked, found; /* objects opened so; debug files that came from one */
	int gave_up;
	double t_open;   /* when the object being opened began */
} sym_dbg;

/* libdebuginfod's progress callback (debuginfod.h, a public API; the
 * header is not installed with libdw's): a non-zero return ends the
 * transfer.  Called while a query waits, about once a second. */
typedef int (*sym_progressfn)(debuginfod_client *c, long a, long b);

/* A server that has not answered within the bound since the object's
 * search began is not waited for, nor asked again; a transfer under way
 * goes on. */
static int sym_dbg_progress(debuginfod_client *c, long a, long b)
{
	(void)c, (void)a;
	if (!sym_dbg.on)
		return 1;
	/* b: the size of the file, once the server has answered (a counts
	 * the waits until then) */
	if (b <= 0 && sym_now() - sym_dbg.t_open >= sym_dbg.timeout) {
		sym_dbg.gave_up = 1;
		sym_dbg.on = 0;
		return 1;
	}
	return 0;
}

/* Put the bound on the Dwfl's debuginfod client (none: nothing to bound). */
static void sym_dbg_bound(Dwfl *dwfl)
{
	debuginfod_client *c = sym_dbg.on || sym_dbg.gave_up ? dwfl_get_debuginfod_client(dwfl) : NULL;
	void *h = c ? dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_NOLOAD) : NULL;
	void (*set)(debuginfod_client *, sym_progressfn) = NULL;
	if (h)
		*(void **)&set = dlsym(h, "debuginfod_set_progressfn");
	if (set)
		set(c, sym_dbg_progress);
	if (h)
		dlclose(h);
}

/* Whether libdebuginfod's cache holds the debug file of build-id hex
 * (a server gave it, in this run or before). */
static int sym_dbg_cached(const char *hex)
{
	const char *cache = getenv("DEBUGINFOD_CACHE_PATH"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char path[4200];
	if (cache && cache[0])
		snprintf(path, sizeof path, "%s/%s/debuginfo", cache, hex);
	else if (xdg && xdg[0])
		snprintf(path, sizeof path, "%s/debuginfod_client/%s/debuginfo", xdg, hex);
	else
		snprintf(path, sizeof path, "%s/.cache/debuginfod_client/%s/debuginfo",
			 home ? home : "", hex);
	struct stat st; /* a failed query leaves an empty file there */
	return hex[0] && stat(path, &st) == 0 && st.st_size > 0;
}

/* After object so was opened in dt seconds: whether its debug file came
 * from a server (libdebuginfod's cache holds it). */
static void sym_dbg_after(const sym_obj *so, double dt)
{
	if (!sym_dbg.on && !sym_dbg.gave_up)
		return;
	char hex[41] = "";
	const unsigned char *bits;
	GElf_Addr bva;
	int nb = so->mod ? dwfl_module_build_id(so->mod, &bits, &bva) : 0;
	for (int j = 0; j < nb && j < 20; j++)
		snprintf(hex + 2 * j, 3, "%02x", bits[j]);
	sym_dbg.seconds += dt;
	sym_dbg.asked++;
	sym_dbg.found += sym_dbg_cached(hex);
}

static const Dwfl_Callbacks sym_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* Before the objects are read: whether a server may be asked, within what bound. */
static void sym_dbg_start(void)
{
	memset(&sym_dbg, 0, sizeof sym_dbg);
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (!urls || !urls[0])
		return;
	/* the command has ended: what mcrec sets here reaches no one else */
	setenv("DEBUGINFOD_TIMEOUT", SYM_DEBUGINFOD_TIMEOUT, 0);
	sym_dbg.timeout = atof(getenv("DEBUGINFOD_TIMEOUT"));
	if (sym_dbg.timeout <= 0)
		sym_dbg.timeout = 90; /* libdebuginfod's default */
	sym_dbg.on = 1;
}

static void sym_open(const code_obj *co, sym_obj *so, int want_dwarf)
{
	memset(so, 0, sizeof *so);
	if (!co->file) {
		so->why = "no file (anonymous or JIT code)";
		return;
	}
	/* the file as it was when first mapped (held open since), else by name */
	int fd = co->fd >= 0 ? dup(co->fd) : -1;
	if (fd < 0 && access(co->path, R_OK) != 0) {
		so->why = "gone at the end of the recording (deleted or replaced during the run)";
		return;
	}
	so->dwfl = dwfl_begin(&sym_callbacks);
	if (!so->dwfl) {
		if (fd >= 0)
			close(fd);
		return;
	}
	sym_dbg_bound(so->dwfl);
	dwfl_report_begin(so->dwfl);
	so->mod = dwfl_report_elf(so->dwfl, co->path, co->path, fd, 0, false);
	dwfl_report_end(so->dwfl, NULL, NULL);
	if (!so->mod && fd >= 0)
		close(fd);
	/* a file replaced by another before it was opened: not the code that ran */
	const unsigned char *bits;
	GElf_Addr bva;
	int nb = so->mod && co->build_id[0] ? dwfl_module_build_id(so->mod, &bits, &bva) : 0;
	if (nb > 0) {
		char hex[41] = "";
		for (int j = 0; j < nb && j < 20; j++)
			snprintf(hex + 2 * j, 3, "%02x", bits[j]);
		if (strcmp(hex, co->build_id) != 0) {
			dwfl_end(so->dwfl);
			memset(so, 0, sizeof *so);
			so->why = "replaced during the run (its build-id differs from the one mapped)";
			return;
		}
	}
	if (!so->mod) {
		so->why = "not an ELF file this libdwfl reads";
		return;
	}
	so->elf = dwfl_module_getelf(so->mod, &so->bias);
	Dwarf_Addr dbias;
	so->dwarf = want_dwarf && dwfl_module_getdwarf(so->mod, &dbias) != NULL;
	if (dwfl_module_getsymtab(so->mod) <= 0 && !so->dwarf)
		so->why = "stripped (no symbols, no debug info)";
}

static void sym_close(sym_obj *so)
{
	for (size_t i = 0; i < so->ncu; i++) {
		free(so->cu[i].node);
		free(so->cu[i].range);
	}
	free(so->cu);
	if (so->dwfl)
		dwfl_end(so->dwfl);
	memset(so, 0, sizeof *so);
}

static int sym_grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? 2 * *cap : 64;
	void *q = realloc(*p, nc * size);
	if (!q)
		return -1;
	*p = q;
	*cap = nc;
	return 0;
}

/* Every function scope under d (children, recursively), enclosed by node
 * parent at depth. */
static void sym_cu_walk(sym_cu *u, Dwarf_Die *d, int parent, int depth)
{
	Dwarf_Die c;
	if (u->oom || dwarf_child(d, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c), me = parent;
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			if (sym_grow((void **)&u->node, &u->capnode, u->nnode, sizeof *u->node)) {
				u->oom = 1;
				return;
			}
			me = (int)u->nnode;
			u->node[u->nnode++] = (sym_node){c, parent, tag};
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			while ((off = dwarf_ranges(&c, off, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				if (sym_grow((void **)&u->range, &u->caprange, u->nrange,
					     sizeof *u->range)) {
					u->oom = 1;
					return;
				}
				u->range[u->nrange++] = (sym_range){lo, hi, me, -1, depth};
			}
		}
		sym_cu_walk(u, &c, me, me != parent ? depth + 1 : depth);
	} while (!u->oom && dwarf_siblingof(&c, &c) == 0);
}

static int sym_range_cmp(const void *a, const void *b)
{
	const sym_range *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1; /* the wider (outer) first */
	return (x->depth > y->depth) - (x->depth < y->depth);
}

/* The scope table of the unit cudie (read on first use); NULL out of memory. */
static sym_cu *sym_cu_get(sym_obj *so, Dwarf_Die *cudie)
{
	Dwarf_Off off = dwarf_dieoffset(cudie);
	for (size_t i = so->ncu; i-- > 0;)
		if (so->cu[i].off == off)
			return so->cu[i].oom ? NULL : &so->cu[i];
	sym_cu *nc = realloc(so->cu, (so->ncu + 1) * sizeof *nc);
	if (!nc)
		return NULL;
	so->cu = nc;
	sym_cu *u = &so->cu[so->ncu++];
	memset(u, 0, sizeof *u);
	u->off = off;
	sym_cu_walk(u, cudie, -1, 0);
	if (u->nrange)
		qsort(u->range, u->nrange, sizeof *u->range, sym_range_cmp);
	/* the nearest earlier range containing each (ranges nest) */
	int *stack = malloc((u->nrange + 1) * sizeof *stack);
	size_t top = 0;
	if (!stack)
		u->oom = 1;
	for (size_t i = 0; stack && i < u->nrange; i++) {
		while (top && u->range[stack[top - 1]].hi < u->range[i].hi)
			top--;
		u->range[i].up = top ? stack[top - 1] : -1;
		stack[top++] = (int)i;
	}
	free(stack);
	return u->oom ? NULL : u;
}

/* The innermost function scope containing a (unit addresses), -1 none. */
static int sym_cu_find(const sym_cu *u, Dwarf_Addr a)
{
	size_t lo = 0, hi = u->nrange;
	while (lo < hi) { /* the first range starting after a */
		size_t mid = lo + (hi - lo) / 2;
		if (u->range[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int r = (int)lo - 1; r >= 0; r = u->range[r].up)
		if (a < u->range[r].hi)
			return u->range[r].node;
	return -1;
}

/* The ELF virtual address of file offset off, 0 with *ok = 0 if none. */
static GElf_Addr sym_vaddr(Elf *elf, uint64_t off, int *ok)
{
	size_t n;
	*ok = 0;
	if (!elf || elf_getphdrnum(elf, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
			*ok = 1;
			return off - ph.p_offset + ph.p_vaddr;
		}
	}
	return 0;
}

/* The name of a function DIE (following abstract_origin / specification):
 * its linkage name where it has one (C++, Rust: "_ZN3qmc6WalkerIdE5driftEv",
 * as the symbol table says it, where DW_AT_name says only "drift"), kept
 * mangled and demangled by readers (format/code/code-name.c); else its name. */
static const char *sym_die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *n = NULL;
	if (dwarf_attr_integrate(d, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (!n && dwarf_attr_integrate(d, DW_AT_name, &a))
		n = dwarf_formstring(&a);
	return n;
}

/* Fill l (strings in buf) for module address a. */
static void sym_one(sym_obj *so, GElf_Addr a, mcz_code_loc *l, char *inl, size_t inlsz)
{
	GElf_Off soff;
	GElf_Sym sym;
	const char *name = so->fn_name;
	if (!name || a < so->fn_lo || a >= so->fn_hi) {
		name = dwfl_module_addrinfo(so->mod, a, &soff, &sym, NULL, NULL, NULL);
		so->fn_name = name && sym.st_size ? name : NULL;
		so->fn_lo = a - soff;
		so->fn_hi = a - soff + sym.st_size;
	}
	if (name) {
		l->function = name;
		l->how = MCZ_CODE_SYMTAB;
	}
	inl[0] = 0;
	if (!so->dwarf)
		return;
	Dwfl_Line *line = dwfl_module_getsrc(so->mod, a);
	int lineno = 0;
	const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
	Dwarf_Addr dbias;
	Dwarf_Die *cudie = dwfl_module_addrdie(so->mod, a, &dbias);
	sym_cu *u = cudie ? sym_cu_get(so, cudie) : NULL;
	int nf = 0;
	size_t used = 0;
	/* the innermost named function scope; an inlined one's enclosing
	 * scopes are the functions it is inlined into, up to the subprogram */
	for (int n = u ? sym_cu_find(u, a - dbias) : -1; n >= 0 && !nf; n = u->node[n].parent) {
		const char *fn = sym_die_name(&u->node[n].die);
		if (!fn)
			continue;
		l->function = fn;
		nf = 1;
		if (u->node[n].tag != DW_TAG_inlined_subroutine)
			break;
		for (int o = u->node[n].parent; o >= 0; o = u->node[o].parent) {
			const char *cn = sym_die_name(&u->node[o].die);
			if (cn && used + strlen(cn) + 2 < inlsz)
				used += (size_t)snprintf(inl + used, inlsz - used, "%s%s", used ? ";" : "",
							 cn);
			if (u->node[o].tag == DW_TAG_subprogram)
				break;
		}
	}
	if (file || nf) {
		l->how = MCZ_CODE_DWARF;
		l->file = file ? file : "";
		l->line = lineno > 0 ? (uint32_t)lineno : 0;
	}
}

static int sym_addr_cmp(const void *a, const void *b)
{
	const sym_addr *x = a, *y = b;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Add "path: why" to the note. */
static void sym_note(code_sym_out *out, const char *a, const char *b)
{
	size_t u = strlen(out->note);
	if (u + 8 < sizeof out->note)
		snprintf(out->note + u, sizeof out->note - u, "%s%s: %s", u ? "; " : "", a, b);
}

static int sym_edge_cmp(const void *a, const void *b)
{
	const mcz_code_edge *x = a, *y = b;
	if (x->loc != y->loc)
		return x->loc < y->loc ? -1 : 1;
	return x->caller < y->caller ? -1 : x->caller > y->caller;
}

static int sym_thit_cmp(const void *a, const void *b)
{
	const mcz_code_thit *x = a, *y = b;
	return x->loc < y->loc ? -1 : x->loc > y->loc;
}

static int sym_hit_cmp(const void *a, const void *b)
{
	const mcz_code_hit *x = a, *y = b;
	return x->loc < y->loc ? -1 : x->loc > y->loc;
}

/* Find (obj, off) in the sorted table. */
static uint32_t sym_find(const sym_addr *t, size_t n, uint32_t obj, uint64_t off)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t[mid].obj < obj || (t[mid].obj == obj && t[mid].off < off))
			lo = mid + 1;
		else
			hi = mid;
	}
	return t[lo].loc;
}

/* The stacks' frames over locations: each (parent, location) once, in an
 * open-addressing table of size cap (a power of two, over twice the
 * frames). */
typedef struct sym_frames {
	mcz_code_frame *v;
	size_t n, cap_v;
	uint32_t *slot; /* index + 1, 0 free */
	size_t cap;
} sym_frames;

static int sym_frame(sym_frames *f, uint32_t parent, uint32_t loc, uint32_t *id)
{
	if (2 * (f->n + 1) > f->cap) {
		size_t nc = f->cap ? 2 * f->cap : 1024;
		uint32_t *ns = calloc(nc, sizeof *ns);
		if (!ns)
			return -1;
		for (size_t i = 0; i < f->n; i++) {
			uint64_t h = ((uint64_t)f->v[i].parent << 32 | f->v[i].loc) * 0x9e3779b97f4a7c15ULL;
			size_t k = (h >> 7) & (nc - 1);
			while (ns[k])
				k = (k + 1) & (nc - 1);
			ns[k] = (uint32_t)i + 1;
		}
		free(f->slot);
		f->slot = ns;
		f->cap = nc;
	}
	uint64_t h = ((uint64_t)parent << 32 | loc) * 0x9e3779b97f4a7c15ULL;
	size_t k = (h >> 7) & (f->cap - 1);
	for (; f->slot[k]; k = (k + 1) & (f->cap - 1)) {
		const mcz_code_frame *x = &f->v[f->slot[k] - 1];
		if (x->parent == parent && x->loc == loc) {
			*id = f->slot[k] - 1;
			return 0;
		}
	}
	if (f->n + 1 > f->cap_v) {
		size_t nc = f->cap_v ? 2 * f->cap_v : 256;
		mcz_code_frame *nv = realloc(f->v, nc * sizeof *nv);
		if (!nv)
			return -1;
		f->v = nv;
		f->cap_v = nc;
	}
	f->v[f->n] = (mcz_code_frame){parent, loc};
	f->slot[k] = (uint32_t)f->n + 1;
	*id = (uint32_t)f->n++;
	return 0;
}

static int sym_stackhit_cmp(const void *a, const void *b)
{
	const mcz_code_stackhit *x = a, *y = b;
	if (x->interval != y->interval)
		return x->interval < y->interval ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/* The call stacks of p's cells over the named locations: the recorder's
 * frames (parents first) mapped to frames of locations, where two
 * addresses of one line become one frame; each cell's sampled location a
 * frame under its callers'. */
static int sym_stacks(const code_prof *p, const sym_addr *ad, size_t na, code_sym_out *out,
		      size_t *nframes, size_t *nhits)
{
	sym_frames f = {0};
	uint32_t *map = malloc((p->nframes ? p->nframes : 1) * sizeof *map);
	mcz_code_stackhit *h = malloc((p->ncells ? p->ncells : 1) * sizeof *h);
	int rc = !map || !h;
	for (size_t i = 0; i < p->nframes && !rc; i++) {
		const code_frame *x = &p->frames[i];
		uint32_t par = x->parent == UINT32_MAX ? MCZ_CODE_ROOT : map[x->parent];
		rc = sym_frame(&f, par, sym_find(ad, na, x->obj, x->off), &map[i]);
	}
	size_t n = 0;
	for (size_t i = 0, ivx = 0; i < p->ncells && !rc; i++) {
		const code_cell *x = &p->cells[i];
		if (i && x->iv != p->cells[i - 1].iv)
			ivx++;
		uint32_t leaf;
		rc = sym_frame(&f, x->stk == UINT32_MAX ? MCZ_CODE_ROOT : map[x->stk],
			       sym_find(ad, na, x->obj, x->off), &leaf);
		h[n++] = (mcz_code_stackhit){(uint32_t)ivx, p->nthreads ? x->thr : 0, leaf,
					     x->count > UINT32_MAX ? UINT32_MAX : (uint32_t)x->count};
	}
	if (!rc && n)
		qsort(h, n, sizeof *h, sym_stackhit_cmp);
	size_t m = 0;
	for (size_t a = 0; a < n && !rc; a++) {
		if (m && !sym_stackhit_cmp(&h[m - 1], &h[a])) {
			uint64_t s = (uint64_t)h[m - 1].count + h[a].count;
			h[m - 1].count = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
		} else {
			h[m++] = h[a];
		}
	}
	free(map), free(f.slot);
	if (rc) {
		free(f.v), free(h);
		return -1;
	}
	out->frames = f.v;
	out->stackhits = h;
	*nframes = f.n;
	*nhits = m;
	return 0;
}

int code_sym_run(code_prof *p, int64_t t_origin, int64_t interval_ns, mcz_code *c,
		 code_sym_out *out)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(out, 0, sizeof *out);
	code_prof_compact(p);
	elf_version(EV_CURRENT);
	/* the distinct (object, offset) pairs, samples' and callers' */
	sym_addr *ad = malloc((2 * p->ncells + p->nframes + 1) * sizeof *ad);
	if (!ad)
		return -1;
	size_t na = 0;
	for (size_t i = 0; i < p->ncells; i++) {
		ad[na++] = (sym_addr){p->cells[i].obj, p->cells[i].off, 0};
		if (p->cells[i].cobj != UINT32_MAX)
			ad[na++] = (sym_addr){p->cells[i].cobj, p->cells[i].coff, 0};
	}
	for (size_t i = 0; i < p->nframes; i++)
		ad[na++] = (sym_addr){p->frames[i].obj, p->frames[i].off, 0};
	if (na) /* an empty array may be NULL */
		qsort(ad, na, sizeof *ad, sym_addr_cmp);
	size_t k = 0;
	for (size_t i = 0; i < na; i++)
		if (!k || sym_addr_cmp(&ad[k - 1], &ad[i]))
			ad[k++] = ad[i];
	na = k;
	out->naddrs = na;
	sym_dbg_start();

	out->objects = calloc(p->nobjs ? p->nobjs : 1, sizeof *out->objects);
	if (!out->objects) {
		free(ad);
		return -1;
	}
	size_t nlocs = 0, cap = 0;
	sym_tab tab = {0};
	int rc = 0;
	for (size_t i = 0; i < p->nobjs && !rc; i++) {
		out->objects[i].path = sym_keep(out, p->objs[i].path);
		out->objects[i].build_id = sym_keep(out, p->objs[i].build_id);
		out->objects[i].note = "";
		if (!out->objects[i].path || !out->objects[i].build_id)
			rc = -1;
	}
	/* Debug info only where the samples are: libdw decompresses every
	 * .debug_* section of an object when it opens it (libc's debug file:
	 * a large zlib job), which a library hit by 1 sample of a sleeping
	 * command does not repay; its functions come from the symbol table,
	 * as perf report gives them without --inline or srcline.  An object
	 * counts the samples it was the caller's place of too. */
	uint64_t *nobj = calloc(p->nobjs ? p->nobjs : 1, sizeof *nobj), total = 0;
	for (size_t i = 0; nobj && i < p->ncells; i++) {
		nobj[p->cells[i].obj] += p->cells[i].count;
		if (p->cells[i].cobj != UINT32_MAX && p->cells[i].cobj != p->cells[i].obj)
			nobj[p->cells[i].cobj] += p->cells[i].count; /* as the caller's place */
		total += p->cells[i].count;
	}
	char inl[512];
	for (size_t i = 0; i < na && !rc;) {
		uint32_t obj = ad[i].obj;
		const code_obj *co = &p->objs[obj];
		sym_obj so;
		int few = nobj && nobj[obj] < SYM_DWARF_MIN &&
			  (nobj[obj] < SYM_DWARF_FEW || nobj[obj] * 200 < total);
		sym_dbg.t_open = sym_now();
		sym_open(co, &so, !few);
		sym_dbg_after(&so, sym_now() - sym_dbg.t_open);
		const unsigned char *bits;
		GElf_Addr bva;
		int nb = so.mod && !co->build_id[0] ? dwfl_module_build_id(so.mod, &bits, &bva) : 0;
		if (nb > 0 && nb <= 20) {
			char hex[41];
			for (int j = 0; j < nb; j++)
				snprintf(hex + 2 * j, 3, "%02x", bits[j]);
			const char *id = sym_keep(out, hex);
			if (id)
				out->objects[obj].build_id = id;
		}
		size_t named = 0;
		for (; i < na && ad[i].obj == obj && !rc; i++) {
			mcz_code_loc l = {obj, ad[i].off, MCZ_CODE_ADDR, "", "", "", 0};
			int ok = 0;
			GElf_Addr va = so.mod ? sym_vaddr(so.elf, ad[i].off, &ok) : 0;
			if (ok) {
				l.offset = va;
				sym_one(&so, va + so.bias, &l, inl, sizeof inl);
				l.inlined = inl;
			}
			if (l.how != MCZ_CODE_DWARF)
				l.offset -= l.offset % SYM_REGION;
			named += l.how != MCZ_CODE_ADDR;
			rc = sym_loc(out, &nlocs, &cap, &tab, &l, &ad[i].loc);
		}
		if (!so.why && so.mod && !named)
			so.why = "stripped (no symbol covers its sampled code)";
		if (so.why) {
			sym_note(out, co->path, so.why);
			out->objects[obj].note = so.why; /* static text */
		} else if (!so.dwarf && few) {
			out->objects[obj].note = "few samples: functions from the symbol table (debug "
						 "info not read)";
		} else if (!so.dwarf) {
			out->objects[obj].note = "no debug info: functions from the symbol table";
		}
		sym_close(&so);
	}
	free(tab.slot);
	free(nobj);
	out->dbg_asked = sym_dbg.asked;
	out->dbg_found = sym_dbg.found;
	out->dbg_seconds = sym_dbg.seconds;
	if (sym_dbg.gave_up) {
		char msg[320];
		snprintf(msg, sizeof msg, "no answer within %.0f s (DEBUGINFOD_TIMEOUT): not asked "
			 "for the other objects, named by their object", sym_dbg.timeout);
		sym_note(out, "debuginfod", msg);
	}
	/* the histograms, locations merged */
	size_t niv = 0;
	for (size_t i = 0; i < p->ncells; i++)
		if (!i || p->cells[i].iv != p->cells[i - 1].iv)
			niv++;
	out->t = malloc((niv ? niv : 1) * sizeof *out->t);
	out->first = malloc((niv + 1) * sizeof *out->first);
	out->hits = malloc((p->ncells ? p->ncells : 1) * sizeof *out->hits);
	if (rc || !out->t || !out->first || !out->hits) {
		free(ad);
		return -1;
	}
	size_t nh = 0, iv = 0;
	for (size_t i = 0; i < p->ncells;) {
		int64_t cur = p->cells[i].iv;
		size_t h0 = nh;
		out->t[iv] = t_origin + cur * interval_ns;
		out->first[iv] = h0;
		for (; i < p->ncells && p->cells[i].iv == cur; i++) {
			uint32_t loc = sym_find(ad, na, p->cells[i].obj, p->cells[i].off);
			uint64_t cnt = p->cells[i].count;
			out->hits[nh++] = (mcz_code_hit){loc, cnt > UINT32_MAX ? UINT32_MAX : (uint32_t)cnt};
		}
		/* sort this interval's hits by location and merge */
		qsort(out->hits + h0, nh - h0, sizeof *out->hits, sym_hit_cmp);
		size_t m = h0;
		for (size_t a = h0; a < nh; a++) {
			if (m > h0 && out->hits[m - 1].loc == out->hits[a].loc) {
				uint64_t s = (uint64_t)out->hits[m - 1].count + out->hits[a].count;
				out->hits[m - 1].count = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
			} else {
				out->hits[m++] = out->hits[a];
			}
		}
		nh = m;
		iv++;
	}
	out->first[iv] = nh;
	/* the hits by thread: the cells are sorted by interval, then thread,
	 * so each (interval, thread) run is sorted by location and merged */
	out->thits = malloc((p->ncells ? p->ncells : 1) * sizeof *out->thits);
	if (!out->thits) {
		free(ad);
		return -1;
	}
	size_t nt = 0;
	for (size_t i = 0, ivx = 0; i < p->ncells; ivx++) {
		int64_t cur = p->cells[i].iv;
		for (; i < p->ncells && p->cells[i].iv == cur;) {
			uint32_t thr = p->cells[i].thr;
			size_t h0 = nt;
			for (; i < p->ncells && p->cells[i].iv == cur && p->cells[i].thr == thr; i++) {
				uint64_t cnt = p->cells[i].count;
				out->thits[nt++] = (mcz_code_thit){
					(uint32_t)ivx, thr, sym_find(ad, na, p->cells[i].obj, p->cells[i].off),
					cnt > UINT32_MAX ? UINT32_MAX : (uint32_t)cnt};
			}
			qsort(out->thits + h0, nt - h0, sizeof *out->thits, sym_thit_cmp);
			size_t m = h0;
			for (size_t a = h0; a < nt; a++) {
				if (m > h0 && out->thits[m - 1].loc == out->thits[a].loc) {
					uint64_t s = (uint64_t)out->thits[m - 1].count + out->thits[a].count;
					out->thits[m - 1].count = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
				} else {
					out->thits[m++] = out->thits[a];
				}
			}
			nt = m;
		}
	}
	/* callers over the run: (location, its caller's location), merged */
	size_t ne = 0;
	out->callers = malloc((p->ncells + 1) * sizeof *out->callers);
	if (!out->callers) {
		free(ad);
		return -1;
	}
	for (size_t i = 0; i < p->ncells; i++) {
		const code_cell *x = &p->cells[i];
		if (x->cobj == UINT32_MAX)
			continue;
		uint64_t cnt = x->count;
		out->callers[ne++] = (mcz_code_edge){sym_find(ad, na, x->obj, x->off),
						     sym_find(ad, na, x->cobj, x->coff),
						     cnt > UINT32_MAX ? UINT32_MAX : (uint32_t)cnt};
	}
	if (ne) /* an empty array may be NULL */
		qsort(out->callers, ne, sizeof *out->callers, sym_edge_cmp);
	size_t me = 0;
	for (size_t a = 0; a < ne; a++) {
		mcz_code_edge *e = &out->callers[a];
		if (me && out->callers[me - 1].loc == e->loc && out->callers[me - 1].caller == e->caller) {
			uint64_t s = (uint64_t)out->callers[me - 1].count + e->count;
			out->callers[me - 1].count = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
		} else {
			out->callers[me++] = *e;
		}
	}
	size_t nf = 0, nsh = 0;
	if (p->callchain && sym_stacks(p, ad, na, out, &nf, &nsh)) {
		free(ad);
		return -1;
	}
	free(ad);

	memset(c, 0, sizeof *c);
	c->nobjects = p->nobjs;
	c->objects = out->objects;
	c->nlocs = nlocs;
	c->locs = out->locs;
	c->nintervals = iv;
	c->t = out->t;
	c->first = out->first;
	c->nhits = nh;
	c->hits = out->hits;
	c->ncallers = me;
	c->callers = out->callers;
	c->nthreads = p->nthreads;
	c->threads = p->threads;
	c->nthits = p->nthreads ? nt : 0;
	c->thits = out->thits;
	c->nframes = nf;
	c->frames = out->frames;
	c->nstackhits = nsh;
	c->stackhits = out->stackhits;
	c->interval_ns = interval_ns;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	return 0;
}

void code_sym_free(code_sym_out *out)
{
	for (size_t i = 0; i < out->nstrs; i++)
		free(out->strs[i]);
	free(out->strs), free(out->objects), free(out->locs), free(out->t), free(out->first);
	free(out->hits), free(out->callers), free(out->thits), free(out->frames);
	free(out->stackhits);
	memset(out, 0, sizeof *out);
}
