/* test-format-roundtrip.c: what goes into a recording comes back out,
 * bit for bit: random streams of every kind and type (0, 2^64-1, wrapping
 * counters, NaN and infinities with their payload bits, irregular
 * intervals, missing values, streams added mid-recording, 1 to 10 000
 * streams, an empty recording), metadata, topology, marks, aux blocks, and
 * summaries that agree with a brute-force computation over the samples.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../format/mcz.h"

static uint64_t rt_seed = 0x9e3779b97f4a7c15ull;
static uint64_t rt_rand(void)
{
	rt_seed ^= rt_seed << 13;
	rt_seed ^= rt_seed >> 7;
	rt_seed ^= rt_seed << 17;
	return rt_seed;
}

static char rt_path[64];
static const char *rt_tmp(void)
{
	snprintf(rt_path, sizeof rt_path, "/tmp/test-format-rt-%d.mcz", (int)getpid());
	return rt_path;
}

/* The model of what was written. */
typedef struct rt_model {
	size_t nstreams, nrows, chunk_rows;
	mcz_stream_desc *d;
	size_t *added_at; /* row at which stream s was added */
	int64_t *t;
	mcz_value *v;	  /* [row * nstreams + s] */
	uint8_t *present; /* idem */
} rt_model;

static mcz_value rt_value(const mcz_stream_desc *d, uint64_t prev, int row)
{
	mcz_value v;
	uint64_t r = rt_rand();
	if (d->kind == MCZ_COUNTER) {
		switch (r % 8) {
		case 0: v.u = prev; break;                          /* no change */
		case 1: v.u = prev + UINT64_MAX - 5; break;         /* wraps */
		case 2: v.u = row == 0 ? UINT64_MAX : prev + 1; break;
		default: v.u = prev + (rt_rand() % 100000); break;
		}
		return v;
	}
	if (d->type == MCZ_F64) {
		static const uint64_t special[] = {
			0x7ff8000000000000ull, /* NaN */
			0x7ff0000000000001ull, /* signalling NaN with a payload */
			0xfff8000000000abcull, /* negative NaN with payload */
			0x7ff0000000000000ull, /* +inf */
			0xfff0000000000000ull, /* -inf */
			0x8000000000000000ull, /* -0 */
			0x0000000000000001ull, /* smallest denormal */
			0,
		};
		if (r % 5 == 0)
			v.u = special[rt_rand() % 8];
		else
			v.f = (double)(int64_t)(rt_rand() % 2000000) / 1000.0 - 1000.0;
		return v;
	}
	switch (r % 6) {
	case 0: v.u = 0; break;
	case 1: v.u = UINT64_MAX; break;
	case 2: v.u = (uint64_t)INT64_MIN; break;
	default: v.u = prev + rt_rand() % 1000 - 500; break;
	}
	return v;
}

/* Write a random recording of nstreams streams and nrows rows; streams
 * beyond `initial` are added part way. */
static void rt_write(rt_model *m, size_t nstreams, size_t initial, size_t nrows,
		     uint32_t chunk_rows, int with_missing)
{
	memset(m, 0, sizeof *m);
	m->nstreams = nstreams;
	m->nrows = nrows;
	m->chunk_rows = chunk_rows;
	m->d = calloc(nstreams + 1, sizeof *m->d);
	m->added_at = calloc(nstreams + 1, sizeof *m->added_at);
	m->t = calloc(nrows + 1, sizeof *m->t);
	m->v = calloc(nrows * nstreams + 1, sizeof *m->v);
	m->present = calloc(nrows * nstreams + 1, 1);
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.chunk_rows = chunk_rows;
	o.chunk_ns = 0; /* chunks of exactly chunk_rows rows */
	o.wall_epoch_ns = 1700000000123456789LL;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, rt_tmp(), &o), MCZ_OK);
	assert_int_equal(mcz_writer_meta(w, "host", "node7"), MCZ_OK);
	assert_int_equal(mcz_writer_meta(w, "command", "./app --x"), MCZ_OK);
	assert_int_equal(mcz_writer_meta(w, "host", "node8"), MCZ_OK); /* replaces */
	mcz_topo_obj topo[3] = {{-1, MCZ_TOPO_MACHINE, -1, 1 << 30, "Machine"},
				{0, MCZ_TOPO_CORE, 0, 0, "Core#0"},
				{1, MCZ_TOPO_PU, 3, 0, "PU#3"}};
	assert_int_equal(mcz_writer_topology(w, topo, 3), MCZ_OK);
	static char names[64][32];
	size_t added = 0;
	int64_t t = -5000;
	mcz_value *row = calloc(nstreams + 1, sizeof *row);
	uint8_t *pres = calloc(nstreams + 1, 1);
	for (size_t r = 0; r <= nrows; r++) {
		size_t want = r == 0 ? initial : r == nrows / 2 ? nstreams : added;
		for (; added < want; added++) {
			mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
			int kind = (int)(added % 4);
			snprintf(names[added % 64], 32, "s%zu.kind%d", added, kind);
			d.name = names[added % 64];
			d.source = "test";
			d.unit = kind == 0 ? "B" : "W";
			d.kind = kind == 0 ? MCZ_COUNTER : MCZ_GAUGE;
			d.type = kind == 0 ? MCZ_U64 : kind == 1 ? MCZ_F64 : kind == 2 ? MCZ_I64 : MCZ_U64;
			d.scale = kind == 3 ? 0.001 : 1.0;
			d.topo = kind == 0 ? 2 : -1;
			uint32_t id;
			assert_int_equal(mcz_writer_add_stream(w, &d, &id), MCZ_OK);
			assert_int_equal(id, added);
			m->d[added] = d;
			m->d[added].name = strdup(d.name);
			m->added_at[added] = r;
		}
		if (r == nrows)
			break;
		/* irregular intervals: 1 ns to 1 s */
		t += 1 + (int64_t)(rt_rand() % (rt_rand() % 4 == 0 ? 1000000000 : 10000000));
		m->t[r] = t;
		for (size_t s = 0; s < added; s++) {
			uint64_t prev = 0;
			for (size_t k = r; k-- > m->added_at[s];)
				if (m->present[k * nstreams + s]) {
					prev = m->v[k * nstreams + s].u;
					break;
				}
			row[s] = rt_value(&m->d[s], prev, (int)r);
			pres[s] = !with_missing || rt_rand() % 7 != 0;
			m->v[r * nstreams + s] = row[s];
			m->present[r * nstreams + s] = pres[s];
		}
		assert_int_equal(mcz_writer_append(w, t, row, pres), MCZ_OK);
		if (r % 97 == 3)
			assert_int_equal(mcz_writer_mark(w, t, (mcz_mark_kind)(r % 4), (uint32_t)r, "m"),
					 MCZ_OK);
	}
	assert_int_equal(mcz_writer_aux(w, "phases", "abc", 3), MCZ_OK);
	assert_int_equal(mcz_writer_aux(w, "phases", "defg", 4), MCZ_OK);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	free(row);
	free(pres);
}

static void rt_free(rt_model *m)
{
	for (size_t s = 0; s < m->nstreams; s++)
		free((char *)m->d[s].name);
	free(m->d);
	free(m->added_at);
	free(m->t);
	free(m->v);
	free(m->present);
}

static void rt_check_stream(mcz_reader *r, const rt_model *m, size_t s)
{
	const mcz_stream_desc *d = mcz_stream(r, s);
	assert_non_null(d);
	assert_string_equal(d->name, m->d[s].name);
	assert_int_equal(d->kind, m->d[s].kind);
	assert_int_equal(d->type, m->d[s].type);
	assert_true(d->scale == m->d[s].scale);
	assert_int_equal(d->topo, m->d[s].topo);
	mcz_series ser;
	assert_int_equal(mcz_read(r, (uint32_t)s, INT64_MIN, INT64_MAX, &ser), MCZ_OK);
	assert_int_equal(ser.n, m->nrows);
	uint64_t prev = 0;
	int have = 0;
	for (size_t i = 0; i < m->nrows; i++) {
		assert_int_equal(ser.t[i], m->t[i]);
		int p = i >= m->added_at[s] && m->present[i * m->nstreams + s];
		assert_int_equal(ser.present[i], p);
		if (!p)
			continue;
		uint64_t want = m->v[i * m->nstreams + s].u;
		assert_true(ser.v[i].u == want); /* bit-identical, NaN payloads included */
		if (d->kind == MCZ_COUNTER) {
			assert_non_null(ser.delta);
			assert_true(ser.delta[i] == (have ? want - prev : 0));
		}
		prev = want;
		have = 1;
	}
	/* a sub-range read returns exactly the rows inside it */
	if (m->nrows > 10) {
		mcz_series part;
		int64_t a = m->t[3], b = m->t[m->nrows - 4];
		assert_int_equal(mcz_read(r, (uint32_t)s, a, b, &part), MCZ_OK);
		assert_int_equal(part.n, m->nrows - 7);
		assert_int_equal(part.t[0], a);
		mcz_series_free(&part);
	}
	mcz_series_free(&ser);
}

/* Brute-force bucket of samples [t0,t1) of stream s. */
/* zoomed: apply mcz_summary's rule for chunks narrower than a bucket (the
 * whole chunk goes to the bucket of its first present sample). */
static void rt_brute(const rt_model *m, size_t s, int64_t t0, int64_t t1, size_t n,
		     mcz_bucket *out, int zoomed)
{
	int64_t width = (t1 - t0) / (int64_t)n;
	for (size_t b = 0; b < n; b++)
		out[b] = (mcz_bucket){NAN, NAN, 0, 0, 0, 0};
	int64_t pt = 0;
	uint64_t pv = 0;
	int have = 0;
	for (size_t i = 0; i < m->nrows; i++) {
		if (i < m->added_at[s] || !m->present[i * m->nstreams + s])
			continue;
		mcz_value v = m->v[i * m->nstreams + s];
		int64_t t = m->t[i];
		double x, add;
		if (m->d[s].kind == MCZ_COUNTER) {
			/* SPEC.md 7.3: a delta of 2^63 and more went backwards */
			uint64_t dl = have ? v.u - pv : 0;
			int back = dl >= (UINT64_C(1) << 63);
			x = have && t > pt && !back ? (double)dl * 1e9 / (double)(t - pt) : NAN;
			add = back ? 0 : (double)dl;
		} else {
			x = m->d[s].type == MCZ_F64 ? v.f : m->d[s].type == MCZ_I64 ? (double)v.i
										    : (double)v.u;
			add = isnan(x) ? 0 : x;
		}
		pt = t;
		pv = v.u;
		have = 1;
		if (t < t0 || t >= t1)
			continue;
		int64_t tb = t; /* the time that picks the bucket */
		size_t c0 = i / m->chunk_rows * m->chunk_rows;
		size_t c1 = c0 + m->chunk_rows < m->nrows ? c0 + m->chunk_rows : m->nrows;
		if (zoomed && m->t[c1 - 1] - m->t[c0] < width && m->t[c0] >= t0 &&
		    m->t[c1 - 1] < t1) {
			for (size_t k = c0; k < c1; k++)
				if (k >= m->added_at[s] && m->present[k * m->nstreams + s]) {
					tb = m->t[k];
					break;
				}
		}
		size_t b = (size_t)(((__int128)tb - t0) * (__int128)n / ((__int128)t1 - t0));
		mcz_bucket *k = &out[b];
		if (k->count == 0)
			k->first = t;
		k->last = t;
		k->count++;
		k->sum += add;
		if (!isnan(x)) {
			if (isnan(k->min) || x < k->min)
				k->min = x;
			if (isnan(k->max) || x > k->max)
				k->max = x;
		}
	}
}

static void rt_same_double(double a, double b)
{
	if (isnan(a) || isnan(b)) {
		assert_true(isnan(a) && isnan(b));
		return;
	}
	if (isinf(a) || isinf(b)) {
		assert_true(a == b);
		return;
	}
	assert_true(fabs(a - b) <= 1e-6 * (fabs(a) + fabs(b)) + 1e-9);
}

static void rt_check_summary(mcz_reader *r, const rt_model *m, size_t s)
{
	const mcz_file_info *fi = mcz_info(r);
	/* Per-sample buckets (each smaller than a chunk) must match exactly. */
	size_t n = m->nrows * 4 + 1;
	mcz_bucket *got = calloc(n, sizeof *got), *want = calloc(n, sizeof *want);
	int64_t t0 = fi->t_first, t1 = fi->t_last + 1;
	assert_int_equal(mcz_summary(r, (uint32_t)s, t0, t1, n, got), MCZ_OK);
	rt_brute(m, s, t0, t1, n, want, 0);
	for (size_t b = 0; b < n; b++) {
		assert_int_equal(got[b].count, want[b].count);
		if (!want[b].count)
			continue;
		rt_same_double(got[b].min, want[b].min);
		rt_same_double(got[b].max, want[b].max);
		rt_same_double(got[b].sum, want[b].sum);
		assert_int_equal(got[b].first, want[b].first);
		assert_int_equal(got[b].last, want[b].last);
	}
	/* Zoomed out: about three chunks per bucket, answered from the index
	 * where a chunk is narrower than a bucket. */
	size_t nz = m->nrows / m->chunk_rows / 3 + 1;
	assert_int_equal(mcz_summary(r, (uint32_t)s, t0, t1, nz, got), MCZ_OK);
	rt_brute(m, s, t0, t1, nz, want, 1);
	for (size_t b = 0; b < nz; b++) {
		assert_int_equal(got[b].count, want[b].count);
		if (!want[b].count)
			continue;
		rt_same_double(got[b].min, want[b].min);
		rt_same_double(got[b].max, want[b].max);
		rt_same_double(got[b].sum, want[b].sum);
		assert_int_equal(got[b].first, want[b].first);
		assert_int_equal(got[b].last, want[b].last);
	}
	/* One bucket over everything: totals agree (from index summaries). */
	mcz_bucket all, ref;
	assert_int_equal(mcz_summary(r, (uint32_t)s, t0, t1, 1, &all), MCZ_OK);
	rt_brute(m, s, t0, t1, 1, &ref, 0);
	assert_int_equal(all.count, ref.count);
	rt_same_double(all.min, ref.min);
	rt_same_double(all.max, ref.max);
	rt_same_double(all.sum, ref.sum);
	if (ref.count) {
		assert_int_equal(all.first, ref.first);
		assert_int_equal(all.last, ref.last);
	}
	free(got);
	free(want);
}

static void rt_check(const rt_model *m, unsigned flags)
{
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, rt_tmp(), flags), MCZ_OK);
	const mcz_file_info *fi = mcz_info(r);
	assert_int_equal(fi->recovered, 0);
	assert_int_equal(fi->nrows, m->nrows);
	assert_int_equal(fi->version_major, MCZ_VERSION_MAJOR);
	assert_true(fi->wall_epoch_ns == 1700000000123456789LL);
	assert_int_equal(mcz_stream_count(r), m->nstreams);
	assert_string_equal(mcz_meta(r, "host"), "node8");
	assert_string_equal(mcz_meta(r, "command"), "./app --x");
	assert_null(mcz_meta(r, "nope"));
	assert_int_equal(mcz_topo_count(r), 3);
	assert_string_equal(mcz_topo(r, 2)->name, "PU#3");
	assert_int_equal(mcz_topo(r, 2)->parent, 1);
	assert_int_equal(mcz_topo(r, 2)->os_index, 3);
	const void *aux;
	size_t alen;
	assert_int_equal(mcz_aux(r, "phases", &aux, &alen), MCZ_OK);
	assert_int_equal(alen, 4);
	assert_memory_equal(aux, "defg", 4);
	assert_int_equal(mcz_aux(r, "other", &aux, &alen), MCZ_E_NOTFOUND);
	size_t nmarks = 0;
	uint64_t nvalues = 0;
	for (size_t i = 0; i < m->nrows; i++) {
		nmarks += i % 97 == 3;
		for (size_t s = 0; s < m->nstreams; s++)
			nvalues += i >= m->added_at[s] && m->present[i * m->nstreams + s];
	}
	assert_int_equal(fi->nvalues, nvalues);
	assert_int_equal(mcz_mark_count(r), nmarks);
	for (size_t i = 1; i < mcz_mark_count(r); i++)
		assert_true(mcz_mark_at(r, i - 1)->t <= mcz_mark_at(r, i)->t);
	if (m->nrows) {
		assert_int_equal(fi->t_first, m->t[0]);
		assert_int_equal(fi->t_last, m->t[m->nrows - 1]);
	}
	for (size_t s = 0; s < m->nstreams; s++) {
		rt_check_stream(r, m, s);
		if (m->nrows)
			rt_check_summary(r, m, s);
	}
	assert_int_equal(mcz_read(r, (uint32_t)m->nstreams, 0, 1, &(mcz_series){0}),
			 MCZ_E_RANGE);
	mcz_close(r);
}

static void test_every_kind(void **state)
{
	rt_model m;
	rt_write(&m, 12, 8, 3000, 128, 1);
	rt_check(&m, 0);
	rt_check(&m, MCZ_OPEN_VERIFY);
	rt_free(&m);
}

static void test_one_stream_no_missing(void **state)
{
	rt_model m;
	rt_write(&m, 1, 1, 1000, 1024, 0);
	rt_check(&m, 0);
	rt_free(&m);
}

static void test_empty_recording(void **state)
{
	rt_model m;
	rt_write(&m, 0, 0, 0, 1024, 0);
	rt_check(&m, 0);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, rt_tmp(), 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->nrows, 0);
	assert_int_equal(mcz_info(r)->t_first, 0);
	mcz_close(r);
	rt_free(&m);
}

static void test_10000_streams(void **state)
{
	rt_model m;
	rt_write(&m, 10000, 10000, 40, 16, 1);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, rt_tmp(), 0), MCZ_OK);
	assert_int_equal(mcz_stream_count(r), 10000);
	for (size_t s = 0; s < 10000; s += 997)
		rt_check_stream(r, &m, s);
	rt_check_stream(r, &m, 9999);
	mcz_close(r);
	rt_free(&m);
}

static void test_append_aux(void **state)
{
	rt_model m;
	rt_write(&m, 5, 5, 500, 64, 1);
	assert_int_equal(mcz_append_aux(rt_tmp(), "phases", "xyz!!", 5), MCZ_OK);
	assert_int_equal(mcz_append_aux(rt_tmp(), "notes", "n", 1), MCZ_OK);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, rt_tmp(), 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->recovered, 0);
	const void *a;
	size_t n;
	assert_int_equal(mcz_aux(r, "phases", &a, &n), MCZ_OK);
	assert_int_equal(n, 5);
	assert_memory_equal(a, "xyz!!", 5);
	assert_int_equal(mcz_aux(r, "notes", &a, &n), MCZ_OK);
	mcz_close(r);
	/* the data are untouched */
	for (size_t s = 0; s < 5; s++) {
		assert_int_equal(mcz_open(&r, rt_tmp(), 0), MCZ_OK);
		rt_check_stream(r, &m, s);
		rt_check_summary(r, &m, s);
		mcz_close(r);
	}
	rt_free(&m);
}

/* Identical columns are stored once (codec SAME) and still read back as
 * themselves; a constant column (codec CONST) too. */
static void test_duplicate_and_constant_columns(void **state)
{
	mcz_writer *w;
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.chunk_rows = 100;
	assert_int_equal(mcz_writer_open(&w, rt_tmp(), &o), MCZ_OK);
	static const uint8_t kinds[6][2] = {{MCZ_GAUGE, MCZ_U64}, {MCZ_COUNTER, MCZ_U64},
					    {MCZ_GAUGE, MCZ_I64}, {MCZ_COUNTER, MCZ_U64},
					    {MCZ_GAUGE, MCZ_F64}, {MCZ_GAUGE, MCZ_F64}};
	for (int s = 0; s < 6; s++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		d.name = "dup";
		d.kind = kinds[s][0];
		d.type = kinds[s][1];
		assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	}
	mcz_value v[6];
	for (int r = 0; r < 1000; r++) {
		uint64_t x = rt_rand() % 100000;
		v[0].u = x;           /* gauge */
		v[1].u = x * 7 + (uint64_t)r * 1000000; /* counter */
		v[2].u = x;           /* same bytes as 0: an I64 gauge */
		v[3].u = v[1].u;      /* same as 1 */
		v[4].f = 2.5;         /* constant */
		v[5].f = 2.5;         /* constant, same as 4 */
		assert_int_equal(mcz_writer_append(w, r * 1000 + 1, v, NULL), MCZ_OK);
	}
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, rt_tmp(), MCZ_OPEN_VERIFY), MCZ_OK);
	mcz_series a, b;
	static const int pairs[3][2] = {{0, 2}, {1, 3}, {4, 5}};
	for (int k = 0; k < 3; k++) {
		assert_int_equal(mcz_read(r, (uint32_t)pairs[k][0], INT64_MIN, INT64_MAX, &a), MCZ_OK);
		assert_int_equal(mcz_read(r, (uint32_t)pairs[k][1], INT64_MIN, INT64_MAX, &b), MCZ_OK);
		assert_int_equal(a.n, 1000);
		assert_int_equal(b.n, 1000);
		assert_memory_equal(a.v, b.v, 1000 * sizeof *a.v);
		mcz_series_free(&a);
		mcz_series_free(&b);
	}
	assert_int_equal(mcz_read(r, 1, INT64_MIN, INT64_MAX, &a), MCZ_OK);
	assert_int_equal(mcz_read(r, 0, INT64_MIN, INT64_MAX, &b), MCZ_OK);
	for (size_t i = 0; i < 1000; i++) {
		assert_true(b.v[i].u * 7 + i * 1000000 == a.v[i].u);
		assert_true(a.delta[i] == (i ? a.v[i].u - a.v[i - 1].u : 0));
	}
	mcz_series_free(&a);
	mcz_series_free(&b);
	assert_int_equal(mcz_read(r, 4, INT64_MIN, INT64_MAX, &a), MCZ_OK);
	for (size_t i = 0; i < 1000; i++)
		assert_true(a.v[i].f == 2.5);
	mcz_series_free(&a);
	mcz_close(r);
	mcz_check_report rep;
	assert_int_equal(mcz_check(rt_tmp(), &rep), MCZ_OK);
	assert_string_equal(rep.first_problem, "");
	unlink(rt_tmp());
}

static void test_writer_rules(void **state)
{
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, rt_tmp(), NULL), MCZ_OK);
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	d.name = "bad";
	d.kind = MCZ_COUNTER;
	d.type = MCZ_F64;
	assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_E_ARG);
	d.type = MCZ_U64;
	assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	mcz_value v = {.u = 1};
	assert_int_equal(mcz_writer_append(w, 10, &v, NULL), MCZ_OK);
	assert_int_equal(mcz_writer_append(w, 10, &v, NULL), MCZ_E_ARG); /* not increasing */
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	assert_int_equal(mcz_writer_open(&w, "/nonexistent-dir/x.mcz", NULL), MCZ_E_IO);
	/* a full disk: /dev/full refuses every write with ENOSPC */
	if (access("/dev/full", W_OK) == 0) {
		int fd = open("/dev/full", O_WRONLY);
		assert_true(fd >= 0);
		assert_int_equal(mcz_writer_open_fd(&w, fd, NULL), MCZ_E_NOSPC);
		close(fd);
	}
	unlink(rt_tmp());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kind),    cmocka_unit_test(test_one_stream_no_missing),
		cmocka_unit_test(test_empty_recording), cmocka_unit_test(test_10000_streams),
		cmocka_unit_test(test_append_aux),    cmocka_unit_test(test_writer_rules),
		cmocka_unit_test(test_duplicate_and_constant_columns),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(rt_tmp());
	return rc;
}
