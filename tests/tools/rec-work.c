/* rec-work.c: a workload of known size for the recorder's tests, so that
 * what mcrec records can be compared with perf stat and /proc:
 *
 *   rec-work [--pages N] [--sleeps N] [--spin N] [--threads T] [--fork]
 *            [--loopback BYTES] [--hold SECONDS]
 *
 *   --pages N       touch N fresh pages (N page faults)
 *   --sleeps N      N sleeps of 1 ms (N voluntary context switches)
 *   --spin N        N million iterations of a dependent multiply-add (CPU time)
 *   --threads T     do the pages/spin work in T threads (counted via inherit)
 *   --fork          ... and once more in a child process (inherit to children)
 *   --loopback B    send B bytes over a TCP connection on 127.0.0.1
 *   --hold S        sleep S seconds at the end
 *   --keep          keep the touched pages mapped until the end (RSS stays up)
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long work_pages, work_spin;
static int work_keep;

static void *work_run(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);
	if (work_pages > 0) {
		char *m = mmap(NULL, (size_t)(work_pages * page), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			perror("rec-work: mmap");
			exit(1);
		}
		for (long i = 0; i < work_pages; i++)
			m[i * page] = 1;
		if (!work_keep)
			munmap(m, (size_t)(work_pages * page));
	}
	volatile double x = 1.0;
	for (long i = 0; i < work_spin * 1000000L; i++)
		x = x * 1.0000001 + 1e-9;
	return arg;
}

static void work_threads(int threads)
{
	pthread_t t[64];
	for (int i = 1; i < threads && i < 64; i++)
		pthread_create(&t[i], NULL, work_run, NULL);
	work_run(NULL);
	for (int i = 1; i < threads && i < 64; i++)
		pthread_join(t[i], NULL);
}

static int work_loopback(long long bytes)
{
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 1) ||
	    getsockname(ls, (struct sockaddr *)&a, &al)) {
		perror("rec-work: loopback");
		return 1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		int s = socket(AF_INET, SOCK_STREAM, 0);
		static char buf[1 << 16];
		if (connect(s, (struct sockaddr *)&a, sizeof a)) {
			perror("rec-work: connect");
			_exit(1);
		}
		for (long long left = bytes; left > 0;) {
			ssize_t n = write(s, buf, left < (long long)sizeof buf ? (size_t)left : sizeof buf);
			if (n <= 0)
				_exit(1);
			left -= n;
		}
		close(s);
		_exit(0);
	}
	int c = accept(ls, NULL, NULL);
	static char rbuf[1 << 16];
	long long got = 0;
	ssize_t n;
	while ((n = read(c, rbuf, sizeof rbuf)) > 0)
		got += n;
	close(c);
	close(ls);
	waitpid(pid, NULL, 0);
	if (got != bytes) {
		fprintf(stderr, "rec-work: received %lld of %lld bytes\n", got, bytes);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long sleeps = 0;
	int threads = 1, forkit = 0;
	long long loop = 0;
	double hold = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--fork")) {
			forkit = 1;
			continue;
		}
		if (!strcmp(a, "--keep")) {
			work_keep = 1;
			continue;
		}
		if (!v) {
			fprintf(stderr, "rec-work: %s needs a value\n", a);
			return 2;
		}
		i++;
		if (!strcmp(a, "--pages"))
			work_pages = atol(v);
		else if (!strcmp(a, "--sleeps"))
			sleeps = atol(v);
		else if (!strcmp(a, "--spin"))
			work_spin = atol(v);
		else if (!strcmp(a, "--threads"))
			threads = atoi(v);
		else if (!strcmp(a, "--loopback"))
			loop = atoll(v);
		else if (!strcmp(a, "--hold"))
			hold = atof(v);
		else {
			fprintf(stderr, "rec-work: unknown option %s\n", a);
			return 2;
		}
	}
	work_threads(threads);
	if (forkit) {
		pid_t pid = fork();
		if (pid == 0) {
			work_threads(threads);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	}
	for (long i = 0; i < sleeps; i++) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	if (loop > 0 && work_loopback(loop))
		return 1;
	if (hold > 0) {
		struct timespec ts = {(time_t)hold, (long)((hold - (time_t)hold) * 1e9)};
		nanosleep(&ts, NULL);
	}
	return 0;
}
