/* launch.c: starting the recorded command so that counters count from its
 * exec.  rec_launch_fork() forks a child that blocks reading a "gate" pipe;
 * the recorder then opens its counters on the child's pid (perf's
 * enable_on_exec) and calls rec_launch_go(), which closes the gate: the
 * child execs.  A second, close-on-exec pipe carries errno back if exec
 * fails, so mcrec can answer like a shell ("cmd: command not found", 127;
 * "Permission denied", 126).  Also: the shell's view of a wait status.
 */
#include "rec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void launch_child(int gate, int errw, int out_fd, pid_t parent, char *const argv[],
			 char **envp)
{
	char c;
	/* Defaults for the command, whatever mcrec set up for itself. */
	struct sigaction sa = {.sa_handler = SIG_DFL};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	/* The command does not outlive its recorder unnoticed: when mcrec dies
	 * (even by SIGKILL) the command gets SIGTERM, as a shell's job would
	 * on hang-up.  mcrec may have died before this line: then at once. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		raise(SIGTERM);
	while (read(gate, &c, 1) < 0 && errno == EINTR)
		;
	close(gate);
	if (out_fd >= 0)
		dup2(out_fd, 1), dup2(out_fd, 2); /* dup2 clears close-on-exec */
	execvpe(argv[0], argv, envp);
	int e = errno;
	while (write(errw, &e, sizeof e) < 0 && errno == EINTR)
		;
	_exit(e == ENOENT ? 127 : 126);
}

int rec_launch_fork(rec_child *ch, char *const argv[], int out_fd, char *err, size_t errlen)
{
	int gate[2], ep[2];
	if (pipe2(gate, O_CLOEXEC) < 0 || pipe2(ep, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid_t parent = getpid();
	char **envp = rec_env_for_child(); /* before fork: the child only execs */
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		if (envp != environ)
			free(envp);
		close(gate[0]), close(gate[1]), close(ep[0]), close(ep[1]);
		return -1;
	}
	if (pid == 0) {
		close(gate[1]);
		close(ep[0]);
		launch_child(gate[0], ep[1], out_fd, parent, argv, envp);
	}
	if (envp != environ)
		free(envp);
	close(gate[0]);
	close(ep[1]);
	ch->pid = pid;
	ch->gate_fd = gate[1];
	ch->err_fd = ep[0];
	return 0;
}

int rec_launch_go(rec_child *ch, const char *cmd, int *status, char *err, size_t errlen)
{
	int e = 0;
	ssize_t n;
	close(ch->gate_fd);
	ch->gate_fd = -1;
	do
		n = read(ch->err_fd, &e, sizeof e);
	while (n < 0 && errno == EINTR);
	close(ch->err_fd);
	ch->err_fd = -1;
	if (n != (ssize_t)sizeof e)
		return 0; /* exec succeeded: the pipe closed on exec */
	/* The shell's words (bash): a bare name not in PATH is "command not found". */
	if (e == ENOENT && !strchr(cmd, '/'))
		snprintf(err, errlen, "%s: command not found", cmd);
	else if (e == ENOEXEC)
		snprintf(err, errlen, "%s: cannot execute binary file: Exec format error", cmd);
	else
		snprintf(err, errlen, "%s: %s", cmd, strerror(e));
	*status = e == ENOENT ? 127 : 126;
	return e;
}

int rec_launch_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}

void rec_launch_describe(int wstatus, char *buf, size_t len)
{
	if (WIFEXITED(wstatus))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(wstatus));
	else if (WIFSIGNALED(wstatus))
		snprintf(buf, len, "killed by SIG%s%s", sigabbrev_np(WTERMSIG(wstatus))
			 ? sigabbrev_np(WTERMSIG(wstatus)) : "?",
			 WCOREDUMP(wstatus) ? " (core dumped)" : "");
	else
		snprintf(buf, len, "ended (status 0x%x)", wstatus);
}
