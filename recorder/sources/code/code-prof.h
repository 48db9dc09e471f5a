/* code-prof.h: the parts of the code source (recorder/sources/code*.c)
 * shared between its files, and for its tests: the profile gathered from
 * the perf ring buffers (objects mapped by the command, and per interval
 * the samples counted by object and file offset), and its symbolization
 * into the mcz_code table of SPEC.md 5.6.
 *
 *     code_prof p = {0};
 *     code_prof_map(&p, pid, start, len, pgoff, "/usr/bin/app", build_id, n);  // MMAP2
 *     code_prof_sample(&p, pid, ip, caller_ret, interval);                     // SAMPLE
 *     mcz_code c;  code_sym_out out;
 *     code_sym_run(&p, t_of_interval0, interval_ns, &c, &out);   // libdwfl, per object
 *                                         // (c's hits also by thread: c.thits)
 *     mcz_writer_code(w, &c);  code_sym_free(&out);  code_prof_free(&p);
 *
 * Only recorder/sources/code*.c and tests include this header.
 */
#ifndef REC_CODE_PROF_H
#define REC_CODE_PROF_H

#include <stddef.h>
#include <stdint.h>

#include "../../../format/mcz.h"

/* An object the command mapped executable (one per path and build-id). */
typedef struct code_obj {
	char *path;        /* as the kernel named it; "[anon]", "[unknown]" */
	char build_id[41]; /* hex, from MMAP2 when the kernel gives it */
	int file;          /* 1: a file (symbolize it); 0: anonymous / JIT / vdso */
	int fd;            /* the file opened when first mapped (so that a binary
			      deleted during the run is still read), -1 none;
			      code_prof_free closes it */
} code_obj;

/* One executable mapping of one process. */
typedef struct code_map {
	uint32_t pid;
	uint64_t start, end, pgoff;
	uint32_t obj;
} code_map;

/* A frame of the sampled call stacks: a place (the caller's return
 * address - 1) called from its parent frame; the frames form a tree whose
 * roots (parent UINT32_MAX) are the outermost callers, each (parent, obj,
 * off) once. */
typedef struct code_frame {
	uint32_t parent;
	uint32_t obj;
	uint64_t off;
} code_frame;

/* Samples at one place in one interval (merged by code_prof_compact). */
typedef struct code_cell {
	int64_t iv;    /* interval number since the start of sampling */
	uint32_t thr;  /* index into the profile's threads */
	uint32_t obj;
	uint64_t off;  /* file offset (file objects), address otherwise */
	uint32_t cobj; /* the caller's place (its return address - 1), with */
	uint64_t coff; /* callchains; cobj = UINT32_MAX none */
	uint64_t count;
	uint32_t stk;  /* the callers' frame (the innermost caller's, whose
			  path to the root is the whole chain), UINT32_MAX none */
} code_cell;

typedef struct code_prof {
	code_obj *objs;
	size_t nobjs, cap_objs;
	code_map *maps;
	size_t nmaps, cap_maps;
	code_cell *cells;
	size_t ncells, cap_cells, merged; /* cells[0..merged) sorted and merged */
	uint64_t samples, unmapped, lost;
	size_t nopened;                   /* objs[0..nopened) were given a chance to open */
	uint32_t unknown_obj;             /* "[unknown]" once needed, else UINT32_MAX */
	int callchain;                    /* samples come with their callers (the profile has
					     stacks): a callchain (PERF_SAMPLE_CALLCHAIN), or
					     with dwarf unwound */
	int dwarf;                        /* samples carry the user registers and a copy of
					     the user stack (PERF_SAMPLE_REGS_USER with
					     CODE_UNWIND_REGS, PERF_SAMPLE_STACK_USER),
					     unwound as they are parsed (callchain set too) */
	struct code_unwind *unwind;       /* dwarf's unwinder (code-unwind.c), made at the
					     first sample; freed by code_prof_free */
	code_frame *frames;               /* the callers' frames, in the order first met */
	size_t nframes, cap_frames;
	uint32_t *fhash;                  /* open addressing over frames: index + 1, 0 free */
	size_t fhash_cap;
	mcz_code_thread *threads;         /* (pid, tid) in the order first sampled */
	size_t nthreads, cap_threads;
	uint32_t thr_last;                /* the last sample's thread (the likeliest next) */
	size_t map_last;                  /* the last map an address was found in */
	/* With keep_fresh, each sample is counted in fresh too: the cells
	 * since the last code_prof_take_fresh, written while recording as a
	 * CODEPART block (a killed recorder keeps them). */
	int keep_fresh;
	code_cell *fresh;
	size_t nfresh, cap_fresh, fresh_merged;
} code_prof;

/* ---- code-prof.c: the profile from perf records ----------------------- */

/* An executable mapping (MMAP2); replaces what it overlaps in that process. */
int code_prof_map(code_prof *p, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		  const char *path, const uint8_t *build_id, size_t build_id_len);
/* A new process (FORK with pid != ppid) starts with its parent's maps. */
int code_prof_fork(code_prof *p, uint32_t pid, uint32_t ppid);
/* exec (or the process's exit): its maps are gone. */
void code_prof_exec(code_prof *p, uint32_t pid);
/* A sample of ip in process pid, in interval iv; caller: the return
 * address its caller will resume at (0: unknown).  code_prof_sample_tid
 * counts it for thread tid of pid (code_prof_sample: its main thread). */
int code_prof_sample(code_prof *p, uint32_t pid, uint64_t ip, uint64_t caller, int64_t iv);
int code_prof_sample_tid(code_prof *p, uint32_t pid, uint32_t tid, uint64_t ip, uint64_t caller,
			 int64_t iv);
/* A sample with its whole call chain, as frame pointers or an unwinder
 * give it: ips[0] the sampled ip, ips[1..n) the return addresses of its
 * callers, innermost first (0 ends the chain).  With n <= 1 it is
 * code_prof_sample_tid's sample without a caller. */
int code_prof_sample_stack(code_prof *p, uint32_t pid, uint32_t tid, const uint64_t *ips, size_t n,
			   int64_t iv);
/* The chain of frame f, innermost first, into out[0..max): its length. */
size_t code_prof_chain(const code_prof *p, uint32_t f, code_frame *out, size_t max);
/* Open the file objects not opened yet (after each batch of records: the
 * file is held from its first mapping on).  At most 256 are kept open. */
void code_prof_open_files(code_prof *p);
/* Sort and merge the cells (done as they grow, and before symbolizing). */
void code_prof_compact(code_prof *p);
/* The fresh cells, sorted and merged, handed to the caller (free()); p
 * starts a new set.  *n 0 and NULL when there are none. */
code_cell *code_prof_take_fresh(code_prof *p, size_t *n);
void code_prof_free(code_prof *p);

/* Parse one perf record (a copy of it, hdr first) into p: SAMPLE (ip, tid,
 * time; with callchain its chain, with dwarf its registers and stack), MMAP2, FORK, COMM (exec), EXIT (a process's maps go), LOST.  t_start and interval_ns turn
 * sample times into interval numbers.  Returns 1 for a sample, 0 else. */
int code_prof_record(code_prof *p, const void *rec, size_t len, int64_t t_start,
		     int64_t interval_ns);

/* ---- code-unwind.c: a sample's callers from its stack (libdwfl) ------- */

/* The user registers each sample carries with dwarf (perf's x86_64 order:
 * ax, bx, cx, dx, si, di, bp, sp, ip, r8-r15; the record holds them in
 * that order): the 17 that DWARF's call frame information can name. */
#define CODE_UNWIND_REGS 0xff01ffULL
#define CODE_UNWIND_NREGS 17

typedef struct code_unwind code_unwind;

/* The call stack of a sample of thread tid of process pid, from its
 * registers regs[CODE_UNWIND_NREGS] and stack[0..size), the bytes of its
 * user stack from its sp up, into ips[0..max) as code_prof_sample_stack
 * takes it (the sampled ip, then its callers' return addresses): its
 * length, at least 1.  Makes p->unwind at the first call. */
size_t code_unwind_sample(code_prof *p, uint32_t pid, uint32_t tid, const uint64_t *regs,
			  const uint8_t *stack, size_t size, uint64_t *ips, size_t max);
/* Process pid mapped code (MMAP2, fork): its modules are reported again
 * at its next sample; exec or exit: what the unwinder held for it goes. */
void code_unwind_mapped(code_unwind *u, uint32_t pid);
void code_unwind_gone(code_unwind *u, uint32_t pid);
/* What unwinding did: samples unwound, those that reached a caller, and
 * the frames found past the sampled ip. */
void code_unwind_figures(const code_unwind *u, uint64_t *samples, uint64_t *deep,
			 uint64_t *frames);
void code_unwind_free(code_unwind *u);

/* ---- code-sym.c: symbolization (elfutils libdwfl) --------------------- */

/* What symbolization made: the arrays of c, and figures. */
typedef struct code_sym_out {
	mcz_code_object *objects;
	mcz_code_loc *locs;
	int64_t *t;
	size_t *first;
	mcz_code_hit *hits;
	mcz_code_edge *callers;
	mcz_code_thit *thits;
	mcz_code_frame *frames; /* the call stacks over locs (with callchains) */
	mcz_code_stackhit *stackhits;
	char **strs;
	size_t nstrs, cap_strs;
	size_t naddrs;       /* distinct (object, offset) symbolized */
	double seconds;      /* time it took */
	unsigned dbg_asked, dbg_found; /* with DEBUGINFOD_URLS: objects opened
				  (a server may have been asked for their debug
				  file), debug files that came from a server */
	double dbg_seconds;  /* of seconds, opening those objects */
	char note[512];      /* objects without symbols, gone... */
} code_sym_out;

/* Build the code profile of p: every distinct (object, offset) turned into
 * a location (function, inline chain, file:line where DWARF says so; the
 * symbol table otherwise; object+offset last), locations merged when they
 * name the same place.  Interval i starts at t_origin + i * interval_ns. */
int code_sym_run(code_prof *p, int64_t t_origin, int64_t interval_ns, mcz_code *c,
		 code_sym_out *out);
void code_sym_free(code_sym_out *out);

/* ---- code-raw.c: the cells of CODEPART blocks -------------------------- */

/* The part of the cells cells[0..n) (interval iv starting at t_origin + iv
 * * interval_ns), with p's objects, into part (its arrays malloc'd, freed
 * by code_part_free). */
int code_part_make(const code_prof *p, const code_cell *cells, size_t n, int64_t t_origin,
		   int64_t interval_ns, mcz_code_raw *part);
void code_part_free(mcz_code_raw *part);

#endif
