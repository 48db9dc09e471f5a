/* pcp-fetch.h: pmFetch on its own thread, with a deadline, for the pcp
 * source (pcp-fetch.c).  The sampling thread must not wait on a pmcd that is
 * slow or gone: each tick it asks every host's fetcher at once, then takes
 * the results that arrive before the deadline; a late result is dropped
 * (that tick's values are missing), never used for a later tick.
 *
 *     src_pcp_fetch *f;
 *     src_pcp_fetch_start(&f, ctx, n, pmids);      // after the context is set up
 *     src_pcp_fetch_request(f);                    // each tick, every host first
 *     pmResult *r = src_pcp_fetch_wait(f, deadline_ns); // then each host
 *     if (r) { ...; pmFreeResult(r); }
 *     src_pcp_fetch_stop(f);
 */
#ifndef SRC_PCP_FETCH_H
#define SRC_PCP_FETCH_H

#include <stdint.h>

#include <pcp/pmapi.h>

typedef struct src_pcp_fetch src_pcp_fetch;

/* Start the fetch thread of PMAPI context ctx for pmids[0..n) (the array
 * must outlive the fetcher).  0, or -1 (out of memory, no thread). */
int src_pcp_fetch_start(src_pcp_fetch **f, int ctx, int n, pmID *pmids);
/* Ask for a fetch now; nothing if the previous one is still running. */
void src_pcp_fetch_request(src_pcp_fetch *f);
/* The result of the latest request if it arrives before deadline_ns
 * (CLOCK_MONOTONIC), else NULL (late, or the fetch failed: then the thread
 * reconnects to pmcd before its next fetch, with libpcp's back-off).  The
 * caller frees a result with pmFreeResult. */
pmResult *src_pcp_fetch_wait(src_pcp_fetch *f, int64_t deadline_ns);
/* Stop and join the thread, drop any result. */
void src_pcp_fetch_stop(src_pcp_fetch *f);

#endif
