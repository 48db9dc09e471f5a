/* pcp-map.c: a small open-addressing hash map from 64-bit keys to 32-bit
 * values, used by the PCP importer to find a metric by (pmID) and a stream by
 * (pmID, instance) for every value of every record without a search.
 *
 *     pcp_map m = {0};
 *     pcp_map_put(&m, (uint64_t)pmid << 32 | (uint32_t)inst, stream_id);
 *     uint32_t id;
 *     if (pcp_map_get(&m, key, &id)) ...
 *     pcp_map_free(&m);
 *
 * Linear probing, load kept under 1/2; keys are mixed with a 64-bit
 * finaliser (splitmix64) so that consecutive pmIDs spread.  Key ~0 is
 * reserved as the empty slot marker (pmID 0xffffffff is PM_ID_NULL, never
 * a metric).
 */
#include <stdlib.h>

#include "../mcz.h"
#include "pcp-int.h"

#define EMPTY UINT64_MAX

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

int pcp_map_get(const pcp_map *m, uint64_t key, uint32_t *val)
{
	if (m->cap == 0)
		return 0;
	size_t mask = m->cap - 1;
	for (size_t i = mix(key) & mask;; i = (i + 1) & mask) {
		if (m->keys[i] == key) {
			*val = m->vals[i];
			return 1;
		}
		if (m->keys[i] == EMPTY)
			return 0;
	}
}

static void put_slot(uint64_t *keys, uint32_t *vals, size_t cap, uint64_t key, uint32_t val,
		     int *added)
{
	size_t mask = cap - 1;
	size_t i = mix(key) & mask;
	while (keys[i] != EMPTY && keys[i] != key)
		i = (i + 1) & mask;
	*added = keys[i] == EMPTY;
	keys[i] = key;
	vals[i] = val;
}

static int grow(pcp_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	uint64_t *keys = malloc(cap * sizeof *keys);
	uint32_t *vals = malloc(cap * sizeof *vals);
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return MCZ_E_NOMEM;
	}
	for (size_t i = 0; i < cap; i++)
		keys[i] = EMPTY;
	int added;
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i] != EMPTY)
			put_slot(keys, vals, cap, m->keys[i], m->vals[i], &added);
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return MCZ_OK;
}

int pcp_map_put(pcp_map *m, uint64_t key, uint32_t val)
{
	if (key == EMPTY)
		return MCZ_E_ARG;
	if ((m->n + 1) * 2 > m->cap) {
		int rc = grow(m);
		if (rc)
			return rc;
	}
	int added;
	put_slot(m->keys, m->vals, m->cap, key, val, &added);
	m->n += (size_t)added;
	return MCZ_OK;
}

void pcp_map_free(pcp_map *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->n = 0;
}
