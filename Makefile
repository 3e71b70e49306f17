# hqsim -- one non-recursive Makefile.  Builds out of tree in $(BUILD).
#
#   make            build build/hqsim
#   make demo       build and run the default before/after-MPS comparison
#   make test       unit + end-to-end tests, then the same under ASan/UBSan,
#                   then under valgrind (what CI runs)
#   make check      unit + end-to-end tests only (fast)
#   make asan       the sanitizer build and its tests (build-asan/)
#   make valgrind   unit tests and a few end-to-end runs under valgrind
#   make tsan       the engine's reentrancy under ThreadSanitizer (build-tsan/)
#   make bench      performance benchmarks (not tests)
#   make validate   accuracy table against the measured H100 data
#   make fuzz       libFuzzer targets, FUZZ_SECONDS each (default 300)
#   make fuzz-ci    the same, FUZZ_CI_SECONDS each (20): part of make test
#   make V=1        show full commands

BUILD    ?= build
CC       ?= cc
WERROR   ?= -Werror
# fontconfig: cairo's text goes through it; plan/sweep_plot.c calls FcFini
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

.PHONY: all demo check test asan valgrind tsan bench validate clean echo \
        fuzz fuzz-ci fuzz-build \
        format format-check check-headers check-layers
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

# check: unit tests (cmocka), then end-to-end tests on the real binary,
# then the Python binding against the binary (tests/test_python.py; it
# loads libhqsim.so into python3, so sanitizer builds set PY_TEST=).
PY_TEST ?= 1
check: $(BUILD)/hqsim $(TEST_BIN) check-layers $(if $(PY_TEST),$(SO))
	$(Q)HQSIM=$(BUILD)/hqsim BUILD=$(BUILD) bash tests/run_all.sh $(TEST_BIN)
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
	$(Q)$(MAKE) --no-print-directory $(PAR) check
	$(Q)$(MAKE) --no-print-directory $(PAR) asan
	$(Q)$(MAKE) --no-print-directory $(PAR) valgrind
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

format:
	clang-format -i $(wildcard $(addsuffix /*.[ch],$(LIB_DIRS) $(CLI_DIR) include) tests/*.c bench/*.c)

format-check:
	clang-format --dry-run --Werror $(wildcard $(addsuffix /*.[ch],$(LIB_DIRS) $(CLI_DIR) include) tests/*.c bench/*.c)

echo:
	@echo "CC=$(CC)"; echo "CFLAGS=$(ALL_CFLAGS)"; echo "LDLIBS=$(LDLIBS)"

clean:
	rm -rf build build-asan build-tsan build-fuzz

-include $(shell find $(BUILD) build-asan -name '*.d' 2>/dev/null)
.SECONDARY:
