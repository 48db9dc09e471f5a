#!/bin/sh
# slurm-epilog.sh: a Slurm Epilog that appends the job's summary (mcview
# --report --brief) to the job's output file, for jobs that recorded
# with mcrec into their working directory under names holding .JOBID.
# (mcrec -o run.%j.%r.mcz); a job that recorded nothing is left alone.
#
#   slurm.conf:  Epilog=/usr/local/lib/mcz/slurm-epilog.sh
#
# slurmd runs it as root on every node of the job once the job's steps are
# gone (time limit and scancel included); the first node alone writes, as
# the job's user, so that the output file stays the user's; a job whose
# script printed its summary already is left alone.  It always
# exits 0: an epilog that fails drains the node.  MCVIEW names mcview when
# it is not on slurmd's PATH.
[ -n "${SLURM_JOB_ID:-}" ] || exit 0
MCVIEW=${MCVIEW:-mcview}
first=$(scontrol show hostnames "${SLURM_JOB_NODELIST:-${SLURM_NODELIST:-}}" 2>/dev/null | head -1)
[ -z "$first" ] || [ "$first" = "${SLURMD_NODENAME:-$(hostname -s)}" ] || exit 0
info=$(scontrol -o show job "$SLURM_JOB_ID" 2>/dev/null) || exit 0
dir=$(printf '%s\n' "$info" | sed -n 's/.* WorkDir=\([^ ]*\).*/\1/p')
out=$(printf '%s\n' "$info" | sed -n 's/.* StdOut=\([^ ]*\).*/\1/p')
[ -d "$dir" ] && [ -n "$out" ] || exit 0
set -- "$dir"/*."$SLURM_JOB_ID".*.mcz
[ -e "$1" ] || exit 0
# a script that printed the summary itself (its last line, a TERM trap)
grep -q "^mcz job $SLURM_JOB_ID[.:]" "$out" 2>/dev/null && exit 0
user=${SLURM_JOB_USER:-root}
if [ "$(id -u)" = 0 ] && [ "$user" != root ]; then
	runuser -u "$user" -- env OUT="$out" sh -c '"$0" --report --brief "$@" >>"$OUT" 2>&1' \
		"$MCVIEW" "$@"
else
	"$MCVIEW" --report --brief "$@" >>"$out" 2>&1
fi
exit 0
