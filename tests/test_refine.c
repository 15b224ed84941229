/* test_refine.c -- mixed-precision refinement (runtime/refine.c,
 * rt_program_solve_refined) and the product with H~ it rests on
 * (runtime/hmul.c), the precision presets (sim/preset.c), and the world's
 * rt_settings.refine.
 *
 * What is checked:
 * - the matrix-free product J W J^T x + epsilon diag x equals the assembled
 *   H~ times x, on every sample and fixture (fixed bodies, shards);
 * - a float program refined until its residual stops falling solves
 *   H~ x = b to below 1e-9 relative residual (the dense residual, in double)
 *   on every sample and on the redundant mechanisms built for the tests
 *   (test_block.h), where the float solve alone leaves up to 9%;
 * - the refinement's contract: 0 steps is the plain solve, bit for bit; a
 *   step that does not lower the residual is undone (a double program stops
 *   early, never worse than it started); the residuals it reports are the
 *   dense ones;
 * - a world with a float program and refine 1 (the fast preset) holds every
 *   sample's joints as well as one with a double program;
 * - the preset table and the new settings' validation.
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
#include "preset.h"
#include "rt_world.h"
#include "simrun.h"
#include "test_block.h"
#include "../runtime/blocksolve.h" /* the product with H~ against the assembled one */

/* The product with H~ from J and the masses equals the dense H~'s to
 * rounding; with its regularization computed where it reads each row
 * (dreg NULL: one product, as one refinement step makes it), the bits of
 * the product with the precomputed one. */
static void test_hmul_matches_assembled(void **state) {
  (void)state;
  for (int k = 0; k < NBLOCK_MECHS; k++) {
    block_sys s;
    block_load(&s, &block_mechs[k]);
    block_build(&s, RT_DOUBLE, s.m.settings.epsilon);
    const int n = s.n;
    double *x = block_random_b(n, 11 + (uint64_t)k), *y = calloc((size_t)n, sizeof *y);
    double *dreg = calloc((size_t)n, sizeof *dreg), *u = calloc(6 * (size_t)s.rp.nsbody, sizeof *u);
    assert_true(y && dreg && u);
    rt__hmul_diag(&s.rp, s.num.J, s.num.inv_mass, s.num.inv_inertia, dreg);
    for (int i = 0; i < n; i++) {
      /* the diagonal is the assembled one's, before its regularization */
      const double hii = s.hd[(size_t)i * n + i];
      if (fabs(dreg[i] * (1 + s.eps) - hii) > 1e-12 * hii) fail_msg("%s: diag %d: %g vs %g", s.label, i, dreg[i], hii);
      dreg[i] *= s.eps;
    }
    const rt__hop h = {.p = &s.rp, .J = s.num.J, .inv_mass = s.num.inv_mass, .inv_inertia = s.num.inv_inertia, .dreg = dreg, .u = u};
    rt__hmul(&h, x, y);
    double en = 0, yn = 0;
    for (int i = 0; i < n; i++) {
      double ref = 0;
      for (int j = 0; j < n; j++) ref += s.hd[(size_t)i * n + j] * x[j];
      en += (y[i] - ref) * (y[i] - ref);
      yn += ref * ref;
    }
    if (!(sqrt(en / yn) < 1e-13)) fail_msg("%s: H~ x differs from the assembled H~ by %g", s.label, sqrt(en / yn));
    double *b = block_random_b(n, 21 + (uint64_t)k), *r = calloc((size_t)n, sizeof *r);
    double *r2 = calloc((size_t)n, sizeof *r2);
    assert_true(r && r2);
    const double rr = rt__hmul_residual(&h, b, x, r);
    const rt__hop inline_reg = {.p = &s.rp, .J = s.num.J, .inv_mass = s.num.inv_mass, .inv_inertia = s.num.inv_inertia,
                                .u = u, .eps = s.eps};
    const double rr2 = rt__hmul_residual(&inline_reg, b, x, r2);
    if (memcmp(r, r2, sizeof *r * (size_t)n) != 0 || memcmp(&rr, &rr2, sizeof rr) != 0)
      fail_msg("%s: b - H~ x with the regularization computed on the way differs", s.label);
    assert_true(rr > 0);
    free(b);
    free(r);
    free(r2);
    free(x);
    free(y);
    free(dreg);
    free(u);
    block_free(&s);
  }
}

/* Refining a float program's solve until the residual stops falling:
 * below 1e-9 on every mechanism; and what one step does. */
static void test_refined_float_residual(void **state) {
  (void)state;
  for (int k = 0; k < NBLOCK_MECHS; k++) {
    block_sys s;
    block_load(&s, &block_mechs[k]);
    block_build(&s, RT_FLOAT, s.m.settings.epsilon);
    assert_int_equal(s.factor_status, -1);
    const int n = s.n;
    double *b = block_random_b(n, 1 + (uint64_t)k), *x = calloc((size_t)n, sizeof *x);
    double *scratch = calloc(rt_program_refine_scratch(&s.rp), sizeof *scratch);
    assert_true(x && scratch);
    rt_refine_info one, all;
    rt_program_solve_refined(&s.rp, s.num.J, s.num.inv_mass, s.num.inv_inertia, s.eps, s.work, b, x, 1, scratch, &one);
    const double dense_one = block_residual(&s, x, b);
    rt_program_solve_refined(&s.rp, s.num.J, s.num.inv_mass, s.num.inv_inertia, s.eps, s.work, b, x, RT_MAX_REFINE,
                             scratch, &all);
    const double dense_all = block_residual(&s, x, b);
    print_message("%-22s dim %3d: float %.2e, one step %.2e, %2d steps %.2e\n", s.label, n, one.residual0, dense_one,
                  all.steps, dense_all);
    if (!(dense_all < 1e-9)) fail_msg("%s: refined float residual %g", s.label, dense_all);
    assert_true(one.steps == 1 && dense_one < one.residual0);
    /* the refinement's own residuals are the dense ones (to rounding; at
     * the end both are near double's floor, cond(H~) u = 1e-10) */
    assert_true(fabs(one.residual - dense_one) <= 1e-3 * dense_one + 1e-12);
    assert_true(all.residual < 1e-9);
    assert_true(all.steps < RT_MAX_REFINE); /* it stopped when the residual stopped falling */
    free(b);
    free(x);
    free(scratch);
    block_free(&s);
  }
}

/* 0 steps: the plain solve, bit for bit; a double program: refinement stops
 * when the residual stops falling, never leaving it higher. */
static void test_refine_contract(void **state) {
  (void)state;
  for (int p = 0; p < 2; p++) {
    block_sys s;
    block_load(&s, &block_mechs[4]); /* scissor_lift */
    block_build(&s, p ? RT_DOUBLE : RT_FLOAT, s.m.settings.epsilon);
    const int n = s.n;
    double *b = block_random_b(n, 5), *x = calloc((size_t)n, sizeof *x);
    double *scratch = calloc(rt_program_refine_scratch(&s.rp), sizeof *scratch);
    void *xs = calloc((size_t)n, sizeof(double));
    assert_true(x && scratch && xs);
    for (int i = 0; i < n; i++) {
      if (p)
        ((double *)xs)[i] = b[i];
      else
        ((float *)xs)[i] = (float)b[i];
    }
    rt_program_solve(&s.rp, s.work, xs);
    assert_int_equal(rt_program_solve_refined(&s.rp, s.num.J, s.num.inv_mass, s.num.inv_inertia, s.eps, s.work, b, x,
                                              0, scratch, NULL),
                     0);
    for (int i = 0; i < n; i++) assert_true(x[i] == (p ? ((double *)xs)[i] : (double)((float *)xs)[i]));
    /* residuals never rise from one kept step to the next */
    double last = INFINITY;
    for (int steps = 0; steps <= 6; steps++) {
      rt_refine_info info;
      const int kept =
          rt_program_solve_refined(&s.rp, s.num.J, s.num.inv_mass, s.num.inv_inertia, s.eps, s.work, b, x, steps, scratch, &info);
      assert_int_equal(kept, info.steps);
      assert_true(kept <= steps && info.residual <= info.residual0);
      assert_true(info.residual <= last * (1 + 1e-12));
      last = info.residual;
    }
    if (p) {
      rt_refine_info info;
      rt_program_solve_refined(&s.rp, s.num.J, s.num.inv_mass, s.num.inv_inertia, s.eps, s.work, b, x, RT_MAX_REFINE,
                               scratch, &info);
      print_message("double scissor_lift: %.2e, refined %d steps %.2e\n", info.residual0, info.steps, info.residual);
      assert_true(info.steps < 5);
    }
    /* without info the last step is taken unchecked: the same x as with
     * info when that step helps (it does in float); one step unchecked
     * computes the regularization where its one product reads the rows,
     * with the same bits */
    if (!p) {
      double *x2 = calloc((size_t)n, sizeof *x2);
      for (int steps = 1; steps <= 2; steps++) {
        rt_refine_info info;
        rt_program_solve_refined(&s.rp, s.num.J, s.num.inv_mass, s.num.inv_inertia, s.eps, s.work, b, x, steps, scratch,
                                 &info);
        assert_int_equal(info.steps, steps);
        rt_program_solve_refined(&s.rp, s.num.J, s.num.inv_mass, s.num.inv_inertia, s.eps, s.work, b, x2, steps,
                                 scratch, NULL);
        assert_memory_equal(x, x2, sizeof *x * (size_t)n);
      }
      free(x2);
    }
    free(b);
    free(x);
    free(xs);
    free(scratch);
    block_free(&s);
  }
}

/*---- the world ------------------------------------------------------------------*/

/* One run of a sample's world: program in precision p, refine steps; max
 * positional error over the run. */
static double run_world(const block_mech *bm, rt_precision p, int refine, int steps, long long *kept) {
  block_sys s;
  block_load(&s, bm);
  rtprog_build(&s.a, &s.prog, p, &s.rp);
  rt_world_desc desc;
  mechworld_desc(&s.a, &s.m, &desc);
  rt_settings set;
  mechworld_settings(&s.m, &set);
  set.refine = refine;
  char err[256];
  rt_world *w = rt_world_create(&desc, &s.rp, &set, NULL, err, sizeof err);
  if (!w) fail_msg("%s: %s", s.label, err);
  simrun_options so = {0};
  so.steps = steps;
  so.probe = -1;
  simrun_result r = {0};
  simrun_run(w, &s.m, &so, &r);
  assert_false(r.exploded);
  assert_int_equal(r.steps, steps);
  if (kept) *kept = r.refine_steps;
  rt_world_destroy(w);
  block_free(&s);
  return r.max_pos_error;
}

/* The fast preset (float program, one refinement step) holds every
 * sample's joints as well as a double program over 2 s. */
static void test_fast_preset_holds_like_double(void **state) {
  (void)state;
  const preset *fast = preset_find("fast"), *accurate = preset_find("accurate"), *flt = preset_find("float");
  assert_true(fast && accurate && flt);
  for (int k = 0; k < 7; k++) { /* the samples */
    long long kept = 0;
    const int steps = 120;
    const double ef = run_world(&block_mechs[k], fast->precision, fast->refine, steps, &kept);
    const double ed = run_world(&block_mechs[k], accurate->precision, accurate->refine, steps, NULL);
    const double e32 = run_world(&block_mechs[k], flt->precision, flt->refine, steps, NULL);
    print_message("%-22s 2 s, max joint error: fast %.3g m, accurate %.3g m, float %.3g m (%lld refinement steps kept)\n",
                  block_mechs[k].file, ef, ed, e32, kept);
    if (!(ef <= 1.1 * ed + 1e-7)) fail_msg("%s: fast %g m, accurate %g m", block_mechs[k].file, ef, ed);
    /* refinement ran, unless the block step had nothing left to solve for
     * (block.c: a residual below 1e-12 ends the passes; the tank's joints
     * stay within 1e-12 m) */
    assert_true(kept > 0 || ef <= 1e-9);
  }
}

/*---- presets and settings -----------------------------------------------------------*/

static void test_presets(void **state) {
  (void)state;
  int n;
  const preset *all = preset_all(&n);
  assert_int_equal(n, 3);
  for (int i = 0; i < n; i++) {
    assert_ptr_equal(preset_find(all[i].name), &all[i]);
    assert_non_null(strstr(preset_names(), all[i].name));
    assert_true(all[i].refine >= 0 && all[i].refine <= RT_MAX_REFINE);
  }
  assert_int_equal(preset_find("fast")->precision, RT_FLOAT);
  assert_int_equal(preset_find("fast")->refine, 1);
  assert_int_equal(preset_find("accurate")->precision, RT_DOUBLE);
  assert_int_equal(preset_find("accurate")->refine, 0);
  assert_int_equal(preset_find("float")->precision, RT_FLOAT);
  assert_int_equal(preset_find("float")->refine, 0);
  assert_null(preset_find("Fast"));
  assert_null(preset_find(""));
}

/* The appended settings: defaults, and what rt_world_create and
 * rt_world_set_settings refuse. */
static void test_settings_validation(void **state) {
  (void)state;
  rt_settings def;
  rt_settings_default(&def);
  assert_int_equal(def.refine, 1); /* one pass: issue 15's regularization bias */
  assert_int_equal(def.block_solver, RT_BLOCK_LDL);
  assert_true(def.pcr_tolerance == 1e-6);
  assert_int_equal(def.pcr_max_iterations, 1000);
  block_sys s;
  block_load(&s, &block_mechs[1]); /* chain */
  rtprog_build(&s.a, &s.prog, RT_FLOAT, &s.rp);
  rt_world_desc desc;
  mechworld_desc(&s.a, &s.m, &desc);
  rt_world *w = rt_world_create(&desc, &s.rp, &def, NULL, NULL, 0);
  assert_non_null(w);
  for (int k = 0; k < 7; k++) {
    rt_settings bad = def;
    switch (k) {
    case 0: bad.refine = -1; break;
    case 1: bad.refine = RT_MAX_REFINE + 1; break;
    case 2: bad.block_solver = (rt_block_solver)2; break;
    case 3: bad.pcr_tolerance = -1e-6; break;
    case 4: bad.pcr_tolerance = NAN; break;
    case 5: bad.pcr_tolerance = INFINITY; break;
    default: bad.pcr_max_iterations = -1; break;
    }
    rt_status st = RT_OK;
    assert_null(rt_world_create(&desc, &s.rp, &bad, &st, NULL, 0));
    assert_int_equal(st, RT_ERR_INPUT);
    assert_int_equal(rt_world_set_settings(w, &bad), RT_ERR_INPUT);
  }
  rt_settings ok = def;
  ok.refine = RT_MAX_REFINE;
  ok.pcr_tolerance = 0;
  ok.pcr_max_iterations = 0;
  assert_int_equal(rt_world_set_settings(w, &ok), RT_OK);
  assert_int_equal(rt_world_step(w), RT_OK);
  assert_true(rt_world_step_info(w)->refine_steps >= 1);
  assert_true(isnan(rt_world_step_info(w)->block_residual));
  rt_world_destroy(w);
  block_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hmul_matches_assembled),
      cmocka_unit_test(test_refined_float_residual),
      cmocka_unit_test(test_refine_contract),
      cmocka_unit_test(test_fast_preset_holds_like_double),
      cmocka_unit_test(test_presets),
      cmocka_unit_test(test_settings_validation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
