/* metapolicy.c: the writer's size policy for the pending metadata
 * (metapolicy.h): each rule a pure function of the sizes the writer has
 * packed so far.  The writer (writer.c, writer_pending) does the packing
 * and asks these which layout and level comes next. */
#include "metapolicy.h"

#include "../internal.h"

/* Descriptors from MCZ_METAPOL_TRIAL_BYTES on are packed at the trial
 * level to choose between the layouts of one kind (COLSTREAMS with value
 * numbers or not; a BUNDLE with STREAMS or COLSTREAMS, with the dictionary
 * or not), and only the ones chosen at the writer's metadata level, where
 * STREAMS, COLSTREAMS, a BUNDLE and the blocks apart are compared: a pass
 * at the metadata level costs many at the trial level, and the choice is
 * the same.  The threshold is set where a few hundred streams' descriptors
 * begin to cost more to try than to pack (bench-pcp-all.sh's small
 * archives), with the same files either way. */
int mcz_metapol_trial_level(size_t sb, int meta_level)
{
	return sb >= MCZ_METAPOL_TRIAL_BYTES && meta_level > MCZ_METAPOL_TRIAL_LEVEL
		       ? MCZ_METAPOL_TRIAL_LEVEL
		       : 0;
}

int mcz_metapol_close(uint64_t a, uint64_t b)
{
	return a * 8 >= b * 7 && b * 8 >= a * 7;
}

/* STREAMS of eight times COLSTREAMS' bytes and more are not packed, nor
 * large ones (a MiB and more: a block of their own, never in a BUNDLE,
 * where the dictionary can make up for their text), when COLSTREAMS is for
 * the file (within the readers' bounds, with room for a harder level):
 * their size is their bytes, which lose to it.  Over pcp-testsuite no file
 * changes with this rule; at five times instead of eight, STREAMS that win
 * in a BUNDLE with the dictionary would be lost. */
int mcz_metapol_raw_ok(int minor, size_t cb, size_t cols, size_t c2, size_t alt, int fits)
{
	return minor >= 3 && cb <= 128 * (uint64_t)cols && c2 <= 128 * (uint64_t)alt && fits;
}

int mcz_metapol_raw_sure(size_t sb, size_t cb, size_t c2)
{
	size_t cmax = cb > c2 ? cb : c2;
	return sb >= MCZ_METAPOL_LARGE || sb / 8 >= cmax;
}

/* STREAMS of MCZ_METAPOL_SCREEN_BYTES and more that pack at zstd level 1
 * to MCZ_METAPOL_SCREEN_RATIO times the smaller COLSTREAMS (ct bytes, at
 * the trial level) or more are packed no further: to be tried in a BUNDLE
 * they would have to come within half again of COLSTREAMS, which no zstd
 * level does (over pcp-testsuite, every file is the same with and without
 * this screen); packing them at the trial level is all the screen saves. */
int mcz_metapol_screen_tries(size_t sb)
{
	return sb >= MCZ_METAPOL_SCREEN_BYTES;
}

int mcz_metapol_screen_loses(size_t z1, size_t ct)
{
	return z1 >= MCZ_METAPOL_SCREEN_RATIO * (uint64_t)ct;
}

/* STREAMS or COLSTREAMS: where neither is an eighth smaller at the trial
 * level, both at the metadata level to compare. */
int mcz_metapol_again(size_t mine, size_t other)
{
	return other * (uint64_t)8 >= mine * (uint64_t)7;
}

/* COLSTREAMS (1.3, SPEC.md 5.7) when it saves MCZ_METAPOL_COLS_GAIN bytes
 * or more, so that a file of a few streams stays readable by readers
 * before 1.3; within the bounds readers check (the streams and strings
 * for the body's length: fits; the body for the packed length). */
int mcz_metapol_cols(int minor, size_t cols, size_t rows, size_t cb, int fits)
{
	return minor >= 3 && cols + MCZ_METAPOL_COLS_GAIN <= rows && fits &&
	       cb <= 256 * (uint64_t)cols + 65536;
}

/* A BUNDLE of STREAMS where COLSTREAMS packed half as small again on its
 * own is not tried: the dictionary never makes up that much over
 * pcp-testsuite, and the trial is a pass over every descriptor. */
int mcz_metapol_bundle_skip_rows(int with_streams, int cols_chosen, size_t cb, size_t rows,
				 size_t cols)
{
	return with_streams && cols_chosen && cb && rows > cols + cols / 2;
}

/* A BUNDLE (1.4, SPEC.md 5.8) replaces the blocks apart when smaller with
 * its block's framing; at the trial level (lt) the best one is kept and
 * compared with apart once packed again at the metadata level. */
int mcz_metapol_bundle_keeps(int lt, size_t len, uint64_t apart, int have, size_t best)
{
	return (lt || len + MCZ_BLOCK_OVERHEAD < apart) && (!have || len < best);
}

int mcz_metapol_bundle_wins(size_t len, uint64_t apart)
{
	return len + MCZ_BLOCK_OVERHEAD < apart;
}

/* Large descriptors (a MiB and more) stay a block of their own: the
 * dictionary gains little on them and packing them twice more costs more
 * than the rest of the metadata. */
int mcz_metapol_large(size_t sb)
{
	return sb >= MCZ_METAPOL_LARGE;
}
