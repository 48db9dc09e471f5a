/* cpu-of.c: the CPU time a command and everything it waited for used, in
 * microseconds (user + system, from wait4's rusage: the scheduler's own
 * accounting, to the microsecond), appended to a file, so that a benchmark
 * can set mcrec's cost beside perf stat's in the same run and the same way
 * (tests/bench/bench-rec-overhead.sh).  The command's output is its own;
 * cpu-of exits with the command's status.
 *
 *     cpu-of /tmp/cpu.txt perf stat -I 100 -o /dev/null -- sleep 10
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: cpu-of FILE COMMAND [ARGS]\n");
		return 2;
	}
	FILE *out = fopen(argv[1], "a");
	if (!out) {
		fprintf(stderr, "cpu-of: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "cpu-of: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "cpu-of: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	int st;
	struct rusage ru;
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "cpu-of: wait4: %s\n", strerror(errno));
			return 2;
		}
	/* ru covers the child and the descendants it waited for */
	long long us = (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL +
		       ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
	fprintf(out, "%lld\n", us);
	fclose(out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
