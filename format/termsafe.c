/* termsafe.c: a string from a file made safe for a terminal, or for JSON.
 * Every string
 * a recording holds (metadata, the command line, stream and member names,
 * marks, code names) may carry bytes a terminal obeys — ESC sequences that
 * retitle the window or clear the screen, a BEL, a newline that forges a
 * line of output.  Before such a string reaches a terminal it is escaped
 * as git and ls -b do: \n, \t, \r, and every other control byte, DEL, a
 * C1 control (U+0080..U+009F) and a byte that is not UTF-8 as \ooo (ESC
 * is \033).  Text without them is unchanged, backslashes included.
 *
 *     char buf[256];
 *     mcz_termsafe(buf, sizeof buf, mcz_meta(r, "command"));
 *     printf("command    %s\n", buf);
 *
 * JSON output is the same strings as JSON string bodies that are valid
 * UTF-8 (mcz_json_escape): a byte that is not UTF-8 becomes the code point
 * of the same number (\u009b for 0x9b), as Latin-1 reads it, since JSON
 * has no way to carry a byte; controls and C1 as \u00XX.
 */
#include <stdio.h>
#include <string.h>

#include "mcz.h"

/* Length of the valid UTF-8 sequence at s that is not a C1 control, else 0. */
static size_t termsafe_utf8(const unsigned char *s)
{
	size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	if (!len || (s[0] == 0xc2 && s[1] < 0xa0))
		return 0; /* a stray continuation, overlong, or C1 (C2 80..C2 9F) */
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xf0 && s[1] < 0x90) ||
	    (s[0] == 0xf4 && s[1] >= 0x90) || (s[0] == 0xed && s[1] >= 0xa0))
		return 0; /* overlong, beyond U+10FFFF, a surrogate */
	return len;
}

/* Append piece[0..k) at dst + n as snprintf would (once full, nothing
 * more: never half an escape); returns the length so far. */
static size_t termsafe_put(char *dst, size_t *len, size_t n, const char *piece, size_t k)
{
	if (*len && n + k < *len)
		memcpy(dst + n, piece, k);
	else if (*len && n < *len)
		*len = n + 1;
	return n + k;
}

size_t mcz_termsafe(char *dst, size_t len, const char *src)
{
	const unsigned char *s = (const unsigned char *)(src ? src : "");
	size_t n = 0;
	while (*s) {
		char esc[8];
		const char *piece = esc;
		size_t k;
		if (*s >= 0x20 && *s < 0x7f) {
			piece = (const char *)s;
			k = 1;
		} else if (*s >= 0x80 && (k = termsafe_utf8(s)) != 0) {
			piece = (const char *)s;
		} else {
			if (*s == '\n' || *s == '\t' || *s == '\r')
				snprintf(esc, sizeof esc, "\\%c", *s == '\n' ? 'n' : *s == '\t' ? 't' : 'r');
			else
				snprintf(esc, sizeof esc, "\\%03o", *s);
			k = strlen(esc);
		}
		n = termsafe_put(dst, &len, n, piece, k);
		s += piece == esc ? 1 : k;
	}
	if (len)
		dst[n < len ? n : len - 1] = '\0';
	return n;
}

size_t mcz_json_escape(char *dst, size_t len, const char *src)
{
	const unsigned char *s = (const unsigned char *)(src ? src : "");
	size_t n = 0;
	while (*s) {
		char esc[8];
		const char *piece = esc;
		size_t k;
		if (*s >= 0x20 && *s < 0x7f && *s != '"' && *s != '\\') {
			piece = (const char *)s;
			k = 1;
		} else if (*s >= 0x80 && (k = termsafe_utf8(s)) != 0) {
			piece = (const char *)s;
		} else {
			unsigned c = *s;
			if (c == 0xc2 && s[1] >= 0x80 && s[1] < 0xa0)
				c = *++s; /* C1 (U+0080..U+009F): a terminal may obey it */
			if (c == '"' || c == '\\')
				snprintf(esc, sizeof esc, "\\%c", c);
			else
				snprintf(esc, sizeof esc, "\\u%04x", c);
			k = strlen(esc);
		}
		n = termsafe_put(dst, &len, n, piece, k);
		s += piece == esc ? 1 : k;
	}
	if (len)
		dst[n < len ? n : len - 1] = '\0';
	return n;
}
