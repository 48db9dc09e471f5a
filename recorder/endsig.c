/* endsig.c: the signal that ended a recording, who sent it and why, in
 * words for the file ("ended by SIGTERM at 61.2 s from slurmstepd (pid
 * 4242): Slurm time limit").
 *
 *     rec_endsig_from(sig, pid, at_s, text, len);   // the mark, at once
 *     rec_endsig_ask(&q, pid);         // under Slurm, rank 0: why, asynchronously
 *     ...the command ends...
 *     rec_endsig_why(&q, why, len);    // "Slurm time limit", or ""
 *
 * The sender is si_pid of the first SIGINT/SIGTERM/SIGHUP mcrec received,
 * named by /proc/PID/comm, read when the sampling loop next wakes (it is
 * still alive: slurmstepd waits KillWait before its SIGKILL).  Slurm sends
 * the same SIGTERM from slurmstepd for a time limit, scancel and
 * preemption; the reason is the job's Reason in `scontrol show job`
 * (TimeLimit, Preempted, ...; None after scancel).  One rank asks, not
 * every rank: a thousand ranks asking slurmctld at once, at the moment it
 * is ending their job, would load the controller when it is busiest.  The
 * answer is awaited 3 s at most; KillWait is 30 s by default.
 */
#include "rec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The name of process pid ("" when gone), made printable: comm is the
 * sender's to choose. */
static void endsig_comm(int pid, char *comm, size_t len)
{
	char path[64];
	comm[0] = '\0';
	snprintf(path, sizeof path, "/proc/%d/comm", pid);
	FILE *f = pid > 0 ? fopen(path, "r") : NULL;
	if (!f)
		return;
	if (!fgets(comm, (int)len, f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	for (char *c = comm; *c; c++)
		if ((unsigned char)*c < ' ' || *c == '\177')
			*c = '?';
}

void rec_endsig_from(int sig, int pid, double at_s, char *buf, size_t len)
{
	char comm[64];
	const char *name = sigabbrev_np(sig);
	endsig_comm(pid, comm, sizeof comm);
	if (pid > 0)
		snprintf(buf, len, "ended by SIG%s at %.1f s from %s (pid %d)", name ? name : "?",
			 at_s, comm[0] ? comm : "a process gone since", pid);
	else /* the kernel: a terminal's Ctrl-C, a hangup */
		snprintf(buf, len, "ended by SIG%s at %.1f s from the terminal", name ? name : "?",
			 at_s);
}

void rec_endsig_ask(rec_endsig_query *q, int sender)
{
	char job[80], comm[64];
	q->pid = -1;
	q->fd = -1;
	int rank = rec_outname_rank();
	if (rec_outname_slurm_job(job, sizeof job) != 0 || rank > 0)
		return;
	/* only a signal from Slurm itself has a Slurm reason */
	endsig_comm(sender, comm, sizeof comm);
	if (strncmp(comm, "slurmstepd", 10) != 0)
		return;
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	/* Slurm signals the step's processes again (srun passes the batch
	 * script's TERM on): scontrol has TERM, INT and HUP blocked, in a
	 * process group of its own */
	posix_spawnattr_t at;
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM), sigaddset(&block, SIGINT), sigaddset(&block, SIGHUP);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setsigmask(&at, &block);
	posix_spawnattr_setpgroup(&at, 0);
	char *argv[] = {"scontrol", "-o", "show", "job", job, NULL};
	pid_t pid;
	if (posix_spawnp(&pid, "scontrol", &fa, &at, argv, environ) == 0) {
		q->pid = pid;
		q->fd = p[0];
	} else
		close(p[0]);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(p[1]);
}

/* Slurm's reason (slurm.h's job_state_reason, as scontrol names it) in
 * words; NULL for one that says nothing of why a job ended. */
static const char *endsig_reason(const char *r)
{
	static const struct {
		const char *slurm, *words;
	} map[] = {
	    {"TimeLimit", "Slurm time limit"},
	    {"Preempted", "Slurm preemption"},
	    {"NodeDown", "Slurm: a node of the job went down"},
	    {"OutOfMemory", "Slurm: out of memory"},
	    {"Deadline", "Slurm deadline"},
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (!strncmp(r, map[i].slurm, strlen(map[i].slurm)) &&
		    (r[strlen(map[i].slurm)] == ' ' || !r[strlen(map[i].slurm)]))
			return map[i].words;
	return NULL;
}

void rec_endsig_why(rec_endsig_query *q, char *buf, size_t len)
{
	char out[8192];
	size_t n = 0;
	buf[0] = '\0';
	if (q->pid < 0)
		return;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		long left =
		    3000 - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		struct pollfd pf = {q->fd, POLLIN, 0};
		/* a second TERM (srun passes the batch script's on) interrupts
		 * the wait: it goes on */
		int pr = left > 0 ? poll(&pf, 1, (int)left) : 0;
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			break;
		ssize_t k = read(q->fd, out + n, sizeof out - 1 - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
		if (n == sizeof out - 1)
			break;
	}
	out[n] = '\0';
	close(q->fd);
	kill(q->pid, SIGKILL); /* gone already, or late: its answer is not waited for */
	waitpid(q->pid, NULL, 0);
	q->pid = -1;
	const char *r = strstr(out, " Reason=");
	const char *why = r ? endsig_reason(r + 8) : NULL;
	if (why)
		snprintf(buf, len, "%s", why);
	else if (strstr(out, "JobState=CANCELLED") || strstr(out, "JobState=COMPLETING"))
		/* the job ends with no reason of Slurm's: someone's scancel */
		snprintf(buf, len, "Slurm: scancel");
}
