/* connect-cost.c: the time mcrec's connectors add per event, measured by
 * calling them directly (tests/bench/bench-regions.sh).  The connector is
 * dlopened from the build folder with a shared page set up as mcrec's
 * regions source sets it (recorder/connect/regions-page.h), then:
 *
 *   kokkos   kokkosp_begin_parallel_for + kokkosp_end_parallel_for of one
 *            label, the pair per kernel
 *   ompt     ompt_start_tool, the tool's initialize with a lookup of our
 *            own that keeps the callbacks, then per parallel region and
 *            thread what libomp calls: implicit_task begin and end,
 *            sync_region_wait begin and end
 *
 *     connect-cost BUILD_DIR [N]    ->  "kokkos_ns 182.3\nompt_ns 95.1"
 *
 * The fastest of 7 batches of N (default 200000): the cost when nothing
 * else takes the CPU, which is what a kernel pays.
 *
 *     connect-cost --run BUILD_DIR -- COMMAND [ARGS]
 *
 * runs the command with both connectors loaded and a page of its own, as
 * under mcrec but without mcrec's other work (its sampling threads take
 * CPU time the command's threads then wait for): the connectors' cost
 * end to end, beside the command run alone.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../../recorder/connect/regions-page.h"

typedef void (*init_fn)(int, uint64_t, uint32_t, void *);
typedef void (*begin_fn)(const char *, uint32_t, uint64_t *);
typedef void (*end_fn)(uint64_t);
typedef void (*cb_fn)(void);
typedef struct start_result {
	int (*initialize)(cb_fn (*lookup)(const char *), int, void *);
	void (*finalize)(void *);
	uint64_t data;
} start_result;
typedef void (*task_fn)(int, void *, void *, unsigned, unsigned, int);
typedef void (*wait_fn)(int, int, void *, void *, const void *);

static cb_fn cbs[32];

static int cost_set(int event, cb_fn cb)
{
	if (event >= 0 && event < 32)
		cbs[event] = cb;
	return 5; /* ompt_set_always */
}

static cb_fn cost_lookup(const char *name)
{
	return (cb_fn)cost_set;
}

static double cost_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void *cost_open(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		fprintf(stderr, "connect-cost: %s\n", dlerror());
	return h;
}

/* A page as mcrec's regions source makes one, named in the environment. */
static regions_page *cost_page(void)
{
	int fd = memfd_create("cost", 0);
	if (fd < 0 || ftruncate(fd, sizeof(regions_page)))
		return NULL;
	regions_page *p = mmap(NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	p->magic = REGIONS_PAGE_MAGIC;
	p->version = REGIONS_PAGE_VERSION;
	char num[16];
	snprintf(num, sizeof num, "%d", fd);
	setenv(REGIONS_PAGE_ENV, num, 1);
	return p;
}

static int cost_run(const char *dir, char **cmd)
{
	char k[4096], o[4096];
	snprintf(k, sizeof k, "%s/libmcz-kokkos.so", dir);
	snprintf(o, sizeof o, "%s/libmcz-ompt.so", dir);
	if (!cost_page())
		return 1;
	setenv("KOKKOS_TOOLS_LIBS", k, 1);
	setenv("KOKKOS_PROFILE_LIBRARY", k, 1);
	setenv("OMP_TOOL_LIBRARIES", o, 1);
	execvp(cmd[0], cmd);
	perror(cmd[0]);
	return 127;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "--run") && !strcmp(argv[3], "--"))
		return cost_run(argv[2], argv + 4);
	if (argc < 2) {
		fprintf(stderr, "usage: connect-cost BUILD_DIR [N] | --run BUILD_DIR -- COMMAND...\n");
		return 2;
	}
	long n = argc > 2 ? atol(argv[2]) : 200000;
	regions_page *p = cost_page();
	if (!p)
		return 1;

	void *k = cost_open(argv[1], "libmcz-kokkos.so");
	init_fn init = k ? (init_fn)dlsym(k, "kokkosp_init_library") : NULL;
	begin_fn begin = k ? (begin_fn)dlsym(k, "kokkosp_begin_parallel_for") : NULL;
	end_fn end = k ? (end_fn)dlsym(k, "kokkosp_end_parallel_for") : NULL;
	if (!init || !begin || !end)
		return 1;
	init(0, 20210225, 0, NULL);
	double best = 1e30;
	for (int b = 0; b < 7; b++) {
		double t0 = cost_now();
		for (long i = 0; i < n; i++) {
			uint64_t kid;
			begin("bench_kernel", 0, &kid);
			end(kid);
		}
		double each = (cost_now() - t0) / (double)n;
		best = each < best ? each : best;
	}
	if (atomic_load(&p->kernels) != 7 * (uint64_t)n)
		fprintf(stderr, "connect-cost: the page counted %llu kernels\n",
			(unsigned long long)atomic_load(&p->kernels));
	printf("kokkos_ns %.1f\n", best);

	void *o = cost_open(argv[1], "libmcz-ompt.so");
	start_result *(*start)(unsigned, const char *) = o ? (start_result * (*)(unsigned, const char *))
								  dlsym(o, "ompt_start_tool")
							    : NULL;
	start_result *r = start ? start(201611, "cost") : NULL;
	if (!r || !r->initialize(cost_lookup, 0, NULL) || !cbs[7] || !cbs[16])
		return 1;
	task_fn task = (task_fn)cbs[7];
	wait_fn wait = (wait_fn)cbs[16];
	best = 1e30;
	for (int b = 0; b < 7; b++) {
		double t0 = cost_now();
		for (long i = 0; i < n; i++) {
			task(1, NULL, NULL, 2, 0, 2);
			wait(9, 1, NULL, NULL, NULL);
			wait(9, 2, NULL, NULL, NULL);
			task(2, NULL, NULL, 2, 0, 2);
		}
		double each = (cost_now() - t0) / (double)n;
		best = each < best ? each : best;
	}
	printf("ompt_ns %.1f\n", best);
	return 0;
}
