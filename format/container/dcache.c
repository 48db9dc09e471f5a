/* dcache.c: the reader's cache of decoded chunk columns.
 *
 * Consumers ask for summaries and samples stream by stream, zoom and pan
 * over the same chunks again and again; decoding (zstd, then the codec) is
 * what costs.  This is a least-recently-used cache of decoded columns keyed
 * by (chunk, column), bounded in bytes: a chunk's entry (column 0) holds its
 * timestamps and column directory, a stream's entry (column 1 + s) its
 * values, deltas and presence bytes.  The most recently used entry is never
 * evicted, so a caller may hold the chunk entry while it adds one stream's
 * entry (see query.c, which touches the chunk entry before each column).
 * An entry may also be pinned (e->pin) while a decoding uses it: query.c
 * pins a GCHUNK's chunk entry while it adds the run it decompresses and
 * the stream's column.  Memory stays under the budget plus the pinned and
 * the most recent entries.
 *
 *     mcz_dcache_ent *e = mcz_dcache_get(&c, ci, col);
 *     if (!e && (e = mcz_dcache_put(&c, ci, col, bytes)))
 *             decode into e->data, or mcz_dcache_drop(&c, e) on failure;
 */
#include <stdlib.h>
#include <string.h>

#include "reader.h"

static size_t dcache_hash(const mcz_dcache *c, size_t ci, uint32_t col)
{
	uint64_t h = ((uint64_t)ci * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)col * 0xC2B2AE3D27D4EB4Full);
	return (size_t)(h ^ (h >> 29)) & (c->nslot - 1);
}

static void dcache_unlink(mcz_dcache *c, mcz_dcache_ent *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		c->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		c->tail = e->prev;
	e->prev = e->next = NULL;
}

static void dcache_push_front(mcz_dcache *c, mcz_dcache_ent *e)
{
	e->prev = NULL;
	e->next = c->head;
	if (c->head)
		c->head->prev = e;
	c->head = e;
	if (!c->tail)
		c->tail = e;
}

mcz_dcache_ent *mcz_dcache_get(mcz_dcache *c, size_t ci, uint32_t col)
{
	if (!c->nslot)
		return NULL;
	for (mcz_dcache_ent *e = c->slot[dcache_hash(c, ci, col)]; e; e = e->hnext)
		if (e->ci == ci && e->col == col) {
			if (c->head != e) {
				dcache_unlink(c, e);
				dcache_push_front(c, e);
			}
			c->hits++;
			return e;
		}
	c->misses++;
	return NULL;
}

void mcz_dcache_drop(mcz_dcache *c, mcz_dcache_ent *e)
{
	mcz_dcache_ent **pp = &c->slot[dcache_hash(c, e->ci, e->col)];
	while (*pp != e)
		pp = &(*pp)->hnext;
	*pp = e->hnext;
	dcache_unlink(c, e);
	c->bytes -= e->bytes;
	c->count--;
	free(e);
}

static int dcache_grow(mcz_dcache *c)
{
	size_t n = c->nslot ? 2 * c->nslot : 64;
	mcz_dcache_ent **s = calloc(n, sizeof *s);
	if (!s)
		return MCZ_E_NOMEM;
	mcz_dcache_ent **old = c->slot;
	size_t on = c->nslot;
	c->slot = s;
	c->nslot = n;
	for (size_t i = 0; i < on; i++)
		for (mcz_dcache_ent *e = old[i], *nx; e; e = nx) {
			nx = e->hnext;
			size_t h = dcache_hash(c, e->ci, e->col);
			e->hnext = s[h];
			s[h] = e;
		}
	free(old);
	return 0;
}

mcz_dcache_ent *mcz_dcache_put(mcz_dcache *c, size_t ci, uint32_t col, size_t bytes)
{
	size_t need = sizeof(mcz_dcache_ent) + bytes;
	/* from the least recent on; the most recent and pinned entries stay */
	for (mcz_dcache_ent *e = c->tail, *p; e && c->bytes + need > c->budget; e = p) {
		p = e->prev;
		if (e != c->head && !e->pin)
			mcz_dcache_drop(c, e);
	}
	if (c->count + 1 > c->nslot && dcache_grow(c))
		return NULL;
	mcz_dcache_ent *e = malloc(need);
	if (!e)
		return NULL;
	memset(e, 0, sizeof *e);
	e->ci = ci;
	e->col = col;
	e->bytes = need;
	size_t h = dcache_hash(c, ci, col);
	e->hnext = c->slot[h];
	c->slot[h] = e;
	dcache_push_front(c, e);
	c->bytes += need;
	c->count++;
	return e;
}

void mcz_dcache_free(mcz_dcache *c)
{
	for (mcz_dcache_ent *e = c->head, *nx; e; e = nx) {
		nx = e->next;
		free(e);
	}
	free(c->slot);
	size_t budget = c->budget;
	memset(c, 0, sizeof *c);
	c->budget = budget;
}

void mcz_dcache_limit(mcz_dcache *c, size_t budget)
{
	c->budget = budget;
	while (c->tail && c->bytes > budget)
		mcz_dcache_drop(c, c->tail);
}

void mcz_dcache_drop_from(mcz_dcache *c, size_t from)
{
	for (mcz_dcache_ent *e = c->head, *next; e; e = next) {
		next = e->next;
		if (e->ci >= from)
			mcz_dcache_drop(c, e);
	}
}
