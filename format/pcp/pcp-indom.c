/* pcp-indom.c: instance names of an archive's instance domains, read once
 * per domain with pmGetInDomArchive and then found by hashing, instead of
 * one pmNameInDomArchive search per new stream (an archive of 40 000
 * metric instances spent a sixth of its import time there).
 *
 *     pcp_indom_cache c = {0};
 *     const char *name = pcp_indom_name(&c, desc.indom, inst);  // current context
 *     pcp_indom_free(&c);
 *
 * pmGetInDomArchive returns the union of the domain's instances over the
 * whole archive; an instance number listed twice (renamed over time) keeps
 * its first name, as pmNameInDomArchive does.
 */
#include <stdlib.h>

#include "../mcz.h"
#include "pcp-int.h"

struct pcp_indom_one {
	int n;
	int *inst;
	char **name;
	pcp_map pos; /* inst -> index in inst[] / name[] */
};

static struct pcp_indom_one *load(pcp_indom_cache *c, pmInDom indom)
{
	uint32_t k;
	if (pcp_map_get(&c->of_indom, indom, &k))
		return &c->v[k];
	struct pcp_indom_one *v = realloc(c->v, (c->nv + 1) * sizeof *v);
	if (!v)
		return NULL;
	c->v = v;
	struct pcp_indom_one *d = &v[c->nv];
	d->n = 0;
	d->inst = NULL;
	d->name = NULL;
	d->pos = (pcp_map){ 0 };
	int n = pmGetInDomArchive(indom, &d->inst, &d->name);
	if (n > 0) {
		d->n = n;
		for (int i = n - 1; i >= 0; i--) /* backwards: the first listing wins */
			if (pcp_map_put(&d->pos, (uint32_t)d->inst[i], (uint32_t)i) != MCZ_OK)
				break;
	}
	if (pcp_map_put(&c->of_indom, indom, (uint32_t)c->nv) != MCZ_OK) {
		pcp_map_free(&d->pos);
		if (n > 0) {
			free(d->inst);
			free(d->name);
		}
		return NULL;
	}
	return &c->v[c->nv++];
}

const char *pcp_indom_name(pcp_indom_cache *c, pmInDom indom, int inst)
{
	struct pcp_indom_one *d = load(c, indom);
	uint32_t i;
	if (!d || !pcp_map_get(&d->pos, (uint32_t)inst, &i))
		return NULL;
	return d->name[i];
}

void pcp_indom_free(pcp_indom_cache *c)
{
	for (size_t i = 0; i < c->nv; i++) {
		pcp_map_free(&c->v[i].pos);
		if (c->v[i].n > 0) {
			free(c->v[i].inst);
			free(c->v[i].name);
		}
	}
	free(c->v);
	pcp_map_free(&c->of_indom);
	c->v = NULL;
	c->nv = 0;
}
