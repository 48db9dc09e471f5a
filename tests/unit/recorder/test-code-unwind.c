/* test-code-unwind.c: `--call-graph dwarf`'s records through
 * code_prof_record (recorder/sources/code/code-prof.c) into the unwinder
 * (code-unwind.c), on this test's own stack: its executable mappings from
 * /proc/self/maps as MMAP2 records, and a SAMPLE record made as the kernel
 * makes it (PERF_SAMPLE_REGS_USER with CODE_UNWIND_REGS, then
 * PERF_SAMPLE_STACK_USER: 8 KiB from sp) with the registers and stack of
 * un_leaf, called from un_caller_a or un_caller_b.  The sample's stack
 * must be exactly the return addresses the compiler knows
 * (__builtin_return_address(0) in un_leaf and in its caller), the two
 * callers two frames of the tree under one parent; a sample without
 * registers (abi 0) or cut short is counted alone, without callers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/perf_event.h>

#include "../../../recorder/sources/code/code-prof.h"

#define UN_STACK 8192

/* The sample being made: registers (perf's order), stack bytes. */
static uint64_t un_regs[CODE_UNWIND_NREGS];
static uint8_t un_stack[UN_STACK];
static size_t un_nstack;
static uint64_t un_stack_end; /* the end of [stack] in /proc/self/maps */
static uintptr_t un_ret_leaf, un_ret_caller;

/* The bytes above sp, as the kernel copies them (not through memcpy: the
 * sanitizers' redzones are in there). */
__attribute__((noinline, no_sanitize_address)) static void un_copy_stack(uint64_t sp)
{
	size_t n = un_stack_end > sp ? (size_t)(un_stack_end - sp) : 0;
	un_nstack = n < UN_STACK ? n : UN_STACK;
	const volatile uint8_t *s = (const volatile uint8_t *)(uintptr_t)sp;
	for (size_t i = 0; i < un_nstack; i++)
		un_stack[i] = s[i];
}

/* Where a sample of it would find it: ip, sp and the callee-saved
 * registers (the others are the caller's to lose). */
__attribute__((noinline, noipa)) static int un_leaf(int x)
{
	uint64_t r[9];
	__asm__ volatile("lea 0(%%rip), %%rax\n\t"
			 "mov %%rax, 0(%0)\n\t"
			 "mov %%rsp, 8(%0)\n\t"
			 "mov %%rbp, 16(%0)\n\t"
			 "mov %%rbx, 24(%0)\n\t"
			 "mov %%r12, 32(%0)\n\t"
			 "mov %%r13, 40(%0)\n\t"
			 "mov %%r14, 48(%0)\n\t"
			 "mov %%r15, 56(%0)\n\t"
			 :
			 : "r"(r)
			 : "rax", "memory");
	un_copy_stack(r[1]);
	memset(un_regs, 0, sizeof un_regs);
	un_regs[8] = r[0];	    /* ip */
	un_regs[7] = r[1];	    /* sp */
	un_regs[6] = r[2];	    /* bp */
	un_regs[1] = r[3];	    /* bx */
	for (int k = 0; k < 4; k++) /* r12-r15: after ax..ip, r8..r11 */
		un_regs[9 + 4 + k] = r[4 + k];
	un_ret_leaf = (uintptr_t)__builtin_return_address(0);
	return x + 1;
}

static volatile int un_sink;

__attribute__((noinline, noipa)) static void un_caller_a(void)
{
	un_ret_caller = (uintptr_t)__builtin_return_address(0);
	un_sink += un_leaf(1);
}

__attribute__((noinline, noipa)) static void un_caller_b(void)
{
	un_ret_caller = (uintptr_t)__builtin_return_address(0);
	un_sink += un_leaf(2);
}

/* MMAP2 records of this process's executable file mappings. */
static void un_maps(code_prof *p)
{
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	char line[1200];
	while (fgets(line, sizeof line, f)) {
		unsigned long a, b, off;
		char perm[8], path[1000] = "";
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %999s", &a, &b, perm, &off, path) < 4)
			continue;
		if (strcmp(path, "[stack]") == 0)
			un_stack_end = b;
		if (perm[2] != 'x' || path[0] != '/')
			continue;
		uint8_t rec[1200] = {0};
		size_t n = strlen(path) + 1, len = (8 + 64 + n + 7) & ~(size_t)7;
		struct perf_event_header h = {PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER,
					      (uint16_t)len};
		uint32_t pid = (uint32_t)getpid(), prot = 5;
		uint64_t addr = a, l = b - a, pg = off;
		memcpy(rec, &h, 8);
		memcpy(rec + 8, &pid, 4), memcpy(rec + 12, &pid, 4);
		memcpy(rec + 16, &addr, 8), memcpy(rec + 24, &l, 8), memcpy(rec + 32, &pg, 8);
		memcpy(rec + 64, &prot, 4);
		memcpy(rec + 72, path, n);
		code_prof_record(p, rec, len, 0, 1000000);
	}
	fclose(f);
	code_prof_open_files(p);
}

/* The SAMPLE record of un_regs and un_stack (abi 0: no registers). */
static size_t un_sample(uint8_t *rec, uint64_t abi)
{
	size_t at = 8;
	uint32_t pid = (uint32_t)getpid();
	uint64_t t = 1, size = UN_STACK, dyn = un_nstack;
	memcpy(rec + at, &un_regs[8], 8), at += 8; /* ip */
	memcpy(rec + at, &pid, 4), memcpy(rec + at + 4, &pid, 4), at += 8;
	memcpy(rec + at, &t, 8), at += 8;
	memcpy(rec + at, &abi, 8), at += 8;
	if (abi) {
		memcpy(rec + at, un_regs, sizeof un_regs), at += sizeof un_regs;
		memcpy(rec + at, &size, 8), at += 8;
		memcpy(rec + at, un_stack, UN_STACK), at += UN_STACK;
		memcpy(rec + at, &dyn, 8), at += 8;
	} else {
		size = 0;
		memcpy(rec + at, &size, 8), at += 8;
	}
	struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, (uint16_t)at};
	memcpy(rec, &h, 8);
	return at;
}

/* The address in this process of frame f's place. */
static uint64_t un_addr(const code_prof *p, const code_frame *f)
{
	for (size_t i = 0; i < p->nmaps; i++)
		if (p->maps[i].obj == f->obj)
			return f->off - p->maps[i].pgoff +
			       p->maps[i].start; /* one map per object here */
	return 0;
}

static void test_unwinds_own_stack(void **state)
{
	code_prof p = {0};
	p.unknown_obj = UINT32_MAX;
	p.callchain = p.dwarf = 1; /* as code.c sets them */
	un_maps(&p);
	assert_true(p.nmaps > 0);
	static uint8_t rec[UN_STACK + 512];

	un_caller_a();
	uintptr_t ra_a = un_ret_leaf, ra_top = un_ret_caller;
	assert_true(un_nstack > 256);
	assert_int_equal(
	    code_prof_record(&p, rec, un_sample(rec, PERF_SAMPLE_REGS_ABI_64), 0, 1000000), 1);
	un_caller_b();
	uintptr_t ra_b = un_ret_leaf, ra_top_b = un_ret_caller;
	assert_int_equal(
	    code_prof_record(&p, rec, un_sample(rec, PERF_SAMPLE_REGS_ABI_64), 0, 1000000), 1);
	assert_int_equal(p.samples, 2);
	assert_int_equal(p.unmapped, 0);
	code_prof_compact(&p);
	assert_int_equal(p.ncells, 2);

	/* each cell's stack: the call in its caller, then the call in this
	 * test function, then cmocka's runner and the C library's start */
	uintptr_t want[2][2] = {{ra_a, ra_top}, {ra_b, ra_top_b}};
	uint32_t parent[2];
	for (size_t c = 0; c < 2; c++) {
		code_frame ch[16];
		size_t n = code_prof_chain(&p, p.cells[c].stk, ch, 16);
		assert_true(n >= 3);
		uint64_t a0 = un_addr(&p, &ch[0]), a1 = un_addr(&p, &ch[1]);
		size_t k = a0 == want[0][0] - 1 ? 0 : 1;
		assert_int_equal(a0, want[k][0] - 1);
		assert_int_equal(a1, want[k][1] - 1);
		parent[c] = ch[0].parent;
	}
	assert_int_not_equal(p.cells[0].stk, p.cells[1].stk);
	/* the two callers' frames hang under different calls of this function */
	assert_int_not_equal(parent[0], parent[1]);
	uint64_t un, deep, frames;
	code_unwind_figures(p.unwind, &un, &deep, &frames);
	assert_int_equal(un, 2);
	assert_int_equal(deep, 2);
	assert_true(frames >= 6);
	code_prof_free(&p);
}

static void test_without_registers(void **state)
{
	code_prof p = {0};
	p.unknown_obj = UINT32_MAX;
	p.callchain = p.dwarf = 1; /* as code.c sets them */
	un_maps(&p);
	static uint8_t rec[UN_STACK + 512];
	un_caller_a();
	/* abi 0: a thread without user registers (none to unwind by) */
	assert_int_equal(code_prof_record(&p, rec, un_sample(rec, 0), 0, 1000000), 1);
	/* cut short: its stack's dyn_size missing */
	size_t len = un_sample(rec, PERF_SAMPLE_REGS_ABI_64);
	struct perf_event_header h;
	memcpy(&h, rec, 8);
	h.size = (uint16_t)(len - 16);
	memcpy(rec, &h, 8);
	assert_int_equal(code_prof_record(&p, rec, len - 16, 0, 1000000), 1);
	assert_int_equal(p.samples, 2);
	code_prof_compact(&p);
	for (size_t i = 0; i < p.ncells; i++)
		assert_int_equal(p.cells[i].stk, UINT32_MAX);
	assert_int_equal(p.nframes, 0);
	code_prof_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_unwinds_own_stack),
	    cmocka_unit_test(test_without_registers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
