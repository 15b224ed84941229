/* test_rt_batch.c -- rt_batch (rt_batch.h): N worlds of one mechanism
 * stepped together, each copy bitwise the world stepped alone. (Linked
 * too by tests/random_sweep.sh with a random mechanism's programs.)
 *
 * For every batch program of the Makefile's list (batch_list.h: chain and
 * buggy, float and double, 4, 8 and 16 lanes, each with rt_lanes.h's
 * vector extensions and with its plain-C fallback): N worlds made from the
 * batch file's own scalar program, stepped by rt_batch_step, against N
 * reference worlds made from the separate scalar program and stepped one
 * by one with rt_world_step. Every copy is driven differently -- its own
 * initial velocity, motor speeds, a force, ground contacts at its own
 * height (so the copies have different numbers of contact rows; the odd
 * copies list them backwards, so that a row's bodies differ) -- and
 * after every step each copy's poses, velocities, impulses and step info
 * must be bitwise its reference's. Then the same with copies whose
 * settings differ (one with more iterations, one under pure PGS: the
 * sweeps run copy by copy, one lane factors nothing), and with one copy
 * whose step diverges (it is undone, the others step); calm copies whose
 * contacts S lets go beside copies whose contact passes go on (the
 * passes' first sweep in lanes, each lane with its copy's tolerance);
 * copies left out of steps (rt_batch_set_active) and the measured choice
 * measured again then; two batches stepped at once on two threads; the lanes' cache
 * budget, which a batch of 16 counts in one group's lanes. And the errors:
 * lane counts, worlds of another mechanism or precision, a world twice,
 * refused settings. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_list.h"
#include "../runtime/lanes.h" /* rt__lanes_bytes: the lane budget's measure */
#include "../runtime/world.h" /* rt__pick, RT__PICK_*: the measured stepping; rt__schur_let_go */

/* steps of every run; under valgrind and the sanitizers (LDLPGS_TEST_SHORT)
 * fewer, still past the diverging copy's step 10 */
static int steps(void) { return getenv("LDLPGS_TEST_SHORT") ? 30 : 90; }
#define MAX_CONTACTS 64

typedef struct pair {
  rt_world *w[16];   /* the batch's copies */
  rt_world *ref[16]; /* stepped alone */
  rt_batch *b;
  int N;
  long passes; /* contact passes (block steps after a pass) of the copies, over the runs */
  long group_passes[4]; /* those of copies 0-3, 4-7, 8-11, 12-15 (batch.c's groups of lanes: 4 or 8) */
  long masked; /* copy-steps whose passes took a block step with rows coupled through S */
  long split;  /* steps with a row on other bodies in two copies, both sweeping it */
  long let_go; /* copy-steps of calm copies whose contacts S let go (schur.c's rt__schur_let_go) */
  int nsteps;  /* steps of a run: steps() if 0 */
  unsigned char lanes_at[512]; /* each step of the last run: rt_batch_stepped_in_lanes */
  int (*left_out)(int j, int k, int N); /* whether copy j is left out of step k (NULL: none is) */
  int alone; /* copies 0, 3, 6, ... left out of an even step step alone (rt_world_step) before it */
  int (*calm)(int j, int N); /* whether copy j is driven calmly (drive_copy; NULL: none is) */
  void (*retune)(struct pair *p, int k); /* changes settings before step k (NULL: none) */
} pair;

/* settings_of's post-stabilization: the program's, or on (1) */
static int stabilize_on = 0;

static rt_settings settings_of(const batchtest_program *t) {
  rt_settings s = *t->settings;
  s.max_contacts = MAX_CONTACTS;
  s.threaded = 0;
  if (stabilize_on) s.stabilize = 1;
  return s;
}

/* make_pair's batches run stages 5 and 6b in lanes (or copy by copy). */
static int lane_stages = 1;

static void make_pair(pair *p, const batchtest_program *t, int portable) {
  const rt_settings s = settings_of(t);
  p->N = t->lanes;
  for (int j = 0; j < p->N; j++) {
    rt_status st;
    p->w[j] = rt_world_create(t->desc, t->tables, &s, &st, NULL, 0);
    assert_int_equal(st, RT_OK);
    p->ref[j] = rt_world_create(t->desc, t->scalar, &s, &st, NULL, 0);
    assert_int_equal(st, RT_OK);
  }
  rt_status st;
  p->passes = p->masked = p->split = p->let_go = 0;
  memset(p->group_passes, 0, sizeof p->group_passes);
  p->nsteps = 0;
  p->left_out = NULL;
  p->alone = 0;
  p->calm = NULL;
  p->retune = NULL;
  p->b = rt_batch_create(portable ? t->portable_batch : t->batch, p->w, p->N, &st);
  assert_int_equal(st, RT_OK);
  assert_non_null(p->b);
  assert_int_equal(rt_batch_lanes(p->b), p->N);
  assert_int_equal(rt_batch_set_lane_stages(p->b, lane_stages), RT_OK);
  assert_int_equal(rt_batch_set_stepping(p->b, RT_BATCH_STEP_LANES), RT_OK);
}

/* Copy j's settings, in the batch and in its reference. */
static void set_copy(pair *p, int j, const rt_settings *s) {
  assert_int_equal(rt_world_set_settings(p->w[j], s), RT_OK);
  assert_int_equal(rt_world_set_settings(p->ref[j], s), RT_OK);
}

static void free_pair(pair *p) {
  rt_batch_destroy(p->b);
  for (int j = 0; j < p->N; j++) {
    rt_world_destroy(p->w[j]);
    rt_world_destroy(p->ref[j]);
  }
}

/* Copy j's input before step k, the same for w and its reference;
 * returns how many of the calls were refused (none should be). No cmocka
 * call, so that a thread of its own can drive (test_threads). A calm copy
 * is given its contacts alone: no push, its motors held at speed 0. */
static int drive_copy(rt_world *w, int j, int k, int calm) {
  int refused = 0;
  const int nb = rt_world_body_count(w);
  if (k == 0 && !calm) {
    const double v[3] = {0.05 * j, -0.03 * j, 0.02 * (j % 3)}, av[3] = {0.0, 0.1 * (j % 2), 0.0};
    refused += rt_world_set_body_state(w, nb - 1, NULL, v, av) != RT_OK;
  }
  for (int c = 0; c < 64; c++) {
    const double fmax = rt_world_motor_max_force(w, c);
    if (isnan(fmax)) break;
    if (fmax > 0) refused += rt_world_set_motor(w, c, calm ? 0.0 : 0.4 * (j - 3) + 0.01 * k, fmax) != RT_OK;
  }
  const double f[3] = {3.0 * j, 0.0, (k % 20 < 10) ? 5.0 * j : 0.0};
  if (!calm) refused += rt_world_add_force(w, j % nb, f, NULL) != RT_OK;
  rt_contact c[MAX_CONTACTS];
  int n = rt_world_ground_contacts(w, -0.02 * (j % 4), 0.8, 0.05, c, MAX_CONTACTS);
  if (n > MAX_CONTACTS) n = MAX_CONTACTS;
  if (j % 2) /* the odd copies list their contacts backwards: a row's bodies differ between the lanes */
    for (int i = 0; i < n / 2; i++) {
      const rt_contact x = c[i];
      c[i] = c[n - 1 - i];
      c[n - 1 - i] = x;
    }
  refused += rt_world_set_contacts(w, c, n) != RT_OK;
  return refused;
}

static int drive(rt_world *w, int j, int k) { return drive_copy(w, j, k, 0); }

static void same_bits(const char *what, const void *a, const void *b, size_t n, int j, int k) {
  if (memcmp(a, b, n) != 0) fail_msg("copy %d, step %d: %s differs from the world stepped alone", j, k, what);
}

/* Copy j of the batch against its reference after step k. */
static void same_copy(rt_world *w, rt_world *ref, int j, int k) {
  const int nb = rt_world_body_count(w);
  for (int i = 0; i < nb; i++) {
    rt_pose p, q;
    double v[6], u[6];
    rt_world_body_pose(w, i, &p);
    rt_world_body_pose(ref, i, &q);
    same_bits("a pose", &p, &q, sizeof p, j, k);
    rt_world_body_velocity(w, i, v, v + 3);
    rt_world_body_velocity(ref, i, u, u + 3);
    same_bits("a velocity", v, u, sizeof v, j, k);
  }
  for (int c = 0; c < 64; c++) {
    const double a = rt_world_motor_impulse(w, c), b = rt_world_motor_impulse(ref, c);
    if (isnan(a) && isnan(b)) break;
    same_bits("a joint impulse", &a, &b, sizeof a, j, k);
  }
  assert_int_equal(rt_world_contact_count(w), rt_world_contact_count(ref));
  for (int i = 0; i < rt_world_contact_count(w); i++) {
    const double a = rt_world_contact_impulse(w, i), b = rt_world_contact_impulse(ref, i);
    same_bits("a contact impulse", &a, &b, sizeof a, j, k);
  }
  const rt_step_info *x = rt_world_step_info(w), *y = rt_world_step_info(ref);
  assert_int_equal(x->factor_status, y->factor_status);
  assert_int_equal(x->sweeps, y->sweeps);
  assert_int_equal(x->rows, y->rows);
  assert_int_equal(x->contact_passes, y->contact_passes);
  assert_int_equal(x->coupled_rows, y->coupled_rows);
  /* the block steps the batch solves in lanes record what rt_world_step's do */
  assert_int_equal(x->refine_steps, y->refine_steps);
  assert_int_equal(x->coupled_sweeps, y->coupled_sweeps);
  assert_int_equal(x->projections, y->projections);
  assert_true(x->steps == y->steps);
}

/* Whether some row beyond the block is on other bodies in two copies,
 * live in both (not inert): the lanes sweep it once per pair of bodies
 * (batch_pgs_row.h). */
static int rows_split(const pair *p) {
  for (int j = 1; j < p->N; j++) {
    const rt__rows *x = &p->w[0]->rows, *y = &p->w[j]->rows;
    for (int i = p->w[0]->dim; i < x->n && i < y->n; i++)
      if (x->inv_diag[i] != 0.0 && y->inv_diag[i] != 0.0 && (x->a[i] != y->a[i] || x->b[i] != y->b[i])) return 1;
  }
  return 0;
}

/* Steps both sides steps() times (diverge: copy 1's bodies are given
 * velocities that blow its step up at step 10) and compares after every step. Returns
 * how many copy-steps had more than one contact row count among the
 * copies (the padding was exercised). */
static int run(pair *p, int diverge) {
  int uneven = 0;
  const int nsteps = p->nsteps > 0 ? p->nsteps : steps();
  assert_true(nsteps <= (int)sizeof p->lanes_at);
  for (int k = 0; k < nsteps; k++) {
    rt_status want[16], got[16];
    int lo = 1 << 30, hi = 0;
    if (p->retune) p->retune(p, k);
    for (int j = 0; j < p->N; j++) {
      const int calm = p->calm && p->calm(j, p->N);
      assert_int_equal(drive_copy(p->w[j], j, k, calm), 0);
      assert_int_equal(drive_copy(p->ref[j], j, k, calm), 0);
      if (diverge && j == 1 && k == 10) {
        const double v[3] = {1e308, -1e308, 1e308};
        for (int i = 0; i < rt_world_body_count(p->w[j]); i++) {
          assert_int_equal(rt_world_set_body_state(p->w[j], i, NULL, v, v), RT_OK);
          assert_int_equal(rt_world_set_body_state(p->ref[j], i, NULL, v, v), RT_OK);
        }
      }
      const int n = rt_world_contact_count(p->w[j]);
      lo = n < lo ? n : lo;
      hi = n > hi ? n : hi;
    }
    uneven += lo != hi;
    rt_status first = RT_OK;
    for (int j = 0; j < p->N; j++) {
      const int out = p->left_out && p->left_out(j, k, p->N);
      assert_int_equal(rt_batch_set_active(p->b, j, !out), RT_OK);
      assert_int_equal(rt_batch_active(p->b, j), !out);
      if (out && p->alone && j % 3 == 0 && k % 2 == 0) /* the game steps it alone, between the batch's steps */
        assert_int_equal(rt_world_step(p->w[j]), rt_world_step(p->ref[j]));
      want[j] = out ? RT_OK : rt_world_step(p->ref[j]); /* left out: not stepped by the batch, its inputs kept */
      if (first == RT_OK) first = want[j];
    }
    assert_int_equal(rt_batch_step(p->b, got), first);
    p->split += rows_split(p);
    p->lanes_at[k] = (unsigned char)rt_batch_stepped_in_lanes(p->b);
    for (int j = 0; j < p->N; j++) {
      assert_int_equal(got[j], want[j]);
      same_copy(p->w[j], p->ref[j], j, k);
      const rt_step_info *info = rt_world_step_info(p->w[j]);
      p->passes += info->contact_passes;
      p->group_passes[j / 4] += info->contact_passes;
      p->masked += info->contact_passes > 0 && info->coupled_rows > 0;
      p->let_go += p->calm && p->calm(j, p->N) && rt__schur_let_go(p->w[j]);
    }
    if (diverge && k == 10) assert_int_equal(got[1], RT_ERR_DIVERGED);
  }
  return uneven;
}

static void test_same_settings(void **state) {
  const batchtest_program *t = *state;
  for (int portable = 0; portable <= 1; portable++) {
    pair p;
    make_pair(&p, t, portable);
    const int uneven = run(&p, 0);
    /* the buggy stands on its wheels: its copies' contact counts differ */
    if (strncmp(t->name, "buggy", 5) == 0) assert_true(uneven > 0);
    free_pair(&p);
  }
}

static void test_mixed_settings(void **state) {
  const batchtest_program *t = *state;
  pair p;
  make_pair(&p, t, 0);
  rt_settings s = settings_of(t);
  s.iterations += 5;
  set_copy(&p, 2, &s);
  s = settings_of(t);
  s.solver = RT_SOLVER_PGS;
  set_copy(&p, 3, &s);
  run(&p, 0);
  assert_int_equal(rt_world_step_info(p.w[3])->factor_status, -2);
  /* the same settings again for all, with sweeps enough for the lanes
   * (batch.c runs fewer than 4 copy by copy): LDL-PGS with nothing coupled
   * and no contact passes (the buggy's contacts left to the sweeps; the
   * chain has no row outside its block, so none), then plain PGS */
  for (int pgs = 0; pgs <= 1; pgs++) {
    s = settings_of(t);
    s.coupled_rows = s.coupled_contacts = s.contact_passes = 0;
    if (pgs) s.solver = RT_SOLVER_PGS;
    assert_int_equal(rt_batch_set_settings(p.b, &s), RT_OK);
    for (int j = 0; j < p.N; j++) assert_int_equal(rt_world_set_settings(p.ref[j], &s), RT_OK);
    p.split = 0;
    run(&p, 0);
    if (pgs || strncmp(t->name, "buggy", 5) == 0) assert_true(rt_world_step_info(p.w[0])->sweeps >= 4);
    if (strncmp(t->name, "buggy", 5) == 0) assert_true(p.split > 0);
  }
  /* nothing coupled again, and copy 2 sweeps more: the sweeps run copy by
   * copy, so the lanes gather only the rows the contact passes sweep, and
   * the block's rows when a pass first needs a block step (the buggy's
   * wheels bouncing on their contacts take some) */
  s = settings_of(t);
  s.coupled_rows = s.coupled_contacts = 0;
  assert_int_equal(rt_batch_set_settings(p.b, &s), RT_OK);
  for (int j = 0; j < p.N; j++) assert_int_equal(rt_world_set_settings(p.ref[j], &s), RT_OK);
  s.iterations += 3;
  set_copy(&p, 2, &s);
  p.passes = 0;
  memset(p.group_passes, 0, sizeof p.group_passes);
  run(&p, 0);
  if (strncmp(t->name, "buggy", 5) == 0) /* in every group of lanes */
    for (int g = 0; g < p.N / 4; g++) assert_true(p.group_passes[g] > 0);
  /* the motors coupled through S and the contacts left to the passes: the
   * passes after the first sweep leave the motors out (rt__lanes_mask in
   * the lanes, as rt__step_contacts does to a world's rows), and S solves
   * them again after the passes */
  s = settings_of(t);
  s.coupled_contacts = 0;
  assert_int_equal(rt_batch_set_settings(p.b, &s), RT_OK);
  for (int j = 0; j < p.N; j++) assert_int_equal(rt_world_set_settings(p.ref[j], &s), RT_OK);
  p.masked = 0;
  run(&p, 0);
  if (strncmp(t->name, "buggy", 5) == 0) assert_true(p.masked > 0);
  free_pair(&p);
}

/* The contact passes' first sweep in lanes (batch.c's contacts: when at
 * least half of the last step's copies went on after theirs), each lane
 * with its own copy's tolerance (step.c's rt__step_contacts_tolerance):
 * the lower half of the copies leave their contacts to the passes
 * (coupled_contacts 0), which go on after the first sweep, and the upper
 * half solve theirs through S, which lets them go once they settle, and
 * then sweeps them in that first sweep against the let-go threshold. */
static int upper_half(int j, int N) { return j >= N / 2; }

static void test_first_pass_tolerances(void **state) {
  const batchtest_program *t = *state;
  pair p;
  make_pair(&p, t, 0);
  rt_settings s = settings_of(t);
  s.coupled_contacts = 0;
  for (int j = 0; j < p.N / 2; j++) set_copy(&p, j, &s);
  p.calm = upper_half;
  p.nsteps = 2 * steps();
  run(&p, 0);
  if (strncmp(t->name, "buggy", 5) == 0) { /* both kinds of copies in the lanes' first sweep, step after step */
    assert_true(p.let_go > (long)p.nsteps * (p.N / 2) / 2);
    for (int g = 0; g < p.N / 2 / 4; g++) assert_true(p.group_passes[g] > p.nsteps);
  }
  free_pair(&p);
}

/* The sweeps and contact passes copy by copy (what a build without AVX
 * does by default): the same bits. */
static void test_copy_by_copy(void **state) {
  lane_stages = 0;
  test_same_settings(state);
  lane_stages = 1;
}

/* Post-stabilization on (a second assembly and factorization a step, in
 * lanes, batch.c's stabilize): the same bits, with the projection's
 * passes (in lanes too) and without them (copy 1), and a copy whose
 * post-stabilization runs copy by copy (copy 2: plain PGS has no factor in
 * the lanes and no post-stabilization; copy 3 with PCR, whose block
 * solves need no factor). */
static void test_post_stabilization(void **state) {
  const batchtest_program *t = *state;
  stabilize_on = 1;
  pair p;
  make_pair(&p, t, 0);
  rt_settings s = settings_of(t);
  assert_true(s.stabilize);
  s.project = 0;
  set_copy(&p, 1, &s);
  s = settings_of(t);
  s.solver = RT_SOLVER_PGS;
  set_copy(&p, 2, &s);
  s = settings_of(t);
  s.block_solver = RT_BLOCK_PCR;
  set_copy(&p, 3, &s);
  run(&p, 0);
  free_pair(&p);
  stabilize_on = 0;
}

/* RT_BATCH_LANES_AUTO: the sweeps and contact passes in lanes while the
 * step's rows in lanes fit the budget (the default budget holds the small
 * samples' rows), copy by copy above it; the same bits either way. */
static void test_lane_budget(void **state) {
  const batchtest_program *t = *state;
  const size_t budgets[2] = {RT_BATCH_LANES_BUDGET, 1};
  lane_stages = RT_BATCH_LANES_AUTO;
  for (int k = 0; k < 2; k++) {
    pair p;
    make_pair(&p, t, 0);
    assert_int_equal(rt_batch_lanes_used(p.b), 0); /* no step yet */
    assert_int_equal(rt_batch_set_lane_budget(p.b, budgets[k]), RT_OK);
    run(&p, 0);
    assert_int_equal(rt_batch_lanes_used(p.b), k == 0);
    free_pair(&p);
  }
  lane_stages = 1;
}

/* The budget of a batch of 16 counts one group's lanes (batch.c's
 * groups: 4 or 8 copies, never 16): the chain's rows (it has no contacts,
 * so every step has its nfixed_rows) in 16 lanes one byte over the budget
 * still run in lanes, in 4 lanes one byte over it copy by copy. */
static void test_group_budget(void **state) {
  const batchtest_program *t = *state;
  lane_stages = RT_BATCH_LANES_AUTO;
  for (int k = 0; k < 2; k++) {
    pair p;
    make_pair(&p, t, 0);
    const int rows = p.w[0]->nfixed_rows, nsbody = p.w[0]->prog->nsbody;
    const size_t budget = rt__lanes_bytes(k == 0 ? 16 : 4, rows, nsbody) - 1;
    assert_int_equal(rt_batch_set_lane_budget(p.b, budget), RT_OK);
    p.nsteps = 5;
    run(&p, 0);
    assert_int_equal(rt_world_contact_count(p.w[0]), 0);
    assert_int_equal(rt_batch_lanes_used(p.b), k == 0);
    free_pair(&p);
  }
  lane_stages = 1;
}

/* RT_BATCH_STEP_COPIES: every copy by rt_world_step, nothing in lanes;
 * copy 0 with its factorization thread (threaded 2: always handed off),
 * its reference without, the same bits. */
static void test_stepping_copies(void **state) {
  const batchtest_program *t = *state;
  pair p;
  make_pair(&p, t, 0);
  assert_int_equal(rt_batch_set_stepping(p.b, RT_BATCH_STEP_COPIES), RT_OK);
  rt_settings s = settings_of(t);
  s.threaded = RT_THREADED_ALWAYS;
  const rt_status threads = rt_world_set_settings(p.w[0], &s);
  assert_true(threads == RT_OK || threads == RT_ERR_THREAD); /* a build without threads refuses */
  run(&p, 1);
  /* the buggy's factorization is worth the thread (the chain's is not: factor.c) */
  if (threads == RT_OK && strncmp(t->name, "buggy", 5) == 0)
    assert_int_equal(rt_world_step_info(p.w[0])->factor_thread, 1);
  for (int k = 0; k < steps(); k++) assert_int_equal(p.lanes_at[k], 0);
  assert_int_equal(rt_batch_lanes_used(p.b), 0);
  free_pair(&p);
}

/* RT_BATCH_STEP_MEASURED (the default): in lanes for RT__PICK_WARMUP
 * steps, then RT__PICK_SAMPLES steps of each kind, copies first, in the
 * order ABBA, then the faster kind, steadily; the same bits throughout. */
static void test_stepping_measured(void **state) {
  const batchtest_program *t = *state;
  pair p;
  make_pair(&p, t, 0);
  assert_int_equal(rt_batch_set_stepping(p.b, RT_BATCH_STEP_MEASURED), RT_OK);
  const int window = 2 * RT__PICK_SAMPLES;
  p.nsteps = RT__PICK_WARMUP + window + 16;
  run(&p, 0);
  int kinds[2] = {0, 0};
  for (int k = 0; k < p.nsteps; k++) {
    const int at = k - RT__PICK_WARMUP;
    if (at < 0)
      assert_int_equal(p.lanes_at[k], 1);
    else if (at < window)
      kinds[p.lanes_at[k]] += p.lanes_at[k] == (((at + 1) >> 1) & 1);
    else
      assert_int_equal(p.lanes_at[k], p.lanes_at[RT__PICK_WARMUP + window]);
  }
  assert_int_equal(kinds[0], RT__PICK_SAMPLES);
  assert_int_equal(kinds[1], RT__PICK_SAMPLES);
  free_pair(&p);
}

/* Whether steps [from, from + 2 RT__PICK_SAMPLES) of the last run were a
 * window (kinds A B B A ..., copies first) and the steps from `after` up
 * to it were not (they all took one kind). */
static void window_at(const pair *p, int after, int from) {
  for (int k = after; k < from; k++) assert_int_equal(p->lanes_at[k], p->lanes_at[after]);
  for (int at = 0; at < 2 * RT__PICK_SAMPLES; at++) assert_int_equal(p->lanes_at[from + at], ((at + 1) >> 1) & 1);
}

/* Copies 2 .. N-1 left out from step 100 on. */
static int six_out(int j, int k, int N) {
  (void)N;
  return k >= 100 && j >= 2;
}

/* RT_BATCH_STEP_MEASURED with the copies that step changing: the lanes
 * cost as much for 2 copies as for 8, the copies one by one a quarter, so
 * the choice is measured again, RT__PICK_AGAIN steps after the last
 * window began (not RT__PICK_PERIOD); the same bits throughout. */
static void test_measured_again(void **state) {
  const batchtest_program *t = *state;
  pair p;
  make_pair(&p, t, 0);
  assert_int_equal(rt_batch_set_stepping(p.b, RT_BATCH_STEP_MEASURED), RT_OK);
  p.left_out = six_out;
  const int again = RT__PICK_WARMUP + RT__PICK_AGAIN;
  p.nsteps = again + 2 * RT__PICK_SAMPLES + 8;
  run(&p, 0);
  window_at(&p, RT__PICK_WARMUP, RT__PICK_WARMUP);
  window_at(&p, RT__PICK_WARMUP + 2 * RT__PICK_SAMPLES, again);
  free_pair(&p);
}

/* Step 100: copy 1's iterations, set on the copy itself, not through the
 * batch (and on its reference). */
static void retune_copy(pair *p, int k) {
  if (k != 100) return;
  rt_settings s = *rt_world_settings(p->w[1]);
  s.iterations += 2;
  set_copy(p, 1, &s);
}

/* Step 100: every copy's contact passes, through the batch. */
static void retune_batch(pair *p, int k) {
  if (k != 100) return;
  rt_settings s = *rt_world_settings(p->w[0]);
  s.contact_passes += 1;
  assert_int_equal(rt_batch_set_settings(p->b, &s), RT_OK);
  for (int j = 0; j < p->N; j++) assert_int_equal(rt_world_set_settings(p->ref[j], &s), RT_OK);
}

/* Step 100: the lanes' budget halved. */
static void retune_budget(pair *p, int k) {
  if (k == 100) assert_int_equal(rt_batch_set_lane_budget(p->b, RT_BATCH_LANES_BUDGET / 2), RT_OK);
}

/* Steps 90-110: the lanes' setting and budget set again as they are. */
static void retune_nothing(pair *p, int k) {
  if (k < 90 || k > 110) return;
  assert_int_equal(rt_batch_set_lane_stages(p->b, lane_stages), RT_OK);
  assert_int_equal(rt_batch_set_lane_budget(p->b, RT_BATCH_LANES_BUDGET), RT_OK);
}

/* RT_BATCH_STEP_MEASURED when the work changes otherwise: a copy's settings
 * (set on the copy or through the batch) or the lanes' budget change at
 * step 100, so the choice is measured again RT__PICK_AGAIN steps after
 * the last window began; set again unchanged, they change nothing (the
 * next window RT__PICK_PERIOD steps after). The same bits throughout. */
static void test_measured_again_retuned(void **state) {
  const batchtest_program *t = *state;
  void (*const retunes[])(pair *, int) = {retune_copy, retune_batch, retune_budget,
                                          retune_nothing};
  for (size_t i = 0; i < sizeof retunes / sizeof *retunes; i++) {
    pair p;
    make_pair(&p, t, 0);
    assert_int_equal(rt_batch_set_stepping(p.b, RT_BATCH_STEP_MEASURED), RT_OK);
    p.retune = retunes[i];
    const int again = RT__PICK_WARMUP + RT__PICK_AGAIN;
    p.nsteps = again + 2 * RT__PICK_SAMPLES + 8;
    run(&p, 0);
    const int after = RT__PICK_WARMUP + 2 * RT__PICK_SAMPLES;
    window_at(&p, RT__PICK_WARMUP, RT__PICK_WARMUP);
    if (retunes[i] == retune_nothing) /* one kind up to the end: no window */
      for (int k = after; k < p.nsteps; k++) assert_int_equal(p.lanes_at[k], p.lanes_at[after]);
    else
      window_at(&p, after, again);
    free_pair(&p);
  }
}

/* Calls n0 .. n1 - 1 of pk: whether each was a window's (timed[] from n0). */
static void plan_calls(rt__pick *pk, int n0, int n1, unsigned char *timed) {
  for (int n = n0; n < n1; n++) {
    int t;
    const int kind = rt__pick_plan(pk, &t);
    timed[n] = (unsigned char)t;
    if (t) rt__pick_timed(pk, kind, kind ? 1.0 : 2.0, 1.0);
  }
}

/* rt__pick_again: nothing before the first window; between windows, the
 * next one RT__PICK_AGAIN calls after the last one's start, or at once if
 * they have passed; during one, the one after it that soon; then
 * RT__PICK_PERIOD apart again. */
static void test_pick_again(void **state) {
  (void)state;
  enum { W = 2 * RT__PICK_SAMPLES, A = RT__PICK_AGAIN, N = 1000 + 2 * RT__PICK_PERIOD + W };
  static unsigned char timed[N];
  rt__pick pk;
  rt__pick_init(&pk, 0);
  plan_calls(&pk, 0, 10, timed);
  rt__pick_again(&pk); /* the first window is still to come */
  plan_calls(&pk, 10, 100, timed);
  rt__pick_again(&pk); /* the next window A after the first's start */
  const int second = RT__PICK_WARMUP + A;
  plan_calls(&pk, 100, second + 12, timed);
  rt__pick_again(&pk); /* during it: the one after it A after its start */
  const int third = second + A, fourth = 1000;
  plan_calls(&pk, second + 12, fourth, timed);
  rt__pick_again(&pk); /* A have passed: at once */
  const int fifth = fourth + RT__PICK_PERIOD, sixth = fifth + RT__PICK_PERIOD;
  plan_calls(&pk, fourth, N, timed);
  const int starts[] = {RT__PICK_WARMUP, second, third, fourth, fifth, sixth};
  int w = 0;
  for (int n = 0; n < N; n++) {
    const int in = w < 6 && n >= starts[w] && n < starts[w] + W;
    if (timed[n] != in) fail_msg("call %d: timed %d, expected %d", n, timed[n], in);
    if (w < 6 && n == starts[w] + W - 1) w++;
  }
  assert_int_equal(w, 6);
  assert_int_equal(pk.choice, 1); /* kind 1 took half kind 0's time */
}

/* The window's verdict (margin 1, as rt_batch_step's): the kind of the
 * lower median, one outlier among kind 1's samples (far slower or far
 * faster) aside; a tie to kind 0; no verdict until both kinds have their
 * samples. */
static void test_pick_verdict(void **state) {
  (void)state;
  const struct {
    double zero, one, odd; /* odd: one outlier among kind 1's samples */
    int choice;
  } cases[] = {{1.0, 0.9, 0.9, 1}, {1.0, 1.1, 1.1, 0}, {1.0, 1.0, 1.0, 0}, {1.0, 0.99, 100.0, 1}, {1.0, 1.01, 0.0, 0}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    rt__pick pk;
    rt__pick_init(&pk, !cases[c].choice);
    for (int i = 0; i < RT__PICK_SAMPLES; i++) {
      rt__pick_timed(&pk, 1, i == 5 ? cases[c].odd : cases[c].one, 1.0);
      assert_int_equal(pk.choice, !cases[c].choice);
      rt__pick_timed(&pk, 0, cases[c].zero, 1.0);
    }
    assert_int_equal(pk.choice, cases[c].choice);
    assert_int_equal(pk.ntimes[0] + pk.ntimes[1], 0); /* the next window starts afresh */
  }
  assert_true(rt__pick_now() > 0.0);
}

/* Copies left out of steps (rt_batch_set_active): copy 1 of every step
 * but the last 10 (a convoy with a lane to spare), the others a while each
 * (one group of lanes whole, then another), and every copy for two steps.
 * A copy left out keeps its world, inputs and step info bitwise as its
 * reference, which is not stepped either -- or, now and then, both are
 * stepped alone by rt_world_step (a copy left out is the game's to step);
 * taken back in, it steps on as its reference does, in lanes and one by
 * one. */
static int left_out(int j, int k, int N) {
  if (k >= 24 && k < 26) return 1;                      /* all of them */
  if (j == 1) return k < steps() - 10;                   /* from the start */
  if (k >= 6 && k < 14) return j >= N / 2;               /* the upper half */
  if (k >= 14 && k < 20) return j < N / 2 && j % 2 == 0; /* the lower half's even copies, copy 1 already out */
  return k % 7 == j % 7 && j > 4;                        /* now and then */
}

static void test_left_out(void **state) {
  const batchtest_program *t = *state;
  for (int c = 0; c < 3; c++) {
    pair p;
    make_pair(&p, t, 0);
    assert_int_equal(rt_batch_set_stepping(p.b, c == 2 ? RT_BATCH_STEP_COPIES : RT_BATCH_STEP_LANES), RT_OK);
    if (c == 1) { /* nothing coupled, no contact passes: sweeps enough for stage 5 in lanes (batch.c) */
      rt_settings s = settings_of(t);
      s.coupled_rows = s.coupled_contacts = s.contact_passes = 0;
      assert_int_equal(rt_batch_set_settings(p.b, &s), RT_OK);
      for (int j = 0; j < p.N; j++) assert_int_equal(rt_world_set_settings(p.ref[j], &s), RT_OK);
    }
    p.left_out = left_out;
    p.alone = 1;
    run(&p, 0);
    if (c == 1 && strncmp(t->name, "buggy", 5) == 0) assert_true(rt_world_step_info(p.w[0])->sweeps >= 4);
    for (int k = 0; k < steps(); k++) assert_int_equal(p.lanes_at[k], c < 2);
    free_pair(&p);
  }
}

/* A batch stepped by a thread of its own: its copies driven as run()
 * drives them, each step's statuses kept. */
typedef struct stepper {
  pair *p;
  int nsteps, refused;
  rt_status got[128][16];
} stepper;

static void *step_alone(void *arg) {
  stepper *s = arg;
  for (int k = 0; k < s->nsteps; k++) {
    for (int j = 0; j < s->p->N; j++) s->refused += drive(s->p->w[j], j, k);
    rt_batch_step(s->p->b, s->got[k]);
  }
  return NULL;
}

/* Two batches of one program stepped at once by two threads (one in
 * lanes, one measuring lanes against copies): a batch or world shares
 * nothing another writes (the runtime keeps no state of its own; the
 * programs are constant), so every copy ends with the bits of its
 * reference, stepped afterwards on this thread, and every step had its
 * reference's status. */
static void test_threads(void **state) {
  const batchtest_program *t = *state;
  pair p[2];
  static stepper s[2];
  pthread_t th[2];
  for (int i = 0; i < 2; i++) {
    make_pair(&p[i], t, 0);
    s[i] = (stepper){.p = &p[i], .nsteps = steps()};
    assert_true(s[i].nsteps <= 128);
  }
  assert_int_equal(rt_batch_set_stepping(p[1].b, RT_BATCH_STEP_MEASURED), RT_OK);
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, step_alone, &s[i]), 0);
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(s[i].refused, 0);
    for (int k = 0; k < s[i].nsteps; k++)
      for (int j = 0; j < p[i].N; j++) {
        assert_int_equal(drive(p[i].ref[j], j, k), 0);
        assert_int_equal(s[i].got[k][j], rt_world_step(p[i].ref[j]));
      }
    for (int j = 0; j < p[i].N; j++) same_copy(p[i].w[j], p[i].ref[j], j, s[i].nsteps - 1);
    free_pair(&p[i]);
  }
}

static void test_diverging_copy(void **state) {
  const batchtest_program *t = *state;
  pair p;
  make_pair(&p, t, 0);
  run(&p, 1);
  free_pair(&p);
}

/* Bad input: clear errors, nothing made, nothing changed. */
static void test_errors(void **state) {
  (void)state;
  const batchtest_program *chain8 = NULL, *chain8f = NULL, *buggy8 = NULL;
  for (const batchtest_program *t = batchtest_programs; t->name; t++) {
    if (strcmp(t->name, "chain_double_b8") == 0) chain8 = t;
    if (strcmp(t->name, "chain_float_b8") == 0) chain8f = t;
    if (strcmp(t->name, "buggy_double_b8") == 0) buggy8 = t;
  }
  assert_non_null(chain8);
  assert_non_null(chain8f);
  assert_non_null(buggy8);
  const rt_settings s = settings_of(chain8);
  rt_world *w[9];
  rt_settings roomy = s; /* copy 0 holds more contacts than the others */
  roomy.max_contacts = s.max_contacts + 1;
  for (int j = 0; j < 9; j++) w[j] = rt_world_create(chain8->desc, chain8->scalar, j == 0 ? &roomy : &s, NULL, NULL, 0);
  rt_world *other = rt_world_create(buggy8->desc, buggy8->scalar, &s, NULL, NULL, 0);
  rt_world *single = rt_world_create(chain8f->desc, chain8f->scalar, &s, NULL, NULL, 0);
  assert_non_null(other);
  assert_non_null(single);
  rt_status st = RT_OK;
  assert_null(rt_batch_create(NULL, w, 8, &st));
  assert_int_equal(st, RT_ERR_INPUT);
  assert_null(rt_batch_create(chain8->batch, NULL, 8, &st));
  assert_int_equal(st, RT_ERR_INPUT);
  assert_null(rt_batch_create(chain8->batch, w, 4, &st)); /* n != lanes */
  assert_int_equal(st, RT_ERR_INPUT);
  rt_batch_program odd = *chain8->batch;
  odd.lanes = 6;
  assert_null(rt_batch_create(&odd, w, 6, &st));
  assert_int_equal(st, RT_ERR_INPUT);
  rt_world *twice[8] = {w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[0]};
  assert_null(rt_batch_create(chain8->batch, twice, 8, &st));
  assert_int_equal(st, RT_ERR_INPUT);
  rt_world *mixed[8] = {w[0], w[1], w[2], other, w[4], w[5], w[6], w[7]};
  assert_null(rt_batch_create(chain8->batch, mixed, 8, &st)); /* another mechanism */
  assert_int_equal(st, RT_ERR_HASH);
  mixed[3] = single;
  assert_null(rt_batch_create(chain8->batch, mixed, 8, &st)); /* another precision */
  assert_int_equal(st, RT_ERR_HASH);
  assert_int_equal(rt_batch_step(NULL, NULL), RT_ERR_INPUT);
  assert_int_equal(rt_batch_set_lane_stages(NULL, 1), RT_ERR_INPUT);
  assert_int_equal(rt_batch_set_lane_budget(NULL, 0), RT_ERR_INPUT);
  assert_int_equal(rt_batch_lanes_used(NULL), 0);
  assert_int_equal(rt_batch_set_stepping(NULL, RT_BATCH_STEP_LANES), RT_ERR_INPUT);
  assert_int_equal(rt_batch_stepped_in_lanes(NULL), 0);
  assert_int_equal(rt_batch_lanes(NULL), 0);
  assert_int_equal(rt_batch_set_active(NULL, 0, 0), RT_ERR_INPUT);
  assert_int_equal(rt_batch_active(NULL, 0), 0);
  rt_batch *b = rt_batch_create(chain8->batch, w, 8, &st);
  assert_int_equal(st, RT_OK);
  for (int j = 0; j < 8; j++) assert_int_equal(rt_batch_active(b, j), 1); /* every copy in */
  assert_int_equal(rt_batch_set_active(b, 8, 0), RT_ERR_INPUT);
  assert_int_equal(rt_batch_set_active(b, -1, 0), RT_ERR_INPUT);
  assert_int_equal(rt_batch_active(b, 8), 0);
  assert_int_equal(rt_batch_active(b, -1), 0);
  for (int j = 0; j < 8; j++) assert_int_equal(rt_batch_active(b, j), 1); /* refused: nothing changed */
  assert_int_equal(rt_batch_set_active(b, 3, 0), RT_OK);
  assert_int_equal(rt_batch_active(b, 3), 0);
  assert_int_equal(rt_batch_set_active(b, 3, 7), RT_OK); /* any nonzero: in */
  assert_int_equal(rt_batch_active(b, 3), 1);
  assert_null(rt_batch_world(b, 8));
  assert_null(rt_batch_world(b, -1));
  assert_ptr_equal(rt_batch_world(b, 7), w[7]);
  assert_int_equal(rt_batch_stepped_in_lanes(b), 0); /* no step yet */
  assert_int_equal(rt_batch_set_stepping(b, 2), RT_ERR_INPUT);
  assert_int_equal(rt_batch_set_stepping(b, -2), RT_ERR_INPUT);
  /* settings one world refuses: none changes */
  rt_settings bad = s;
  bad.dt = -1.0;
  assert_int_equal(rt_batch_set_settings(b, &bad), RT_ERR_INPUT);
  assert_int_equal(rt_batch_set_settings(b, NULL), RT_ERR_INPUT);
  rt_settings other_dt = s;
  other_dt.dt = s.dt / 2;
  assert_int_equal(rt_world_set_settings(w[5], &other_dt), RT_OK);
  bad = roomy; /* copy 0 takes them, copy 1 refuses (max_contacts): copy 0 gets its own back */
  bad.dt = s.dt / 3;
  const long long set0 = w[0]->settings_set;
  assert_int_equal(rt_batch_set_settings(b, &bad), RT_ERR_INPUT);
  assert_true(rt_world_settings(w[0])->dt == s.dt);
  assert_true(w[0]->settings_set == set0); /* and no change counted: the batch's choice stands */
  assert_true(rt_world_settings(w[5])->dt == other_dt.dt);
  assert_int_equal(rt_batch_set_settings(b, &other_dt), RT_ERR_INPUT); /* copy 0 refuses */
  rt_batch_destroy(b);
  rt_world *roomy_world = w[0];
  w[0] = w[8];
  b = rt_batch_create(chain8->batch, w, 8, &st);
  assert_int_equal(st, RT_OK);
  assert_int_equal(rt_batch_set_settings(b, &other_dt), RT_OK);
  for (int j = 0; j < 8; j++) assert_true(rt_world_settings(w[j])->dt == other_dt.dt);
  rt_batch_destroy(b);
  rt_batch_destroy(NULL);
  for (int j = 1; j < 9; j++) rt_world_destroy(w[j]);
  rt_world_destroy(roomy_world);
  rt_world_destroy(other);
  rt_world_destroy(single);
}

int main(void) {
  enum { MAX_TESTS = 64 };
  struct CMUnitTest tests[13 * MAX_TESTS + 3];
  static char names[13 * MAX_TESTS][112];
  int n = 0, samples = 0;
  for (const batchtest_program *t = batchtest_programs; t->name; t++)
    samples |= strcmp(t->name, "chain_double_b8") == 0;
  for (const batchtest_program *t = batchtest_programs; t->name && n + 12 <= 12 * MAX_TESTS; t++) {
    snprintf(names[n], sizeof names[n], "%s: copies driven differently", t->name);
    tests[n] = (struct CMUnitTest){names[n], test_same_settings, NULL, NULL, (void *)t};
    n++;
    snprintf(names[n], sizeof names[n], "%s: post-stabilization", t->name);
    tests[n] = (struct CMUnitTest){names[n], test_post_stabilization, NULL, NULL, (void *)t};
    n++;
    snprintf(names[n], sizeof names[n], "%s: copies with their own settings", t->name);
    tests[n] = (struct CMUnitTest){names[n], test_mixed_settings, NULL, NULL, (void *)t};
    n++;
    snprintf(names[n], sizeof names[n], "%s: copies left out of steps", t->name);
    tests[n] = (struct CMUnitTest){names[n], test_left_out, NULL, NULL, (void *)t};
    n++;
    if (t->lanes == 16 && strncmp(t->name, "chain", 5) == 0) {
      snprintf(names[n], sizeof names[n], "%s: the lane budget counts a group's lanes", t->name);
      tests[n] = (struct CMUnitTest){names[n], test_group_budget, NULL, NULL, (void *)t};
      n++;
    }
    /* the samples' 8-lane programs only (each test at every N of every
     * sample would double make test's time); a random mechanism's
     * programs (tests/random_sweep.sh: 4, 8 or 16 lanes) all */
    if (t->lanes != 8 && samples) continue;
    snprintf(names[n], sizeof names[n], "%s: the first contact sweep in lanes, each its tolerance", t->name);
    tests[n] = (struct CMUnitTest){names[n], test_first_pass_tolerances, NULL, NULL, (void *)t};
    n++;
    snprintf(names[n], sizeof names[n], "%s: sweeps and contact passes copy by copy", t->name);
    tests[n] = (struct CMUnitTest){names[n], test_copy_by_copy, NULL, NULL, (void *)t};
    n++;
    snprintf(names[n], sizeof names[n], "%s: two batches on two threads at once", t->name);
    tests[n] = (struct CMUnitTest){names[n], test_threads, NULL, NULL, (void *)t};
    n++;
    snprintf(names[n], sizeof names[n], "%s: one copy diverges", t->name);
    tests[n] = (struct CMUnitTest){names[n], test_diverging_copy, NULL, NULL, (void *)t};
    n++;
    snprintf(names[n], sizeof names[n], "%s: the lanes' cache budget", t->name);
    tests[n] = (struct CMUnitTest){names[n], test_lane_budget, NULL, NULL, (void *)t};
    n++;
    snprintf(names[n], sizeof names[n], "%s: the copies stepped one by one", t->name);
    tests[n] = (struct CMUnitTest){names[n], test_stepping_copies, NULL, NULL, (void *)t};
    n++;
    snprintf(names[n], sizeof names[n], "%s: lanes or copies, measured", t->name);
    tests[n] = (struct CMUnitTest){names[n], test_stepping_measured, NULL, NULL, (void *)t};
    n++;
    if (strcmp(t->name, "chain_double_b8") == 0) {
      snprintf(names[n], sizeof names[n], "%s: measured again when copies are left out", t->name);
      tests[n] = (struct CMUnitTest){names[n], test_measured_again, NULL, NULL, (void *)t};
      n++;
      snprintf(names[n], sizeof names[n], "%s: measured again when settings change", t->name);
      tests[n] = (struct CMUnitTest){names[n], test_measured_again_retuned, NULL, NULL, (void *)t};
      n++;
    }
  }
  if (n == 0) return 1; /* the list is empty */
  /* bad input needs the Makefile's chain and buggy programs; a list of
   * another mechanism's (tests/random_sweep.sh) runs the copies' tests
   * alone */
  if (samples) tests[n++] = (struct CMUnitTest){"bad input", test_errors, NULL, NULL, NULL};
  tests[n++] = (struct CMUnitTest){"the measured choice's verdict", test_pick_verdict, NULL, NULL, NULL};
  tests[n++] = (struct CMUnitTest){"the measured choice measured again", test_pick_again, NULL, NULL, NULL};
  return _cmocka_run_group_tests("rt_batch", tests, (size_t)n, NULL, NULL);
}
