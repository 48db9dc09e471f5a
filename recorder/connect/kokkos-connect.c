/* kokkos-connect.c: libmcz-kokkos.so, mcrec's Kokkos Tools library — the
 * application's own regions and kernels, from a Kokkos program that was not
 * rebuilt.  mcrec names it in KOKKOS_TOOLS_LIBS and KOKKOS_PROFILE_LIBRARY
 * (recorder/sources/code/regions.c); Kokkos dlopens it and calls the kokkosp_*
 * functions below (the C interface of Kokkos_Profiling_C_Interface.h,
 * versions 20150628 to this day's 2021xxxx).
 *
 *   push/pop_profile_region   a BEGIN/END mark named as the region (nesting
 *                             kept: an END closes the innermost open one)
 *   begin/end_parallel_*      time per kernel label, added up in the page
 *                             mcrec reads at every tick (regions-page.h):
 *                             no system call per kernel
 *   begin_fence, deep_copy,   point marks "fence: NAME", "deep_copy: DST <-
 *   profile_event             SRC (N B)", the event's text
 *   allocate/deallocate       counted only
 *
 * Marks cost a send() each; at most MCZ_REGION_RATE (mcrec --region-rate)
 * leave per second, the others are counted in the page as dropped (mcrec
 * writes the figure as metadata); a region whose BEGIN was dropped drops
 * its END too, so nesting stays whole.
 *
 * The user's own tool (MCZ_KOKKOS_CHAIN: the KOKKOS_TOOLS_LIBS they had
 * set) is dlopened at init and every callback above is passed on to it,
 * the kernel ids it gives kept apart from ours.  The tuning and tool
 * programming interfaces (Kokkos 3.3 and later) are not passed on.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../mcmark.h"
#include "regions-page.h"

#define KC_EXPORT __attribute__((visibility("default")))
#define KC_MIN_VERSION 20150628ULL
#define KC_MAX_VERSION 20991231ULL
#define KC_HASH 1024    /* open addressing over labels, > 2 x REGIONS_KERNELS */
#define KC_DEPTH 64     /* regions whose drop is remembered */
#define KC_FLIGHT 64    /* kernels begun and not yet ended (asynchronous spaces) */

struct kc_space { char name[64]; };
struct kc_devinfo { size_t id; };

typedef void (*kc_init_fn)(int, uint64_t, uint32_t, struct kc_devinfo *);
typedef void (*kc_void_fn)(void);
typedef void (*kc_begin_fn)(const char *, uint32_t, uint64_t *);
typedef void (*kc_end_fn)(uint64_t);
typedef void (*kc_name_fn)(const char *);
typedef void (*kc_data_fn)(struct kc_space, const char *, const void *, uint64_t);
typedef void (*kc_copy_fn)(struct kc_space, const char *, const void *, struct kc_space,
			   const char *, const void *, uint64_t);
typedef void (*kc_section_fn)(const char *, uint32_t *);
typedef void (*kc_sid_fn)(uint32_t);
typedef void (*kc_dual_fn)(const char *, const void *, bool);
typedef void (*kc_meta_fn)(const char *, const char *);
typedef void (*kc_args_fn)(int, char **);
typedef void (*kc_help_fn)(char *);

/* The user's tool, where they had one: its callbacks, NULL where absent. */
static struct kc_chain {
	void *lib;
	kc_init_fn init;
	kc_void_fn finalize, pop, end_copy;
	kc_begin_fn begin_for, begin_reduce, begin_scan, begin_fence;
	kc_end_fn end_for, end_reduce, end_scan, end_fence;
	kc_name_fn push, event;
	kc_data_fn alloc, dealloc;
	kc_copy_fn begin_copy;
	kc_section_fn create_section;
	kc_sid_fn start_section, stop_section, destroy_section;
	kc_dual_fn dual_sync, dual_modify;
	kc_meta_fn metadata;
	kc_args_fn parse_args;
	kc_help_fn help;
} kc_user;

static struct kc_state {
	regions_page *page;  /* NULL: not under mcrec */
	int owner;           /* this process adds kernels to the page */
	int on;              /* the interface version was one we know */
	double rate;         /* marks per second */
	int64_t sec;         /* the second being counted */
	double sent;         /* marks sent in it */
	int depth;
	unsigned char dropped_at[KC_DEPTH]; /* the BEGIN at each depth was dropped */
	pthread_mutex_t lock; /* the labels' table */
	int32_t slot[KC_HASH]; /* 1 + page index, 0 empty */
	uint64_t next_kid;
	struct kc_flight {
		uint64_t kid, user_kid;
		int idx;         /* page index, -1 other */
		int64_t t0;
	} flight[KC_FLIGHT];
} kc = {.lock = PTHREAD_MUTEX_INITIALIZER, .rate = 1000};

/* The interface, declared for -Wmissing-prototypes (Kokkos looks them up by name). */
KC_EXPORT void kokkosp_init_library(const int, const uint64_t, const uint32_t, struct kc_devinfo *);
KC_EXPORT void kokkosp_finalize_library(void);
KC_EXPORT void kokkosp_begin_parallel_for(const char *, const uint32_t, uint64_t *);
KC_EXPORT void kokkosp_end_parallel_for(const uint64_t);
KC_EXPORT void kokkosp_begin_parallel_reduce(const char *, const uint32_t, uint64_t *);
KC_EXPORT void kokkosp_end_parallel_reduce(const uint64_t);
KC_EXPORT void kokkosp_begin_parallel_scan(const char *, const uint32_t, uint64_t *);
KC_EXPORT void kokkosp_end_parallel_scan(const uint64_t);
KC_EXPORT void kokkosp_push_profile_region(const char *);
KC_EXPORT void kokkosp_pop_profile_region(void);
KC_EXPORT void kokkosp_begin_fence(const char *, const uint32_t, uint64_t *);
KC_EXPORT void kokkosp_end_fence(const uint64_t);
KC_EXPORT void kokkosp_begin_deep_copy(struct kc_space, const char *, const void *, struct kc_space,
				       const char *, const void *, uint64_t);
KC_EXPORT void kokkosp_end_deep_copy(void);
KC_EXPORT void kokkosp_profile_event(const char *);
KC_EXPORT void kokkosp_allocate_data(struct kc_space, const char *, const void *, uint64_t);
KC_EXPORT void kokkosp_deallocate_data(struct kc_space, const char *, const void *, uint64_t);
KC_EXPORT void kokkosp_create_profile_section(const char *, uint32_t *);
KC_EXPORT void kokkosp_start_profile_section(const uint32_t);
KC_EXPORT void kokkosp_stop_profile_section(const uint32_t);
KC_EXPORT void kokkosp_destroy_profile_section(const uint32_t);
KC_EXPORT void kokkosp_dual_view_sync(const char *, const void *, bool);
KC_EXPORT void kokkosp_dual_view_modify(const char *, const void *, bool);
KC_EXPORT void kokkosp_declare_metadata(const char *, const char *);
KC_EXPORT void kokkosp_parse_args(int, char **);
KC_EXPORT void kokkosp_print_help(char *);

/* ---- marks under the rate -------------------------------------------------------- */

static int kokkos_connect_allow(void)
{
	if (!kc.page || !kc.on)
		return 0;
	atomic_fetch_add(&kc.page->events, 1);
	int64_t s = regions_now() / 1000000000LL;
	if (s != kc.sec)
		kc.sec = s, kc.sent = 0;
	if (kc.sent >= kc.rate) {
		atomic_fetch_add(&kc.page->dropped, 1);
		return 0;
	}
	kc.sent++;
	return 1;
}

static void kokkos_connect_mark(char kind, const char *text)
{
	if (kokkos_connect_allow() && mcmark_send_(kind, text) != 0)
		atomic_fetch_add(&kc.page->dropped, 1);
}

/* ---- kernels in the page ------------------------------------------------------------ */

/* The page index of a label, published on first sight; -1 past the table. */
static int kokkos_connect_label(const char *name)
{
	uint32_t h = 2166136261u;
	size_t len = 0;
	for (const char *c = name; *c && len < REGIONS_NAME_MAX - 1; c++, len++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	regions_page *p = kc.page;
	int idx = -1;
	pthread_mutex_lock(&kc.lock);
	for (uint32_t i = h % KC_HASH, n = 0; n < KC_HASH; i = (i + 1) % KC_HASH, n++) {
		int32_t s = kc.slot[i];
		if (!s) {
			uint32_t k = atomic_load(&p->nkernels);
			if (k < REGIONS_KERNELS) {
				memcpy(p->kernel[k].name, name, len);
				p->kernel[k].name[len] = '\0';
				atomic_store_explicit(&p->nkernels, k + 1, memory_order_release);
				kc.slot[i] = (int32_t)k + 1;
				idx = (int)k;
			}
			break;
		}
		if (!strncmp(p->kernel[s - 1].name, name, len) && p->kernel[s - 1].name[len] == '\0') {
			idx = s - 1;
			break;
		}
	}
	pthread_mutex_unlock(&kc.lock);
	return idx;
}

static void kokkos_connect_begin(kc_begin_fn user, const char *name, uint32_t dev, uint64_t *kid)
{
	uint64_t mine = ++kc.next_kid, theirs = 0;
	if (user)
		user(name, dev, &theirs);
	*kid = mine;
	struct kc_flight *f = &kc.flight[mine % KC_FLIGHT];
	f->kid = mine;
	f->user_kid = theirs;
	f->idx = -2;
	if (!kc.owner || !kc.on)
		return;
	atomic_fetch_add(&kc.page->events, 1);
	f->idx = kokkos_connect_label(name ? name : "");
	f->t0 = regions_now();
	atomic_store(&kc.page->running_t0, f->t0);
	atomic_store(&kc.page->running, (uint32_t)(f->idx + 1));
}

static void kokkos_connect_end(kc_end_fn user, uint64_t kid)
{
	struct kc_flight *f = &kc.flight[kid % KC_FLIGHT];
	int known = f->kid == kid;
	if (user)
		user(known ? f->user_kid : kid);
	if (!known || f->idx == -2)
		return;
	uint64_t ns = (uint64_t)(regions_now() - f->t0);
	regions_page *p = kc.page;
	atomic_store(&p->running, 0);
	if (f->idx >= 0) {
		atomic_fetch_add(&p->kernel[f->idx].ns, ns);
		atomic_fetch_add(&p->kernel[f->idx].count, 1);
	} else
		atomic_fetch_add(&p->other_ns, ns);
	atomic_fetch_add(&p->kernels, 1);
	f->kid = 0;
}

/* ---- the user's tool ------------------------------------------------------------------ */

#define KC_SYM(field, name) (kc_user.field = (void *)dlsym(kc_user.lib, name))

static void kokkos_connect_chain(void)
{
	static int tried;
	const char *path = getenv(REGIONS_CHAIN_ENV);
	if (tried++ || !path || !*path)
		return;
	kc_user.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!kc_user.lib) {
		fprintf(stderr, "mcz-kokkos: your Kokkos tool %s did not load: %s\n", path, dlerror());
		return;
	}
	KC_SYM(init, "kokkosp_init_library"), KC_SYM(finalize, "kokkosp_finalize_library");
	KC_SYM(begin_for, "kokkosp_begin_parallel_for"), KC_SYM(end_for, "kokkosp_end_parallel_for");
	KC_SYM(begin_reduce, "kokkosp_begin_parallel_reduce");
	KC_SYM(end_reduce, "kokkosp_end_parallel_reduce");
	KC_SYM(begin_scan, "kokkosp_begin_parallel_scan"), KC_SYM(end_scan, "kokkosp_end_parallel_scan");
	KC_SYM(begin_fence, "kokkosp_begin_fence"), KC_SYM(end_fence, "kokkosp_end_fence");
	KC_SYM(push, "kokkosp_push_profile_region"), KC_SYM(pop, "kokkosp_pop_profile_region");
	KC_SYM(alloc, "kokkosp_allocate_data"), KC_SYM(dealloc, "kokkosp_deallocate_data");
	KC_SYM(begin_copy, "kokkosp_begin_deep_copy"), KC_SYM(end_copy, "kokkosp_end_deep_copy");
	KC_SYM(create_section, "kokkosp_create_profile_section");
	KC_SYM(start_section, "kokkosp_start_profile_section");
	KC_SYM(stop_section, "kokkosp_stop_profile_section");
	KC_SYM(destroy_section, "kokkosp_destroy_profile_section");
	KC_SYM(event, "kokkosp_profile_event");
	KC_SYM(dual_sync, "kokkosp_dual_view_sync"), KC_SYM(dual_modify, "kokkosp_dual_view_modify");
	KC_SYM(metadata, "kokkosp_declare_metadata");
	KC_SYM(parse_args, "kokkosp_parse_args"), KC_SYM(help, "kokkosp_print_help");
}

/* ---- the Kokkos Tools interface ------------------------------------------------------- */

KC_EXPORT void kokkosp_init_library(const int seq, const uint64_t version, const uint32_t ndev,
				    struct kc_devinfo *dev)
{
	kc.page = regions_page_map();
	const char *r = getenv(REGIONS_RATE_ENV);
	if (r && atof(r) >= 0)
		kc.rate = atof(r);
	kc.on = version >= KC_MIN_VERSION && version <= KC_MAX_VERSION;
	if (kc.page && !kc.on)
		fprintf(stderr, "mcz-kokkos: Kokkos Tools interface version %llu is not one mcrec "
			"knows (%llu to %llu): regions not recorded\n", (unsigned long long)version,
			KC_MIN_VERSION, KC_MAX_VERSION);
	if (kc.page && kc.on) {
		kc.owner = regions_page_claim(kc.page);
		if (kc.owner)
			atomic_store(&kc.page->kokkos, (uint32_t)(version % 100000000ULL));
	}
	kokkos_connect_chain();
	if (kc_user.init)
		kc_user.init(seq + 1, version, ndev, dev);
}

KC_EXPORT void kokkosp_finalize_library(void)
{
	if (kc_user.finalize)
		kc_user.finalize();
	for (; kc.depth > 0; kc.depth--) /* regions left open: closed at the end */
		if (kc.depth > KC_DEPTH || !kc.dropped_at[kc.depth - 1])
			kokkos_connect_mark('E', "");
}

KC_EXPORT void kokkosp_begin_parallel_for(const char *name, const uint32_t dev, uint64_t *kid)
{
	kokkos_connect_begin(kc_user.begin_for, name, dev, kid);
}

KC_EXPORT void kokkosp_end_parallel_for(const uint64_t kid)
{
	kokkos_connect_end(kc_user.end_for, kid);
}

KC_EXPORT void kokkosp_begin_parallel_reduce(const char *name, const uint32_t dev, uint64_t *kid)
{
	kokkos_connect_begin(kc_user.begin_reduce, name, dev, kid);
}

KC_EXPORT void kokkosp_end_parallel_reduce(const uint64_t kid)
{
	kokkos_connect_end(kc_user.end_reduce, kid);
}

KC_EXPORT void kokkosp_begin_parallel_scan(const char *name, const uint32_t dev, uint64_t *kid)
{
	kokkos_connect_begin(kc_user.begin_scan, name, dev, kid);
}

KC_EXPORT void kokkosp_end_parallel_scan(const uint64_t kid)
{
	kokkos_connect_end(kc_user.end_scan, kid);
}

KC_EXPORT void kokkosp_push_profile_region(const char *name)
{
	if (kc_user.push)
		kc_user.push(name);
	int sent = kokkos_connect_allow();
	if (sent && mcmark_send_('B', name ? name : "") != 0) {
		atomic_fetch_add(&kc.page->dropped, 1);
		sent = 0;
	}
	if (kc.depth < KC_DEPTH)
		kc.dropped_at[kc.depth] = !sent;
	kc.depth++;
}

KC_EXPORT void kokkosp_pop_profile_region(void)
{
	if (kc_user.pop)
		kc_user.pop();
	if (kc.depth <= 0)
		return;
	kc.depth--;
	if (kc.depth >= KC_DEPTH || !kc.dropped_at[kc.depth]) {
		/* an END is sent past the rate: its BEGIN went, and nesting needs it */
		if (kc.page && kc.on && mcmark_send_('E', "") != 0)
			atomic_fetch_add(&kc.page->dropped, 1);
	}
}

KC_EXPORT void kokkosp_begin_fence(const char *name, const uint32_t dev, uint64_t *fid)
{
	uint64_t theirs = 0;
	if (kc_user.begin_fence)
		kc_user.begin_fence(name, dev, &theirs);
	*fid = theirs;
	char text[MCMARK_TEXT_MAX];
	snprintf(text, sizeof text, "fence: %s", name ? name : "");
	kokkos_connect_mark('P', text);
}

KC_EXPORT void kokkosp_end_fence(const uint64_t fid)
{
	if (kc_user.end_fence)
		kc_user.end_fence(fid);
}

KC_EXPORT void kokkosp_begin_deep_copy(struct kc_space dst_space, const char *dst, const void *dst_ptr,
				       struct kc_space src_space, const char *src, const void *src_ptr,
				       uint64_t size)
{
	if (kc_user.begin_copy)
		kc_user.begin_copy(dst_space, dst, dst_ptr, src_space, src, src_ptr, size);
	char text[MCMARK_TEXT_MAX];
	snprintf(text, sizeof text, "deep_copy: %.80s <- %.80s (%llu B)", dst ? dst : "",
		 src ? src : "", (unsigned long long)size);
	kokkos_connect_mark('P', text);
}

KC_EXPORT void kokkosp_end_deep_copy(void)
{
	if (kc_user.end_copy)
		kc_user.end_copy();
}

KC_EXPORT void kokkosp_profile_event(const char *name)
{
	if (kc_user.event)
		kc_user.event(name);
	kokkos_connect_mark('P', name ? name : "");
}

KC_EXPORT void kokkosp_allocate_data(struct kc_space space, const char *label, const void *ptr,
				     uint64_t size)
{
	if (kc_user.alloc)
		kc_user.alloc(space, label, ptr, size);
	if (kc.page && kc.on)
		atomic_fetch_add(&kc.page->events, 1);
}

KC_EXPORT void kokkosp_deallocate_data(struct kc_space space, const char *label, const void *ptr,
				       uint64_t size)
{
	if (kc_user.dealloc)
		kc_user.dealloc(space, label, ptr, size);
	if (kc.page && kc.on)
		atomic_fetch_add(&kc.page->events, 1);
}

/* Passed on only: the user's tool sees what it saw without mcrec. */
KC_EXPORT void kokkosp_create_profile_section(const char *name, uint32_t *sid)
{
	if (kc_user.create_section)
		kc_user.create_section(name, sid);
}

KC_EXPORT void kokkosp_start_profile_section(const uint32_t sid)
{
	if (kc_user.start_section)
		kc_user.start_section(sid);
}

KC_EXPORT void kokkosp_stop_profile_section(const uint32_t sid)
{
	if (kc_user.stop_section)
		kc_user.stop_section(sid);
}

KC_EXPORT void kokkosp_destroy_profile_section(const uint32_t sid)
{
	if (kc_user.destroy_section)
		kc_user.destroy_section(sid);
}

KC_EXPORT void kokkosp_dual_view_sync(const char *label, const void *ptr, bool to_device)
{
	if (kc_user.dual_sync)
		kc_user.dual_sync(label, ptr, to_device);
}

KC_EXPORT void kokkosp_dual_view_modify(const char *label, const void *ptr, bool on_device)
{
	if (kc_user.dual_modify)
		kc_user.dual_modify(label, ptr, on_device);
}

KC_EXPORT void kokkosp_declare_metadata(const char *key, const char *value)
{
	if (kc_user.metadata)
		kc_user.metadata(key, value);
}

KC_EXPORT void kokkosp_parse_args(int argc, char **argv)
{
	kokkos_connect_chain(); /* called before init */
	if (kc_user.parse_args)
		kc_user.parse_args(argc, argv);
}

KC_EXPORT void kokkosp_print_help(char *prog)
{
	if (kc_user.help)
		kc_user.help(prog);
}
