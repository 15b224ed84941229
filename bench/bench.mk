# bench/bench.mk -- `make bench`: the generated programs against SuiteSparse
# LDL, CHOLMOD, LAPACK and METIS (issue 5). Included by the Makefile.
#
#   make bench                      the samples (mechanisms/*.lua), the scaling series,
#                                   then ldlgen's own growth (bench/scale.sh)
#   make bench-scale                ldlgen's growth table alone: bench/results/scale.md
#   make bench MECHS="a.lua b.lua"  the same, plus these mechanism files
#   make bench BENCH_ARGS=--quick   fewer runs and batches (see bench/bench.c)
#   make bench-cg                   instructions per whole step under callgrind,
#                                   every method against ODE and MuJoCo (stepcg.c)
#   make bench-renames              every sample's constraints and bodies renamed in turn:
#                                   renames that change lines without the name
#                                   (bench/results/renames.md)
#   make bench-inequality           the step with limits, motors and springs coupled
#                                   (Schur complement) against the equality-only step,
#                                   and their violations: bench/results/inequality.md
#                                   (bench/inequality/ineq.h)
#   make bench-build && build/bench/bench --step-only [--quick] [MECH.lua...]
#                                   the full step alone (fullstep.c), printed,
#                                   no report written: seconds, not minutes
#
# Every benchmarked mechanism is compiled by ldlgen into build/bench/gen/
# (unrolled, float and double; the series in double), each file compiled
# under bench/cputime so its CPU time is recorded (the samples a second time
# with -mavx2 on x86-64, see BENCH_AVX2_FLAGS), and all of them are
# linked into build/bench/bench with a registry (build/bench/programs.c).
# Results: bench/results/latest.md and latest.json, and README.md's table.

.PHONY: bench bench-deps bench-build bench-cg bench-batch bench-inequality bench-locality bench-renames bench-scale

BENCH_DEB_PACKAGES := libsuitesparse-dev libopenblas-dev liblapacke-dev libmetis-dev libode-dev libmujoco-dev valgrind
BENCH_DIR          := $(BUILD)/bench
BENCH_JOBS         ?= $(shell nproc 2>/dev/null || echo 2)
BENCH_ARGS         ?=
BENCH_SAMPLES      := $(sort $(wildcard mechanisms/*.lua) $(MECHS))
BENCH_TRACK_PLATES := 40 80 160 320 640
BENCH_LIFT_STAGES  := 4 8 16 32

# The generated programs are compiled the way the tests compile theirs
# (GENTEST_CFLAGS), without debug information or dependency files.
BENCH_GEN_CFLAGS = $(filter-out -g -MMD -MP $(GEN_FAST),$(GENTEST_CFLAGS)) -Iruntime/include
BENCH_INC        := -Iruntime/include -Igen -Isim -Ibench -I/usr/include/suitesparse
BENCH_LIBS       := -lldl -lamd -lcholmod -lsuitesparseconfig -llapacke -lopenblas -lmetis -lode -lmujoco

# bench_id(path): a C identifier from a mechanism path.
bench_id = $(subst -,_,$(subst /,_,$(subst .,_,$(basename $(1)))))

#---- packages ------------------------------------------------------------------
bench-deps:
	@missing=""; for p in $(BENCH_DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null || exit 1; \
	fi

#---- the programs under test -----------------------------------------------------
# Entries stem:mechanism:precision:series:n (series "-" for a sample).
BENCH_SERIES_MECH := $(BENCH_DIR)/mech
BENCH_ENTRIES := \
  $(foreach m,$(BENCH_SAMPLES),$(foreach p,float double,b_$(call bench_id,$(m))_$(p):$(m):$(p):-:0)) \
  $(foreach n,$(BENCH_TRACK_PLATES),s_track$(n)_double:$(BENCH_SERIES_MECH)/track$(n).lua:double:track:$(n)) \
  $(foreach n,$(BENCH_LIFT_STAGES),s_scissor_lift$(n)_double:$(BENCH_SERIES_MECH)/scissor_lift$(n).lua:double:scissor_lift:$(n))
bench_field = $(word $(2),$(subst :, ,$(1)))
BENCH_STEMS   := $(foreach e,$(BENCH_ENTRIES),$(call bench_field,$(e),1))
BENCH_GEN_OBJ := $(patsubst %,$(BENCH_DIR)/obj/%.o,$(BENCH_STEMS))

# Series members: the sample with its size prepended as a global.
$(BENCH_SERIES_MECH)/track%.lua: mechanisms/track.lua
	@mkdir -p $(dir $@)
	@{ echo "PLATES = $*"; cat $<; } > $@
$(BENCH_SERIES_MECH)/scissor_lift%.lua: mechanisms/scissor_lift.lua
	@mkdir -p $(dir $@)
	@{ echo "STAGES = $*"; cat $<; } > $@

# $(1) stem, $(2) mechanism file, $(3) precision
define bench_program_rules
$(BENCH_DIR)/gen/$(1).c: $(2) $(BUILD)/ldlgen
	@mkdir -p $$(dir $$@)
	$(BUILD)/ldlgen $(2) -o $$@ --precision $(3) --prefix $(1)
$(BENCH_DIR)/obj/$(1).o: $(BENCH_DIR)/gen/$(1).c $(BENCH_DIR)/cputime $(wildcard runtime/include/*.h)
	@mkdir -p $$(dir $$@)
	@echo "cc $$< (timed)"
	@$(BENCH_DIR)/cputime $$@.cpu $(CC) $(BENCH_GEN_CFLAGS) -c $$< -o $$@
endef
$(foreach e,$(BENCH_ENTRIES),$(eval $(call bench_program_rules,$(call bench_field,$(e),1),$(call bench_field,$(e),2),$(call bench_field,$(e),3))))

# The samples' programs again, from the same generated files, with -mavx2
# (still -ffp-contract=off, no -mfma: the generated code then picks its
# 32-byte vector kernels, bitwise identical results), the program renamed
# STEM_avx2_program (and its mechanism, STEM_avx2_desc, ...: gentest_rename
# in the Makefile). Built on x86-64 only; the driver measures them only
# when the CPU has AVX2 (__builtin_cpu_supports), as extra methods
# "unrolled (AVX2 build)" beside the baseline build, which stays the
# primary verdict.
BENCH_AVX2_FLAGS   := -mavx2
BENCH_AVX2_STEMS   := $(if $(filter x86_64,$(shell uname -m)),$(foreach e,$(BENCH_ENTRIES),$(if $(filter -,$(call bench_field,$(e),4)),$(call bench_field,$(e),1))))
BENCH_AVX2_GEN_OBJ := $(patsubst %,$(BENCH_DIR)/obj/avx2/%.o,$(BENCH_AVX2_STEMS))
$(BENCH_AVX2_GEN_OBJ): $(BENCH_DIR)/obj/avx2/%.o: $(BENCH_DIR)/gen/%.c $(BENCH_DIR)/cputime $(wildcard runtime/include/*.h)
	@mkdir -p $(dir $@)
	@echo "cc $< (timed, $(BENCH_AVX2_FLAGS))"
	@$(BENCH_DIR)/cputime $@.cpu $(CC) $(BENCH_GEN_CFLAGS) $(BENCH_AVX2_FLAGS) $(call gentest_rename,$*,_avx2) -c $< -o $@
.SECONDARY: $(patsubst %,$(BENCH_DIR)/gen/%.c,$(BENCH_STEMS)) \
            $(foreach n,$(BENCH_TRACK_PLATES),$(BENCH_SERIES_MECH)/track$(n).lua) \
            $(foreach n,$(BENCH_LIFT_STAGES),$(BENCH_SERIES_MECH)/scissor_lift$(n).lua)

# The registry: every program with its source lines, compile CPU time and
# object size (registry.h).
# Rewritten only when its contents change (the entry list follows MECHS).
$(BENCH_DIR)/programs.c: $(BENCH_GEN_OBJ) $(BENCH_AVX2_GEN_OBJ) FORCE
	@{ echo '#include "registry.h"'; \
	  for e in $(BENCH_ENTRIES); do set -- $$(echo $$e | tr : ' '); \
	    echo "extern const rt_program $$1_program;"; done; \
	  for s in $(BENCH_AVX2_STEMS); do echo "extern const rt_program $${s}_avx2_program;"; done; \
	  echo 'const char bench_cflags[] = "$(strip $(BENCH_GEN_CFLAGS))";'; \
	  echo 'const char bench_avx2_flags[] = "$(if $(BENCH_AVX2_STEMS),$(BENCH_AVX2_FLAGS))";'; \
	  echo 'const bench_entry bench_entries[] = {'; \
	  for e in $(BENCH_ENTRIES); do set -- $$(echo $$e | tr : ' '); \
	    src=$(BENCH_DIR)/gen/$$1.c; obj=$(BENCH_DIR)/obj/$$1.o; avx=$(BENCH_DIR)/obj/avx2/$$1.o; \
	    if [ "$$4" = - ]; then series=0; else series="\"$$4\""; fi; \
	    case " $(BENCH_AVX2_STEMS) " in \
	      *" $$1 "*) avx2="&$${1}_avx2_program, $$(cat $$avx.cpu), $$(size $$avx | awk 'NR == 2 { print $$1 }')";; \
	      *) avx2="0, 0, 0";; \
	    esac; \
	    echo "  {\"$$2\", $$series, $$5, &$$1_program, \"$$src\", $$(wc -l < $$src), $$(cat $$obj.cpu), $$(size $$obj | awk 'NR == 2 { print $$1 ", " $$2 }'), $$avx2},"; \
	  done; \
	  echo '  {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},'; echo '};'; } > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@

#---- the driver ----------------------------------------------------------------------
BENCH_SRC := $(filter-out bench/factor_time.c bench/cputime.c bench/peak_avx2.c bench/peak_avx512.c bench/stepcg.c,$(sort $(wildcard bench/*.c)))
BENCH_OBJ := $(patsubst bench/%.c,$(BENCH_DIR)/obj/bench/%.o,$(BENCH_SRC)) \
             $(BENCH_DIR)/obj/bench/peak_avx2.o $(BENCH_DIR)/obj/bench/peak_avx512.o $(BENCH_DIR)/obj/programs.o

$(BENCH_DIR)/obj/bench/%.o: bench/%.c bench/bench.mk Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(BENCH_INC) $(LUA_CFLAGS) -c $< -o $@
# The FMA kernels: their own instruction sets, run only where the CPU has them.
$(BENCH_DIR)/obj/bench/peak_avx2.o: CFLAGS_ALL += -mavx2 -mfma
$(BENCH_DIR)/obj/bench/peak_avx512.o: CFLAGS_ALL += -mavx512f
$(BENCH_DIR)/obj/programs.o: $(BENCH_DIR)/programs.c
	$(CC) $(CFLAGS_ALL) $(BENCH_INC) -c $< -o $@

$(BENCH_DIR)/cputime: bench/cputime.c bench/bench.mk
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $< -o $@

$(BENCH_DIR)/bench: $(BENCH_OBJ) $(BENCH_GEN_OBJ) $(BENCH_AVX2_GEN_OBJ) $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) $(BENCH_LIBS) -lm -o $@

bench-build: $(BENCH_DIR)/bench $(BENCH_DIR)/stepcg

# make bench-cg: instructions per whole step under callgrind (stepcg.c),
# written to bench/results/step-cg.{md,json,tsv}; make bench reads the tsv.
BENCH_STEPCG_OBJ := $(filter-out $(BENCH_DIR)/obj/bench/bench.o,$(BENCH_OBJ))
$(BENCH_DIR)/obj/bench/stepcg.o: bench/stepcg.c bench/bench.mk Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(BENCH_INC) $(LUA_CFLAGS) -c $< -o $@
$(BENCH_DIR)/stepcg: $(BENCH_DIR)/obj/bench/stepcg.o $(BENCH_STEPCG_OBJ) $(BENCH_GEN_OBJ) $(BENCH_AVX2_GEN_OBJ) $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) $(BENCH_LIBS) -lm -o $@

# The sources' revision for the reports, "+ uncommitted changes" when they differ from
# HEAD -- outside what make bench itself writes (bench/results, README's tables), which
# the first reports of a run would otherwise mark for the later ones.
BENCH_REVISION = $$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$$(git diff --quiet HEAD -- . ':(exclude)bench/results' ':(exclude)README.md' 2>/dev/null || echo ' + uncommitted changes')

bench-cg: deps bench-deps
	@$(MAKE) --no-print-directory -j$(BENCH_JOBS) bench-build
	@mkdir -p bench/results
	$(BENCH_DIR)/stepcg --out bench/results --work $(BENCH_DIR) \
	  --revision "$(BENCH_REVISION)"

#---- make bench ----------------------------------------------------------------------
bench: deps bench-deps
	@$(MAKE) --no-print-directory -j$(BENCH_JOBS) bench-build
	@mkdir -p bench/results
	OPENBLAS_NUM_THREADS=1 $(BENCH_DIR)/bench $(BENCH_ARGS) \
	  --revision "$(BENCH_REVISION)" \
	  --md bench/results/latest.md --json bench/results/latest.json --readme README.md \
	  --cg bench/results/step-cg.tsv
	@$(MAKE) --no-print-directory bench-batch
	@$(MAKE) --no-print-directory bench-inequality
	@$(MAKE) --no-print-directory bench-locality
	@$(MAKE) --no-print-directory bench-renames
	@$(MAKE) --no-print-directory bench-scale

#---- limits, motors and springs: the new step against the equality-only one ----------
# Issue 14's bench (bench/inequality/ineq.h): every sample, driven by its
# .drive script, with the Schur coupling (coupled_rows default) and without
# it (0): median step time interleaved, instructions per step under
# callgrind, and the limit, motor, joint and energy figures of PGS and both.
# Writes bench/results/inequality.{md,json} and README.md's table between
# its inequality markers; about a minute.
BENCH_INEQ_SRC := $(sort $(wildcard bench/inequality/*.c))
BENCH_INEQ_OBJ := $(patsubst bench/%.c,$(BENCH_DIR)/obj/bench/%.o,$(BENCH_INEQ_SRC))
$(BENCH_DIR)/inequality: $(BENCH_INEQ_OBJ) $(BENCH_DIR)/obj/bench/btime.o $(BENCH_DIR)/obj/bench/splice.o \
                         $(BENCH_DIR)/obj/programs.o $(BENCH_GEN_OBJ) $(BENCH_AVX2_GEN_OBJ) \
                         $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) -lm -o $@

bench-inequality: deps bench-deps
	@$(MAKE) --no-print-directory -j$(BENCH_JOBS) $(BENCH_DIR)/inequality
	@mkdir -p bench/results
	$(BENCH_DIR)/inequality --work $(BENCH_DIR) \
	  --revision "$(BENCH_REVISION)" \
	  --md bench/results/inequality.md --json bench/results/inequality.json --readme README.md

#---- the locality of generated code (bench/diff_locality.sh) --------------------------
# The share of generated lines small edits of each sample change, with the
# generators of LOCALITY_BASE (before issue 18's layout: offsets relative to
# per-pivot bases, tables per pivot, kernels in rt_kernels.h), of
# LOCALITY_NAME_BASE (that layout and the stable elimination order, before
# the constraints were numbered by name and the tables' bases counted on
# from the line before) and this one, also with --keep-order (the order of
# the unedited output kept), and with that and --mechanism-out (the
# mechanism part in files of its own). Each base's ldlgen is built once from
# `git archive` into $(BUILD)/locality-base/COMMIT.
LOCALITY_BASE ?= 53a5635
LOCALITY_NAME_BASE ?= fa36c80
$(BUILD)/locality-base/%/build/ldlgen:
	@rm -rf $(BUILD)/locality-base/$* && mkdir -p $(BUILD)/locality-base/$*
	git archive $* | tar -x -C $(BUILD)/locality-base/$*
	$(MAKE) --no-print-directory -C $(BUILD)/locality-base/$* build/ldlgen >/dev/null
# Every sample's constraints and bodies renamed one at a time, fresh and
# with --keep-order: how many renames change a line without the name
# (bench/rename_sweep.sh -> bench/results/renames.md; a few minutes).
bench-renames: $(BUILD)/ldlgen
	@mkdir -p bench/results
	bench/rename_sweep.sh bench/results/renames.md after=$(BUILD)/ldlgen kept="$(BUILD)/ldlgen --keep-order"

bench-locality: $(BUILD)/ldlgen $(BUILD)/locality-base/$(LOCALITY_BASE)/build/ldlgen \
                $(BUILD)/locality-base/$(LOCALITY_NAME_BASE)/build/ldlgen
	@mkdir -p bench/results
	bench/diff_locality.sh bench/results/diff_locality.md before=$(BUILD)/locality-base/$(LOCALITY_BASE)/build/ldlgen \
	  name_before=$(BUILD)/locality-base/$(LOCALITY_NAME_BASE)/build/ldlgen after=$(BUILD)/ldlgen \
	  kept="$(BUILD)/ldlgen --keep-order" split="$(BUILD)/ldlgen --keep-order --mechanism-out"

#---- ldlgen's growth: chains, tracks, grids, trains (bench/scale/*.lua) ----------
bench-scale: all
	@mkdir -p bench/results
	@sh bench/scale.sh $(BUILD) bench/results/scale.md

-include $(wildcard $(BENCH_DIR)/obj/bench/*.d $(BENCH_DIR)/obj/bench/inequality/*.d $(BENCH_DIR)/obj/*.d)

#---- tests/test_flopcount links the flop conventions (no bench packages) ----------
$(BUILD)/obj/bench/flopcount.o: bench/flopcount.c bench/flopcount.h Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include -c $< -o $@
$(BUILD)/tests/test_flopcount: $(BUILD)/obj/bench/flopcount.o

#---- tests/test_ineq_report links the inequality bench's reports (no bench packages) --
$(BUILD)/obj/bench/inequality/%.o: bench/inequality/%.c bench/inequality/ineq.h Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include -Igen -Isim -c $< -o $@
$(BUILD)/tests/test_ineq_report: $(BUILD)/obj/tests/test_ineq_report.o $(BUILD)/obj/bench/inequality/report.o \
                                 $(BUILD)/obj/bench/inequality/variant.o \
                                 $(BUILD)/libsim.a $(BUILD)/libgen.a $(BUILD)/librt.a | $(BUILD)/ldlgen
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) $(CMOCKA_LIBS) -lm $(TEST_LDFLAGS) -o $@

include bench/batch.mk
