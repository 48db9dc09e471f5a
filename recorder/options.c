/* options.c: mcrec's command line, in perf's manner: options first, then the
 * command (after `--`, or at the first word that is not an option):
 *
 *     mcrec [-i 10ms] [-o run.%h.%r.mcz] [-e perf:instructions,net:eth0]
 *           [-g core,mem] [-a] [-q] -- command [args...]
 *     mcrec --list
 *     mcrec --calibrate [-- command ...]
 */
#include "rec.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

void rec_options_usage(FILE *f)
{
	fprintf(f,
		"usage: mcrec [options] [--] command [args...]\n"
		"       mcrec --list [-g GROUPS] [-e EVENTS]\n"
		"       mcrec --calibrate [[--] command [args...]]\n"
		"Run a command and record what the machine does meanwhile into a .mcz file.\n"
		"\n"
		"  -o, --output FILE     output file; %%h host, %%r MPI rank, %%j job id, %%p pid, %%t start time\n"
		"                        (default: <command>-<host>-<time>.mcz)\n"
		"  -i, --interval TIME   sampling interval: 100 (ms), 10ms, 0.5s (default 100ms,\n"
		"                        at least 1ms)\n"
		"  -e, --event LIST      events to record, SOURCE:EVENT,...: perf:instructions,\n"
		"                        perf:uncore_imc_0/cas_count_read/, net:eth0, papi:PAPI_TOT_INS,\n"
		"                        pcp:kernel.all.load; a bare name is a perf event\n"
		"  -g, --groups LIST     core, mem, net, os, gpu, power, code, all (default: all\n"
		"                        that are available and cheap)\n"
		"  -a, --all-cpus        count the whole machine, not only the command\n"
		"      --slow-interval TIME  read the slow sources, proc (os.*, app.rss,\n"
		"                        app.procs, app.io.*) and net, every TIME (default\n"
		"                        500ms; never more often than -i)\n"
		"      --chunk TIME      gather rows into chunks of TIME (default 5s): longer\n"
		"                        chunks compress better; rows reach the file every\n"
		"                        0.5 s anyway (a SIGKILL loses at most that)\n"
		"  -r, --realtime[=PRIO] sample from a SCHED_FIFO thread (default priority 1), as\n"
		"                        perf record -r: steadier ticks on a busy machine\n"
		"      --pcp-host HOST   pmcd to ask for pcp: events (default local)\n"
		"      --papi-multiplex  multiplex PAPI event sets (more events than counters)\n"
		"      --code-hz N       code source: instruction-pointer samples per second\n"
		"                        per thread (default 1000; -g without code: none)\n"
		"      --code-event EV   what samples it: cpu-clock (default, no PMU needed),\n"
		"                        task-clock, cycles, instructions (these need a PMU)\n"
		"      --call-graph fp   code source: record each sample's callers (frame\n"
		"                        pointers: code built with -fno-omit-frame-pointer)\n"
		"      --call-graph dwarf[,SIZE]  the callers of code without frame pointers\n"
		"                        (distributions' builds): SIZE bytes of user stack\n"
		"                        copied per sample (default 8192), unwound by its\n"
		"                        objects' call frame information (x86_64)\n"
		"      --no-kokkos       do not load mcrec's Kokkos Tools connector (regions,\n"
		"                        kernels, fences of a Kokkos program: KOKKOS_TOOLS_LIBS)\n"
		"      --no-ompt         do not load mcrec's OMPT tool (OpenMP threads' barrier\n"
		"                        waits, exact, with libomp: OMP_TOOL_LIBRARIES)\n"
		"      --region-rate N   marks per second a connector sends at most (default\n"
		"                        1000; the others are counted: metadata regions.dropped)\n"
		"  -l, --list            list sources and streams, and why any are unavailable\n"
		"      --calibrate       measure this machine's memory bandwidth and peak FLOP/s\n"
		"                        (under 30 s) and cache them: every later recording\n"
		"                        carries them for mcview's roofline; with a command,\n"
		"                        then record it\n"
		"  -q, --quiet           no status line, no summary\n"
		"  -f, --force           overwrite an existing output file (without it, the old\n"
		"                        one is kept as FILE.old, as perf record does)\n"
		"      --view            show the recording live in this terminal (mcview follows\n"
		"                        the file); the command's output goes to FILE.out\n"
		"  -h, --help            this help      -V, --version  version\n"
		"\n"
		"The command's exit status is mcrec's (128+N when signal N killed it).\n"
		"Applications add marks with mcmark.h, shell scripts with mcmark(1); work\n"
		"counts with mcmark_count() (app.flops, app.bytes; -e mark:NAME for others).\n"
		"See mcrec(1).\n");
}

/* --call-graph fp | dwarf[,SIZE], as perf record takes it: SIZE bytes of
 * user stack per sample, rounded up to 8 (the kernel copies words), at
 * most 65528 (a record's size is 16 bits). */
static int options_callgraph(rec_options *o, const char *arg, char *err, size_t errlen)
{
	if (!strcmp(arg, "fp")) {
		o->code_callgraph = REC_CG_FP;
		return 0;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ',')) {
		snprintf(err, errlen, "--call-graph %s: fp (frame pointers) or dwarf[,SIZE] (a copy "
			 "of the stack, unwound)", arg);
		return -1;
	}
#ifndef __x86_64__
	snprintf(err, errlen, "--call-graph %s: unwinding is supported on x86_64 only (here: "
		 "--call-graph fp, on code built with -fno-omit-frame-pointer)", arg);
	return -1;
#endif
	unsigned long size = REC_CG_STACK;
	if (arg[5]) {
		char *end;
		size = strtoul(arg + 6, &end, 0);
		size = (size + 7) & ~7ul;
		if (end == arg + 6 || *end || arg[6] == '-' || size == 0 || size > 65528) {
			snprintf(err, errlen, "--call-graph %s: SIZE is the bytes of user stack "
				 "copied per sample, 8 to 65528 (default %d)", arg, REC_CG_STACK);
			return -1;
		}
	}
	o->code_callgraph = REC_CG_DWARF;
	o->code_stack = (unsigned)size;
	return 0;
}

static int options_add_events(rec_options *o, const char *list)
{
	char *dup = strdup(list);
	if (!dup)
		return -1;
	/* Split at commas, but not inside a PMU's "pmu/a=1,b=2/". */
	char *start = dup;
	int depth = 0;
	for (char *p = dup;; p++) {
		if (*p == '/')
			depth = !depth;
		if ((*p == ',' && !depth) || *p == '\0') {
			int end = *p == '\0';
			*p = '\0';
			char **ne = realloc(o->events, (o->nevents + 1) * sizeof *ne);
			if (!ne || !(ne[o->nevents] = strdup(start))) {
				if (ne)
					o->events = ne;
				free(dup);
				return -1;
			}
			o->events = ne;
			o->nevents++;
			start = p + 1;
			if (end)
				break;
		}
	}
	free(dup);
	return 0;
}

/* A time option's value ("--chunk: interval 'x': ..."); 0 or -1. */
static int options_time(const char *opt, const char *arg, int64_t *ns, char *err, size_t errlen)
{
	char why[200];
	if (rec_clock_parse_interval(arg, ns, why, sizeof why) == 0)
		return 0;
	snprintf(err, errlen, "%s: %s", opt, why);
	return -1;
}

int rec_options_parse(int argc, char **argv, rec_options *o, char *err, size_t errlen)
{
	static const struct option lo[] = {
		{"output", required_argument, 0, 'o'}, {"interval", required_argument, 0, 'i'},
		{"event", required_argument, 0, 'e'},  {"events", required_argument, 0, 'e'},
		{"groups", required_argument, 0, 'g'}, {"group", required_argument, 0, 'g'},
		{"all-cpus", no_argument, 0, 'a'},     {"quiet", no_argument, 0, 'q'},
		{"list", no_argument, 0, 'l'},         {"pcp-host", required_argument, 0, 'P'},
		{"realtime", optional_argument, 0, 'r'},
		{"papi-multiplex", no_argument, 0, 'M'},
		{"code-hz", required_argument, 0, 'H'},
		{"code-event", required_argument, 0, 'E'},
		{"call-graph", required_argument, 0, 'G'},
		{"chunk", required_argument, 0, 'C'},
		{"slow-interval", required_argument, 0, 'S'},
		{"view", no_argument, 0, 'W'},
		{"calibrate", no_argument, 0, 'K'},
		{"force", no_argument, 0, 'f'},
		{"no-kokkos", no_argument, 0, 'k'},
		{"no-ompt", no_argument, 0, 'O'},
		{"region-rate", required_argument, 0, 'R'},
		{"help", no_argument, 0, 'h'},         {"version", no_argument, 0, 'V'},
		{0, 0, 0, 0}};
	int c;
	memset(o, 0, sizeof *o);
	o->interval_ns = 100000000LL;
	o->chunk_ns = REC_CHUNK_NS_DEFAULT;
	o->slow_ns = REC_SLOW_NS_DEFAULT;
	o->groups = REC_G_ALL;
	o->region_rate = REC_REGION_RATE_DEFAULT;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:o:i:e:g:aqlhVrf", lo, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'i':
			if (rec_clock_parse_interval(optarg, &o->interval_ns, err, errlen))
				return 2;
			break;
		case 'e':
			if (options_add_events(o, optarg)) {
				snprintf(err, errlen, "out of memory");
				return 2;
			}
			break;
		case 'g':
			if (rec_registry_groups(optarg, &o->groups, err, errlen))
				return 2;
			o->groups_given = 1;
			break;
		case 'a': o->system_wide = 1; break;
		case 'r': {
			char *end;
			long prio = optarg ? strtol(optarg, &end, 10) : 1;
			if (optarg && (end == optarg || *end || prio < 1 || prio > 99)) {
				snprintf(err, errlen, "--realtime=%s: a priority from 1 to 99", optarg);
				return 2;
			}
			o->realtime = (int)prio;
			break;
		}
		case 'q': o->quiet = 1; break;
		case 'W': o->view = 1; break;
		case 'K': o->calibrate = 1; break;
		case 'f': o->force = 1; break;
		case 'k': o->no_regions |= REC_NO_KOKKOS; break;
		case 'O': o->no_regions |= REC_NO_OMPT; break;
		case 'R': {
			char *end;
			double r = strtod(optarg, &end);
			if (end == optarg || *end || !(r >= 0 && r <= 1e6)) {
				snprintf(err, errlen, "--region-rate %s: marks per second, 0 to 1000000", optarg);
				return 2;
			}
			o->region_rate = r;
			break;
		}
		case 'l': o->list = 1; break;
		case 'P': o->pcp_host = optarg; break;
		case 'M': o->papi_multiplex = 1; break;
		case 'H': {
			char *end;
			long hz = strtol(optarg, &end, 10);
			if (end == optarg || *end || hz < 1 || hz > 100000) {
				snprintf(err, errlen, "--code-hz %s: samples per second, 1 to 100000", optarg);
				return 2;
			}
			o->code_hz = (unsigned)hz;
			break;
		}
		case 'E':
			if (strcmp(optarg, "cpu-clock") && strcmp(optarg, "task-clock") &&
			    strcmp(optarg, "cycles") && strcmp(optarg, "instructions")) {
				snprintf(err, errlen, "--code-event %s: cpu-clock (default), task-clock, "
					 "cycles or instructions", optarg);
				return 2;
			}
			o->code_event = optarg;
			break;
		case 'G':
			if (options_callgraph(o, optarg, err, errlen))
				return 2;
			break;
		case 'C':
		case 'S':
			if (options_time(c == 'C' ? "--chunk" : "--slow-interval", optarg,
					 c == 'C' ? &o->chunk_ns : &o->slow_ns, err, errlen))
				return 2;
			break;
		case 'h': rec_options_usage(stdout); return 1;
		case 'V': printf("mcrec (mcz) %d.%d\n", MCZ_VERSION_MAJOR, MCZ_VERSION_MINOR); return 1;
		case ':':
			snprintf(err, errlen, "option '%s' needs a value (see --help)", argv[optind - 1]);
			return 2;
		default:
			if (optopt)
				snprintf(err, errlen, "unknown option '-%c' (see --help)", optopt);
			else
				snprintf(err, errlen, "unknown option '%s' (see --help)", argv[optind - 1]);
			return 2;
		}
	}
	o->argv = argv + optind;
	if (!o->list && !o->calibrate && !o->argv[0]) {
		snprintf(err, errlen, "no command given (usage: mcrec [options] -- command [args])");
		return 2;
	}
	return 0;
}

void rec_options_free(rec_options *o)
{
	for (size_t i = 0; i < o->nevents; i++)
		free(o->events[i]);
	free(o->events);
	o->events = NULL;
	o->nevents = 0;
}
