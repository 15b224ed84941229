/* test_pcr.c -- the preconditioned conjugate residual block solver
 * (runtime/pcr.c, rt_program_solve_pcr), in the world
 * (rt_settings.block_solver) and as the fallback of a world created without
 * a program (runtime/view.c).
 *
 * What is checked:
 * - on every sample and on the redundant mechanisms built for the tests
 *   (test_block.h), PCR's solution agrees with the LDL solution to the
 *   tolerance asked: its own and the dense residual are within it, and so
 *   is H~ (x_pcr - x_ldl) relative to b, at 1e-6 and 1e-9;
 * - a singular system converges in the compliance-regularized sense: on
 *   the Jansen linkage (H singular: 50 rows, 42 degrees of freedom) with
 *   epsilon = 0 and a consistent right-hand side PCR still meets its
 *   tolerance, and as epsilon goes to 0 the velocity change W J^T x of the
 *   regularized solutions converges to that one (the impulses x differ in
 *   H's null space, the motion does not);
 * - first guesses: the solution itself costs no iteration, a multiple of it
 *   none either (scaled), a wild one is dropped;
 * - worlds: PCR steps the samples like LDL; a world made without a program
 *   steps with PCR (factor_status -2, its iterations reported), keeps
 *   block_solver at PCR, and post-stabilizes through PCR.
 * Measured figures are printed with print_message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mechworld.h"
#include "rt_world.h"
#include "simrun.h"
#include "test_block.h"

/* PCR (tolerance tol) against the double LDL solve on one mechanism;
 * returns the iterations. */
static int agree(const block_sys *s, const double *b, double tol) {
  const int n = s->n;
  double *xl = malloc(sizeof *xl * (size_t)n), *xp = calloc((size_t)n, sizeof *xp), *d = malloc(sizeof *d * (size_t)n);
  double *scratch = calloc(rt_program_pcr_scratch(&s->rp), sizeof *scratch);
  assert_true(xl && xp && d && scratch);
  memcpy(xl, b, sizeof *xl * (size_t)n);
  rt_program_solve(&s->rp, s->work, xl);
  double own = NAN;
  const int it = rt_program_solve_pcr(&s->rp, s->num.J, s->num.inv_mass, s->num.inv_inertia, s->eps, b, xp, tol,
                                      100000, scratch, &own);
  const double dense = block_residual(s, xp, b), ldl = block_residual(s, xl, b);
  /* H~ (x_pcr - x_ldl) = (H~ x_pcr - b) - (H~ x_ldl - b) */
  double *zero = calloc((size_t)n, sizeof *zero);
  for (int i = 0; i < n; i++) d[i] = xp[i] - xl[i];
  double hd = 0, bn = 0, xd = 0, xn = 0;
  for (int i = 0; i < n; i++) {
    double y = 0;
    for (int j = 0; j < n; j++) y += s->hd[(size_t)i * n + j] * d[j];
    hd += y * y;
    bn += b[i] * b[i];
    xd = fmax(xd, fabs(d[i]));
    xn = fmax(xn, fabs(xl[i]));
  }
  const double diff = sqrt(hd / bn);
  print_message("%-22s dim %3d, tol %.0e: %4d iterations, residual %.2e (LDL %.2e), ||H~(x_pcr - x_ldl)||/||b|| "
                "%.2e, max |x_pcr - x_ldl| / max |x_ldl| %.2e\n",
                s->label, n, tol, it, dense, ldl, diff, xd / xn);
  if (!(own <= tol)) fail_msg("%s: PCR residual %g above %g", s->label, own, tol);
  if (!(dense <= 1.5 * tol)) fail_msg("%s: dense residual %g above %g", s->label, dense, tol);
  if (!(diff <= 1.5 * tol + ldl)) fail_msg("%s: PCR and LDL differ by %g", s->label, diff);
  free(xl);
  free(xp);
  free(d);
  free(zero);
  free(scratch);
  return it;
}

static void test_pcr_agrees_with_ldl(void **state) {
  (void)state;
  for (int k = 0; k < NBLOCK_MECHS; k++) {
    block_sys s;
    block_load(&s, &block_mechs[k]);
    block_build(&s, RT_DOUBLE, s.m.settings.epsilon);
    assert_int_equal(s.factor_status, -1);
    double *b = block_random_b(s.n, 3 + (uint64_t)k);
    const int loose = agree(&s, b, 1e-6), tight = agree(&s, b, 1e-9);
    assert_true(loose <= tight);
    free(b);
    block_free(&s);
  }
}

/* W J^T x: the velocity change of impulses x (6 per solver body). */
static void velocity_change(const block_sys *s, const double *x, double *dv) {
  const rt_program *p = &s->rp;
  memset(dv, 0, 6 * sizeof *dv * (size_t)p->nsbody);
  double *u = calloc(6 * (size_t)p->nsbody, sizeof *u);
  assert_non_null(u);
  for (int c = 0; c < p->ncons; c++)
    for (int r = p->cons_row[c]; r < p->cons_row[c] + p->cons_degree[c]; r++)
      for (int side = 0; side < 2; side++) {
        const int b = side ? p->cons_b[c] : p->cons_a[c];
        if (b == RT_WORLD) continue;
        for (int k = 0; k < 6; k++) u[6 * b + k] += s->num.J[12 * r + 6 * side + k] * x[r];
      }
  for (int b = 0; b < p->nsbody; b++) {
    const double *ii = s->num.inv_inertia + 9 * b;
    for (int k = 0; k < 3; k++) dv[6 * b + k] = s->num.inv_mass[b] * u[6 * b + k];
    for (int k = 0; k < 3; k++)
      dv[6 * b + 3 + k] = ii[3 * k] * u[6 * b + 3] + ii[3 * k + 1] * u[6 * b + 4] + ii[3 * k + 2] * u[6 * b + 5];
  }
  free(u);
}

static double rel_diff(const double *a, const double *b, int n) {
  double d = 0, m = 0;
  for (int i = 0; i < n; i++) {
    d += (a[i] - b[i]) * (a[i] - b[i]);
    m += b[i] * b[i];
  }
  return sqrt(d / m);
}

/* The Jansen linkage's H is singular. With epsilon = 0 and b = J v (what
 * the block step sees: R - J V with R consistent), PCR still meets its
 * tolerance; with epsilon > 0 the regularized solutions' motion W J^T x
 * converges to that one as epsilon goes to 0. */
static void test_pcr_singular_regularized(void **state) {
  (void)state;
  block_sys s;
  block_load(&s, &block_mechs[8]); /* jansen */
  block_build(&s, RT_DOUBLE, 0.0);
  const int n = s.n, nv = 6 * s.rp.nsbody;
  assert_true(n > 6 * s.m.nbody); /* more rows than degrees of freedom: singular */
  /* consistent b = J v, v random on the bodies */
  test_rng r = {42};
  double *v = calloc((size_t)nv, sizeof *v), *b = calloc((size_t)n, sizeof *b);
  assert_true(v && b);
  for (int i = 0; i < nv; i++) v[i] = 2 * rng_unit(&r) - 1;
  for (int c = 0; c < s.rp.ncons; c++)
    for (int row = s.rp.cons_row[c]; row < s.rp.cons_row[c] + s.rp.cons_degree[c]; row++)
      for (int side = 0; side < 2; side++) {
        const int bd = side ? s.rp.cons_b[c] : s.rp.cons_a[c];
        if (bd == RT_WORLD) continue;
        for (int k = 0; k < 6; k++) b[row] += s.num.J[12 * row + 6 * side + k] * v[6 * bd + k];
      }
  double *scratch = calloc(rt_program_pcr_scratch(&s.rp), sizeof *scratch);
  double *x0 = calloc((size_t)n, sizeof *x0), *x = calloc((size_t)n, sizeof *x);
  double *dv0 = calloc((size_t)nv, sizeof *dv0), *dv = calloc((size_t)nv, sizeof *dv);
  assert_true(scratch && x0 && x && dv0 && dv);
  double res = NAN;
  int it = rt_program_solve_pcr(&s.rp, s.num.J, s.num.inv_mass, s.num.inv_inertia, 0.0, b, x0, 1e-10, 100000,
                                scratch, &res);
  print_message("jansen, epsilon 0 (H singular), consistent b: %d iterations, residual %.2e\n", it, res);
  assert_true(res <= 1e-10);
  assert_true(block_residual(&s, x0, b) <= 1e-9);
  velocity_change(&s, x0, dv0);
  double last = INFINITY;
  static const double eps[] = {1e-3, 1e-5, 1e-7, 1e-9};
  for (size_t k = 0; k < sizeof eps / sizeof eps[0]; k++) {
    memset(x, 0, sizeof *x * (size_t)n);
    it = rt_program_solve_pcr(&s.rp, s.num.J, s.num.inv_mass, s.num.inv_inertia, eps[k], b, x, 1e-12, 100000,
                              scratch, &res);
    velocity_change(&s, x, dv);
    const double dvd = rel_diff(dv, dv0, nv), xd = rel_diff(x, x0, n);
    print_message("  epsilon %.0e: %4d iterations, residual %.2e; motion differs from epsilon 0's by %.2e, "
                  "impulses by %.2e\n",
                  eps[k], it, res, dvd, xd);
    assert_true(res <= 1e-12 || it == 100000);
    assert_true(dvd < last);
    last = dvd;
  }
  assert_true(last < 1e-6);
  /* an inconsistent b with the default compliance: converges all the same */
  block_free(&s);
  block_load(&s, &block_mechs[8]);
  block_build(&s, RT_DOUBLE, 1e-6);
  double *bi = block_random_b(s.n, 9);
  agree(&s, bi, 1e-8);
  free(bi);
  free(v);
  free(b);
  free(scratch);
  free(x0);
  free(x);
  free(dv0);
  free(dv);
  block_free(&s);
}

/* The solution as the first guess: no iteration; twice it: scaled back,
 * none either; a wild guess: dropped, PCR converges from zero. */
static void test_pcr_first_guess(void **state) {
  (void)state;
  block_sys s;
  block_load(&s, &block_mechs[3]); /* multi_wheel */
  block_build(&s, RT_DOUBLE, s.m.settings.epsilon);
  const int n = s.n;
  double *b = block_random_b(n, 17), *x = calloc((size_t)n, sizeof *x), *sol = calloc((size_t)n, sizeof *sol);
  double *scratch = calloc(rt_program_pcr_scratch(&s.rp), sizeof *scratch);
  assert_true(x && sol && scratch);
  double res;
  const int cold = rt_program_solve_pcr(&s.rp, s.num.J, s.num.inv_mass, s.num.inv_inertia, s.eps, b, sol, 1e-9,
                                        10000, scratch, &res);
  assert_true(cold > 0 && res <= 1e-9);
  memcpy(x, sol, sizeof *x * (size_t)n);
  assert_int_equal(rt_program_solve_pcr(&s.rp, s.num.J, s.num.inv_mass, s.num.inv_inertia, s.eps, b, x, 1e-8, 10000,
                                        scratch, &res),
                   0);
  for (int i = 0; i < n; i++) x[i] = 2 * sol[i];
  assert_int_equal(rt_program_solve_pcr(&s.rp, s.num.J, s.num.inv_mass, s.num.inv_inertia, s.eps, b, x, 1e-8, 10000,
                                        scratch, &res),
                   0);
  assert_true(res <= 1e-8);
  test_rng r = {3};
  for (int i = 0; i < n; i++) x[i] = 1e12 * (2 * rng_unit(&r) - 1);
  const int wild = rt_program_solve_pcr(&s.rp, s.num.J, s.num.inv_mass, s.num.inv_inertia, s.eps, b, x, 1e-9, 10000,
                                        scratch, &res);
  print_message("multi_wheel: %d iterations from zero, %d from a wild guess\n", cold, wild);
  assert_true(res <= 1e-9 && wild <= cold + 2);
  free(b);
  free(x);
  free(sol);
  free(scratch);
  block_free(&s);
}

/*---- worlds -----------------------------------------------------------------------*/

typedef struct run_out {
  double max_error;
  double mean_iterations;
  rt_pose last; /* the last body's pose */
} run_out;

/* steps of a sample's world: with the program (double; shattered as the
 * mechanism says, or not if whole) and block solver bs, or without a
 * program (prog 0: its bodies are whole). */
static run_out run(const block_mech *bm, int prog, int whole, rt_block_solver bs, int stabilize, int steps) {
  block_sys s;
  block_load_shatter(&s, bm, whole ? 0 : PROGRAM_SHATTER_FROM_MECH);
  rtprog_build(&s.a, &s.prog, RT_DOUBLE, &s.rp);
  rt_world_desc desc;
  mechworld_desc(&s.a, &s.m, &desc);
  rt_settings set;
  mechworld_settings(&s.m, &set);
  set.block_solver = bs;
  set.stabilize = stabilize;
  set.coupled_rows = set.coupled_contacts = 0; /* the same step for both block solvers: PCR couples no rows (schur.c needs the factor) */
  char err[256];
  rt_world *w = rt_world_create(&desc, prog ? &s.rp : NULL, &set, NULL, err, sizeof err);
  if (!w) fail_msg("%s: %s", s.label, err);
  if (!prog) assert_int_equal(rt_world_settings(w)->block_solver, RT_BLOCK_PCR);
  simrun_options so = {0};
  so.steps = steps;
  so.probe = -1;
  simrun_result r = {0};
  simrun_run(w, &s.m, &so, &r);
  assert_false(r.exploded);
  if (!prog || bs == RT_BLOCK_PCR) {
    assert_int_equal(rt_world_step_info(w)->factor_status, -2);
    assert_true(r.pcr_iterations > 0);
    assert_int_equal(r.pcr_capped, 0);
  }
  run_out o = {r.max_pos_error, (double)r.pcr_iterations / steps, {{0, 0, 0}, {1, 0, 0, 0}}};
  rt_world_body_pose(w, s.m.nbody - 1, &o.last);
  rt_world_destroy(w);
  block_free(&s);
  return o;
}

/* PCR steps the samples like LDL: the joints as tight, the bodies where
 * LDL puts them; so does a world without a program, whose bodies are whole
 * (compared with LDL on the unshattered program: shattering alone moves
 * multi_wheel's bodies by a fraction of a millimetre in a second,
 * test_world.c). */
static void test_world_pcr_like_ldl(void **state) {
  (void)state;
  static const int which[] = {0, 1, 2, 3, 8}; /* buggy, chain, elimination_example, multi_wheel, jansen */
  for (size_t k = 0; k < sizeof which / sizeof which[0]; k++) {
    const block_mech *bm = &block_mechs[which[k]];
    const int steps = 60;
    const run_out l = run(bm, 1, 0, RT_BLOCK_LDL, 0, steps), p = run(bm, 1, 0, RT_BLOCK_PCR, 0, steps),
                  lw = run(bm, 1, 1, RT_BLOCK_LDL, 0, steps), v = run(bm, 0, 1, RT_BLOCK_LDL, 0, steps);
    double dp = 0, dv = 0;
    for (int i = 0; i < 3; i++) {
      dp = fmax(dp, fabs(p.last.p[i] - l.last.p[i]));
      dv = fmax(dv, fabs(v.last.p[i] - lw.last.p[i]));
    }
    print_message("%-36s 1 s: max joint error LDL %.3g m, PCR %.3g m (%.1f iterations a step); unshattered: LDL "
                  "%.3g m, no program %.3g m (%.1f); last body %.2g m and %.2g m from LDL's\n",
                  bm->file, l.max_error, p.max_error, p.mean_iterations, lw.max_error, v.max_error,
                  v.mean_iterations, dp, dv);
    assert_true(p.max_error <= 1.5 * l.max_error + 1e-7 && v.max_error <= 1.5 * lw.max_error + 1e-7);
    assert_true(dp < 1e-6 && dv < 1e-6);
  }
}

/* A world without a program: PGS and LDL-PGS settings both step it, the
 * block solver stays PCR whatever is set, and post-stabilization runs
 * through PCR. */
static void test_world_without_program(void **state) {
  (void)state;
  const block_mech *jansen = &block_mechs[8];
  const run_out plain = run(jansen, 0, 1, RT_BLOCK_PCR, 0, 60), stab = run(jansen, 0, 1, RT_BLOCK_PCR, 1, 60);
  print_message("jansen without a program, 1 s: max joint error %.3g m, stabilized %.3g m\n", plain.max_error,
                stab.max_error);
  assert_true(stab.max_error <= plain.max_error);
  block_sys s;
  block_load(&s, jansen);
  rt_world_desc desc;
  mechworld_desc(&s.a, &s.m, &desc);
  rt_settings set;
  mechworld_settings(&s.m, &set);
  rt_status st = RT_ERR_INPUT;
  rt_world *w = rt_world_create(&desc, NULL, &set, &st, NULL, 0);
  assert_non_null(w);
  assert_int_equal(st, RT_OK);
  set.block_solver = RT_BLOCK_LDL;
  set.threaded = 1; /* nothing to factor: the thread never gets work */
  assert_int_equal(rt_world_set_settings(w, &set), RT_OK);
  assert_int_equal(rt_world_settings(w)->block_solver, RT_BLOCK_PCR);
  assert_int_equal(rt_world_step(w), RT_OK);
  assert_true(rt_world_step_info(w)->pcr_iterations > 0);
  assert_true(rt_world_step_info(w)->block_residual <= set.pcr_tolerance);
  set.solver = RT_SOLVER_PGS;
  assert_int_equal(rt_world_set_settings(w, &set), RT_OK);
  assert_int_equal(rt_world_step(w), RT_OK);
  assert_int_equal(rt_world_step_info(w)->pcr_iterations, 0);
  rt_world_destroy(w);
  /* a bad description is still refused */
  desc.nbody = -1;
  assert_null(rt_world_create(&desc, NULL, &set, &st, NULL, 0));
  assert_int_equal(st, RT_ERR_INPUT);
  block_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pcr_agrees_with_ldl),
      cmocka_unit_test(test_pcr_singular_regularized),
      cmocka_unit_test(test_pcr_first_guess),
      cmocka_unit_test(test_world_pcr_like_ldl),
      cmocka_unit_test(test_world_without_program),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
