/* bench-code-sym.c: how long the code source's symbolization takes (issue 16:
 * 10^6 samples at 100 000 distinct addresses in <= 1 s).  A profile of
 * NSAMPLES samples spread over NADDR distinct offsets of the executable
 * segment of a real binary with debug info (default: mcview, built -O2 -g),
 * in 1000 intervals, goes through code_sym_run (libdwfl, one Dwfl per
 * object, each address once); then ADDR2LINE addresses of the same set
 * through `addr2line -f -i -e BINARY` one process per address, as a script
 * would, for the per-address cost beside it.
 *
 *     code-sym [BINARY [NSAMPLES [NADDR [ADDR2LINE]]]]
 *
 * Prints: samples, addresses, locations, seconds, and addr2line's
 * per-address time and its extrapolation to NADDR.  CODE_SYM_DUMP=FILE
 * writes every location there (offset, how, function|inlined|file:line).
 */
#include <gelf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../recorder/sources/code/code-prof.h"

static double cs_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The first executable PT_LOAD of path: file offset and size. */
static int cs_text(const char *path, uint64_t *off, uint64_t *size, uint64_t *vaddr)
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t n;
	int rc = -1;
	if (e && elf_getphdrnum(e, &n) == 0)
		for (size_t i = 0; i < n && rc; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
				*off = ph.p_offset;
				*size = ph.p_filesz;
				*vaddr = ph.p_vaddr;
				rc = 0;
			}
		}
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

int main(int argc, char **argv)
{
	const char *bin = argc > 1 ? argv[1] : "build/mcview";
	long nsamp = argc > 2 ? atol(argv[2]) : 1000000;
	long naddr = argc > 3 ? atol(argv[3]) : 100000;
	long na2l = argc > 4 ? atol(argv[4]) : 200;
	uint64_t off, size, vaddr;
	if (cs_text(bin, &off, &size, &vaddr) || naddr < 1 || nsamp < naddr) {
		fprintf(stderr, "code-sym: %s: no executable segment (or bad counts)\n", bin);
		return 1;
	}
	code_prof p = {0};
	p.unknown_obj = UINT32_MAX;
	/* one process mapping the binary's text at 0x400000 */
	uint64_t base = 0x400000;
	if (code_prof_map(&p, 1, base, size, off, bin, NULL, 0))
		return 1;
	uint64_t step = size / (uint64_t)naddr;
	if (step == 0)
		step = 1;
	srand(7);
	for (long s = 0; s < nsamp; s++) {
		uint64_t k = (uint64_t)(s % naddr);
		code_prof_sample(&p, 1, base + k * step, 0, s * 1000 / nsamp);
	}
	mcz_code c;
	code_sym_out out;
	double t0 = cs_now();
	if (code_sym_run(&p, 0, 100000000, &c, &out))
		return 1;
	double dt = cs_now() - t0;
	printf("symbolize %ld samples, %zu addresses -> %zu locations: %.3f s\n", nsamp, out.naddrs,
	       c.nlocs, dt);
	/* CODE_SYM_DUMP=FILE: every location, to compare two symbolizers */
	const char *dump = getenv("CODE_SYM_DUMP");
	FILE *df = dump ? fopen(dump, "w") : NULL;
	for (size_t i = 0; df && i < c.nlocs; i++)
		fprintf(df, "%llx %d %s|%s|%s:%u\n", (unsigned long long)c.locs[i].offset,
			c.locs[i].how, c.locs[i].function, c.locs[i].inlined, c.locs[i].file,
			c.locs[i].line);
	if (df)
		fclose(df);
	/* addr2line, one process per address, on a spread subset */
	double a2l = 0;
	long done = 0;
	for (long i = 0; i < na2l; i++) {
		uint64_t k = (uint64_t)i * (uint64_t)naddr / (uint64_t)na2l;
		char cmd[1200];
		snprintf(cmd, sizeof cmd, "addr2line -f -i -e '%s' 0x%llx >/dev/null 2>&1", bin,
			 (unsigned long long)(vaddr + k * step));
		double a = cs_now();
		if (system(cmd) == 0)
			done++;
		a2l += cs_now() - a;
	}
	if (done)
		printf("addr2line per address: %.2f ms (%ld runs); for %ld addresses: %.1f s (%.0fx)\n",
		       1e3 * a2l / (double)done, done, naddr, a2l / (double)done * (double)naddr,
		       a2l / (double)done * (double)naddr / (dt > 0 ? dt : 1e-9));
	else
		printf("addr2line: not available\n");
	code_sym_free(&out);
	code_prof_free(&p);
	return 0;
}
