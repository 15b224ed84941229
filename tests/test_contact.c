/* test_contact.c -- inequality rows and contacts (issue 6): friction on a
 * slope, limits, ropes, the buggy driving straight and turning, and the
 * promise that inequality rows leave the symbolic program and the generated
 * source unchanged. Worlds run through the interpreter (rtprog). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drive.h"
#include "emit.h"
#include "load.h"
#include "mechworld.h"
#include "program.h"
#include "rtprog.h"
#include "simrun.h"
#include "test_proc.h"

typedef struct sim {
  arena a;
  mech m;
  program p;
  rt_program rp;
  rt_world_desc desc;
  rt_settings set;
  rt_world *w;
} sim;

static void sim_open(sim *s, const char *name, const char *src, const char *path) {
  diag_list d;
  diag_init(&d);
  arena_init(&s->a);
  gen_status st = src ? load_mech_string(&s->a, name, src, NULL, &s->m, &d) : load_mech(&s->a, path, NULL, &s->m, &d);
  if (st != GEN_OK) diag_print(&d, stderr);
  assert_int_equal(st, GEN_OK);
  program_options po;
  program_default_options(&po);
  assert_int_equal(program_build(&s->a, &s->m, &po, &s->p, &d), GEN_OK);
  diag_free(&d);
  rtprog_build(&s->a, &s->p, RT_DOUBLE, &s->rp);
  mechworld_desc(&s->a, &s->m, &s->desc);
  mechworld_settings(&s->m, &s->set);
}

static void sim_start(sim *s) {
  char err[256];
  s->w = rt_world_create(&s->desc, &s->rp, &s->set, NULL, err, sizeof err);
  if (s->w == NULL) fail_msg("rt_world_create: %s", err);
}

static void sim_close(sim *s) {
  rt_world_destroy(s->w);
  arena_free(&s->a);
}

/* One step with the contacts simrun feeds in: the ground's, and with
 * settings.collide the body-body ones; c has room for cap. */
static void step_with_contacts(sim *s, rt_contact *c, int cap) {
  const mech_settings *ms = &s->m.settings;
  int n = 0;
  if (ms->has_ground)
    n = rt_world_ground_contacts(s->w, ms->ground_height, ms->ground_friction >= 0 ? ms->ground_friction : ms->friction,
                                 SIMRUN_CONTACT_MARGIN, c, cap);
  assert_true(n <= cap);
  if (ms->collide) n += rt_world_body_contacts(s->w, SIMRUN_CONTACT_MARGIN, c + n, cap - n);
  assert_true(n <= cap);
  assert_int_equal(rt_world_set_contacts(s->w, c, n), RT_OK);
  assert_int_equal(rt_world_step(s->w), RT_OK);
}

static void step_on_ground(sim *s) {
  rt_contact c[64];
  step_with_contacts(s, c, 64);
}

/*---- friction on a slope ---------------------------------------------------------*/

/* A box on the ground with gravity tilted by `deg` degrees about y: the same
 * as a slope of that angle. Returns how far it moved along the slope in 3 s. */
static double slide_on_slope(double deg) {
  static const char box[] = "return { name = \"box\", bodies = { { name = \"box\", mass = 10, box = { 0.4, 0.4, 0.2 },\n"
                            "  shape = { box = { 0.4, 0.4, 0.2 } }, friction = 0.6, pos = { 0, 0, 0.1 } } },\n"
                            "  constraints = {}, settings = { ground = { height = 0, friction = 0.6 } } }\n";
  sim s;
  sim_open(&s, "box", box, NULL);
  const double a = deg * 3.14159265358979323846 / 180.0;
  s.set.gravity[0] = 9.81 * sin(a);
  s.set.gravity[1] = 0.0;
  s.set.gravity[2] = -9.81 * cos(a);
  sim_start(&s);
  for (int i = 0; i < 180; i++) step_on_ground(&s);
  rt_pose p;
  rt_world_body_pose(s.w, 0, &p);
  /* it stays on the plane */
  assert_true(fabs(p.p[2] - 0.1) < 2e-3);
  sim_close(&s);
  return p.p[0];
}

/* mu = 0.6: the friction angle is atan(0.6) = 31 degrees. */
static void test_box_on_slope_sticks_below_friction_angle(void **state) {
  (void)state;
  const double moved = slide_on_slope(25.0);
  assert_true(fabs(moved) < 2e-3);
}

static void test_box_on_slope_slides_above_friction_angle(void **state) {
  (void)state;
  /* 40 degrees: a = g (sin 40 - 0.6 cos 40) = 1.80 m/s^2, 8.1 m in 3 s */
  const double moved = slide_on_slope(40.0);
  assert_true(moved > 6.5 && moved < 9.5);
}

/*---- limits and ropes --------------------------------------------------------------*/

static const char limits_src[] =
    "return { name = \"limits\", bodies = {\n"
    "  { name = \"arm\", mass = 2, box = { 1, 0.1, 0.1 }, pos = { 0.5, 0, 0 }, angvel = { 0, -4, 0 } },\n"
    "  { name = \"bob\", mass = 1, sphere = 0.1, pos = { 0, 0, -2 }, vel = { 3, 0, 0 } },\n"
    "  { name = \"slider\", mass = 1, box = { 0.2, 0.2, 0.2 }, pos = { 3, 0, 0 }, vel = { 2, 0, 0 } } },\n"
    " constraints = {\n"
    "  { name = \"h\", type = \"hinge\", a = \"world\", b = \"arm\", anchor = { 0, 0, 0 }, axis = { 0, 1, 0 } },\n"
    "  { name = \"hl\", type = \"angular_limit\", hinge = \"h\", lower = -0.5, upper = 0.5 },\n"
    "  { name = \"r\", type = \"rope\", a = \"world\", b = \"bob\", anchor_a = { 0, 0, 0 }, anchor_b = { 0, 0, -2 },\n"
    "    length = 2.5 },\n"
    "  { name = \"p\", type = \"prismatic\", a = \"world\", b = \"slider\", anchor = { 3, 0, 0 }, axis = { 1, 0, 0 } },\n"
    "  { name = \"pl\", type = \"positional_limit\", joint = \"p\", lower = -0.3, upper = 0.4 } } }\n";

/* The arm swings up into its limit at 4 rad/s, the bob falls and flies
 * out against its rope, the slider runs into its stop. */
static void test_limits_and_rope_hold(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "limits", limits_src, NULL);
  sim_start(&s);
  const int h = mech_find_constraint(&s.m, "h"), p = mech_find_constraint(&s.m, "p");
  double amax = -1, amin = 1, rope = 0, smax = -1, smin = 1;
  for (int i = 0; i < 600; i++) {
    assert_int_equal(rt_world_step(s.w), RT_OK);
    rt_pose arm, bob, sl;
    double q;
    rt_world_body_pose(s.w, 0, &arm);
    rt_world_body_pose(s.w, 1, &bob);
    rt_world_body_pose(s.w, 2, &sl);
    rt_joint_axis_eval(&s.desc.joints[h], 1, NULL, &arm, &q, NULL);
    amax = fmax(amax, q);
    amin = fmin(amin, q);
    rope = fmax(rope, sqrt(bob.p[0] * bob.p[0] + bob.p[1] * bob.p[1] + bob.p[2] * bob.p[2]));
    rt_joint_axis_eval(&s.desc.joints[p], 0, NULL, &sl, &q, NULL);
    smax = fmax(smax, q);
    smin = fmin(smin, q);
  }
  /* reached each limit, never beyond it by more than the tolerance */
  assert_true(amax > 0.49 && amax < 0.5 + 5e-3);
  assert_true(amin > -0.5 - 5e-3);
  /* within the contact slop (1 mm) and what one step of curved motion adds */
  assert_true(rope > 2.49 && rope < 2.5 + 2e-3);
  assert_true(smax > 0.39 && smax < 0.4 + 2e-3 && smin > -0.3 - 2e-3);
  sim_close(&s);
}

/*---- the buggy ---------------------------------------------------------------------*/

static double yaw(const rt_pose *p) {
  double x[3] = {1, 0, 0}, r[3];
  /* body x axis in the world */
  const double *q = p->q;
  double t[3] = {2 * (q[2] * x[2] - q[3] * x[1]), 2 * (q[3] * x[0] - q[1] * x[2]), 2 * (q[1] * x[1] - q[2] * x[0])};
  r[0] = x[0] + q[0] * t[0] + (q[2] * t[2] - q[3] * t[1]);
  r[1] = x[1] + q[0] * t[1] + (q[3] * t[0] - q[1] * t[2]);
  return atan2(r[1], r[0]);
}

/* Drives the buggy: rear motors at `speed` for 4 s, steering motor at
 * `steer` from 1 s on; returns the body pose and the largest error. */
static void drive_buggy(double speed, double steer, rt_pose *out, double *max_err) {
  sim s;
  char path[512];
  snprintf(path, sizeof path, "%s/mechanisms/buggy.lua", SRC_DIR);
  sim_open(&s, NULL, NULL, path);
  sim_start(&s);
  const int l = mech_find_constraint(&s.m, "drive_rearL"), r = mech_find_constraint(&s.m, "drive_rearR");
  const int st = mech_find_constraint(&s.m, "steer");
  const int body = mech_find_body(&s.m, "body");
  assert_true(l >= 0 && r >= 0 && st >= 0 && body >= 0);
  assert_int_equal(rt_world_set_motor(s.w, l, speed, 400), RT_OK);
  assert_int_equal(rt_world_set_motor(s.w, r, speed, 400), RT_OK);
  *max_err = 0;
  for (int i = 0; i < 240; i++) {
    if (i == 60) assert_int_equal(rt_world_set_motor(s.w, st, steer, 3000), RT_OK);
    step_on_ground(&s);
    double pos, ang;
    rt_world_max_error(s.w, &pos, &ang);
    *max_err = fmax(*max_err, pos);
  }
  rt_world_body_pose(s.w, body, out);
  sim_close(&s);
}

static void test_buggy_drives_straight(void **state) {
  (void)state;
  rt_pose p;
  double err;
  drive_buggy(12.0, 0.0, &p, &err);
  /* 12 rad/s on 0.35 m wheels: 4.2 m/s, minus the start */
  assert_true(p.p[0] > 12.0);
  assert_true(fabs(p.p[1]) < 0.05);
  assert_true(fabs(yaw(&p)) < 0.02);
  assert_true(err < 5e-3);
}

static void test_buggy_turns_with_steering(void **state) {
  (void)state;
  rt_pose left, right;
  double err_l, err_r;
  drive_buggy(12.0, -0.05, &left, &err_l);
  drive_buggy(12.0, 0.05, &right, &err_r);
  assert_true(yaw(&left) > 0.5);
  assert_true(yaw(&right) < -0.5);
  assert_true(left.p[1] > 1.0 && right.p[1] < -1.0);
  assert_true(err_l < 5e-3 && err_r < 5e-3);
}

/*---- contacts solved against the block ---------------------------------------------*/

/* A 2 t platform on four 2 kg wheels (hinged to it), dropped 1 cm onto the
 * ground: 1000:1. */
static const char cart_src[] =
    "local b = {}\n"
    "local c = {}\n"
    "b[1] = { name = 'deck', mass = 2000, box = {2, 1, 0.2}, pos = {0, 0, 0.51} }\n"
    "local k = 0\n"
    "for _, x in ipairs({-0.8, 0.8}) do for _, y in ipairs({-0.6, 0.6}) do\n"
    "  k = k + 1\n"
    "  b[#b + 1] = { name = 'w' .. k, mass = 2, sphere = 0.3, shape = { sphere = 0.3 }, friction = 0.8,\n"
    "                pos = {x, y, 0.31} }\n"
    "  c[#c + 1] = { name = 'h' .. k, type = 'hinge', a = 'deck', b = 'w' .. k, anchor = {x, y, 0.31},\n"
    "                axis = {0, 1, 0} }\n"
    "end end\n"
    "return { name = 'cart', bodies = b, constraints = c, settings = { ground = { height = 0, friction = 0.8 } } }\n";

/* Runs the cart 2 s with coupled_contacts n; returns the contact passes of
 * its last second, the steps then that took more than one, and the
 * largest kinetic energy then. */
static void settle_cart(int n, int *passes, int *busy, double *ke_late) {
  sim s;
  sim_open(&s, "cart", cart_src, NULL);
  s.set.coupled_contacts = n;
  sim_start(&s);
  *passes = *busy = 0;
  *ke_late = 0.0;
  for (int i = 0; i < 120; i++) {
    step_on_ground(&s);
    if (i < 60) continue;
    *passes += rt_world_step_info(s.w)->contact_passes;
    *busy += rt_world_step_info(s.w)->contact_passes > 1;
    double ke, pe;
    rt_world_energy(s.w, &ke, &pe);
    *ke_late = fmax(*ke_late, ke);
  }
  sim_close(&s);
}

/* Coupled, each wheel's contact meets the deck's mass in the Schur solve
 * and the cart comes to rest with no contact passes left to run but the
 * first, which contacts S let go take while they are not settled within
 * 1e-9 (runtime/step.c, rt__step_contacts_tolerance: 53 in its last
 * second, none before); left to the passes, every pass moves a 2 kg wheel
 * against 2 t and the passes run to their cap while the cart still
 * jiggles. */
static void test_heavy_deck_on_light_wheels_settles_when_coupled(void **state) {
  (void)state;
  int coupled, passes, coupled_busy, passes_busy;
  double ke_coupled, ke_passes;
  settle_cart(16, &coupled, &coupled_busy, &ke_coupled);
  settle_cart(0, &passes, &passes_busy, &ke_passes);
  print_message("cart, last second: %d contact passes (%d steps with more than one), kinetic energy at most %.3g J "
                "coupled; %d passes (%d steps), %.3g J without\n",
                coupled, coupled_busy, ke_coupled, passes, passes_busy, ke_passes);
  assert_true(coupled_busy == 0 && coupled <= 60);
  assert_true(ke_coupled < 1e-3);
  assert_true(passes_busy > 50 && passes > 10 * (coupled + 1));
}

/*---- body-body contacts -----------------------------------------------------------*/

/* A fixed table (top at z = 0.2) with, above it: a ball 1 cm clear, a wheel
 * (cylinder along y) 5 mm clear, a cylinder tilted by 45 degrees (not a
 * detected pair) and a ball held by a joint to the table (a joined pair). */
static const char pairs_src[] =
    "local s = math.sqrt(0.5)\n"
    "return { name = 'pairs', settings = { collide = true }, bodies = {\n"
    "  { name = 'table', fixed = true, pos = {0, 0, 0.1}, shape = { box = {2, 2, 0.2} }, friction = 0.5 },\n"
    "  { name = 'ball', mass = 1, sphere = 0.1, shape = { sphere = 0.1 }, pos = {0, 0, 0.31}, friction = 0.5 },\n"
    "  { name = 'wheel', mass = 2, cylinder = {0.1, 0.4}, shape = { cylinder = {0.1, 0.4} },\n"
    "    pos = {0.5, 0, 0.305}, rot = {s, -s, 0, 0}, friction = 0.5 },\n"
    "  { name = 'tilted', mass = 2, cylinder = {0.1, 0.4}, shape = { cylinder = {0.1, 0.4} },\n"
    "    pos = {-0.5, 0.5, 0.3}, rot = {math.cos(math.pi / 8), 0, math.sin(math.pi / 8), 0} },\n"
    "  { name = 'held', mass = 1, sphere = 0.1, shape = { sphere = 0.1 }, pos = {-0.5, -0.5, 0.3} } },\n"
    "  constraints = { { name = 'tether', type = 'ball', a = 'table', b = 'held', anchor = {-0.5, -0.5, 0.3} } } }\n";

static void test_body_contacts_of_sphere_and_wheel_on_box(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "pairs", pairs_src, NULL);
  sim_start(&s);
  rt_contact c[8];
  const int n = rt_world_body_contacts(s.w, 0.02, c, 8);
  /* the ball: one point; the wheel: both ends of its 0.4 m along y; the
   * tilted cylinder and the held ball: none */
  assert_int_equal(n, 3);
  assert_int_equal(c[0].body_a, 1);
  assert_int_equal(c[0].body_b, 0);
  assert_true(fabs(c[0].depth + 0.01) < 1e-12);
  assert_true(fabs(c[0].point[2] - 0.2) < 1e-12 && fabs(c[0].point[0]) < 1e-12);
  assert_true(c[0].normal[2] == 1.0);
  assert_true(fabs(c[0].friction - 0.5) < 1e-15);
  for (int i = 1; i < 3; i++) {
    assert_int_equal(c[i].body_a, 2);
    assert_true(fabs(c[i].depth + 0.005) < 1e-12);
    assert_true(fabs(c[i].normal[2] - 1.0) < 1e-12);
    assert_true(fabs(c[i].point[0] - 0.5) < 1e-12 && fabs(c[i].point[2] - 0.2) < 1e-12);
    assert_true(fabs(fabs(c[i].point[1]) - 0.2) < 1e-12);
    assert_int_equal(c[i].feature, (unsigned)(i - 1));
  }
  assert_true(c[1].point[1] * c[2].point[1] < 0);
  /* beyond the margin: nothing; a small cap: all counted, cap written */
  assert_int_equal(rt_world_body_contacts(s.w, 0.004, c, 8), 0);
  memset(c, 0, sizeof c);
  assert_int_equal(rt_world_body_contacts(s.w, 0.02, c, 1), 3);
  assert_int_equal(c[1].body_a, 0);
  sim_close(&s);
}

/* Boxes (0.2 m cubes) and round bodies, each touching its neighbours: a
 * ball (0) against a box beside it (1) and one above it (2), a ball (3)
 * between box 1 and a box (4), a wheel (5, a cylinder along y) between box
 * 4 and a box (6), and a ball (7) on box 1 beside box 2. The contacts come
 * pair by pair in the order of the pairs' indices (lower index first),
 * whichever of the two is the box, and the wheel's two ends in order. */
static const char row_src[] =
    "local s = math.sqrt(0.5)\n"
    "local function box(x, z) return { name = 'box' .. x .. z, mass = 1, box = {0.2, 0.2, 0.2}, pos = {x, 0, z},\n"
    "  shape = { box = {0.2, 0.2, 0.2} } } end\n"
    "local function ball(n, x, z) return { name = n, mass = 1, sphere = 0.1, shape = { sphere = 0.1 }, pos = {x, 0, z} } end\n"
    "return { name = 'row', settings = { collide = true }, bodies = {\n"
    "  ball('b0', 0, 0), box(0.2, 0), box(0, 0.2), ball('b3', 0.4, 0), box(0.6, 0),\n"
    "  { name = 'wheel', mass = 2, cylinder = {0.1, 0.4}, shape = { cylinder = {0.1, 0.4} },\n"
    "    pos = {0.8, 0, 0}, rot = {s, -s, 0, 0} }, box(1.0, 0), ball('b7', 0.2, 0.2) },\n"
    "  constraints = {} }\n";

static void test_body_contacts_come_in_the_order_of_their_pairs(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "row", row_src, NULL);
  sim_start(&s);
  rt_contact c[16];
  const int n = rt_world_body_contacts(s.w, 0.02, c, 16);
  /* round body, box, feature of each contact */
  const int want[10][3] = {{0, 1, 0}, {0, 2, 0}, {3, 1, 0}, {7, 1, 0}, {7, 2, 0},
                           {3, 4, 0}, {5, 4, 0}, {5, 4, 1}, {5, 6, 0}, {5, 6, 1}};
  assert_int_equal(n, 10);
  for (int i = 0; i < n; i++) {
    assert_int_equal(c[i].body_a, want[i][0]);
    assert_int_equal(c[i].body_b, want[i][1]);
    assert_int_equal(c[i].feature, (unsigned)want[i][2]);
    assert_true(fabs(c[i].depth) < 1e-12); /* touching */
  }
  sim_close(&s);
}

static void test_ball_and_wheel_come_to_rest_on_box(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "pairs", pairs_src, NULL);
  sim_start(&s);
  rt_contact c[16];
  for (int i = 0; i < 120; i++) step_with_contacts(&s, c, 16);
  rt_pose ball, wheel;
  rt_world_body_pose(s.w, 1, &ball);
  for (int i = 0; i < 60; i++) step_with_contacts(&s, c, 16);
  rt_world_body_pose(s.w, 2, &wheel);
  rt_pose ball2;
  rt_world_body_pose(s.w, 1, &ball2);
  /* resting on the table top, within the slop, and not moving */
  assert_true(fabs(ball.p[2] - 0.3) < 1.5e-3);
  assert_true(fabs(wheel.p[2] - 0.3) < 1.5e-3);
  assert_true(fabs(ball2.p[2] - ball.p[2]) < 1e-4);
  assert_true(fabs(ball2.p[0] - ball.p[0]) < 1e-4 && fabs(ball2.p[1] - ball.p[1]) < 1e-4);
  sim_close(&s);
}

/*---- the tank ------------------------------------------------------------------------*/

/* The tank settles for 1 s, then both sprockets turn at 3 rad/s (about
 * 1 m/s of track) for 4 s, with ground and wheel-plate contacts; returns
 * the hull's pose and the largest joint error over the run. */
static void drive_tank(rt_solver solver, rt_pose *hull, double *max_err, double *max_offset) {
  sim s;
  char path[512];
  snprintf(path, sizeof path, "%s/mechanisms/tank.lua", SRC_DIR);
  sim_open(&s, NULL, NULL, path);
  s.set.solver = solver;
  sim_start(&s);
  const int l = mech_find_constraint(&s.m, "driveL"), r = mech_find_constraint(&s.m, "driveR");
  const int h = mech_find_body(&s.m, "hull");
  assert_true(l >= 0 && r >= 0 && h >= 0);
  const int cap = s.set.max_contacts;
  rt_contact *c = calloc((size_t)cap, sizeof *c);
  assert_non_null(c);
  *max_err = 0;
  for (int i = 0; i < 300; i++) {
    if (i == 60) {
      assert_int_equal(rt_world_set_motor(s.w, l, 3.0, 1000), RT_OK);
      assert_int_equal(rt_world_set_motor(s.w, r, 3.0, 1000), RT_OK);
    }
    step_with_contacts(&s, c, cap);
    double pos, ang;
    rt_world_max_error(s.w, &pos, &ang);
    *max_err = fmax(*max_err, pos);
  }
  rt_world_body_pose(s.w, h, hull);
  /* how far each track's plates have slid sideways off its wheels: the
   * mean plate y against the hull's, less the gauge */
  double sum[2] = {0, 0};
  int cnt[2] = {0, 0};
  for (int b = 0; b < s.m.nbody; b++) {
    const char *name = s.m.bodies[b].name;
    if (strncmp(name, "plate", 5) != 0) continue;
    rt_pose p;
    rt_world_body_pose(s.w, b, &p);
    const int right = name[5] == 'R';
    sum[right] += p.p[1] - hull->p[1];
    cnt[right]++;
  }
  assert_int_equal(cnt[0], 40);
  assert_int_equal(cnt[1], 40);
  *max_offset = fmax(fabs(sum[0] / 40 - 0.95), fabs(sum[1] / 40 + 0.95));
  free(c);
  sim_close(&s);
}

static void test_tank_drives_forward_with_tracks_closed(void **state) {
  (void)state;
  rt_pose hull;
  double err, offset;
  drive_tank(RT_SOLVER_LDLPGS, &hull, &err, &offset);
  /* 4 s at up to 1 m/s, minus the start */
  assert_true(hull.p[0] > 2.5);
  assert_true(fabs(hull.p[1]) < 0.05);
  assert_true(fabs(yaw(&hull)) < 0.02);
  /* on its tracks: the hull rides 0.53 m up (0.55 at the start, before
   * the wheels settle onto the plates) and the tracks stay on the wheels */
  assert_true(hull.p[2] > 0.52 && hull.p[2] < 0.55);
  assert_true(offset < 0.01);
  /* the tracks closed: every pin, the loop's last included, within 1 mm */
  assert_true(err < 1e-3);
}

/* What the block step buys: pure PGS with the same 10 iterations lets the
 * tracks open by centimetres. */
static void test_tank_tracks_open_under_pgs(void **state) {
  (void)state;
  rt_pose hull;
  double err, offset;
  drive_tank(RT_SOLVER_PGS, &hull, &err, &offset);
  assert_true(err > 0.01);
}

/*---- inequality rows stay out of the program ---------------------------------------*/

static char *without_inequalities(const char *src) {
  static const char pre[] = "local m = (function()\n";
  static const char post[] = "\nend)()\nlocal keep = {}\n"
                             "for _, c in ipairs(m.constraints) do\n"
                             "  if c.type ~= 'motor' and c.type ~= 'angular_limit' and c.type ~= 'positional_limit'\n"
                             "     and c.type ~= 'rope' then keep[#keep + 1] = c end\n"
                             "end\nm.constraints = keep\nreturn m\n";
  size_t n = strlen(pre) + strlen(src) + strlen(post) + 1;
  char *s = malloc(n);
  assert_non_null(s);
  snprintf(s, n, "%s%s%s", pre, src, post);
  return s;
}

static void emit_from(const char *name, const char *src, emit_output *out) {
  diag_list d;
  diag_init(&d);
  arena a;
  arena_init(&a);
  mech m;
  program p;
  program_options po;
  program_default_options(&po);
  assert_int_equal(load_mech_string(&a, name, src, NULL, &m, &d), GEN_OK);
  assert_int_equal(program_build(&a, &m, &po, &p, &d), GEN_OK);
  emit_options eo;
  emit_default_options(&eo);
  assert_int_equal(emit_program(&p, &eo, out, &d), GEN_OK);
  arena_free(&a);
  diag_free(&d);
}

/* The length of the program part of a generated text: everything before
 * the mechanism part (emit.h, EMIT_MECHANISM_MARK), which the text must
 * have. */
static size_t program_part(const char *text) {
  const char *mark = strstr(text, EMIT_MECHANISM_MARK);
  assert_non_null(mark);
  return (size_t)(mark - text);
}

/* The program -- banner, tables, kernels, factor and solve, the program
 * object, and the header's declarations of it -- is byte for byte the same
 * with and without the inequality constraints. The mechanism part after it
 * lists every constraint, so it does change where there are some (the
 * buggy's motors and limit). */
static void test_inequality_rows_leave_generated_source_unchanged(void **state) {
  (void)state;
  const char *names[] = {"buggy", "scissor_lift", "tank"};
  for (int i = 0; i < 3; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/mechanisms/%s.lua", SRC_DIR, names[i]);
    size_t len;
    char *src = slurp(path, &len);
    assert_non_null(src);
    char *stripped = without_inequalities(src);
    emit_output full, bare;
    emit_from(names[i], src, &full);
    emit_from(names[i], stripped, &bare);
    const size_t c_len = program_part(full.c), h_len = program_part(full.h);
    assert_true(c_len > 1000);
    assert_int_equal(c_len, program_part(bare.c));
    assert_memory_equal(full.c, bare.c, c_len);
    assert_int_equal(h_len, program_part(bare.h));
    assert_memory_equal(full.h, bare.h, h_len);
    assert_true(full.c_len >= bare.c_len && full.h_len >= bare.h_len);
    if (strcmp(names[i], "buggy") == 0) assert_true(full.c_len > bare.c_len && full.h_len > bare.h_len);
    emit_output_free(&full);
    emit_output_free(&bare);
    free(stripped);
    free(src);
  }
}

/* The buggy does have inequality rows, so the test above compares
 * something: its motors and limit are among its constraints. */
static void test_buggy_has_motors_and_limit(void **state) {
  (void)state;
  sim s;
  char path[512];
  snprintf(path, sizeof path, "%s/mechanisms/buggy.lua", SRC_DIR);
  sim_open(&s, NULL, NULL, path);
  int motors = 0, limits = 0;
  for (int i = 0; i < s.m.ncons; i++) {
    motors += s.m.cons[i].type == RT_MOTOR;
    limits += s.m.cons[i].type == RT_POSITIONAL_LIMIT;
  }
  assert_int_equal(motors, 3);
  assert_int_equal(limits, 1);
  arena_free(&s.a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_box_on_slope_sticks_below_friction_angle),
      cmocka_unit_test(test_box_on_slope_slides_above_friction_angle),
      cmocka_unit_test(test_limits_and_rope_hold),
      cmocka_unit_test(test_buggy_drives_straight),
      cmocka_unit_test(test_buggy_turns_with_steering),
      cmocka_unit_test(test_heavy_deck_on_light_wheels_settles_when_coupled),
      cmocka_unit_test(test_body_contacts_of_sphere_and_wheel_on_box),
      cmocka_unit_test(test_body_contacts_come_in_the_order_of_their_pairs),
      cmocka_unit_test(test_ball_and_wheel_come_to_rest_on_box),
      cmocka_unit_test(test_tank_drives_forward_with_tracks_closed),
      cmocka_unit_test(test_tank_tracks_open_under_pgs),
      cmocka_unit_test(test_inequality_rows_leave_generated_source_unchanged),
      cmocka_unit_test(test_buggy_has_motors_and_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
