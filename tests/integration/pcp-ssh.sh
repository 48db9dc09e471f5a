#!/usr/bin/env bash
# pcp-ssh.sh: ssh:// PCP archives against a real sshd on loopback.
#
# Starts its own sshd (own host key, one authorised key, a temporary folder,
# a free high port, known_hosts pinned, StrictHostKeyChecking=yes), then:
#   - `mcz import ssh://...` of an archive gives the same recording as the
#     local import (mcz dump equal), also for a .xz multi-volume archive, a
#     volume name and a folio; `mcview --snapshot` of the ssh:// URL equals
#     that of the local archive; the private temporary folder is gone after;
#   - a folder name with spaces, quotes and ';touch' works and runs nothing;
#   - .mcz recordings fetched as they are: a job's rank files by a pattern
#     (ssh://.../run.*.mcz) give the local job report and Ranks view;
#   - a missing path with ';touch' in it, a wrong host, a refused key, a host
#     that looks like an option, and a bad port each give one clear line and
#     a non-zero exit, and create nothing.
# mcz-test: parallel (measures no time: an sshd of its own on a free port)
set -u
B=${MCZ_BIN:-build}
ARCH=/var/lib/pcp/testsuite/archives
command -v /usr/sbin/sshd >/dev/null || { echo "skip: no /usr/sbin/sshd (openssh-server)"; exit 77; }
[ -f "$ARCH/count-mark.meta" ] || { echo "skip: pcp-testsuite archives not installed"; exit 77; }

T=$(mktemp -d /tmp/mcz-pcp-ssh-test.XXXXXX)
chmod 700 "$T"
SSHD_PID=
cleanup() {
	[ -n "$SSHD_PID" ] && kill "$SSHD_PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$T/sshd.log" ] && tail -5 "$T/sshd.log"; exit 1; }

ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey" || fail "ssh-keygen"
ssh-keygen -q -t ed25519 -N '' -f "$T/userkey" || fail "ssh-keygen"
ssh-keygen -q -t ed25519 -N '' -f "$T/otherkey" || fail "ssh-keygen"
cp "$T/userkey.pub" "$T/authorized_keys"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$T/sshd_config" <<CONF
Port $PORT
ListenAddress 127.0.0.1
HostKey $T/hostkey
AuthorizedKeysFile $T/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile $T/sshd.pid
LogLevel VERBOSE
CONF
# sshd wants its privilege separation folder (created by the package's
# service script, absent on a fresh container where sshd never ran)
[ "$(id -u)" = 0 ] && mkdir -p /run/sshd && chmod 755 /run/sshd
/usr/sbin/sshd -D -e -f "$T/sshd_config" 2>"$T/sshd.log" &
SSHD_PID=$!
echo "[127.0.0.1]:$PORT $(cut -d' ' -f1-2 "$T/hostkey.pub")" >"$T/known_hosts"
for i in $(seq 50); do
	(exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break
	sleep 0.1
done
kill -0 "$SSHD_PID" 2>/dev/null || fail "sshd did not start"

unset SSH_AUTH_SOCK
mkdir "$T/tmp"
export TMPDIR=$T/tmp XDG_CACHE_HOME=$T/cache
ME=$(id -un)
OPTS=(--ssh-option "IdentityFile=$T/userkey" --ssh-option IdentitiesOnly=yes
      --ssh-option "UserKnownHostsFile=$T/known_hosts" --ssh-option StrictHostKeyChecking=yes
      --ssh-option BatchMode=yes)
URL="ssh://$ME@127.0.0.1:$PORT"

# The archives must be readable by the remote user: copy them to a folder
# whose name has spaces, both quotes and a ';touch' that must stay a name.
WEIRD="$T/arch ive's \"dir\";touch $T/pwned1; \$(touch $T/pwned2)"
mkdir -p "$WEIRD" "$T/plain/sub"
cp "$ARCH"/count-mark.* "$ARCH"/20190628.04.03.* "$WEIRD"/
cp "$ARCH"/count-mark.* "$T/plain/sub/"
printf 'PCPFolio\nVersion: 1\n# test\nArchive:\tbozo-vm\t\tsub/count-mark\n' >"$T/plain/run.folio"

dumpcmp() { # local.mcz remote.mcz: same values and streams
	"$B/mcz" dump "$1" | grep -v pcp_archive >"$T/a.txt" || fail "mcz dump $1"
	"$B/mcz" dump "$2" | grep -v pcp_archive >"$T/b.txt" || fail "mcz dump $2"
	cmp -s "$T/a.txt" "$T/b.txt" || { diff "$T/a.txt" "$T/b.txt" | head; fail "$3: ssh import differs from local"; }
	[ "$(wc -l <"$T/a.txt")" -gt 10 ] || fail "$3: dump too short"
}
leftover() { [ -z "$(ls -A "$T/tmp")" ] || fail "$1: temporary files left: $(ls "$T/tmp")"; }

# 1. same archive, local and over ssh (xz multi-volume, by volume name too)
"$B/mcz" import -q "$ARCH/20190628.04.03" -o "$T/local.mcz" || fail "local import"
"$B/mcz" import -q "${OPTS[@]}" "$URL$WEIRD/20190628.04.03" -o "$T/remote.mcz" ||
	fail "ssh import of an xz multi-volume archive in a weird folder"
dumpcmp "$T/local.mcz" "$T/remote.mcz" "20190628.04.03"
leftover "xz archive"
"$B/mcz" import -q "${OPTS[@]}" "$URL$WEIRD/count-mark.0" -o "$T/remote2.mcz" || fail "ssh import by volume"
"$B/mcz" import -q "$ARCH/count-mark" -o "$T/local2.mcz" || fail "local import count-mark"
dumpcmp "$T/local2.mcz" "$T/remote2.mcz" "count-mark by volume name"
"$B/mcz" import -q "${OPTS[@]}" "$URL$T/plain/run.folio" -o "$T/remote3.mcz" || fail "ssh import of a folio"
dumpcmp "$T/local2.mcz" "$T/remote3.mcz" "folio"
leftover "folio"
[ ! -e "$T/pwned1" ] && [ ! -e "$T/pwned2" ] || fail "a folder name ran a command"

# mcview opens ssh:// like the local archive: the same screen
"$B/mcview" --snapshot 120x40 "$ARCH/20190628.04.03" >"$T/local.txt" || fail "mcview local"
"$B/mcview" --snapshot 120x40 "${OPTS[@]}" "$URL$WEIRD/20190628.04.03" >"$T/remote.txt" ||
	fail "mcview ssh://"
cmp -s "$T/local.txt" "$T/remote.txt" || { diff "$T/local.txt" "$T/remote.txt" | head; fail "mcview ssh:// differs from local"; }
# the archive's metrics: those that change first, its constants (hinv.ncpu...)
# folded in one row
grep -q "network.tcp.passiveopens" "$T/local.txt" && grep -q "^▸788 constant streams" "$T/local.txt" ||
	fail "mcview snapshot lacks the archive's metrics"
leftover "mcview"
# the conversion kept in the cache, keyed by the URL and the fetched files:
# a second open fetches again, converts nothing; other files at the same
# URL are converted again
entry() { ls "$T"/cache/mcz/pcp-*.mcz 2>/dev/null | xargs -r ls -i | sort; }
"$B/mcview" --snapshot 120x40 "${OPTS[@]}" "$URL$T/plain/sub/count-mark" >"$T/r1.txt" || fail "mcview ssh:// count-mark"
e1=$(entry)
[ "$(printf '%s\n' "$e1" | grep -c pcp-)" = 3 ] || fail "cache entries after three archives: $e1"
touch -d 2001-01-01 "$T"/cache/mcz/pcp-*.mcz
"$B/mcview" --snapshot 120x40 "${OPTS[@]}" "$URL$T/plain/sub/count-mark" >"$T/r2.txt" || fail "mcview ssh:// again"
cmp -s "$T/r1.txt" "$T/r2.txt" || fail "ssh:// from the cache: another screen"
[ "$(entry)" = "$e1" ] || fail "ssh:// again: the entry was made again"
[ -n "$(find "$T/cache/mcz" -newermt 2002-01-01 -name 'pcp-*.mcz')" ] || fail "ssh:// again: no entry used"
rm "$T"/plain/sub/count-mark.*
for f in "$ARCH"/20190628.04.03.*; do cp "$f" "$T/plain/sub/count-mark${f#"$ARCH"/20190628.04.03}"; done
"$B/mcview" --snapshot 120x40 "${OPTS[@]}" "$URL$T/plain/sub/count-mark" >"$T/r3.txt" || fail "mcview ssh:// replaced"
cmp -s "$T/r3.txt" "$T/r1.txt" && fail "ssh:// replaced archive: the old screen"
grep -q "network.tcp.passiveopens" "$T/r3.txt" || fail "ssh:// replaced archive: not the new archive's screen"
leftover "mcview from the cache"
rm "$T"/plain/sub/count-mark.* && cp "$ARCH"/count-mark.* "$T/plain/sub/"
echo "ok: ssh:// converted once: a second open uses the cache entry; a replaced archive is converted again"
out=$("$B/mcview" --snapshot 120x40 "${OPTS[@]}" "$URL$T/plain/sub/nosuch" 2>&1) && fail "mcview missing archive: exit 0"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && [[ $out == *"no such PCP archive"* ]] || fail "mcview missing archive: $out"
echo "ok: mcview: $out"

# a signal while a large archive is fetched and converted: mcview ends by it,
# leaving neither the fetched files nor the temporary .mcz
cp "$ARCH"/20180416.10.00.* "$T/plain/"
"$B/mcview" --snapshot 120x40 "${OPTS[@]}" "$URL$T/plain/20180416.10.00" >/dev/null 2>&1 &
pid=$!
sleep 1
kill -TERM $pid 2>/dev/null
wait $pid
rc=$?
[ $rc -eq 143 ] || echo "note: mcview ended with $rc before the signal (fast machine)"
leftover "signal during import"
echo "ok: SIGTERM during an ssh:// import: exit $rc, nothing left in TMPDIR"

# 1b. .mcz recordings over ssh: fetched as they are (not imported).  The
# rank files of a job (tests/tools/gen-job) in the weird folder, opened
# with a pattern: the same job report and screen as the local files; one
# file by name: the same screen; a pattern that matches nothing, or one
# with a command substitution in it: one line, exit 1, nothing run.
JOB="$WEIRD/job"
"$B/tests/tools/gen-job" -d "$JOB" --ranks 12 --phases 3 --phase-s 1 --slow 10:2:1.5 || fail "gen-job"
"$B/mcview" --report=json "$JOB"/run.*.mcz >"$T/jl.json" || fail "local job report"
"$B/mcview" --report=json "${OPTS[@]}" "$URL$JOB/run.*.mcz" >"$T/jr.json" || fail "ssh:// job report"
cmp -s "$T/jl.json" "$T/jr.json" || { diff "$T/jl.json" "$T/jr.json" | head -5; fail "ssh:// job report differs"; }
grep -q '"slowest_rank": 10' "$T/jr.json" || fail "ssh:// job: slowest rank 10 not found"
leftover "ssh:// .mcz pattern"
"$B/mcview" --snapshot 100x30 --view ranks "$JOB"/run.*.mcz | tail -n +2 >"$T/jl.txt"
"$B/mcview" --snapshot 100x30 --view ranks "${OPTS[@]}" "$URL$JOB/run.*.mcz" | tail -n +2 >"$T/jr.txt"
cmp -s "$T/jl.txt" "$T/jr.txt" || { diff "$T/jl.txt" "$T/jr.txt" | head -5; fail "ssh:// Ranks view differs"; }
"$B/mcview" --snapshot 100x30 "$JOB/run.3.mcz" | tail -n +2 >"$T/j3l.txt"
"$B/mcview" --snapshot 100x30 "${OPTS[@]}" "$URL$JOB/run.3.mcz" | tail -n +2 >"$T/j3r.txt"
cmp -s "$T/j3l.txt" "$T/j3r.txt" || fail "ssh:// one .mcz differs from local"
out=$("$B/mcview" --report "${OPTS[@]}" "$URL$JOB/nothing.*.mcz" 2>&1) && fail "no match: exit 0"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && [[ $out == *"no such file"* ]] || fail "no match: $out"
out=$("$B/mcview" --report "${OPTS[@]}" "$URL$JOB/\$(touch $T/pwned5)*.mcz" 2>&1) && fail "substitution: exit 0"
[ ! -e "$T/pwned5" ] || fail "a pattern ran a command"
leftover "ssh:// .mcz errors"
echo "ok: ssh:// .mcz: 12 rank files by pattern (same job report and Ranks view), one by name, no match: $out"

# 2. errors: one clear line, non-zero exit, nothing run, nothing left
expect_err() { # what pattern url [extra opts...]
	local what=$1 pat=$2 url=$3
	shift 3
	local out rc
	out=$("$B/mcz" import -q "$@" "$url" -o "$T/err.mcz" 2>&1)
	rc=$?
	[ $rc -ne 0 ] || fail "$what: exit 0"
	[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "$what: not one line: $out"
	printf '%s\n' "$out" | grep -q -- "$pat" || fail "$what: message '$out' lacks '$pat'"
	[ ! -e "$T/err.mcz" ] || fail "$what: output file left behind"
	leftover "$what"
	echo "ok: $what: $out"
}
expect_err "missing path with ;touch" "no such directory" \
	"$URL$T/nothere;touch $T/pwned3/x" "${OPTS[@]}"
expect_err "missing archive" "no such PCP archive" "$URL$T/plain/sub/nosuch" "${OPTS[@]}"
expect_err "wrong host" "Could not resolve hostname" "ssh://$ME@nosuchhost.invalid:$PORT$T/plain/sub/count-mark" "${OPTS[@]}"
expect_err "refused key" "Permission denied" "$URL$T/plain/sub/count-mark" \
	--ssh-option "IdentityFile=$T/otherkey" "${OPTS[@]:2}"
expect_err "unknown host key" "Host key verification failed" "$URL$T/plain/sub/count-mark" \
	--ssh-option "IdentityFile=$T/userkey" --ssh-option "UserKnownHostsFile=/dev/null" \
	--ssh-option StrictHostKeyChecking=yes --ssh-option BatchMode=yes
expect_err "host like an option" "bad host" "ssh://-oProxyCommand=touch\${IFS}$T/pwned4/x" "${OPTS[@]}"
expect_err "bad port" "bad port" "ssh://127.0.0.1:99999/x" "${OPTS[@]}"
expect_err "control character" "bad path" "$URL$T/a"$'\n'"b" "${OPTS[@]}"
expect_err "refused connection" "Connection refused" "ssh://$ME@127.0.0.1:1$T/plain/sub/count-mark" "${OPTS[@]}"
for p in 1 2 3 4 5; do [ ! -e "$T/pwned$p" ] || fail "pwned$p created"; done
grep -q "Accepted publickey" "$T/sshd.log" || fail "sshd saw no login"
echo "pass"
