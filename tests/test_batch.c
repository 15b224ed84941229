/* test_batch.c -- batch programs (ldlgen --batch N) against the scalar
 * programs, bit for bit.
 *
 * The Makefile generates batch programs of a few samples (BATCHTEST_NAMES:
 * each mechanism in float and double, with 4, 8 and 16 lanes), compiles
 * each twice -- with the vector extensions of rt_lanes.h (the lanes in
 * groups as wide as the target's registers: 2 doubles without AVX) and with
 * its plain-C fallback (RT_BATCH_PORTABLE, renamed NAME_portable_...; the
 * chain's in groups of 2 lanes, the buggy's all at once) -- and lists them
 * in batchtest_programs beside the scalar unrolled program of the same
 * mechanism and precision (test_generated's). For each: N different random
 * SPD matrices with the program's block pattern, factored one by one by the
 * scalar program and together, lane-interleaved (entry k of copy j at
 * k * N + j), by the batch program; lane j of the batch workspace must be
 * bitwise the scalar factor of copy j, and so must the solutions of N
 * different right-hand sides (signed zeros among them), by the solve and by
 * its halves (ID_batch_solve_forward, then _backward). With one copy not
 * positive definite in the middle, the batch program reports that copy's
 * failing pivot (the scalar program's), and every other copy is still
 * bitwise its scalar factor. The batch buffers start one scalar past an
 * aligned address: any scalar-aligned buffer works. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_list.h"
#include "program_check.h"


/* Lane j of the N-lane buffer is bitwise ref (n values). */
static void same_lane(const char *what, const batchtest_program *t, int portable, int j, const void *lanes,
                      const void *ref, size_t n) {
  const rt_program *p = t->scalar;
  size_t sz = scalar_size(p);
  void *got = zalloc(n, sz);
  lane_copy(sz, t->lanes, j, n, (void *)lanes, got, 0);
  for (size_t k = 0; k < n; k++)
    if (memcmp((char *)got + k * sz, (const char *)ref + k * sz, sz) != 0)
      fail_msg("%s%s: %s of copy %d differs at %zu: %a (batch) vs %a (scalar)", t->name, portable ? " (portable)" : "",
               what, j, k, get(p, got, k), get(p, ref, k));
  free(got);
}

/* A buffer of n lane-interleaved values for N lanes, one scalar past the
 * allocation (*base: what to free). */
static void *lanes_alloc(const rt_program *p, int N, size_t n, void **base) {
  *base = zalloc(n * (size_t)N + 1, scalar_size(p));
  return (char *)*base + scalar_size(p);
}

/* Factors N random copies (copy `bad`, if >= 0, not positive definite at
 * the middle pivot) both ways and compares; then, if every copy factored,
 * solves N right-hand sides both ways and compares. */
static void check_round(const batchtest_program *t, int portable, test_rng *r, int bad) {
  const rt_program *p = t->scalar;
  const int N = t->lanes;
  const size_t sz = scalar_size(p), nw = (size_t)p->work_size, nx = (size_t)p->dim;
  void **ref = zalloc((size_t)N, sizeof *ref);
  int *status = zalloc((size_t)N, sizeof *status), first = -1;
  void *wbase, *tbase, *xbase;
  void *bw = lanes_alloc(p, N, nw, &wbase), *bt = lanes_alloc(p, N, (size_t)p->temp_size, &tbase);
  void *temp = zalloc((size_t)p->temp_size, sz);
  for (int j = 0; j < N; j++) {
    double *h = random_spd(r, p);
    if (j == bad) {
      int q = p->ncons / 2, rq = row(p, q), dq = deg(p, q);
      h[(rq + dq - 1) * p->dim + rq + dq - 1] = -1;
    }
    ref[j] = pack(p, h);
    lane_copy(sz, N, j, nw, bw, ref[j], 1);
    status[j] = p->factor(ref[j], temp);
    if (status[j] >= 0 && (first < 0 || status[j] < first)) first = status[j];
    free(h);
  }
  if (bad >= 0) assert_true(status[bad] >= 0);
  int *lane_pivot = zalloc((size_t)N, sizeof *lane_pivot);
  int st = (portable ? t->portable_factor : t->factor)(bw, bt, lane_pivot);
  if (st != first) fail_msg("%s: batch factor returned %d, the scalar factors' first failure is %d", t->name, st, first);
  for (int j = 0; j < N; j++) {
    if (lane_pivot[j] != status[j])
      fail_msg("%s: copy %d: batch factor reports pivot %d, the scalar factor %d", t->name, j, lane_pivot[j], status[j]);
    if (status[j] < 0) same_lane("factor", t, portable, j, bw, ref[j], nw);
  }
  if (bad < 0) {
    /* the solve, and its halves one after the other (bh) */
    void *hbase;
    void *bx = lanes_alloc(p, N, nx, &xbase), *bh = lanes_alloc(p, N, nx, &hbase);
    void **x = zalloc((size_t)N, sizeof *x);
    for (int j = 0; j < N; j++) {
      x[j] = zalloc(nx, sz);
      for (size_t i = 0; i < nx; i++) {
        double v = 2 * rng_unit(r) - 1;
        if ((i + (size_t)j) % 7 == 0) v = i % 2 ? -0.0 : 0.0;
        put(p, x[j], i, v);
      }
      lane_copy(sz, N, j, nx, bx, x[j], 1);
      lane_copy(sz, N, j, nx, bh, x[j], 1);
      p->solve(ref[j], x[j]);
    }
    const rt_batch_program *bp = portable ? t->portable_batch : t->batch;
    (portable ? t->portable_solve : t->solve)(bw, bx);
    assert_non_null(bp->solve_forward);
    assert_non_null(bp->solve_backward);
    bp->solve_forward(bw, bh);
    bp->solve_backward(bw, bh);
    for (int j = 0; j < N; j++) {
      same_lane("solution", t, portable, j, bx, x[j], nx);
      same_lane("solution by the solve's halves", t, portable, j, bh, x[j], nx);
      free(x[j]);
    }
    free(x);
    free(xbase);
    free(hbase);
  }
  for (int j = 0; j < N; j++) free(ref[j]);
  free(ref);
  free(status);
  free(lane_pivot);
  free(wbase);
  free(tbase);
  free(temp);
}

static void test_batch_program(void **state) {
  const batchtest_program *t = *state;
  const rt_program *p = t->scalar;
  assert_non_null(p->factor);
  /* the batch file's own program: the scalar one's tables and code */
  assert_non_null(t->tables->factor);
  assert_non_null(t->tables->solve);
  assert_true(t->tables->structure_hash == p->structure_hash);
  assert_int_equal(t->tables->work_size, p->work_size);
  assert_int_equal(t->tables->temp_size, p->temp_size);
  assert_int_equal(t->tables->precision, p->precision);
  for (int portable = 0; portable <= 1; portable++) {
    test_rng r = {0xba7c4000u + (uint64_t)t->lanes * 131u + (uint64_t)p->dim};
    check_round(t, portable, &r, -1);
    check_round(t, portable, &r, -1);
    if (p->ncons > 0) check_round(t, portable, &r, t->lanes / 2);
  }
}

/* The scalar references themselves against the interpreter
 * (program_check.h; test_generated does so for every program), and the
 * scalar program every batch file carries. */
static void test_scalar_reference(void **state) {
  const batchtest_program *t = *state;
  check_program(t->scalar);
}
static void test_batch_file_scalar(void **state) {
  const batchtest_program *t = *state;
  check_program(t->tables);
}

int main(void) {
  enum { MAX_TESTS = 64 };
  struct CMUnitTest tests[3 * MAX_TESTS];
  static char names[MAX_TESTS][96], own[MAX_TESTS][96];
  int n = 0, nref = 0, nown = 0;
  for (const batchtest_program *t = batchtest_programs; t->name && n + 3 <= 3 * MAX_TESTS; t++) {
    if (t->lanes == 4) { /* once per scalar program */
      snprintf(names[nref], sizeof names[nref], "%s: its scalar program", t->name);
      tests[n++] = (struct CMUnitTest){names[nref++], test_scalar_reference, NULL, NULL, (void *)t};
    }
    tests[n++] = (struct CMUnitTest){t->name, test_batch_program, NULL, NULL, (void *)t};
    snprintf(own[nown], sizeof own[nown], "%s: the batch file's scalar program", t->name);
    tests[n++] = (struct CMUnitTest){own[nown++], test_batch_file_scalar, NULL, NULL, (void *)t};
  }
  if (n == 0) return 1; /* the Makefile's list is empty */
  return _cmocka_run_group_tests("batch", tests, (size_t)n, NULL, NULL);
}
