/* views.c: the table of views, in the order Tab walks them.  A new view is
 * one line here (and its vw_view in its own file). */
#include <stddef.h>
#include <string.h>

#include "view.h"

const vw_view *const vw_views[] = {
	&view_timeline,
	&view_phases,
	&view_topology,
	&view_roofline,
	&view_compare,
	&view_ranks,
	&view_flame,
	NULL,
};

int vw_views_find(const char *name)
{
	int found = -1;
	size_t n = strlen(name);
	for (int i = 0; vw_views[i]; i++) {
		if (strcmp(vw_views[i]->name, name) == 0)
			return i;
		if (n && strncmp(vw_views[i]->name, name, n) == 0)
			found = found == -1 ? i : -2;
	}
	return found < 0 ? -1 : found;
}

int vw_views_shown(vw_ctx *ctx, int i)
{
	return !vw_views[i]->shown || vw_views[i]->shown(ctx);
}

int vw_views_step(vw_ctx *ctx, int i, int dir)
{
	int n = 0;
	while (vw_views[n])
		n++;
	for (int k = 1; k <= n; k++) {
		int j = ((i + dir * k) % n + n) % n;
		if (vw_views_shown(ctx, j))
			return j;
	}
	return i;
}
