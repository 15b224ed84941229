/* program_check.h -- a generated program against the interpreter on random
 * SPD matrices with its block pattern (test_generated.c's check, shared
 * with random_check.c): the unrolled factor and solve, the solve's two
 * halves one after the other (solve_forward, solve_backward: the
 * program's, and the interpreter's) and the interpreter agree bit for bit
 * -- workspace, status, solution, signed zeros -- also on
 * a matrix that is not positive definite, and the solution solves the
 * dense system to the residual bound of the precision (1e-12 relative in
 * double, 1e-4 in float). Static, for cmocka test programs. */
#ifndef LDLPGS_TESTS_PROGRAM_CHECK_H
#define LDLPGS_TESTS_PROGRAM_CHECK_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "spd_pattern.h"
#include "test_util.h"

/* Exact-size zeroed buffers (at least one element), so that AddressSanitizer
 * sees any access past the end. */
static void *zalloc(size_t n, size_t size) {
  void *q = calloc(n > 0 ? n : 1, size);
  assert_non_null(q);
  return q;
}

static void *dup_bytes(const void *src, size_t n) {
  void *d = zalloc(n, 1);
  memcpy(d, src, n);
  return d;
}

/* Factors copies of w with both paths; returns their common status. */
static int factor_both(const rt_program *p, const void *w, void **wu, void **wi) {
  size_t bytes = (size_t)p->work_size * scalar_size(p);
  *wu = dup_bytes(w, bytes);
  *wi = dup_bytes(w, bytes);
  void *tu = zalloc((size_t)p->temp_size, scalar_size(p));
  void *ti = zalloc((size_t)p->temp_size, scalar_size(p));
  int su = p->factor(*wu, tu);
  int si = rt_interp_factor(p, *wi, ti);
  if (su != si) fail_msg("%s: unrolled factor returned %d, interpreter %d", p->name, su, si);
  if (memcmp(*wu, *wi, bytes) != 0) {
    for (int i = 0; i < p->work_size; i++)
      if (memcmp((char *)*wu + (size_t)i * scalar_size(p), (char *)*wi + (size_t)i * scalar_size(p),
                 scalar_size(p)) != 0)
        fail_msg("%s: factored workspaces differ at offset %d: %a vs %a", p->name, i, get(p, *wu, (size_t)i),
                 get(p, *wi, (size_t)i));
  }
  free(tu);
  free(ti);
  return su;
}

static void check_program(const rt_program *p) {
  assert_non_null(p->factor);
  assert_non_null(p->solve);
  assert_non_null(p->solve_forward);
  assert_non_null(p->solve_backward);
  size_t sz = scalar_size(p), n = (size_t)p->dim;
  test_rng r = {0x5eed0000u + (uint64_t)p->dim};
  for (int trial = 0; trial < 3; trial++) {
    double *h = random_spd(&r, p);
    void *w = pack(p, h), *wu, *wi;
    assert_int_equal(factor_both(p, w, &wu, &wi), -1);

    /* right-hand sides: random, then zeros of both signs among them */
    void *xu = zalloc(n, sz), *xi = zalloc(n, sz);
    double *b = zalloc(n, sizeof *b);
    for (size_t i = 0; i < n; i++) {
      double v = 2 * rng_unit(&r) - 1;
      if (trial == 1 && i % 3 == 0) v = i % 2 ? -0.0 : 0.0;
      if (trial == 2) v = i % 2 ? -0.0 : 0.0;
      put(p, xu, i, v);
      b[i] = get(p, xu, i);
    }
    memcpy(xi, xu, n * sz);
    void *xh = dup_bytes(xu, n * sz), *xhi = dup_bytes(xu, n * sz);
    p->solve(wu, xu);
    rt_interp_solve(p, wi, xi);
    p->solve_forward(wu, xh);
    p->solve_backward(wu, xh);
    rt_interp_solve_forward(p, wi, xhi);
    rt_interp_solve_backward(p, wi, xhi);
    for (size_t i = 0; i < n; i++) {
      if (memcmp((char *)xu + i * sz, (char *)xi + i * sz, sz) != 0)
        fail_msg("%s: solutions differ at row %zu: %a vs %a", p->name, i, get(p, xu, i), get(p, xi, i));
      if (memcmp((char *)xu + i * sz, (char *)xh + i * sz, sz) != 0)
        fail_msg("%s: solve_forward then solve_backward differ from solve at row %zu: %a vs %a", p->name, i,
                 get(p, xh, i), get(p, xu, i));
      if (memcmp((char *)xu + i * sz, (char *)xhi + i * sz, sz) != 0)
        fail_msg("%s: the interpreter's halves differ from solve at row %zu: %a vs %a", p->name, i,
                 get(p, xhi, i), get(p, xu, i));
    }
    free(xh);
    free(xhi);

    /* the solution solves H x = b */
    double rn = 0, bn = 0;
    for (size_t i = 0; i < n; i++) {
      double ax = 0;
      for (size_t j = 0; j < n; j++) ax += h[i * n + j] * get(p, xu, j);
      rn += (ax - b[i]) * (ax - b[i]);
      bn += b[i] * b[i];
    }
    double tol = p->precision == RT_FLOAT ? 1e-4 : 1e-12;
    if (!(sqrt(rn) <= tol * sqrt(bn))) fail_msg("%s: residual %g of |b| %g", p->name, sqrt(rn), sqrt(bn));
    free(h);
    free(w);
    free(wu);
    free(wi);
    free(xu);
    free(xi);
    free(b);
  }

  /* not positive definite at a pivot in the middle: the same failing pivot
   * and the same partially factored workspace */
  if (p->ncons > 0) {
    double *h = random_spd(&r, p);
    int q = p->ncons / 2, rq = row(p, q), dq = deg(p, q);
    h[(rq + dq - 1) * p->dim + rq + dq - 1] = -1;
    void *w = pack(p, h), *wu, *wi;
    int st = factor_both(p, w, &wu, &wi);
    assert_true(st >= 0 && st <= q);
    free(h);
    free(w);
    free(wu);
    free(wi);
  }
}

#endif
