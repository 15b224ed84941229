# ldlpgs -- every entry point: make, make test, make demo, make generate,
# make deps, make bench. Builds into build/ (build/san/ for the sanitizer run).

#---- settings ---------------------------------------------------------------
CC      ?= cc
# The target instruction set (README, "Which build to ship"): portable (the
# x86-64 / compiler baseline), avx2 (x86-64 from 2013 on: Haswell, Zen) or
# avx512 (only where every target machine has AVX-512). Contraction stays
# off (FPFLAGS), so every ARCH computes bitwise the same results; each ARCH
# builds into its own directory so objects never mix.
ARCH    ?= portable
ARCH_FLAGS_portable :=
ARCH_FLAGS_avx2     := -mavx2 -mfma -fno-tree-slp-vectorize
ARCH_FLAGS_avx512   := -mavx2 -mfma -mavx512f -mavx512dq -mavx512vl -mavx512bw -mavx512cd -mprefer-vector-width=256 -fno-tree-slp-vectorize
ARCHES  := portable avx2 avx512
ifeq ($(filter $(ARCHES),$(ARCH)),)
$(error ARCH=$(ARCH) is not a build target: use ARCH=portable (default), ARCH=avx2 or ARCH=avx512)
endif
# $(call vzeroupper_fix,TARGET_FLAGS): -fno-ipa-ra for gcc when the target
# flags enable AVX, else nothing. gcc 12 omits the vzeroupper before a
# sibling call to a static function that uses no AVX register, so a
# generated function that used them (the tank's scalar solve, ending in a
# tail call of a 128-bit kernel) returns with the registers' upper halves
# dirty; every legacy-SSE instruction after it -- libm's, e.g. fmax -- then
# pays the SSE/AVX transition. Measured with ARCH=avx512 before 7b75dba took
# fmax out of the runtime's hot loops: the convoy's 8 tanks took 47 ms a step
# instead of 9.8 ms (both sides alike; the bits do not change); since then
# about the same with or without the flag, but the libm calls left (rows,
# contacts, collision) still run after such a return. -fno-ipa-ra makes gcc
# put the vzeroupper back. Every AVX build has it (ARCHFLAGS), and make
# bench-batch's own objects.
vzeroupper_fix = $(if $(filter -mavx%,$(1)),$(shell $(CC) -Werror -fno-ipa-ra -fsyntax-only -x c /dev/null \
                   2>/dev/null && echo -fno-ipa-ra))
ARCHFLAGS := $(ARCH_FLAGS_$(ARCH)) $(call vzeroupper_fix,$(ARCH_FLAGS_$(ARCH)))
ifeq ($(ARCH),portable)
BUILD   ?= build
else
BUILD   ?= build/$(ARCH)
endif
SAN     ?= 0
OPT     ?= -O2 -g
WARN    := -Wall -Wextra -Wpedantic -Werror -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes
# Same floating-point operations everywhere: no contraction into FMA, no
# fast-math (docs/DESIGN.md section 5).
FPFLAGS := -ffp-contract=off
# The runtime's factorization thread (runtime/worker.c).
THREADS := -pthread
CFLAGS_ALL = -std=c11 $(OPT) $(ARCHFLAGS) $(WARN) $(FPFLAGS) $(THREADS) -MMD -MP $(SANFLAGS)
# The sanitizer build also fills the joint frame rows a constraint type did
# not ask for with NaN (runtime/joint.c), so a type that reads one fails the tests.
ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -DLDLPGS_CHECK_FRAMES
endif
# The libFuzzer build (make fuzz, clang): coverage for the fuzzer, same sanitizers.
ifeq ($(SAN),fuzz)
SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
# What a second build of a source leaves out under SAN=1 (NT_RTFLAGS,
# GENVARIANT_CFLAGS): the source's first build is the sanitized one.
SAN_OFF = $(if $(filter 1,$(SAN)),$(SANFLAGS))

# Recursively expanded: pkg-config runs only after `make deps` installed it.
LUA_CFLAGS    = $(shell pkg-config --cflags lua5.4)
LUA_LIBS      = $(shell pkg-config --libs lua5.4)
CMOCKA_CFLAGS = $(shell pkg-config --cflags cmocka)
CMOCKA_LIBS   = $(shell pkg-config --libs cmocka)

DEB_PACKAGES := lua5.4 liblua5.4-dev libcmocka-dev pkg-config clang valgrind chromium tcc g++ cmake
# The viewer's npm packages (three.js, esbuild, gltf-validator,
# playwright-core: versions pinned by its package-lock.json).
VIEWER_DIR := tools/viewer

#---- sources -----------------------------------------------------------------
RT_SRC    := $(sort $(wildcard runtime/*.c runtime/joints/*.c))
GEN_SRC   := $(sort $(filter-out gen/main.c,$(wildcard gen/*.c)))
SIM_SRC   := $(sort $(wildcard sim/*.c))
TEST_SRC  := $(sort $(wildcard tests/test_*.c))
TESTS     := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC)) $(BUILD)/tests/test_cxx \
             $(BUILD)/tests/test_rt_batch_portable
# Fuzz targets (tests/fuzz/fuzz_NAME.c); in every build each is also linked
# with tests/fuzz/replay.c as $(BUILD)/tests/fuzz_NAME, which make test and test-san run
# over the seed corpus and the regressions.
FUZZ_TARGETS := load pipeline drive gdiff
FUZZ_REPLAYS := $(patsubst %,$(BUILD)/tests/fuzz_%,$(FUZZ_TARGETS))
RT_OBJ    := $(patsubst %.c,$(BUILD)/obj/%.o,$(RT_SRC))
GEN_OBJ   := $(patsubst %.c,$(BUILD)/obj/%.o,$(GEN_SRC))
SIM_OBJ   := $(patsubst %.c,$(BUILD)/obj/%.o,$(SIM_SRC))
MECHS     := $(sort $(wildcard mechanisms/*.lua))
# Templates built into ldlgen (tools/embed turns them into C).
TEMPLATES := $(sort $(wildcard templates/*.lua templates/*.tpl))
GEN_OBJ   += $(BUILD)/obj/templates_embed.o

.PHONY: all build-all deps test test-san check check-arch check-bitwise check-fma check-layers tests-run demo clean valgrind valgrind-run stats bench-factor generate generate-all check-generated check-view soak soak-short random-check random-sweep fuzz fuzz-deps fuzz-build FORCE \
        install install-files uninstall test-install test-install-run
.DEFAULT_GOAL := all

all: deps
	@$(MAKE) --no-print-directory build-all

build-all: $(BUILD)/ldlgen $(BUILD)/ldlsim $(BUILD)/soak $(TESTS) $(FUZZ_REPLAYS)

#---- dependencies (Debian packages, the viewer's npm packages) -----------------
# Installs only what is missing; `apt-get update` once, first. Node and npm
# come from Debian (nodejs, npm) unless a node and an npm are on PATH
# already (e.g. from NodeSource). Then `npm ci` in tools/viewer, again only
# when package.json or package-lock.json changed.
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	command -v node >/dev/null 2>&1 || missing="$$missing nodejs"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null || exit 1; \
	fi
	@$(MAKE) --no-print-directory -s $(VIEWER_DIR)/node_modules/.installed

$(VIEWER_DIR)/node_modules/.installed: $(VIEWER_DIR)/package.json $(VIEWER_DIR)/package-lock.json
	cd $(VIEWER_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

#---- libraries and programs --------------------------------------------------
# The runtime one step higher than -O2 (RT_OPT, appended: the last -O
# counts): gcc unrolls and vectorizes its loops over rows, bodies and S's
# columns there, with the same bits (make check-bitwise builds -O0..-O3).
# Measured, make bench-cg's window, instructions a step: scissor lift
# 831k -> 770k, car 184k -> 166k, chain 57.5k -> 52.7k, tank 7.04M ->
# 6.83M; against QuickStep 10 in one process (make bench-build && bench
# --step-only, four runs each): lift 1.28-1.43x -> 1.25-1.33x, car
# 1.01-1.02x -> 0.91-1.01x. Generated programs keep OPT: -O3 measures
# the same as -O2 there (README, "Compile flags"). -fno-math-errno: the
# runtime never reads errno, so sqrt is the one instruction, without the
# libm call that sets errno for a negative argument (the same values; the
# lift's step 1k instructions fewer in make bench-cg's window).
RT_OPT = $(if $(filter -O2,$(OPT)),-O3) -fno-math-errno
$(BUILD)/obj/runtime/%.o: runtime/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(RT_OPT) -Iruntime/include -c $< -o $@

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

# The runtime built with LDLPGS_NO_THREADS (no factorization thread, no
# pthread, no atomics; a threaded setting is refused with RT_ERR_THREAD),
# for tests/test_nothreads. Its objects must reference no pthread symbol,
# and so built the runtime must compile with tcc too (no C11 atomics there).
# Under SAN=1 its objects are a second build of the runtime's sources,
# which the sanitized runtime covers: no sanitizer (its compiler time in
# make test-san's build 26 s -> 10 s); the test itself (NT_CFLAGS) keeps them.
NT_CFLAGS  = $(filter-out -pthread,$(CFLAGS_ALL)) -DLDLPGS_NO_THREADS
NT_RTFLAGS = $(filter-out $(SAN_OFF),$(NT_CFLAGS))
NT_OBJ   := $(patsubst %.c,$(BUILD)/obj/nothreads/%.o,$(RT_SRC))
$(BUILD)/obj/nothreads/runtime/%.o: runtime/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(NT_RTFLAGS) $(RT_OPT) -Iruntime/include -c $< -o $@

$(BUILD)/nothreads/librt.a: $(NT_OBJ)
	@mkdir -p $(dir $@)
	@if nm -u $^ | grep pthread; then echo "the LDLPGS_NO_THREADS runtime references pthread"; exit 1; fi
	@set -e; for f in $(RT_SRC); do \
	  $(TCC) -std=c11 -Wall -Werror -DLDLPGS_NO_THREADS -Iruntime/include -c $$f -o $(dir $@)tcc.o; done; rm -f $(dir $@)tcc.o
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/ldlgen: $(BUILD)/obj/gen/main.o $(BUILD)/libgen.a $(BUILD)/librt.a
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) -lm -o $@

$(BUILD)/obj/tools/%.o: tools/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include -Igen -Isim $(LUA_CFLAGS) -c $< -o $@

$(BUILD)/ldlsim: $(BUILD)/obj/tools/ldlsim.o $(BUILD)/obj/tools/ldlsim_check.o $(BUILD)/obj/viewer/viewer_page.o \
                $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) -lm -o $@

# The viewer's page template: three.js and tools/viewer/src bundled into one
# HTML page (tools/viewer/build.mjs, node), as a C array for ldlsim and demo
# (sim/viewer.h). Needs `make deps` (tools/viewer/node_modules).
VIEWER_SRC := $(VIEWER_DIR)/build.mjs $(sort $(wildcard $(VIEWER_DIR)/src/*))
$(BUILD)/viewer/viewer_page.c: $(VIEWER_SRC) $(VIEWER_DIR)/package-lock.json
	@mkdir -p $(dir $@)
	node $(VIEWER_DIR)/build.mjs $(BUILD)/viewer

$(BUILD)/obj/viewer/viewer_page.o: $(BUILD)/viewer/viewer_page.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include -Igen -Isim -c $< -o $@
$(BUILD)/soak: $(BUILD)/obj/tools/soak.o $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) -lm -o $@

$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a | $(BUILD)/ldlgen
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) $(CMOCKA_LIBS) -lm $(TEST_LDFLAGS) -o $@

#---- make check-arch: the AVX builds compute the portable build's bits -------
# For each AVX target the CPU runs (avx2; avx512 where /proc/cpuinfo lists
# avx512f): builds it beside the default build (build/ARCH), runs its
# test_batch (batch programs bitwise against the scalar ones, with that
# target's lanes), and compares ldlsim's per-step CSV and poses of the driven
# tank (double and float factor) byte for byte with the portable build's:
# with -ffp-contract=off, the target flags must not change a single bit.
# Not part of make test (a second full build per target); .ci/run runs it.
CHECK_ARCH_DIR := build/check-arch
CHECK_ARCHES   := $(foreach a,avx2 avx512,$(if $(shell grep -qw $(subst avx512,avx512f,$(a)) /proc/cpuinfo 2>/dev/null && echo y),$(a)))
check-arch: deps
	@$(MAKE) --no-print-directory -j2 build/ldlsim
	@$(if $(CHECK_ARCHES),,echo "check-arch: this CPU has no AVX2: nothing to compare")
	@set -e; for a in $(CHECK_ARCHES); do \
	  $(MAKE) --no-print-directory -j2 ARCH=$$a build/$$a/ldlsim build/$$a/tests/test_batch; \
	  build/$$a/tests/test_batch; done
	@mkdir -p $(CHECK_ARCH_DIR)
	@set -e; for prec in double float; do for b in build $(patsubst %,build/%,$(CHECK_ARCHES)); do \
	  o=$(CHECK_ARCH_DIR)/$$(echo $$b | tr / _)_$$prec; \
	  $$b/ldlsim mechanisms/tank.lua --drive mechanisms/tank.drive --steps 600 --precision $$prec \
	    --csv $$o.csv --poses $$o.poses.csv > $$o.txt; done; \
	  for a in $(CHECK_ARCHES); do \
	    cmp $(CHECK_ARCH_DIR)/build_$$prec.csv $(CHECK_ARCH_DIR)/build_$${a}_$$prec.csv; \
	    cmp $(CHECK_ARCH_DIR)/build_$$prec.poses.csv $(CHECK_ARCH_DIR)/build_$${a}_$$prec.poses.csv; done; done
	@$(if $(CHECK_ARCHES),echo "check-arch: $(CHECK_ARCHES): test_batch passed; tank CSV and poses (600 steps, double and float) identical to the portable build")

#---- generated programs ----------------------------------------------------------
# generated/NAME.c|.h for every mechanisms/NAME.lua (unrolled, float): what
# a game compiles. ldlgen leaves a file whose bytes would not change alone.
generate: deps
	@$(MAKE) --no-print-directory generate-all

generate-all: $(BUILD)/ldlgen
	@mkdir -p generated
	@echo "ldlgen --kernels-header runtime/include/rt_kernels.h"; $(BUILD)/ldlgen --kernels-header runtime/include/rt_kernels.h
	@set -e; for m in $(MECHS); do n=$$(basename $$m .lua); \
	  echo "ldlgen $$m -o generated/$$n.c"; $(BUILD)/ldlgen $$m -o generated/$$n.c; done

# Regenerates into a scratch directory and compares with generated/, then
# compiles every generated file standalone with gcc and clang, and its
# plain-C branch (no vector types) with gcc -DLDLPGS_NO_VECTOR and tcc; the
# same for every sample's mechanism file of ldlgen --mechanism-out, and the
# chain's program file beside it.
GEN_CHECK_FLAGS := -std=c11 -Wall -Wextra -Wpedantic -Werror -ffp-contract=off -Iruntime/include
check-generated: $(BUILD)/ldlgen
	@rm -rf $(BUILD)/regen && mkdir -p $(BUILD)/regen
	@set -e; for m in $(MECHS); do n=$$(basename $$m .lua); \
	  $(BUILD)/ldlgen $$m -o $(BUILD)/regen/$$n.c; done
	@$(BUILD)/ldlgen --kernels-header $(BUILD)/regen/rt_kernels.h
	@stale=""; for f in $$( (ls $(BUILD)/regen; ls generated 2>/dev/null) | grep '\.[ch]$$' | grep -v '^rt_kernels\.h$$' | sort -u); do \
	  cmp -s $(BUILD)/regen/$$f generated/$$f || stale="$$stale $$f"; done; \
	cmp -s $(BUILD)/regen/rt_kernels.h runtime/include/rt_kernels.h || stale="$$stale runtime/include/rt_kernels.h"; \
	if [ -n "$$stale" ]; then echo "generated sources are stale: run make generate"; \
	  echo "  (differs:$$stale)"; exit 1; fi
	@mkdir -p $(BUILD)/regen/split; set -e; for m in $(MECHS); do n=$$(basename $$m .lua); \
	  $(BUILD)/ldlgen $$m -o $(BUILD)/regen/split/$$n.c --mechanism-out $(BUILD)/regen/split/$${n}_mech.c 2>/dev/null; done
	@FLAGS="$(GEN_CHECK_FLAGS)" TCC="$(TCC)" tools/compile_check.sh $(JOBS) $(BUILD)/regen/cc generated/*.c
	@FLAGS="$(GEN_CHECK_FLAGS)" TCC="$(TCC)" tools/compile_check.sh $(JOBS) $(BUILD)/regen/split/cc \
	  $(BUILD)/regen/split/*_mech.c $(BUILD)/regen/split/chain.c
	@echo "generated/ is up to date and compiles with gcc and clang, and as plain C with gcc and tcc (so do the samples' --mechanism-out files)"

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
# $(call gentest_list,ARRAY,SUFFIX,NAMES): the recipe of a C file that
# lists NAME$(SUFFIX)_program for every NAME in the null-ended array ARRAY,
# and in ARRAY_worlds the mechanism each file holds beside it (its _desc,
# _settings and _create; the struct is test_generated.c's gentest_world),
# rewritten only when it changes.
define gentest_list
	@mkdir -p $(dir $@)
	@{ echo '#include "rt_world.h"'; \
	  echo 'typedef struct gentest_world { const rt_world_desc *desc; const rt_settings *settings;'; \
	  echo '  rt_world *(*create)(const rt_settings *, rt_status *); } gentest_world;'; \
	  for n in $(3); do echo "extern const rt_program $${n}$(2)_program;"; \
	    echo "extern const rt_world_desc $${n}$(2)_desc;"; echo "extern const rt_settings $${n}$(2)_settings;"; \
	    echo "rt_world *$${n}$(2)_create(const rt_settings *, rt_status *);"; done; \
	  echo "extern const rt_program *const $(1)[];"; \
	  echo "const rt_program *const $(1)[] = {"; \
	  for n in $(3); do echo "    &$${n}$(2)_program,"; done; \
	  echo "    0,"; echo "};"; \
	  echo "extern const gentest_world $(1)_worlds[];"; \
	  echo "const gentest_world $(1)_worlds[] = {"; \
	  for n in $(3); do echo "    {&$${n}$(2)_desc, &$${n}$(2)_settings, $${n}$(2)_create},"; done; \
	  echo "    {0, 0, 0},"; echo "};"; } > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
endef
# $(call gentest_rename,NAME,SUFFIX): -D flags that rename the objects a
# generated file exports, so that a second build of it links beside the first.
gentest_rename = -D$(1)_program=$(1)$(2)_program -D$(1)_desc=$(1)$(2)_desc \
                 -D$(1)_settings=$(1)$(2)_settings -D$(1)_create=$(1)$(2)_create

# The list of programs (rewritten only when the sample list changes).
$(GENTEST_DIR)/programs.c: FORCE
	$(call gentest_list,gentest_programs,,$(GENTEST_NAMES))
FORCE:
# Under SAN=1 the generated code gets AddressSanitizer only: UBSan has little
# to check in straight-line float code and multiplies its compile time.
# GEN_FAST: the generated programs are most of the build's time, and with -g
# most of theirs goes to GCC's tracking of where each variable lives
# (var-tracking-assignments: generated/scissor_lift.c under the sanitizers
# 18.1 s -> 8.7 s, at -O2 4.1 s -> 2.6 s); their line tables stay. Only GCC
# has the option, so it is asked for only where $(CC) takes it.
GEN_FAST := $(shell $(CC) -fno-var-tracking-assignments -x c -c /dev/null -o /dev/null 2>/dev/null && \
              echo -fno-var-tracking-assignments)
GENTEST_CFLAGS = $(GENVARIANT_CFLAGS) $(if $(filter 1,$(SAN)),-fsanitize=address -fno-omit-frame-pointer)
# Under SAN=1, the second builds of a generated source (its AVX, plain-C
# and RT_BATCH_PORTABLE variants, and generated/'s files, which gentest's
# samples repeat) get no sanitizer: the ASan build of each source is
# gentest's (or the batch's vector one), and an ASan build of a large
# generated file takes 2-3x the time of a plain one (these variants: 46 s
# -> 24 s of compiler time in make test-san's build; with NT_RTFLAGS above,
# 72 s -> 33 s). Their memory is also valgrind's in make valgrind.
GENVARIANT_CFLAGS = $(filter-out $(SAN_OFF),$(CFLAGS_ALL)) $(GEN_FAST)
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
	$(CC) $(GENVARIANT_CFLAGS) -mavx2 $(call gentest_rename,$*,_avx) -Iruntime/include -c $< -o $@
$(GENTEST_DIR)/programs_avx.c: FORCE
	$(call gentest_list,gentest_programs_avx,_avx,$(GENTEST_AVX_NAMES))
$(BUILD)/obj/gentest_avx/programs_avx.o: $(GENTEST_DIR)/programs_avx.c
	@mkdir -p $(dir $@)
	$(CC) $(GENTEST_CFLAGS) -Iruntime/include -c $< -o $@

# The plain-C branch (gen/target.h's first row: no vector types) of a few
# programs, held to the interpreter's bits the same way: compiled by $(CC)
# with -DLDLPGS_NO_VECTOR (NAME_novec), and by tcc, which has no vector
# extensions and picks the branch by itself (NAME_tcc; -fPIC: tcc's objects
# link into the position-independent test).
TCC ?= tcc
GENTEST_PLAIN_NAMES := track_double multi_wheel_float multi_wheel_dense_double scissor_lift_float \
                       random1_float random3_double
GENTEST_PLAIN_OBJ   := $(patsubst %,$(BUILD)/obj/gentest_novec/%.o,$(GENTEST_PLAIN_NAMES)) \
                       $(patsubst %,$(BUILD)/obj/gentest_tcc/%.o,$(GENTEST_PLAIN_NAMES)) \
                       $(BUILD)/obj/gentest_novec/programs_novec.o $(BUILD)/obj/gentest_tcc/programs_tcc.o
$(patsubst %,$(BUILD)/obj/gentest_novec/%.o,$(GENTEST_PLAIN_NAMES)): $(BUILD)/obj/gentest_novec/%.o: $(GENTEST_DIR)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(GENVARIANT_CFLAGS) -DLDLPGS_NO_VECTOR $(call gentest_rename,$*,_novec) -Iruntime/include -c $< -o $@
$(patsubst %,$(BUILD)/obj/gentest_tcc/%.o,$(GENTEST_PLAIN_NAMES)): $(BUILD)/obj/gentest_tcc/%.o: $(GENTEST_DIR)/%.c
	@mkdir -p $(dir $@)
	$(TCC) -std=c11 -Wall -Werror -fPIC $(call gentest_rename,$*,_tcc) -Iruntime/include -c $< -o $@
$(GENTEST_DIR)/programs_novec.c: FORCE
	$(call gentest_list,gentest_programs_novec,_novec,$(GENTEST_PLAIN_NAMES))
$(GENTEST_DIR)/programs_tcc.c: FORCE
	$(call gentest_list,gentest_programs_tcc,_tcc,$(GENTEST_PLAIN_NAMES))
$(BUILD)/obj/gentest_novec/programs_novec.o: $(GENTEST_DIR)/programs_novec.c
	@mkdir -p $(dir $@)
	$(CC) $(GENTEST_CFLAGS) -Iruntime/include -c $< -o $@
$(BUILD)/obj/gentest_tcc/programs_tcc.o: $(GENTEST_DIR)/programs_tcc.c
	@mkdir -p $(dir $@)
	$(CC) $(GENTEST_CFLAGS) -Iruntime/include -c $< -o $@
# Batch programs (ldlgen --batch N) held bitwise to the scalar programs
# above by tests/test_batch.c: BATCHTEST_MECHS (names without '_': a name is
# MECH_PRECISION_bLANES) in float and double with 4, 8 and 16 lanes, the
# buggy with a small statement budget (pivots split into parts), each
# compiled with rt_lanes.h's vector extensions and again with its plain-C
# fallback, RT_BATCH_PORTABLE, renamed NAME_portable_... The fallback is
# compiled at -O0: at -O2 gcc takes ~20 s on the 16-lane double buggy's
# loops over lanes, and the bits do not depend on it. (scissor_lift's
# 16-lane double batch alone takes 12 s of gcc -O2.) The chain's fallback
# runs its lanes in groups of 2 (RT_LANES_GROUP), the buggy's all at once;
# the vector build in groups as wide as the target's registers (rt_lanes.h).
BATCHTEST_MECHS := chain buggy
BATCHTEST_NAMES := $(foreach m,$(BATCHTEST_MECHS),$(foreach p,float double,$(foreach n,4 8 16,$(m)_$(p)_b$(n))))
BATCHTEST_DIR   := $(GENTEST_DIR)/batch
BATCHTEST_C     := $(patsubst %,$(BATCHTEST_DIR)/%.c,$(BATCHTEST_NAMES))
BATCHTEST_VOBJ  := $(patsubst %,$(BUILD)/obj/gentest_batch/%.o,$(BATCHTEST_NAMES))
BATCHTEST_POBJ  := $(patsubst %,$(BUILD)/obj/gentest_batch/%_portable.o,$(BATCHTEST_NAMES))
BATCHTEST_OBJ   := $(BATCHTEST_VOBJ) $(BATCHTEST_POBJ) $(BUILD)/obj/gentest_batch/batch_programs.o \
                   $(foreach m,$(BATCHTEST_MECHS),$(BUILD)/obj/gentest/$(m)_float.o $(BUILD)/obj/gentest/$(m)_double.o)
batchtest_word = $(word $(1),$(subst _, ,$(2)))
$(BATCHTEST_C): $(BATCHTEST_DIR)/%.c: $(BUILD)/ldlgen $(patsubst %,mechanisms/%.lua,$(BATCHTEST_MECHS))
	@mkdir -p $(dir $@)
	$(BUILD)/ldlgen mechanisms/$(call batchtest_word,1,$*).lua -o $@ --precision $(call batchtest_word,2,$*) \
	  --batch $(patsubst b%,%,$(call batchtest_word,3,$*)) --prefix $* \
	  $(if $(filter buggy,$(call batchtest_word,1,$*)),--budget 24)
$(BATCHTEST_VOBJ): $(BUILD)/obj/gentest_batch/%.o: $(BATCHTEST_DIR)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(GENTEST_CFLAGS) -Iruntime/include -c $< -o $@
$(BATCHTEST_POBJ): $(BUILD)/obj/gentest_batch/%_portable.o: $(BATCHTEST_DIR)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(GENVARIANT_CFLAGS) -O0 -DRT_BATCH_PORTABLE $(if $(filter chain_%,$*),-DRT_LANES_GROUP=2) \
	  $(call gentest_rename,$*,_portable) \
	  -D$*_batch_factor=$*_portable_batch_factor -D$*_batch_solve=$*_portable_batch_solve \
	  -D$*_batch_solve_forward=$*_portable_batch_solve_forward -D$*_batch_solve_backward=$*_portable_batch_solve_backward \
	  -D$*_batch=$*_portable_batch -Iruntime/include -c $< -o $@
# The list test_batch.c reads (its struct batchtest_program), rewritten
# only when it changes.
$(BATCHTEST_DIR)/batch_programs.c: FORCE
	@mkdir -p $(dir $@)
	@sh tests/batch_list.sh $(BATCHTEST_NAMES) > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
$(BUILD)/obj/gentest_batch/batch_programs.o: $(BATCHTEST_DIR)/batch_programs.c tests/batch_list.h
	@mkdir -p $(dir $@)
	$(CC) $(GENTEST_CFLAGS) -Iruntime/include -Itests -c $< -o $@
.SECONDARY: $(BATCHTEST_C)
# (the generated objects before the libraries: they call rt_world_create)
$(BUILD)/tests/test_batch $(BUILD)/tests/test_rt_batch: $(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(BATCHTEST_OBJ) \
                           $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a | $(BUILD)/ldlgen
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) $(CMOCKA_LIBS) -lm -o $@
# test_rt_batch again with the batch's plain-C paths (batch.c's lane copies
# and batch_pgs.c's sweeps without vector extensions, as tcc or MSVC build
# them), linked before the runtime so that their functions are the ones used.
$(BUILD)/obj/novec/runtime/%.o: runtime/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -DLDLPGS_NO_VECTOR -Iruntime/include -c $< -o $@
$(BUILD)/tests/test_rt_batch_portable: $(BUILD)/obj/tests/test_rt_batch.o $(BUILD)/obj/novec/runtime/batch.o \
                                       $(BUILD)/obj/novec/runtime/batch_pgs.o \
                                       $(BATCHTEST_OBJ) $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a | $(BUILD)/ldlgen
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) $(CMOCKA_LIBS) -lm -o $@
$(BUILD)/tests/test_generated: $(GENTEST_OBJ) $(GENTEST_AVX_OBJ) $(GENTEST_PLAIN_OBJ)
# (tcc's objects do not say that their stack needs no execute permission)
$(BUILD)/tests/test_generated: TEST_LDFLAGS = -Wl,-z,noexecstack
# test_nothreads links the runtime built without threads, and no -pthread.
$(BUILD)/tests/test_nothreads: $(BUILD)/obj/tests/test_nothreads.o $(BUILD)/libsim.a $(BUILD)/libgen.a \
                               $(BUILD)/nothreads/librt.a
	@mkdir -p $(dir $@)
	$(CC) $(NT_CFLAGS) $^ $(LUA_LIBS) $(CMOCKA_LIBS) -lm -o $@
# test_cxx: the public headers and two generated files (compiled as C)
# from a C++17 program.
CXXFLAGS_ALL = -std=c++17 $(OPT) $(ARCHFLAGS) -Wall -Wextra -Wpedantic -Werror $(FPFLAGS) -MMD -MP $(SANFLAGS)
$(BUILD)/obj/tests/test_cxx.o: tests/test_cxx.cpp Makefile
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS_ALL) -Iruntime/include -Igenerated -c $< -o $@
$(BUILD)/tests/test_cxx: $(BUILD)/obj/tests/test_cxx.o $(BUILD)/obj/generated/buggy.o \
                         $(BUILD)/obj/generated/scissor_lift.o $(BUILD)/librt.a
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS_ALL) $^ $(THREADS) -lm -o $@
# test_cli, test_gltf, test_limits and test_outfile run ldlsim too (test_cli soak as well); test_svgplot
# links the plotter.
$(BUILD)/tests/test_cli $(BUILD)/tests/test_limits $(BUILD)/tests/test_outfile: | $(BUILD)/ldlsim
$(BUILD)/tests/test_cli: | $(BUILD)/soak
$(BUILD)/tests/test_gltf: | $(BUILD)/ldlsim
$(BUILD)/tests/test_svgplot: $(BUILD)/obj/tools/svgplot.o
# test_pgs: the sweep against its reference (tests/pgs_check.c, which
# needs the libraries after it).
$(BUILD)/tests/test_pgs: $(BUILD)/obj/tests/test_pgs.o $(BUILD)/obj/tests/pgs_check.o $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a | $(BUILD)/ldlgen
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) $(CMOCKA_LIBS) -lm -o $@

# make check-bitwise: the PGS sweep (runtime/pgs.c) compiled by gcc and
# clang at -O0..-O3, and by gcc without its vector forms (-DPGS_SCALAR: what
# other compilers get), always with -ffp-contract=off, each build linked with
# the rest of the runtime: every build sweeps every sample's rows against the
# plain reference loop (tests/pgs_check.c) and prints a hash of the states;
# all must print the same.
BITWISE_DIR   := $(BUILD)/bitwise
BITWISE_BUILDS := $(foreach c,gcc clang,$(foreach o,O0 O1 O2 O3,$(c)-$(o))) gcc-O2-scalar
$(BITWISE_DIR)/librt_nopgs.a: $(BUILD)/librt.a
	@mkdir -p $(dir $@)
	@cp $< $@ && ar d $@ pgs.o
$(BITWISE_DIR)/pgs_%.o: runtime/pgs.c runtime/world.h Makefile
	@mkdir -p $(dir $@)
	$(word 1,$(subst -, ,$*)) -std=c11 -$(word 2,$(subst -, ,$*)) $(if $(word 3,$(subst -, ,$*)),-DPGS_SCALAR) \
	  $(WARN) $(FPFLAGS) $(THREADS) -Iruntime/include -c $< -o $@
$(BITWISE_DIR)/run_%: $(BITWISE_DIR)/pgs_%.o $(BUILD)/obj/tests/bitwise_main.o $(BUILD)/obj/tests/pgs_check.o $(BUILD)/libsim.a $(BUILD)/libgen.a $(BITWISE_DIR)/librt_nopgs.a
	$(CC) $(CFLAGS_ALL) $(BUILD)/obj/tests/bitwise_main.o $(BUILD)/obj/tests/pgs_check.o $< $(BUILD)/libsim.a \
	  $(BUILD)/libgen.a $(BITWISE_DIR)/librt_nopgs.a $(LUA_LIBS) -lm -o $@
.SECONDARY: $(patsubst %,$(BITWISE_DIR)/pgs_%.o,$(BITWISE_BUILDS)) $(BUILD)/obj/tests/bitwise_main.o \
            $(BUILD)/obj/tests/pgs_check.o
# The generated sweep and assembly (rt_program.sweep and .assemble,
# templates/sweep.tpl and assemble.tpl): a few
# generated programs compiled by gcc and clang at -O0..-O3, and as plain C
# (-DLDLPGS_NO_VECTOR), each build linked with the runtime as built: every
# build steps each program with its generated sweep and assembly and without them
# (tests/sweep_bitwise_main.c) and prints a hash of the states; all must
# print the same.
BITWISE_SWEEP_NAMES  := chain_double multi_wheel_float scissor_lift_double
BITWISE_SWEEP_BUILDS := $(foreach c,gcc clang,$(foreach o,O0 O1 O2 O3,$(c)-$(o))) gcc-O2-plain
$(BITWISE_DIR)/sweep_programs.c: FORCE
	$(call gentest_list,sweep_programs,,$(BITWISE_SWEEP_NAMES))
$(BITWISE_DIR)/sweep_%.a: $(patsubst %,$(GENTEST_DIR)/%.c,$(BITWISE_SWEEP_NAMES)) Makefile
	@mkdir -p $(BITWISE_DIR)/sweep_$*
	@set -e; for n in $(BITWISE_SWEEP_NAMES); do \
	  $(word 1,$(subst -, ,$*)) -std=c11 -$(word 2,$(subst -, ,$*)) $(if $(word 3,$(subst -, ,$*)),-DLDLPGS_NO_VECTOR) \
	    $(WARN) $(FPFLAGS) -Iruntime/include -c $(GENTEST_DIR)/$$n.c -o $(BITWISE_DIR)/sweep_$*/$$n.o; done
	@rm -f $@ && ar rcs $@ $(patsubst %,$(BITWISE_DIR)/sweep_$*/%.o,$(BITWISE_SWEEP_NAMES))
$(BITWISE_DIR)/sweep_run_%: $(BITWISE_DIR)/sweep_%.a $(BUILD)/obj/tests/sweep_bitwise_main.o $(BITWISE_DIR)/sweep_programs.c $(BUILD)/librt.a
	$(CC) $(CFLAGS_ALL) -Iruntime/include $(BUILD)/obj/tests/sweep_bitwise_main.o $(BITWISE_DIR)/sweep_programs.c $< \
	  $(BUILD)/librt.a -lm -o $@
.SECONDARY: $(patsubst %,$(BITWISE_DIR)/sweep_%.a,$(BITWISE_SWEEP_BUILDS)) $(BUILD)/obj/tests/sweep_bitwise_main.o

# No fused multiply-add in the runtime or sim compiled with the AVX
# builds' flags (tools/check_fma.sh: gcc 12's SLP vectorizer fused a*b +- c
# despite -ffp-contract=off, and ARCH=avx2 and avx512 left the portable
# build's bits; their flags carry -fno-tree-slp-vectorize). Compiles only:
# any x86-64 host runs it.
FMA_SRC := $(sort $(wildcard runtime/*.c runtime/joints/*.c sim/*.c))
check-fma:
	@set -e; $(foreach a,avx2 avx512,CC="$(CC)" LUA_CFLAGS="$(LUA_CFLAGS)" \
	  tools/check_fma.sh $(JOBS) $(BUILD)/check-fma/$(a) "$(ARCH_FLAGS_$(a))" $(FMA_SRC);)

check-bitwise: $(patsubst %,$(BITWISE_DIR)/run_%,$(BITWISE_BUILDS)) $(patsubst %,$(BITWISE_DIR)/sweep_run_%,$(BITWISE_SWEEP_BUILDS))
	@set -e; ref=""; for b in $(BITWISE_BUILDS); do \
	  out=$$($(BITWISE_DIR)/run_$$b $(abspath .)) || { echo "$$out"; echo "bitwise: $$b: a sweep differs from the reference"; exit 1; }; \
	  if [ -z "$$ref" ]; then ref="$$out"; elif [ "$$out" != "$$ref" ]; then \
	    echo "bitwise: $$b gives other states than $(firstword $(BITWISE_BUILDS))"; echo "$$out"; exit 1; fi; done; \
	echo "the sweep is bitwise the reference under $(BITWISE_BUILDS)"
	@set -e; ref=""; for b in $(BITWISE_SWEEP_BUILDS); do \
	  out=$$($(BITWISE_DIR)/sweep_run_$$b) || { echo "$$out"; echo "bitwise: $$b: the generated sweep differs from the generic one"; exit 1; }; \
	  if [ -z "$$ref" ]; then ref="$$out"; elif [ "$$out" != "$$ref" ]; then \
	    echo "bitwise: $$b's generated sweep gives other states than $(firstword $(BITWISE_SWEEP_BUILDS))'s"; echo "$$out"; exit 1; fi; done; \
	echo "the generated sweep and assembly ($(BITWISE_SWEEP_NAMES)) are bitwise the generic ones under $(BITWISE_SWEEP_BUILDS)"

#---- tests ---------------------------------------------------------------------
# make test: the cmocka suite, the layering check, the short soak, the
# generated/ check, the viewer's, the installed package (test-install) and
# the bitwise check of the sweep; builds run on every core (JOBS), and so
# do the checks after the suite, which share nothing (output kept per
# check). make test-san: the suite, the fuzz replays and random mechanisms
# built with ASan + UBSan (a second build of everything: as long again as
# make test, so apart from it; CI runs it after make test, then make
# valgrind, the suite under memcheck, and make fuzz). make check: the quick
# local loop (build, suite, layers).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SAN_MAKE = $(MAKE) --no-print-directory BUILD=build/san SAN=1 OPT="-O1 -g"

test: deps
	@$(MAKE) --no-print-directory -j$(JOBS) build-all
	@$(MAKE) --no-print-directory tests-run check-layers
	@$(MAKE) --no-print-directory -j$(JOBS) --output-sync=target soak-short check-view check-generated test-install-run \
	  check-bitwise check-fma
	@echo "make test passed; the suite under ASan + UBSan is make test-san (CI runs both)"

test-san: deps
	@$(SAN_MAKE) -j$(JOBS) build-all
	@$(SAN_MAKE) tests-run
	@$(SAN_MAKE) random-check

check: deps
	@$(MAKE) --no-print-directory -j$(JOBS) build-all
	@$(MAKE) --no-print-directory tests-run check-layers

# The test programs run $(JOBS) at a time (tools/run_tests.sh), their
# outputs printed whole and in order afterwards.
tests-run: build-all
	@$(if $(filter 1,$(SAN)),LDLPGS_TEST_SHORT=1) ASAN_OPTIONS=detect_leaks=1 \
	  tools/run_tests.sh $(JOBS) $(BUILD)/test-logs $(TESTS)
	@set -e; for t in $(FUZZ_TARGETS); do echo "== $(BUILD)/tests/fuzz_$$t"; \
	  ASAN_OPTIONS=detect_leaks=1 $(BUILD)/tests/fuzz_$$t tests/fuzz/corpus/$$t tests/fuzz/regressions/$$t; done
	@echo "all test programs passed ($(words $(TESTS)) programs and $(words $(FUZZ_TARGETS)) fuzz replays, $(BUILD))"

# Random mechanisms (tests/data/random_mechanism.lua: trees, rings,
# shattered hubs, every constraint type, inequality rows) through ldlgen,
# gcc, clang and ldlsim of $(BUILD), every sanitizer error fatal, the
# generated programs held to the interpreter and the residual bound
# (tests/random_sweep.sh). make test-san runs RANDOM_SEEDS on the ASan + UBSan
# build (a ring, a hub, trees; test_generated has seeds 1-6; 42 once made
# ldlgen memcpy from NULL); make random-sweep runs 300 seeds.
RANDOM_SEEDS ?= 7 8 9 42
random-check: $(BUILD)/ldlgen $(BUILD)/ldlsim $(BUILD)/obj/tests/random_check.o $(BUILD)/obj/tests/test_rt_batch.o \
              $(BUILD)/librt.a
	@CC="$(CC)" CFLAGS="$(CFLAGS_ALL)" LIBS="$(CMOCKA_LIBS) -lm" GEN_CHECK_FLAGS="$(GEN_CHECK_FLAGS)" \
	  sh tests/random_sweep.sh -j $(JOBS) $(BUILD) $(RANDOM_SEEDS)

random-sweep: deps
	@$(SAN_MAKE) -j$(JOBS) build-all
	@$(SAN_MAKE) random-check RANDOM_SEEDS="$$(seq -s ' ' 1 300)"

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
FUZZ_SEEDS_gdiff    := generated tests/golden

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
	    drive) seeds="$$seeds $(FUZZ_SEEDS_drive)";; gdiff) seeds="$$seeds $(FUZZ_SEEDS_gdiff)";; esac; \
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

# The glTF files of a few samples (every shape, a driven run, an exploded
# run) against the Khronos glTF validator, and the viewer's page in headless
# Chromium (tests/browser/): no console error, time advances, the frame is
# not blank; the screenshot is kept as build/view-check/viewer.png.
VIEW_DIR := $(BUILD)/view-check
check-view: $(BUILD)/ldlsim
	@rm -rf $(VIEW_DIR) && mkdir -p $(VIEW_DIR)
	@set -e; L=$(BUILD)/ldlsim; D=$(VIEW_DIR); \
	  $$L tests/data/shapes.lua --steps 120 --gltf $$D/shapes.glb >/dev/null; \
	  $$L mechanisms/scissor_lift.lua --steps 120 --gltf $$D/scissor_lift.glb >/dev/null; \
	  $$L mechanisms/buggy.lua --steps 240 --drive mechanisms/buggy.drive --gltf $$D/buggy.glb --gltf-every 4 >/dev/null; \
	  $$L mechanisms/tank.lua --steps 60 --gltf $$D/tank.glb >/dev/null; \
	  $$L mechanisms/chain.lua --solver pgs --gltf $$D/chain_pgs_exploded.glb >/dev/null; \
	  $$L mechanisms/scissor_lift.lua --solver both --steps 180 --html $$D/viewer.html >/dev/null
	@node tests/browser/validate_gltf.mjs $(VIEW_DIR)/*.glb
	@node tests/browser/viewer_test.mjs $(VIEW_DIR)/viewer.html $(VIEW_DIR)/viewer.png

# The suite under valgrind's memcheck.
valgrind: deps
	@$(MAKE) --no-print-directory -j$(JOBS) build-all
	@$(MAKE) --no-print-directory valgrind-run

valgrind-run: build-all
	@LDLPGS_TEST_SHORT=1 RUNNER="valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite" \
	  tools/run_tests.sh $(JOBS) $(BUILD)/valgrind-logs $(TESTS)
	@echo "all test programs passed under valgrind ($(words $(TESTS)) programs)"

#---- holding at rest ------------------------------------------------------------
# Every sample stands at rest for an hour: 216,000 steps at 60 Hz, float and
# double programs; fails if one gains 0.1 % of its energy, topples, wanders
# 5 cm along the ground or explodes (tools/soak.c says how it is measured).
# Several minutes.
soak: all
	@$(BUILD)/soak $(MECHS)

# The same for 30 s of each (a few seconds): part of `make test`.
soak-short: build-all
	@$(BUILD)/soak --steps 1800 $(MECHS)

#---- samples -------------------------------------------------------------------
# Statistics table of every sample mechanism.
stats: all
	@build/ldlgen --table $(MECHS)

# The demo: the generated scissor-lift, buggy, car, excavator and Stewart
# platform solvers compiled in with the runtime; the lift raises its 800 kg
# platform to the end of its stroke, the buggy drives and steers, the car
# drives over a bump on its sprung struts and brakes, the excavator holds
# and lifts its load, the Stewart platform pushes its legs into their
# stroke limits (mechanisms/NAME.drive), each for 10 s with LDL-PGS and
# with pure PGS at the same iteration count: side-by-side tables, and
# build/demo-out/*.svg plots of the constraint error. Then the convoy
# (tools/convoy.c): 8 tanks driven by mechanisms/convoy/tankK.drive in one
# rt_batch of 8 double lanes, against the same tanks stepped one by one:
# build/demo-out/convoy_paths.svg and convoy_tankK.csv. Then
# build/demo-out/viewer.html: every scene's runs and the convoy's tanks.
# It builds only what the demo links (not ldlgen's tests).
demo: deps
	@$(MAKE) --no-print-directory -j$(JOBS) $(BUILD)/demo
	@$(BUILD)/demo --out $(BUILD)/demo-out

$(BUILD)/obj/generated/%.o: generated/%.c
	@mkdir -p $(dir $@)
	$(CC) $(GENVARIANT_CFLAGS) -Iruntime/include -c $< -o $@

$(BUILD)/obj/tools/demo.o: tools/demo.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include -Igen -Isim -Igenerated $(LUA_CFLAGS) -c $< -o $@


# The convoy's batch program is generated at build time from the tank's
# mechanism file (generated/ holds the checked-in scalar float programs
# that make generate writes; a batch file of 8 double lanes is build output
# like any object), with its header, which convoy.c includes.
DEMO_GEN := $(BUILD)/demo-gen
$(DEMO_GEN)/tank_b8.c: mechanisms/tank.lua $(BUILD)/ldlgen
	@mkdir -p $(dir $@)
	$(BUILD)/ldlgen $< -o $@ --precision double --batch 8 --prefix tank_b8
$(BUILD)/obj/demo-gen/tank_b8.o: $(DEMO_GEN)/tank_b8.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include -c $< -o $@
$(BUILD)/obj/tools/convoy.o: tools/convoy.c $(DEMO_GEN)/tank_b8.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include -Igen -Isim -I$(DEMO_GEN) $(LUA_CFLAGS) -c $< -o $@

$(BUILD)/demo: $(BUILD)/obj/tools/demo.o $(BUILD)/obj/tools/svgplot.o $(BUILD)/obj/generated/scissor_lift.o \
               $(BUILD)/obj/generated/buggy.o $(BUILD)/obj/generated/car.o $(BUILD)/obj/generated/excavator.o \
               $(BUILD)/obj/generated/stewart.o $(BUILD)/obj/viewer/viewer_page.o \
               $(BUILD)/obj/tools/convoy.o $(BUILD)/obj/demo-gen/tank_b8.o \
               $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) -lm -o $@

# Factor time of the generated sample programs, unrolled vs tables (interpreter).
bench-factor: all
	@$(MAKE) --no-print-directory $(BUILD)/bench/factor_time
	@$(BUILD)/bench/factor_time

$(BUILD)/bench/factor_time: bench/factor_time.c $(GENTEST_OBJ) $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include -Igen -Isim $< $(GENTEST_OBJ) $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a $(LUA_LIBS) -lm -o $@

#---- install -----------------------------------------------------------------
# make install PREFIX=/usr/local DESTDIR=: ldlgen and ldlsim, the templates
# (for ldlgen --templates; ldlgen has them built in), libldlpgs.a and the
# versioned libldlpgs.so (the runtime built with -fPIC; only the public rt_
# names exported: dist/ldlpgs.map), the public headers under
# include/ldlpgs/, ldlpgs.pc and the CMake package (dist/cmake/). Every
# file, link and directory it creates is recorded in MANIFEST, which make
# uninstall (same PREFIX and DESTDIR) reads to remove exactly those
# (dist/install.sh).
PREFIX       ?= /usr/local
DESTDIR      ?=
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
DATADIR      ?= $(PREFIX)/share
VERSION      := 0.1.0
SOVERSION    := 0
TEMPLATESDIR  = $(DATADIR)/ldlpgs/templates
MANIFEST      = $(DATADIR)/ldlpgs/install-manifest
PUBLIC_HEADERS := $(sort $(wildcard runtime/include/*.h))

PIC_OBJ := $(patsubst %.c,$(BUILD)/obj/pic/%.o,$(RT_SRC))
$(BUILD)/obj/pic/runtime/%.o: runtime/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(RT_OPT) -fPIC -Iruntime/include -c $< -o $@

$(BUILD)/libldlpgs.a: $(PIC_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libldlpgs.so.$(VERSION): $(PIC_OBJ) dist/ldlpgs.map
	$(CC) $(CFLAGS_ALL) -shared -Wl,-soname,libldlpgs.so.$(SOVERSION) -Wl,--version-script=dist/ldlpgs.map \
	  -Wl,-z,defs $(PIC_OBJ) -lm -o $@

# dist/*.in with the install paths filled in.
DIST_SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
                 -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@TEMPLATESDIR@|$(TEMPLATESDIR)|g' \
                 -e 's|@VERSION@|$(VERSION)|g' -e 's|@SOVERSION@|$(SOVERSION)|g'

install: deps
	@$(MAKE) --no-print-directory install-files

install-files: $(BUILD)/ldlgen $(BUILD)/ldlsim $(BUILD)/libldlpgs.a $(BUILD)/libldlpgs.so.$(VERSION)
	@case "$(PREFIX)" in /*) ;; *) echo "make install: PREFIX must be an absolute path, not '$(PREFIX)'"; exit 2;; esac
	@mkdir -p $(BUILD)/dist
	@$(DIST_SUBST) dist/ldlpgs.pc.in > $(BUILD)/dist/ldlpgs.pc
	@$(DIST_SUBST) dist/cmake/ldlpgsConfig.cmake.in > $(BUILD)/dist/ldlpgsConfig.cmake
	@$(DIST_SUBST) dist/cmake/ldlpgsConfigVersion.cmake.in > $(BUILD)/dist/ldlpgsConfigVersion.cmake
	@echo "installing into $(DESTDIR)$(PREFIX):"
	@{ echo "file 755 $(BUILD)/ldlgen $(BINDIR)/ldlgen"; \
	  echo "file 755 $(BUILD)/ldlsim $(BINDIR)/ldlsim"; \
	  for t in $(TEMPLATES); do echo "file 644 $$t $(TEMPLATESDIR)/$$(basename $$t)"; done; \
	  echo "file 644 $(BUILD)/libldlpgs.a $(LIBDIR)/libldlpgs.a"; \
	  echo "file 755 $(BUILD)/libldlpgs.so.$(VERSION) $(LIBDIR)/libldlpgs.so.$(VERSION)"; \
	  echo "link libldlpgs.so.$(VERSION) $(LIBDIR)/libldlpgs.so.$(SOVERSION)"; \
	  echo "link libldlpgs.so.$(SOVERSION) $(LIBDIR)/libldlpgs.so"; \
	  for h in $(PUBLIC_HEADERS); do echo "file 644 $$h $(INCLUDEDIR)/ldlpgs/$$(basename $$h)"; done; \
	  echo "file 644 $(BUILD)/dist/ldlpgs.pc $(LIBDIR)/pkgconfig/ldlpgs.pc"; \
	  echo "file 644 $(BUILD)/dist/ldlpgsConfig.cmake $(LIBDIR)/cmake/ldlpgs/ldlpgsConfig.cmake"; \
	  echo "file 644 $(BUILD)/dist/ldlpgsConfigVersion.cmake $(LIBDIR)/cmake/ldlpgs/ldlpgsConfigVersion.cmake"; \
	} | sh dist/install.sh install "$(DESTDIR)" "$(MANIFEST)"
	@# the dynamic linker's cache, for a system library directory (/usr/local/lib)
	@if [ -z "$(DESTDIR)" ] && [ -n "$(filter /usr/%,$(LIBDIR))" ] && [ "$$(id -u)" = 0 ] && \
	  command -v ldconfig > /dev/null; then ldconfig; fi

uninstall:
	@sh dist/install.sh uninstall "$(DESTDIR)" "$(MANIFEST)"

# The example game (examples/) built against the installed package, twice:
# installed into a temporary prefix, then built with Make + pkg-config and
# with CMake from a copy of examples/ (outside the main build), both run
# and their outputs compared; the CMake build is run again after touching
# a mechanism and the installed templates (ldlgen must run again each
# time); then uninstalled, which must leave nothing behind.
TI := $(abspath $(BUILD))/test-install
test-install: deps
	@$(MAKE) --no-print-directory test-install-run

test-install-run:
	@rm -rf $(TI) && mkdir -p $(TI)
	@$(MAKE) --no-print-directory -j$(JOBS) install-files PREFIX=$(TI)/prefix DESTDIR= > $(TI)/install.log
	@cp -R examples $(TI)/src
	@echo "test-install: the example with make + pkg-config"
	@PKG_CONFIG_PATH=$(TI)/prefix/lib/pkgconfig $(MAKE) --no-print-directory --no-silent -C $(TI)/src BUILD=$(TI)/make \
	  > $(TI)/make.log 2>&1 || { cat $(TI)/make.log; exit 1; }
	@$(TI)/make/example > $(TI)/make.out
	@echo "test-install: the example with cmake"
	@cmake -S $(TI)/src -B $(TI)/cmake -DCMAKE_PREFIX_PATH=$(TI)/prefix -DCMAKE_BUILD_TYPE=Release \
	  > $(TI)/cmake.log 2>&1 || { cat $(TI)/cmake.log; exit 1; }
	@cmake --build $(TI)/cmake -j$(JOBS) >> $(TI)/cmake.log 2>&1 || { cat $(TI)/cmake.log; exit 1; }
	@$(TI)/cmake/example > $(TI)/cmake.out
	@cmp $(TI)/make.out $(TI)/cmake.out || { echo "test-install: the two builds print different poses"; \
	  diff $(TI)/make.out $(TI)/cmake.out | head; exit 1; }
	@grep -q "crane" $(TI)/make.out && grep -q "rover" $(TI)/make.out
	@touch $(TI)/src/crane.lua && cmake --build $(TI)/cmake > $(TI)/rebuild.log 2>&1
	@grep -q "ldlgen crane.lua" $(TI)/rebuild.log || { echo "test-install: a changed mechanism was not regenerated"; exit 1; }
	@touch $(TI)/prefix/share/ldlpgs/templates/kernels.tpl && cmake --build $(TI)/cmake > $(TI)/rebuild.log 2>&1
	@grep -q "ldlgen rover.lua" $(TI)/rebuild.log || { echo "test-install: changed templates did not regenerate"; exit 1; }
	@cmake --build $(TI)/cmake > $(TI)/rebuild.log 2>&1
	@! grep -q "ldlgen" $(TI)/rebuild.log || { echo "test-install: ldlgen ran with nothing changed"; exit 1; }
	@sleep 1; sed -i 's/name = "hook", mass = 300,/name = "hook", mass = 310,/' $(TI)/src/crane.lua
	@cmake --build $(TI)/cmake > $(TI)/rebuild.log 2>&1
	@grep -q "crane_mech.c.o" $(TI)/rebuild.log && ! grep -q "/crane.c.o" $(TI)/rebuild.log || \
	  { echo "test-install: cmake: a changed mass should rebuild crane_mech.c alone"; cat $(TI)/rebuild.log; exit 1; }
	@PKG_CONFIG_PATH=$(TI)/prefix/lib/pkgconfig $(MAKE) --no-print-directory --no-silent -C $(TI)/src BUILD=$(TI)/make > $(TI)/rebuild.log 2>&1
	@grep -q "crane_mech.c -o" $(TI)/rebuild.log && ! grep -q "/crane.c -o" $(TI)/rebuild.log || \
	  { echo "test-install: make: a changed mass should rebuild crane_mech.c alone"; cat $(TI)/rebuild.log; exit 1; }
	@$(MAKE) --no-print-directory uninstall PREFIX=$(TI)/prefix DESTDIR= > $(TI)/uninstall.log
	@if [ -e $(TI)/prefix ]; then echo "test-install: uninstall left:"; find $(TI)/prefix; exit 1; fi
	@echo "test-install: installed $$(tail -1 $(TI)/install.log | cut -d' ' -f2) files; the example built with make and cmake prints the same poses, a mass edit rebuilds the crane's mechanism file alone; uninstalled"

clean:
	rm -rf build

include bench/bench.mk

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
