/* pcp-pull.c: one ssh transfer of a PCP archive's files (see pcp-ssh.c
 * for the safety rules and the stream format).
 *
 *     char base[1024];
 *     pcp_pull_run(&url, &opts, "/var/log/pcp/pmlogger/node7", "20261122", "20261122.0",
 *                   "/tmp/mcz-ssh-XXXX/a0", "node7:/var/...", base, sizeof base,
 *                   err, sizeof err);
 *
 * ssh runs as a child with stdin from /dev/null (passwords and host-key
 * questions go through /dev/tty, as ssh does by itself), its stdout parsed
 * here as it arrives and its stderr kept, so that a failure is reported as
 * ssh's (or the remote script's) own last line: "Permission denied
 * (publickey)", "Could not resolve hostname ...", "no such PCP archive".
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../mcz.h"
#include "pcp-int.h"

/* Arguments: DIR MODE BASE [NAME].  MODE "exact": send the file BASE.
 * MODE "archive": send archive NAME's files if NAME.meta* exists (a base
 * name that looks like a volume, e.g. "20261122.10.00"), else BASE's.
 * MODE "glob": send the regular files that the shell pattern BASE matches
 * in DIR (expanded with IFS empty: pathname expansion only, nothing else
 * is evaluated). */
static const char fetch_script[] =
	"d=$1 m=$2 b=$3\n"
	"cd -- \"$d\" 2>/dev/null || { echo 'mcz-fetch: no such directory' >&2; exit 3; }\n"
	"if [ \"$m\" = exact ]; then\n"
	"  set -- \"$b\"; [ -f \"$b\" ] || set --\n"
	"elif [ \"$m\" = glob ]; then\n"
	"  IFS=; set -- $b; unset IFS\n"
	"  for f; do shift; [ -f \"$f\" ] && set -- \"$@\" \"$f\"; done\n"
	"  [ $# -gt 0 ] || { echo 'mcz-fetch: no such file' >&2; exit 4; }\n"
	"else\n"
	"  for f in \"$4\".meta \"$4\".meta.*; do [ -f \"$f\" ] && b=$4; done\n"
	"  set --\n"
	"  for f in \"$b\".meta \"$b\".meta.* \"$b\".index \"$b\".index.* \"$b\".[0-9]*; do\n"
	"    [ -f \"$f\" ] && set -- \"$@\" \"$f\"\n"
	"  done\n"
	"fi\n"
	"[ $# -gt 0 ] || { echo 'mcz-fetch: no such PCP archive' >&2; exit 4; }\n"
	"t=0\n"
	"for f; do\n"
	"  [ -r \"$f\" ] || { printf 'mcz-fetch: %s: permission denied\\n' \"$f\" >&2; exit 5; }\n"
	"  t=$((t + $(wc -c < \"$f\")))\n"
	"done\n"
	"printf 'MCZ-FETCH 1 %d %d %s\\n' $# $t \"$b\"\n"
	"for f; do\n"
	"  s=$(($(wc -c < \"$f\")))\n"
	"  printf 'F %d %s\\n' $s \"$f\"\n"
	"  { head -c $s -- \"$f\"; cat /dev/zero; } 2>/dev/null | head -c $s\n"
	"done\n"
	"printf 'END\\n'\n";

enum { BANNER, HEADER, DATA, DONE };

#define MAX_BANNER (1u << 20) /* login noise tolerated before the stream starts */
#define MAX_FILES 100000

typedef struct fetch {
	const char *base, *alt, *localdir, *what;
	int exact, glob, state, fd;
	char chosen[1024]; /* the base name the remote script chose */
	char line[4608];
	size_t linelen;
	uint64_t nfiles, total, files_done, bytes_done, remaining, banner;
	char problem[300]; /* a protocol or local error; "" if none */
	const pcp_import_opts *o;
	struct timespec last;
	char errtail[2048]; /* the end of ssh's stderr */
	size_t errlen;
} fetch;

static void progress(fetch *f, int force)
{
	if (!f->o || !f->o->progress)
		return;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!force && (now.tv_sec - f->last.tv_sec) * 1000000000LL + now.tv_nsec - f->last.tv_nsec <
			      250000000LL)
		return;
	f->last = now;
	char line[600];
	snprintf(line, sizeof line, "fetching %s: %" PRIu64 "/%" PRIu64 " files, %.1f of %.1f MiB",
		 f->what, f->files_done, f->nfiles, (double)f->bytes_done / 1048576.0,
		 (double)f->total / 1048576.0);
	f->o->progress(f->o->progress_arg, line, 0);
}

static int name_allowed(const fetch *f, const char *name)
{
	size_t bl = strlen(f->chosen);
	if (f->glob) /* a name the pattern matches, as the remote shell did */
		return !strchr(name, '/') && fnmatch(f->chosen, name, FNM_PERIOD) == 0;
	if (strchr(name, '/') || strncmp(name, f->chosen, bl) != 0)
		return 0;
	if (f->exact)
		return name[bl] == '\0';
	return pcp_path_suffix_len(name + bl) == strlen(name + bl) && name[bl] != '\0';
}

static void file_done(fetch *f)
{
	if (f->fd >= 0 && close(f->fd) != 0 && !f->problem[0])
		snprintf(f->problem, sizeof f->problem, "writing the fetched archive: %s",
			 strerror(errno));
	f->fd = -1;
	f->files_done++;
	f->state = HEADER;
}

static void on_line(fetch *f, char *line)
{
	if (f->state == BANNER) {
		if (strncmp(line, "MCZ-FETCH ", 10) != 0)
			return;
		int at = 0;
		if (sscanf(line + 10, "1 %" SCNu64 " %" SCNu64 " %n", &f->nfiles, &f->total, &at) !=
			    2 ||
		    at == 0 || f->nfiles == 0 || f->nfiles > MAX_FILES ||
		    (strcmp(line + 10 + at, f->base) != 0 &&
		     (!f->alt || strcmp(line + 10 + at, f->alt) != 0)))
			snprintf(f->problem, sizeof f->problem, "unexpected reply from the remote host");
		else
			snprintf(f->chosen, sizeof f->chosen, "%s", line + 10 + at);
		f->state = HEADER;
		return;
	}
	if (strcmp(line, "END") == 0) {
		if (f->files_done != f->nfiles)
			snprintf(f->problem, sizeof f->problem, "transfer ended early");
		f->state = DONE;
		return;
	}
	char *end;
	uint64_t size;
	if (line[0] != 'F' || line[1] != ' ' || (size = strtoull(line + 2, &end, 10), *end != ' ') ||
	    f->files_done >= f->nfiles) {
		snprintf(f->problem, sizeof f->problem, "unexpected reply from the remote host");
		return;
	}
	const char *name = end + 1;
	if (!name_allowed(f, name)) {
		snprintf(f->problem, sizeof f->problem, "remote sent an unexpected file name");
		return;
	}
	char path[4608];
	snprintf(path, sizeof path, "%s/%s", f->localdir, name);
	f->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (f->fd < 0) {
		snprintf(f->problem, sizeof f->problem, "%.200s: %.80s", path, strerror(errno));
		return;
	}
	f->remaining = size;
	f->state = DATA;
	if (size == 0)
		file_done(f);
}

static void feed(fetch *f, const char *buf, size_t n)
{
	while (n > 0 && !f->problem[0]) {
		if (f->state == DATA) {
			size_t w = n < f->remaining ? n : (size_t)f->remaining;
			ssize_t k = write(f->fd, buf, w);
			if (k <= 0) {
				snprintf(f->problem, sizeof f->problem,
					 "writing the fetched archive: %s",
					 k < 0 ? strerror(errno) : "short write");
				return;
			}
			buf += k;
			n -= (size_t)k;
			f->remaining -= (uint64_t)k;
			f->bytes_done += (uint64_t)k;
			if (f->remaining == 0)
				file_done(f);
			progress(f, 0);
			continue;
		}
		if (f->state == DONE)
			return;
		char c = *buf++;
		n--;
		if (c != '\n') {
			if (f->linelen < sizeof f->line - 1)
				f->line[f->linelen++] = c;
			else if (f->state != BANNER)
				snprintf(f->problem, sizeof f->problem,
					 "unexpected reply from the remote host");
			continue;
		}
		f->line[f->linelen] = '\0';
		if (f->state == BANNER && (f->banner += f->linelen + 1) > MAX_BANNER)
			snprintf(f->problem, sizeof f->problem, "no reply from the remote script");
		else
			on_line(f, f->line);
		f->linelen = 0;
	}
}

static void keep_err(fetch *f, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (f->errlen == sizeof f->errtail - 1) {
			memmove(f->errtail, f->errtail + 1024, f->errlen - 1024);
			f->errlen -= 1024;
		}
		f->errtail[f->errlen++] = buf[i];
	}
	f->errtail[f->errlen] = '\0';
}

/* The last non-empty line of ssh's stderr, without our script's prefix. */
static const char *last_err_line(fetch *f)
{
	char *s = f->errtail;
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		s[--n] = '\0';
	char *nl = strrchr(s, '\n');
	char *l = nl ? nl + 1 : s;
	if (strncmp(l, "mcz-fetch: ", 11) == 0)
		l += 11;
	for (char *p = l; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	return l;
}

static int build_argv(const pcp_ssh_url *u, const pcp_import_opts *o, const char *cmd,
		      const char **argv, size_t max)
{
	size_t n = 0;
	argv[n++] = "ssh";
	for (const char *const *p = o ? o->ssh_options : NULL; p && *p && n + 12 < max; p++) {
		argv[n++] = "-o";
		argv[n++] = *p;
	}
	int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (tty >= 0)
		close(tty);
	else {
		argv[n++] = "-o"; /* nobody to answer a password or host-key question */
		argv[n++] = "BatchMode=yes";
	}
	argv[n++] = "-o";
	argv[n++] = "ConnectTimeout=30";
	argv[n++] = "-T";
	argv[n++] = "-x";
	static char port[16];
	if (u->port) {
		snprintf(port, sizeof port, "%d", u->port);
		argv[n++] = "-p";
		argv[n++] = port;
	}
	if (u->user[0]) {
		argv[n++] = "-l";
		argv[n++] = u->user;
	}
	argv[n++] = "--";
	argv[n++] = u->host;
	argv[n++] = cmd;
	argv[n] = NULL;
	return (int)n;
}

static char *remote_command(const char *dir, const char *base, const char *alt, int glob)
{
	char *qs = pcp_pull_quote(fetch_script), *qd = pcp_pull_quote(dir),
	     *qb = pcp_pull_quote(base), *qa = pcp_pull_quote(alt ? alt : "");
	char *cmd = NULL;
	if (qs && qd && qb && qa) {
		size_t n = strlen(qs) + strlen(qd) + strlen(qb) + strlen(qa) + 40;
		if ((cmd = malloc(n)))
			snprintf(cmd, n, "sh -c %s mcz-fetch %s %s %s %s", qs, qd,
				 glob ? "glob" : alt ? "archive" : "exact", qb, qa);
	}
	free(qs);
	free(qd);
	free(qb);
	free(qa);
	return cmd;
}

static pid_t spawn(const char **argv, int *out, int *errfd)
{
	int po[2], pe[2];
	if (pipe2(po, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(pe, O_CLOEXEC) != 0) {
		close(po[0]);
		close(po[1]);
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], (char *const *)argv);
		dprintf(2, "cannot run ssh: %s\n", strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	if (pid < 0) {
		close(po[0]);
		close(pe[0]);
		return -1;
	}
	*out = po[0];
	*errfd = pe[0];
	return pid;
}

int pcp_pull_parse(const char *data, size_t len, const char *base, const char *alt,
		    const char *localdir, char *chosen, size_t chosenlen, char *err, size_t errlen)
{
	return pcp_pull_parse_mode(data, len, base, alt,
				    alt ? PCP_FETCH_ARCHIVE : PCP_FETCH_EXACT, localdir, chosen,
				    chosenlen, err, errlen);
}

int pcp_pull_parse_mode(const char *data, size_t len, const char *base, const char *alt,
			 int mode, const char *localdir, char *chosen, size_t chosenlen,
			 char *err, size_t errlen)
{
	fetch f = { .base = base, .alt = alt, .localdir = localdir, .what = "stream",
		    .exact = mode == PCP_FETCH_EXACT, .glob = mode == PCP_FETCH_GLOB, .fd = -1 };
	feed(&f, data, len);
	if (f.fd >= 0)
		close(f.fd);
	if (!f.problem[0] && f.state != DONE)
		snprintf(f.problem, sizeof f.problem, "transfer ended early");
	if (f.problem[0]) {
		snprintf(err, errlen, "%s", f.problem);
		return MCZ_E_CORRUPT;
	}
	snprintf(chosen, chosenlen, "%s", f.chosen);
	return MCZ_OK;
}

char *pcp_pull_quote(const char *s)
{
	size_t n = 3;
	for (const char *p = s; *p; p++)
		n += *p == '\'' ? 4 : 1;
	char *q = malloc(n), *o = q;
	if (!q)
		return NULL;
	*o++ = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else
			*o++ = *p;
	}
	*o++ = '\'';
	*o = '\0';
	return q;
}

int pcp_pull_run(const pcp_ssh_url *u, const pcp_import_opts *o, const char *dir,
		  const char *base, const char *alt, const char *localdir, const char *what,
		  char *chosen, size_t chosenlen, char *err, size_t errlen)
{
	return pcp_pull_run_mode(u, o, dir, base, alt, alt ? PCP_FETCH_ARCHIVE : PCP_FETCH_EXACT,
				  localdir, what, chosen, chosenlen, err, errlen);
}

int pcp_pull_run_mode(const pcp_ssh_url *u, const pcp_import_opts *o, const char *dir,
		       const char *base, const char *alt, int mode, const char *localdir,
		       const char *what, char *chosen, size_t chosenlen, char *err, size_t errlen)
{
	fetch f = { .base = base, .alt = alt, .localdir = localdir, .what = what,
		    .exact = mode == PCP_FETCH_EXACT, .glob = mode == PCP_FETCH_GLOB, .fd = -1,
		    .o = o };
	const char *argv[96];
	char *cmd = remote_command(dir, base, alt, mode == PCP_FETCH_GLOB);
	if (!cmd)
		return MCZ_E_NOMEM;
	build_argv(u, o, cmd, argv, sizeof argv / sizeof argv[0]);
	int out, efd;
	pid_t pid = spawn(argv, &out, &efd);
	free(cmd);
	if (pid < 0) {
		snprintf(err, errlen, "%s: cannot start ssh: %s", what, strerror(errno));
		return MCZ_E_IO;
	}
	clock_gettime(CLOCK_MONOTONIC, &f.last); /* no progress line for quick fetches */
	struct pollfd pf[2] = { { out, POLLIN, 0 }, { efd, POLLIN, 0 } };
	char buf[65536];
	while ((pf[0].fd >= 0 || pf[1].fd >= 0) && !f.problem[0]) {
		int pr = poll(pf, 2, -1);
		if (pcp_import_stop) {
			snprintf(f.problem, sizeof f.problem, "interrupted");
			break;
		}
		if (pr < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t k = read(pf[i].fd, buf, sizeof buf);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				close(pf[i].fd);
				pf[i].fd = -1;
			} else if (i == 0)
				feed(&f, buf, (size_t)k);
			else
				keep_err(&f, buf, (size_t)k);
		}
	}
	if (f.problem[0])
		kill(pid, SIGTERM);
	for (int i = 0; i < 2; i++)
		if (pf[i].fd >= 0)
			close(pf[i].fd);
	if (f.fd >= 0)
		close(f.fd);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (o && o->progress)
		o->progress(o->progress_arg, "", 1);
	if (f.problem[0]) {
		snprintf(err, errlen, "%s: %s", what, f.problem);
		return MCZ_E_IO;
	}
	if (f.state == DONE && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		snprintf(chosen, chosenlen, "%s", f.chosen);
		return MCZ_OK;
	}
	const char *l = last_err_line(&f);
	if (*l)
		snprintf(err, errlen, "%s: %s", what, l);
	else if (WIFEXITED(status))
		snprintf(err, errlen, "%s: ssh exited with status %d before the transfer ended",
			 what, WEXITSTATUS(status));
	else
		snprintf(err, errlen, "%s: ssh killed by signal %d", what,
			 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return MCZ_E_IO;
}
