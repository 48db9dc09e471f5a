/* tool-merge-names.c: the recordings of a job file named apart.  Names are
 * unique in a job file (mcz split writes them back, and "job.mcz:NAME"
 * names one): of recordings of one name (dir1/run.1.mcz and
 * dir2/run.1.mcz), the later ones in the order given become NAME#2,
 * NAME#3..., the first number no recording given is named already, each
 * said in a note.
 *
 * In time linear in the recordings (65,536 ranks are merged): one hash
 * table holds every name taken — each name given, and each NAME#k made —
 * with, per name, whether a recording before the one at hand holds it, and
 * the next k to try when it is given again.  A name once taken stays taken
 * (the first recording of a name is never renamed), so the k to try only
 * grows, and no number is tried twice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool-merge.h"
#include "tool.h"

typedef struct names_slot {
	const char *name; /* NULL: empty */
	unsigned next;	  /* NAME#next is the first number not known taken */
	int held;	  /* a recording before the one at hand has this name */
} names_slot;

typedef struct names_set {
	names_slot *s;
	size_t mask;
} names_set;

static size_t names_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

/* The slot of name: its own, or the empty one where it goes. */
static names_slot *names_find(const names_set *t, const char *name)
{
	for (size_t i = names_hash(name) & t->mask;; i = (i + 1) & t->mask)
		if (!t->s[i].name || !strcmp(t->s[i].name, name))
			return &t->s[i];
}

int tool_merge_names_unique(merge_in *in, size_t n, int quiet)
{
	/* every name given, and at most one made per recording: half full at most */
	names_set t = {0};
	size_t cap = 64;
	while (cap < 4 * n)
		cap *= 2;
	if (!(t.s = calloc(cap, sizeof *t.s)))
		return 1;
	t.mask = cap - 1;
	for (size_t i = 0; i < n; i++) {
		names_slot *s = names_find(&t, in[i].name);
		s->name = in[i].name;
	}
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		names_slot *s = names_find(&t, in[i].name);
		if (!s->held) {
			s->held = 1;
			continue;
		}
		size_t len = strlen(in[i].name) + 16;
		char *own = malloc(len);
		if (!own) {
			rc = 1;
			break;
		}
		names_slot *o;
		unsigned k = s->next < 2 ? 2 : s->next;
		for (;; k++) {
			snprintf(own, len, "%s#%u", in[i].name, k);
			if (!(o = names_find(&t, own))->name)
				break;
		}
		s->next = k + 1;
		o->name = own;
		o->held = 1;
		if (!quiet)
			fprintf(stderr,
				"mcz merge: note: %s is a second recording named %s: kept as %s\n",
				tool_common_esc(in[i].path), tool_common_esc(in[i].name),
				tool_common_esc(own));
		in[i].name = in[i].own_name = own;
	}
	free(t.s);
	return rc;
}
