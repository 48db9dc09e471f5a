/* golden.h: golden text renders for unit tests: compare a canvas, as text,
 * with tests/unit/golden/NAME.txt; UPDATE_GOLDEN=1 rewrites the file first
 * (tmux regress/ style).  Include after cmocka.h and view.h.
 *
 *     golden("topo-panel", canvas);
 */
#ifndef TEST_GOLDEN_H
#define TEST_GOLDEN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline char *golden_slurp(const char *p)
{
	FILE *f = fopen(p, "rb");
	if (!f)
		return NULL;
	static char buf[1 << 18];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static inline void golden(const char *name, const vw_canvas *c)
{
	char p[160];
	snprintf(p, sizeof p, "tests/unit/golden/%s.txt", name);
	char *txt = vw_canvas_to_text(c);
	assert_non_null(txt);
	const char *up = getenv("UPDATE_GOLDEN");
	if (up && *up && strcmp(up, "0") != 0) {
		FILE *f = fopen(p, "wb");
		assert_non_null(f);
		fputs(txt, f);
		fclose(f);
	}
	char *want = golden_slurp(p);
	if (!want || strcmp(want, txt) != 0) {
		fprintf(stderr, "%s differs from %s; got:\n%s\n", name, p, txt);
		free(txt);
		fail_msg("golden %s (UPDATE_GOLDEN=1 rewrites it)", p);
	}
	free(txt);
}

#endif
