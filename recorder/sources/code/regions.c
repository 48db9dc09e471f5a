/* regions.c: the regions source — the application's own regions and
 * kernels through the tool interfaces its runtime loads, without rebuilding
 * it: Kokkos Tools (libmcz-kokkos.so, named in KOKKOS_TOOLS_LIBS and
 * KOKKOS_PROFILE_LIBRARY) and OMPT (libmcz-ompt.so, in OMP_TOOL_LIBRARIES).
 *
 * probe() finds the connectors beside mcrec (a build tree) or in
 * ../lib/mcz/ (an install), makes the page they share with mcrec
 * (recorder/connect/regions-page.h, a memfd passed down by number) and sets
 * the variables for the command.  A variable the user set stays theirs:
 * KOKKOS_TOOLS_LIBS is taken over and their tool loaded by the connector,
 * which passes every event on to it (MCZ_KOKKOS_CHAIN); OMP_TOOL_LIBRARIES
 * gets ours after theirs (the runtime takes the first tool that accepts);
 * OMP_TOOL=disabled is obeyed.  Each is said in one line.
 *
 * Regions and point events come as marks through the mark source's socket.
 * Kernels are added up in the page; at each tick (idle()) the label that
 * ran longest since the last becomes a point mark "kokkos kernel: LABEL"
 * at the tick's start, when it changed ("kokkos kernel:" alone: none ran),
 * so the kernel row (viewer/views/draw/kernel-row.c) has one mark per change
 * and interval at most, whatever the kernel rate.  sync() writes what the
 * page holds as metadata (regions.*, ompt.*: mcrec(1), THE FILE; keys
 * a reader need not know, SPEC.md 5.1).  No streams.
 */
#include "../../connect/regions-page.h"
#include "../../source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define REGIONS_KERNEL_MARK "kokkos kernel: "

struct regions_priv {
	regions_page *page;
	int fd;
	unsigned loaded;        /* REC_NO_* bits of the connectors named for the command */
	uint64_t last_ns[REGIONS_KERNELS + 1]; /* per label at the last tick; [K] = other */
	uint32_t owed_id;       /* a kernel running at the last tick: what it was credited */
	int64_t owed_t0;
	uint64_t owed_ns;
	int64_t t_last;         /* the last tick */
	int shown;              /* 1 + label of the last kernel mark, 0 none yet, -1 "none" */
	uint64_t meta_sum;      /* what the metadata said last: written again on change */
};

/* dir of this mcrec, then ../lib/mcz of it: the connector's path in buf */
static int regions_find(const char *name, char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return -1;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if ((size_t)snprintf(buf, len, "%s/%s", self, name) < len && access(buf, R_OK) == 0)
		return 0;
	if ((size_t)snprintf(buf, len, "%s/../lib/mcz/%s", self, name) < len && access(buf, R_OK) == 0)
		return 0;
	return -1;
}

__attribute__((format(printf, 2, 3))) static void regions_say(const rec_ctx *c, const char *fmt, ...)
{
	if (c->quiet || c->listing)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("mcrec: regions: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Kokkos Tools: ours in both variables, theirs passed on to the connector. */
static void regions_kokkos(const rec_ctx *c, const char *lib)
{
	const char *tools = getenv("KOKKOS_TOOLS_LIBS"), *prof = getenv("KOKKOS_PROFILE_LIBRARY");
	const char *theirs = tools && *tools ? tools : prof && *prof ? prof : NULL;
	if (theirs) {
		setenv(REGIONS_CHAIN_ENV, theirs, 1);
		regions_say(c, "your Kokkos tool %s is loaded by mcrec's connector %s, which "
			    "passes every Kokkos event on to it", theirs, lib);
	}
	setenv("KOKKOS_TOOLS_LIBS", lib, 1);
	setenv("KOKKOS_PROFILE_LIBRARY", lib, 1);
}

/* OMPT: ours after the user's, unless they turned tools off. */
static int regions_ompt(const rec_ctx *c, const char *lib)
{
	const char *off = getenv("OMP_TOOL"), *theirs = getenv("OMP_TOOL_LIBRARIES");
	if (off && !strcmp(off, "disabled")) {
		regions_say(c, "OMP_TOOL=disabled: no OMPT figures");
		return 0;
	}
	if (theirs && *theirs) {
		char *both = malloc(strlen(theirs) + strlen(lib) + 2);
		if (!both)
			return 0;
		sprintf(both, "%s:%s", theirs, lib);
		setenv("OMP_TOOL_LIBRARIES", both, 1);
		free(both);
		regions_say(c, "OMP_TOOL_LIBRARIES is yours (%s): mcrec's OMPT tool %s comes "
			    "after it, and runs only if yours declines", theirs, lib);
	} else
		setenv("OMP_TOOL_LIBRARIES", lib, 1);
	return 1;
}

static int src_regions_probe(rec_source *s, const rec_ctx *c)
{
	char kok[PATH_MAX], omp[PATH_MAX];
	int want_k = !(c->no_regions & REC_NO_KOKKOS) && regions_find("libmcz-kokkos.so", kok, sizeof kok) == 0;
	int want_o = !(c->no_regions & REC_NO_OMPT) && regions_find("libmcz-ompt.so", omp, sizeof omp) == 0;
	if ((c->no_regions & (REC_NO_KOKKOS | REC_NO_OMPT)) == (REC_NO_KOKKOS | REC_NO_OMPT))
		return rec_unavailable(s, "turned off (--no-kokkos --no-ompt)", "");
	if (!want_k && !want_o)
		return rec_unavailable(s, "no connector beside mcrec (libmcz-kokkos.so, libmcz-ompt.so)",
				       "build mcz with make, or make install");
	if (c->listing)
		return 0; /* --list: nothing set, nothing made */
	struct regions_priv *p = calloc(1, sizeof *p);
	int fd = memfd_create("mcz-regions", 0); /* not CLOEXEC: the command maps it */
	if (!p || fd < 0 || ftruncate(fd, sizeof(regions_page)) != 0) {
		free(p);
		if (fd >= 0)
			close(fd);
		return rec_unavailable(s, "no shared page (memfd_create)", strerror(errno));
	}
	p->page = mmap(NULL, sizeof(regions_page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p->page == MAP_FAILED) {
		close(fd);
		free(p);
		return rec_unavailable(s, "no shared page (mmap)", strerror(errno));
	}
	p->fd = fd;
	p->page->magic = REGIONS_PAGE_MAGIC;
	p->page->version = REGIONS_PAGE_VERSION;
	char num[32];
	snprintf(num, sizeof num, "%d", fd);
	setenv(REGIONS_PAGE_ENV, num, 1);
	snprintf(num, sizeof num, "%g", c->region_rate);
	setenv(REGIONS_RATE_ENV, num, 1);
	if (want_k) {
		regions_kokkos(c, kok);
		p->loaded |= REC_NO_KOKKOS;
	}
	if (want_o && regions_ompt(c, omp))
		p->loaded |= REC_NO_OMPT;
	s->priv = p;
	return 0;
}

static int src_regions_streams(rec_source *s, const rec_ctx *c, rec_streams *out)
{
	s->on_request = "the application's regions, kernels and fences (Kokkos Tools: "
			"KOKKOS_TOOLS_LIBS), OpenMP threads' barrier waits (OMPT: "
			"OMP_TOOL_LIBRARIES, libomp), as marks and metadata";
	return 0;
}

static int src_regions_start(rec_source *s, const rec_ctx *c)
{
	struct regions_priv *p = s->priv;
	if (p)
		p->t_last = regions_now();
	return 0;
}

/* The label that ran longest since the last tick, as a mark when it changed. */
static void src_regions_idle(rec_source *s)
{
	struct regions_priv *p = s->priv;
	if (!p)
		return;
	regions_page *g = p->page;
	int64_t now = regions_now();
	uint32_t nk = atomic_load_explicit(&g->nkernels, memory_order_acquire);
	if (!nk)
		return;
	nk = nk > REGIONS_KERNELS ? REGIONS_KERNELS : nk;
	uint32_t run = atomic_load(&g->running);
	int64_t run_t0 = atomic_load(&g->running_t0);
	uint64_t best = 0;
	int pick = -1;
	for (uint32_t i = 0; i < nk; i++) {
		uint64_t ns = atomic_load(&g->kernel[i].ns), d = ns - p->last_ns[i];
		p->last_ns[i] = ns;
		if (p->owed_id == i + 1) { /* credited while it ran: not twice */
			uint64_t o = d < p->owed_ns ? d : p->owed_ns;
			d -= o;
			p->owed_ns -= o;
		}
		if (run == i + 1 && run_t0 < now) { /* running now: its time so far in this interval */
			int64_t from = run_t0 > p->t_last ? run_t0 : p->t_last;
			uint64_t c = (uint64_t)(now - from);
			if (p->owed_id != run || p->owed_t0 != run_t0)
				p->owed_id = run, p->owed_t0 = run_t0, p->owed_ns = 0;
			p->owed_ns += c;
			d += c;
		}
		if (d > best)
			best = d, pick = (int)i;
	}
	int show = pick >= 0 ? pick + 1 : -1;
	if (show != p->shown) {
		char text[sizeof REGIONS_KERNEL_MARK + REGIONS_NAME_MAX];
		snprintf(text, sizeof text, "%s%s", REGIONS_KERNEL_MARK,
			 pick >= 0 ? g->kernel[pick].name : "");
		if (rec_mark_post(p->t_last, MCZ_MARK_POINT, (uint32_t)atomic_load(&g->owner), text) == 0)
			p->shown = show;
	}
	p->t_last = now;
}

static void regions_meta_u64(mcz_writer *w, const char *key, uint64_t v)
{
	char num[32];
	snprintf(num, sizeof num, "%llu", (unsigned long long)v);
	mcz_writer_meta(w, key, num);
}

/* ompt.*: each thread's useful and waiting seconds, as threads.c counts them */
static void regions_meta_ompt(mcz_writer *w, regions_page *g)
{
	uint32_t n = atomic_load(&g->nthreads);
	n = n > REGIONS_THREADS ? REGIONS_THREADS : n;
	int64_t t0 = atomic_load(&g->ompt_t0), t1 = atomic_load(&g->ompt_t1);
	if (!t1)
		t1 = regions_now();
	double span = (double)(t1 - t0) * 1e-9, par = (double)atomic_load(&g->parallel_ns) * 1e-9;
	char useful[REGIONS_THREADS * 18 + 40] = "", wait[REGIONS_THREADS * 18 + 40] = "";
	size_t au = 0, aw = 0;
	for (uint32_t i = 0; i < n && au + 32 < sizeof useful && aw + 32 < sizeof wait; i++) {
		double task = (double)atomic_load(&g->thread[i].task_ns) * 1e-9;
		double wt = (double)atomic_load(&g->thread[i].wait_ns) * 1e-9;
		double u = task - wt + (i == 0 && span > par ? span - par : 0);
		/* under 1e9 s: at most 17 bytes each, 64 of them fit */
		au += (size_t)snprintf(useful + au, sizeof useful - au, "%s%.6f", i ? " " : "",
				       u > 0 && u < 1e9 ? u : 0);
		aw += (size_t)snprintf(wait + aw, sizeof wait - aw, "%s%.6f", i ? " " : "",
				       wt < 1e9 ? wt : 0);
	}
	regions_meta_u64(w, "ompt.threads", n);
	mcz_writer_meta(w, "ompt.useful_s", useful);
	mcz_writer_meta(w, "ompt.sync_s", wait);
	char num[32];
	snprintf(num, sizeof num, "%.6f", span);
	mcz_writer_meta(w, "ompt.span_s", num);
	regions_meta_u64(w, "ompt.parallel_regions", atomic_load(&g->parallels));
}

/* The page's figures as metadata, when they changed since the last sync. */
static int src_regions_sync(rec_source *s, mcz_writer *w, int64_t t0_mono)
{
	struct regions_priv *p = s->priv;
	if (!p)
		return 0;
	regions_page *g = p->page;
	uint64_t sum = atomic_load(&g->events) + atomic_load(&g->kernels) + atomic_load(&g->nthreads) +
		       atomic_load(&g->parallels) + atomic_load(&g->ompt_t1) + atomic_load(&g->kokkos);
	if (sum == p->meta_sum)
		return 0;
	p->meta_sum = sum;
	uint32_t ver = atomic_load(&g->kokkos);
	if (ver) {
		char v[64];
		snprintf(v, sizeof v, "Kokkos Tools interface %u", ver);
		mcz_writer_meta(w, "regions.kokkos", v);
		mcz_writer_meta(w, "regions.kernel_marks", REGIONS_KERNEL_MARK);
		regions_meta_u64(w, "regions.kernels", atomic_load(&g->kernels));
		regions_meta_u64(w, "regions.kernel_labels", atomic_load(&g->nkernels));
		regions_meta_u64(w, "regions.events", atomic_load(&g->events));
		regions_meta_u64(w, "regions.dropped", atomic_load(&g->dropped));
	}
	if (atomic_load(&g->ompt))
		regions_meta_ompt(w, g);
	return 0;
}

static int src_regions_finish(rec_source *s, mcz_writer *w, int64_t t0_mono, char *msg, size_t len)
{
	struct regions_priv *p = s->priv;
	if (!p)
		return 0;
	regions_page *g = p->page;
	src_regions_sync(s, w, t0_mono);
	size_t at = 0;
	if (atomic_load(&g->kokkos))
		at += (size_t)snprintf(msg, len, "regions: Kokkos: %llu kernels of %u labels, %llu events, "
				       "%llu marks dropped (--region-rate)",
				       (unsigned long long)atomic_load(&g->kernels), atomic_load(&g->nkernels),
				       (unsigned long long)atomic_load(&g->events),
				       (unsigned long long)atomic_load(&g->dropped));
	if (atomic_load(&g->ompt) && at < len)
		snprintf(msg + at, len - at, "%sOMPT: %u threads, %llu parallel regions",
			 at ? "; " : "regions: ", atomic_load(&g->nthreads),
			 (unsigned long long)atomic_load(&g->parallels));
	return 0;
}

static void src_regions_free(rec_source *s)
{
	struct regions_priv *p = s->priv;
	if (!p)
		return;
	munmap(p->page, sizeof(regions_page));
	close(p->fd);
	free(p);
	s->priv = NULL;
}

const rec_source_ops src_regions_ops = {
	"regions", "", src_regions_probe, src_regions_streams, src_regions_start,
	NULL, NULL, src_regions_free, src_regions_finish, src_regions_idle, src_regions_sync, NULL,
};
