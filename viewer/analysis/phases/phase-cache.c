/* phase-cache.c: the bytes of detected phases, kept so that a second open
 * is instant: in the user's cache folder (phases.c, format/cache/cachedir.c), and
 * read from the aux block "phases" that files of earlier versions may hold
 * (readers no longer write one).  The bytes start with a key naming
 * everything the result depends on — the file's identity, parameters,
 * source, time range, the streams used — and are ignored when the key
 * differs (parameters changed: detect again).
 *
 * Layout, little-endian:
 *
 *     8   magic "MCZPHS1\0"
 *     4   key length K, then K bytes of key
 *     4   phases N     4  classes     4  streams used
 *     4   length U, then U bytes: names of the streams used
 *     N x { 8 t0, 8 t1 (ns), 4 class, 8 gain (IEEE 754 bits), 1 label length L, L bytes }
 *
 * Figures and descriptions are not stored: they are recomputed from the
 * file's summaries at open (cheap), so the block stays small.  Decoding
 * checks every length against what remains (the file may be hostile).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/model.h"
#include "phase.h"

static const char phase_magic[8] = "MCZPHS1";

typedef struct wbuf {
	unsigned char *p;
	size_t n, cap;
	int err;
} wbuf;

static void put(wbuf *w, const void *src, size_t len)
{
	if (w->err)
		return;
	if (w->n + len > w->cap) {
		size_t nc = (w->cap + len) * 2;
		unsigned char *np = realloc(w->p, nc);
		if (!np) {
			w->err = 1;
			return;
		}
		w->p = np;
		w->cap = nc;
	}
	memcpy(w->p + w->n, src, len);
	w->n += len;
}

static void put_le(wbuf *w, uint64_t v, int bytes)
{
	unsigned char b[8];
	for (int i = 0; i < bytes; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	put(w, b, (size_t)bytes);
}

typedef struct rbuf {
	const unsigned char *p;
	size_t n, at;
	int err;
} rbuf;

static uint64_t get_le(rbuf *r, int bytes)
{
	uint64_t v = 0;
	if (r->err || r->n - r->at < (size_t)bytes) {
		r->err = 1;
		return 0;
	}
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)r->p[r->at + (size_t)i] << (8 * i);
	r->at += (size_t)bytes;
	return v;
}

static const unsigned char *get_bytes(rbuf *r, size_t len)
{
	if (r->err || r->n - r->at < len) {
		r->err = 1;
		return NULL;
	}
	r->at += len;
	return r->p + r->at - len;
}

static uint32_t fnv(uint32_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

void vw_phase_cache_key(const vw_model *m, const vw_phase_params *p, int source, char *key,
			size_t len)
{
	uint32_t h = 2166136261u;
	for (size_t g = 0; g < m->ngroups; g++)
		h = fnv(fnv(h, m->groups[g].label), ";");
	snprintf(key, len,
		 "v13 %s pen=%.6g min=%lld tol=%.6g max=%zu eff=%.6g lvl=%d t=%lld,%lld rows=%zu "
		 "h=%08x streams=%.96s",
		 source == VW_PHASES_MARKS ? "marks" : "auto", p->penalty, (long long)p->min_len,
		 p->class_tol, p->max_phases, p->min_effect, p->level, (long long)m->t_min,
		 (long long)m->t_max, m->ngroups, (unsigned)h, p->streams);
}

int vw_phase_cache_encode(const struct vw_phases *ph, const char *key, unsigned char **buf,
			  size_t *len)
{
	wbuf w = {0};
	size_t kl = strlen(key), ul = strlen(ph->used);
	put(&w, phase_magic, sizeof phase_magic);
	put_le(&w, kl, 4);
	put(&w, key, kl);
	put_le(&w, ph->n, 4);
	put_le(&w, (uint64_t)ph->nclasses, 4);
	put_le(&w, ph->nused, 4);
	put_le(&w, ul, 4);
	put(&w, ph->used, ul);
	for (size_t i = 0; i < ph->n; i++) {
		const vw_phase *p = &ph->v[i];
		uint64_t g;
		size_t ll = strlen(p->label);
		memcpy(&g, &p->gain, sizeof g);
		put_le(&w, (uint64_t)p->t0, 8);
		put_le(&w, (uint64_t)p->t1, 8);
		put_le(&w, (uint32_t)p->cls, 4);
		put_le(&w, g, 8);
		put_le(&w, ll, 1);
		put(&w, p->label, ll);
	}
	if (w.err) {
		free(w.p);
		return -1;
	}
	*buf = w.p;
	*len = w.n;
	return 0;
}

int vw_phase_cache_decode(const void *buf, size_t len, const char *key, struct vw_phases *ph)
{
	rbuf r = {buf, len, 0, 0};
	const unsigned char *mg = get_bytes(&r, sizeof phase_magic);
	if (!mg || memcmp(mg, phase_magic, sizeof phase_magic))
		return -1;
	size_t kl = (size_t)get_le(&r, 4);
	const unsigned char *k = get_bytes(&r, kl);
	if (!k || kl != strlen(key) || memcmp(k, key, kl))
		return -1;
	size_t n = (size_t)get_le(&r, 4);
	int ncls = (int)get_le(&r, 4);
	size_t nused = (size_t)get_le(&r, 4), ul = (size_t)get_le(&r, 4);
	const unsigned char *u = get_bytes(&r, ul);
	/* each phase takes at least 29 bytes: a count beyond that is a lie */
	if (r.err || n > (len - r.at) / 29 || ncls < 0 || ul >= sizeof ph->used)
		return -1;
	vw_phase *v = calloc(n + 1, sizeof *v);
	if (!v)
		return -1;
	for (size_t i = 0; i < n; i++) {
		vw_phase *p = &v[i];
		uint64_t g;
		p->t0 = (int64_t)get_le(&r, 8);
		p->t1 = (int64_t)get_le(&r, 8);
		p->cls = (int)(uint32_t)get_le(&r, 4);
		g = get_le(&r, 8);
		memcpy(&p->gain, &g, sizeof g);
		size_t ll = (size_t)get_le(&r, 1);
		const unsigned char *l = get_bytes(&r, ll);
		if (r.err || p->t1 <= p->t0 || p->cls < 0 || p->cls >= ncls || ll >= sizeof p->label ||
		    (i && p->t0 < v[i - 1].t1)) {
			free(v);
			return -1;
		}
		memcpy(p->label, l, ll);
		p->label[ll] = '\0';
	}
	free(ph->v);
	ph->v = v;
	ph->n = n;
	ph->nclasses = ncls;
	ph->nused = nused;
	memcpy(ph->used, u, ul);
	ph->used[ul] = '\0';
	return 0;
}
