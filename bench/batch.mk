# make bench-batch (issue 21, part 5; included by bench/bench.mk): the batch
# factor (ldlgen --batch N) against N scalar factors of the same mechanism,
# and the whole step, rt_batch_step of N worlds against N rt_world_step,
# bench/batch/ -> bench/results/batch.{md,json}.
#
# Per mechanism of BB_MECHS: double with 8 lanes and float with 16, each
# beside the scalar unrolled program of the same precision, all compiled
# with the same flags: ARCH=avx512's where /proc/cpuinfo lists avx512f,
# else ARCH=avx2's (contraction off, like every build). gcc is slow on big
# batch files at the baseline flags (scissor_lift, 16 double lanes: ~12 s); with
# the AVX-512 flags the 16 files below take about 10 s of CPU in all. The generated
# objects are compiled through bench/cputime, and their compile times go
# into the report. The whole step needs the runtime, which is linked from the
# build of the same target (make ARCH=$(BB_ARCH): build/$(BB_ARCH)/lib*.a,
# built by a sub-make when missing or stale), so that rt_batch's lanes get
# the registers the batch programs get. Run it with the default ARCH.
#
# Instructions per step under callgrind: valgrind cannot run AVX-512 code,
# so on an AVX-512 machine a second binary, $(BB_DIR)/cg/batch, is built
# with the AVX2 flags against build/avx2's libraries (the generated files
# compiled again, untimed) and counted instead.
BB_MECHS   := chain buggy scissor_lift tank
# The elimination order of both sides' programs: balanced (what README
# advises for batch programs: independent pivots the lanes' latency hides;
# the chain's factor 0.31 -> 0.23 us), or best, the default of ldlgen.
BB_ORDER   ?= balanced
BB_CONFIGS := double:8 float:16
BB_ARCH    := $(if $(shell grep -qw avx512f /proc/cpuinfo 2>/dev/null && echo y),avx512,avx2)
BB_FLAGS   := $(ARCH_FLAGS_$(BB_ARCH))
BB_DIR     := $(BENCH_DIR)/batch
# the generated objects without the build's own target flags, with the
# bench's, and the vzeroupper workaround (Makefile: vzeroupper_fix) -- without
# it the whole step of both sides ran several times slower under AVX flags
BB_GEN_BASE = $(filter-out $(ARCHFLAGS),$(BENCH_GEN_CFLAGS))
BB_CFLAGS   = $(BB_GEN_BASE) $(BB_FLAGS) $(call vzeroupper_fix,$(BB_FLAGS))
BB_LIBS    := build/$(BB_ARCH)/libsim.a build/$(BB_ARCH)/libgen.a build/$(BB_ARCH)/librt.a
BB_CG_ARCH := avx2
BB_CG_FLAGS = $(BB_GEN_BASE) $(ARCH_FLAGS_$(BB_CG_ARCH)) $(call vzeroupper_fix,$(ARCH_FLAGS_$(BB_CG_ARCH)))
BB_CG_LIBS := build/$(BB_CG_ARCH)/libsim.a build/$(BB_CG_ARCH)/libgen.a build/$(BB_CG_ARCH)/librt.a
# the binary counted under callgrind: this one unless it is AVX-512; none
# when the build itself is ARCH=avx512 (its driver objects are AVX-512 too)
BB_CG_BIN  := $(if $(filter avx512,$(ARCH)),,$(if $(filter $(BB_CG_ARCH),$(BB_ARCH)),$(BB_DIR)/batch,$(BB_DIR)/cg/batch))

# Entries mech:precision:lanes; stems bb_MECH_PRECISION (scalar) and
# bb_MECH_PRECISION_bLANES (batch).
BB_ENTRIES := $(foreach m,$(BB_MECHS),$(foreach c,$(BB_CONFIGS),$(m):$(c)))
bb_f = $(word $(2),$(subst :, ,$(1)))
bb_scalar = bb_$(call bb_f,$(1),1)_$(call bb_f,$(1),2)
bb_batch  = $(call bb_scalar,$(1))_b$(call bb_f,$(1),3)
BB_STEMS   := $(sort $(foreach e,$(BB_ENTRIES),$(call bb_scalar,$(e)) $(call bb_batch,$(e))))
BB_GEN_OBJ := $(patsubst %,$(BB_DIR)/obj/%.o,$(BB_STEMS))

# BB_ORDER as of the last run: the programs are generated again when it changes
$(BB_DIR)/order: FORCE
	@mkdir -p $(dir $@)
	@echo '$(BB_ORDER)' | cmp -s - $@ || echo '$(BB_ORDER)' > $@

# $(1) mechanism, $(2) precision, $(3) lanes
define bb_rules
$(BB_DIR)/gen/bb_$(1)_$(2).c: mechanisms/$(1).lua $(BUILD)/ldlgen $(BB_DIR)/order
	@mkdir -p $$(dir $$@)
	$(BUILD)/ldlgen $$< -o $$@ --order $(BB_ORDER) --precision $(2) --prefix bb_$(1)_$(2)
$(BB_DIR)/gen/bb_$(1)_$(2)_b$(3).c: mechanisms/$(1).lua $(BUILD)/ldlgen $(BB_DIR)/order
	@mkdir -p $$(dir $$@)
	$(BUILD)/ldlgen $$< -o $$@ --order $(BB_ORDER) --precision $(2) --batch $(3) --prefix bb_$(1)_$(2)_b$(3)
endef
$(foreach e,$(BB_ENTRIES),$(eval $(call bb_rules,$(call bb_f,$(e),1),$(call bb_f,$(e),2),$(call bb_f,$(e),3))))
.SECONDARY: $(patsubst %,$(BB_DIR)/gen/%.c,$(BB_STEMS))

$(BB_GEN_OBJ): $(BB_DIR)/obj/%.o: $(BB_DIR)/gen/%.c $(BENCH_DIR)/cputime $(wildcard runtime/include/*.h)
	@mkdir -p $(dir $@)
	@echo "cc $< (timed, $(BB_ARCH))"
	@$(BENCH_DIR)/cputime $@.cpu $(CC) $(BB_CFLAGS) -c $< -o $@

# The same files for the callgrind binary (not timed).
BB_CG_GEN_OBJ := $(patsubst %,$(BB_DIR)/cg/obj/%.o,$(BB_STEMS))
$(BB_CG_GEN_OBJ): $(BB_DIR)/cg/obj/%.o: $(BB_DIR)/gen/%.c $(wildcard runtime/include/*.h)
	@mkdir -p $(dir $@)
	@echo "cc $< ($(BB_CG_ARCH), for callgrind)"
	@$(CC) $(BB_CG_FLAGS) -c $< -o $@

# The list (batch.h's bb_entries), with each mechanism's flop count from
# ldlgen --stats and the objects' compile times; rewritten only on change.
$(BB_DIR)/list.c: $(BB_GEN_OBJ) $(BUILD)/ldlgen FORCE
	@{ echo '#include "batch.h"'; \
	  echo 'const char bb_arch[] = "$(BB_ARCH)";'; \
	  echo 'const char bb_cflags[] = "$(strip $(filter-out -W% -MMD -MP -I%,$(BB_CFLAGS)))";'; \
	  echo 'const char bb_order[] = "$(BB_ORDER)";'; \
	  for e in $(BB_ENTRIES); do set -- $$(echo $$e | tr : ' '); s=bb_$$1_$$2; b=$${s}_b$$3; \
	    echo "extern const rt_program $${s}_program; int $${b}_batch_factor(void *, void *, int *);"; \
	    echo "extern const rt_batch_program $${b}_batch; extern const rt_world_desc $${s}_desc;"; \
	    echo "extern const rt_settings $${s}_settings;"; done; \
	  echo 'const bb_entry bb_entries[] = {'; \
	  for e in $(BB_ENTRIES); do set -- $$(echo $$e | tr : ' '); s=bb_$$1_$$2; b=$${s}_b$$3; \
	    flops=$$($(BUILD)/ldlgen mechanisms/$$1.lua --order $(BB_ORDER) --stats 2>/dev/null | sed -n 's/^  "flops": \([0-9]*\).*/\1/p'); \
	    [ -n "$$flops" ] || { echo "ldlgen --stats gave no flops for $$1" >&2; exit 1; }; \
	    echo "  {\"$$1\", $$3, $$flops, &$${s}_program, $${b}_batch_factor, $$(cat $(BB_DIR)/obj/$$s.o.cpu), $$(cat $(BB_DIR)/obj/$$b.o.cpu),"; \
	    echo "   &$${b}_batch, &$${s}_desc, &$${s}_settings},"; \
	  done; \
	  echo '  {0, 0, 0, 0, 0, 0, 0, 0, 0, 0},'; echo '};'; } > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@

BB_SRC := $(sort $(wildcard bench/batch/*.c))
BB_OBJ := $(patsubst bench/%.c,$(BENCH_DIR)/obj/bench/%.o,$(BB_SRC)) $(BB_DIR)/obj/list.o \
          $(BENCH_DIR)/obj/bench/peak.o $(BENCH_DIR)/obj/bench/peak_avx2.o $(BENCH_DIR)/obj/bench/peak_avx512.o \
          $(BENCH_DIR)/obj/bench/btime.o
$(BENCH_DIR)/obj/bench/batch/%.o: bench/batch/%.c bench/batch.mk Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include -Igen -Isim -Ibench -Ibench/batch -Itests $(LUA_CFLAGS) -c $< -o $@
$(BB_DIR)/obj/list.o: $(BB_DIR)/list.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include -Ibench/batch -c $< -o $@
# (the generated objects before the libraries: they call rt_world_create;
# the libraries are the target build's, which the recipe below makes first)
$(BB_DIR)/batch: $(BB_OBJ) $(BB_GEN_OBJ) $(BB_LIBS)
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) -lm -o $@
$(BB_DIR)/cg/batch: $(BB_OBJ) $(BB_CG_GEN_OBJ) $(BB_CG_LIBS)
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) -lm -o $@

# BB_ARGS: the driver's options (bench/batch/main.c), e.g. "--only tank" or
# "--no-step".
bench-batch: deps
	@$(MAKE) --no-print-directory -j$(BENCH_JOBS) ARCH=$(BB_ARCH) $(BB_LIBS)
	@$(if $(filter $(BB_CG_ARCH),$(BB_ARCH))$(if $(BB_CG_BIN),,n),,$(MAKE) --no-print-directory -j$(BENCH_JOBS) ARCH=$(BB_CG_ARCH) $(BB_CG_LIBS))
	@$(MAKE) --no-print-directory -j$(BENCH_JOBS) $(BB_DIR)/batch $(BB_CG_BIN)
	@mkdir -p bench/results
	$(BB_DIR)/batch $(BB_ARGS) $(if $(BB_CG_BIN),--cg-bin $(BB_CG_BIN) --cg-arch "$(BB_CG_ARCH)") --work $(BB_DIR) \
	  --revision "$(BENCH_REVISION)" \
	  --md bench/results/batch.md --json bench/results/batch.json
	@cat bench/results/batch.md

-include $(wildcard $(BENCH_DIR)/obj/bench/batch/*.d)
