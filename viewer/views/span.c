/* span.c: the time span a view shows figures of, as every view that
 * summarises a span picks it (Topology, Flame): the selected phase (n/p,
 * viewer/analysis/phases/phase.h), else the selected time range, else the
 * timeline's window, with its name for the view's title. */
#include <stdio.h>

#include "draw/draw.h"

void vw_span_of(const vw_an *an, int64_t *t0, int64_t *t1, char *what, size_t len)
{
	const vw_model *m = an->m;
	char a[32], b[32], cls[8];
	const struct vw_phases *ph = an->phases;
	if (ph && m->phase_sel >= 0 && (size_t)m->phase_sel < ph->n) {
		const vw_phase *p = &ph->v[m->phase_sel];
		*t0 = p->t0, *t1 = p->t1;
		vw_phase_class_name(p->cls, cls, sizeof cls);
		snprintf(what, len, "phase %d (%s%s%s) %s-%s", m->phase_sel + 1, cls,
			 p->label[0] ? " " : "", p->label,
			 vw_fmt_time(a, sizeof a, *t0 - m->t_min, 0),
			 vw_fmt_time(b, sizeof b, *t1 - m->t_min, 0));
	} else if (m->sel1 > m->sel0) {
		*t0 = m->sel0, *t1 = m->sel1;
		snprintf(what, len, "selection %s-%s", vw_fmt_time(a, sizeof a, *t0 - m->t_min, 0),
			 vw_fmt_time(b, sizeof b, *t1 - m->t_min, 0));
	} else {
		*t0 = m->t0, *t1 = m->t1;
		if (m->t0 <= m->t_min && m->t1 >= m->t_max)
			snprintf(what, len, "whole run");
		else
			snprintf(what, len, "window %s-%s",
				 vw_fmt_time(a, sizeof a, *t0 - m->t_min, 0),
				 vw_fmt_time(b, sizeof b, *t1 - m->t_min, 0));
	}
}
