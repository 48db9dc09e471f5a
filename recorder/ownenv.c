/* ownenv.c: environment variables mcrec sets for the libraries it loads
 * (hwloc's plugin list: topology.c), set at start while mcrec has one
 * thread, and left out of the recorded command's environment: the command
 * sees the environment it was given, not mcrec's tuning of its own hwloc.
 * A variable the user set is never changed (their value is kept, and goes
 * to the command as it came). */
#include "rec.h"

#include <stdlib.h>
#include <string.h>

extern char **environ;

#define OWNENV_MAX 8
static const char *ownenv_names[OWNENV_MAX];
static size_t ownenv_n;

int rec_env_own(const char *name, const char *value)
{
	if (getenv(name) || ownenv_n == OWNENV_MAX)
		return 0;
	if (setenv(name, value, 0) != 0)
		return -1;
	ownenv_names[ownenv_n++] = name;
	return 1;
}

static int ownenv_is_own(const char *entry)
{
	for (size_t i = 0; i < ownenv_n; i++) {
		size_t l = strlen(ownenv_names[i]);
		if (!strncmp(entry, ownenv_names[i], l) && entry[l] == '=')
			return 1;
	}
	return 0;
}

char **rec_env_for_child(void)
{
	size_t n = 0;
	while (environ && environ[n])
		n++;
	char **env = malloc((n + 1) * sizeof *env);
	if (!env)
		return environ; /* the whole environment rather than none */
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!ownenv_is_own(environ[i]))
			env[k++] = environ[i];
	env[k] = NULL;
	return env;
}
