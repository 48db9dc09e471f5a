/* codesym.h: the recorder's symbolizer for readers — a recording cut
 * before its end (its recorder killed) keeps its code samples as CODEPART
 * blocks, unsymbolized; mcview and mcz name them from this host's binaries
 * with the recorder's own libdwfl symbolization (recorder/sources/
 * code-sym.c), each object matched by build-id:
 *
 *     mcz_code_set_symbolizer(rec_code_symbolize);   // before opening files
 *
 * The one door of recorder/ for programs that read recordings.
 */
#ifndef REC_CODESYM_H
#define REC_CODESYM_H

#include <stddef.h>

#include "../format/mcz.h"

/* A CODE payload (malloc'd) of raw's cells, symbolized, and their
 * CODETHREADS and CODESTACKS payloads (NULL when raw has no threads, no
 * stacks); 0, or -1. */
int rec_code_symbolize(const mcz_code_raw *raw, void **payload, size_t *len, void **tpayload,
		       size_t *tlen, void **spayload, size_t *slen);

#endif
