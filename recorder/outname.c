/* outname.c: the output file name, and where this recorder sits in a
 * parallel job.  -o takes a pattern (mcrec.1 lists the letters): %h host
 * (short name), %r MPI rank, %j job id, %p mcrec's pid, %t start time
 * (YYYYmmdd-HHMMSS, local), %% a percent sign; and Slurm's own letters
 * where they mean what they mean in sbatch(1)'s filename patterns: %A %a
 * (array job and task), %s (step), %J (job.step), %N (node, short), %n
 * (node index in the job), %u (user), %x (job name).  Slurm's %t is the
 * task id; ours was the start time before Slurm's letters came and stays
 * so: the rank is %r.
 * Without -o the name is <cmd>-<host>-<time>.mcz, plus .<rank> under a
 * launcher so that ranks never overwrite each other.
 *
 * Ranks come from the launcher's environment: Open MPI
 * (OMPI_COMM_WORLD_RANK / _LOCAL_RANK), MPICH/Hydra and Intel MPI (PMI_RANK,
 * MPI_LOCALRANKID), PMIx (PMIX_RANK), Slurm (SLURM_PROCID / SLURM_LOCALID);
 * the job size likewise.  The job id that groups files into one job
 * (metadata "job") is Slurm's job and step when under Slurm, so that srun
 * --mpi=pmix, pmi2 and none give the same one; else Open MPI's jobid,
 * PMIX_NAMESPACE, PBS_JOBID, LSB_JOBID, PALS_APID.  %j is Slurm's job id
 * alone, as in #SBATCH -o out.%j.
 */
#include "rec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int outname_env_int(const char *const *names)
{
	for (; *names; names++) {
		const char *v = getenv(*names);
		char *end;
		if (!v || !*v)
			continue;
		errno = 0;
		long r = strtol(v, &end, 10);
		if (!errno && !*end && r >= 0 && r <= INT_MAX)
			return (int)r;
	}
	return -1;
}

int rec_outname_rank(void)
{
	static const char *const names[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
					    "SLURM_PROCID", NULL};
	return outname_env_int(names);
}

int rec_outname_local_rank(void)
{
	static const char *const names[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
					    "PALS_LOCAL_RANKID", "SLURM_LOCALID", NULL};
	return outname_env_int(names);
}

int rec_outname_size(void)
{
	static const char *const names[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE",
					    "SLURM_NTASKS", "SLURM_NPROCS", "PALS_SIZE", NULL};
	int n = outname_env_int(names);
	return n > 0 ? n : -1;
}

/* Characters a job id may bring into a file name or the metadata: the
 * launcher's value is kept when it is made of these only. */
static int outname_job_ok(const char *v)
{
	if (!*v || strlen(v) > 64)
		return 0;
	for (; *v; v++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@:", *v))
			return 0;
	return 1;
}

/* Slurm's job id as sbatch's %j writes it: an array task's own id.  -1
 * outside Slurm. */
static int outname_slurm(const char *name, char *buf, size_t len)
{
	const char *v = getenv(name);
	if (!v || !outname_job_ok(v))
		return -1;
	snprintf(buf, len, "%s", v);
	return 0;
}

int rec_outname_slurm_job(char *buf, size_t len)
{
	return outname_slurm("SLURM_JOB_ID", buf, len);
}

int rec_outname_job(char *buf, size_t len)
{
	char job[80];
	/* Under Slurm: job.step from inside a step (srun, whatever its --mpi),
	 * job alone from the batch script (mpirun there launches one job) */
	if (rec_outname_slurm_job(job, sizeof job) == 0) {
		const char *step = getenv("SLURM_STEP_ID");
		const char *ompi = getenv("OMPI_MCA_ess_base_jobid");
		if (step && outname_job_ok(step))
			snprintf(buf, len, "%s.%s", job, step);
		else if (ompi && outname_job_ok(ompi)) /* mpirun in the batch script */
			snprintf(buf, len, "%s.ompi%s", job, ompi);
		else
			snprintf(buf, len, "%s", job);
		return 0;
	}
	static const char *const names[] = {"OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE",
					    "PBS_JOBID", "LSB_JOBID", "PALS_APID", NULL};
	for (const char *const *n = names; *n; n++)
		if (outname_slurm(*n, buf, len) == 0)
			return 0;
	if (len)
		buf[0] = '\0';
	return -1;
}

/* One of Slurm's letters (sbatch(1) "filename pattern"), or NULL when c is
 * not one.  Outside Slurm: %A is %j, %a and %n are 0, %s is 0, %u the user,
 * %x the command's name. */
static const char *outname_slurm_letter(char c, const char *cmd, const char *host, char *buf,
					size_t len)
{
	char job[80];
	const char *v;
	switch (c) {
	case 'A':
		if (outname_slurm("SLURM_ARRAY_JOB_ID", buf, len) == 0)
			return buf;
		if (rec_outname_slurm_job(buf, len) && rec_outname_job(buf, len))
			snprintf(buf, len, "%ld", (long)getpid());
		return buf;
	case 'a':
		return outname_slurm("SLURM_ARRAY_TASK_ID", buf, len) == 0 ? buf : "0";
	case 's':
		/* the batch script is Slurm's step "batch" */
		if (outname_slurm("SLURM_STEP_ID", buf, len) == 0)
			return buf;
		return getenv("SLURM_JOB_ID") ? "batch" : "0";
	case 'J': {
		char step[32];
		if (rec_outname_slurm_job(job, sizeof job) != 0)
			return outname_slurm_letter('A', cmd, host, buf, len);
		const char *s = outname_slurm_letter('s', cmd, host, step, sizeof step);
		return snprintf(buf, len, "%s.%s", job, s) < (int)len ? buf : "job";
	}
	case 'N':
		return host;
	case 'n':
		return outname_slurm("SLURM_NODEID", buf, len) == 0 ? buf : "0";
	case 'u':
		v = getenv("SLURM_JOB_USER") ? getenv("SLURM_JOB_USER") : getenv("USER");
		snprintf(buf, len, "%s", v && outname_job_ok(v) ? v : "user");
		return buf;
	case 'x':
		v = getenv("SLURM_JOB_NAME");
		if (!v || !outname_job_ok(v))
			v = strrchr(cmd, '/') ? strrchr(cmd, '/') + 1 : cmd;
		snprintf(buf, len, "%s", outname_job_ok(v) ? v : "run");
		return buf;
	}
	return NULL;
}

static void outname_host(char *buf, size_t len)
{
	if (gethostname(buf, len) != 0 || !buf[0])
		snprintf(buf, len, "localhost");
	buf[len - 1] = '\0';
	buf[strcspn(buf, ".")] = '\0';
}

/* Append s to out (bounded); -1 when it does not fit. */
static int outname_put(char *out, size_t outlen, size_t *at, const char *s)
{
	size_t n = strlen(s);
	if (*at + n + 1 > outlen)
		return -1;
	memcpy(out + *at, s, n + 1);
	*at += n;
	return 0;
}

int rec_outname_expand(const char *pattern, const char *cmd, int64_t start_wall_s,
		       char *out, size_t outlen, char *err, size_t errlen)
{
	char host[256], tbuf[32], num[32], base[128], job[80];
	time_t t = (time_t)start_wall_s;
	struct tm tm;
	int rank = rec_outname_rank();
	outname_host(host, sizeof host);
	localtime_r(&t, &tm);
	strftime(tbuf, sizeof tbuf, "%Y%m%d-%H%M%S", &tm);

	if (!pattern) {
		const char *b = strrchr(cmd, '/');
		snprintf(base, sizeof base, "%s", b ? b + 1 : cmd);
		if (!base[0])
			snprintf(base, sizeof base, "run");
		if (rank >= 0)
			snprintf(out, outlen, "%s-%s-%s.%d.mcz", base, host, tbuf, rank);
		else
			snprintf(out, outlen, "%s-%s-%s.mcz", base, host, tbuf);
		return 0;
	}
	size_t at = 0;
	out[0] = '\0';
	for (const char *p = pattern; *p; p++) {
		char lit[2] = {*p, '\0'};
		const char *piece = lit;
		if (*p == '%') {
			switch (p[1]) {
			case 'h': piece = host; break;
			case 't': piece = tbuf; break;
			case 'p': snprintf(num, sizeof num, "%ld", (long)getpid()); piece = num; break;
			case 'r': snprintf(num, sizeof num, "%d", rank < 0 ? 0 : rank); piece = num; break;
			case 'j':
				/* Slurm's job id, as in #SBATCH -o out.%j; else the
				 * launcher's; else mcrec's pid */
				if (rec_outname_slurm_job(job, sizeof job) && rec_outname_job(job, sizeof job))
					snprintf(job, sizeof job, "%ld", (long)getpid());
				piece = job;
				break;
			case '%': piece = "%"; break;
			default:
				piece = p[1] ? outname_slurm_letter(p[1], cmd, host, job, sizeof job) : NULL;
				if (piece)
					break;
				snprintf(err, errlen, "-o %s: unknown '%%%.1s' (use %%h %%r %%j %%p %%t %%%%, "
					 "or Slurm's %%A %%a %%s %%J %%N %%n %%u %%x)", pattern, p[1] ? p + 1 : "");
				return -1;
			}
			p++;
		}
		if (outname_put(out, outlen, &at, piece)) {
			snprintf(err, errlen, "-o %s: name too long", pattern);
			return -1;
		}
	}
	if (!out[0]) {
		snprintf(err, errlen, "-o: empty file name");
		return -1;
	}
	return 0;
}
