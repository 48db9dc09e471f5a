/* codeclass.h: what a sampled instruction was doing — work, waiting in MPI,
 * or waiting in an OpenMP runtime — told from its object and function by a
 * table of rules that users extend without rebuilding.
 *
 *     vw_codeclass *cc = vw_codeclass_load();     // defaults + the user's file
 *     int k = vw_codeclass_of(cc, "/usr/lib/x86_64-linux-gnu/libmpi.so.40", "opal_progress");
 *     // k == VW_CC_MPI
 *     if (vw_codeclass_note(cc)[0]) fprintf(stderr, "note: %s\n", vw_codeclass_note(cc));
 *     vw_codeclass_free(cc);
 *
 * Why: MPI libraries (Open MPI, MPICH, Intel MPI, Cray MPICH) poll while a
 * rank waits, so a waiting rank is as CPU-busy as a computing one; only
 * where it ran says which it was (as Linaro MAP and the POP metrics do).
 *
 * The rules (one a line, '#' to the end of a line is a comment):
 *
 *     CLASS  OBJECT  [FUNCTION]
 *
 * CLASS is work, mpi or sync; OBJECT and FUNCTION are shell patterns
 * (fnmatch: * ? [..]) matched against the object's file name without its
 * folder ("libmpi.so.40.30.4", "mca_btl_vader.so", "app") and the
 * function's name as recorded (mangled for C++); FUNCTION left out is "*".
 * The first rule that matches wins; the user's rules come before the
 * built-in ones (vw_codeclass_defaults), and what nothing matches is work.
 * The user's file is $MCZ_CODE_CLASSES, else $XDG_CONFIG_HOME/mcz/code-classes,
 * else ~/.config/mcz/code-classes; a line that does not parse is left out
 * and named in the note.
 */
#ifndef VW_CODECLASS_H
#define VW_CODECLASS_H

#include <stddef.h>

enum vw_cc_class {
	VW_CC_WORK = 0, /* the application's own computation (and libraries it calls) */
	VW_CC_MPI = 1,  /* the MPI runtime and its transports: waiting or moving data */
	VW_CC_SYNC = 2, /* an OpenMP runtime: barriers, waits, scheduling */
	VW_CC_N
};

typedef struct vw_codeclass vw_codeclass;

/* The built-in rules, in the file's syntax (documented in mcview.1). */
extern const char vw_codeclass_defaults[];

/* Rules from text (`origin` names it in the note: "code-classes"), then the
 * built-in ones.  NULL only when out of memory. */
vw_codeclass *vw_codeclass_parse(const char *text, size_t len, const char *origin);
/* The user's file (see above; none is no error), then the built-in rules. */
vw_codeclass *vw_codeclass_load(void);
void vw_codeclass_free(vw_codeclass *cc);

/* The class of code in object `path` (a full path or a file name), in
 * function `fn` ("" or NULL: unknown). */
int vw_codeclass_of(const vw_codeclass *cc, const char *path, const char *fn);
/* Rule i of those in effect (the user's first, then the built-in ones), in
 * the file's syntax ("mpi   libmpi.so*", "sync  *  GOMP_barrier*"), into
 * buf: what `mcview --code-classes` prints, for scripts and tests that
 * class samples as mcview does.  -1 past the last rule. */
int vw_codeclass_rule(const vw_codeclass *cc, size_t i, char *buf, size_t len);
/* Lines left out, or the user's file unreadable: one line; "" none. */
const char *vw_codeclass_note(const vw_codeclass *cc);
/* "work", "MPI", "sync". */
const char *vw_codeclass_name(int cls);

#endif
