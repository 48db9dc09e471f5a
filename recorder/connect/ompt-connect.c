/* ompt-connect.c: libmcz-ompt.so, mcrec's OMPT tool — each OpenMP thread's
 * time in parallel regions and at barriers, exact, from a runtime that
 * implements OMPT (LLVM's libomp, Intel's; GCC's libgomp does not, and
 * there the sampled figures stay alone).  mcrec names it in
 * OMP_TOOL_LIBRARIES (recorder/sources/code/regions.c); the runtime calls
 * ompt_start_tool, then the callbacks below:
 *
 *   thread_begin          the thread's number, in the order threads began
 *   implicit_task         time in the implicit tasks of parallel regions
 *   sync_region_wait      time waiting at barriers, taskwait, taskgroup
 *   parallel_begin/end    the initial thread's time in parallel regions
 *
 * all added to the page mcrec reads (regions-page.h), no system call in
 * any callback.  A thread's useful time is its task time less its waits,
 * and for the initial thread also the time outside parallel regions, as a
 * thread's code samples count it (viewer/analysis/code/threads.c).
 *
 * The OMPT types are declared here from the OpenMP 5.0 specification
 * (section 4), not taken from a runtime's omp-tools.h: the tool builds with
 * any C compiler.
 */
#include <stdint.h>
#include <stdio.h>

#include "regions-page.h"

#define OC_EXPORT __attribute__((visibility("default")))

/* ---- the part of the OMPT interface used (OpenMP 5.0, 4.x) ----------------------- */

typedef union oc_data { uint64_t value; void *ptr; } oc_data;
typedef void (*oc_callback)(void);
typedef oc_callback (*oc_lookup)(const char *name);
typedef int (*oc_set_callback)(int event, oc_callback cb);
typedef struct oc_start_result {
	int (*initialize)(oc_lookup lookup, int initial_device_num, oc_data *tool_data);
	void (*finalize)(oc_data *tool_data);
	oc_data tool_data;
} oc_start_result;

enum {
	OC_CB_THREAD_BEGIN = 1,
	OC_CB_PARALLEL_BEGIN = 3,
	OC_CB_PARALLEL_END = 4,
	OC_CB_IMPLICIT_TASK = 7,
	OC_CB_SYNC_REGION_WAIT = 16,
	OC_SCOPE_BEGIN = 1,
	OC_SCOPE_END = 2,
	OC_TASK_INITIAL = 1,
	OC_SET_NEVER = 1,
};

OC_EXPORT oc_start_result *ompt_start_tool(unsigned int omp_version, const char *runtime_version);

/* ---- the tool --------------------------------------------------------------------------- */

static regions_page *oc_page;
static __thread int oc_me = -1;        /* this thread's number, -1 not yet */
static __thread int64_t oc_task_t0, oc_wait_t0, oc_par_t0;
static __thread int oc_par_depth;

static regions_thread *ompt_connect_thread(void)
{
	if (oc_me < 0)
		oc_me = (int)atomic_fetch_add(&oc_page->nthreads, 1);
	return oc_me < REGIONS_THREADS ? &oc_page->thread[oc_me] : NULL;
}

static void ompt_connect_thread_begin(int type, oc_data *thread_data)
{
	(void)ompt_connect_thread();
}

static void ompt_connect_implicit_task(int endpoint, oc_data *parallel, oc_data *task,
				       unsigned int team, unsigned int index, int flags)
{
	if (flags & OC_TASK_INITIAL)
		return;
	regions_thread *t = ompt_connect_thread();
	if (endpoint == OC_SCOPE_BEGIN)
		oc_task_t0 = regions_now();
	else if (endpoint == OC_SCOPE_END && t && oc_task_t0)
		atomic_fetch_add(&t->task_ns, (uint64_t)(regions_now() - oc_task_t0)), oc_task_t0 = 0;
}

static void ompt_connect_sync_wait(int kind, int endpoint, oc_data *parallel, oc_data *task,
				   const void *codeptr)
{
	regions_thread *t = ompt_connect_thread();
	if (endpoint == OC_SCOPE_BEGIN)
		oc_wait_t0 = regions_now();
	else if (endpoint == OC_SCOPE_END && t && oc_wait_t0) {
		atomic_fetch_add(&t->wait_ns, (uint64_t)(regions_now() - oc_wait_t0));
		atomic_fetch_add(&t->barriers, 1);
		oc_wait_t0 = 0;
	}
}

static void ompt_connect_parallel_begin(oc_data *task, const void *frame, oc_data *parallel,
					unsigned int requested, int flags, const void *codeptr)
{
	if (oc_par_depth++ == 0)
		oc_par_t0 = regions_now();
}

static void ompt_connect_parallel_end(oc_data *parallel, oc_data *task, int flags,
				      const void *codeptr)
{
	if (oc_par_depth > 0 && --oc_par_depth == 0 && ompt_connect_thread() == &oc_page->thread[0]) {
		atomic_fetch_add(&oc_page->parallel_ns, (uint64_t)(regions_now() - oc_par_t0));
		atomic_fetch_add(&oc_page->parallels, 1);
	}
}

static int ompt_connect_init(oc_lookup lookup, int device, oc_data *tool_data)
{
	oc_set_callback set = (oc_set_callback)lookup("ompt_set_callback");
	if (!set)
		return 0;
	int on = set(OC_CB_SYNC_REGION_WAIT, (oc_callback)ompt_connect_sync_wait) > OC_SET_NEVER &&
		 set(OC_CB_IMPLICIT_TASK, (oc_callback)ompt_connect_implicit_task) > OC_SET_NEVER;
	set(OC_CB_THREAD_BEGIN, (oc_callback)ompt_connect_thread_begin);
	set(OC_CB_PARALLEL_BEGIN, (oc_callback)ompt_connect_parallel_begin);
	set(OC_CB_PARALLEL_END, (oc_callback)ompt_connect_parallel_end);
	if (!on) {
		fprintf(stderr, "mcz-ompt: the OpenMP runtime gives no barrier waits: thread "
			"figures from samples only\n");
		return 0;
	}
	(void)ompt_connect_thread(); /* the initial thread is number 0 */
	atomic_store(&oc_page->ompt_t0, regions_now());
	atomic_store(&oc_page->ompt, 1);
	return 1; /* keep the tool */
}

static void ompt_connect_fini(oc_data *tool_data)
{
	atomic_store(&oc_page->ompt_t1, regions_now());
}

OC_EXPORT oc_start_result *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
	static oc_start_result r = {ompt_connect_init, ompt_connect_fini, {0}};
	oc_page = regions_page_map();
	/* a second OpenMP process under one recording: its threads are not the first's */
	if (!oc_page || !regions_page_claim(oc_page) || atomic_load(&oc_page->ompt))
		return NULL;
	return &r;
}
