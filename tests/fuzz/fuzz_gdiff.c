/* fuzz_gdiff.c -- libFuzzer target: what ldlgen reads back of the files it
 * generated (gen/gdiff.c), on arbitrary text: the input, split at its
 * first NUL into an old and a new file, through --diff (text and JSON),
 * --textconv and --keep-order's reading of the pivot order and the shard
 * ends. Every input must end in GEN_OK or in diagnostics, never in a crash,
 * a leak or undefined behaviour. (A stray list in a program's tables once
 * made the reader index past its pivots.) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "gdiff.h"

static char dir[] = "/tmp/fuzz-gdiff-XXXXXX";
static char old_path[64], new_path[64];

static void write_file(const char *path, const uint8_t *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (size && fwrite(data, 1, size, f) != size) abort();
  if (fclose(f) != 0) abort();
}

static void done(void) {
  unlink(old_path);
  unlink(new_path);
  rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!old_path[0]) {
    if (!mkdtemp(dir)) abort();
    snprintf(old_path, sizeof old_path, "%s/old.c", dir);
    snprintf(new_path, sizeof new_path, "%s/new.c", dir);
    atexit(done);
  }
  const uint8_t *nul = memchr(data, 0, size);
  const size_t first = nul ? (size_t)(nul - data) : size;
  write_file(old_path, data, first);
  write_file(new_path, nul ? nul + 1 : data, nul ? size - first - 1 : size);
  FILE *out = fopen("/dev/null", "w");
  if (!out) abort();
  for (int json = 0; json < 2; json++) {
    diag_list d;
    diag_init(&d);
    if (gdiff_run(old_path, new_path, json, out, &d) != GEN_OK && d.n == 0) abort(); /* a failure says why */
    diag_free(&d);
  }
  diag_list d;
  diag_init(&d);
  if (gdiff_textconv(new_path, out, &d) != GEN_OK && d.n == 0) abort();
  diag_free(&d);
  diag_init(&d);
  char **names;
  keep_end *ends;
  int *chunks;
  int n, nends;
  if (gdiff_pivot_order(old_path, &names, &n, &ends, &nends, &chunks, &d) == GEN_OK) {
    for (int i = 0; i < n; i++)
      if (!names[i]) abort();
    for (size_t i = 0; i < (size_t)n * KEEP_CUT_KINDS; i++)
      if (chunks[i] < -1 || chunks[i] > n) abort();
    for (int i = 0; i < nends; i++)
      if (!ends[i].cons || !ends[i].body || ends[i].shard < 0) abort();
    gdiff_pivot_order_free(names, n, ends, nends, chunks);
  } else if (d.n == 0) {
    abort();
  }
  diag_free(&d);
  fclose(out);
  return 0;
}
