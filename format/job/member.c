/* member.c: job files (SPEC.md 5.9, since 1.4): the MEMBER blocks of a file
 * that `mcz merge` wrote from a parallel job's rank files, each a whole
 * recording kept byte for byte, and readers over them.
 *
 * A member is read in place: its reader is an mcz_open_mem over the job
 * file's mapping, so opening 1,024 members maps one file once and reads
 * each member's index, nothing more.  The job file stays open while any of
 * its members is (a count of holders, r->refs).
 *
 *     mcz_reader *job, *rank;
 *     mcz_open(&job, "job.mcz", 0);
 *     for (size_t i = 0; i < mcz_member_count(job); i++) {
 *             mcz_member_open(job, i, 0, &rank);
 *             ... mcz_meta(rank, "rank") ...
 *             mcz_close(rank);
 *     }
 *     mcz_close(job);
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../container/reader.h"

/* "string name, then the member's bytes to the end of the payload"; the
 * member's bytes are not looked at here: a member is checked as a file of
 * its own when it is opened.  whole: 0, or the payload length declared by
 * a block cut short (len is then what the file holds). */
static int member_add(mcz_reader *r, const uint8_t *p, size_t len, size_t whole)
{
	mcz_cur c = mcz_cur_make(p, len);
	char *name = mcz_cur_strdup(&c);
	if (!name && whole)
		return 0; /* cut inside its name: a member the job lacks (mcz_member_expected) */
	if (!name)
		return c.err ? c.err : MCZ_E_NOMEM;
	if (r->nmembers == r->cap_members) {
		size_t nc = r->cap_members ? 2 * r->cap_members : 16;
		reader_member *m = realloc(r->members, nc * sizeof *m);
		if (!m) {
			free(name);
			return MCZ_E_NOMEM;
		}
		r->members = m;
		r->cap_members = nc;
	}
	r->members[r->nmembers++] =
		(reader_member){name, (size_t)(c.p - r->base), mcz_cur_left(&c), whole};
	return 0;
}

int mcz_member_apply(mcz_reader *r, const uint8_t *p, size_t len)
{
	return member_add(r, p, len, 0);
}

int mcz_member_cut(mcz_reader *r, const uint8_t *p, size_t avail, size_t len)
{
	return member_add(r, p, avail, len ? len : 1);
}

size_t mcz_member_expected(const mcz_reader *r)
{
	const char *s = r ? mcz_meta(r, "members") : NULL;
	char *end;
	unsigned long long n = s ? strtoull(s, &end, 10) : 0;
	return s && *s && !*end && n < (1ull << 32) ? (size_t)n : 0;
}

int mcz_member_is_cut(const mcz_reader *r, size_t i)
{
	return r && i < r->nmembers && r->members[i].whole;
}

void mcz_member_reset(mcz_reader *r)
{
	for (size_t i = 0; i < r->nmembers; i++)
		free(r->members[i].name);
	free(r->members);
	r->members = NULL;
	r->nmembers = r->cap_members = 0;
}

size_t mcz_member_count(const mcz_reader *r)
{
	return r ? r->nmembers : 0;
}

const char *mcz_member_name(const mcz_reader *r, size_t i)
{
	return r && i < r->nmembers ? r->members[i].name : NULL;
}

int mcz_member_span(const mcz_reader *r, size_t i, uint64_t *off, uint64_t *len)
{
	if (!r || i >= r->nmembers)
		return MCZ_E_RANGE;
	if (off)
		*off = r->members[i].off;
	if (len)
		*len = r->members[i].len;
	return 0;
}

const void *mcz_member_bytes(const mcz_reader *r, size_t i, size_t *len)
{
	if (!r || i >= r->nmembers)
		return NULL;
	*len = r->members[i].len;
	return r->base + r->members[i].off;
}

int mcz_member_open(mcz_reader *r, size_t i, unsigned flags, mcz_reader **out)
{
	*out = NULL;
	if (!r || i >= r->nmembers)
		return MCZ_E_RANGE;
	const reader_member *m = &r->members[i];
	if (m->whole)
		return mcz_error_set(MCZ_E_TRUNCATED,
				     "member %s is cut short: the job file ends inside it (%zu of "
				     "%zu bytes)", m->name, m->len, m->whole);
	if (m->len == 0)
		return mcz_error_set(MCZ_E_EMPTY, "member %s is empty", m->name);
	int rc = mcz_open_mem(out, r->base + m->off, m->len, flags);
	if (rc)
		return rc;
	if ((*out)->nmembers) { /* "a member is never itself a job file" */
		mcz_close(*out);
		*out = NULL;
		return mcz_error_set(MCZ_E_CORRUPT, "member %s is itself a job file", m->name);
	}
	(*out)->owner = r;
	(*out)->member_name = m->name;
	r->refs++;
	return 0;
}

const char *mcz_member_self(const mcz_reader *r, const void **bytes, size_t *len)
{
	if (!r || !r->owner)
		return NULL;
	*bytes = r->base;
	*len = r->size;
	return r->member_name;
}

int mcz_member_open_path(mcz_reader **out, const char *path, unsigned flags)
{
	*out = NULL;
	for (const char *c = strchr(path, ':'); c; c = strchr(c + 1, ':')) {
		char *job = strndup(path, (size_t)(c - path));
		struct stat st;
		if (!job)
			return MCZ_E_NOMEM;
		int file = stat(job, &st) == 0 && S_ISREG(st.st_mode);
		mcz_reader *j = NULL;
		int rc = file ? mcz_open(&j, job, 0) : MCZ_E_NOTMCZ;
		free(job);
		if (!file)
			continue;
		if (rc)
			return rc;
		rc = mcz_error_set(MCZ_E_NOTFOUND, "%.*s has no recording named '%s'%s",
				   (int)(c - path), path, c + 1,
				   j->nmembers ? "" : " (it is not a job file)");
		for (size_t i = 0; i < j->nmembers; i++)
			if (!strcmp(j->members[i].name, c + 1)) {
				rc = mcz_member_open(j, i, flags, out);
				break;
			}
		mcz_close(j); /* held by the member */
		return rc;
	}
	return MCZ_E_NOTMCZ;
}
