/* metapolicy.h: the writer's size policy for the pending metadata
 * (writer.c, writer_pending) — which layout of the stream descriptors is
 * packed at which zstd level, and when one BUNDLE block is kept instead
 * of blocks of their own — as pure functions of sizes, so that every rule
 * is tested alone (tests/unit/format/test-metapolicy.c) and the writer
 * only packs and compares.
 *
 * The sizes are bytes: sb the STREAMS body, cb and c2 the two COLSTREAMS
 * bodies (without and with value numbers), rows, cols and alt their
 * packed blocks, ct and rt the packed COLSTREAMS and STREAMS at the trial
 * level, apart the blocks written on their own.
 *
 *     int lt = mcz_metapol_trial_level(sb.len, mcz_meta_level(cx, sb.len));
 *     if (mcz_metapol_raw_ok(...) && (mcz_metapol_raw_sure(...) || ...))
 */
#ifndef MCZ_METAPOLICY_H
#define MCZ_METAPOLICY_H

#include <stddef.h>
#include <stdint.h>

enum {
	MCZ_METAPOL_TRIAL_BYTES = 4 << 10,   /* descriptors tried first at ... */
	MCZ_METAPOL_TRIAL_LEVEL = 9,         /* ... this level */
	MCZ_METAPOL_SCREEN_BYTES = 64 << 10, /* STREAMS screened at level 1 */
	MCZ_METAPOL_SCREEN_RATIO = 4,
	MCZ_METAPOL_LARGE = 1 << 20,         /* descriptors never in a BUNDLE */
	MCZ_METAPOL_COLS_GAIN = 1024,        /* COLSTREAMS only when it saves this */
};

/* The level descriptors of sb bytes are first packed at (0: the metadata
 * level meta_level at once). */
int mcz_metapol_trial_level(size_t sb, int meta_level);
/* a and b within an eighth of each other. */
int mcz_metapol_close(uint64_t a, uint64_t b);
/* STREAMS may stay unpacked: COLSTREAMS is for the file (format minor,
 * within the readers' bounds, fits: mcz_scols_fits of both bodies). */
int mcz_metapol_raw_ok(int minor, size_t cb, size_t cols, size_t c2, size_t alt, int fits);
/* STREAMS stay unpacked without a screen: large, or eight times
 * COLSTREAMS' bytes and more. */
int mcz_metapol_raw_sure(size_t sb, size_t cb, size_t c2);
/* STREAMS are screened at level 1 ... */
int mcz_metapol_screen_tries(size_t sb);
/* ... and lose to COLSTREAMS (ct) when level 1 packs them to z1. */
int mcz_metapol_screen_loses(size_t z1, size_t ct);
/* After the trial level: pack COLSTREAMS again at the metadata level
 * (the other one's trial size rt is within an eighth, or less). */
int mcz_metapol_again(size_t mine, size_t other);
/* COLSTREAMS rather than STREAMS for the file. */
int mcz_metapol_cols(int minor, size_t cols, size_t rows, size_t cb, int fits);
/* A BUNDLE with the STREAMS body is not tried. */
int mcz_metapol_bundle_skip_rows(int with_streams, int cols_chosen, size_t cb, size_t rows,
				 size_t cols);
/* A BUNDLE of len bytes is kept over the blocks apart and over the best
 * BUNDLE so far (have, best); lt: at the trial level, compared later. */
int mcz_metapol_bundle_keeps(int lt, size_t len, uint64_t apart, int have, size_t best);
/* The BUNDLE packed again at the metadata level is smaller than apart. */
int mcz_metapol_bundle_wins(size_t len, uint64_t apart);
/* Descriptors of sb bytes stay a block of their own, out of any BUNDLE. */
int mcz_metapol_large(size_t sb);

#endif
