/* view.c: `mcrec --view` — the live view of the recording in the same
 * terminal.  mcview (found beside mcrec, else on PATH) runs as a child on
 * the file being written and follows it (mcview's follow mode), while the
 * command's standard output and error go to FILE.out so that they do not
 * write over the screen.  mcrec waits for the viewer after the file is
 * finalised: the user reads the whole run, then quits with q.
 *
 *     int fd = rec_view_output(path, out, sizeof out, err, sizeof err);  // the command's
 *     ... rec_launch_fork(&ch, argv, fd, ...) ...
 *     pid_t v = rec_view_start(path, err, sizeof err);
 *     ... record ...
 *     rec_view_wait(v);
 */
#include "rec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int rec_view_output(const char *path, char *out, size_t outlen, char *err, size_t errlen)
{
	if ((size_t)snprintf(out, outlen, "%s.out", path) >= outlen) {
		snprintf(err, errlen, "--view: output name too long");
		return -1;
	}
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		snprintf(err, errlen, "--view: cannot write %s: %s", out, strerror(errno));
	return fd;
}

/* mcview beside this mcrec (an install or a build tree), else "mcview". */
static void view_program(char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			if ((size_t)snprintf(buf, len, "%s/mcview", self) < len && access(buf, X_OK) == 0)
				return;
		}
	}
	snprintf(buf, len, "mcview");
}

pid_t rec_view_start(const char *path, char *err, size_t errlen)
{
	char prog[PATH_MAX + 8];
	view_program(prog, sizeof prog);
	int ep[2];
	if (pipe2(ep, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "--view: pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "--view: fork: %s", strerror(errno));
		close(ep[0]), close(ep[1]);
		return -1;
	}
	if (pid == 0) {
		struct sigaction sa = {.sa_handler = SIG_DFL};
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		sigaction(SIGCHLD, &sa, NULL);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(ep[0]);
		execlp(prog, "mcview", path, (char *)NULL);
		int e = errno;
		while (write(ep[1], &e, sizeof e) < 0 && errno == EINTR)
			;
		_exit(127);
	}
	close(ep[1]);
	int e = 0;
	ssize_t n;
	while ((n = read(ep[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(ep[0]);
	if (n == (ssize_t)sizeof e) {
		waitpid(pid, NULL, 0);
		snprintf(err, errlen, "--view: cannot run %s: %s", prog, strerror(e));
		return -1;
	}
	return pid;
}

int rec_view_wait(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return rec_launch_status(st);
}
