/* pcp-agents.c: what the local PCP installation's configuration says, read
 * without libpcp: a setting of /etc/pcp.conf (also pcp-lib.c's question:
 * where pmcd's socket is), and which agents (PMDAs) the local pmcd runs.
 *
 * Without -e pcp:..., the pcp source records from the local pmcd only what
 * three agents give: perfevent (memory traffic an ordinary user may not
 * count through perf), nvidia and denki (GPU and power where the local
 * sources cannot read them).  Asking pmcd costs libpcp's loading (eight
 * more shared libraries) and two contexts, CPU and time before the command
 * starts (bench-rec-overhead.sh), at every mcrec run on a host whose pmcd runs
 * none of them (the default install: root, pmcd, proc, linux, xfs, mmv...).
 * pmcd.conf says which agents pmcd runs: one line per agent, its name
 * first, up to the access control section ("[access]"), comments from
 * '#'.  Its path is PCP_PMCDCONF_PATH, from the environment or
 * /etc/pcp.conf, as pmcd itself takes it.  Anything uncertain (an
 * environment that moves PCP's files, a file that cannot be read) answers
 * "unknown", and the caller asks pmcd as before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcp-metrics.h"

int src_pcp_conf_value(const char *key, char *val, size_t len)
{
	FILE *f = fopen("/etc/pcp.conf", "re");
	char line[512];
	size_t k = strlen(key);
	int found = -1;
	if (!f)
		return -1;
	/* the last line that sets it wins, as in a shell */
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, k) == 0 && line[k] == '=') {
			line[strcspn(line, "\n")] = '\0';
			found = snprintf(val, len, "%s", line + k + 1) < (int)len ? 0 : -2;
		}
	fclose(f);
	return found;
}

/* PCP_PMCDCONF_PATH into path: 0, or -1 when it is not known here. */
static int agents_conf_path(char *path, size_t len)
{
	const char *env = getenv("PCP_PMCDCONF_PATH");
	if (env)
		return *env && snprintf(path, len, "%s", env) < (int)len ? 0 : -1;
	if (getenv("PCP_CONF") || getenv("PCP_DIR"))
		return -1; /* pcp.conf is elsewhere: libpcp decides */
	return src_pcp_conf_value("PCP_PMCDCONF_PATH", path, len) == 0 && path[0] == '/' ? 0 : -1;
}

int src_pcp_local_agents(const char *const *names, size_t n)
{
	char path[512], line[1024];
	if (agents_conf_path(path, sizeof path) != 0)
		return -1;
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	int any = 0;
	while (!any && fgets(line, sizeof line, f)) {
		const char *p = line + strspn(line, " \t");
		if (*p == '[')
			break; /* the access control section */
		if (*p == '#' || *p == '\n' || *p == '\0')
			continue;
		size_t k = strcspn(p, " \t\n");
		for (size_t i = 0; i < n && !any; i++)
			any = strlen(names[i]) == k && strncmp(p, names[i], k) == 0;
	}
	int err = ferror(f);
	fclose(f);
	return err ? -1 : any;
}
