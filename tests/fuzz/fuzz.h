/* fuzz.h -- what the fuzz targets share: the libFuzzer entry point they
 * define, and the bounds that keep one input short (a fuzzer needs
 * thousands of inputs a second, and the bounds themselves are under test:
 * the sandbox's instruction and memory bounds, ldlgen's limits). */
#ifndef LDLPGS_TESTS_FUZZ_H
#define LDLPGS_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "load.h"
#include "program.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Chunk bounds for fuzzed mechanism files. */
static inline void fuzz_load_limits(load_limits *l) {
  load_default_limits(l);
  l->max_instructions = 2000000;
  l->max_memory = (size_t)32 << 20;
}

/* Program limits: small mechanisms only. */
static inline void fuzz_program_options(program_options *o) {
  program_default_options(o);
  o->max_rows = 2000;
  o->max_memory = (int64_t)256 << 20;
}

#endif
