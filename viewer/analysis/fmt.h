/* fmt.h: numbers and times as people read them (fmt.c), shared by the
 * analyses' text (descriptions, the report) and every view.
 *
 *     char b[32];
 *     vw_fmt_si(b, sizeof b, 1.23e10, "B/s");      // "12.3 GB/s"
 */
#ifndef VW_FMT_H
#define VW_FMT_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* v with an SI prefix (k M G T P E; m u n) and 3 significant digits, then
 * the unit: "12.3 GB/s", "950 mW", "0", "-" for NaN.  Units that are
 * percentages or already prefixed get no prefix. */
char *vw_fmt_si(char *buf, size_t len, double v, const char *unit);
/* A time in ns as "1.5s", "250ms", "12us", "2m05s", "1h02m"; step (ns, or 0)
 * is the resolution wanted, so ruler labels show only needed digits. */
char *vw_fmt_time(char *buf, size_t len, int64_t ns, int64_t step);

/* s, a string from a file, escaped for the terminal (mcz_termsafe: ESC as
 * \033, a newline as \n), in one of 16 buffers of this thread used in
 * turn, so that one printf may take several; at most 1 KiB of it. */
const char *vw_fmt_safe(const char *s);

/* s as a JSON string, quotes included ('"' '\\' escaped, control
 * characters as \u00XX), for the reports' --report=json. */
void vw_fmt_json_str(FILE *f, const char *s);

#endif
