/* code-unwind.c: one sample's callers from the copy of its user stack
 * (`mcrec --call-graph dwarf`), for code that has no frame pointers, as
 * distributions build it.  Each sample brings the user registers and the
 * top of the user stack; the call frame information of the mapped objects
 * (.eh_frame, or .debug_frame) says where each frame keeps its return
 * address and its caller's registers, and the unwinder climbs from the
 * sampled ip outwards.  The samples are unwound on the code source's
 * drain thread as they are parsed and kept only as frames of the
 * profile's tree, never raw (8 KiB each).
 *
 * Why libdw: it is already the symbolizer's library (code-sym.c), its
 * unwinder (libdwfl's dwfl_thread_getframes) is the one `perf report`
 * uses on `perf record --call-graph dwarf` data, and it caches each
 * module's CFI: one Dwfl per process (its modules reported from the
 * profile's maps, at their addresses in that process) keeps what was
 * parsed for the next samples.  Memory the unwinder reads comes from the
 * stack copy, else from the file of the mapping (as perf reads it).
 *
 * libdwfl interprets a frame's CFI again at every frame of every sample
 * (~1 us a frame); the rule of a place in the form compilers emit is read
 * once through libdw, kept by (object, offset) for every process mapping
 * the object, and applied here (unw_fast); a sample with a frame of any
 * other form goes to dwfl_thread_getframes whole.
 *
 *     size_t n = code_unwind_sample(p, pid, tid, regs, stack, size, ips, 127);
 *     code_prof_sample_stack(p, pid, tid, ips, n, iv);
 *     code_unwind_mapped(p->unwind, pid);   // MMAP2, fork
 *     code_unwind_gone(p->unwind, pid);     // exec, exit
 */
#include "code-prof.h"

#include <assert.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Processes whose Dwfl is kept (the least recently sampled goes first):
 * each holds a descriptor per reported object. */
#define UNW_PROCS 64
/* Rules kept (a table of 2 * UNW_RULES slots, emptied when full). */
#define UNW_RULES 32768
/* DWARF's x86_64 registers: rax..r15, then the return address (rip). */
#define UNW_DREGS 17
/* Executable PT_LOAD segments of an object looked at. */
#define UNW_LOADS 4

/* perf's x86_64 register indices within CODE_UNWIND_REGS's order */
enum { UNW_AX, UNW_BX, UNW_CX, UNW_DX, UNW_SI, UNW_DI, UNW_BP, UNW_SP, UNW_IP, UNW_R8 };

/* What the ELF headers of an object say about where its code goes. */
typedef struct unw_obj {
	int state;	   /* 0 not read, 1 read, -1 not an ELF file we can report */
	int exec;	   /* ET_EXEC: at its own addresses */
	uint64_t vlo, vhi; /* the span of its PT_LOAD segments, unbiased */
	int nload;
	struct {
		uint64_t off, vaddr, filesz;
	} load[UNW_LOADS];
} unw_obj;

/* A module reported in a process's Dwfl. */
typedef struct unw_mod {
	uint32_t obj;
	uint64_t bias, lo, hi; /* lo, hi: its segments' span, biased */
	Dwarf_Addr mlo, mhi;   /* the module's range as libdwfl has it */
	int ok;		       /* reported (else it failed: not tried again) */
} unw_mod;

/* One process: its Dwfl, and the sample being unwound. */
typedef struct unw_proc {
	uint32_t pid, tid;
	Dwfl *dwfl;
	int attached; /* dwfl_attach_state done */
	int stale;    /* maps added since the modules were reported */
	unw_mod *mods;
	size_t nmods, cap_mods;
	uint64_t used;
	code_prof *p;
	const uint64_t *regs;
	const uint8_t *stack;
	size_t size;
} unw_proc;

/* How a caller's register comes from its callee's frame: as it is, lost,
 * saved at CFA + off, or CFA + off itself. */
enum { UNW_SAME, UNW_UNDEF, UNW_AT, UNW_VAL };

/* The call frame information of one place (object, offset) in the simple
 * form compilers emit (CFA = a register + offset; each register as it
 * was, lost, or at/as CFA + offset): read once, it serves every process
 * mapping the object.  cfa_reg -1: another form (an expression, as in
 * PLT entries), or none: the sample goes to libdwfl's unwinder. */
typedef struct unw_rule {
	uint32_t obj; /* + 1; 0 an empty slot */
	uint64_t off;
	int cfa_reg;
	int64_t cfa_off;
	uint8_t kind[UNW_DREGS];
	int64_t at[UNW_DREGS];
} unw_rule;

struct code_unwind {
	unw_proc *procs[UNW_PROCS];
	size_t nprocs;
	uint64_t tick;
	unw_obj *objs;
	size_t nobjs;
	unw_rule *rules; /* open addressing by (obj, off) */
	size_t nrules, cap_rules;
	uint64_t samples, deep, frames;
};

/* The unwinder needs only the objects' own sections: no separate debug
 * file is looked for (nor a debuginfod server asked, on the drain thread). */
static int unw_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			char **file_name, Elf **elfp)
{
	return -1;
}

static int unw_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			      Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			      GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	return -1;
}

static const Dwfl_Callbacks unw_callbacks = {
    .find_elf = unw_find_elf,
    .find_debuginfo = unw_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* ---- the thread's state, as libdwfl asks for it ------------------------ */

static pid_t unw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	unw_proc *pr = arg;
	if (*thread_argp)
		return 0;
	*thread_argp = pr;
	return (pid_t)pr->tid;
}

static bool unw_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

/* A word of the process's memory: from the stack copy, else from the file
 * mapped there (code and read-only data do not change). */
static bool unw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	unw_proc *pr = arg;
	uint64_t sp = pr->regs[UNW_SP];
	if (addr >= sp && addr - sp <= pr->size && pr->size - (addr - sp) >= 8) {
		memcpy(result, pr->stack + (addr - sp), 8);
		return true;
	}
	const code_prof *p = pr->p;
	for (size_t i = p->nmaps; i-- > 0;) {
		const code_map *m = &p->maps[i];
		if (m->pid != pr->pid || addr < m->start || addr + 8 > m->end)
			continue;
		int fd = p->objs[m->obj].file ? p->objs[m->obj].fd : -1;
		return fd >= 0 && pread(fd, result, 8, (off_t)(addr - m->start + m->pgoff)) == 8;
	}
	return false;
}

/* The sample's registers in DWARF's x86_64 numbering: rax, rdx, rcx, rbx,
 * rsi, rdi, rbp, rsp, r8-r15, then the return address column (rip). */
static void unw_dwarf_regs(const uint64_t *r, Dwarf_Word *d)
{
	const int from[8] = {UNW_AX, UNW_DX, UNW_CX, UNW_BX, UNW_SI, UNW_DI, UNW_BP, UNW_SP};
	for (int k = 0; k < 8; k++)
		d[k] = r[from[k]], d[8 + k] = r[UNW_R8 + k];
	d[16] = r[UNW_IP];
}

static bool unw_set_registers(Dwfl_Thread *thread, void *arg)
{
	const unw_proc *pr = arg;
	Dwarf_Word d[UNW_DREGS];
	unw_dwarf_regs(pr->regs, d);
	return dwfl_thread_state_registers(thread, 0, UNW_DREGS, d);
}

static const Dwfl_Thread_Callbacks unw_thread_callbacks = {
    .next_thread = unw_next_thread,
    .get_thread = unw_get_thread,
    .memory_read = unw_memory_read,
    .set_initial_registers = unw_set_registers,
};

/* ---- modules: the process's mapped objects ----------------------------- */

/* The executable segments of object id, read once from its file. */
static unw_obj *unw_obj_of(code_unwind *u, const code_prof *p, uint32_t id)
{
	if (id >= u->nobjs) {
		size_t nn = p->nobjs > id ? p->nobjs : id + 1;
		unw_obj *n = realloc(u->objs, nn * sizeof *n);
		if (!n)
			return NULL;
		memset(n + u->nobjs, 0, (nn - u->nobjs) * sizeof *n);
		u->objs = n;
		u->nobjs = nn;
	}
	unw_obj *o = &u->objs[id];
	if (o->state)
		return o->state > 0 ? o : NULL;
	o->state = -1;
	int fd = p->objs[id].file ? p->objs[id].fd : -1;
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	GElf_Ehdr eh;
	size_t nph;
	if (elf && gelf_getehdr(elf, &eh) && elf_getphdrnum(elf, &nph) == 0 &&
	    eh.e_machine == EM_X86_64) {
		o->exec = eh.e_type == ET_EXEC;
		o->vlo = UINT64_MAX;
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (ph.p_vaddr < o->vlo)
				o->vlo = ph.p_vaddr & ~(uint64_t)4095;
			if (ph.p_vaddr + ph.p_memsz > o->vhi)
				o->vhi = ph.p_vaddr + ph.p_memsz;
			if ((ph.p_flags & PF_X) && o->nload < UNW_LOADS)
				o->load[o->nload].off = ph.p_offset,
				o->load[o->nload].vaddr = ph.p_vaddr,
				o->load[o->nload++].filesz = ph.p_filesz;
		}
		o->state = o->nload ? 1 : -1;
	}
	if (elf)
		elf_end(elf);
	return o->state > 0 ? o : NULL;
}

/* The load bias of map m: the segment whose file pages it maps sits at
 * its p_vaddr plus the bias (p_vaddr and p_offset agree modulo the page,
 * so the page rounding cancels out). */
static int unw_bias(const unw_obj *o, const code_map *m, uint64_t *bias)
{
	if (o->exec) {
		*bias = 0;
		return 0;
	}
	for (int i = 0; i < o->nload; i++) {
		uint64_t pg = o->load[i].off & ~(uint64_t)4095;
		if (m->pgoff >= pg && m->pgoff < o->load[i].off + o->load[i].filesz) {
			*bias = m->start - m->pgoff + o->load[i].off - o->load[i].vaddr;
			return 0;
		}
	}
	return -1;
}

static uint64_t unw_hash(uint32_t obj, uint64_t off)
{
	return ((uint64_t)obj * 0x9e3779b97f4a7c15ULL ^ off * 0xc2b2ae3d27d4eb4fULL) >> 7;
}

static int unw_grow_mods(unw_proc *pr)
{
	if (pr->nmods < pr->cap_mods)
		return 0;
	size_t nc = pr->cap_mods ? 2 * pr->cap_mods : 16;
	unw_mod *n = realloc(pr->mods, nc * sizeof *n);
	if (!n)
		return -1;
	pr->mods = n;
	pr->cap_mods = nc;
	return 0;
}

static int unw_any_module(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
			  void *arg)
{
	return DWARF_CB_ABORT; /* one is enough */
}

/* Report the objects process pr maps that its Dwfl does not have yet (a
 * module's CFI, once parsed, stays for the next samples).  No munmap
 * reaches the profile: code unloaded (dlclose) stays in its maps until
 * other code is mapped over it.  So a mapping whose object would overlap
 * a module already reported has the modules reported again (again:
 * libdwfl removes modules only by a new report of those that stay), the
 * newest mappings first, leaving out the older ones they overlap; those
 * that stay keep what libdwfl has read of them.  Returns 1 when a report
 * again is needed. */
static int unw_report(code_unwind *u, code_prof *p, unw_proc *pr, int again)
{
	unw_mod *old = NULL;
	size_t nold = 0;
	if (again) {
		old = pr->mods, nold = pr->nmods;
		pr->mods = NULL, pr->nmods = pr->cap_mods = 0;
		dwfl_report_begin(pr->dwfl);
	} else {
		dwfl_report_begin_add(pr->dwfl);
	}
	int clash = 0;
	for (size_t j = 0; j < p->nmaps && !(clash && !again); j++) {
		const code_map *m = &p->maps[again ? p->nmaps - 1 - j : j];
		if (m->pid != pr->pid || !p->objs[m->obj].file)
			continue;
		const unw_obj *o = unw_obj_of(u, p, m->obj);
		uint64_t bias;
		if (!o || unw_bias(o, m, &bias))
			continue;
		unw_mod x = {m->obj, bias, bias + o->vlo, bias + o->vhi, 0, 0, 0};
		int seen = 0;
		clash = 0;
		for (size_t k = 0; k < pr->nmods; k++) {
			if (pr->mods[k].obj == x.obj && pr->mods[k].bias == bias)
				seen = 1;
			else if (x.lo < pr->mods[k].hi && pr->mods[k].lo < x.hi)
				clash = 1;
		}
		if (seen || clash || unw_grow_mods(pr))
			continue;
		const char *path = p->objs[m->obj].path;
		size_t k = 0;
		while (k < nold && !(old[k].obj == x.obj && old[k].bias == bias))
			k++;
		if (k < nold && old[k].ok) {
			/* the same name and range: libdwfl keeps the module */
			x = old[k];
			x.ok = dwfl_report_module(pr->dwfl, path, x.mlo, x.mhi) != NULL;
		} else if (k == nold) {
			int fd = p->objs[m->obj].fd >= 0 ? dup(p->objs[m->obj].fd) : -1;
			/* add_p_vaddr: base is the bias (the address of p_vaddr 0) */
			Dwfl_Module *mod = dwfl_report_elf(pr->dwfl, path, path, fd, bias, true);
			void **ud;
			if (mod) {
				dwfl_module_info(mod, &ud, &x.mlo, &x.mhi, NULL, NULL, NULL, NULL);
				*ud = (void *)(uintptr_t)(m->obj + 1u); /* for unw_rule_of */
			} else if (fd >= 0)
				close(fd);
			x.ok = mod != NULL;
		}
		/* a module that failed is not tried again in this Dwfl */
		pr->mods[pr->nmods++] = x;
	}
	dwfl_report_end(pr->dwfl, NULL, NULL);
	free(old);
	if (clash && !again)
		return 1;
	if (!pr->attached && dwfl_getmodules(pr->dwfl, unw_any_module, NULL, 0) != 0)
		pr->attached =
		    dwfl_attach_state(pr->dwfl, NULL, (pid_t)pr->pid, &unw_thread_callbacks, pr);
	pr->stale = 0;
	return 0;
}

/* ---- processes ---------------------------------------------------------- */

static void unw_proc_free(unw_proc *pr)
{
	if (pr->dwfl)
		dwfl_end(pr->dwfl);
	free(pr->mods);
	free(pr);
}

/* The state of process pid, made when new (the least recently sampled
 * one leaves when UNW_PROCS are kept), its modules up to date. */
static unw_proc *unw_proc_of(code_unwind *u, code_prof *p, uint32_t pid)
{
	unw_proc *pr = NULL;
	for (size_t i = 0; i < u->nprocs && !pr; i++)
		if (u->procs[i]->pid == pid)
			pr = u->procs[i];
	if (!pr) {
		size_t at = u->nprocs;
		if (at == UNW_PROCS) {
			at = 0;
			for (size_t i = 1; i < u->nprocs; i++)
				if (u->procs[i]->used < u->procs[at]->used)
					at = i;
			unw_proc_free(u->procs[at]);
			u->procs[at] = NULL;
		}
		if (!(pr = calloc(1, sizeof *pr)))
			return NULL;
		pr->pid = pid;
		pr->dwfl = dwfl_begin(&unw_callbacks);
		pr->stale = 1;
		u->procs[at] = pr;
		if (at == u->nprocs)
			u->nprocs++;
	}
	pr->used = ++u->tick;
	if (pr->stale && pr->dwfl && unw_report(u, p, pr, pr->nmods == 0))
		unw_report(u, p, pr, 1);
	return pr->dwfl ? pr : NULL;
}

void code_unwind_mapped(code_unwind *u, uint32_t pid)
{
	for (size_t i = 0; u && i < u->nprocs; i++)
		if (u->procs[i]->pid == pid)
			u->procs[i]->stale = 1;
}

void code_unwind_gone(code_unwind *u, uint32_t pid)
{
	for (size_t i = 0; u && i < u->nprocs; i++)
		if (u->procs[i]->pid == pid) {
			unw_proc_free(u->procs[i]);
			u->procs[i] = u->procs[--u->nprocs];
			return;
		}
}

/* ---- one sample ---------------------------------------------------------- */

/* The rule of (obj, off), read from cfi when not kept yet. */
static const unw_rule *unw_rule_read(code_unwind *u, uint32_t obj, uint64_t off, Dwarf_CFI *cfi)
{
	if (2 * (u->nrules + 1) > u->cap_rules) {
		if (u->cap_rules >= 2 * UNW_RULES) {
			memset(u->rules, 0, u->cap_rules * sizeof *u->rules); /* all read again */
			u->nrules = 0;
		} else {
			size_t nc = u->cap_rules ? 2 * u->cap_rules : 1024;
			unw_rule *n = calloc(nc, sizeof *n);
			if (!n)
				return NULL;
			for (size_t i = 0; i < u->cap_rules; i++) {
				if (!u->rules[i].obj)
					continue;
				size_t k = unw_hash(u->rules[i].obj, u->rules[i].off) & (nc - 1);
				while (n[k].obj)
					k = (k + 1) & (nc - 1);
				n[k] = u->rules[i];
			}
			free(u->rules);
			u->rules = n;
			u->cap_rules = nc;
		}
	}
	size_t k = unw_hash(obj + 1, off) & (u->cap_rules - 1);
	for (; u->rules[k].obj; k = (k + 1) & (u->cap_rules - 1))
		if (u->rules[k].obj == obj + 1 && u->rules[k].off == off)
			return &u->rules[k];
	unw_rule *r = &u->rules[k];
	*r = (unw_rule){.obj = obj + 1, .off = off, .cfa_reg = -1};
	u->nrules++;
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops, mem[3];
	size_t nops;
	if (!cfi || dwarf_cfi_addrframe(cfi, off, &fr) != 0 || dwarf_frame_cfa(fr, &ops, &nops) ||
	    nops != 1 || ops[0].atom != DW_OP_bregx || ops[0].number >= UNW_DREGS) {
		free(fr);
		return r;
	}
	int cfa_reg = (int)ops[0].number;
	r->cfa_off = (int64_t)ops[0].number2;
	for (int reg = 0; reg < UNW_DREGS; reg++) {
		if (dwarf_frame_register(fr, reg, mem, &ops, &nops)) {
			free(fr);
			return r;
		}
		if (nops == 0) {
			r->kind[reg] = ops ? UNW_UNDEF : UNW_SAME;
			continue;
		}
		size_t i = 1;
		if (ops[0].atom != DW_OP_call_frame_cfa) {
			free(fr);
			return r; /* another register, an expression */
		}
		if (i < nops && ops[i].atom == DW_OP_plus_uconst)
			r->at[reg] = (int64_t)ops[i++].number;
		r->kind[reg] = UNW_AT;
		if (i < nops && ops[i].atom == DW_OP_stack_value)
			r->kind[reg] = UNW_VAL, i++;
		if (i != nops) {
			free(fr);
			return r;
		}
	}
	free(fr);
	r->cfa_reg = cfa_reg;
	return r;
}

/* The rule at pc in process pr, NULL where no module is. */
static const unw_rule *unw_rule_of(code_unwind *u, unw_proc *pr, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(pr->dwfl, pc);
	void **ud;
	if (!mod || !dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL) || !*ud)
		return NULL;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	return unw_rule_read(u, (uint32_t)((uintptr_t)*ud - 1), pc - bias, cfi);
}

/* Unwind by the rules kept, as libdwfl would by the same CFI: the sampled
 * frame at its pc, each caller at its call (the return address - 1).  0
 * when a frame's rule is not a simple one, or no module covers it: then
 * libdwfl unwinds the sample, with its fallbacks. */
static size_t unw_fast(code_unwind *u, unw_proc *pr, uint64_t *ips, size_t max)
{
	Dwarf_Word r[UNW_DREGS], nr[UNW_DREGS];
	unw_dwarf_regs(pr->regs, r);
	uint32_t valid = (1u << UNW_DREGS) - 1, nvalid;
	uint64_t prev_cfa = 0;
	size_t n = 0;
	ips[n++] = r[16];
	while (n < max) {
		const unw_rule *ru = unw_rule_of(u, pr, n == 1 ? r[16] : r[16] - 1);
		if (!ru || ru->cfa_reg < 0)
			return 0;
		if (!(valid >> ru->cfa_reg & 1))
			break;
		uint64_t cfa = r[ru->cfa_reg] + (uint64_t)ru->cfa_off;
		if (n > 1 && cfa <= prev_cfa)
			break; /* the stack grows down: a caller's CFA is above */
		nvalid = 0;
		for (int k = 0; k < UNW_DREGS; k++) {
			uint64_t a = cfa + (uint64_t)ru->at[k];
			switch (ru->kind[k]) {
			case UNW_SAME:
				nr[k] = r[k];
				nvalid |= valid & 1u << k;
				break;
			case UNW_AT:
				if (unw_memory_read(pr->dwfl, a, &nr[k], pr))
					nvalid |= 1u << k;
				break;
			case UNW_VAL:
				nr[k] = a;
				nvalid |= 1u << k;
				break;
			}
		}
		if (!(nvalid >> 7 & 1)) /* the caller's sp is the CFA (x86_64's ABI) */
			nr[7] = cfa, nvalid |= 1u << 7;
		if (!(nvalid >> 16 & 1) || nr[16] <= 1)
			break; /* the outermost frame (its return address undefined) */
		ips[n++] = nr[16];
		memcpy(r, nr, sizeof r);
		valid = nvalid;
		prev_cfa = cfa;
	}
	return n;
}

typedef struct unw_walk {
	uint64_t *ips;
	size_t n, max;
} unw_walk;

static int unw_frame(Dwfl_Frame *f, void *arg)
{
	unw_walk *w = arg;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(f, &pc, &activation) || pc <= 1)
		return DWARF_CB_ABORT;
	/* a frame interrupted by a signal is at its pc, not after a call:
	 * code_prof_sample_stack takes the instruction before each caller's */
	w->ips[w->n] = w->n && activation ? pc + 1 : pc;
	w->n++;
	return w->n < w->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

size_t code_unwind_sample(code_prof *p, uint32_t pid, uint32_t tid, const uint64_t *regs,
			  const uint8_t *stack, size_t size, uint64_t *ips, size_t max)
{
	assert(max >= 1);
	ips[0] = regs[UNW_IP];
	if (!p->unwind) {
		if (!(p->unwind = calloc(1, sizeof *p->unwind)))
			return 1;
		elf_version(EV_CURRENT);
	}
	code_unwind *u = p->unwind;
	u->samples++;
	unw_proc *pr = unw_proc_of(u, p, pid);
	if (!pr || !pr->attached)
		return 1;
	pr->tid = tid;
	pr->p = p;
	pr->regs = regs;
	pr->stack = stack;
	pr->size = size;
	size_t fast = unw_fast(u, pr, ips, max);
	if (fast) {
		pr->regs = NULL, pr->stack = NULL;
		u->deep += fast > 1;
		u->frames += fast - 1;
		return fast;
	}
	unw_walk w = {ips, 0, max};
	/* its error (the outermost frame has no caller, a frame without CFI,
	 * the stack copy's end) ends the chain: what came before is kept */
	dwfl_getthread_frames(pr->dwfl, (pid_t)tid, unw_frame, &w);
	pr->regs = NULL, pr->stack = NULL;
	if (w.n == 0) {
		ips[0] = regs[UNW_IP];
		return 1;
	}
	u->deep += w.n > 1;
	u->frames += w.n - 1;
	return w.n;
}

void code_unwind_figures(const code_unwind *u, uint64_t *samples, uint64_t *deep, uint64_t *frames)
{
	*samples = u ? u->samples : 0;
	*deep = u ? u->deep : 0;
	*frames = u ? u->frames : 0;
}

void code_unwind_free(code_unwind *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nprocs; i++)
		unw_proc_free(u->procs[i]);
	free(u->objs);
	free(u->rules);
	free(u);
}
