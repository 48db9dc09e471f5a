/* pcp-export.c: an .mcz recording (or a job file) written as PCP archives
 * through libpcp_import (pmiStart ... pmiWrite ... pmiEnd), for mcz export
 * --pcp.  The rules are in pcp.h (pcp_export); the descriptors come from
 * pcp_metric_desc_of(), the importer's mapping used backwards; the rows and
 * marks go out in pcp-export-rows.c.
 *
 *     pcp_export_stats st;
 *     if (pcp_export(r, "out/run", &st, err, sizeof err) != 0)
 *             die("%s", err);
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../mcz.h"
#include "pcp-export.h"
#include <pcp/import.h> /* after pmapi.h (pcp-int.h) */
#include "pcp-int.h"

#define EX_DOMAIN 245 /* LOGIMPORT's own performance metrics domain */

/* A PCP metric name from a stream name: components of letters, digits and
 * '_', each starting with a letter (PCPIntro(1)); any other byte becomes
 * '_', a component starting otherwise gets an 'x' in front, empty
 * components are dropped.  "mem.read_bytes" stays as it is. */
static void ex_pcp_name(const char *in, char *out, size_t len)
{
	size_t u = 0;
	int start = 1;
	for (const char *p = in; *p && u + 3 < len; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '.') {
			if (!start)
				out[u++] = '.';
			start = 1;
			continue;
		}
		if (start && !isalpha(c) && c < 0x80)
			out[u++] = 'x';
		out[u++] = (char)(isalnum(c) || c == '_' ? c : '_');
		start = 0;
	}
	if (u && out[u - 1] == '.')
		u--;
	if (!u)
		out[u++] = 'x';
	out[u] = '\0';
}

static uint64_t ex_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h == UINT64_MAX ? 0 : h;
}

/* 1 if name is one of x's metrics (or its mark metric) already. */
static int ex_is_name(const ex_archive *x, const char *name, size_t len)
{
	char buf[300];
	if (len >= sizeof buf)
		return 0;
	memcpy(buf, name, len);
	buf[len] = '\0';
	uint32_t i;
	if (pcp_map_get(&x->by_name, ex_hash(buf), &i) && !strcmp(x->m[i].name, buf))
		return 1;
	for (size_t j = 0; x->by_name.n != x->nm && j < x->nm; j++) /* hash collisions */
		if (!strcmp(x->m[j].name, buf))
			return 1;
	return 0;
}

/* A PCP name is a leaf or a folder, not both: a metric whose name begins
 * another's ("a.b" beside "a.b.c") gets '_' after it ("a.b_"). */
static int ex_leaves(ex_archive *x)
{
	for (size_t i = 0; i < x->nm; i++)
		for (const char *p = strchr(x->m[i].name, '.'); p; p = strchr(p + 1, '.')) {
			size_t len = (size_t)(p - x->m[i].name);
			if (!ex_is_name(x, x->m[i].name, len))
				continue;
			for (size_t j = 0; j < x->nm; j++) {
				if (strlen(x->m[j].name) != len || strncmp(x->m[j].name, x->m[i].name, len))
					continue;
				char buf[300];
				snprintf(buf, sizeof buf, "%s_", x->m[j].name);
				while (ex_is_name(x, buf, strlen(buf)) && strlen(buf) + 2 < sizeof buf)
					strcat(buf, "_");
				char *nn = strdup(buf);
				if (!nn)
					return MCZ_E_NOMEM;
				free(x->m[j].name);
				x->m[j].name = nn;
				/* a new key: the map holds more keys than metrics from now
				 * on, so ex_is_name also looks the names through */
				int rc = pcp_map_put(&x->by_name, ex_hash(nn), (uint32_t)j);
				if (rc)
					return rc;
			}
		}
	return MCZ_OK;
}

static int ex_same_desc(const ex_metric *m, const pmDesc *d, double mul)
{
	return m->desc.type == d->type && m->desc.sem == d->sem && m->mul == mul &&
	       !memcmp(&m->desc.units, &d->units, sizeof d->units);
}

/* The metric of stream d (created when new): same PCP name and descriptor;
 * a name whose streams disagree on units or kind gets "_2", "_3"... */
static int ex_metric_of(ex_archive *x, const mcz_stream_desc *d, uint32_t *mi)
{
	pmDesc pd;
	double mul;
	char why[160], base[256], name[280];
	int named = pcp_metric_desc_of(d, &pd, &mul, why, sizeof why);
	ex_pcp_name(d->name, base, sizeof base);
	snprintf(name, sizeof name, "%s", base);
	for (int k = 2;; k++) {
		uint32_t i;
		int found = pcp_map_get(&x->by_name, ex_hash(name), &i) && !strcmp(x->m[i].name, name);
		for (size_t j = 0; !found && j < x->nm && x->by_name.n != x->nm; j++)
			if (!strcmp(x->m[j].name, name)) /* a hash collision: look them through */
				found = 1, i = (uint32_t)j;
		/* two stream names that PCP spells alike ("app.my-count" and
		 * "app.my_count") are two metrics, never instances of one */
		if (found && ex_same_desc(&x->m[i], &pd, mul) && !strcmp(x->m[i].d0->name, d->name)) {
			*mi = i;
			return MCZ_OK;
		}
		if (!found)
			break;
		snprintf(name, sizeof name, "%s_%d", base, k);
	}
	if (x->nm == x->capm) {
		size_t cap = x->capm ? x->capm * 2 : 64;
		ex_metric *m = realloc(x->m, cap * sizeof *m);
		if (!m)
			return MCZ_E_NOMEM;
		x->m = m;
		x->capm = cap;
	}
	ex_metric *m = &x->m[x->nm];
	memset(m, 0, sizeof *m);
	if (!(m->name = strdup(name)))
		return MCZ_E_NOMEM;
	m->desc = pd;
	m->mul = mul;
	m->named = named;
	m->d0 = d;
	snprintf(m->why, sizeof m->why, "%s", why);
	m->allcpu = 1;
	*mi = (uint32_t)x->nm++;
	uint32_t old;
	if (pcp_map_get(&x->by_name, ex_hash(name), &old))
		return MCZ_OK; /* a collision: the first keeps the slot */
	return pcp_map_put(&x->by_name, ex_hash(name), *mi);
}

static int ex_cpu(const char *inst)
{
	int cpu, len = 0;
	if (sscanf(inst, "cpu%d%n", &cpu, &len) != 1 || inst[len] || cpu < 0)
		return -1;
	return cpu;
}

/* The instance name of a stream: the rank's prefix and the stream's own
 * instance ("rank3:cpu2", "rank3", "cpu2"), "" for none. */
static void ex_inst_name(const ex_src *s, const mcz_stream_desc *d, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", s->prefix, *s->prefix && *d->instance ? ":" : "", d->instance);
}

/* 1 when PCP takes the stream name as it is. */
static int ex_name_kept(const char *name)
{
	char buf[280];
	ex_pcp_name(name, buf, sizeof buf);
	return !strcmp(buf, name);
}

/* Pass 1: every stream's metric; whether each metric has instances.  The
 * names PCP takes as they are first, so that a name changed for PCP never
 * takes one of theirs ("app.my-count" becomes app.my_count_2 beside an
 * app.my_count). */
static int ex_plan(ex_archive *x)
{
	for (size_t k = 0; k < x->nsrc; k++) {
		ex_src *s = &x->src[k];
		s->ns = mcz_stream_count(s->r);
		s->metric = calloc(s->ns ? s->ns : 1, sizeof *s->metric);
		s->inst = calloc(s->ns ? s->ns : 1, sizeof *s->inst);
		s->type = calloc(s->ns ? s->ns : 1, sizeof *s->type);
		if (!s->metric || !s->inst || !s->type)
			return MCZ_E_NOMEM;
		x->nmarks += mcz_mark_count(s->r);
	}
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < x->nsrc; k++) {
			ex_src *s = &x->src[k];
			for (size_t i = 0; i < s->ns; i++) {
				const mcz_stream_desc *d = mcz_stream(s->r, i);
				if (ex_name_kept(d->name) != !pass)
					continue;
				s->type[i] = d->type;
				int rc = ex_metric_of(x, d, &s->metric[i]);
				if (rc)
					return rc;
				ex_metric *m = &x->m[s->metric[i]];
				char inst[320];
				ex_inst_name(s, d, inst, sizeof inst);
				m->nstreams++;
				m->has_inst |= *inst != '\0';
				m->allcpu &= !*s->prefix && ex_cpu(d->instance) >= 0;
			}
		}
	return ex_leaves(x);
}

/* A label's value: libpcp_import puts it between quotes as it is (no
 * escaping), so a quote, backslash or control byte would break the JSON:
 * they become ', / and space. */
static void ex_label_text(char *buf, size_t len, const char *s)
{
	snprintf(buf, len, "%s", s);
	for (char *p = buf; *p; p++)
		*p = *p == '"' ? '\'' : *p == '\\' ? '/' : (unsigned char)*p < 0x20 ? ' ' : *p;
}

static int ex_label(ex_archive *x, unsigned type, unsigned id, const char *name, const char *val)
{
	char text[600];
	if (!val || !*val)
		return MCZ_OK;
	ex_label_text(text, sizeof text, val);
	int rc = pmiPutLabel(type, id, 0, name, text);
	return rc < 0 ? pcp_export_fail(x, rc, name) : MCZ_OK;
}

/* A name as a JSON string's inside, for a label that gives it back whole
 * (libpcp_import quotes a label's value but does not escape it): '"', '\\'
 * and control bytes as \u00XX, which mcz import reads back; the empty
 * name (a stream without instance beside instances: "all") as \u0000. */
static void ex_label_json(char *buf, size_t len, const char *s)
{
	size_t u = 0;
	for (; *s && u + 7 < len; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\' || c < 0x20)
			u += (size_t)snprintf(buf + u, len - u, "\\u%04x", c);
		else
			buf[u++] = (char)c;
	}
	buf[u] = '\0';
	if (!u) /* libpcp_import takes no empty label: "" is written as \u0000 */
		snprintf(buf, len, "\\u0000");
}

/* A name PCP could not take as it is: its original kept as the label key
 * (mcz_name on the metric, mcz_instance on the instance) and said in
 * st->renames ("ORIGINAL -> PCP NAME", a line each). */
static int ex_renamed(ex_archive *x, unsigned type, unsigned id, unsigned inst, const char *key,
		      const char *orig, const char *shown_from, const char *shown_to)
{
	char text[1200];
	ex_label_json(text, sizeof text, orig);
	int rc = pmiPutLabel(type, id, inst, key, text);
	if (rc < 0)
		return pcp_export_fail(x, rc, key);
	pcp_export_stats *st = x->st;
	size_t u = strlen(st->renames);
	if (u + strlen(shown_from) + strlen(shown_to) + 6 < sizeof st->renames)
		snprintf(st->renames + u, sizeof st->renames - u, "%s -> %s\n", shown_from, shown_to);
	st->renamed++;
	return MCZ_OK;
}

/* Pass 2: the metrics, their instances, help texts and labels, and every
 * stream's instance id. */
static int ex_declare(ex_archive *x)
{
	int rc;
	for (size_t i = 0; i < x->nm; i++) {
		ex_metric *m = &x->m[i];
		m->singular = !m->has_inst && m->nstreams == 1;
		m->desc.pmid = pmiID(EX_DOMAIN, (int)(i / 1024), (int)(i % 1024));
		m->desc.indom = m->singular ? PM_INDOM_NULL : pmiInDom(EX_DOMAIN, (int)i);
		if ((rc = pmiAddMetric(m->name, m->desc.pmid, m->desc.type, m->desc.indom,
				       m->desc.sem, m->desc.units)) < 0)
			return pcp_export_fail(x, rc, m->name);
		const mcz_stream_desc *d = m->d0;
		char text[600];
		snprintf(text, sizeof text, "%s from mcz (%s %s), in %s", d->name, d->source, d->native,
			 *d->unit ? d->unit : "no unit");
		pmiPutText(PM_TEXT_PMID, PM_TEXT_ONELINE, m->desc.pmid, text);
		if (*d->note || *m->why) {
			snprintf(text, sizeof text, "%s%s%s", d->note, *d->note && *m->why ? "; " : "",
				 m->why);
			pmiPutText(PM_TEXT_PMID, PM_TEXT_HELP, m->desc.pmid, text);
		}
		/* the unit's own name where PCP only counts it (W, J, instructions) */
		if (!m->named && (rc = ex_label(x, PM_LABEL_ITEM, m->desc.pmid, "mcz_unit", d->unit)))
			return rc;
		if (strcmp(m->name, d->name) &&
		    (rc = ex_renamed(x, PM_LABEL_ITEM, m->desc.pmid, 0, "mcz_name", d->name, d->name,
				     m->name)))
			return rc;
	}
	for (size_t k = 0; k < x->nsrc; k++) {
		ex_src *s = &x->src[k];
		for (size_t i = 0; i < s->ns; i++) {
			const mcz_stream_desc *d = mcz_stream(s->r, i);
			ex_metric *m = &x->m[s->metric[i]];
			char inst[340] = "";
			s->inst[i] = (int)PM_IN_NULL;
			if (!m->singular) {
				ex_inst_name(s, d, inst, sizeof inst);
				if (!*inst)
					snprintf(inst, sizeof inst, "all");
				int id = m->allcpu ? ex_cpu(d->instance) : m->ninst;
				char base[340];
				snprintf(base, sizeof base, "%s", inst);
				for (int n = 2; (rc = pmiAddInstance(m->desc.indom, inst, id)) < 0; n++) {
					if (rc == PMI_ERR_DUPINSTID && n < 1000) { /* cpu3 twice */
						id = (1 << 21) + m->ninst;
						continue;
					}
					/* PCP names instances apart by their first word */
					if (rc != PMI_ERR_DUPINSTNAME || n > 1000)
						return pcp_export_fail(x, rc, m->name);
					for (char *p = base; *p; p++)
						*p = *p == ' ' ? '_' : *p;
					snprintf(inst, sizeof inst, n == 2 ? "%s" : "%s#%d", base, n);
				}
				m->ninst++;
				s->inst[i] = id;
				char was[340];
				ex_inst_name(s, d, was, sizeof was);
				if (strcmp(was, inst)) {
					char from[700], to[700];
					snprintf(from, sizeof from, "%s[%s]", d->name, was);
					snprintf(to, sizeof to, "%s[%s]", m->name, inst);
					/* mcz_instances on the metric: mcz import reads
					 * the instances' labels only where it is */
					if (!m->inst_renamed++ &&
					    (rc = ex_label(x, PM_LABEL_ITEM, m->desc.pmid, "mcz_instances",
							   "renamed")))
						return rc;
					if ((rc = ex_renamed(x, PM_LABEL_INSTANCES, m->desc.indom,
							     (unsigned)id, "mcz_instance", was, from, to)))
						return rc;
				}
			}
		}
	}
	if (x->nmarks) { /* marks: one string metric, an instance per rank in a job */
		char name[64] = "mcz.mark";
		for (int n = 2; n < 100; n++) {
			int clash = ex_is_name(x, name, strlen(name)) || ex_is_name(x, "mcz", 3);
			for (size_t i = 0; i < x->nm && !clash; i++) /* "mcz.mark.x" */
				clash = !strncmp(x->m[i].name, name, strlen(name)) &&
					x->m[i].name[strlen(name)] == '.';
			if (!clash)
				break;
			snprintf(name, sizeof name, "mcz.mark_%d", n);
		}
		pmID pmid = x->mark_pmid = pmiID(EX_DOMAIN, 4095, 1023);
		int job = x->nsrc > 1 || *x->src[0].prefix;
		pmInDom indom = job ? pmiInDom(EX_DOMAIN, (1 << 22) - 1) : PM_INDOM_NULL;
		if ((rc = pmiAddMetric(name, pmid, PM_TYPE_STRING, indom, PM_SEM_INSTANT,
				       pmiUnits(0, 0, 0, 0, 0, 0))) < 0)
			return pcp_export_fail(x, rc, name);
		pmiPutText(PM_TEXT_PMID, PM_TEXT_ONELINE, pmid,
			   "marks of the recording: \"text\", \"begin text\", \"end text\"");
		for (size_t k = 0; k < x->nsrc; k++) {
			ex_src *s = &x->src[k];
			if (job && (rc = pmiAddInstance(indom, s->prefix, (int)k)) < 0)
				return pcp_export_fail(x, rc, s->prefix);
			s->mark_inst = job ? (int)k : (int)PM_IN_NULL;
		}
	}
	return MCZ_OK;
}

/* Context labels: what the recording says of where and what it ran. */
static int ex_context_labels(ex_archive *x)
{
	mcz_reader *r = x->src[0].r;
	int rc = ex_label(x, PM_LABEL_CONTEXT, 0, "host", x->host);
	if (!rc)
		rc = ex_label(x, PM_LABEL_CONTEXT, 0, "job", mcz_meta(r, "job"));
	if (!rc && x->nsrc == 1 && !*x->src[0].prefix)
		rc = ex_label(x, PM_LABEL_CONTEXT, 0, "rank", mcz_meta(r, "rank"));
	if (!rc)
		rc = ex_label(x, PM_LABEL_CONTEXT, 0, "command", mcz_meta(r, "command"));
	if (!rc)
		rc = ex_label(x, PM_LABEL_CONTEXT, 0, "recorder", "mcz export --pcp");
	return rc;
}

static const char *const ex_suffix[] = { ".0", ".meta", ".index", ".0.xz", ".meta.xz", ".0.zst",
					 ".meta.zst" };

/* The archive's folder exists (made as mkdir -p would) and is writable, and
 * no archive of that name is there already. */
static int ex_check_out(const char *path, char *err, size_t errlen)
{
	struct stat sb;
	char buf[4096];
	if (!*path || path[strlen(path) - 1] == '/' || (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))) {
		snprintf(err, errlen, "%s: is a folder: name the archive, DIR/NAME (NAME.0, NAME.meta "
			 "and NAME.index are written)", path);
		return MCZ_E_ARG;
	}
	for (size_t i = 0; i < sizeof ex_suffix / sizeof *ex_suffix; i++) {
		snprintf(buf, sizeof buf, "%s%s", path, ex_suffix[i]);
		if (lstat(buf, &sb) == 0) {
			snprintf(err, errlen, "%s: a PCP archive of that name is there already (%s): "
				 "remove it or choose another name", path, buf);
			return MCZ_E_ARG;
		}
	}
	snprintf(buf, sizeof buf, "%s", path);
	char *slash = strrchr(buf, '/');
	if (!slash)
		snprintf(buf, sizeof buf, ".");
	else
		*slash = slash == buf ? (slash[1] = '\0', '/') : '\0';
	for (char *p = buf + 1; *p; p++) /* mkdir -p */
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0777);
			*p = '/';
		}
	if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "%s: cannot make the folder: %s", buf, strerror(errno));
		return MCZ_E_IO;
	}
	if (access(buf, W_OK | X_OK) != 0) {
		snprintf(err, errlen, "%s: cannot write there: %s", buf, strerror(errno));
		return MCZ_E_IO;
	}
	return MCZ_OK;
}

static void ex_remove(const char *path)
{
	char buf[4096];
	for (size_t i = 0; i < 3; i++) {
		snprintf(buf, sizeof buf, "%s%s", path, ex_suffix[i]);
		unlink(buf);
	}
}

static void ex_free(ex_archive *x)
{
	pcp_export_rows_free_record(x);
	for (size_t i = 0; i < x->nm; i++)
		free(x->m[i].name);
	free(x->m);
	pcp_map_free(&x->by_name);
	for (size_t k = 0; k < x->nsrc; k++) {
		free(x->src[k].metric);
		free(x->src[k].inst);
		free(x->src[k].type);
		pcp_export_rows_free(&x->src[k]);
	}
}

/* libpcp writes its own line on stderr when it fails ("__pmLogNewFile:
 * failed to create ..."), before it returns the error we report: its
 * stderr goes to a temporary file while it writes, its last line joins
 * ours when it failed, and what it said is passed on when it did not. */
typedef struct ex_quiet {
	int saved; /* the real stderr, -1 none */
	FILE *tmp;
} ex_quiet;

static void ex_quiet_on(ex_quiet *q)
{
	fflush(stderr);
	q->tmp = tmpfile();
	q->saved = q->tmp ? dup(2) : -1;
	if (q->saved >= 0 && dup2(fileno(q->tmp), 2) < 0) {
		close(q->saved);
		q->saved = -1;
	}
}

/* stderr back; with err, its last line added to it ("...: libpcp: LINE") */
static void ex_quiet_off(ex_quiet *q, char *err, size_t errlen)
{
	if (q->saved < 0) {
		if (q->tmp)
			fclose(q->tmp);
		return;
	}
	fflush(stderr);
	dup2(q->saved, 2);
	close(q->saved);
	rewind(q->tmp);
	char line[512], last[512] = "";
	while (fgets(line, sizeof line, q->tmp)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!err)
			fprintf(stderr, "%s\n", line);
		else if (*line)
			snprintf(last, sizeof last, "%s", line);
	}
	fclose(q->tmp);
	size_t u = err ? strlen(err) : 0;
	if (err && *last && !strstr(err, last) && u + 12 < errlen)
		snprintf(err + u, errlen - u, " (libpcp: %s)", last);
}

/* One archive of the sources of one host. */
static int ex_archive_write_pcp(ex_archive *x, pcp_export_stats *st);

static int ex_archive_write(ex_archive *x, pcp_export_stats *st)
{
	int rc = ex_check_out(x->path, x->err, x->errlen);
	if (rc)
		return rc;
	ex_quiet q;
	ex_quiet_on(&q);
	rc = ex_archive_write_pcp(x, st);
	ex_quiet_off(&q, rc ? x->err : NULL, x->errlen);
	return rc;
}

static int ex_archive_write_pcp(ex_archive *x, pcp_export_stats *st)
{
	int rc;
	int ctx = pmiStart(x->path, 0);
	if (ctx < 0)
		return pcp_export_fail(x, ctx, "pmiStart");
	/* version 3, as pmlogger writes today (libpcp_import's default is 2) */
	if ((rc = pmiSetVersion(PM_LOG_VERS03)) < 0)
		rc = pcp_export_fail(x, rc, "pmiSetVersion");
	else if (*x->host && (rc = pmiSetHostname(x->host)) < 0)
		rc = pcp_export_fail(x, rc, "hostname");
	else
		rc = ex_plan(x);
	if (!rc)
		rc = ex_declare(x);
	if (!rc)
		rc = ex_context_labels(x);
	if (!rc)
		rc = pcp_export_rows(x, st);
	int end = pmiEnd();
	if (!rc && end < 0)
		rc = pcp_export_fail(x, end, "pmiEnd");
	if (rc)
		ex_remove(x->path);
	else {
		st->archives++;
		st->metrics += x->nm + (x->nmarks ? 1 : 0);
		size_t u = strlen(st->paths);
		if (u + strlen(x->path) + 6 < sizeof st->paths)
			snprintf(st->paths + u, sizeof st->paths - u, "%s%s", u ? ", " : "", x->path);
		else if (u + 6 < sizeof st->paths && !strstr(st->paths, "..."))
			snprintf(st->paths + u, sizeof st->paths - u, ", ...");
	}
	return rc;
}

static const char *ex_host_of(mcz_reader *r)
{
	const char *h = mcz_meta(r, "host");
	return h && *h ? h : "";
}

/* A host's name as a file name's part: '/' and controls become '_'. */
static void ex_host_file(const char *host, char *buf, size_t len)
{
	snprintf(buf, len, "%s", *host ? host : "unknown-host");
	for (char *p = buf; *p; p++)
		if (*p == '/' || (unsigned char)*p < 0x20)
			*p = '_';
}

/* A job file: its members, grouped by host, each group one archive. */
static int ex_job(mcz_reader *job, const char *out, pcp_export_stats *st, char *err,
		  size_t errlen)
{
	size_t n = mcz_member_count(job), nopen = 0;
	mcz_reader **mr = calloc(n, sizeof *mr);
	ex_src *src = calloc(n, sizeof *src);
	char *done = calloc(n, 1);
	int rc = mr && src && done ? MCZ_OK : MCZ_E_NOMEM;
	for (size_t i = 0; !rc && i < n; i++) {
		if (mcz_member_open(job, i, 0, &mr[i]) != MCZ_OK) {
			mr[i] = NULL; /* cut short or damaged: named, the others exported */
			size_t u = strlen(st->damaged);
			snprintf(st->damaged + u, sizeof st->damaged - u, "%smember %s not readable",
				 u ? "; " : "", mcz_member_name(job, i));
			done[i] = 1;
		} else
			nopen++;
	}
	size_t nhosts = 0;
	for (size_t i = 0; !rc && i < n; i++) { /* how many hosts */
		size_t j = 0;
		while (j < i && (!mr[j] || !mr[i] || strcmp(ex_host_of(mr[j]), ex_host_of(mr[i]))))
			j++;
		nhosts += mr[i] && j == i;
	}
	if (!rc && !nopen) {
		snprintf(err, errlen, "no member of the job file is readable: %s", st->damaged);
		rc = MCZ_E_CORRUPT;
	}
	for (size_t i = 0; !rc && i < n; i++) {
		if (done[i])
			continue;
		const char *host = ex_host_of(mr[i]);
		size_t ns = 0;
		for (size_t j = i; j < n; j++)
			if (!done[j] && !strcmp(ex_host_of(mr[j]), host)) {
				done[j] = 1;
				ex_src *s = &src[ns++];
				memset(s, 0, sizeof *s);
				s->r = mr[j];
				const char *rank = mcz_meta(mr[j], "rank");
				if (rank && *rank)
					snprintf(s->prefix, sizeof s->prefix, "rank%.20s", rank);
				else
					snprintf(s->prefix, sizeof s->prefix, "member%zu", j);
				for (size_t q = 0, twice = 2; q + 1 < ns; q++) /* a rank twice: rank3#2 */
					if (!strcmp(src[q].prefix, s->prefix)) {
						char p[32];
						snprintf(p, sizeof p, "%.20s#%zu", s->prefix, twice++);
						memcpy(s->prefix, p, sizeof p);
						q = (size_t)-1; /* look again from the first */
					}
			}
		char path[4096], hf[256];
		ex_host_file(host, hf, sizeof hf);
		if (nhosts > 1)
			snprintf(path, sizeof path, "%s-%s", out, hf);
		else
			snprintf(path, sizeof path, "%s", out);
		ex_archive x = { .src = src, .nsrc = ns, .path = path, .host = host, .err = err,
				 .errlen = errlen, .st = st };
		rc = ex_archive_write(&x, st);
		ex_free(&x);
	}
	for (size_t i = 0; mr && i < n; i++)
		if (mr[i])
			mcz_close(mr[i]);
	free(mr);
	free(src);
	free(done);
	return rc;
}

int pcp_export(mcz_reader *r, const char *out, pcp_export_stats *st, char *err, size_t errlen)
{
	memset(st, 0, sizeof *st);
	if (mcz_member_count(r))
		return ex_job(r, out, st, err, errlen);
	ex_src src = { .r = r };
	ex_archive x = { .src = &src, .nsrc = 1, .path = out, .host = ex_host_of(r), .err = err,
			 .errlen = errlen, .st = st };
	int rc = ex_archive_write(&x, st);
	ex_free(&x);
	return rc;
}
