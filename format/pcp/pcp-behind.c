/* pcp-behind.c: the whole of a large archive converted behind its first
 * screen.  The viewer shows the start it read within first_ms (pcp-open.c)
 * while a process of its own reads the whole archive into the cache
 * (pcp-cache.c); the viewer polls it and opens the archive again, from the
 * cache, when it is done.  A process rather than a thread: it is stopped
 * with the viewer whatever way that ends (PR_SET_PDEATHSIG), the import's
 * signal handling then removes its temporary file, and libpcp's state is
 * its own.
 *
 *     int pid = pcp_behind_start(path, opts, key, ident);   // pcp-int.h
 *     ... each loop turn: switch (pcp_pending_poll(pid)) { case 1: reopen; }
 *     pcp_pending_stop(pid);                                  // at the end
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../mcz.h"
#include "pcp-int.h"
#include "pcp.h"

/* The child: convert, keep, check that the entry is there; its exit status
 * says which step failed (0: in the cache). */
static void behind_run(const char *src, const pcp_import_opts *o, const char *key,
		       const char *ident, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent) /* the viewer ended before the line above */
		_exit(4);
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) { /* never a byte on the viewer's terminal */
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		close(null);
	}
	setpriority(PRIO_PROCESS, 0, 10); /* the viewer's keys first */
	pcp_import_opts w = *o;
	w.progress = NULL;
	w.first_ms = 0;
	w.pending = NULL;
	w.note = NULL;
	w.notelen = 0;
	char *tmp, err[512];
	if (pcp_import_temp(src, &w, &tmp, NULL, err, sizeof err) != MCZ_OK)
		_exit(2);
	/* the entry written whole before the process may be stopped */
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	int rc = pcp_cache_put(key, ident, tmp, &w, NULL, 0);
	unlink(tmp);
	free(tmp);
	mcz_reader *r = NULL;
	if (rc == MCZ_OK && pcp_cache_get(key, ident, &w, &r) == MCZ_OK) {
		mcz_close(r);
		_exit(0);
	}
	_exit(3);
}

int pcp_behind_start(const char *src, const pcp_import_opts *o, const char *key,
		     const char *ident)
{
	pid_t parent = getpid();
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		behind_run(src, o, key, ident, parent);
	return pid > 0 ? (int)pid : 0;
}

int pcp_pending_poll(int pid)
{
	if (pid <= 0)
		return -1;
	int st;
	pid_t got = waitpid((pid_t)pid, &st, WNOHANG);
	if (got == 0)
		return 0;
	if (got < 0) /* reaped elsewhere, or not ours */
		return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 1 : -1;
}

void pcp_pending_stop(int pid)
{
	if (pid <= 0)
		return;
	/* SIGTERM: the import stops between records and removes its file */
	if (kill((pid_t)pid, SIGTERM) == 0)
		while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR)
			;
}
