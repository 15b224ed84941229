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
# fast-math (DESIGN.md section 5).
FPFLAGS := -ffp-contract=off
CFLAGS_ALL = -std=c11 $(OPT) $(WARN) $(FPFLAGS) -MMD -MP $(SANFLAGS)
ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif

# Recursively expanded: pkg-config runs only after `make deps` installed it.
LUA_CFLAGS    = $(shell pkg-config --cflags lua5.4)
LUA_LIBS      = $(shell pkg-config --libs lua5.4)
CMOCKA_CFLAGS = $(shell pkg-config --cflags cmocka)
CMOCKA_LIBS   = $(shell pkg-config --libs cmocka)

DEB_PACKAGES := lua5.4 liblua5.4-dev libcmocka-dev pkg-config

#---- sources -----------------------------------------------------------------
RT_SRC    := $(sort $(wildcard runtime/*.c))
GEN_SRC   := $(sort $(filter-out gen/main.c,$(wildcard gen/*.c)))
TEST_SRC  := $(sort $(wildcard tests/test_*.c))
TESTS     := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
RT_OBJ    := $(patsubst %.c,$(BUILD)/obj/%.o,$(RT_SRC))
GEN_OBJ   := $(patsubst %.c,$(BUILD)/obj/%.o,$(GEN_SRC))
MECHS     := $(sort $(wildcard mechanisms/*.lua))

.PHONY: all build-all deps test tests-run demo clean valgrind stats
.DEFAULT_GOAL := all

all: deps
	@$(MAKE) --no-print-directory build-all

build-all: $(BUILD)/ldlgen $(TESTS)

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

$(BUILD)/obj/tests/%.o: tests/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iruntime/include -Igen $(LUA_CFLAGS) $(CMOCKA_CFLAGS) \
	  -DLDLGEN_PATH='"$(abspath $(BUILD))/ldlgen"' -DSRC_DIR='"$(abspath .)"' -c $< -o $@

$(BUILD)/librt.a: $(RT_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libgen.a: $(GEN_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/ldlgen: $(BUILD)/obj/gen/main.o $(BUILD)/libgen.a $(BUILD)/librt.a
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) -lm -o $@

$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(BUILD)/libgen.a $(BUILD)/librt.a | $(BUILD)/ldlgen
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ $(LUA_LIBS) $(CMOCKA_LIBS) -lm -o $@

#---- tests ---------------------------------------------------------------------
# The cmocka suite, then the same suite built with ASan + UBSan.
test: deps
	@$(MAKE) --no-print-directory tests-run
	@$(MAKE) --no-print-directory BUILD=build/san SAN=1 OPT="-O1 -g" tests-run

tests-run: build-all
	@set -e; for t in $(TESTS); do echo "== $$t"; \
	  ASAN_OPTIONS=detect_leaks=1 $$t; done
	@echo "all test programs passed ($(words $(TESTS)) programs, $(BUILD))"

# The suite under valgrind's memcheck (slower; not part of `make test`).
valgrind: deps
	@$(MAKE) --no-print-directory build-all
	@set -e; for t in $(TESTS); do echo "== valgrind $$t"; \
	  LDLPGS_VALGRIND=1 valgrind -q --error-exitcode=1 --leak-check=full $$t; done

#---- samples -------------------------------------------------------------------
# Statistics table of every sample mechanism.
stats: all
	@build/ldlgen --table $(MECHS)

# Until the runtime exists (issue 4), the demo generates every sample's
# program and prints the statistics table.
demo: all
	@build/ldlgen --table $(MECHS)

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
