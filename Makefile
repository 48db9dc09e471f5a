# Makefile: build, test, bench and install mcz.
#
#   make                 all programs (mcz, mcrec, mcmark, mcview) and samples
#   make check           every test (unit, integration, end-to-end, fuzz replay)
#   make check SAN=1     the same with AddressSanitizer + UndefinedBehaviorSanitizer
#   make bench           benchmarks, printed as tables beside the reference tools
#   make fuzz            build libFuzzer targets (clang) into build/fuzz/
#   make demo            install what is missing, record the phased sample, open it
#   make install PREFIX=/usr/local   (DESTDIR honoured; the shared libraries,
#                        mcz.pc and Python's `import mcz` too)
#   make shlib           build/libmcz.so.1 and build/libmczpcp.so.1 (part of all)
#   make deps            install the Debian packages (scripts/install-deps.sh)
#
# Switches: V=1 (show commands), SAN=1, WERROR=0 (warnings not fatal),
# O=2 (optimisation level), CC=clang.
#
# Layout (see ../shared/DESIGN.md): every .c file of a folder is part of that
# folder's module; the program's main lives in the file named below, so new
# files need no Makefile change.  Unit tests are tests/unit/*/test-*.c (cmocka),
# shell tests tests/{integration,e2e}/*.sh, fuzz targets tests/fuzz/fuzz-*.c,
# benchmark programs tests/bench/*.c, test helper programs tests/tools/{,*/}*.c.

PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man
INCDIR = $(PREFIX)/include
DATADIR = $(PREFIX)/share/mcz
LIBDIR = $(PREFIX)/lib
PKGCONFIGDIR = $(LIBDIR)/pkgconfig
# Python's `import mcz` (python/mcz): Debian's python3 reads /usr/lib/python3/
# dist-packages, and /usr/local/lib/python3.X/dist-packages for /usr/local.
PYDIR = $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/python3/dist-packages,$(PREFIX)/lib/python$(shell \
	python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')/dist-packages)

CC ?= cc
O ?= 2
WERROR ?= 1
B := build$(if $(SAN),-san)

WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wformat=2 -Wno-unused-parameter \
       -Wmissing-prototypes -Wpointer-arith -Wvla
ifeq ($(WERROR),1)
WARN += -Werror
endif
CFLAGS ?= -O$(O) -g
override CFLAGS += -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 $(WARN) -MMD -MP -pthread \
	-DMCZ_DATADIR='"$(DATADIR)"'
ifneq ($(SAN),)
override CFLAGS += -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all
override LDFLAGS += -fsanitize=address,undefined,float-cast-overflow
endif

PKGS_FORMAT = libzstd zlib
# libstdc++ (the demangler of code names) is dlopened: format/code/code-name.c
LIBS_FORMAT = $(shell pkg-config --libs $(PKGS_FORMAT)) -lm
LIBS_PCP = -lpcp -lpcp_import
# mcrec loads libpcp and libpapi with dlopen (recorder/sources/pcp/pcp-lib.c,
# papi-lib.c): not linked with them
LIBS_REC = -lhwloc -ldl -lm $(shell pkg-config --libs libdw)
# mcz and mcview name a cut recording's code with the recorder's symbolizer
# (recorder/codesym.h): libdw, and libdebuginfod dlopened
LIBS_SYM = -ldl $(shell pkg-config --libs libdw)
LIBS_VIEW = $(shell pkg-config --libs ncursesw) -lm
LIBS_TEST = -lcmocka

ifeq ($(V),1)
Q =
else
Q = @
endif

# ---- sources ----------------------------------------------------------------
# libmcz's rooms (format/pcp is libmczpcp, format/cli the mcz program)
FORMAT_ROOMS   = format/container format/codecs format/meta format/code format/job format/cache
FORMAT_LIB_SRC = $(wildcard format/*.c $(addsuffix /*.c,$(FORMAT_ROOMS)))
PCP_SRC        = $(wildcard format/pcp/*.c)
TOOL_SRC       = $(wildcard format/cli/*.c)
REC_SRC        = $(filter-out recorder/mcrec-main.c recorder/mcmark-cli.c,$(wildcard recorder/*.c recorder/topo/*.c recorder/sources/*.c recorder/sources/*/*.c recorder/calibrate/*.c))
VIEW_SRC       = $(filter-out viewer/app/mcview-main.c,$(wildcard viewer/*/*.c viewer/*/*/*.c))
SAMPLE_SRC     = $(filter-out samples/sample-kernels.c,$(wildcard samples/*.c))
UNIT_SRC       = $(wildcard tests/unit/*/test-*.c)
FUZZ_SRC       = $(wildcard tests/fuzz/fuzz-*.c)
BENCH_SRC      = $(wildcard tests/bench/*.c)
TOOLS_SRC      = $(wildcard tests/tools/*.c tests/tools/*/*.c)
MANPAGES       = $(wildcard format/cli/*.1 recorder/*.1 viewer/app/*.1)

obj = $(patsubst %.c,$(B)/%.o,$(1))

LIBMCZ  = $(B)/libmcz.a
LIBPCPI = $(B)/libmczpcp.a
LIBREC  = $(B)/librec.a
LIBVIEW = $(B)/libview.a

PROGS = $(B)/mcz $(B)/mcrec $(B)/mcmark $(B)/mcview
# recorder/connect/NAME-connect.c: libraries mcrec loads into the command
# (Kokkos Tools, OMPT), one shared object each, beside mcrec
CONNECT_SRC = $(wildcard recorder/connect/*.c)
CONNECTORS = $(patsubst recorder/connect/%-connect.c,$(B)/libmcz-%.so,$(CONNECT_SRC))
SAMPLES = $(patsubst samples/%.c,$(B)/samples/%,$(SAMPLE_SRC))
# samples/mpi/*.c are real MPI programs, built with mpicc (Debian:
# libopenmpi-dev, a build package of install-deps.sh); where there is no
# mpicc they are left out with a line saying so.
MPI_SAMPLES = $(patsubst samples/mpi/%.c,$(B)/samples/%,$(wildcard samples/mpi/*.c))
SAMPLES += $(MPI_SAMPLES)
# samples/omp/*.c are OpenMP programs: built with gcc's libgomp, and again
# as NAME-clang with clang's libomp where clang links -fopenmp (Debian:
# libomp-dev; without it the clang build is left out with a line saying so).
OMP_SAMPLES = $(patsubst samples/omp/%.c,$(B)/samples/%,$(wildcard samples/omp/*.c))
OMP_CLANG_SAMPLES = $(addsuffix -clang,$(OMP_SAMPLES))
SAMPLES += $(OMP_SAMPLES) $(OMP_CLANG_SAMPLES)
# samples/kokkos/*.cc: Kokkos programs (rule below)
KOKKOS_INC = /usr/include/trilinos
KOKKOS_SAMPLES = $(patsubst samples/kokkos/%.cc,$(B)/samples/%,$(wildcard samples/kokkos/*.cc))
SAMPLES += $(KOKKOS_SAMPLES)
UNITS = $(addprefix $(B)/tests/,$(basename $(notdir $(UNIT_SRC))))
FUZZ_REPLAY = $(patsubst tests/fuzz/fuzz-%.c,$(B)/tests/replay-%,$(FUZZ_SRC))
BENCHES = $(patsubst tests/bench/%.c,$(B)/bench/%,$(BENCH_SRC))
TOOLS = $(addprefix $(B)/tests/tools/,$(basename $(notdir $(TOOLS_SRC))))

.PHONY: all check bench fuzz demo install deps deps-build clean units shlib
# Keep objects of pattern-built programs (no rebuild on every make).
.SECONDARY:
all: $(PROGS) $(SAMPLES) $(CONNECTORS) bin shlib

# bin/ holds links to the current build so scripts and users find the programs.
bin: $(PROGS) $(SAMPLES)
	$(Q)mkdir -p bin && for p in $(PROGS) $(SAMPLES); do ln -sf ../$$p bin/; done

# Every compile waits for the build packages (installed when missing: a fresh
# machine has no libpcp or hwloc headers); the test targets also want the
# test packages (deps).  install-deps.sh takes a lock, so both may run at once.
$(B)/%.o: %.c | deps-build
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(LIBMCZ): $(call obj,$(FORMAT_LIB_SRC))
$(LIBPCPI): $(call obj,$(PCP_SRC))
$(LIBREC): $(call obj,$(REC_SRC))
$(LIBVIEW): $(call obj,$(VIEW_SRC))
$(B)/%.a:
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

define link
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(1)
endef

$(B)/mcz: $(call obj,$(TOOL_SRC)) $(LIBREC) $(LIBPCPI) $(LIBMCZ)
	$(call link,$(LIBS_SYM) $(LIBS_PCP) $(LIBS_FORMAT))
$(B)/mcrec: $(call obj,recorder/mcrec-main.c) $(LIBREC) $(LIBPCPI) $(LIBMCZ)
	$(call link,$(LIBS_REC) $(LIBS_FORMAT))
$(B)/mcmark: $(call obj,recorder/mcmark-cli.c)
	$(call link,)
$(B)/mcview: $(call obj,viewer/app/mcview-main.c) $(LIBVIEW) $(LIBREC) $(LIBPCPI) $(LIBMCZ)
	$(call link,$(LIBS_VIEW) $(LIBS_SYM) $(LIBS_PCP) $(LIBS_FORMAT))
$(B)/samples/%: $(call obj,samples/%.c samples/sample-kernels.c)
	$(call link,-lm)
# mpicc compiles and links with the MPI library's flags around $(CC)'s; it is
# looked for when the rule runs, after deps-build may have installed it.
# Never with the sanitizers (SAN=1): LeakSanitizer reports Open MPI's own
# allocations, kept until exit, as leaks; the sample is a workload, not code
# under test.
MPI_CFLAGS = $(filter-out -fsanitize% -fno-sanitize%,$(CFLAGS))
$(MPI_SAMPLES): $(B)/samples/%: samples/mpi/%.c samples/sample-kernels.c | deps-build
	@mkdir -p $(dir $@)
	$(Q)mpicc=$$(command -v mpicc || true); \
	if [ -z "$$mpicc" ]; then echo "  SKIP    $@ (no mpicc: install libopenmpi-dev)"; \
	else $(if $(Q),echo "  MPICC   $<";) OMPI_CC=$(CC) MPICH_CC=$(CC) $$mpicc $(MPI_CFLAGS) \
		-MF $@.d -o $@ $< samples/sample-kernels.c -lm; fi

$(OMP_SAMPLES): $(B)/samples/%: samples/omp/%.c | deps-build
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC -fopenmp $<")
	$(Q)$(CC) $(MPI_CFLAGS) -fopenmp -o $@ $<
$(OMP_CLANG_SAMPLES): $(B)/samples/%-clang: samples/omp/%.c | deps-build
	@mkdir -p $(dir $@)
	$(Q)if command -v clang >/dev/null && \
		clang $(filter-out -MMD -MP,$(MPI_CFLAGS)) -fopenmp -o $@ $< 2>/dev/null; then \
		$(if $(Q),echo "  CLANG -fopenmp $<";) :; \
	else rm -f $@; echo "  SKIP    $@ (clang cannot link -fopenmp: install libomp-dev)"; fi

# The connectors run inside the recorded command, which is not built with
# the sanitizers: they are not either (an ASan library in a program without
# ASan stops it).
$(CONNECTORS): $(B)/libmcz-%.so: recorder/connect/%-connect.c | deps-build
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD -shared $@")
	$(Q)$(CC) $(MPI_CFLAGS) -fPIC -shared -fvisibility=hidden -MF $@.d -o $@ $< -ldl

# A Kokkos program (samples/kokkos/*.cc) against Debian's Trilinos Kokkos
# (libtrilinos-kokkos-dev, a test package of install-deps.sh); where it is
# not installed the sample is left out with a line saying so.
$(KOKKOS_SAMPLES): $(B)/samples/%: samples/kokkos/%.cc | deps-build
	@mkdir -p $(dir $@)
	$(Q)if [ -f $(KOKKOS_INC)/Kokkos_Core.hpp ]; then \
		$(if $(Q),echo "  CXX     $<";) $(CXX) -O2 -g -std=c++14 -I$(KOKKOS_INC) -o $@ $< \
		-ltrilinos_kokkoscore -ldl; \
	else rm -f $@; echo "  SKIP    $@ (no Kokkos: install libtrilinos-kokkos-dev)"; fi

# ---- shared libraries: libmcz.so.1 and libmczpcp.so.1 ------------------------
# For other languages (python/mcz loads them with ctypes) and programs of
# other projects; mcz's own programs keep linking the static archives.  The
# objects are compiled again with -fPIC under $(B)/pic/.  libmcz exports
# mcz.h's functions and nothing else: its version script is made from the
# header's declarations.  libmczpcp (needs libpcp) exports the opening API of
# pcp.h (format/pcp/libmczpcp.map) and takes libmcz from beside itself
# ($$ORIGIN), so that a reader it opens is one that libmcz.so.1 reads.
SHLIB_MCZ = $(B)/libmcz.so.1
SHLIB_PCP = $(B)/libmczpcp.so.1
SO_PCP_LIBS = -L$(B) -lmcz -Wl,-rpath,'$$ORIGIN' $(LIBS_PCP) $(shell pkg-config --libs zlib)
shlib: $(SHLIB_MCZ) $(SHLIB_PCP)
pic = $(patsubst %.c,$(B)/pic/%.o,$(1))
$(B)/pic/%.o: %.c | deps-build
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC -fPIC $<")
	$(Q)$(CC) $(CFLAGS) -fPIC -c -o $@ $<
$(B)/libmcz.map: format/mcz.h
	@mkdir -p $(dir $@)
	$(Q){ echo 'MCZ_1 { global:'; \
	  sed -n 's/^[a-z][a-z0-9_ ]*[ *]\(mcz_[a-z0-9_]*\)(.*/  \1;/p' $<; \
	  echo 'local: *; };'; } >$@
define link_so # soname, version script, libraries
	@$(if $(Q),echo "  LD -shared $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(1) -Wl,--version-script=$(2) \
		-Wl,--no-undefined -o $@ $(filter %.o,$^) $(3)
	$(Q)ln -sf $(1) $(@D)/$(basename $(1))
endef
$(SHLIB_MCZ): $(call pic,$(FORMAT_LIB_SRC)) $(B)/libmcz.map
	$(call link_so,libmcz.so.1,$(B)/libmcz.map,$(LIBS_FORMAT))
$(SHLIB_PCP): $(call pic,$(PCP_SRC)) format/pcp/libmczpcp.map $(SHLIB_MCZ)
	$(call link_so,libmczpcp.so.1,format/pcp/libmczpcp.map,$(SO_PCP_LIBS))

ALL_LIBS = $(LIBVIEW) $(LIBREC) $(LIBPCPI) $(LIBMCZ)
ALL_LDLIBS = $(LIBS_VIEW) $(LIBS_REC) $(LIBS_PCP) $(LIBS_FORMAT)
# Unit tests link every module library; the linker takes only what they use.
# A unit test's source sits in its layer's folder (tests/unit/LAYER/test-X.c);
# its program is $(B)/tests/test-X, the name tests/run.sh runs.
define unit_rule
$(B)/tests/$(basename $(notdir $(1))): $(call obj,$(1)) $$(ALL_LIBS)
	$$(call link,$$(LIBS_TEST) $$(ALL_LDLIBS))
endef
$(foreach u,$(UNIT_SRC),$(eval $(call unit_rule,$(u))))
# Fuzz targets replayed over their corpus by a plain driver (make check).
$(B)/tests/replay-%: $(B)/tests/fuzz/fuzz-%.o $(B)/tests/fuzz/replay.o $(LIBVIEW) $(LIBPCPI) $(LIBMCZ)
	$(call link,$(LIBS_VIEW) $(LIBS_PCP) $(LIBS_FORMAT))
# Benchmark programs (tests/bench/X.c) and test helper programs (tests/tools/X.c).
$(B)/bench/%: $(B)/tests/bench/%.o $(ALL_LIBS)
	$(call link,$(ALL_LDLIBS))
define tool_rule
$(B)/tests/tools/$(basename $(notdir $(1))): $(call obj,$(1)) $$(ALL_LIBS)
	$$(call link,$$(ALL_LDLIBS))
endef
$(foreach t,$(filter %.c,$(TOOLS_SRC)),$(eval $(call tool_rule,$(t))))
$(B)/tests/fuzz/replay.o: tests/fuzz/replay.c | deps-build
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

units: $(UNITS) $(FUZZ_REPLAY) $(BENCHES) $(TOOLS)

# The README's two commands build on every core: `make check` on a fresh
# clone compiled its 166 test objects and programs one at a time (65 s for
# the whole tree against 29 s on two cores).  A -j of the user's own is
# kept; the packages are installed first, the build after (a -j at the top
# would run install-deps.sh beside the compiler).
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
SUBMAKE = $(MAKE) --no-print-directory \
	$(if $(findstring -j,$(MAKEFLAGS))$(findstring jobserver,$(MAKEFLAGS)),,-j$(JOBS))

check: deps
	+$(Q)$(SUBMAKE) all units
	$(Q)MCZ_BUILD=$(B) tests/run.sh

bench: deps all $(BENCHES) $(TOOLS)
	$(Q)MCZ_BUILD=$(B) tests/bench/run-benches.sh

# libFuzzer builds: clang only, separate objects.  UBSan findings abort (as in
# SAN=1), so that the fuzzer reports them as crashes instead of printing on.
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -pthread
fuzz: deps $(patsubst tests/fuzz/fuzz-%.c,build/fuzz/fuzz-%,$(FUZZ_SRC))
# The theme parser is viewer code; its target takes only theme.c.
build/fuzz/fuzz-theme: tests/fuzz/fuzz-theme.c viewer/term/theme.c | deps
	@mkdir -p $(dir $@)
	$(Q)clang $(FUZZ_CFLAGS) -DMCZ_DATADIR='"$(DATADIR)"' -o $@ $(filter %.c,$^)
# The topology view's tree, layout and raster are viewer code too.
build/fuzz/fuzz-topo: tests/fuzz/fuzz-topo.c viewer/analysis/topology/topo-tree.c viewer/analysis/topology/topo-layout.c \
		viewer/views/draw/topo-render.c viewer/views/draw/canvas.c | deps
	@mkdir -p $(dir $@)
	$(Q)clang $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) -lm
# The PCP importer's parsers (folio, ssh URL, remote stream) need libpcp.
build/fuzz/fuzz-pcp: tests/fuzz/fuzz-pcp.c $(PCP_SRC) $(FORMAT_LIB_SRC) | deps
	@mkdir -p $(dir $@)
	$(Q)clang $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) $(LIBS_PCP) $(LIBS_FORMAT)
# From bytes through the model, the analyses and every view to the cell buffer:
# the whole viewer (its app layer for the screen frame) with libmcz and PCP.
build/fuzz/fuzz-view: tests/fuzz/fuzz-view.c $(VIEW_SRC) $(PCP_SRC) $(FORMAT_LIB_SRC) | deps
	@mkdir -p $(dir $@)
	$(Q)clang $(FUZZ_CFLAGS) -DMCZ_DATADIR='"$(DATADIR)"' -o $@ $(filter %.c,$^) $(LIBS_VIEW) $(LIBS_PCP) $(LIBS_FORMAT)
# The code-class rules are viewer code; their target takes only codeclass.c.
build/fuzz/fuzz-codeclass: tests/fuzz/fuzz-codeclass.c viewer/analysis/code/codeclass.c | deps
	@mkdir -p $(dir $@)
	$(Q)clang $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^)
# Targets that compile another module's .c file in (#include) rebuild with it,
# and every target with a header (the recipes take only the .c files).
$(patsubst tests/fuzz/fuzz-%.c,build/fuzz/fuzz-%,$(FUZZ_SRC)): \
	$(wildcard format/*.h format/*/*.h viewer/*/*.h viewer/*/*/*.h recorder/*.h recorder/*/*.h recorder/sources/*/*.h)
build/fuzz/fuzz-memspec: recorder/sources/memtraffic-spec.c
build/fuzz/fuzz-phasecache: viewer/analysis/phases/phase-cache.c
build/fuzz/fuzz-rec-parse: recorder/clock.c recorder/sources/mark-wire.c recorder/sources/perf/perf-event.c
build/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(FORMAT_LIB_SRC) | deps
	@mkdir -p $(dir $@)
	$(Q)clang $(FUZZ_CFLAGS) -o $@ $< $(FORMAT_LIB_SRC) $(LIBS_FORMAT)

deps:
	$(Q)scripts/install-deps.sh all
deps-build:
	$(Q)scripts/install-deps.sh build

demo: deps
	+$(Q)$(SUBMAKE) all
	$(Q)scripts/demo.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(INCDIR) $(DESTDIR)$(DATADIR)/themes
	install -m 755 $(PROGS) $(DESTDIR)$(BINDIR)/
	install -d $(DESTDIR)$(LIBDIR)/mcz
	install -m 755 $(CONNECTORS) $(DESTDIR)$(LIBDIR)/mcz/
	install -m 644 format/mcz.h recorder/mcmark.h $(DESTDIR)$(INCDIR)/
	for m in $(MANPAGES); do install -m 644 $$m $(DESTDIR)$(MANDIR)/man1/; done
	for t in $(wildcard themes/*.theme); do install -m 644 $$t $(DESTDIR)$(DATADIR)/themes/; done
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(PYDIR)/mcz
	install -m 755 $(SHLIB_MCZ) $(SHLIB_PCP) $(DESTDIR)$(LIBDIR)/
	ln -sf libmcz.so.1 $(DESTDIR)$(LIBDIR)/libmcz.so
	ln -sf libmczpcp.so.1 $(DESTDIR)$(LIBDIR)/libmczpcp.so
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCDIR)' '' \
		'Name: mcz' 'Description: libmcz, the .mcz recording format (mcz.h)' \
		'Version: $(shell sed -n 's/^#define MCZ_VERSION_MAJOR //p' format/mcz.h).$(shell \
		sed -n 's/^#define MCZ_VERSION_MINOR //p' format/mcz.h)' \
		'Libs: -L$${libdir} -lmcz' 'Libs.private: $(LIBS_FORMAT)' 'Cflags: -I$${includedir}' \
		>$(DESTDIR)$(PKGCONFIGDIR)/mcz.pc
	install -m 644 python/mcz/*.py $(DESTDIR)$(PYDIR)/mcz/
	printf '%s\n' '# _paths.py: where make install put the libraries and programs.' \
		'LIBDIR = "$(LIBDIR)"' 'BINDIR = "$(BINDIR)"' >$(DESTDIR)$(PYDIR)/mcz/_paths.py

clean:
	rm -rf build build-san bin

# the dependencies of the build this make runs (B: build, build-san, or the
# user's own B=DIR)
-include $(shell find $(B) -name '*.d' 2>/dev/null)
