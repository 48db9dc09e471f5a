/* scols.c: stream descriptors column by column, the COLSTREAMS body
 * (SPEC.md 5.7, since 1.3).
 *
 * A PCP archive imported gives thousands of streams whose descriptors
 * differ in a few bytes: the metric's name, source, native name, unit and
 * note repeat for every instance, the instance names repeat for every
 * metric of an instance domain.  Written field after field for each stream
 * (STREAMS, 5.3), zstd sees them interleaved; written column by column,
 * each value as the bytes it shares with the previous stream's and the
 * rest, the repeats become runs of zero bytes (5 to 45 times smaller on the
 * pcp-testsuite archives).
 *
 *     mcz_scols_encode(&body, first_id, descs, n, refs);
 *     mcz_scols_decode(body, len, &arr, &n, &cap);
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"
#include "../meta/meta.h"

#define SCOLS_NSTR 6

static const char *scols_str(const mcz_stream_desc *d, int f)
{
	const char *s = f == 0 ? d->name : f == 1 ? d->source : f == 2 ? d->native
		      : f == 3 ? d->unit : f == 4 ? d->note : d->instance;
	return s ? s : "";
}

/* A fixed field of stream i as a u64 (f64: its bit pattern). */
static uint64_t scols_fixed(const mcz_stream_desc *d, int f)
{
	uint64_t u;
	switch (f) {
	case 0: return d->kind;
	case 1: return d->type;
	case 2: return d->flags;
	case 3: memcpy(&u, &d->scale, 8); return u;
	default: return mcz_buf_zigzag(d->topo);
	}
}

int mcz_scols_fits(const mcz_buf *b, const mcz_stream_desc *d, size_t n)
{
	uint64_t strings = 0;
	for (size_t i = 0; i < n; i++)
		for (int f = 0; f < SCOLS_NSTR; f++)
			strings += strlen(scols_str(&d[i], f)) + 1;
	return !b->err && n <= 8 * (uint64_t)b->len + 512 && strings <= 64 * (uint64_t)b->len + 4096;
}

static uint64_t scols_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

int mcz_scols_encode(mcz_buf *b, uint32_t first_id, const mcz_stream_desc *d, size_t n, int refs)
{
	mcz_buf_uv(b, first_id);
	mcz_buf_uv(b, n);
	/* the values met so far in the column: a hash table of their number
	 * + 1 (0 empty), vals[k] the k-th */
	size_t tsize = 16;
	while (tsize < 2 * n)
		tsize *= 2;
	uint32_t *table = malloc(tsize * sizeof *table);
	const char **vals = malloc((n + 1) * sizeof *vals);
	if (!table || !vals) {
		free(table);
		free(vals);
		return b->err = MCZ_E_NOMEM;
	}
	for (int f = 0; f < SCOLS_NSTR; f++) {
		const char *prev = "";
		size_t plen = 0, nvals = 0;
		memset(table, 0, tsize * sizeof *table);
		for (size_t i = 0; i < n;) {
			const char *s = scols_str(&d[i], f);
			size_t len = strlen(s), pre = 0;
			/* "0, then r: this stream and the next r have the previous
			 * stream's value" */
			if (len == plen && !memcmp(s, prev, len)) {
				size_t r = 0;
				while (i + 1 + r < n && !strcmp(scols_str(&d[i + 1 + r], f), prev))
					r++;
				mcz_buf_uv(b, 0);
				mcz_buf_uv(b, r);
				i += 1 + r;
				continue;
			}
			size_t slot = (size_t)scols_hash(s) & (tsize - 1);
			while (table[slot] && strcmp(vals[table[slot] - 1], s))
				slot = (slot + 1) & (tsize - 1);
			if (table[slot] && refs) {
				/* "x even: the value number x / 2 - 1 of the column" */
				mcz_buf_uv(b, 2 * (uint64_t)table[slot]);
			} else {
				/* "x odd: a new value sharing (x - 1) / 2 bytes with the
				 * previous one, then the rest" */
				while (pre < len && pre < plen && s[pre] == prev[pre])
					pre++;
				mcz_buf_uv(b, 2 * pre + 1);
				mcz_buf_uv(b, len - pre);
				mcz_buf_put(b, s + pre, len - pre);
				vals[nvals] = s;
				table[slot] = (uint32_t)++nvals;
			}
			prev = s;
			plen = len;
			i++;
		}
	}
	free(table);
	free(vals);
	/* kind, type, flags, scale, topo: runs of equal values (count, value) */
	for (int f = 0; f < 5; f++)
		for (size_t i = 0; i < n;) {
			uint64_t v = scols_fixed(&d[i], f);
			size_t k = 1;
			while (i + k < n && scols_fixed(&d[i + k], f) == v)
				k++;
			mcz_buf_uv(b, k);
			if (f == 3)
				mcz_buf_u64(b, v);
			else
				mcz_buf_uv(b, v);
			i += k;
		}
	return b->err;
}

/* The arena being filled: strings at offsets, the descriptors' pointers
 * set from the offsets once it stops moving. */
typedef struct scols_arena {
	char *p;
	size_t len, cap, max;
} scols_arena;

static int scols_put(scols_arena *a, const char *prefix_at, size_t pre, const uint8_t *suf,
		     size_t nsuf, size_t *at)
{
	size_t need = a->len + pre + nsuf + 1;
	/* "the decoded strings take at most 64 times the body's length" */
	if (need > a->max)
		return MCZ_E_CORRUPT;
	if (need > a->cap) {
		size_t nc = a->cap ? 2 * a->cap : 4096;
		while (nc < need)
			nc *= 2;
		size_t po = prefix_at ? (size_t)(prefix_at - a->p) : 0;
		char *np = realloc(a->p, nc);
		if (!np)
			return MCZ_E_NOMEM;
		a->p = np;
		a->cap = nc;
		prefix_at = prefix_at ? a->p + po : NULL;
	}
	char *w = a->p + a->len;
	if (pre)
		memcpy(w, prefix_at, pre);
	if (nsuf)
		memcpy(w + pre, suf, nsuf);
	w[pre + nsuf] = 0;
	*at = a->len;
	a->len = need;
	return 0;
}

/* The six string columns from c into the arena: each descriptor's strings
 * as offsets (uintptr_t) into it, a value repeated by a run stored once. */
static void scols_strings(mcz_cur *c, mcz_stream_desc *d, uint64_t cnt, scols_arena *a,
			  size_t *vals, size_t *vlens)
{
	static const size_t field[SCOLS_NSTR] = {
		offsetof(mcz_stream_desc, name), offsetof(mcz_stream_desc, source),
		offsetof(mcz_stream_desc, native), offsetof(mcz_stream_desc, unit),
		offsetof(mcz_stream_desc, note), offsetof(mcz_stream_desc, instance)};
	size_t empty = 0; /* "" for the first stream: the arena starts with it */
	for (int f = 0; f < SCOLS_NSTR && !c->err; f++) {
		size_t prev = empty, plen = 0, fo = field[f], nvals = 0;
		for (uint64_t i = 0; i < cnt && !c->err;) {
			uint64_t x = mcz_cur_uv(c), rep = 0, suf = 0;
			const uint8_t *sp = NULL;
			if (x & 1) {
				suf = mcz_cur_uv(c);
				sp = suf <= mcz_cur_left(c) ? mcz_cur_bytes(c, (size_t)suf) : NULL;
			} else if (x == 0) {
				rep = mcz_cur_uv(c);
			}
			/* "shares its first (x - 1) / 2 bytes with the previous value";
			 * a value number below the values met */
			if (c->err || ((x & 1) && ((x - 1) / 2 > plen || !sp)) ||
			    (x && !(x & 1) && x / 2 - 1 >= nvals) || rep > cnt - i - 1) {
				c->err = MCZ_E_CORRUPT;
				break;
			}
			if (x & 1) {
				size_t pre = (size_t)((x - 1) / 2), at;
				int rc = scols_put(a, a->p + prev, pre, sp, (size_t)suf, &at);
				if (rc) {
					c->err = rc;
					break;
				}
				vals[nvals] = at;
				vlens[nvals++] = pre + (size_t)suf;
				prev = at;
				plen = pre + (size_t)suf;
			} else if (x) {
				prev = vals[x / 2 - 1];
				plen = vlens[x / 2 - 1];
			}
			for (uint64_t k = 0; k <= rep; k++)
				*(const char **)((char *)&d[i + k] + fo) = (const char *)(uintptr_t)prev;
			i += 1 + rep;
		}
	}
}

int mcz_scols_decode(const uint8_t *p, size_t len, mcz_stream_desc **arr, size_t *n, size_t *cap,
		     char **arena)
{
	*arena = NULL;
	mcz_cur c = mcz_cur_make(p, len);
	uint64_t first = mcz_cur_uv(&c);
	/* the streams are allocated before the body is read: "a body of L
	 * bytes declares at most 8 L + 512 streams" */
	uint64_t cnt = mcz_cur_uv(&c);
	if (c.err || first != *n || cnt > 8 * (uint64_t)len + 512)
		return MCZ_E_CORRUPT;
	if (cnt == 0)
		return mcz_cur_left(&c) ? MCZ_E_CORRUPT : 0;
	if (mcz_buf_grow_array((void **)arr, cap, *n + (size_t)cnt, sizeof **arr))
		return MCZ_E_NOMEM;
	mcz_stream_desc *d = *arr + *n;
	scols_arena a = {NULL, 1, 0, 64 * len + 4096};
	a.cap = 4 * len + 4096 < a.max ? 4 * len + 4096 : a.max;
	/* a column's values met: offsets, then lengths */
	size_t *vals = malloc(2 * (size_t)cnt * sizeof *vals);
	if (!vals || !(a.p = malloc(a.cap))) {
		free(vals);
		return MCZ_E_NOMEM;
	}
	a.p[0] = 0;
	scols_strings(&c, d, cnt, &a, vals, vals + cnt);
	free(vals);
	*arena = a.p;
	for (uint64_t i = 0; i < cnt && !c.err; i++) {
		d[i].name = a.p + (uintptr_t)d[i].name;
		d[i].source = a.p + (uintptr_t)d[i].source;
		d[i].native = a.p + (uintptr_t)d[i].native;
		d[i].unit = a.p + (uintptr_t)d[i].unit;
		d[i].note = a.p + (uintptr_t)d[i].note;
		d[i].instance = a.p + (uintptr_t)d[i].instance;
	}
	/* kind, type, flags, scale, topo: runs (count >= 1, value) */
	for (int f = 0; f < 5 && !c.err; f++)
		for (uint64_t i = 0; i < cnt && !c.err;) {
			uint64_t k = mcz_cur_uv(&c), v = f == 3 ? mcz_cur_u64(&c) : mcz_cur_uv(&c);
			if (c.err || k == 0 || k > cnt - i || (f < 2 && v > 255) ||
			    (f == 2 && v > 65535) || (f == 4 && v > UINT32_MAX)) {
				c.err = MCZ_E_CORRUPT;
				break;
			}
			for (; k > 0; k--, i++) {
				if (f == 0)
					d[i].kind = (uint8_t)v;
				else if (f == 1)
					d[i].type = (uint8_t)v;
				else if (f == 2)
					d[i].flags = (uint16_t)v;
				else if (f == 3)
					memcpy(&d[i].scale, &v, 8);
				else
					d[i].topo = (int32_t)mcz_buf_unzigzag(v);
			}
		}
	for (uint64_t i = 0; i < cnt && !c.err; i++) {
		int32_t topo = d[i].topo;
		d[i].id = (uint32_t)(*n + i);
		/* the checks of STREAMS (5.3) */
		if (d[i].kind > MCZ_GAUGE || d[i].type > MCZ_F64 ||
		    (d[i].kind == MCZ_COUNTER && d[i].type != MCZ_U64) || topo < -1)
			c.err = MCZ_E_CORRUPT;
	}
	if (!c.err && mcz_cur_left(&c))
		c.err = MCZ_E_CORRUPT;
	if (c.err) {
		free(*arena);
		*arena = NULL;
		memset(d, 0, (size_t)cnt * sizeof *d);
		return c.err;
	}
	*n += (size_t)cnt;
	return 0;
}
