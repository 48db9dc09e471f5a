/* code-prof.c: the code profile gathered from perf records — the
 * executable mappings of every process of the command (MMAP2, FORK, exec),
 * and its samples counted per interval by object and file offset, so that
 * an address means the same after the process is gone (symbolization runs
 * at the end, code-sym.c).  Bookkeeping, and the mapped files opened when
 * first seen (code_prof_open_files) so that a binary deleted during the
 * run can still be read at its end.
 *
 *     code_prof p = {0};
 *     code_prof_record(&p, rec, rec_len, t_start, interval_ns);  // each record
 *     code_prof_compact(&p);  ... p.cells ...;  code_prof_free(&p);
 */
#include "code-prof.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The deepest chain kept (perf's kernel.perf_event_max_stack default). */
#define RING_MAX_STACK 127

static int ring_grow(void **a, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 64;
	while (nc < need)
		nc *= 2;
	void *n = realloc(*a, nc * elem);
	if (!n)
		return -1;
	*a = n;
	*cap = nc;
	return 0;
}

/* The object of path and build-id, added when new. */
static int ring_obj(code_prof *p, const char *path, const char *bid, int file, uint32_t *id)
{
	for (size_t i = 0; i < p->nobjs; i++)
		if (strcmp(p->objs[i].path, path) == 0 && strcmp(p->objs[i].build_id, bid) == 0) {
			*id = (uint32_t)i;
			return 0;
		}
	if (ring_grow((void **)&p->objs, &p->cap_objs, p->nobjs + 1, sizeof *p->objs))
		return -1;
	code_obj *o = &p->objs[p->nobjs];
	if (!(o->path = strdup(path)))
		return -1;
	snprintf(o->build_id, sizeof o->build_id, "%s", bid);
	o->file = file;
	o->fd = -1;
	*id = (uint32_t)p->nobjs++;
	return 0;
}

int code_prof_map(code_prof *p, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		  const char *path, const uint8_t *build_id, size_t build_id_len)
{
	char bid[41] = "";
	for (size_t i = 0; i < build_id_len && i < 20; i++)
		snprintf(bid + 2 * i, 3, "%02x", build_id[i]);
	/* "//anon", "[vdso]", "/memfd:..." (JIT) have no file to read later */
	int file = path[0] == '/' && strncmp(path, "//anon", 6) != 0 &&
		   strncmp(path, "/memfd:", 7) != 0;
	const char *name = path[0] ? path : "[anon]";
	if (strncmp(path, "//anon", 6) == 0)
		name = "[anon]";
	uint32_t obj;
	if (ring_obj(p, name, bid, file, &obj))
		return -1;
	uint64_t end = start + len;
	/* a new mapping replaces what it overlaps */
	size_t k = 0;
	for (size_t i = 0; i < p->nmaps; i++) {
		code_map *m = &p->maps[i];
		if (m->pid == pid && m->start < end && start < m->end)
			continue;
		p->maps[k++] = *m;
	}
	p->nmaps = k;
	if (ring_grow((void **)&p->maps, &p->cap_maps, p->nmaps + 1, sizeof *p->maps))
		return -1;
	p->maps[p->nmaps++] = (code_map){pid, start, end, file ? pgoff : start, obj};
	code_unwind_mapped(p->unwind, pid);
	return 0;
}

int code_prof_fork(code_prof *p, uint32_t pid, uint32_t ppid)
{
	code_prof_exec(p, pid);
	size_t n = p->nmaps;
	for (size_t i = 0; i < n; i++) {
		if (p->maps[i].pid != ppid)
			continue;
		if (ring_grow((void **)&p->maps, &p->cap_maps, p->nmaps + 1, sizeof *p->maps))
			return -1;
		code_map m = p->maps[i];
		m.pid = pid;
		p->maps[p->nmaps++] = m;
	}
	code_unwind_mapped(p->unwind, pid);
	return 0;
}

void code_prof_exec(code_prof *p, uint32_t pid)
{
	code_unwind_gone(p->unwind, pid);
	size_t k = 0;
	for (size_t i = 0; i < p->nmaps; i++)
		if (p->maps[i].pid != pid)
			p->maps[k++] = p->maps[i];
	p->nmaps = k;
}

static int ring_cell_cmp(const void *a, const void *b)
{
	const code_cell *x = a, *y = b;
	if (x->iv != y->iv)
		return x->iv < y->iv ? -1 : 1;
	if (x->thr != y->thr)
		return x->thr < y->thr ? -1 : 1;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->cobj != y->cobj)
		return x->cobj < y->cobj ? -1 : 1;
	if (x->coff != y->coff)
		return x->coff < y->coff ? -1 : 1;
	return x->stk < y->stk ? -1 : x->stk > y->stk;
}

/* Sort cells[0..*n) and add up those of one place in one interval. */
static void ring_cells_compact(code_cell *cells, size_t *n, size_t *merged)
{
	if (*merged == *n)
		return;
	qsort(cells, *n, sizeof *cells, ring_cell_cmp);
	size_t k = 0;
	for (size_t i = 0; i < *n; i++) {
		if (k && ring_cell_cmp(&cells[k - 1], &cells[i]) == 0)
			cells[k - 1].count += cells[i].count;
		else
			cells[k++] = cells[i];
	}
	*n = *merged = k;
}

void code_prof_compact(code_prof *p)
{
	ring_cells_compact(p->cells, &p->ncells, &p->merged);
}

code_cell *code_prof_take_fresh(code_prof *p, size_t *n)
{
	ring_cells_compact(p->fresh, &p->nfresh, &p->fresh_merged);
	code_cell *c = p->fresh;
	*n = p->nfresh;
	if (!*n) {
		free(c);
		c = NULL;
	}
	p->fresh = NULL;
	p->nfresh = p->cap_fresh = p->fresh_merged = 0;
	return c;
}

/* One more sample in the cells since the last take (the last cell is the
 * likeliest, as in the profile's). */
static int ring_fresh(code_prof *p, const code_cell *x)
{
	if (p->nfresh > p->fresh_merged) {
		code_cell *c = &p->fresh[p->nfresh - 1];
		if (c->iv == x->iv && c->thr == x->thr && c->obj == x->obj && c->off == x->off &&
		    c->cobj == x->cobj && c->coff == x->coff && c->stk == x->stk) {
			c->count++;
			return 0;
		}
	}
	if (p->nfresh - p->fresh_merged >= 65536)
		ring_cells_compact(p->fresh, &p->nfresh, &p->fresh_merged);
	if (ring_grow((void **)&p->fresh, &p->cap_fresh, p->nfresh + 1, sizeof *p->fresh))
		return -1;
	p->fresh[p->nfresh++] = *x;
	return 0;
}

/* Object and offset of address ip in process pid; 1 when no mapping was
 * seen for it (code mapped before sampling began, a lost MMAP2 record):
 * then the address alone, in "[unknown]". */
static int ring_resolve(code_prof *p, uint32_t pid, uint64_t ip, uint32_t *obj, uint64_t *off)
{
	/* the last map found first: a stack's frames are mostly in one
	 * object, where an Open MPI process has 150 maps (a process's maps
	 * do not overlap: any one that holds ip is the one) */
	for (size_t j = 0, i = p->nmaps; j <= p->nmaps; j++) {
		size_t k = j == 0 ? p->map_last : --i;
		if (k >= p->nmaps)
			continue;
		const code_map *m = &p->maps[k];
		if (m->pid == pid && ip >= m->start && ip < m->end) {
			*obj = m->obj;
			*off = ip - m->start + m->pgoff;
			p->map_last = k;
			return 0;
		}
	}
	if (p->unknown_obj == UINT32_MAX || p->nobjs == 0 || p->unknown_obj >= p->nobjs) {
		if (ring_obj(p, "[unknown]", "", 0, &p->unknown_obj))
			return -1;
	}
	*obj = p->unknown_obj;
	*off = ip;
	return 1;
}

/* The index of thread (pid, tid), added when new: the last sample's is
 * tried first (a thread's samples come in runs), then the table. */
static int ring_thread(code_prof *p, uint32_t pid, uint32_t tid, uint32_t *thr)
{
	const mcz_code_thread *t = p->threads;
	if (p->thr_last < p->nthreads && t[p->thr_last].pid == pid && t[p->thr_last].tid == tid) {
		*thr = p->thr_last;
		return 0;
	}
	for (size_t i = 0; i < p->nthreads; i++)
		if (t[i].pid == pid && t[i].tid == tid) {
			*thr = p->thr_last = (uint32_t)i;
			return 0;
		}
	if (ring_grow((void **)&p->threads, &p->cap_threads, p->nthreads + 1, sizeof *p->threads))
		return -1;
	p->threads[p->nthreads] = (mcz_code_thread){pid, tid};
	*thr = p->thr_last = (uint32_t)p->nthreads++;
	return 0;
}

int code_prof_sample(code_prof *p, uint32_t pid, uint64_t ip, uint64_t caller, int64_t iv)
{
	return code_prof_sample_tid(p, pid, pid, ip, caller, iv);
}

static uint64_t ring_frame_hash(uint32_t parent, uint32_t obj, uint64_t off)
{
	uint64_t h = ((uint64_t)parent << 32 | obj) * 0x9e3779b97f4a7c15ULL;
	return (h ^ (off * 0xc2b2ae3d27d4eb4fULL)) >> 7;
}

/* The frame (parent, obj, off), added when new. */
static int ring_frame(code_prof *p, uint32_t parent, uint32_t obj, uint64_t off, uint32_t *f)
{
	if (2 * (p->nframes + 1) > p->fhash_cap) {
		size_t nc = p->fhash_cap ? 2 * p->fhash_cap : 1024;
		uint32_t *nh = calloc(nc, sizeof *nh);
		if (!nh)
			return -1;
		for (size_t i = 0; i < p->nframes; i++) {
			const code_frame *x = &p->frames[i];
			size_t k = ring_frame_hash(x->parent, x->obj, x->off) & (nc - 1);
			while (nh[k])
				k = (k + 1) & (nc - 1);
			nh[k] = (uint32_t)i + 1;
		}
		free(p->fhash);
		p->fhash = nh;
		p->fhash_cap = nc;
	}
	size_t k = ring_frame_hash(parent, obj, off) & (p->fhash_cap - 1);
	for (; p->fhash[k]; k = (k + 1) & (p->fhash_cap - 1)) {
		const code_frame *x = &p->frames[p->fhash[k] - 1];
		if (x->parent == parent && x->obj == obj && x->off == off) {
			*f = p->fhash[k] - 1;
			return 0;
		}
	}
	if (p->nframes >= UINT32_MAX - 1u ||
	    ring_grow((void **)&p->frames, &p->cap_frames, p->nframes + 1, sizeof *p->frames))
		return -1;
	p->frames[p->nframes] = (code_frame){parent, obj, off};
	p->fhash[k] = (uint32_t)p->nframes + 1;
	*f = (uint32_t)p->nframes++;
	return 0;
}

size_t code_prof_chain(const code_prof *p, uint32_t f, code_frame *out, size_t max)
{
	size_t n = 0;
	while (f < p->nframes && n < max) {
		out[n++] = p->frames[f];
		f = p->frames[f].parent;
	}
	return n;
}

static int ring_sample(code_prof *p, uint32_t pid, uint32_t tid, uint64_t ip, uint64_t caller,
		       uint32_t stk, int64_t iv);

int code_prof_sample_stack(code_prof *p, uint32_t pid, uint32_t tid, const uint64_t *ips, size_t n,
			   int64_t iv)
{
	if (!n)
		return 0;
	size_t m = 1;
	while (m < n && ips[m] > 1)
		m++;
	/* the callers from the outermost in; the call is the instruction
	 * before each return address */
	uint32_t stk = UINT32_MAX;
	for (size_t k = m; k-- > 1;) {
		uint32_t obj;
		uint64_t off;
		if (ring_resolve(p, pid, ips[k] - 1, &obj, &off) < 0 || ring_frame(p, stk, obj, off, &stk))
			return -1;
	}
	return ring_sample(p, pid, tid, ips[0], m > 1 ? ips[1] : 0, stk, iv);
}

int code_prof_sample_tid(code_prof *p, uint32_t pid, uint32_t tid, uint64_t ip, uint64_t caller,
			 int64_t iv)
{
	return ring_sample(p, pid, tid, ip, caller, UINT32_MAX, iv);
}

static int ring_sample(code_prof *p, uint32_t pid, uint32_t tid, uint64_t ip, uint64_t caller,
		       uint32_t stk, int64_t iv)
{
	uint32_t obj, cobj = UINT32_MAX, thr;
	if (ring_thread(p, pid, tid, &thr))
		return -1;
	uint64_t off, coff = 0;
	int rc = ring_resolve(p, pid, ip, &obj, &off);
	if (rc < 0)
		return -1;
	p->unmapped += rc;
	/* the call is the instruction before the return address */
	if (caller > 1 && ring_resolve(p, pid, caller - 1, &cobj, &coff) != 0)
		cobj = UINT32_MAX, coff = 0; /* an unmapped caller is no caller */
	p->samples++;
	code_cell one = {iv, thr, obj, off, cobj, coff, 1, stk};
	if (p->keep_fresh && ring_fresh(p, &one))
		return -1;
	/* the cell of the previous sample is the likeliest (a hot loop) */
	if (p->ncells > p->merged) {
		code_cell *c = &p->cells[p->ncells - 1];
		if (c->iv == iv && c->thr == thr && c->obj == obj && c->off == off && c->cobj == cobj &&
		    c->coff == coff && c->stk == stk) {
			c->count++;
			return 0;
		}
	}
	if (p->ncells - p->merged >= 65536)
		code_prof_compact(p);
	if (ring_grow((void **)&p->cells, &p->cap_cells, p->ncells + 1, sizeof *p->cells))
		return -1;
	p->cells[p->ncells++] = one;
	return 0;
}

/* A file already gone from its path (a binary deleted right after its
 * exec, before the records naming it were read): the kernel still holds it
 * for each process mapping it, and /proc/PID/map_files gives it to the
 * process's parent tracer as to its owner (Linux 4.3: ptrace read access,
 * no privilege). */
static int prof_open_mapped(const code_prof *p, uint32_t obj)
{
	for (size_t i = p->nmaps; i-- > 0;) {
		const code_map *m = &p->maps[i];
		if (m->obj != obj)
			continue;
		char path[96];
		snprintf(path, sizeof path, "/proc/%u/map_files/%llx-%llx", m->pid,
			 (unsigned long long)m->start, (unsigned long long)m->end);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

void code_prof_open_files(code_prof *p)
{
	for (; p->nopened < p->nobjs; p->nopened++) {
		code_obj *o = &p->objs[p->nopened];
		if (o->file && p->nopened < 256) {
			o->fd = open(o->path, O_RDONLY | O_CLOEXEC);
			if (o->fd < 0 && errno == ENOENT)
				o->fd = prof_open_mapped(p, (uint32_t)p->nopened);
		}
	}
}

void code_prof_free(code_prof *p)
{
	for (size_t i = 0; i < p->nobjs; i++) {
		free(p->objs[i].path);
		if (p->objs[i].fd >= 0)
			close(p->objs[i].fd);
	}
	free(p->objs), free(p->maps), free(p->cells), free(p->fresh), free(p->threads);
	free(p->frames), free(p->fhash);
	code_unwind_free(p->unwind);
	memset(p, 0, sizeof *p);
	p->unknown_obj = UINT32_MAX;
}

static uint32_t ring_u32(const uint8_t *b)
{
	uint32_t v;
	memcpy(&v, b, 4);
	return v;
}

static uint64_t ring_u64(const uint8_t *b)
{
	uint64_t v;
	memcpy(&v, b, 8);
	return v;
}

/* A sample's user registers and stack (after IP, TID and TIME):
 * REGS_USER: u64 abi; u64 regs[popcount(mask)] when abi != 0;
 * STACK_USER: u64 size; char data[size]; u64 dyn_size when size != 0 (the
 * bytes copied).  Unwound into its chain; the ip alone when a part is
 * missing (a 32-bit process, a thread with no user stack). */
static int prof_sample_dwarf(code_prof *p, uint32_t pid, uint32_t tid, uint64_t ip,
			     const uint8_t *q, const uint8_t *end, int64_t iv)
{
	uint64_t regs[CODE_UNWIND_NREGS], abi = 0, size = 0, dyn = 0;
	if (end - q >= 8)
		abi = ring_u64(q), q += 8;
	if (abi == PERF_SAMPLE_REGS_ABI_64 && end - q >= (ptrdiff_t)sizeof regs + 8) {
		memcpy(regs, q, sizeof regs);
		q += sizeof regs;
		size = ring_u64(q), q += 8;
		if (size && (uint64_t)(end - q) >= size + 8)
			dyn = ring_u64(q + size);
	}
	if (!dyn)
		return code_prof_sample_tid(p, pid, tid, ip, 0, iv);
	uint64_t ips[RING_MAX_STACK];
	/* the unwinder reads the objects of this round's MMAP2 records too */
	if (p->nopened < p->nobjs)
		code_prof_open_files(p);
	size_t n = code_unwind_sample(p, pid, tid, regs, q, dyn < size ? dyn : size, ips,
				      RING_MAX_STACK);
	return code_prof_sample_stack(p, pid, tid, ips, n, iv);
}

int code_prof_record(code_prof *p, const void *rec, size_t len, int64_t t_start,
		     int64_t interval_ns)
{
	const uint8_t *b = rec;
	struct perf_event_header h;
	if (len < sizeof h)
		return 0;
	memcpy(&h, b, sizeof h);
	if (h.size > len)
		return 0;
	const uint8_t *q = b + sizeof h, *end = b + h.size;
	switch (h.type) {
	case PERF_RECORD_SAMPLE: {
		/* sample_type IP | TID | TIME: u64 ip; u32 pid, tid; u64 time;
		 * then CALLCHAIN or REGS_USER | STACK_USER (perf_event.h's order) */
		if (end - q < 24)
			return 0;
		uint64_t ip = ring_u64(q);
		uint32_t pid = ring_u32(q + 8), tid = ring_u32(q + 12);
		int64_t t = (int64_t)ring_u64(q + 16);
		int64_t iv = t > t_start && interval_ns > 0 ? (t - t_start) / interval_ns : 0;
		if (p->dwarf) {
			prof_sample_dwarf(p, pid, tid, ip, q + 24, end, iv);
			return 1;
		}
		/* with CALLCHAIN: u64 nr, u64 ips[nr]: context markers, the
		 * sampled ip, then the return addresses of its callers */
		if (p->callchain && end - q >= 32) {
			uint64_t nr = ring_u64(q + 24), chain[RING_MAX_STACK];
			const uint8_t *ips = q + 32;
			size_t n = 1;
			int seen_ip = 0;
			chain[0] = ip;
			for (uint64_t k = 0; k < nr && ips + 8 * (k + 1) <= end && n < RING_MAX_STACK;
			     k++) {
				uint64_t a = ring_u64(ips + 8 * k);
				if (a >= (uint64_t)PERF_CONTEXT_MAX)
					continue; /* PERF_CONTEXT_USER and the like */
				if (seen_ip)
					chain[n++] = a;
				seen_ip = 1;
			}
			code_prof_sample_stack(p, pid, tid, chain, n, iv);
			return 1;
		}
		code_prof_sample_tid(p, pid, tid, ip, 0, iv);
		return 1;
	}
	case PERF_RECORD_MMAP2: {
		/* u32 pid, tid; u64 addr, len, pgoff; 24 bytes of device or
		 * build-id; u32 prot, flags; char filename[] */
		if (end - q < 4 + 4 + 24 + 24 + 8 + 1)
			return 0;
		uint32_t pid = ring_u32(q);
		uint64_t addr = ring_u64(q + 8), l = ring_u64(q + 16), pgoff = ring_u64(q + 24);
		const uint8_t *id = q + 32;
		uint32_t prot = ring_u32(q + 56);
		const char *name = (const char *)(q + 64);
		size_t maxn = (size_t)(end - (q + 64));
		if (!memchr(name, 0, maxn) || !(prot & 4 /* PROT_EXEC */))
			return 0;
		size_t idlen = 0;
#ifdef PERF_RECORD_MISC_MMAP_BUILD_ID
		if (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
			idlen = id[0] <= 20 ? id[0] : 20;
#endif
		code_prof_map(p, pid, addr, l, pgoff, name, id + 4, idlen);
		return 0;
	}
	case PERF_RECORD_FORK:
		/* u32 pid, ppid, tid, ptid; u64 time */
		if (end - q >= 16 && ring_u32(q) != ring_u32(q + 4))
			code_prof_fork(p, ring_u32(q), ring_u32(q + 4));
		return 0;
	case PERF_RECORD_COMM:
		if (end - q >= 8 && (h.misc & PERF_RECORD_MISC_COMM_EXEC))
			code_prof_exec(p, ring_u32(q));
		return 0;
	case PERF_RECORD_EXIT:
		/* u32 pid, ppid, tid, ptid: a process (not a thread) ended: its
		 * maps go, so that a build of 10 000 compiler runs keeps only the
		 * live processes' maps to search */
		if (end - q >= 16 && ring_u32(q) == ring_u32(q + 8))
			code_prof_exec(p, ring_u32(q));
		return 0;
	case PERF_RECORD_LOST:
		if (end - q >= 16)
			p->lost += ring_u64(q + 8);
		return 0;
	}
	return 0;
}
