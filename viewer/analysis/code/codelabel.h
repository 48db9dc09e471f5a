/* codelabel.h: how the code profile's functions are named for people
 * (codelabel.c), beside hotcode.h which ranks them: the name of code
 * without symbols (its object), the brief forms of a list of names, and
 * the one line that says how to get names where they are missing.
 *
 *     char hint[512];
 *     if (vw_codelabel_hint(m, hint, sizeof hint))
 *         printf("# %s\n", hint);   // "code: no symbols for hpcc (70 %): ..."
 *
 * The names of functions themselves (demangled, clones folded) are
 * libmcz's mcz_code_name, shared with `mcz dump --code`.
 */
#ifndef VW_CODELABEL_H
#define VW_CODELABEL_H

#include <stddef.h>

#include "../../model/model.h"

/* The name of all of an object's code without symbols: "hpcc (no symbols)". */
void vw_codelabel_object(const char *base, char *buf, size_t len);
/* *brief: n malloc'd brief names (mcz_code_name_brief) of names[0..n),
 * freed by the caller, each and the array.  0, or -1 out of memory. */
int vw_codelabel_briefs(char *const *names, size_t n, char ***brief);
/* An inline chain as stored ("f;_ZN2ns1gEv", innermost first) as people
 * read it: each function's brief name, ", " between ("f, ns::g"). */
void vw_codelabel_chain(const char *inlined, char *buf, size_t len);
/* How to get the names that are missing, in one line: the objects whose
 * code ran without symbols (1 % of the samples and more) and the two
 * ways to name them (their debug package; DEBUGINFOD_URLS when
 * recording), and what the recorder said of a debuginfod server that did
 * not answer.  0 when nothing is missing, else 1 with the line in buf. */
int vw_codelabel_hint(vw_model *m, char *buf, size_t len);

#endif
