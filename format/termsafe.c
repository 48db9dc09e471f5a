/* termsafe.c: a string from a file made safe for a terminal.  Every string
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
		if (len && n + k < len)
			memcpy(dst + n, piece, k);
		else if (len && n < len)
			len = n + 1; /* full: nothing more, not half an escape */
		n += k;
		s += piece == esc ? 1 : k;
	}
	if (len)
		dst[n < len ? n : len - 1] = '\0';
	return n;
}
