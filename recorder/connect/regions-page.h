/* regions-page.h: the page mcrec shares with its connectors (the Kokkos
 * Tools library libmcz-kokkos.so and the OMPT tool libmcz-ompt.so), loaded
 * into the recorded command by the variables mcrec sets.
 *
 * Regions and point events travel as marks (recorder/mcmark.h, a datagram
 * each); what happens too often for a system call each — kernels of 10 us,
 * the waits of every thread at every barrier — is added up here with plain
 * stores, and mcrec's regions source (recorder/sources/code/regions.c) reads it
 * at every tick.  The page is a memfd the recorder maps and passes down by
 * number (REGIONS_PAGE_ENV); the first process of the command tree that
 * loads a connector owns it (`owner`, taken by compare-and-swap), others
 * send their marks but add nothing here.
 *
 *     regions_page *p = regions_page_map();   // NULL: not under mcrec
 *     if (p && regions_page_claim(p)) ... add to p->kernel[i]
 *
 * Writers publish a kernel's name before its index (nkernels, release);
 * readers take nkernels (acquire) and then the names below it.  Sums only
 * grow; a reader works with differences between two looks.
 */
#ifndef REGIONS_PAGE_H
#define REGIONS_PAGE_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define REGIONS_PAGE_ENV "MCZ_REGIONS_FD"
/* the user's own Kokkos tool, which libmcz-kokkos.so loads and calls too */
#define REGIONS_CHAIN_ENV "MCZ_KOKKOS_CHAIN"
/* marks per second a connector sends at most (mcrec --region-rate) */
#define REGIONS_RATE_ENV "MCZ_REGION_RATE"
#define REGIONS_PAGE_MAGIC 0x5267436dU /* "mCgR" */
#define REGIONS_PAGE_VERSION 1
#define REGIONS_KERNELS 256  /* distinct kernel labels kept; more are "other" */
#define REGIONS_NAME_MAX 96
#define REGIONS_THREADS 64   /* OpenMP threads kept */

typedef struct regions_kernel {
	char name[REGIONS_NAME_MAX];
	_Atomic uint64_t ns;     /* time in kernels of this label, ended ones */
	_Atomic uint64_t count;  /* kernels of this label ended */
} regions_kernel;

typedef struct regions_thread {
	_Atomic uint64_t task_ns;  /* in the implicit tasks of parallel regions */
	_Atomic uint64_t wait_ns;  /* waiting at barriers (sync_region_wait) */
	_Atomic uint64_t barriers; /* waits */
} regions_thread;

typedef struct regions_page {
	uint32_t magic, version;     /* set by mcrec */
	_Atomic int32_t owner;       /* pid of the process that adds here, 0 none */
	_Atomic uint32_t kokkos;     /* the Kokkos Tools interface version, 0 not loaded */
	_Atomic uint32_t nkernels;   /* labels published in kernel[] */
	_Atomic uint32_t running;    /* 1 + index of the kernel running now, 0 none */
	_Atomic int64_t running_t0;  /* its start, CLOCK_MONOTONIC ns */
	_Atomic uint64_t kernels;    /* kernels ended, all labels */
	_Atomic uint64_t other_ns;   /* time in kernels past REGIONS_KERNELS labels */
	_Atomic uint64_t events;     /* events the connectors saw (all kinds) */
	_Atomic uint64_t dropped;    /* marks not sent: over the rate, or the socket full */
	/* OMPT (libmcz-ompt.so) */
	_Atomic uint32_t ompt;       /* 1 once the runtime started the tool */
	_Atomic uint32_t nthreads;   /* threads numbered so far */
	_Atomic int64_t ompt_t0, ompt_t1; /* the tool's start and finalize, CLOCK_MONOTONIC ns */
	_Atomic uint64_t parallel_ns;     /* the initial thread's time in parallel regions */
	_Atomic uint64_t parallels;       /* parallel regions ended */
	regions_thread thread[REGIONS_THREADS]; /* by the order threads began */
	regions_kernel kernel[REGIONS_KERNELS];
} regions_page;

/* The page named by the environment, mapped; NULL without one (not under
 * mcrec, or a page of another version). */
static inline regions_page *regions_page_map(void)
{
	const char *e = getenv(REGIONS_PAGE_ENV);
	char *end = NULL;
	long fd = e ? strtol(e, &end, 10) : -1;
	if (!e || end == e || *end || fd < 0 || fd > 1 << 20)
		return NULL;
	void *m = mmap(NULL, sizeof(regions_page), PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (m == MAP_FAILED)
		return NULL;
	regions_page *p = m;
	if (p->magic != REGIONS_PAGE_MAGIC || p->version != REGIONS_PAGE_VERSION) {
		munmap(m, sizeof *p);
		return NULL;
	}
	return p;
}

/* CLOCK_MONOTONIC ns, the clock of marks. */
static inline int64_t regions_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* 1 when this process adds to the page (the first to ask, or already its owner). */
static inline int regions_page_claim(regions_page *p)
{
	int32_t me = (int32_t)getpid(), none = 0;
	return atomic_load(&p->owner) == me || atomic_compare_exchange_strong(&p->owner, &none, me);
}

#endif
