/* registry.c: the table of sources compiled into mcrec, and the glue every
 * source uses: rec_streams_add (stream declarations, copied), rec_unavailable
 * (why a source cannot run, and the fix), the -g group names, and the
 * distribution of -e items to the source they name ("perf:instructions",
 * "net:eth0", "pcp@host:metric"; a bare event such as "task-clock" or
 * "uncore_imc_0/cas_count_read/" belongs to perf, as in perf stat -e).
 *
 * To add a source: define its rec_source_ops in recorder/sources/NAME.c and
 * add one line to rec_registry below.
 */
#include "rec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const rec_source_ops *const rec_registry[] = {
	&src_perf_ops,
	&src_proc_ops,
	&src_net_ops,
	&src_mark_ops,
	&src_papi_ops,
	&src_pcp_ops,
	&src_nvml_ops,
	&src_rapl_ops,
	&src_code_ops,
	&src_regions_ops,
	NULL,
};

size_t rec_registry_count(void)
{
	size_t n = 0;
	while (rec_registry[n])
		n++;
	return n;
}

static char *registry_strdup(const char *s)
{
	return strdup(s ? s : "");
}

int rec_streams_add(rec_streams *out, const mcz_stream_desc *d)
{
	if (out->n == out->cap) {
		size_t cap = out->cap ? out->cap * 2 : 64;
		mcz_stream_desc *nd = realloc(out->d, cap * sizeof *nd);
		if (!nd)
			return -1;
		out->d = nd;
		out->cap = cap;
	}
	mcz_stream_desc c = *d;
	c.name = registry_strdup(d->name);
	c.source = registry_strdup(d->source);
	c.native = registry_strdup(d->native);
	c.unit = registry_strdup(d->unit);
	c.note = registry_strdup(d->note);
	c.instance = registry_strdup(d->instance);
	if (!c.name || !c.source || !c.native || !c.unit || !c.note || !c.instance) {
		free((char *)c.name), free((char *)c.source), free((char *)c.native);
		free((char *)c.unit), free((char *)c.note), free((char *)c.instance);
		return -1;
	}
	out->d[out->n++] = c;
	return 0;
}

void rec_streams_clear(rec_streams *s)
{
	for (size_t i = 0; i < s->n; i++) {
		mcz_stream_desc *d = &s->d[i];
		free((char *)d->name), free((char *)d->source), free((char *)d->native);
		free((char *)d->unit), free((char *)d->note), free((char *)d->instance);
	}
	free(s->d);
	s->d = NULL;
	s->n = s->cap = 0;
}

int rec_unavailable(rec_source *s, const char *why, const char *fix)
{
	snprintf(s->why, sizeof s->why, "%s", why ? why : "");
	snprintf(s->fix, sizeof s->fix, "%s", fix ? fix : "");
	return -1;
}

static const struct {
	const char *name;
	unsigned bit;
} registry_groups[] = {
	{"core", REC_G_CORE}, {"mem", REC_G_MEM},     {"net", REC_G_NET},
	{"os", REC_G_OS},     {"gpu", REC_G_GPU},     {"power", REC_G_POWER},
	{"code", REC_G_CODE},
	{"all", REC_G_ALL},
};

int rec_registry_groups(const char *list, unsigned *mask, char *err, size_t errlen)
{
	char buf[256];
	*mask = 0;
	snprintf(buf, sizeof buf, "%s", list ? list : "");
	for (char *save = NULL, *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
		size_t i;
		for (i = 0; i < sizeof registry_groups / sizeof registry_groups[0]; i++)
			if (strcmp(t, registry_groups[i].name) == 0)
				break;
		if (i == sizeof registry_groups / sizeof registry_groups[0]) {
			snprintf(err, errlen,
				 "-g: unknown group '%s' (groups: core, mem, net, os, gpu, power, code, "
				 "all)", t);
			return -1;
		}
		*mask |= registry_groups[i].bit;
	}
	return 0;
}

/* Index of the source an item names, with *event pointing past "src:";
 * -1 when the prefix names no source. */
static int registry_route(const char *item, const char **event, size_t nsrc)
{
	size_t plen = strcspn(item, ":@/");
	if (item[plen] == ':' || item[plen] == '@') {
		for (size_t i = 0; i < nsrc; i++)
			if (strlen(rec_registry[i]->name) == plen &&
			    strncmp(item, rec_registry[i]->name, plen) == 0) {
				*event = item[plen] == ':' ? item + plen + 1 : item + plen;
				return (int)i;
			}
		if (item[plen] == '@' || (item[plen + 1] != ':' && plen > 0))
			return -1;
	}
	/* A bare event (or a PMU-qualified "cpu/.../"): perf's. */
	*event = item;
	for (size_t i = 0; i < nsrc; i++)
		if (strcmp(rec_registry[i]->name, "perf") == 0)
			return (int)i;
	return -1;
}

int rec_registry_split_events(char *const *items, size_t n, const char **out[],
			      char *err, size_t errlen)
{
	size_t nsrc = rec_registry_count();
	size_t *cnt = calloc(nsrc ? nsrc : 1, sizeof *cnt);
	int *route = calloc(n ? n : 1, sizeof *route);
	const char **ev = calloc(n ? n : 1, sizeof *ev);
	int rc = -1;
	for (size_t i = 0; i < nsrc; i++)
		out[i] = NULL;
	if (!cnt || !route || !ev) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	for (size_t k = 0; k < n; k++) {
		if (!items[k][0]) {
			snprintf(err, errlen, "-e: empty event name");
			goto done;
		}
		route[k] = registry_route(items[k], &ev[k], nsrc);
		if (route[k] < 0) {
			char names[200] = "";
			for (size_t i = 0; i < nsrc; i++)
				snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
					 i ? ", " : "", rec_registry[i]->name);
			snprintf(err, errlen, "-e %s: unknown source '%.*s' (sources: %s)", items[k],
				 (int)strcspn(items[k], ":@"), items[k], names);
			goto done;
		}
		cnt[route[k]]++;
	}
	for (size_t i = 0; i < nsrc; i++) {
		if (!cnt[i])
			continue;
		out[i] = calloc(cnt[i] + 1, sizeof *out[i]);
		if (!out[i]) {
			snprintf(err, errlen, "out of memory");
			goto done;
		}
		cnt[i] = 0;
	}
	for (size_t k = 0; k < n; k++)
		out[route[k]][cnt[route[k]]++] = ev[k];
	rc = 0;
done:
	if (rc)
		rec_registry_free_events(out);
	free(cnt), free(route), free(ev);
	return rc;
}

void rec_registry_free_events(const char **lists[])
{
	size_t nsrc = rec_registry_count();
	for (size_t i = 0; i < nsrc; i++) {
		free(lists[i]);
		lists[i] = NULL;
	}
}
