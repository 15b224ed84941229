/* test_snapshot.c -- a step is atomic (issue 15, part 2): a step that fails
 * leaves the whole world bitwise as it was before the step -- bodies,
 * pending forces, the rows' impulses (warm start, motors, limits,
 * contacts), the current and the last step's contacts and their impulses,
 * driven rods' lengths, motors, what the geometric stiffness holds, the
 * step info and counter -- and the next
 * step, with a smaller load or dt, succeeds.
 *
 * The world under test has all of it: a box on the ground (contacts and
 * their warm start), a wheel driven by a motor within a limit, a load on a
 * driven rod. A divergence is forced by a force too large to integrate
 * (1e308 N on 0.5 kg: the velocity overflows) and by a dt too large to
 * integrate, on one thread and with the factorization thread, through
 * rt_world_step and through the split entry points. The whole state is
 * compared through the world's internals (runtime/world.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "test_sim.h"
#include "../runtime/world.h" /* the whole state, to compare */

static const char *const atomic_src =
    "return { name = 'atomic', settings = { ground = { height = 0 } },\n"
    "  bodies = {\n"
    "    { name = 'cart', mass = 5, box = { 0.4, 0.4, 0.2 }, shape = { box = { 0.4, 0.4, 0.2 } }, pos = { 2, 0, 0.1 },\n"
    "      vel = { 0.3, 0, 0 } },\n"
    "    { name = 'wheel', mass = 1, cylinder = { 0.2, 0.05 }, pos = { 0, 0, 1 },\n"
    "      rot = { math.sqrt(0.5), -math.sqrt(0.5), 0, 0 } },\n"
    "    { name = 'load', mass = 0.5, sphere = 0.05, pos = { -1, 0, 0 } } },\n"
    "  constraints = {\n"
    "    { name = 'axle', type = 'hinge', a = 'world', b = 'wheel', anchor = { 0, 0, 1 }, axis = { 0, 1, 0 } },\n"
    "    { name = 'drive', type = 'motor', joint = 'axle', speed = 3, max_force = 5 },\n"
    "    { name = 'stop', type = 'angular_limit', hinge = 'axle', lower = -100, upper = 0.5 },\n"
    "    { name = 'cable', type = 'rod', a = 'world', b = 'load', anchor_a = { -1, 0, 1 }, anchor_b = { -1, 0, 0 },\n"
    "      speed = 0.1, upper = 1.5 } } }\n";

/* Everything about a world that a step may change and that outlives it,
 * or that a caller can observe. */
typedef struct state {
  int nbody, njoint, nrow, nkeep, ncontact, nprev, nsbody;
  rt_body_desc *body;
  double *force, *torque, *lambda, *gcarry;
  rt_contact *contact, *prev;
  double *prev_lambda;
  rt_joint_desc *joint;
  rt_step_info info;
  rt_settings set;
} state;

static void state_take(const rt_world *w, state *s) {
  memset(s, 0, sizeof *s);
  s->nbody = w->nbody;
  s->njoint = w->njoint;
  s->nrow = w->rows.n;
  s->nkeep = w->nfixed_rows + 3 * w->set.max_contacts; /* every row the world has */
  s->ncontact = w->ncontact;
  s->nprev = w->nprev;
  s->nsbody = w->nsbody;
  s->gcarry = malloc(sizeof *s->gcarry * (size_t)s->nsbody);
  s->body = malloc(sizeof *s->body * (size_t)s->nbody);
  s->force = malloc(3 * sizeof *s->force * (size_t)s->nbody);
  s->torque = malloc(3 * sizeof *s->torque * (size_t)s->nbody);
  s->lambda = malloc(sizeof *s->lambda * (size_t)s->nkeep);
  s->contact = malloc(sizeof *s->contact * (size_t)(s->ncontact + 1));
  s->prev = malloc(sizeof *s->prev * (size_t)(s->nprev + 1));
  s->prev_lambda = malloc(3 * sizeof *s->prev_lambda * (size_t)(s->nprev + 1));
  s->joint = malloc(sizeof *s->joint * (size_t)s->njoint);
  assert_true(s->body && s->force && s->torque && s->lambda && s->contact && s->prev && s->prev_lambda && s->joint &&
              s->gcarry);
  memcpy(s->gcarry, w->gcarry, sizeof *s->gcarry * (size_t)s->nsbody);
  memcpy(s->body, w->body, sizeof *s->body * (size_t)s->nbody);
  memcpy(s->force, w->force, 3 * sizeof *s->force * (size_t)s->nbody);
  memcpy(s->torque, w->torque, 3 * sizeof *s->torque * (size_t)s->nbody);
  memcpy(s->contact, w->contact, sizeof *s->contact * (size_t)s->ncontact);
  memcpy(s->prev, w->prev, sizeof *s->prev * (size_t)s->nprev);
  memcpy(s->prev_lambda, w->prev_lambda, 3 * sizeof *s->prev_lambda * (size_t)s->nprev);
  memcpy(s->joint, w->joint, sizeof *s->joint * (size_t)s->njoint);
  s->info = w->info;
  s->set = w->set;
  /* impulses: the rows a step before this one wrote, and the rows of the
   * contacts fed in since (read by rt_world_contact_impulse) */
  memset(s->lambda, 0, sizeof *s->lambda * (size_t)s->nkeep);
  const int n = s->nrow > w->nfixed_rows + 3 * s->ncontact ? s->nrow : w->nfixed_rows + 3 * s->ncontact;
  memcpy(s->lambda, w->rows.lambda, sizeof *s->lambda * (size_t)n);
}

static void state_free(state *s) {
  free(s->body);
  free(s->force);
  free(s->torque);
  free(s->lambda);
  free(s->contact);
  free(s->prev);
  free(s->prev_lambda);
  free(s->joint);
  free(s->gcarry);
}

#define SAME(field, n)                                                                                   \
  do {                                                                                                   \
    if (memcmp(a->field, b->field, sizeof *a->field * (size_t)(n)) != 0) fail_msg("%s: " #field " differs", what); \
  } while (0)

/* Fails unless the two states are bitwise the same. */
static void assert_same(const state *a, const state *b, const char *what) {
  assert_int_equal(a->nrow, b->nrow);
  assert_int_equal(a->ncontact, b->ncontact);
  assert_int_equal(a->nprev, b->nprev);
  SAME(body, a->nbody);
  SAME(force, 3 * a->nbody);
  SAME(torque, 3 * a->nbody);
  const int n = a->nrow > b->nrow ? a->nrow : b->nrow;
  SAME(lambda, n);
  SAME(contact, a->ncontact);
  SAME(prev, a->nprev);
  SAME(prev_lambda, 3 * a->nprev);
  SAME(joint, a->njoint);
  SAME(gcarry, a->nsbody);
  if (memcmp(&a->info, &b->info, sizeof a->info) != 0) fail_msg("%s: step info differs", what);
  if (memcmp(&a->set, &b->set, sizeof a->set) != 0) fail_msg("%s: settings differ", what);
}

/* The ground contacts, less the last `drop` of them, in reverse order if
 * drop > 0. */
static void feed_ground_less(rt_world *w, int drop) {
  rt_contact c[64];
  const int n = rt_world_ground_contacts(w, 0.0, 0.8, SIMRUN_CONTACT_MARGIN, c, 64);
  assert_true(n > drop && n <= 64);
  for (int i = 0; drop > 0 && i < (n - drop) / 2; i++) {
    const rt_contact t = c[i];
    c[i] = c[n - drop - 1 - i];
    c[n - drop - 1 - i] = t;
  }
  assert_int_equal(rt_world_set_contacts(w, c, n - drop), RT_OK);
}

static void feed_ground(rt_world *w) { feed_ground_less(w, 0); }

static rt_status step(rt_world *w, int split_api) {
  if (!split_api) return rt_world_step(w);
  rt_status st = rt_world_step_begin(w);
  if (st != RT_OK) return st;
  rt_world_factor(w);
  rt_world_iterate(w);
  return rt_world_step_end(w);
}

/* A world that has run 40 steps: warm-start impulses in every kind of
 * row, contacts from the last step, the rod lengthened. */
static rt_world *warmed_up(const sim *s, int threaded) {
  rt_settings set = s->set;
  set.threaded = threaded;
  rt_world *w = sim_world(s, &set);
  for (int k = 0; k < 40; k++) {
    feed_ground(w);
    assert_int_equal(rt_world_step(w), RT_OK);
  }
  const int load = mech_find_body(&s->m, "load"), cable = mech_find_constraint(&s->m, "cable");
  const int drive = mech_find_constraint(&s->m, "drive");
  assert_true(rt_world_joint_length(w, cable) > 1.0);            /* the rod was driven */
  assert_true(rt_world_motor_impulse(w, drive) != 0.0);          /* the motor pushes */
  assert_true(rt_world_contact_count(w) > 0 && w->nprev > 0);    /* contacts, warm-started */
  assert_true(rt_world_contact_impulse(w, 0) > 0.0);
  assert_true(rt_world_step_info(w)->steps == 40);
  /* what the geometric stiffness holds from one step to the next: this
   * world's joints have no lever to stiffen, so it is set here, to see a
   * failed step give it back */
  for (int sb = 0; sb < w->nsbody; sb++) w->gcarry[sb] = 1.0 + sb;
  (void)load;
  return w;
}

/* A force no step can integrate: the step fails, and nothing changed. Then
 * the force is taken back (the pending force is exactly 0 again) and the
 * step succeeds. */
static void check_force_divergence(const sim *s, int threaded, int split_api) {
  rt_world *w = warmed_up(s, threaded);
  const int load = mech_find_body(&s->m, "load");
  feed_ground_less(w, 1); /* other contacts than the last step's, in another order */
  const double small[3] = {0.5, 0.0, 0.0}, huge[3] = {0.0, 0.0, 1e308}, back[3] = {0.0, 0.0, -1e308};
  rt_world_add_force(w, load, small, NULL);
  rt_world_add_force(w, load, huge, NULL);
  state before, after;
  state_take(w, &before);
  assert_int_equal(step(w, split_api), RT_ERR_DIVERGED);
  state_take(w, &after);
  assert_same(&before, &after, threaded ? "threaded, diverged by a force" : "diverged by a force");
  state_free(&after);
  /* again: the same failure, from the same state */
  assert_int_equal(step(w, split_api), RT_ERR_DIVERGED);
  state_take(w, &after);
  assert_same(&before, &after, "diverged twice");
  state_free(&after);
  state_free(&before);
  /* the smaller load: the huge force taken back, the small one stays */
  rt_world_add_force(w, load, back, NULL);
  assert_true(w->force[3 * load + 2] == 0.0 && w->force[3 * load] == 0.5);
  assert_int_equal(step(w, split_api), RT_OK);
  assert_true(rt_world_step_info(w)->steps == 41);
  for (int k = 0; k < 20; k++) {
    feed_ground(w);
    assert_int_equal(step(w, split_api), RT_OK);
  }
  rt_world_destroy(w);
}

static void test_diverged_force_leaves_world_untouched(void **st) {
  (void)st;
  sim s;
  sim_open(&s, "atomic.lua", atomic_src);
  check_force_divergence(&s, 0, 0);
  check_force_divergence(&s, 0, 1);
  check_force_divergence(&s, 1, 0);
  sim_free(&s);
}

/* A dt no step can integrate (1e200 s: the poses overflow): the step fails
 * and nothing changed; with the old dt again the world steps on exactly as
 * a world that never tried. */
static void test_diverged_dt_then_smaller_dt_succeeds(void **st) {
  (void)st;
  sim s;
  sim_open(&s, "atomic.lua", atomic_src);
  for (int threaded = 0; threaded < 2; threaded++) {
    rt_world *w = warmed_up(&s, threaded), *ref = warmed_up(&s, threaded);
    rt_settings big = *rt_world_settings(w), normal = big;
    big.dt = 1e200;
    feed_ground(w);
    feed_ground(ref);
    assert_int_equal(rt_world_set_settings(w, &big), RT_OK);
    state before, after;
    state_take(w, &before);
    assert_int_equal(rt_world_step(w), RT_ERR_DIVERGED);
    state_take(w, &after);
    assert_same(&before, &after, "diverged by dt");
    state_free(&before);
    state_free(&after);
    assert_int_equal(rt_world_set_settings(w, &normal), RT_OK);
    for (int k = 0; k < 30; k++) {
      assert_int_equal(rt_world_step(w), RT_OK);
      assert_int_equal(rt_world_step(ref), RT_OK);
      state a, b;
      state_take(w, &a);
      state_take(ref, &b);
      assert_same(&a, &b, "after the failed step, against a world that never failed");
      state_free(&a);
      state_free(&b);
      feed_ground(w);
      feed_ground(ref);
    }
    rt_world_destroy(w);
    rt_world_destroy(ref);
  }
  sim_free(&s);
}

/* A state that is not finite (here written past the setters, which refuse
 * it: rt_world.h) is refused before the step changes anything
 * (RT_ERR_NONFINITE), and stepping resumes once it is finite again: a NaN
 * or an infinity of either sign, in a position, the orientation, the
 * velocity or the spin (rt__bodies_finite). */
static void test_nonfinite_state_refused_untouched(void **st) {
  (void)st;
  sim s;
  sim_open(&s, "atomic.lua", atomic_src);
  rt_world *w = warmed_up(&s, 0);
  const int wheel = mech_find_body(&s.m, "wheel");
  rt_body_desc *b = &w->body[wheel];
  double *const field[] = {&b->pose.p[0], &b->pose.q[3], &b->vel[2], &b->angvel[1]};
  const double bad[] = {NAN, INFINITY, -INFINITY};
  for (size_t f = 0; f < sizeof field / sizeof field[0]; f++)
    for (size_t v = 0; v < sizeof bad / sizeof bad[0]; v++) {
      feed_ground(w);
      const double keep = *field[f];
      *field[f] = bad[v];
      state before, after;
      state_take(w, &before);
      assert_int_equal(rt_world_step(w), RT_ERR_NONFINITE);
      assert_int_equal(rt_world_step_begin(w), RT_ERR_NONFINITE);
      state_take(w, &after);
      assert_same(&before, &after, "non-finite state refused");
      state_free(&before);
      state_free(&after);
      *field[f] = keep;
      assert_int_equal(rt_world_step(w), RT_OK);
    }
  rt_world_destroy(w);
  sim_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_diverged_force_leaves_world_untouched),
      cmocka_unit_test(test_diverged_dt_then_smaller_dt_succeeds),
      cmocka_unit_test(test_nonfinite_state_refused_untouched),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
