# ldlpgs -- every entry point: make, make test, make demo, make generate,
# make deps, make bench. Builds into build/ (build/san/ for the sanitizer run).

#---- settings ---------------------------------------------------------------
CC      ?= cc
BUILD   ?= build
SAN     ?= 0
OPT     ?= -O2 -g
WARN    := -Wall -Wextra -Wpedantic -Werror -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes
# Same floating-point operations everywhere: no contraction into FMA, no
# fast-math (docs/DESIGN.md section 5).
FPFLAGS := -ffp-contract=off
# The runtime's factorization thread (runtime/worker.c).
THREADS := -pthread
CFLAGS_ALL = -std=c11 $(OPT) $(WARN) $(FPFLAGS) $(THREADS) -MMD -MP $(SANFLAGS)
ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
# The libFuzzer build (make fuzz, clang): coverage for the fuzzer, same sanitizers.
ifeq ($(SAN),fuzz)
SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif

# Recursively expanded: pkg-config runs only after `make deps` installed it.
LUA_CFLAGS    = $(shell pkg-config --cflags lua5.4)
LUA_LIBS      = $(shell pkg-config --libs lua5.4)
CMOCKA_CFLAGS = $(shell pkg-config --cflags cmocka)
CMOCKA_LIBS   = $(shell pkg-config --libs cmocka)

DEB_PACKAGES := lua5.4 liblua5.4-dev libcmocka-dev pkg-config clang valgrind

#---- sources -----------------------------------------------------------------
RT_SRC    := $(sort $(wildcard runtime/*.c runtime/joints/*.c))
GEN_SRC   := $(sort $(filter-out gen/main.c,$(wildcard gen/*.c)))
SIM_SRC   := $(sort $(wildcard sim/*.c))
TEST_SRC  := $(sort $(wildcard tests/test_*.c))
TESTS     := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
# Fuzz targets (tests/fuzz/fuzz_NAME.c); in every build each is also linked
# with tests/fuzz/replay.c as $(BUILD)/tests/fuzz_NAME, which make test runs
# over the seed corpus and the regressions.
FUZZ_TARGETS := load pipeline drive
FUZZ_REPLAYS := $(patsubst %,$(BUILD)/tests/fuzz_%,$(FUZZ_TARGETS))
RT_OBJ    := $(patsubst %.c,$(BUILD)/obj/%.o,$(RT_SRC))
GEN_OBJ   := $(patsubst %.c,$(BUILD)/obj/%.o,$(GEN_SRC))
SIM_OBJ   := $(patsubst %.c,$(BUILD)/obj/%.o,$(SIM_SRC))
MECHS     := $(sort $(wildcard mechanisms/*.lua))
# Templates built into ldlgen (tools/embed turns them into C).
TEMPLATES := $(sort $(wildcard templates/*.lua templates/*.tpl))
GEN_OBJ   += $(BUILD)/obj/templates_embed.o

.PHONY: all build-all deps test check check-layers tests-run demo clean valgrind valgrind-run stats bench-factor generate generate-all check-generated random-check random-sweep fuzz fuzz-deps fuzz-build FORCE
.DEFAULT_GOAL := all

all: deps
	@$(MAKE) --no-print-directory build-all

build-all: $(BUILD)/ldlgen $(BUILD)/ldlsim $(TESTS) $(FUZZ_REPLAYS)

#---- dependencies (Debian packages) ------------------------------------------
# Installs only what is missing; `apt-get update` once, first.
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null || exit 1; \
	fi

#---- libraries and programs --------------------------------------------------
$(BUILD)/obj/runtime/%.o: runtime/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include -c $< -o $@

$(BUILD)/obj/gen/%.o: gen/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include $(LUA_CFLAGS) -c $< -o $@

# sim/ (the simulation harness) builds on gen and the runtime.
$(BUILD)/obj/sim/%.o: sim/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include -Igen $(LUA_CFLAGS) -c $< -o $@

$(BUILD)/obj/tests/%.o: tests/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include -Igen -Isim $(LUA_CFLAGS) $(CMOCKA_CFLAGS) \
	  -DLDLGEN_PATH='"$(abspath $(BUILD))/ldlgen"' -DSRC_DIR='"$(abspath .)"' -c $< -o $@

# The templates as C arrays (tpl_embedded, gen/template.h).
$(BUILD)/embed: tools/embed.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $< -o $@

$(BUILD)/templates_embed.c: $(BUILD)/embed $(TEMPLATES)
	$(BUILD)/embed $@ $(TEMPLATES)

$(BUILD)/obj/templates_embed.o: $(BUILD)/templates_embed.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Igen -c $< -o $@

$(BUILD)/librt.a: $(RT_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libgen.a: $(GEN_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libsim.a: $(SIM_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/ldlgen: $(BUILD)/obj/gen/main.o $(BUILD)/libgen.a $(BUILD)/librt.a
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) -lm -o $@

$(BUILD)/obj/tools/%.o: tools/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include -Igen -Isim $(LUA_CFLAGS) -c $< -o $@

$(BUILD)/ldlsim: $(BUILD)/obj/tools/ldlsim.o $(BUILD)/obj/tools/ldlsim_check.o $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) -lm -o $@

$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a | $(BUILD)/ldlgen
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) $(CMOCKA_LIBS) -lm -o $@

#---- generated programs ----------------------------------------------------------
# generated/NAME.c|.h for every mechanisms/NAME.lua (unrolled, float): what
# a game compiles. ldlgen leaves a file whose bytes would not change alone.
generate: deps
	@$(MAKE) --no-print-directory generate-all

generate-all: $(BUILD)/ldlgen
	@mkdir -p generated
	@set -e; for m in $(MECHS); do n=$$(basename $$m .lua); \
	  echo "ldlgen $$m -o generated/$$n.c"; $(BUILD)/ldlgen $$m -o generated/$$n.c; done

# Regenerates into a scratch directory and compares with generated/, then
# compiles every generated file standalone with gcc and clang.
GEN_CHECK_FLAGS := -std=c11 -Wall -Wextra -Wpedantic -Werror -ffp-contract=off -Iruntime/include
check-generated: $(BUILD)/ldlgen
	@rm -rf $(BUILD)/regen && mkdir -p $(BUILD)/regen
	@set -e; for m in $(MECHS); do n=$$(basename $$m .lua); \
	  $(BUILD)/ldlgen $$m -o $(BUILD)/regen/$$n.c; done
	@stale=""; for f in $$( (ls $(BUILD)/regen; ls generated 2>/dev/null) | grep '\.[ch]$$' | sort -u); do \
	  cmp -s $(BUILD)/regen/$$f generated/$$f || stale="$$stale $$f"; done; \
	if [ -n "$$stale" ]; then echo "generated sources are stale: run make generate"; \
	  echo "  (differs:$$stale)"; exit 1; fi
	@set -e; for f in generated/*.c; do for cc in gcc clang; do \
	  $$cc $(GEN_CHECK_FLAGS) -O2 -c $$f -o $(BUILD)/regen/check.o; done; done
	@echo "generated/ is up to date and compiles with gcc and clang"

# The generated code linked into tests/test_generated, compared bitwise with
# the interpreter: every sample in float and double, plus the dense
# (unshattered) multi_wheel, generated at build time.
GENTEST_DIR   := $(BUILD)/gentest
GENTEST_SEEDS := 1 2 3 4 5 6
GENTEST_NAMES := $(foreach m,$(MECHS),$(basename $(notdir $(m)))_float $(basename $(notdir $(m)))_double) \
                 multi_wheel_dense_float multi_wheel_dense_double \
                 $(foreach k,$(GENTEST_SEEDS),random$(k)_float random$(k)_double)
GENTEST_OBJ   := $(patsubst %,$(BUILD)/obj/gentest/%.o,$(GENTEST_NAMES)) $(BUILD)/obj/gentest/programs.o

GENTEST_SAMPLE_C := $(foreach m,$(MECHS),$(GENTEST_DIR)/$(basename $(notdir $(m)))_float.c \
                      $(GENTEST_DIR)/$(basename $(notdir $(m)))_double.c)
GENTEST_DENSE_C  := $(GENTEST_DIR)/multi_wheel_dense_float.c $(GENTEST_DIR)/multi_wheel_dense_double.c

# Static pattern rules: they apply to these files only (make's built-in
# rules would otherwise chain into them when remaking the .d files).
$(filter %_float.c,$(GENTEST_SAMPLE_C)): $(GENTEST_DIR)/%_float.c: mechanisms/%.lua $(BUILD)/ldlgen
	@mkdir -p $(dir $@)
	$(BUILD)/ldlgen $< -o $@ --precision float --prefix $*_float
$(filter %_double.c,$(GENTEST_SAMPLE_C)): $(GENTEST_DIR)/%_double.c: mechanisms/%.lua $(BUILD)/ldlgen
	@mkdir -p $(dir $@)
	$(BUILD)/ldlgen $< -o $@ --precision double --prefix $*_double
# The dense vehicle with a small statement budget: pivots split into parts.
$(GENTEST_DENSE_C): $(GENTEST_DIR)/multi_wheel_dense_%.c: mechanisms/multi_wheel.lua $(BUILD)/ldlgen
	@mkdir -p $(dir $@)
	$(BUILD)/ldlgen $< -o $@ --shatter off --budget 24 --precision $* --prefix multi_wheel_dense_$*
# Random mechanisms (tests/data/random_mechanism.lua with SEED = k).
$(GENTEST_DIR)/random%.lua: tests/data/random_mechanism.lua
	@mkdir -p $(dir $@)
	@{ echo "SEED = $*"; cat $<; } > $@
$(GENTEST_DIR)/random%_float.c: $(GENTEST_DIR)/random%.lua $(BUILD)/ldlgen
	$(BUILD)/ldlgen $< -o $@ --precision float --prefix random$*_float
$(GENTEST_DIR)/random%_double.c: $(GENTEST_DIR)/random%.lua $(BUILD)/ldlgen
	$(BUILD)/ldlgen $< -o $@ --precision double --prefix random$*_double
# The list of programs (rewritten only when the sample list changes).
$(GENTEST_DIR)/programs.c: FORCE
	@mkdir -p $(dir $@)
	@{ echo '#include "rt.h"'; \
	  for n in $(GENTEST_NAMES); do echo "extern const rt_program $${n}_program;"; done; \
	  echo "extern const rt_program *const gentest_programs[];"; \
	  echo "const rt_program *const gentest_programs[] = {"; \
	  for n in $(GENTEST_NAMES); do echo "    &$${n}_program,"; done; \
	  echo "    0,"; echo "};"; } > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
FORCE:
# Under SAN=1 the generated code gets AddressSanitizer only: UBSan has little
# to check in straight-line float code and multiplies its compile time.
GENTEST_CFLAGS = $(if $(filter 1,$(SAN)),$(filter-out $(SANFLAGS),$(CFLAGS_ALL)) \
                 -fsanitize=address -fno-omit-frame-pointer,$(CFLAGS_ALL))
$(GENTEST_OBJ): $(BUILD)/obj/gentest/%.o: $(GENTEST_DIR)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(GENTEST_CFLAGS) -Iruntime/include -c $< -o $@
.SECONDARY: $(patsubst %,$(GENTEST_DIR)/%.c,$(GENTEST_NAMES)) $(patsubst %,$(GENTEST_DIR)/random%.lua,$(GENTEST_SEEDS))

# Generated code picks its vector width at compile time (16-byte vectors,
# or 32 under AVX): a few of the programs again with -mavx2, renamed
# NAME_avx, so test_generated also checks the AVX kernels bitwise against
# the interpreter (when the CPU has AVX2). x86-64 only.
GENTEST_AVX_NAMES := $(if $(filter x86_64,$(shell uname -m)),track_double multi_wheel_float \
                     multi_wheel_dense_double scissor_lift_double random1_float random3_double)
GENTEST_AVX_OBJ   := $(patsubst %,$(BUILD)/obj/gentest_avx/%.o,$(GENTEST_AVX_NAMES)) \
                     $(BUILD)/obj/gentest_avx/programs_avx.o
$(patsubst %,$(BUILD)/obj/gentest_avx/%.o,$(GENTEST_AVX_NAMES)): $(BUILD)/obj/gentest_avx/%.o: $(GENTEST_DIR)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(GENTEST_CFLAGS) -mavx2 -D$*_program=$*_avx_program -Iruntime/include -c $< -o $@
$(GENTEST_DIR)/programs_avx.c: FORCE
	@mkdir -p $(dir $@)
	@{ echo '#include "rt.h"'; \
	  for n in $(GENTEST_AVX_NAMES); do echo "extern const rt_program $${n}_avx_program;"; done; \
	  echo "extern const rt_program *const gentest_programs_avx[];"; \
	  echo "const rt_program *const gentest_programs_avx[] = {"; \
	  for n in $(GENTEST_AVX_NAMES); do echo "    &$${n}_avx_program,"; done; \
	  echo "    0,"; echo "};"; } > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
$(BUILD)/obj/gentest_avx/programs_avx.o: $(GENTEST_DIR)/programs_avx.c
	@mkdir -p $(dir $@)
	$(CC) $(GENTEST_CFLAGS) -Iruntime/include -c $< -o $@
$(BUILD)/tests/test_generated: $(GENTEST_OBJ) $(GENTEST_AVX_OBJ)
# test_cli, test_limits and test_outfile run ldlsim too.
$(BUILD)/tests/test_cli $(BUILD)/tests/test_limits $(BUILD)/tests/test_outfile: | $(BUILD)/ldlsim

#---- tests ---------------------------------------------------------------------
# make test: the cmocka suite, the layering check, the generated/ check,
# then the suite built with ASan + UBSan; builds run on every core (JOBS).
# The suite under valgrind's memcheck is `make valgrind` (CI runs it after
# make test). make check: the quick local loop (build, suite, layers).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

test: deps
	@$(MAKE) --no-print-directory -j$(JOBS) build-all
	@$(MAKE) --no-print-directory tests-run check-layers
	@$(MAKE) --no-print-directory check-generated
	@$(MAKE) --no-print-directory -j$(JOBS) BUILD=build/san SAN=1 OPT="-O1 -g" build-all
	@$(MAKE) --no-print-directory BUILD=build/san SAN=1 OPT="-O1 -g" tests-run
	@$(MAKE) --no-print-directory BUILD=build/san SAN=1 OPT="-O1 -g" random-check

check: deps
	@$(MAKE) --no-print-directory -j$(JOBS) build-all
	@$(MAKE) --no-print-directory tests-run check-layers

tests-run: build-all
	@set -e; for t in $(TESTS); do echo "== $$t"; \
	  ASAN_OPTIONS=detect_leaks=1 $$t; done
	@set -e; for t in $(FUZZ_TARGETS); do echo "== $(BUILD)/tests/fuzz_$$t"; \
	  ASAN_OPTIONS=detect_leaks=1 $(BUILD)/tests/fuzz_$$t tests/fuzz/corpus/$$t tests/fuzz/regressions/$$t; done
	@echo "all test programs passed ($(words $(TESTS)) programs and $(words $(FUZZ_TARGETS)) fuzz replays, $(BUILD))"

# Random mechanisms (tests/data/random_mechanism.lua: trees, rings,
# shattered hubs, every constraint type, inequality rows) through ldlgen,
# gcc, clang and ldlsim of $(BUILD), every sanitizer error fatal, the
# generated programs held to the interpreter and the residual bound
# (tests/random_sweep.sh). make test runs RANDOM_SEEDS on the ASan + UBSan
# build (a ring, a hub, trees; test_generated has seeds 1-6; 42 once made
# ldlgen memcpy from NULL); make random-sweep runs 300 seeds.
RANDOM_SEEDS ?= 7 8 9 42
random-check: $(BUILD)/ldlgen $(BUILD)/ldlsim $(BUILD)/obj/tests/random_check.o $(BUILD)/librt.a
	@CC="$(CC)" CFLAGS="$(CFLAGS_ALL)" LIBS="$(CMOCKA_LIBS) -lm" GEN_CHECK_FLAGS="$(GEN_CHECK_FLAGS)" \
	  sh tests/random_sweep.sh -j $(JOBS) $(BUILD) $(RANDOM_SEEDS)

random-sweep: deps
	@$(MAKE) --no-print-directory -j$(JOBS) BUILD=build/san SAN=1 OPT="-O1 -g" build-all
	@$(MAKE) --no-print-directory BUILD=build/san SAN=1 OPT="-O1 -g" random-check RANDOM_SEEDS="$$(seq 1 300)"

#---- fuzzing (libFuzzer, clang) ---------------------------------------------------
# make fuzz FUZZ_SECONDS=N: each target of FUZZ_TARGETS for N seconds, built
# with clang -fsanitize=fuzzer,address,undefined into build/fuzz/; seeds:
# tests/fuzz/corpus/NAME, the regressions, and the samples and fixtures.
# What it finds grows build/fuzz/corpus/NAME; an input that crashes, leaks,
# times out or runs out of memory is copied into tests/fuzz/regressions/NAME/
# (commit it: make test replays it from then on) and the run fails.
FUZZ_SECONDS ?= 60
FUZZ_BUILD   := build/fuzz
FUZZ_DEB_PACKAGES := clang libclang-rt-14-dev
FUZZ_SEEDS_load     := mechanisms tests/data tests/data/bad
FUZZ_SEEDS_pipeline := mechanisms tests/data
FUZZ_SEEDS_drive    := mechanisms

fuzz-deps:
	@missing=""; for p in $(FUZZ_DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null || exit 1; \
	fi

$(BUILD)/tests/fuzz_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/obj/tests/fuzz/replay.o $(BUILD)/libsim.a \
                       $(BUILD)/libgen.a $(BUILD)/librt.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) -lm -o $@

$(BUILD)/fuzz/%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer $^ $(LUA_LIBS) -lm -o $@

fuzz-build: $(patsubst %,$(BUILD)/fuzz/%,$(FUZZ_TARGETS))

fuzz: deps fuzz-deps
	@$(MAKE) --no-print-directory -j$(JOBS) BUILD=$(FUZZ_BUILD) SAN=fuzz CC=clang OPT="-O1 -g" fuzz-build
	@failed=""; for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/crashes/$$t tests/fuzz/regressions/$$t; \
	  echo "== fuzz $$t for $(FUZZ_SECONDS) s"; \
	  seeds=""; for s in tests/fuzz/corpus/$$t tests/fuzz/regressions/$$t; do \
	    [ -d $$s ] && seeds="$$seeds $$s"; done; \
	  case $$t in load) seeds="$$seeds $(FUZZ_SEEDS_load)";; pipeline) seeds="$$seeds $(FUZZ_SEEDS_pipeline)";; \
	    drive) seeds="$$seeds $(FUZZ_SEEDS_drive)";; esac; \
	  ASAN_OPTIONS=detect_leaks=1 $(FUZZ_BUILD)/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=20 \
	    -rss_limit_mb=2560 -max_len=65536 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_BUILD)/crashes/$$t/ $(FUZZ_BUILD)/corpus/$$t $$seeds \
	    > $(FUZZ_BUILD)/$$t.log 2>&1 || failed="$$failed $$t"; \
	  grep -E "^(stat::number_of_executed_units|stat::new_units_added|Done)" $(FUZZ_BUILD)/$$t.log || true; \
	  for c in $(FUZZ_BUILD)/crashes/$$t/*; do [ -f "$$c" ] || continue; \
	    cp "$$c" tests/fuzz/regressions/$$t/ && echo "kept $$c in tests/fuzz/regressions/$$t/"; rm -f "$$c"; done; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzzing found inputs that fail:$$failed (logs: $(FUZZ_BUILD)/*.log;" \
	  "commit tests/fuzz/regressions/)"; exit 1; fi; \
	echo "fuzzing found nothing in $(FUZZ_SECONDS) s per target"

# The runtime uses neither gen/, sim/ nor Lua, and its files call each
# other in no circle (tools/check_layers.sh reads the objects).
check-layers: build-all
	@tools/check_layers.sh $(BUILD)

# The suite under valgrind's memcheck.
valgrind: deps
	@$(MAKE) --no-print-directory -j$(JOBS) build-all
	@$(MAKE) --no-print-directory valgrind-run

valgrind-run: build-all
	@set -e; for t in $(TESTS); do echo "== valgrind $$t"; \
	  valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite $$t; done
	@echo "all test programs passed under valgrind ($(words $(TESTS)) programs)"

#---- samples -------------------------------------------------------------------
# Statistics table of every sample mechanism.
stats: all
	@build/ldlgen --table $(MECHS)

# The demo: the generated scissor-lift and buggy solvers compiled in with
# the runtime; the lift raises its 800 kg platform to the end of its stroke,
# the buggy drives and steers (mechanisms/buggy.drive), each for 10 s with
# LDL-PGS and with pure PGS at the same iteration count: side-by-side
# tables, and build/demo-out/*.svg plots of the constraint error.
demo: all
	@$(MAKE) --no-print-directory $(BUILD)/demo
	@$(BUILD)/demo --out $(BUILD)/demo-out

$(BUILD)/obj/generated/%.o: generated/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include -c $< -o $@

$(BUILD)/obj/tools/demo.o: tools/demo.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include -Igen -Isim -Igenerated $(LUA_CFLAGS) -c $< -o $@

$(BUILD)/demo: $(BUILD)/obj/tools/demo.o $(BUILD)/obj/tools/svgplot.o $(BUILD)/obj/generated/scissor_lift.o \
               $(BUILD)/obj/generated/buggy.o \
               $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) -lm -o $@

# Factor time of the generated sample programs, unrolled vs tables (interpreter).
bench-factor: all
	@$(MAKE) --no-print-directory $(BUILD)/bench/factor_time
	@$(BUILD)/bench/factor_time

$(BUILD)/bench/factor_time: bench/factor_time.c $(GENTEST_OBJ) $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include -Igen -Isim $< $(GENTEST_OBJ) $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a $(LUA_LIBS) -lm -o $@

clean:
	rm -rf build

include bench/bench.mk

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
