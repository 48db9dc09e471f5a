#!/usr/bin/env bash
# house.sh: the shape of the tree, as ARCHITECTURE.md and STYLE.md state it,
# checked on the sources and the built objects:
#   - no folder holds more than 15 sources (.c, .cc) at its top;
#   - no two sources, headers or scripts share a file name;
#   - ARCHITECTURE.md has no line over 400 characters, and every path and
#     file it names exists;
#   - at most 15 comment lines of the programs quote a timing (a duration
#     beside "took", "cost", "->", ...: figures belong in benchmarks and
#     commits, rules in comments);
#   - the include graph has no circle;
#   - no object file calls a function of another that calls it back,
#     directly or around a circle of files (one circle allowed, named);
#   - viewer/model/ starts no process, writes no status text and keeps no
#     analysis's results: none of its objects calls fork, exec*,
#     posix_spawn*, popen, system or libmczpcp's conversion behind
#     (pcp_convert_behind, pcp_pending_*), and no source of it names the
#     status line, includes an analysis header or names an analysis's
#     tables.
# mcz-test: parallel (reads files only)
set -u
B=${MCZ_BUILD:-build}
cd "$(dirname "$0")/../.." || exit 1
python3 - "$B" <<'EOF'
import collections, os, re, subprocess, sys

B = sys.argv[1]
fails = 0


def fail(msg):
    global fails
    print("FAIL: " + msg)
    fails += 1


def ok(msg):
    print("ok: " + msg)


try:
    files = subprocess.check_output(["git", "ls-files"], text=True,
                                    stderr=subprocess.DEVNULL).split("\n")
except (OSError, subprocess.CalledProcessError):
    files = [os.path.relpath(os.path.join(d, f)) for d, _, fs in os.walk(".")
             for f in fs if not d.startswith(("./build", "./.git"))]
files = [f for f in files if f and os.path.isfile(f)]
src = [f for f in files if re.search(r"\.(c|cc)$", f)]
code = [f for f in files if re.search(r"\.(c|cc|h)$", f)]

# folders of at most 15 sources at their top
per = collections.Counter(os.path.dirname(f) for f in src)
big = sorted((n, d) for d, n in per.items() if n > 15)
for n, d in big:
    fail(f"{d}/ holds {n} sources at its top (at most 15)")
if not big:
    ok(f"{len(per)} folders, the largest {max(per.values())} sources at its top")

# unique file names
names = collections.defaultdict(list)
for f in files:
    if re.search(r"\.(c|cc|h|sh|py)$", f):
        names[os.path.basename(f)].append(f)
dup = {n: fs for n, fs in names.items() if len(fs) > 1}
for n, fs in sorted(dup.items()):
    fail(f"{n} names {len(fs)} files: {' '.join(fs)}")
if not dup:
    ok(f"{len(names)} file names, each once")

# ARCHITECTURE.md: a map, and true
arch = open("ARCHITECTURE.md", encoding="utf-8").read().split("\n")
longest = max(len(l) for l in arch)
for i, l in enumerate(arch, 1):
    if len(l) > 400:
        fail(f"ARCHITECTURE.md:{i} is {len(l)} characters (at most 400)")
base = {os.path.basename(f) for f in files}
dirs = {os.path.dirname(f) for f in files}
dirs |= {d.rsplit("/", k)[0] for d in list(dirs) for k in range(1, 4) if "/" in d}
named = missing = 0
for i, l in enumerate(arch, 1):
    for m in re.finditer(r"`([^`\s]+)`", l):
        t = m.group(1).rstrip("/")
        if "*" in t or "NAME" in t or "LAYER" in t or "{" in t:
            continue
        if "/" in t and re.match(r"^[\w.-]+(/[\w.-]+)+$", t) and not t.startswith(("..", "build")):
            named += 1
            if not (os.path.exists(t) or t in dirs):
                fail(f"ARCHITECTURE.md:{i} names {t}, which does not exist")
                missing += 1
        elif re.match(r"^[\w.-]+\.(c|h|cc|sh|py|md)$", t):
            named += 1
            if t not in base:
                fail(f"ARCHITECTURE.md:{i} names {t}, which is no file of the tree")
                missing += 1
if longest <= 400 and not missing:
    ok(f"ARCHITECTURE.md: longest line {longest} characters, {named} paths and files named, all there")

# comment lines that quote timings, in the programs (not the tests, whose
# comments describe their own workloads)
dur = re.compile(r"(?<![\w.])~?\d+(?:[.,]\d+)?\s?(?:ns|us|µs|ms|s|min)\b")
cue = re.compile(r"\b(took|takes|cost|costs|spent|spends|spend|measured|faster|slower)\b|->|\bof its\b|\bof CPU\b")
quotes = []
for f in code:
    if not f.startswith(("format/", "recorder/", "viewer/", "samples/")):
        continue
    s = open(f, encoding="utf-8", errors="replace").read()
    for m in re.finditer(r"/\*.*?\*/|//[^\n]*", s, re.S):
        line0 = s.count("\n", 0, m.start()) + 1
        for k, l in enumerate(m.group(0).split("\n")):
            if dur.search(l) and cue.search(l):
                quotes.append(f"{f}:{line0 + k}: {l.strip()[:100]}")
if len(quotes) > 15:
    fail(f"{len(quotes)} comment lines quote timings (at most 15):")
    for q in quotes:
        print("   " + q)
else:
    ok(f"{len(quotes)} comment lines quote timings (at most 15)")

# the include graph has no circle
fs = set(code)
g = collections.defaultdict(set)
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
for f in code:
    for m in inc.finditer(open(f, encoding="utf-8", errors="replace").read()):
        t = os.path.normpath(os.path.join(os.path.dirname(f), m.group(1)))
        if t in fs:
            g[f].add(t)
state, stack, circles = {}, [], []
sys.setrecursionlimit(20000)


def walk(v):
    state[v] = 1
    stack.append(v)
    for w in sorted(g[v]):
        if state.get(w) == 1:
            circles.append(stack[stack.index(w):] + [w])
        elif not state.get(w):
            walk(w)
    stack.pop()
    state[v] = 2


for f in code:
    if not state.get(f):
        walk(f)
for c in circles:
    fail("include circle: " + " -> ".join(c))
if not circles:
    ok(f"include graph of {len(code)} files and {sum(len(v) for v in g.values())} includes: no circle")


# calls between the object files of a folder
def objects(folder):
    d = os.path.join(B, folder)
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".o") and
                  os.path.exists(os.path.join(folder, f[:-2] + ".c"))) if os.path.isdir(d) else []


def symbols(o):
    out = subprocess.check_output(["nm", o], text=True)
    defs, uses = set(), set()
    for l in out.split("\n"):
        p = l.split()
        if len(p) == 3 and p[1] == "T":
            defs.add(p[2])
        elif len(p) == 2 and p[0] == "U":
            uses.add(p[1])
    return defs, uses


# circles of calls between object files (functions only: a table of
# views or sources that names each one's struct is no call back).  One
# circle is the format's own: a job file's members are recordings, opened
# by the reader that opened the job file.
ALLOWED = [{"format/container/reader.o", "format/job/member.o"}]
objs = []
for root in ("format", "recorder", "viewer"):
    for d, _, fns in os.walk(os.path.join(B, root)):
        objs += [os.path.join(d, f) for f in fns if f.endswith(".o") and "/pic/" not in d
                 and os.path.exists(os.path.relpath(os.path.join(d, f[:-2] + ".c"), B))]  # no stale objects
if not objs:
    fail(f"no objects under {B}/ (build first)")
sym = {o: symbols(o) for o in objs}
owner = {}
for o in objs:
    for s in sym[o][0]:
        owner[s] = o
calls = {o: {owner[s] for s in sym[o][1] if s in owner and owner[s] != o} for o in objs}
index, low, stack_, on, comps, counter = {}, {}, [], set(), [], [0]


def strong(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack_.append(v)
    on.add(v)
    for w in calls[v]:
        if w not in index:
            strong(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = set()
        while True:
            w = stack_.pop()
            on.discard(w)
            comp.add(w)
            if w == v:
                break
        if len(comp) > 1:
            comps.append(comp)


for o in objs:
    if o not in index:
        strong(o)
rel = lambda o: os.path.relpath(o, B)
bad_circles = [c for c in comps if {rel(o) for o in c} not in ALLOWED]
for c in bad_circles:
    names = sorted(rel(o) for o in c)
    why = sorted(f"{os.path.basename(a)}->{os.path.basename(b)} ({sorted(sym[a][1] & sym[b][0])[0]})"
                 for a in c for b in calls[a] if b in c)
    fail("files call each other in a circle: " + " ".join(names) + ": " + ", ".join(why[:8]))
if objs and not bad_circles:
    ok(f"{len(objs)} object files: no circle of calls between them but the {len(ALLOWED)} allowed")

# the model holds data: no processes, no status text
spawn = re.compile(r"^(fork|vfork|exec[lv]p?e?|posix_spawnp?|popen|system|pcp_convert_behind|pcp_pending_\w+)$")
model = objects("viewer/model")
bad = sorted({(os.path.basename(o), s) for o in model for s in symbols(o)[1] if spawn.match(s)})
for o, s in bad:
    fail(f"viewer/model/{o[:-2]}.c calls {s}: the model starts no process")
stat = [f"{f}:{i}" for f in code if f.startswith("viewer/model/")
        for i, l in enumerate(open(f, encoding="utf-8").read().split("\n"), 1)
        if re.search(r"\bstatus(_warn)?\b", l) and not l.lstrip().startswith(("/*", "*", "//"))]
for w in stat:
    fail(f"{w} names the status line: the model reports warnings as data")
# ... and no analysis's results: no source of it includes an analysis
# header or names an analysis's tables
ana = re.compile(r'#\s*include\s+"[^"]*analysis/|\bstruct vw_(phases|jobs|compare|an)\b|\b(code|stack|roof)_cache\b')
held = [f"{f}:{i}" for f in code if f.startswith("viewer/model/")
        for i, l in enumerate(open(f, encoding="utf-8").read().split("\n"), 1) if ana.search(l)]
for w in held:
    fail(f"{w} holds an analysis's results: they are the analyses' (vw_an, an.h)")
if model and not bad and not stat and not held:
    ok(f"viewer/model: {len(model)} objects start no process; no source names the status line "
       "or an analysis's tables")

print(f"{fails} failed" if fails else "all passed")
sys.exit(1 if fails else 0)
EOF
