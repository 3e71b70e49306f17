# hqsim -- one non-recursive Makefile.  Builds out of tree in $(BUILD).
#
#   make            build build/hqsim
#   make demo       build and run the default before/after-MPS comparison
#   make test       format check, unit + end-to-end tests, the same under
#                   ASan/UBSan, under valgrind, ThreadSanitizer, a short
#                   fuzz run (what CI runs)
#   make check      unit + end-to-end tests only (fast)
#   make asan       the sanitizer build and its tests (build-asan/)
#   make valgrind   unit tests and a few end-to-end runs under valgrind
#   make tsan       the engine's reentrancy under ThreadSanitizer (build-tsan/)
#   make bench      performance benchmarks (not tests)
#   make validate   accuracy table against the measured H100 data
#   make fuzz       libFuzzer targets, FUZZ_SECONDS each (default 300)
#   make fuzz-ci    the same, FUZZ_CI_SECONDS each (20): part of make test
#   make install    PREFIX=/usr/local [DESTDIR=]: binary, models, library,
#                   headers, hqsim.pc, man page, bash completion
#   make V=1        show full commands

BUILD    ?= build
CC       ?= cc
WERROR   ?= -Werror
# fontconfig: cairo's text goes through it; viz/plot.c calls FcFini
# so that ASan and valgrind do not count its caches as leaks.
PKGS     := glib-2.0 libcjson zlib sqlite3 cairo fontconfig
# Open MPI, for `mpirun -np K hqsim sweep` (plan/mpi_world.c): linked into
# the one hqsim binary when pkg-config finds it; without it mpi_world.c
# builds a stub that refuses to run as one of several ranks.  The binary
# enters MPI only when mpirun started it (OMPI_COMM_WORLD_SIZE or PMIX_RANK
# set), so plain runs, the tests, ASan and valgrind never initialise it.
MPI_PKG  := $(shell pkg-config --exists ompi-c 2>/dev/null && echo ompi-c)
PKGS     += $(MPI_PKG)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS)) -lm
TEST_CFLAGS := $(shell pkg-config --cflags cmocka)
TEST_LIBS   := $(shell pkg-config --libs cmocka)

# Where an installed hqsim finds its GPU models (HQSIM_DATADIR/models),
# compiled in only when set (make install sets it): the search order is
# $HQSIM_MODELS, then HQSIM_DATADIR/models, then this tree's models/
# (sim_models_dir in sim/gpu_model.c).
HQSIM_DATADIR ?=
# The include path of library code: the internal folders, then the public
# header (include/hqsim.h).  tests/check_layers.sh keeps the direction.
INC_DIRS := sim import viz plan include

WARN := -Wall -Wextra $(WERROR) -Wmissing-prototypes -Wstrict-prototypes \
        -Wshadow -Wpointer-arith -Wformat=2 -Wno-format-nonliteral \
        -Wvla -Wundef
# -ffp-contract=off: no fused multiply-add, so floating-point results (and
# therefore simulated times) are the same on every x86-64 and ARM build.
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
              $(WARN) -ffp-contract=off $(CFLAGS) $(PKG_CFLAGS) \
              -DHQSIM_SOURCE_DIR='"$(CURDIR)"' \
              $(if $(HQSIM_DATADIR),-DHQSIM_DATADIR='"$(HQSIM_DATADIR)"') \
              $(INC_DIRS:%=-I%) -MMD -MP \
              $(if $(MPI_PKG),-DHQSIM_HAVE_MPI=1)
LDLIBS := $(PKG_LIBS)

ifeq ($(V),1)
Q :=
else
Q := @
endif

# Library sources: every .c under the library folders.  The command line
# (cli/: main.c, the cmd_*.c commands and their shared option code) is not
# part of the library: only the hqsim binary links it.  cli/ is on no -I
# path (its files include each other by quotes, from their own folder), so
# the library cannot include a command-line header.
LIB_DIRS := sim import viz plan api
CLI_DIR  := cli
LIB_SRC  := $(wildcard $(addsuffix /*.c,$(LIB_DIRS)))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libhqsim.a
# The shared library: the same sources compiled position-independent into
# $(BUILD)/pic/, exporting only the public API (include/hqsim.h, the
# hqsim_* symbols: api/libhqsim.map).  Its soname changes with the API's
# major version (HQSIM_API_MAJOR in include/hqsim.h).
SO_MAJOR := $(shell sed -n 's/^\#define HQSIM_API_MAJOR //p' include/hqsim.h)
SO_MINOR := $(shell sed -n 's/^\#define HQSIM_API_MINOR //p' include/hqsim.h)
SONAME   := libhqsim.so.$(SO_MAJOR)
SO       := $(BUILD)/libhqsim.so
SO_OBJ   := $(LIB_SRC:%.c=$(BUILD)/pic/%.o)
CLI_SRC  := $(wildcard $(CLI_DIR)/*.c)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)

TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)

.PHONY: all demo check test asan valgrind tsan bench validate clean echo install FORCE \
        fuzz fuzz-ci fuzz-build \
        format format-check format-all check-headers check-layers
all: $(BUILD)/hqsim $(SO)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $< (PIC)")
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -c $< -o $@

$(BUILD)/$(SONAME).$(SO_MINOR): $(SO_OBJ) api/libhqsim.map
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -shared -Wl,-soname,$(SONAME) \
	  -Wl,--version-script=api/libhqsim.map -Wl,--no-undefined \
	  -o $@ $(SO_OBJ) $(LDLIBS)

$(SO): $(BUILD)/$(SONAME).$(SO_MINOR)
	$(Q)ln -sf $(SONAME).$(SO_MINOR) $(BUILD)/$(SONAME) && \
	  ln -sf $(SONAME) $@

$(BUILD)/hqsim: $(CLI_OBJ) $(LIB)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) $(TEST_CFLAGS) -c $< -o $@

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(LIB)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS) $(TEST_LIBS)

# tests/test_api.c sees the public header alone: no internal folder on its
# include path.
$(BUILD)/tests/test_api.o: tests/test_api.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(filter-out $(INC_DIRS:%=-I%),$(ALL_CFLAGS)) -Iinclude \
	  $(TEST_CFLAGS) -c $< -o $@

# ($^ would also hold the headers listed in the generated .d file.)
$(BUILD)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# demo: the main job on the bundled default scenario (before/after MPS).
demo: $(BUILD)/hqsim
	$(BUILD)/hqsim compare traces/default.json

# check: unit tests (cmocka), then end-to-end tests on the real binary
# (tests/test_install.sh installs into a temporary prefix: make install;
# tests/test_harness.sh compiles and parses the harness, runs its mock modes),
# then the Python binding against the binary (tests/test_python.py; it
# loads libhqsim.so into python3, so sanitizer builds set PY_TEST=).
PY_TEST ?= 1
check: $(BUILD)/hqsim $(TEST_BIN) check-layers $(if $(PY_TEST),$(SO))
	$(Q)HQSIM=$(BUILD)/hqsim BUILD=$(BUILD) HQSIM_CFLAGS="$(CFLAGS)" \
	  bash tests/run_all.sh $(TEST_BIN) tests/test_install.sh tests/test_harness.sh
	$(Q)$(if $(PY_TEST),HQSIM=$(BUILD)/hqsim HQSIM_LIB=$(SO) \
	  python3 tests/test_python.py,true)

# asan: the same tests on an ASan+UBSan build in its own directory.
asan:
	$(Q)$(MAKE) --no-print-directory BUILD=build-asan PY_TEST= \
	  CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
	  check

# valgrind: unit tests and selected end-to-end runs under memcheck.
valgrind: $(BUILD)/hqsim $(TEST_BIN)
	$(Q)HQSIM=$(BUILD)/hqsim BUILD=$(BUILD) bash tests/valgrind.sh $(TEST_BIN)

# tsan: sweeps run configurations on several threads, which is safe only
# because the engine shares nothing mutable between runs.  This checks it
# under ThreadSanitizer with tests/test_sweep_threads.c, which uses plain
# POSIX threads: GLib's futex-based locks and g_slice's per-thread caches
# are invisible to TSan and give false reports (hence G_SLICE=always-malloc
# and only this test).
tsan:
	$(Q)$(MAKE) --no-print-directory BUILD=build-tsan \
	  CFLAGS="-O1 -g -fsanitize=thread" build-tsan/tests/test_sweep_threads
	$(Q)G_SLICE=always-malloc TSAN_OPTIONS="halt_on_error=1" \
	  build-tsan/tests/test_sweep_threads

# test: everything CI runs, one stage after the other.  Each stage builds
# on every core (JOBS) unless make was already given -j.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PAR = $(if $(findstring -j,$(MAKEFLAGS)),,-j$(JOBS))
test:
	$(Q)$(MAKE) --no-print-directory format-check
	$(Q)$(MAKE) --no-print-directory $(PAR) check
	$(Q)$(MAKE) --no-print-directory $(PAR) asan
	$(Q)$(MAKE) --no-print-directory $(PAR) valgrind
	$(Q)$(MAKE) --no-print-directory $(PAR) tsan
	$(Q)$(MAKE) --no-print-directory $(PAR) fuzz-ci

# fuzz: libFuzzer (clang) with ASan + UBSan, float-cast-overflow included
# (gcc's UBSan does not check it), one binary per input reader
# (tests/fuzz/fuzz_target.c); tests/fuzz/run.sh gathers seeds, replays
# tests/data/fuzz/<target>/ and fuzzes.  Library objects are built with
# clang into build-fuzz/ (clang warnings are not errors there).
FUZZ_CC      ?= $(shell command -v clang-14 || command -v clang)
FUZZ_TARGETS := scenario run model detect nvprof nsys_csv nsys_sqlite ncu kineto
FUZZ_SAN     := -fsanitize=address,undefined,float-cast-overflow \
                -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_SECONDS ?= 300
FUZZ_CI_SECONDS ?= 20
fuzz-build:
	$(Q)$(MAKE) --no-print-directory BUILD=build-fuzz CC=$(FUZZ_CC) WERROR= \
	  CFLAGS="-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)" \
	  $(FUZZ_TARGETS:%=build-fuzz/fuzz_%)
$(FUZZ_TARGETS:%=build-fuzz/fuzz_%): build-fuzz/fuzz_%: tests/fuzz/fuzz_target.c $(LIB)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -DFUZZ_$* -o $@ $< $(LIB) $(LDLIBS)
fuzz: fuzz-build
	$(Q)bash tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)
fuzz-ci: fuzz-build
	$(Q)FUZZ_SEED=1 bash tests/fuzz/run.sh build-fuzz $(FUZZ_CI_SECONDS) $(FUZZ_TARGETS)

bench: $(BUILD)/hqsim $(BENCH_BIN)
	$(Q)HQSIM=$(BUILD)/hqsim BUILD=$(BUILD) bash bench/run.sh

validate: $(BUILD)/hqsim
	$(Q)$(BUILD)/hqsim validate traces/measured/h100

# check-layers: no folder includes a header of a folder above it
# (cli -> api -> plan -> {import, viz} -> sim; tests/check_layers.sh).
check-layers:
	$(Q)bash tests/check_layers.sh

check-headers:
	$(Q)for h in $(wildcard $(addsuffix /*.h,$(LIB_DIRS) $(CLI_DIR) include)); do \
	  echo "#include \"$$h\"" | $(CC) $(ALL_CFLAGS) -x c -fsyntax-only - \
	  || exit 1; done

# Style: .clang-format, for clang-format 14 (Debian 12's; another version
# may wrap differently, so the binary is pinned).  Files still listed in
# .clang-format-ignore deviate and await one reformatting commit
# (format-all); every other file must match (format-check, run by make test).
CLANG_FORMAT ?= clang-format-14
FORMAT_SRC := $(sort $(wildcard $(addsuffix /*.[ch],$(LIB_DIRS) $(CLI_DIR) include) tests/*.[ch] bench/*.c))
FORMAT_IGNORED := $(shell sed -e '/^\#/d' -e '/^$$/d' .clang-format-ignore 2>/dev/null)
FORMAT_CHECKED := $(filter-out $(FORMAT_IGNORED),$(FORMAT_SRC))
format:
	$(CLANG_FORMAT) -i $(FORMAT_CHECKED)

format-check:
	$(Q)$(CLANG_FORMAT) --dry-run --Werror $(FORMAT_CHECKED) && \
	  echo "format-check: $(words $(FORMAT_CHECKED)) files match .clang-format ($(words $(filter $(FORMAT_SRC),$(FORMAT_IGNORED))) listed in .clang-format-ignore)"

format-all:
	$(CLANG_FORMAT) -i $(FORMAT_SRC)
	sed -i '/^[^#]/d' .clang-format-ignore

# install: the layout of an autotools package.  DESTDIR stages the tree
# (packaging); PREFIX is where it will live.  tests/test_install.sh installs
# into a temporary prefix and runs the installed binary from elsewhere.
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
DATADIR     ?= $(PREFIX)/share
MANDIR      ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
# The public API's header (include/hqsim.h): the library's whole surface.
INSTALL_HEADERS ?= include/hqsim.h
INSTALL ?= install
# What is installed is linked apart, in $(INST): the one object that
# compiles the models' folder in (sim/gpu_model.c, HQSIM_DATADIR: the
# installed binary and library look in $(DATADIR)/hqsim/models) is rebuilt
# whenever that folder changes; every other object is the build tree's.
INST := $(BUILD)/install
INST_DATADIR = $(DATADIR)/hqsim
$(INST)/datadir.stamp: FORCE
	@mkdir -p $(@D)
	@echo '$(INST_DATADIR)' | cmp -s - $@ || echo '$(INST_DATADIR)' >$@
$(INST)/gpu_model.o: sim/gpu_model.c $(INST)/datadir.stamp
	@$(if $(Q),echo "  CC      $< (installed)")
	$(Q)$(CC) $(ALL_CFLAGS) -DHQSIM_DATADIR='"$(INST_DATADIR)"' -c $< -o $@
$(INST)/libhqsim.a: $(filter-out $(BUILD)/sim/gpu_model.o,$(LIB_OBJ)) $(INST)/gpu_model.o
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^
$(INST)/pic/gpu_model.o: sim/gpu_model.c $(INST)/datadir.stamp
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $< (installed, PIC)")
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -DHQSIM_DATADIR='"$(INST_DATADIR)"' -c $< -o $@
$(INST)/$(SONAME).$(SO_MINOR): $(filter-out $(BUILD)/pic/sim/gpu_model.o,$(SO_OBJ)) $(INST)/pic/gpu_model.o api/libhqsim.map
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -shared -Wl,-soname,$(SONAME) \
	  -Wl,--version-script=api/libhqsim.map -Wl,--no-undefined \
	  -o $@ $(filter %.o,$^) $(LDLIBS)
$(INST)/hqsim: $(CLI_OBJ) $(INST)/libhqsim.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)
install: $(INST)/hqsim $(INST)/libhqsim.a $(INST)/$(SONAME).$(SO_MINOR)
	$(Q)$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
	  $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(DATADIR)/hqsim/models \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	$(Q)$(INSTALL) -m 755 $(INST)/hqsim $(DESTDIR)$(BINDIR)/hqsim
	$(Q)$(INSTALL) -m 644 models/*.json $(DESTDIR)$(DATADIR)/hqsim/models/
	$(Q)$(INSTALL) -m 644 $(INST)/libhqsim.a $(DESTDIR)$(LIBDIR)/
	$(Q)$(INSTALL) -m 755 $(INST)/$(SONAME).$(SO_MINOR) $(DESTDIR)$(LIBDIR)/
	$(Q)ln -sf $(SONAME).$(SO_MINOR) $(DESTDIR)$(LIBDIR)/$(SONAME) && \
	  ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libhqsim.so
	$(Q)$(INSTALL) -m 644 $(INSTALL_HEADERS) $(DESTDIR)$(INCLUDEDIR)/
	$(Q)v=$$($(INST)/hqsim --version | awk '{print $$2}'); \
	  sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	      -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@DATADIR@|$(DATADIR)|' \
	      -e "s|@VERSION@|$$v|" -e 's|@PRIVATE@|$(PKGS)|' doc/hqsim.pc.in \
	  > $(DESTDIR)$(LIBDIR)/pkgconfig/hqsim.pc && \
	  bash doc/man.sh $(INST)/hqsim "$$v" > $(DESTDIR)$(MANDIR)/man1/hqsim.1
	$(Q)$(INSTALL) -m 644 contrib/hqsim.bash $(DESTDIR)$(BASHCOMPDIR)/hqsim
	$(Q)$(INSTALL) -d $(DESTDIR)$(DATADIR)/doc/hqsim
	$(Q)$(INSTALL) -m 644 LICENSE README.md $(DESTDIR)$(DATADIR)/doc/hqsim/

echo:
	@echo "CC=$(CC)"; echo "CFLAGS=$(ALL_CFLAGS)"; echo "LDLIBS=$(LDLIBS)"

clean:
	rm -rf build build-asan build-tsan build-fuzz

-include $(shell find $(BUILD) build-asan -name '*.d' 2>/dev/null)
.SECONDARY:
