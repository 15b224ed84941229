/* bitwise_main.c -- make check-bitwise: linked with runtime/pgs.c compiled
 * by one compiler at one optimization level (build/bitwise/run_CC-OPT);
 * sweeps every sample's rows against the reference (pgs_check.h) and prints
 * one line per sample with the hash of its state after the steps. Every
 * build must print the same lines. Exit status 1 if a sweep differed from
 * the reference. */
#include <inttypes.h>
#include <stdio.h>

#include "pgs_check.h"

int main(int argc, char **argv) {
  static const char *const names[] = {"buggy", "chain", "elimination_example", "multi_wheel", "scissor_lift", "tank",
                                      "track"};
  const char *dir = argc > 1 ? argv[1] : ".";
  int rc = 0;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char path[1024], why[256] = "";
    snprintf(path, sizeof path, "%s/mechanisms/%s.lua", dir, names[i]);
    uint64_t hash = 0;
    const int st = pgs_check_mechanism(path, 20, &hash, why, sizeof why);
    printf("%s %016" PRIx64 "%s%s\n", names[i], hash, st ? " FAILED: " : "", st ? why : "");
    rc |= st != 0;
  }
  for (uint64_t seed = 1; seed <= 100; seed++) {
    char why[256] = "";
    if (pgs_check_random(seed, why, sizeof why) != 0) {
      printf("random rows, seed %" PRIu64 ": FAILED: %s\n", seed, why);
      rc = 1;
    }
  }
  return rc;
}
