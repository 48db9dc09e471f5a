/* mark-wire.h: the datagram a mark travels in, from mcmark.h to the mark
 * source: "K <ns> <pid> <text>", K one of P (point), B (begin), E (end),
 * <ns> CLOCK_MONOTONIC when the mark was made; and a work count
 * (mcmark_count, mcmark_work): "C <ns> <pid> <amount> <name>[ <amount> <name>]...".  Parsed here, apart from the
 * source, so that the parser is fuzzed on its own (tests/fuzz/fuzz-rec-parse.c). */
#ifndef SRC_MARK_WIRE_H
#define SRC_MARK_WIRE_H

#include <stdint.h>

#include "../../format/mcz.h"

/* Parse a NUL-terminated datagram in place; *text points into buf.
 * 0 when well formed, -1 otherwise. */
int src_mark_wire_parse(char *buf, mcz_mark_kind *kind, int64_t *t, uint32_t *pid, char **text);

/* Parse a count datagram, "C <ns> <pid> <amount> <name>" and more
 * " <amount> <name>" pairs (mcmark_work sends two): at most max pairs into
 * amount[] and name[] (pointing into buf, each name cut at its end).  The
 * number of pairs when every one is well formed (amount finite and >= 0,
 * name valid as mcmark_count_name_ok says), -1 otherwise or past max. */
int src_mark_wire_count(char *buf, int64_t *t, uint32_t *pid, double *amount, char **name,
			int max);

#endif
