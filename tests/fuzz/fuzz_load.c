/* fuzz_load.c -- libFuzzer target: the mechanism loader (sandbox, schema,
 * line tracking) on arbitrary text. Every input must end in GEN_OK with a
 * consistent mechanism or in diagnostics, never in a crash, a leak or
 * undefined behaviour. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *src = malloc(size + 1);
  if (!src) return 0;
  memcpy(src, data, size);
  src[size] = '\0'; /* the loader reads text: it ends at the first NUL */
  arena a;
  arena_init(&a);
  diag_list d;
  diag_init(&d);
  load_limits lim;
  fuzz_load_limits(&lim);
  mech m;
  gen_status st = load_mech_string(&a, "fuzz.lua", src, &lim, &m, &d);
  if (st == GEN_OK) {
    /* what a loaded mechanism promises */
    if (m.nbody < 1 || !m.name) abort();
    for (int i = 0; i < m.ncons; i++)
      if ((m.cons[i].a >= m.nbody) || (m.cons[i].b >= m.nbody)) abort();
  } else if (d.n == 0) {
    abort(); /* a failure always says why */
  }
  diag_free(&d);
  arena_free(&a);
  free(src);
  return 0;
}
