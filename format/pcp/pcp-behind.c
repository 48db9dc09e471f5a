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
 *         pcp_pending_progress(pid): how far it has read, for the status line
 *     pcp_pending_stop(pid);                                  // at the end
 *
 * How far the process has read is a number it writes into a page shared
 * with the viewer (MAP_SHARED before the fork): the percentage of the
 * archive's time span its import's progress line gives.  The same page
 * holds its temporary file's path: the process puts the rows it has read
 * into that file every half second (PART blocks), and the viewer opens
 * it as a file being written (pcp_pending_peek), so that the overview
 * fills in as the archive is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../mcz.h"
#include "pcp-int.h"
#include "pcp.h"

/* The page shared with the process: how far it has read, and its file.
 * ready is set (release) once path is whole, at its first progress line,
 * which comes after pcp_import_temp has copied the path. */
#define BEHIND_SYNC_MS 500
typedef struct behind_page {
	int pct;
	int ready;
	char path[4096 - 2 * sizeof(int)];
} behind_page;

/* The child's progress: the percentage its import's line gives
 * ("importing NAME: 45%  ..."), into the shared page. */
static void behind_progress(void *arg, const char *line, int final)
{
	behind_page *pg = arg;
	const char *p = strrchr(line, '%');
	if (pg->path[0])
		__atomic_store_n(&pg->ready, 1, __ATOMIC_RELEASE);
	if (final || !p)
		return;
	while (p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (*p >= '0' && *p <= '9')
		__atomic_store_n(&pg->pct, atoi(p), __ATOMIC_RELAXED);
}

/* The child: convert, keep, check that the entry is there; its exit status
 * says which step failed (0: in the cache). */
static void behind_run(const char *src, const pcp_import_opts *o, const char *key,
		       const char *ident, pid_t parent, behind_page *pg)
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
	w.progress = pg ? behind_progress : NULL;
	w.progress_arg = pg;
	if (pg) { /* this process's own, set after the fork */
		pcp_sync_ms = BEHIND_SYNC_MS;
		pcp_sync_name = pg->path;
		pcp_sync_len = sizeof pg->path;
	}
	w.first_ms = 0;
	w.pending = NULL;
	w.note = NULL;
	w.notelen = 0;
	char *tmp, err[512];
	/* the entry of the archive as it was, when it has only grown since:
	 * continued with the new records, not made again */
	if (pcp_import_extend(src, key, ident, &w, &tmp, err, sizeof err) != MCZ_OK &&
	    pcp_import_temp(src, &w, &tmp, NULL, err, sizeof err) != MCZ_OK)
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

/* The entries the processes are making: an archive still written by a
 * pmlogger has changed again by the time its conversion is done, so the
 * viewer opens the entry made from the files as they were (pcp_pending_open),
 * not one of the files as they are. */
#define BEHIND_MAX 64
static struct {
	int pid;
	int reaped; /* its status taken: the id may be another process's now */
	char *key, *ident;
	long long cache_max; /* the cache's bound it was written under */
	behind_page *pg;     /* shared with it: how far it has read, its file */
} behind[BEHIND_MAX];

int pcp_behind_start(const char *src, const pcp_import_opts *o, const char *key,
		     const char *ident)
{
	int slot = 0;
	while (slot < BEHIND_MAX && behind[slot].pid)
		slot++;
	char *k = slot < BEHIND_MAX ? strdup(key) : NULL, *id = k ? strdup(ident) : NULL;
	if (!id) {
		free(k);
		return 0;
	}
	void *page = mmap(NULL, sizeof(behind_page), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	behind_page *pg = page == MAP_FAILED ? NULL : page;
	if (pg)
		pg->pct = -1; /* the rest zero, as mmap gives it */
	pid_t parent = getpid();
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		behind_run(src, o, key, ident, parent, pg);
	if (pid <= 0) {
		if (pg)
			munmap(pg, sizeof *pg);
		free(k);
		free(id);
		return 0;
	}
	behind[slot].pg = pg;
	behind[slot].pid = (int)pid;
	behind[slot].key = k;
	behind[slot].ident = id;
	behind[slot].cache_max = o->cache_max;
	return (int)pid;
}

static int behind_slot(int pid)
{
	for (int i = 0; pid > 0 && i < BEHIND_MAX; i++)
		if (behind[i].pid == pid)
			return i;
	return -1;
}

static void behind_forget(int i)
{
	if (behind[i].pg)
		munmap(behind[i].pg, sizeof *behind[i].pg);
	free(behind[i].key);
	free(behind[i].ident);
	memset(&behind[i], 0, sizeof behind[i]);
}

int pcp_pending_open(int pid, mcz_reader **r, char **stamp)
{
	*r = NULL;
	if (stamp)
		*stamp = NULL;
	int i = behind_slot(pid);
	if (i < 0)
		return MCZ_E_NOTFOUND;
	pcp_import_opts o = PCP_IMPORT_OPTS_INIT;
	o.cache_max = behind[i].cache_max;
	int rc = pcp_cache_get(behind[i].key, behind[i].ident, &o, r);
	if (rc == MCZ_OK && stamp)
		*stamp = pcp_cache_stamp_of(behind[i].ident); /* as pcp_archive_stamp gives it */
	behind_forget(i);
	return rc;
}

int pcp_pending_progress(int pid)
{
	int i = behind_slot(pid);
	return i < 0 || !behind[i].pg ? -1 : __atomic_load_n(&behind[i].pg->pct, __ATOMIC_RELAXED);
}

/* The process's file, once its path is whole; NULL before, or when done
 * (the file is then gone: the entry is in the cache). */
static const char *behind_file(int pid)
{
	int i = behind_slot(pid);
	if (i < 0 || behind[i].reaped || !behind[i].pg ||
	    !__atomic_load_n(&behind[i].pg->ready, __ATOMIC_ACQUIRE))
		return NULL;
	const char *p = behind[i].pg->path;
	return memchr(p, 0, sizeof behind[i].pg->path) ? p : NULL;
}

long long pcp_pending_written(int pid)
{
	const char *p = behind_file(pid);
	struct stat st;
	return p && stat(p, &st) == 0 ? (long long)st.st_size : -1;
}

int pcp_pending_peek(int pid, mcz_reader **r)
{
	*r = NULL;
	const char *p = behind_file(pid);
	if (!p)
		return MCZ_E_NOTFOUND;
	int rc = mcz_open(r, p, 0);
	/* before its first rows: nothing to show yet */
	if (rc == MCZ_OK && mcz_stream_count(*r) == 0) {
		mcz_close(*r);
		*r = NULL;
		rc = MCZ_E_NOTFOUND;
	}
	return rc;
}

int pcp_pending_poll(int pid)
{
	int i = behind_slot(pid), st;
	if (i < 0)
		return -1;
	if (behind[i].reaped)
		return 1; /* done, its entry not opened yet */
	pid_t got = waitpid((pid_t)pid, &st, WNOHANG);
	if (got == 0)
		return 0;
	if (got > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		behind[i].reaped = 1;
		return 1;
	}
	behind_forget(i); /* failed, or reaped elsewhere */
	return -1;
}

void pcp_pending_stop(int pid)
{
	int i = behind_slot(pid);
	if (i < 0) /* not one of ours, or forgotten: never signalled */
		return;
	int running = !behind[i].reaped;
	behind_forget(i);
	/* SIGTERM: the import stops between records and removes its file */
	if (running && kill((pid_t)pid, SIGTERM) == 0)
		while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR)
			;
}
