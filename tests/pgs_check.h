/* pgs_check.h -- the PGS sweep of the runtime against the plain loop it
 * replaces (the reference in pgs_check.c), bit for bit: shared by
 * tests/test_pgs.c and tests/bitwise_main.c (make check-bitwise, which links
 * runtime/pgs.c compiled by gcc and clang at -O0..-O3). */
#ifndef LDLPGS_TESTS_PGS_CHECK_H
#define LDLPGS_TESTS_PGS_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* Random rows from seed: three sweeps of rt__pgs_sweep (whole, and again in
 * slices) against three of the reference. 0 if every velocity, impulse and
 * bound is bitwise the same; else -1 with why. */
int pgs_check_random(uint64_t seed, char *why, size_t n);

/* The mechanism file at path as an LDL-PGS world (interpreted double
 * program, the mechanism's settings, ground contacts before every step):
 * for `steps` steps, the rows of the step swept N times by rt__pgs_sweep
 * and by the reference, compared bitwise, then the world's own step.
 * *hash receives an FNV-1a hash of the bodies' states after the last step
 * (the same on every compiler and optimization level). 0, or -1 with why. */
int pgs_check_mechanism(const char *path, int steps, uint64_t *hash, char *why, size_t n);

#endif
