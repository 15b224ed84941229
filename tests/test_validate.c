/* test_validate.c -- the runtime checks its input (issue 15, part 6):
 * rt_world_create and every setter refuse what rt_world.h says they
 * refuse, with the documented status, and a refused call leaves the world
 * untouched; accessors given a bad index return an error value instead of
 * reading out of bounds. One case per check, on a mechanism with every
 * joint type, every shape and a fixed body. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "test_sim.h"
#include "../runtime/world.h" /* the whole state, to show a refused call left it alone */

static const char *const every_src =
    "local function add(t, x) t[#t + 1] = x; return x end\n"
    "local m = { name = 'every', bodies = {}, constraints = {} }\n"
    "add(m.bodies, { name = 'post', fixed = true, box = { 0.1, 0.1, 1 }, pos = { 0, 0, 0.5 } })\n"
    "add(m.bodies, { name = 'arm', mass = 2, box = { 1, 0.1, 0.1 }, shape = { box = { 1, 0.1, 0.1 } },\n"
    "                pos = { 0.5, 0, 1 } })\n"
    "add(m.bodies, { name = 'slider', mass = 1, sphere = 0.1, shape = { sphere = 0.1 }, pos = { 1, 0, 1 } })\n"
    "add(m.bodies, { name = 'drum', mass = 1, cylinder = { 0.1, 0.2 }, shape = { cylinder = { 0.1, 0.2 } },\n"
    "                pos = { 1.5, 0, 1 } })\n"
    "add(m.bodies, { name = 'cross', mass = 1, capsule = { 0.05, 0.2 }, shape = { capsule = { 0.05, 0.2 } },\n"
    "                pos = { 2, 0, 1 }, friction = 0.5 })\n"
    "add(m.bodies, { name = 'plate', mass = 1, box = { 0.2, 0.2, 0.02 }, pos = { 2.5, 0, 1 } })\n"
    "add(m.bodies, { name = 'bob', mass = 1, sphere = 0.05, pos = { 3, 0, 1 } })\n"
    "add(m.bodies, { name = 'load', mass = 1, sphere = 0.05, pos = { 3, 0, 0 } })\n"
    "add(m.constraints, { name = 'shoulder', type = 'hinge', a = 'post', b = 'arm', anchor = { 0, 0, 1 },\n"
    "                     axis = { 0, 1, 0 } })\n"
    "add(m.constraints, { name = 'shoulder_motor', type = 'motor', joint = 'shoulder', speed = 1, max_force = 10 })\n"
    "add(m.constraints, { name = 'shoulder_limit', type = 'angular_limit', hinge = 'shoulder', lower = -1,\n"
    "                     upper = 1 })\n"
    "add(m.constraints, { name = 'rail', type = 'prismatic', a = 'arm', b = 'slider', anchor = { 1, 0, 1 },\n"
    "                     axis = { 1, 0, 0 } })\n"
    "add(m.constraints, { name = 'rail_limit', type = 'positional_limit', joint = 'rail', lower = -0.1,\n"
    "                     upper = 0.1 })\n"
    "add(m.constraints, { name = 'spindle', type = 'cylindrical', a = 'slider', b = 'drum', anchor = { 1.25, 0, 1 },\n"
    "                     axis = { 1, 0, 0 } })\n"
    "add(m.constraints, { name = 'cardan', type = 'universal', a = 'drum', b = 'cross', anchor = { 1.75, 0, 1 },\n"
    "                     axis_a = { 0, 1, 0 }, axis_b = { 0, 0, 1 } })\n"
    "add(m.constraints, { name = 'glue', type = 'weld', a = 'cross', b = 'plate', anchor = { 2.25, 0, 1 } })\n"
    "add(m.constraints, { name = 'knot', type = 'ball', a = 'plate', b = 'bob', anchor = { 2.75, 0, 1 } })\n"
    "add(m.constraints, { name = 'winch', type = 'rod', a = 'bob', b = 'load', anchor_a = { 3, 0, 1 },\n"
    "                     anchor_b = { 3, 0, 0 }, speed = 0.1, upper = 2 })\n"
    "add(m.constraints, { name = 'strut', type = 'rod', a = 'arm', b = 'load', anchor_a = { 0.5, 0, 1 },\n"
    "                     anchor_b = { 3, 0, 0 } })\n"
    "add(m.constraints, { name = 'tether', type = 'rope', a = 'slider', b = 'bob', anchor_a = { 1, 0, 1 },\n"
    "                     anchor_b = { 3, 0, 1 }, length = 2.5 })\n"
    "return m\n";

/* A world and copies of its description to spoil. */
typedef struct fixture {
  sim s;
  rt_body_desc *bodies;
  rt_joint_desc *joints;
  rt_world_desc desc;
} fixture;

static void fixture_open(fixture *f) {
  sim_open(&f->s, "every.lua", every_src);
  f->bodies = malloc(sizeof *f->bodies * (size_t)f->s.desc.nbody);
  f->joints = malloc(sizeof *f->joints * (size_t)f->s.desc.njoint);
  assert_true(f->bodies && f->joints);
  f->desc = f->s.desc;
  f->desc.bodies = f->bodies;
  f->desc.joints = f->joints;
}

/* The copies as the mechanism made them. */
static void fixture_reset(fixture *f) {
  memcpy(f->bodies, f->s.desc.bodies, sizeof *f->bodies * (size_t)f->s.desc.nbody);
  memcpy(f->joints, f->s.desc.joints, sizeof *f->joints * (size_t)f->s.desc.njoint);
}

static void fixture_free(fixture *f) {
  free(f->bodies);
  free(f->joints);
  sim_free(&f->s);
}

static int body(const fixture *f, const char *name) {
  const int i = mech_find_body(&f->s.m, name);
  if (i < 0) fail_msg("no body %s", name);
  return i;
}

static int joint(const fixture *f, const char *name) {
  const int i = mech_find_constraint(&f->s.m, name);
  if (i < 0) fail_msg("no constraint %s", name);
  return i;
}

/* rt_world_create on the spoiled description: must fail with `want` and a
 * message, or (want == RT_OK) succeed. */
static void expect_create(fixture *f, const rt_settings *set, rt_status want, const char *what) {
  char err[512] = "";
  rt_status st = RT_OK;
  rt_world *w = rt_world_create(&f->desc, &f->s.rp, set ? set : &f->s.set, &st, err, sizeof err);
  if (want == RT_OK) {
    if (w == NULL) fail_msg("%s: refused (%s): %s", what, rt_status_message(st), err);
    rt_world_destroy(w);
  } else {
    if (w != NULL) fail_msg("%s: accepted", what);
    if (st != want) fail_msg("%s: %s, not %s (%s)", what, rt_status_message(st), rt_status_message(want), err);
    if (err[0] == 0) fail_msg("%s: no message", what);
  }
  fixture_reset(f);
}

static void test_create_checks_bodies(void **state) {
  (void)state;
  fixture f;
  fixture_open(&f);
  fixture_reset(&f);
  expect_create(&f, NULL, RT_OK, "the mechanism as it is");
  const int arm = body(&f, "arm"), drum = body(&f, "drum"), cross = body(&f, "cross"), post = body(&f, "post");
  f.bodies[arm].pose.p[1] = NAN;
  expect_create(&f, NULL, RT_ERR_INPUT, "a NaN position");
  f.bodies[post].pose.p[2] = INFINITY;
  expect_create(&f, NULL, RT_ERR_INPUT, "an infinite position of a fixed body");
  memset(f.bodies[arm].pose.q, 0, sizeof f.bodies[arm].pose.q);
  expect_create(&f, NULL, RT_ERR_INPUT, "a zero quaternion");
  for (int k = 0; k < 4; k++) f.bodies[arm].pose.q[k] *= 1.001;
  expect_create(&f, NULL, RT_ERR_INPUT, "a quaternion of length 1.001");
  for (int k = 0; k < 4; k++) f.bodies[arm].pose.q[k] *= 1 + 1e-9;
  expect_create(&f, NULL, RT_OK, "a quaternion of length 1 + 1e-9 (within the tolerance)");
  f.bodies[arm].pose.q[3] = NAN;
  expect_create(&f, NULL, RT_ERR_INPUT, "a NaN quaternion");
  f.bodies[arm].vel[0] = INFINITY;
  expect_create(&f, NULL, RT_ERR_INPUT, "an infinite velocity");
  f.bodies[arm].angvel[2] = NAN;
  expect_create(&f, NULL, RT_ERR_INPUT, "a NaN angular velocity");
  f.bodies[arm].mass = 0;
  expect_create(&f, NULL, RT_ERR_INPUT, "mass 0");
  f.bodies[arm].mass = NAN;
  expect_create(&f, NULL, RT_ERR_INPUT, "mass NaN");
  f.bodies[arm].inertia[1] = 0;
  expect_create(&f, NULL, RT_ERR_INPUT, "a moment of inertia 0");
  f.bodies[arm].inertia[2] = INFINITY;
  expect_create(&f, NULL, RT_ERR_INPUT, "an infinite moment of inertia");
  f.bodies[post].mass = 0;
  f.bodies[post].inertia[0] = 0;
  expect_create(&f, NULL, RT_OK, "a fixed body without mass or inertia");
  f.bodies[arm].shape = (rt_shape)99;
  expect_create(&f, NULL, RT_ERR_INPUT, "an unknown shape");
  f.bodies[arm].shape_size[2] = 0;
  expect_create(&f, NULL, RT_ERR_INPUT, "a box of height 0");
  f.bodies[drum].shape_size[0] = -0.1;
  expect_create(&f, NULL, RT_ERR_INPUT, "a cylinder of negative radius");
  f.bodies[cross].shape_size[1] = NAN;
  expect_create(&f, NULL, RT_ERR_INPUT, "a capsule of NaN length");
  f.bodies[cross].friction = -0.5;
  expect_create(&f, NULL, RT_ERR_INPUT, "a negative friction");
  f.bodies[cross].friction = NAN;
  expect_create(&f, NULL, RT_ERR_INPUT, "a NaN friction");
  fixture_free(&f);
}

static void test_create_checks_joints(void **state) {
  (void)state;
  fixture f;
  fixture_open(&f);
  fixture_reset(&f);
  const int shoulder = joint(&f, "shoulder"), motor = joint(&f, "shoulder_motor");
  const int alimit = joint(&f, "shoulder_limit"), plimit = joint(&f, "rail_limit"), rail = joint(&f, "rail");
  const int spindle = joint(&f, "spindle"), cardan = joint(&f, "cardan"), glue = joint(&f, "glue");
  const int knot = joint(&f, "knot"), winch = joint(&f, "winch"), strut = joint(&f, "strut");
  const int tether = joint(&f, "tether");
  const int nbody = f.desc.nbody;
  f.joints[shoulder].type = (rt_joint_type)99;
  expect_create(&f, NULL, RT_ERR_INPUT, "an unknown joint type");
  f.joints[knot].body_b = nbody;
  expect_create(&f, NULL, RT_ERR_INPUT, "a body index past the last body");
  f.joints[knot].body_a = -2;
  expect_create(&f, NULL, RT_ERR_INPUT, "a body index below RT_WORLD");
  f.joints[tether].body_b = f.joints[tether].body_a;
  expect_create(&f, NULL, RT_ERR_INPUT, "a rope between a body and itself");
  f.joints[shoulder].body_a = RT_WORLD; /* post is fixed: the arm's hinge to the world */
  f.bodies[body(&f, "arm")].fixed = 1;
  expect_create(&f, NULL, RT_ERR_INPUT, "a hinge between the world and a fixed body");
  f.joints[knot].anchor_a[0] = NAN;
  expect_create(&f, NULL, RT_ERR_INPUT, "a NaN anchor");
  f.joints[glue].anchor_b[2] = INFINITY;
  expect_create(&f, NULL, RT_ERR_INPUT, "an infinite anchor");
  /* frames: orthonormal for the types that use them */
  const int framed[] = {shoulder, rail, spindle, cardan, glue};
  for (size_t k = 0; k < sizeof framed / sizeof framed[0]; k++) {
    for (int c = 0; c < 3; c++) f.joints[framed[k]].frame_b[1][c] *= 1.01;
    expect_create(&f, NULL, RT_ERR_INPUT, "a frame row of length 1.01");
    f.joints[framed[k]].frame_a[2][0] += 0.01;
    expect_create(&f, NULL, RT_ERR_INPUT, "frame rows that are not perpendicular");
  }
  memset(f.joints[knot].frame_a, 0, sizeof f.joints[knot].frame_a);
  expect_create(&f, NULL, RT_OK, "a ball joint with zero frames (it does not use them)");
  /* rods and drives */
  f.joints[strut].length = 0;
  expect_create(&f, NULL, RT_ERR_INPUT, "a rod of length 0");
  f.joints[strut].length = NAN;
  expect_create(&f, NULL, RT_ERR_INPUT, "a rod of NaN length");
  f.joints[winch].lower = f.joints[winch].upper = 0;
  expect_create(&f, NULL, RT_ERR_INPUT, "a driven rod whose bounds are both 0");
  f.joints[winch].lower = f.joints[winch].length + 0.5;
  expect_create(&f, NULL, RT_ERR_INPUT, "a driven rod whose lower bound is above its length");
  f.joints[winch].upper = f.joints[winch].length - 0.5;
  expect_create(&f, NULL, RT_ERR_INPUT, "a driven rod whose upper bound is below its length");
  f.joints[winch].lower = -0.1;
  expect_create(&f, NULL, RT_ERR_INPUT, "a driven rod whose lower bound is negative");
  f.joints[winch].upper = NAN;
  expect_create(&f, NULL, RT_ERR_INPUT, "a driven rod whose upper bound is NaN");
  f.joints[winch].speed = INFINITY;
  expect_create(&f, NULL, RT_ERR_INPUT, "a rod driven at an infinite speed");
  f.joints[strut].lower = f.joints[strut].upper = 0;
  expect_create(&f, NULL, RT_OK, "a rod that is not driven, bounds 0");
  f.joints[tether].length = 0;
  expect_create(&f, NULL, RT_ERR_INPUT, "a rope of length 0");
  /* motors and limits */
  f.joints[motor].target = knot;
  expect_create(&f, NULL, RT_ERR_INPUT, "a motor on a ball joint");
  f.joints[motor].target = -1;
  expect_create(&f, NULL, RT_ERR_INPUT, "a motor on no joint");
  f.joints[motor].speed = NAN;
  expect_create(&f, NULL, RT_ERR_INPUT, "a motor speed NaN");
  f.joints[motor].max_force = -1;
  expect_create(&f, NULL, RT_ERR_INPUT, "a negative max_force");
  f.joints[motor].max_force = INFINITY;
  expect_create(&f, NULL, RT_ERR_INPUT, "an infinite max_force");
  f.joints[alimit].target = rail;
  expect_create(&f, NULL, RT_ERR_INPUT, "an angular limit on a prismatic joint");
  f.joints[plimit].target = shoulder;
  expect_create(&f, NULL, RT_ERR_INPUT, "a positional limit on a hinge");
  f.joints[alimit].lower = 2;
  expect_create(&f, NULL, RT_ERR_INPUT, "a limit whose lower bound is above its upper");
  f.joints[plimit].upper = NAN;
  expect_create(&f, NULL, RT_ERR_INPUT, "a limit with a NaN bound");
  fixture_free(&f);
}

static void test_create_checks_counts_and_settings(void **state) {
  (void)state;
  fixture f;
  fixture_open(&f);
  fixture_reset(&f);
  f.desc.nbody = f.s.desc.nbody - 1;
  expect_create(&f, NULL, RT_ERR_HASH, "one body fewer than the program's");
  f.desc.nbody = f.s.desc.nbody;
  f.joints[joint(&f, "knot")].type = RT_WELD;
  expect_create(&f, NULL, RT_ERR_HASH, "a ball joint made a weld (another structure)");
  f.desc.njoint = -1;
  expect_create(&f, NULL, RT_ERR_INPUT, "a negative joint count");
  f.desc.njoint = f.s.desc.njoint;
  f.desc.bodies = NULL;
  expect_create(&f, NULL, RT_ERR_INPUT, "no bodies");
  f.desc.bodies = f.bodies;
  rt_status st;
  assert_null(rt_world_create(NULL, &f.s.rp, &f.s.set, &st, NULL, 0));
  assert_int_equal(st, RT_ERR_INPUT);
  rt_world *own = rt_world_create(&f.desc, NULL, &f.s.set, &st, NULL, 0); /* no program: PCR */
  assert_non_null(own);
  rt_world_destroy(own);
  assert_null(rt_world_create(&f.desc, &f.s.rp, NULL, &st, NULL, 0));
  assert_int_equal(st, RT_ERR_INPUT);
  /* every setting */
  for (int k = 0; k < 31; k++) {
    rt_settings bad = f.s.set;
    switch (k) {
    case 0: bad.dt = 0; break;
    case 1: bad.dt = NAN; break;
    case 2: bad.gravity[2] = INFINITY; break;
    case 3: bad.iterations = 0; break;
    case 4: bad.beta = 1.5; break;
    case 5: bad.beta = NAN; break;
    case 6: bad.epsilon = -1e-6; break;
    case 7: bad.epsilon = INFINITY; break;
    case 8: bad.solver = (rt_solver)7; break;
    case 9: bad.block_at = (rt_block_at)5; break;
    case 10: bad.max_contacts = -1; break;
    case 11: bad.max_contacts = RT_MAX_CONTACTS + 1; break;
    case 12: bad.restitution = 2; break;
    case 13: bad.restitution = NAN; break;
    case 14: bad.contact_slop = -1e-3; break;
    case 15: bad.contact_slop = NAN; break;
    case 16: bad.stabilize = 2; break;
    case 17: bad.correction = (rt_correction)9; break;
    case 18: bad.max_bias = -0.1; break;
    case 19: bad.max_bias = NAN; break;
    case 20: bad.refine = -1; break;
    case 21: bad.refine = RT_MAX_REFINE + 1; break;
    case 22: bad.project = -1; break;
    case 23: bad.project = RT_MAX_REFINE + 1; break;
    case 24: bad.geometric_stiffness = 2; break;
    case 25: bad.contact_passes = -1; break;
    case 26: bad.contact_passes = RT_MAX_CONTACT_PASSES + 1; break;
    case 27: bad.coupled_rows = -1; break;
    case 28: bad.coupled_rows = RT_MAX_COUPLED_ROWS + 1; break;
    case 29: bad.coupled_contacts = -1; break;
    case 30: bad.coupled_contacts = RT_MAX_COUPLED_CONTACTS + 1; break;
    }
    char what[64];
    snprintf(what, sizeof what, "bad setting %d", k);
    expect_create(&f, &bad, RT_ERR_INPUT, what);
  }
  fixture_free(&f);
}

/*---- setters and accessors ---------------------------------------------------*/

/* Everything a refused call could have touched. */
typedef struct snap {
  rt_body_desc body[16];
  double force[48], torque[48];
  rt_joint_desc joint[24];
  rt_settings set;
  int ncontact;
  rt_contact contact[8];
} snap;

static void take(const rt_world *w, snap *s) {
  memset(s, 0, sizeof *s);
  assert_true(w->nbody <= 16 && w->njoint <= 24);
  memcpy(s->body, w->body, sizeof *w->body * (size_t)w->nbody);
  memcpy(s->force, w->force, 3 * sizeof *w->force * (size_t)w->nbody);
  memcpy(s->torque, w->torque, 3 * sizeof *w->torque * (size_t)w->nbody);
  memcpy(s->joint, w->joint, sizeof *w->joint * (size_t)w->njoint);
  s->set = w->set;
  s->ncontact = w->ncontact;
  memcpy(s->contact, w->contact, sizeof *w->contact * (size_t)(w->ncontact < 8 ? w->ncontact : 8));
}

/* The call must return RT_ERR_INPUT and leave the world as it was. */
#define REFUSED(w, call)                                                                  \
  do {                                                                                    \
    snap before_, after_;                                                                 \
    take(w, &before_);                                                                    \
    const rt_status st_ = (call);                                                         \
    if (st_ != RT_ERR_INPUT) fail_msg("%s: %s, not refused", #call, rt_status_message(st_)); \
    take(w, &after_);                                                                     \
    if (memcmp(&before_, &after_, sizeof before_) != 0) fail_msg("%s: changed the world", #call); \
  } while (0)

static void test_setters_refuse_bad_input_untouched(void **state) {
  (void)state;
  fixture f;
  fixture_open(&f);
  fixture_reset(&f);
  rt_world *w = sim_world(&f.s, &f.s.set);
  for (int k = 0; k < 3; k++) assert_int_equal(rt_world_step(w), RT_OK);
  const int arm = body(&f, "arm"), post = body(&f, "post"), nbody = f.desc.nbody, njoint = f.desc.njoint;
  const int motor = joint(&f, "shoulder_motor"), winch = joint(&f, "winch"), strut = joint(&f, "strut");
  rt_pose pose;
  assert_int_equal(rt_world_body_pose(w, arm, &pose), RT_OK);
  const double v[3] = {0.1, 0.2, 0.3}, nan3[3] = {0, NAN, 0}, inf3[3] = {0, 0, -INFINITY};
  const double big[3] = {1e308, 0, 0};
  /* body state */
  REFUSED(w, rt_world_set_body_state(w, -1, NULL, v, NULL));
  REFUSED(w, rt_world_set_body_state(w, nbody, NULL, v, NULL));
  REFUSED(w, rt_world_set_body_state(w, arm, NULL, nan3, NULL));
  REFUSED(w, rt_world_set_body_state(w, arm, NULL, NULL, inf3));
  rt_pose bad = pose;
  bad.p[0] = NAN;
  REFUSED(w, rt_world_set_body_state(w, arm, &bad, v, v));
  bad = pose;
  memset(bad.q, 0, sizeof bad.q);
  REFUSED(w, rt_world_set_body_state(w, arm, &bad, NULL, NULL));
  bad = pose;
  bad.q[0] *= 1.01;
  REFUSED(w, rt_world_set_body_state(w, arm, &bad, NULL, NULL));
  REFUSED(w, rt_world_set_body_state(w, arm, &pose, v, nan3)); /* all or nothing */
  assert_int_equal(rt_world_set_body_state(w, arm, &pose, v, v), RT_OK);
  assert_int_equal(rt_world_set_body_state(w, post, &pose, v, v), RT_OK); /* fixed: ignored */
  assert_memory_equal(&w->body[post].pose, &f.s.desc.bodies[post].pose, sizeof pose);
  /* forces */
  REFUSED(w, rt_world_add_force(w, -1, v, NULL));
  REFUSED(w, rt_world_add_force(w, nbody, NULL, v));
  REFUSED(w, rt_world_add_force(w, arm, nan3, NULL));
  REFUSED(w, rt_world_add_force(w, arm, v, inf3));
  assert_int_equal(rt_world_add_force(w, arm, big, NULL), RT_OK);
  REFUSED(w, rt_world_add_force(w, arm, big, NULL)); /* the sum overflows */
  assert_int_equal(rt_world_add_force(w, arm, NULL, v), RT_OK);
  /* motors */
  REFUSED(w, rt_world_set_motor(w, -1, 1, 1));
  REFUSED(w, rt_world_set_motor(w, njoint, 1, 1));
  REFUSED(w, rt_world_set_motor(w, winch, 1, 1));
  REFUSED(w, rt_world_set_motor(w, motor, NAN, 1));
  REFUSED(w, rt_world_set_motor(w, motor, 1, -1));
  REFUSED(w, rt_world_set_motor(w, motor, 1, INFINITY));
  assert_int_equal(rt_world_set_motor(w, motor, 2, 5), RT_OK);
  assert_true(rt_world_motor_speed(w, motor) == 2 && rt_world_motor_max_force(w, motor) == 5);
  /* drives */
  REFUSED(w, rt_world_set_drive(w, -1, 0.1));
  REFUSED(w, rt_world_set_drive(w, njoint, 0.1));
  REFUSED(w, rt_world_set_drive(w, motor, 0.1));
  REFUSED(w, rt_world_set_drive(w, winch, NAN));
  assert_int_equal(rt_world_set_drive(w, winch, -0.1), RT_OK);
  assert_int_equal(rt_world_set_drive(w, strut, 0.0), RT_OK);
  rt_world_destroy(w);
  /* a rod created undriven with bounds 0 cannot be driven */
  f.joints[strut].lower = f.joints[strut].upper = 0;
  rt_world *w2 = rt_world_create(&f.desc, &f.s.rp, &f.s.set, NULL, NULL, 0);
  assert_non_null(w2);
  REFUSED(w2, rt_world_set_drive(w2, strut, 0.1));
  assert_int_equal(rt_world_set_drive(w2, strut, 0.0), RT_OK);
  /* settings */
  rt_settings s = f.s.set;
  s.dt = -1;
  REFUSED(w2, rt_world_set_settings(w2, &s));
  s = f.s.set;
  s.max_contacts = f.s.set.max_contacts + 1;
  REFUSED(w2, rt_world_set_settings(w2, &s));
  s = f.s.set;
  s.max_bias = INFINITY;
  REFUSED(w2, rt_world_set_settings(w2, &s));
  /* contacts */
  /* every byte defined (padding too): the snapshots compare the world's
   * copy of it byte for byte */
  rt_contact c;
  memset(&c, 0, sizeof c);
  c.body_a = arm;
  c.body_b = RT_WORLD;
  c.normal[2] = 1;
  c.depth = 0.01;
  c.friction = 0.5;
  c.feature = 1;
  assert_int_equal(rt_world_set_contacts(w2, &c, 1), RT_OK);
  REFUSED(w2, rt_world_set_contacts(w2, &c, -1));
  REFUSED(w2, rt_world_set_contacts(w2, &c, f.s.set.max_contacts + 1));
  REFUSED(w2, rt_world_set_contacts(w2, NULL, 1));
  rt_contact b;
  memcpy(&b, &c, sizeof b);
  b.body_a = nbody;
  REFUSED(w2, rt_world_set_contacts(w2, &b, 1));
  memcpy(&b, &c, sizeof b);
  b.body_b = b.body_a;
  REFUSED(w2, rt_world_set_contacts(w2, &b, 1));
  memcpy(&b, &c, sizeof b);
  b.point[1] = NAN;
  REFUSED(w2, rt_world_set_contacts(w2, &b, 1));
  memcpy(&b, &c, sizeof b);
  b.depth = INFINITY;
  REFUSED(w2, rt_world_set_contacts(w2, &b, 1));
  memcpy(&b, &c, sizeof b);
  b.normal[2] = 0.9;
  REFUSED(w2, rt_world_set_contacts(w2, &b, 1));
  memcpy(&b, &c, sizeof b);
  b.friction = -1;
  REFUSED(w2, rt_world_set_contacts(w2, &b, 1));
  memcpy(&b, &c, sizeof b);
  b.friction = NAN;
  REFUSED(w2, rt_world_set_contacts(w2, &b, 1));
  assert_int_equal(rt_world_step(w2), RT_OK);
  rt_world_destroy(w2);
  fixture_free(&f);
}

static void test_accessors_refuse_bad_indices(void **state) {
  (void)state;
  fixture f;
  fixture_open(&f);
  rt_world *w = sim_world(&f.s, &f.s.set);
  assert_int_equal(rt_world_step(w), RT_OK);
  const int nbody = f.s.desc.nbody, njoint = f.s.desc.njoint;
  rt_pose p, keep;
  memset(&keep, 0x5a, sizeof keep);
  p = keep;
  assert_int_equal(rt_world_body_pose(w, -1, &p), RT_ERR_INPUT);
  assert_int_equal(rt_world_body_pose(w, nbody, &p), RT_ERR_INPUT);
  assert_memory_equal(&p, &keep, sizeof p); /* untouched */
  assert_int_equal(rt_world_body_pose(w, 0, NULL), RT_ERR_INPUT);
  assert_int_equal(rt_world_body_pose(w, nbody - 1, &p), RT_OK);
  double v[3] = {7, 7, 7}, a[3] = {7, 7, 7};
  assert_int_equal(rt_world_body_velocity(w, -1, v, a), RT_ERR_INPUT);
  assert_int_equal(rt_world_body_velocity(w, nbody, v, a), RT_ERR_INPUT);
  assert_true(v[0] == 7 && a[2] == 7);
  assert_int_equal(rt_world_body_velocity(w, 1, v, NULL), RT_OK);
  double pe = 1, ae = 1;
  assert_int_equal(rt_world_joint_error(w, -1, &pe, &ae), -1);
  assert_int_equal(rt_world_joint_error(w, njoint, &pe, &ae), -1);
  assert_true(pe == 0 && ae == 0);
  assert_int_equal(rt_world_joint_error(w, joint(&f, "shoulder"), &pe, &ae), 0);
  assert_int_equal(rt_world_joint_error(w, joint(&f, "shoulder_motor"), &pe, &ae), -1);
  assert_true(isnan(rt_world_joint_length(w, -1)) && isnan(rt_world_joint_length(w, njoint)));
  assert_true(rt_world_joint_length(w, joint(&f, "strut")) > 0 && rt_world_joint_length(w, joint(&f, "knot")) == 0);
  assert_true(isnan(rt_world_motor_max_force(w, -1)) && isnan(rt_world_motor_max_force(w, njoint)));
  assert_true(rt_world_motor_max_force(w, joint(&f, "shoulder_motor")) == 10);
  assert_true(rt_world_motor_max_force(w, joint(&f, "knot")) == 0);
  assert_true(isnan(rt_world_motor_speed(w, -1)) && isnan(rt_world_motor_speed(w, njoint)));
  assert_true(rt_world_motor_speed(w, joint(&f, "shoulder_motor")) == 1);
  assert_true(rt_world_motor_speed(w, joint(&f, "knot")) == 0);
  assert_true(isnan(rt_world_motor_impulse(w, -1)) && isnan(rt_world_motor_impulse(w, njoint)));
  assert_true(rt_world_motor_impulse(w, joint(&f, "knot")) == 0);
  assert_true(isnan(rt_world_contact_impulse(w, -1)) && isnan(rt_world_contact_impulse(w, 0)));
  /* contact generators with no room count only */
  assert_true(rt_world_ground_contacts(w, 10.0, 0.5, 0.01, NULL, 8) > 0);
  rt_contact one;
  assert_true(rt_world_ground_contacts(w, 10.0, 0.5, 0.01, &one, -3) > 0);
  assert_true(rt_world_body_contacts(w, 0.01, NULL, 8) >= 0);
  rt_world_destroy(w);
  fixture_free(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_checks_bodies),
      cmocka_unit_test(test_create_checks_joints),
      cmocka_unit_test(test_create_checks_counts_and_settings),
      cmocka_unit_test(test_setters_refuse_bad_input_untouched),
      cmocka_unit_test(test_accessors_refuse_bad_indices),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
