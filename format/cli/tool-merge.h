/* tool-merge.h: what the parts of `mcz merge` share: tool-merge.c reads
 * every input once (opened, what the merge needs kept, closed), sorts and
 * notes them; tool-merge-names.c names them apart; tool-merge-out.c writes
 * the job file, mapping one input's bytes at a time.
 */
#ifndef MCZ_TOOL_MERGE_H
#define MCZ_TOOL_MERGE_H

#include <stddef.h>
#include <stdint.h>

/* One recording to merge: a file, or a member of a job file given, as
 * read; nothing of it stays open. */
typedef struct merge_in {
	const char *name; /* its name in the job file */
	char *own_name;	  /* name made unique ("run.1.mcz#2"), else NULL */
	char *own_member; /* a member's name, copied from its job file */
	const char *path; /* as given (with ":NAME" for a member of a job file given) */
	char *own_path;
	const char *from;  /* the file its bytes are in (a job file given for its
			      members); self: the JOB.mcz:NAME given */
	uint64_t dev, ino; /* from's, to map the very file that was read */
	uint64_t off, len; /* its bytes in from */
	int self;	   /* given as JOB.mcz:NAME: opened again by name to be written */
	long rank;	   /* -1: none in its metadata */
	char *job;	   /* "" none */
	long nranks;	   /* its metadata's nranks, 0 none */
	int recovered;	   /* no index (its recorder was killed, or it is damaged) */
	uint64_t nrows;
	int64_t wall_epoch_ns;
	size_t order; /* as given */
} merge_in;

/* Names are unique in a job file: of recordings of one name, the later
 * ones renamed NAME#k (tool-merge-names.c); non-zero when out of memory. */
int tool_merge_names_unique(merge_in *in, size_t n, int quiet);
/* The job file out written from in[0..n) in that order (tool-merge-out.c);
 * the exit status, every failure said in one line. */
int tool_merge_out_write(const merge_in *in, size_t n, const char *out, int quiet);

#endif
