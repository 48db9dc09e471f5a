#!/usr/bin/env bash
# rec-topo-cache.sh: mcrec keeps this machine's hwloc topology in its cache
# folder ($XDG_CACHE_HOME/mcz/topology-HOST-KEY.xml) after the first run and
# loads it from there afterwards: the recording's topology and every
# stream's binding are the same as discovered live (MCZ_NO_CACHE=1); a
# damaged cache file is not trusted (discovered again, and replaced), nor
# waited on when a FIFO is in its place; the
# writer thread, which loads the topology, spends less CPU.
set -u
. "$(dirname "$0")/rec-common.inc"
export XDG_CACHE_HOME=$T/cache
MCZ_NO_CACHE=1 "$MCREC" -q -o "$T/live.mcz" -- "$WORK" --spin 5 || fail "mcrec (no cache)"
[ -d "$T/cache/mcz" ] && ls "$T/cache/mcz" | grep -q topology && fail "MCZ_NO_CACHE=1 wrote a cache"
"$MCREC" -q -o "$T/first.mcz" -- "$WORK" --spin 5 || fail "mcrec (first)"
c=$(ls "$T"/cache/mcz/topology-*.xml 2>/dev/null)
[ -n "$c" ] || fail "no topology cached: $(ls -R "$T/cache")"
grep -q '<topology' "$c" || fail "cache is not hwloc XML: $(head -c 200 "$c")"
"$MCREC" -q -o "$T/cached.mcz" -- "$WORK" --spin 5 || fail "mcrec (cached)"
for f in first cached; do
	diff <("$B/mcz" info "$T/live.mcz" | grep '^topology') <("$B/mcz" info "$T/$f.mcz" | grep '^topology') ||
		fail "$f: topology differs from the live one"
	diff <("$RR" "$T/live.mcz" streams | awk '{ print $2, $3, $8 }') \
		<("$RR" "$T/$f.mcz" streams | awk '{ print $2, $3, $8 }') || fail "$f: stream bindings differ"
done
ok "cached topology: $(basename "$c"), same table and bindings as discovered live"
w1=$("$B/mcz" info "$T/first.mcz" | awk '$2 == "writer_cpu_s" { print $4 }')
w2=$("$B/mcz" info "$T/cached.mcz" | awk '$2 == "writer_cpu_s" { print $4 }')
echo "writer thread CPU: ${w1} s discovering, ${w2} s from the cache"
# a damaged cache: not trusted, discovered again and replaced
printf '<topology><object type="Machine" os_index="0" cpuset="0x' >"$c"
"$MCREC" -q -o "$T/damaged.mcz" -- "$WORK" --spin 5 2>"$T/err" || fail "mcrec with a damaged cache: $(cat "$T/err")"
diff <("$B/mcz" info "$T/live.mcz" | grep '^topology') <("$B/mcz" info "$T/damaged.mcz" | grep '^topology') ||
	fail "damaged cache: topology differs"
grep -q '</topology>' "$c" || fail "damaged cache not replaced"
ok "a damaged cache file: discovered again and replaced"
# a FIFO in its place (issue 34, finding 7): never waited on, discovered
# again; the command's end is the recording's
rm -f "$c" && mkfifo "$c"
timeout 20 "$MCREC" -q -o "$T/fifo.mcz" -- true 2>"$T/err"
rc=$?
[ $rc = 124 ] && fail "mcrec blocked on a FIFO in place of the topology cache"
[ $rc = 0 ] || fail "mcrec with a FIFO as topology cache: exit $rc: $(cat "$T/err")"
diff <("$B/mcz" info "$T/live.mcz" | grep '^topology') <("$B/mcz" info "$T/fifo.mcz" | grep '^topology') ||
	fail "FIFO cache: topology differs"
ok "a FIFO in place of the topology cache: not opened, discovered again"
