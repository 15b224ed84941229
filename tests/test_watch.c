/* test_watch.c -- sim/watch.c: the overrun of limits and ropes and the slip
 * of motors below their force bound, each checked against the same figure
 * worked out here from the bodies' poses (a hinge to the world about y
 * turns its body by 2 atan2(q_y, q_w)): a limit past its bound, one never
 * reached, a swinging rope, a slider past its stop; a motor that holds, one
 * saturated (left out), one unsaturated that slips (plain PGS on a 250:1
 * boom), one spinning many turns (unwrapped), one on a slider, and a speed
 * changed by a drive. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "test_sim.h"
#include "watch.h"

/* The angle of body b about y, from its pose (it started unrotated). */
static double angle_y(const rt_world *w, int b) {
  rt_pose p;
  rt_world_body_pose(w, b, &p);
  return 2.0 * atan2(p.q[2], p.q[0]);
}

static rt_settings settings_of(const sim *s, rt_solver solver, int iterations) {
  rt_settings set = s->set;
  set.solver = solver;
  if (iterations > 0) set.iterations = iterations;
  return set;
}

static void step_ok(rt_world *w) { assert_int_equal(rt_world_step(w), RT_OK); }

static int joint(const sim *s, const char *name) {
  const int j = mech_find_constraint(&s->m, name);
  assert_true(j >= 0);
  return j;
}

/* The arm starts 0.4 rad short of its limit [0.4, 0.8]: after every step
 * the watcher's overrun is 0.4 - angle, the largest so far. */
static void test_limit_past_its_bound(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "tests/data/limit_past.lua", NULL);
  const rt_settings set = settings_of(&s, RT_SOLVER_PGS, 0);
  rt_world *w = sim_world(&s, &set);
  watch wt;
  assert_int_equal(watch_init(&wt, &s.desc, w), 0);
  assert_int_equal(wt.nlimit, 1);
  assert_int_equal(wt.nmotor, 0);
  assert_int_equal(wt.worst_limit, -1);
  double expect = 0.0;
  for (int k = 0; k < 60; k++) {
    step_ok(w);
    watch_step(&wt, w);
    expect = fmax(expect, fmax(0.4 - angle_y(w, 0), angle_y(w, 0) - 0.8));
    assert_true(fabs(wt.max_limit_violation - expect) < 1e-12);
  }
  assert_true(wt.max_limit_violation > 0.1);
  assert_int_equal(wt.worst_limit, joint(&s, "stop"));
  watch_free(&wt);
  rt_world_destroy(w);
  sim_free(&s);
}

/* The arm swings about +-0.56 rad inside +-0.8: no overrun, with either
 * solver, and the swing was real. */
static void test_limit_never_reached(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "tests/data/limit_clear.lua", NULL);
  for (int solver = 0; solver < 2; solver++) {
    const rt_settings set = settings_of(&s, (rt_solver)solver, 0);
    rt_world *w = sim_world(&s, &set);
    watch wt;
    assert_int_equal(watch_init(&wt, &s.desc, w), 0);
    double swing = 0.0;
    for (int k = 0; k < 300; k++) {
      step_ok(w);
      watch_step(&wt, w);
      swing = fmax(swing, fabs(angle_y(w, 0)));
    }
    assert_true(swing > 0.5 && swing < 0.7);
    assert_true(wt.max_limit_violation == 0.0);
    assert_int_equal(wt.worst_limit, -1);
    watch_free(&wt);
    rt_world_destroy(w);
  }
  sim_free(&s);
}

/* A rope's overrun is its anchors' distance beyond its length. */
static void test_rope_overrun(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "tests/data/rope_swing.lua", NULL);
  const rt_settings set = settings_of(&s, RT_SOLVER_PGS, 0);
  rt_world *w = sim_world(&s, &set);
  watch wt;
  assert_int_equal(watch_init(&wt, &s.desc, w), 0);
  assert_int_equal(wt.nlimit, 1);
  double expect = 0.0;
  for (int k = 0; k < 120; k++) {
    step_ok(w);
    watch_step(&wt, w);
    rt_pose p;
    rt_world_body_pose(w, 0, &p);
    expect = fmax(expect, sqrt(p.p[0] * p.p[0] + p.p[1] * p.p[1] + p.p[2] * p.p[2]) - 1.0);
    assert_true(fabs(wt.max_limit_violation - expect) < 1e-12);
  }
  assert_true(wt.max_limit_violation > 1e-3);
  watch_free(&wt);
  rt_world_destroy(w);
  sim_free(&s);
}

/* A slider along x whose positional_limit [0.1, 0.3] starts 0.1 m past its
 * lower bound: travel, in metres, through the same rows. No gravity along
 * the slider. The watcher, shown the start, measures the 0.1 m; the first
 * step takes the slider back to its bound (limits keep no slop) and the
 * figure stays the largest seen. */
static const char slider_src[] =
    "local m = { name = 'slider', bodies = {}, constraints = {} }\n"
    "m.bodies[1] = { name = 'cart', mass = 2, box = { 0.2, 0.2, 0.2 }, pos = { 0, 0, 0 } }\n"
    "m.constraints[1] = { name = 'rail', type = 'prismatic', a = 'world', b = 'cart', anchor = { 0, 0, 0 },\n"
    "                     axis = { 1, 0, 0 } }\n"
    "m.constraints[2] = { name = 'stop', type = 'positional_limit', joint = 'rail', lower = 0.1, upper = 0.3 }\n"
    "return m\n";

static void test_positional_limit(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "slider", slider_src);
  const rt_settings set = settings_of(&s, RT_SOLVER_PGS, 0);
  rt_world *w = sim_world(&s, &set);
  watch wt;
  assert_int_equal(watch_init(&wt, &s.desc, w), 0);
  watch_step(&wt, w); /* the start: 0.1 m past the lower bound */
  assert_true(fabs(wt.max_limit_violation - 0.1) < 1e-12);
  for (int k = 0; k < 30; k++) {
    step_ok(w);
    watch_step(&wt, w);
    rt_pose p;
    rt_world_body_pose(w, 0, &p);
    assert_true(fmax(0.1 - p.p[0], p.p[0] - 0.3) < 1e-9); /* back at the bound */
    assert_true(fabs(wt.max_limit_violation - 0.1) < 1e-12);
  }
  watch_free(&wt);
  rt_world_destroy(w);
  sim_free(&s);
}

/* The motor holds the horizontal arm: it never saturates and hardly slips. */
static void test_motor_holds(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "tests/data/motor_hold.lua", NULL);
  const rt_settings set = settings_of(&s, RT_SOLVER_PGS, 0);
  rt_world *w = sim_world(&s, &set);
  watch wt;
  assert_int_equal(watch_init(&wt, &s.desc, w), 0);
  assert_int_equal(wt.nlimit, 0);
  assert_int_equal(wt.nmotor, 1);
  assert_true(wt.motor[0].angular);
  const int hold = joint(&s, "hold");
  for (int k = 0; k < 600; k++) {
    step_ok(w);
    watch_step(&wt, w);
    assert_true(fabs(rt_world_motor_impulse(w, hold)) < 1000 * set.dt);
  }
  assert_true(wt.max_motor_slip < 1e-6);
  assert_true(fabs(angle_y(w, 0)) < 1e-6);
  watch_free(&wt);
  rt_world_destroy(w);
  sim_free(&s);
}

/* Too weak (0.5 N m against 2.45): the arm falls while the motor is at its
 * bound, which is not slip; hanging at rest it holds again. */
static void test_motor_saturated_is_not_slip(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "tests/data/motor_hold.lua", NULL);
  const rt_settings set = settings_of(&s, RT_SOLVER_PGS, 0);
  rt_world *w = sim_world(&s, &set);
  const int hold = joint(&s, "hold");
  assert_int_equal(rt_world_set_motor(w, hold, 0.0, 0.5), RT_OK);
  watch wt;
  assert_int_equal(watch_init(&wt, &s.desc, w), 0);
  int saturated = 0;
  double fell = 0.0;
  for (int k = 0; k < 600; k++) {
    step_ok(w);
    watch_step(&wt, w);
    saturated += fabs(rt_world_motor_impulse(w, hold)) >= (1 - 1e-6) * 0.5 * set.dt;
    fell = fmax(fell, angle_y(w, 0));
  }
  assert_true(fell > 1.0);
  assert_true(saturated > 10);
  assert_true(wt.max_motor_slip < 1e-4);
  watch_free(&wt);
  rt_world_destroy(w);
  sim_free(&s);
}

/* Plain PGS at 1 iteration on the 250:1 boom: the motor never comes near
 * its bound, but the boom turns (the position correction of the stretched
 * chain turns it): the slip is the boom's angle, as measured here. */
static void test_motor_unsaturated_slip(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "tests/data/motor_boom.lua", NULL);
  const rt_settings set = settings_of(&s, RT_SOLVER_PGS, 1);
  rt_world *w = sim_world(&s, &set);
  const int hold = joint(&s, "hold"), boom = mech_find_body(&s.m, "boom");
  watch wt;
  assert_int_equal(watch_init(&wt, &s.desc, w), 0);
  double expect = 0.0;
  for (int k = 0; k < 120; k++) {
    step_ok(w);
    watch_step(&wt, w);
    assert_true(fabs(rt_world_motor_impulse(w, hold)) < 0.5 * 1e5 * set.dt);
    expect = fmax(expect, fabs(angle_y(w, boom)));
    assert_true(fabs(wt.max_motor_slip - expect) < 1e-9);
    assert_true(wt.max_hold_slip == wt.max_motor_slip); /* a speed-0 motor: it holds */
  }
  assert_true(wt.max_motor_slip > 0.1);
  assert_int_equal(wt.worst_motor, hold);
  watch_free(&wt);
  rt_world_destroy(w);
  sim_free(&s);
}

/* A wheel on a vertical axle (no torque from gravity) driven at 10 rad/s
 * for 5 s: about 8 turns. The unwrapped coordinate follows it; a wrapped
 * one would slip by 2 pi each turn. The slip left is the integrator's lag:
 * a body turning at w advances by 2 atan(w dt / 2) per step, not w dt
 * (0.23 % at 10 rad/s and dt 1/60), and the slip measures exactly that.
 * Then a drive reverses the wheel: the first step is at the motor's bound
 * (saturated) and the commanded coordinate restarts from there. */
static const char wheel_src[] =
    "local m = { name = 'wheel', bodies = {}, constraints = {} }\n"
    "m.bodies[1] = { name = 'wheel', mass = 2, cylinder = { 0.3, 0.1 }, pos = { 0, 0, 1 } }\n"
    "m.constraints[1] = { name = 'axle', type = 'hinge', a = 'world', b = 'wheel', anchor = { 0, 0, 1 },\n"
    "                     axis = { 0, 0, 1 } }\n"
    "m.constraints[2] = { name = 'drive', type = 'motor', joint = 'axle', speed = 10, max_force = 100 }\n"
    "return m\n";

static void test_motor_spinning_is_unwrapped(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "wheel", wheel_src);
  const rt_settings set = settings_of(&s, RT_SOLVER_LDLPGS, 0);
  rt_world *w = sim_world(&s, &set);
  const int drive = joint(&s, "drive");
  watch wt;
  assert_int_equal(watch_init(&wt, &s.desc, w), 0);
  assert_true(wt.motor[0].angular);
  const double turn = 2.0 * atan(0.5 * 10 * set.dt), lag = 10 * set.dt - turn;
  for (int k = 0; k < 300; k++) {
    step_ok(w);
    watch_step(&wt, w);
  }
  assert_true(fabs(wt.motor[0].q - 300 * turn) < 1e-6);
  assert_true(fabs(wt.max_motor_slip - 300 * lag) < 1e-6);
  assert_true(wt.max_hold_slip == 0.0); /* it never held (speed 0) */
  double ke, pe;
  rt_world_energy(w, &ke, &pe);
  print_message("wheel spun up to 10 rad/s: motor work %.9g J, kinetic energy %.9g J\n", wt.motor_work, ke);
  /* the motor's work is the wheel's energy, less the rate the turn lags by
   * (the 0.23 % above: the work reads the rate from the turn) */
  assert_true(fabs(wt.motor_work - ke) < 5e-3 * ke);
  assert_int_equal(rt_world_set_motor(w, drive, -10, 100), RT_OK);
  for (int k = 0; k < 600; k++) {
    step_ok(w);
    watch_step(&wt, w);
  }
  assert_true(fabs(wt.motor[0].q + 300 * turn) < 0.05);
  assert_true(fabs(wt.max_motor_slip - 599 * lag) < 1e-3);
  rt_world_energy(w, &ke, &pe); /* reversed: the motor took the energy out and put it back */
  print_message("reversed to -10 rad/s: motor work %.9g J, kinetic energy %.9g J\n", wt.motor_work, ke);
  assert_true(fabs(wt.motor_work - ke) < 5e-3 * ke);
  watch_free(&wt);
  rt_world_destroy(w);
  sim_free(&s);
}

/* A motor on a slider: the coordinate is a length (not unwrapped), driven
 * at 0.5 m/s. */
static const char rail_src[] =
    "local m = { name = 'rail', bodies = {}, constraints = {} }\n"
    "m.bodies[1] = { name = 'cart', mass = 2, box = { 0.2, 0.2, 0.2 }, pos = { 0, 0, 0 } }\n"
    "m.constraints[1] = { name = 'rail', type = 'prismatic', a = 'world', b = 'cart', anchor = { 0, 0, 0 },\n"
    "                     axis = { 1, 0, 0 } }\n"
    "m.constraints[2] = { name = 'pull', type = 'motor', joint = 'rail', speed = 0.5, max_force = 100 }\n"
    "return m\n";

static void test_motor_on_a_slider(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "rail", rail_src);
  const rt_settings set = settings_of(&s, RT_SOLVER_PGS, 0);
  rt_world *w = sim_world(&s, &set);
  watch wt;
  assert_int_equal(watch_init(&wt, &s.desc, w), 0);
  assert_int_equal(wt.nmotor, 1);
  assert_false(wt.motor[0].angular);
  for (int k = 0; k < 600; k++) {
    step_ok(w);
    watch_step(&wt, w);
  }
  rt_pose p;
  rt_world_body_pose(w, 0, &p);
  assert_true(fabs(p.p[0] - 600 * 0.5 * set.dt) < 1e-6);
  assert_true(fabs(wt.motor[0].q - p.p[0]) < 1e-12);
  assert_true(wt.max_motor_slip < 1e-6);
  watch_free(&wt);
  rt_world_destroy(w);
  sim_free(&s);
}

/* simrun watches when given the description, and reports nothing otherwise. */
static void test_simrun_reports(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "tests/data/limit_past.lua", NULL);
  const rt_settings set = settings_of(&s, RT_SOLVER_PGS, 0); /* LDL-PGS pulls the arm back within a step */
  rt_world *w = sim_world(&s, &set);
  simrun_options o;
  memset(&o, 0, sizeof o);
  o.steps = 10;
  o.probe = -1;
  simrun_result r;
  memset(&r, 0, sizeof r); /* pos_error: NULL */
  simrun_run(w, &s.m, &o, &r);
  assert_true(r.max_limit_violation == 0.0 && r.max_motor_slip == 0.0);
  assert_int_equal(r.worst_limit, -1);
  rt_world_destroy(w);
  w = sim_world(&s, &set);
  o.desc = &s.desc;
  simrun_run(w, &s.m, &o, &r);
  assert_true(r.max_limit_violation > 0.1);
  assert_int_equal(r.worst_limit, joint(&s, "stop"));
  assert_int_equal(r.worst_motor, -1);
  rt_world_destroy(w);
  sim_free(&s);
}

/* A driven rod (a hydraulic cylinder from a fixed point) shortens at
 * 0.1 m/s for 2 s and lifts the 10 kg weight hung on it by 0.2 m: its
 * work is the weight's gain of potential energy (and the little kinetic
 * energy it moves with), m g h = 19.6 J; the motors did none. */
static const char lift_src[] =
    "return { name = 'jack', bodies = { { name = 'weight', mass = 10, sphere = 0.1, pos = { 0, 0, -1 } } },\n"
    "  constraints = { { name = 'cyl', type = 'rod', a = 'world', b = 'weight', anchor_a = { 0, 0, 0 },\n"
    "                    anchor_b = { 0, 0, -1 }, speed = -0.1, lower = 0.8 } } }\n";

static void test_rod_work(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "jack", lift_src);
  const rt_settings set = settings_of(&s, RT_SOLVER_LDLPGS, 0);
  rt_world *w = sim_world(&s, &set);
  watch wt;
  assert_int_equal(watch_init(&wt, &s.desc, w), 0);
  assert_int_equal(wt.nrod, 1);
  double ke0, pe0, ke, pe;
  rt_world_energy(w, &ke0, &pe0);
  for (int k = 0; k < 120; k++) {
    step_ok(w);
    watch_step(&wt, w);
  }
  rt_world_energy(w, &ke, &pe);
  const double gain = ke + pe - ke0 - pe0;
  print_message("jack: lifted by %.4g m, energy gained %.6g J, drive work %.6g J\n",
                rt_world_joint_length(w, 0) < 1.0 ? 1.0 - rt_world_joint_length(w, 0) : 0.0, gain, wt.drive_work);
  assert_true(fabs(gain - 10 * 9.81 * 0.2) < 0.5);
  assert_true(fabs(wt.drive_work - gain) < 1e-2 * gain);
  assert_true(wt.motor_work == 0.0);
  assert_true(rt_world_rod_impulse(w, 0) < 0.0); /* it pulls its anchors together */
  assert_true(isnan(rt_world_rod_impulse(w, 1)));
  watch_free(&wt);
  rt_world_destroy(w);
  sim_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_limit_past_its_bound),
      cmocka_unit_test(test_limit_never_reached),
      cmocka_unit_test(test_rope_overrun),
      cmocka_unit_test(test_positional_limit),
      cmocka_unit_test(test_motor_holds),
      cmocka_unit_test(test_motor_saturated_is_not_slip),
      cmocka_unit_test(test_motor_unsaturated_slip),
      cmocka_unit_test(test_motor_spinning_is_unwrapped),
      cmocka_unit_test(test_motor_on_a_slider),
      cmocka_unit_test(test_simrun_reports),
      cmocka_unit_test(test_rod_work),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
