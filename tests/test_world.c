/* test_world.c -- the runtime stepper (rt_world.h) on whole mechanisms,
 * through the interpreter path (gen's program built in memory, as ldlsim
 * runs it). (Over 600 lines: one program for the stepper, whose cases share
 * the world fixtures, snapshots and run helpers.)
 *
 * What is checked:
 * - the talk's claims: on the scissor lift (10 s, dt 1/60, 10 iterations,
 *   ground contacts) and on the 1000:1 chain, LDL-PGS keeps the joints
 *   within 1 mm while pure PGS at the same iteration count is at least 10x
 *   worse or explodes; the lift's platform rises;
 * - larger mechanisms under gravity: a track loop hung from two supports,
 *   a multi-wheeled vehicle standing on the ground, its shattered and
 *   unshattered programs moving the same way;
 * - determinism of the execution variants: the factorization thread, the
 *   split entry points (begin / factor / iterate / end) and rt_world_step
 *   give bitwise identical states; the block step before the last sweep
 *   runs stably; the world's planned assembly of H~ (from the rows' W J^T)
 *   writes rt_assemble's bits, in float and double, with fixed bodies, and
 *   so does the thread's, from rows it evaluates itself;
 * - physics: a pendulum's energy, a free tumbling body's angular momentum
 *   and energy, a welded body at rest;
 * - robustness: non-finite velocities, poses and forces are refused without
 *   touching the state; a singular H (duplicated hinge, epsilon 0) gives a
 *   finite motion; rt_world_create refuses a program made for another
 *   mechanism (structure hash) and other bad input;
 * - motors (target velocity, impulse bound), driven rods (length schedule,
 *   tracking error) and ground contacts (a box comes to rest).
 * Measured figures are printed with print_message. Runs are kept short
 * except the two 10 s runs the issue asks for: the program also runs under
 * valgrind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "load.h"
#include "mech.h"
#include "mechworld.h"
#include "program.h"
#include "rt_world.h"
#include "rtprog.h"
#include "simrun.h"
#include "../runtime/world.h" /* the world's assembly against rt_assemble */

/*---- helpers ---------------------------------------------------------------------*/

/* A loaded mechanism, its interpreted program, world description and the
 * mechanism's settings (all arrays in the arena). */
typedef struct sim {
  arena a;
  mech m;
  program prog;
  rt_program rp;
  rt_world_desc desc;
  rt_settings set;
} sim;

/* The text of SRC_DIR/rel (malloc'd). */
static char *read_source(const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", SRC_DIR, rel);
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  assert_non_null(buf);
  size_t got = fread(buf, 1, (size_t)n, f);
  buf[got] = '\0';
  fclose(f);
  return buf;
}

/* "local m = (function() <source of rel> end)()" followed by tail, which
 * edits m and returns it (malloc'd). */
static char *wrap_source(const char *rel, const char *tail) {
  char *src = read_source(rel);
  const char *head = "local m = (function()\n";
  const char *mid = "\nend)()\n";
  size_t n = strlen(head) + strlen(src) + strlen(mid) + strlen(tail) + 1;
  char *out = malloc(n);
  assert_non_null(out);
  snprintf(out, n, "%s%s%s%s", head, src, mid, tail);
  free(src);
  return out;
}

/* Loads a mechanism: the file SRC_DIR/rel if src is NULL, else the Lua
 * string src (rel is then its chunk name). */
static void sim_load(sim *s, const char *rel, const char *src) {
  memset(s, 0, sizeof *s);
  arena_init(&s->a);
  diag_list d;
  diag_init(&d);
  gen_status st;
  if (src) {
    st = load_mech_string(&s->a, rel, src, NULL, &s->m, &d);
  } else {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SRC_DIR, rel);
    st = load_mech(&s->a, arena_strdup(&s->a, path), NULL, &s->m, &d);
  }
  if (st != GEN_OK) {
    diag_print(&d, stderr);
    diag_free(&d);
    fail_msg("%s did not load", rel);
  }
  diag_free(&d);
}

/* The symbolic phase (default ordering; shatter: a threshold, 0 = off, or
 * PROGRAM_SHATTER_FROM_MECH), the interpreted program in the given
 * precision, the world description and the mechanism's settings. */
static void sim_build(sim *s, int shatter, rt_precision precision) {
  program_options o;
  program_default_options(&o);
  o.shatter = shatter;
  diag_list d;
  diag_init(&d);
  if (program_build(&s->a, &s->m, &o, &s->prog, &d) != GEN_OK) {
    diag_print(&d, stderr);
    diag_free(&d);
    fail_msg("program_build failed for %s", s->m.name);
  }
  diag_free(&d);
  rtprog_build(&s->a, &s->prog, precision, &s->rp);
  mechworld_desc(&s->a, &s->m, &s->desc);
  mechworld_settings(&s->m, &s->set);
}

/* Loads (file or string, as sim_load) and builds with the defaults: the
 * mechanism's shattering, double precision. */
static void sim_open(sim *s, const char *rel, const char *src) {
  sim_load(s, rel, src);
  sim_build(s, PROGRAM_SHATTER_FROM_MECH, RT_DOUBLE);
}

static void sim_free(sim *s) { arena_free(&s->a); }

static rt_world *sim_world(const sim *s, const rt_settings *set) {
  char err[256];
  rt_status st;
  rt_world *w = rt_world_create(&s->desc, &s->rp, set, &st, err, sizeof err);
  if (w == NULL) fail_msg("rt_world_create(%s): %s (%s)", s->m.name, err, rt_status_message(st));
  return w;
}

/* Runs a world for `steps` steps with simrun (ground contacts if the
 * mechanism has a ground plane), probing the mechanism's probe body. */
static void sim_run(const sim *s, rt_world *w, int steps, simrun_result *r) {
  simrun_options o;
  memset(&o, 0, sizeof o);
  o.steps = steps;
  o.probe = simrun_default_probe(&s->m);
  memset(r, 0, sizeof *r);
  simrun_run(w, &s->m, &o, r);
}

#define MAX_CONTACTS 256

/* Feeds the mechanism's ground contacts (as simrun does), if it has a
 * ground plane. */
static void feed_ground(rt_world *w, const mech *m) {
  if (!m->settings.has_ground) return;
  rt_contact c[MAX_CONTACTS];
  int cap = rt_world_settings(w)->max_contacts;
  if (cap > MAX_CONTACTS) cap = MAX_CONTACTS;
  const double mu = m->settings.ground_friction >= 0 ? m->settings.ground_friction : m->settings.friction;
  int n = rt_world_ground_contacts(w, m->settings.ground_height, mu, SIMRUN_CONTACT_MARGIN, c, cap);
  assert_int_equal(rt_world_set_contacts(w, c, n < cap ? n : cap), RT_OK);
}

/* One step with the ground contacts fed in; must succeed. */
static void step_ok(rt_world *w, const mech *m) {
  feed_ground(w, m);
  rt_status st = rt_world_step(w);
  if (st != RT_OK) fail_msg("rt_world_step: %s", rt_status_message(st));
}

/* The state of every body: p (3), q (4), v (3), w (3). */
#define NSTATE 13
static double *state_alloc(const rt_world *w) {
  double *s = calloc((size_t)rt_world_body_count(w) * NSTATE, sizeof *s);
  assert_non_null(s);
  return s;
}

static void state_get(const rt_world *w, double *s) {
  for (int i = 0; i < rt_world_body_count(w); i++, s += NSTATE) {
    rt_pose p;
    rt_world_body_pose(w, i, &p);
    memcpy(s, p.p, sizeof p.p);
    memcpy(s + 3, p.q, sizeof p.q);
    rt_world_body_velocity(w, i, s + 7, s + 10);
  }
}

static size_t state_bytes(const rt_world *w) { return (size_t)rt_world_body_count(w) * NSTATE * sizeof(double); }

/* Fails with the first differing body if two worlds' states differ in any bit. */
static void assert_same_state(const rt_world *w1, const rt_world *w2, int step, const char *what) {
  double *s1 = state_alloc(w1), *s2 = state_alloc(w2);
  state_get(w1, s1);
  state_get(w2, s2);
  if (memcmp(s1, s2, state_bytes(w1)) != 0) {
    for (int k = 0; k < rt_world_body_count(w1) * NSTATE; k++)
      if (memcmp(&s1[k], &s2[k], sizeof s1[k]) != 0) {
        double a = s1[k], b = s2[k];
        free(s1);
        free(s2);
        fail_msg("%s: step %d, body %d, state component %d: %a vs %a", what, step, k / NSTATE, k % NSTATE, a, b);
      }
  }
  free(s1);
  free(s2);
}

static int state_finite(const rt_world *w) {
  double *s = state_alloc(w);
  state_get(w, s);
  int ok = 1;
  for (int k = 0; k < rt_world_body_count(w) * NSTATE; k++) ok &= isfinite(s[k]) != 0;
  free(s);
  return ok;
}

static int find_body(const sim *s, const char *name) {
  int i = mech_find_body(&s->m, name);
  if (i < 0) fail_msg("%s: no body %s", s->m.name, name);
  return i;
}

static int find_joint(const sim *s, const char *name) {
  int i = mech_find_constraint(&s->m, name);
  if (i < 0) fail_msg("%s: no constraint %s", s->m.name, name);
  return i;
}

/* Rotation matrix of a unit quaternion (w, x, y, z), the test's own. */
static void quat_mat(const double q[4], double M[3][3]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  M[0][0] = 1 - 2 * (y * y + z * z);
  M[0][1] = 2 * (x * y - w * z);
  M[0][2] = 2 * (x * z + w * y);
  M[1][0] = 2 * (x * y + w * z);
  M[1][1] = 1 - 2 * (x * x + z * z);
  M[1][2] = 2 * (y * z - w * x);
  M[2][0] = 2 * (x * z - w * y);
  M[2][1] = 2 * (y * z + w * x);
  M[2][2] = 1 - 2 * (x * x + y * y);
}

static double norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/*---- LDL-PGS against PGS: the talk's two cases ------------------------------------*/

/* Runs a mechanism for 10 s at dt 1/60 and 10 iterations with both solvers. */
static void run_both(const sim *s, simrun_result *ldl, simrun_result *pgs) {
  rt_settings set = s->set;
  set.dt = 1.0 / 60.0;
  set.iterations = 10;
  const int steps = 600;
  set.solver = RT_SOLVER_LDLPGS;
  rt_world *w = sim_world(s, &set);
  sim_run(s, w, steps, ldl);
  rt_world_destroy(w);
  set.solver = RT_SOLVER_PGS;
  w = sim_world(s, &set);
  sim_run(s, w, steps, pgs);
  rt_world_destroy(w);
  print_message("%s, 10 s: LDL-PGS max error %.3g m (final %.3g m, %d steps%s), PGS max error %.3g m after %d steps%s%s\n",
                s->m.name, ldl->max_pos_error, ldl->final_pos_error, ldl->steps, ldl->exploded ? ", EXPLODED" : "",
                pgs->max_pos_error, pgs->steps, pgs->exploded ? ", exploded: " : "", pgs->why);
}

static void test_scissor_lift_ldlpgs_beats_pgs(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "mechanisms/scissor_lift.lua", NULL);
  assert_true(s.m.settings.has_ground); /* the wheels stand on the ground */
  simrun_result ldl, pgs;
  run_both(&s, &ldl, &pgs);
  print_message("scissor_lift: platform z %.4g m -> %.4g m (LDL-PGS), factorization failures %d\n", ldl.probe_start,
                ldl.probe_final, ldl.factor_failures);
  assert_false(ldl.exploded);
  assert_int_equal(ldl.steps, 600);
  assert_true(ldl.max_pos_error < 1e-3);
  assert_int_equal(ldl.factor_failures, 0);
  assert_int_equal(simrun_default_probe(&s.m), find_body(&s, "platform"));
  assert_true(ldl.probe_final - ldl.probe_start > 1.0);
  assert_true(pgs.exploded || pgs.max_pos_error >= 10 * ldl.max_pos_error);
  sim_free(&s);
}

static void test_chain_ldlpgs_beats_pgs(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "mechanisms/chain.lua", NULL);
  /* mass ratio 1000:1 */
  assert_true(s.m.bodies[find_body(&s, "weight")].mass == 1000 * s.m.bodies[find_body(&s, "link1")].mass);
  simrun_result ldl, pgs;
  run_both(&s, &ldl, &pgs);
  assert_false(ldl.exploded);
  assert_int_equal(ldl.steps, 600);
  assert_true(ldl.max_pos_error < 1e-3);
  assert_true(ldl.final_pos_error < 1e-3);
  assert_true(pgs.exploded || pgs.max_pos_error >= 10 * ldl.max_pos_error);
  sim_free(&s);
}

/*---- larger mechanisms under gravity ---------------------------------------------------*/

/* The track loop hung from the world by ball joints at two pins of its top
 * run (pin21 on plate21, pin32 on plate32): the stadium-shaped loop
 * collapses and swings under gravity. The joint error it shows is the
 * integrator's, not the solver's: the block step satisfies the velocity
 * constraints, but the plates whip around at tens of rad/s, and the
 * position update p += dt v along a curved path leaves a second-order
 * error that beta only corrects by 20% per step (measured: max 0.107 m at
 * dt 1/60 over 5 s, 0.0156 m at dt 1/240). So: at dt 1/60 the motion is
 * stable and the error bounded and shrinking once the swing calms down,
 * and a 4x smaller dt cuts the error by far more than 4x. */
static char *track_on_supports(void) {
  return wrap_source("mechanisms/track.lua",
                     "local function pin(name)\n"
                     "  for _, c in ipairs(m.constraints) do\n"
                     "    if c.name == name then assert(c.anchor[3] > 0.99); return c.anchor end\n"
                     "  end\n"
                     "  error('no pin ' .. name)\n"
                     "end\n"
                     "m.constraints[#m.constraints + 1] = { name = 'support_front', type = 'ball', a = 'world',\n"
                     "  b = 'plate21', anchor = pin('pin21') }\n"
                     "m.constraints[#m.constraints + 1] = { name = 'support_rear', type = 'ball', a = 'world',\n"
                     "  b = 'plate32', anchor = pin('pin32') }\n"
                     "return m\n");
}

static void test_track_on_supports_stable(void **state) {
  (void)state;
  char *src = track_on_supports();
  sim s;
  sim_open(&s, "track_supported.lua", src);
  free(src);
  assert_int_equal(s.m.ncons, 42);
  assert_int_equal(s.prog.s.dim, 206);
  rt_settings set = s.set;
  set.dt = 1.0 / 60;
  rt_world *w = sim_world(&s, &set);
  double *err = calloc(300, sizeof *err);
  assert_non_null(err);
  simrun_result r;
  memset(&r, 0, sizeof r);
  r.pos_error = err;
  simrun_options o;
  memset(&o, 0, sizeof o);
  o.steps = 300;
  o.probe = simrun_default_probe(&s.m);
  simrun_run(w, &s.m, &o, &r);
  double last_second = 0, first_two = 0;
  for (int k = 0; k < r.steps; k++)
    if (k >= 240)
      last_second = fmax(last_second, err[k]);
    else if (k < 120)
      first_two = fmax(first_two, err[k]);
  /* the loop swings: its lowest plate moves */
  int low = find_body(&s, "plate05");
  rt_pose p;
  rt_world_body_pose(w, low, &p);
  const double moved = fabs(p.p[2] - s.m.bodies[low].pos[2]) + fabs(p.p[0] - s.m.bodies[low].pos[0]);
  rt_world_destroy(w);

  /* the first 2 s again at dt 1/240 */
  set.dt = 1.0 / 240;
  w = sim_world(&s, &set);
  simrun_result fine;
  sim_run(&s, w, 480, &fine);
  rt_world_destroy(w);
  print_message("track on two supports, 5 s at dt 1/60: max error %.3g m (first 2 s %.3g m, last second %.3g m), "
                "max angular error %.3g rad, plate05 moved %.3g m, energy %.6g -> %.6g J; first 2 s at dt 1/240: "
                "max error %.3g m\n",
                r.max_pos_error, first_two, last_second, r.max_ang_error, moved, r.energy_start, r.energy_final,
                fine.max_pos_error);
  assert_false(r.exploded);
  assert_int_equal(r.steps, 300);
  assert_true(r.max_pos_error < 0.2);
  assert_true(last_second < 0.05);
  assert_true(r.max_ang_error < 1e-6); /* a planar loop: the hinge axes stay parallel */
  assert_true(moved > 0.1);
  assert_true(r.energy_final <= r.energy_start); /* no energy from nowhere */
  assert_false(fine.exploded);
  assert_true(fine.max_pos_error < first_two / 5);
  free(err);
  sim_free(&s);
}

/* Post-stabilization (rt_settings.stabilize) on the track loop hung from
 * one pin (two supports would hold its top run taut and straight: a
 * singular pose where the joints' second-order error is out of reach of
 * any linearization). One step moves the bodies but leaves every velocity
 * bitwise as it was, and the joints meet better than without (measured
 * 4.1 mm -> 0.68 mm: the loop's redundant rows keep one Newton step from
 * converging quadratically). Over 5 s of the loop whipping around at
 * dt 1/60, far from its joints' manifold, the moves that would make the
 * error worse are undone: the run stays stable and no worse than without,
 * and no energy comes from nowhere. The tank (test_contact) is where it
 * pays: plates turning around the sprockets. */
static void test_stabilize_moves_positions_only_and_closes_the_track(void **state) {
  (void)state;
  char *src = wrap_source("mechanisms/track.lua",
                          "for _, c in ipairs(m.constraints) do\n"
                          "  if c.name == 'pin21' then\n"
                          "    m.constraints[#m.constraints + 1] = { name = 'support', type = 'ball', a = 'world',\n"
                          "      b = 'plate21', anchor = c.anchor }\n"
                          "  end\n"
                          "end\n"
                          "return m\n");
  sim s;
  sim_open(&s, "track_hung.lua", src);
  free(src);
  assert_int_equal(s.m.ncons, 41);
  rt_settings set = s.set;
  set.stabilize = 1;
  /* after 1/6 s of swinging, the same world steps once each way */
  rt_world *a = sim_world(&s, &s.set), *b = sim_world(&s, &s.set);
  simrun_result r;
  sim_run(&s, a, 10, &r);
  sim_run(&s, b, 10, &r);
  assert_int_equal(rt_world_set_settings(b, &set), RT_OK);
  assert_int_equal(rt_world_step(a), RT_OK);
  assert_int_equal(rt_world_step(b), RT_OK);
  int moved = 0;
  for (int i = 0; i < rt_world_body_count(a); i++) {
    double va[3], wa[3], vb[3], wb[3];
    rt_world_body_velocity(a, i, va, wa);
    rt_world_body_velocity(b, i, vb, wb);
    assert_memory_equal(va, vb, sizeof va);
    assert_memory_equal(wa, wb, sizeof wa);
    rt_pose pa, pb;
    rt_world_body_pose(a, i, &pa);
    rt_world_body_pose(b, i, &pb);
    moved |= memcmp(&pa, &pb, sizeof pa) != 0;
  }
  assert_true(moved);
  double ea, eb, ang;
  rt_world_max_error(a, &ea, &ang);
  rt_world_max_error(b, &eb, &ang);
  print_message("stabilize: one step of the swinging track, error %.3g m plain, %.3g m stabilized\n", ea, eb);
  assert_true(eb < ea / 4);
  rt_world_destroy(a);
  rt_world_destroy(b);
  /* 5 s both ways from the start */
  simrun_result plain, stab;
  a = sim_world(&s, &s.set);
  sim_run(&s, a, 300, &plain);
  rt_world_destroy(a);
  b = sim_world(&s, &set);
  sim_run(&s, b, 300, &stab);
  rt_world_destroy(b);
  print_message("stabilize: track hung from one pin, 5 s at dt 1/60: max error %.3g m plain, %.3g m stabilized; "
                "energy %.6g -> %.6g J\n",
                plain.max_pos_error, stab.max_pos_error, stab.energy_start, stab.energy_final);
  assert_false(stab.exploded);
  assert_true(stab.max_pos_error <= plain.max_pos_error);
  assert_true(stab.energy_final <= stab.energy_start);
  sim_free(&s);
}

/* The multi-wheeled vehicle (its wheels have cylinder shapes and stand on
 * the ground plane) settles on the ground for 3 s with the chassis
 * shattered (the default program) and whole (shatter off): both stable,
 * the joints hold, and the chassis ends up in the same place. The
 * programs differ in the solver view only, but the contacts are PGS rows
 * solved to 10 iterations against a different equality block, so the
 * transient of the first steps differs a little (measured: 1.5 mm) and
 * the settled poses less (0.3 mm). */
static void test_multi_wheel_on_ground_shattered_like_unshattered(void **state) {
  (void)state;
  sim sh, un;
  sim_load(&sh, "mechanisms/multi_wheel.lua", NULL);
  sim_build(&sh, PROGRAM_SHATTER_FROM_MECH, RT_DOUBLE);
  sim_load(&un, "mechanisms/multi_wheel.lua", NULL);
  sim_build(&un, 0, RT_DOUBLE);
  const int chassis = find_body(&sh, "chassis"), wheel = find_body(&sh, "wheel3L");
  assert_true(sh.m.settings.has_ground);
  assert_int_equal(sh.m.bodies[wheel].shape, MECH_SHAPE_CYLINDER);
  /* really two different programs: the chassis is split in one only */
  assert_true(sh.rp.shard_num[chassis] > 1);
  assert_int_equal(un.rp.shard_num[chassis], 1);
  assert_int_equal(un.rp.nsbody, un.rp.nbody);
  assert_true(sh.rp.dim > un.rp.dim);

  const int steps = 180; /* 3 s */
  rt_world *ws = sim_world(&sh, &sh.set), *wu = sim_world(&un, &un.set);
  double max_diff = 0.0, max_err = 0.0, max_sink = 0.0, settled = 0.0;
  for (int k = 0; k < steps; k++) {
    step_ok(ws, &sh.m);
    step_ok(wu, &un.m);
    rt_pose ps, pu;
    rt_world_body_pose(ws, chassis, &ps);
    rt_world_body_pose(wu, chassis, &pu);
    double d[3] = {ps.p[0] - pu.p[0], ps.p[1] - pu.p[1], ps.p[2] - pu.p[2]};
    max_diff = fmax(max_diff, norm3(d));
    if (k >= steps - 60) settled = fmax(settled, norm3(d));
    max_sink = fmax(max_sink, fabs(ps.p[2] - sh.m.bodies[chassis].pos[2]));
    max_sink = fmax(max_sink, fabs(pu.p[2] - un.m.bodies[chassis].pos[2]));
    double pe, ae;
    rt_world_max_error(ws, &pe, &ae);
    max_err = fmax(max_err, pe);
    rt_world_max_error(wu, &pe, &ae);
    max_err = fmax(max_err, pe);
  }
  assert_int_equal(rt_world_contact_count(ws), 28); /* the lowest rim point of both caps of 14 wheels */
  print_message("multi_wheel on the ground, 3 s: shattered dim %d vs unshattered dim %d; max joint error %.3g m; "
                "chassis positions differ by at most %.3g m (last second %.3g m); chassis z moved by at most %.3g m\n",
                sh.rp.dim, un.rp.dim, max_err, max_diff, settled, max_sink);
  assert_true(state_finite(ws) && state_finite(wu));
  assert_true(max_err < 1e-4);
  assert_true(max_sink < 0.005); /* it stands on its wheels */
  assert_true(max_diff < 3e-3);
  assert_true(settled < 5e-4);
  rt_world_destroy(ws);
  rt_world_destroy(wu);
  sim_free(&sh);
  sim_free(&un);
}

/* Without contacts the two programs agree much more closely: the vehicle
 * tumbling through empty space (a rigid motion, wheels spinning on their
 * axles) for 1 s. Only the regularization, rounding and the geometric
 * stiffness's energy bound differ: the bound cuts each solver body's spin,
 * and the chassis is one solver body unshattered, several shattered
 * (measured: 1.5e-6 m apart with it, 1e-6 m was the bound before it). */
static void test_multi_wheel_tumbling_shattered_like_unshattered(void **state) {
  (void)state;
  char *src = wrap_source("mechanisms/multi_wheel.lua",
                          "local w, v, c = { 0.2, -0.3, 0.5 }, { 1, 0, 0.5 }, m.bodies[1].pos\n"
                          "for _, b in ipairs(m.bodies) do\n"
                          "  local r = { b.pos[1] - c[1], b.pos[2] - c[2], b.pos[3] - c[3] }\n"
                          "  b.vel = { v[1] + w[2] * r[3] - w[3] * r[2], v[2] + w[3] * r[1] - w[1] * r[3],\n"
                          "            v[3] + w[1] * r[2] - w[2] * r[1] }\n"
                          "  b.angvel = { w[1], w[2] + (b.name:sub(1, 5) == 'wheel' and 4 or 0), w[3] }\n"
                          "end\n"
                          "m.settings = { gravity = { 0, 0, 0 }, ground = false }\n"
                          "return m\n");
  sim sh, un;
  sim_load(&sh, "multi_wheel_tumbling.lua", src);
  sim_build(&sh, PROGRAM_SHATTER_FROM_MECH, RT_DOUBLE);
  sim_load(&un, "multi_wheel_tumbling.lua", src);
  sim_build(&un, 0, RT_DOUBLE);
  free(src);
  const int chassis = find_body(&sh, "chassis");
  assert_true(sh.rp.shard_num[chassis] > 1 && un.rp.shard_num[chassis] == 1);
  rt_world *ws = sim_world(&sh, &sh.set), *wu = sim_world(&un, &un.set);
  double max_diff = 0.0, max_vdiff = 0.0, max_err = 0.0;
  for (int k = 0; k < 60; k++) {
    step_ok(ws, &sh.m);
    step_ok(wu, &un.m);
    for (int b = 0; b < sh.m.nbody; b++) {
      rt_pose ps, pu;
      double vs[3], vu[3], as[3], au[3];
      rt_world_body_pose(ws, b, &ps);
      rt_world_body_pose(wu, b, &pu);
      rt_world_body_velocity(ws, b, vs, as);
      rt_world_body_velocity(wu, b, vu, au);
      double d[3] = {ps.p[0] - pu.p[0], ps.p[1] - pu.p[1], ps.p[2] - pu.p[2]};
      double dv[3] = {vs[0] - vu[0], vs[1] - vu[1], vs[2] - vu[2]};
      double da[3] = {as[0] - au[0], as[1] - au[1], as[2] - au[2]};
      max_diff = fmax(max_diff, norm3(d));
      max_vdiff = fmax(max_vdiff, fmax(norm3(dv), norm3(da)));
    }
    double pe, ae;
    rt_world_max_error(ws, &pe, &ae);
    max_err = fmax(max_err, pe);
  }
  rt_pose p;
  rt_world_body_pose(ws, chassis, &p);
  print_message("multi_wheel tumbling, 1 s: bodies differ by at most %.3g m, velocities by %.3g; max joint error "
                "%.3g m; chassis moved to (%.3g, %.3g, %.3g)\n",
                max_diff, max_vdiff, max_err, p.p[0], p.p[1], p.p[2]);
  assert_true(p.p[0] > 0.9); /* it did move: 1 m/s along x for 1 s */
  assert_true(max_err < 5e-3);
  assert_true(max_diff < 3e-6);
  assert_true(max_vdiff < 1e-5);
  rt_world_destroy(ws);
  rt_world_destroy(wu);
  sim_free(&sh);
  sim_free(&un);
}

/*---- execution variants: bitwise identical -------------------------------------------*/

static void test_threaded_matches_single_threaded(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "mechanisms/scissor_lift.lua", NULL);
  rt_settings one = s.set, two = s.set;
  one.threaded = 0;
  two.threaded = RT_THREADED_ALWAYS; /* every step hands off, whatever it measures */
  rt_world *w1 = sim_world(&s, &one), *w2 = sim_world(&s, &two);
  assert_int_equal(rt_world_settings(w2)->threaded, RT_THREADED_ALWAYS);
  for (int k = 0; k < 60; k++) {
    step_ok(w1, &s.m);
    step_ok(w2, &s.m);
    assert_int_equal(rt_world_step_info(w2)->factor_status, -1);
    assert_int_equal(rt_world_step_info(w1)->factor_thread, 0);
    assert_int_equal(rt_world_step_info(w2)->factor_thread, 1);
    assert_same_state(w1, w2, k, "threaded vs single-threaded");
  }
  /* switching the thread off and on between steps changes nothing either */
  two.threaded = 0;
  assert_int_equal(rt_world_set_settings(w2, &two), RT_OK);
  for (int k = 60; k < 70; k++) {
    step_ok(w1, &s.m);
    step_ok(w2, &s.m);
    assert_same_state(w1, w2, k, "thread switched off");
  }
  two.threaded = 1;
  assert_int_equal(rt_world_set_settings(w2, &two), RT_OK);
  for (int k = 70; k < 80; k++) {
    step_ok(w1, &s.m);
    step_ok(w2, &s.m);
    assert_same_state(w1, w2, k, "thread switched on again");
  }
  rt_world_destroy(w1);
  rt_world_destroy(w2);
  sim_free(&s);
}

/* rt_settings.threaded 1 measures whether the hand-off pays: the thread
 * until the first window, then RT__PICK_SAMPLES steps of each kind in the
 * order ABBA, then the kind the window found faster; the same bits either
 * way (checked against a single-threaded world throughout). With retune,
 * both worlds' iterations change at step 100 (what the hand-off saves: the
 * sweeps the factorization overlaps), and the next window comes
 * RT__PICK_AGAIN steps after the first began, not RT__PICK_PERIOD. */
static void check_hand_off(int retune) {
  sim s;
  sim_open(&s, "mechanisms/scissor_lift.lua", NULL);
  rt_settings one = s.set, two = s.set;
  one.threaded = 0;
  two.threaded = 1;
  rt_world *w1 = sim_world(&s, &one), *w2 = sim_world(&s, &two);
  const int window = 2 * RT__PICK_SAMPLES, again = RT__PICK_WARMUP + RT__PICK_AGAIN;
  const int n = retune ? again + window : RT__PICK_WARMUP + window + 40;
  int handed[2] = {0, 0}, chosen = -1;
  for (int k = 0; k < n; k++) {
    if (retune && k == 100) {
      one.iterations += 5;
      two.iterations += 5;
      assert_int_equal(rt_world_set_settings(w1, &one), RT_OK);
      assert_int_equal(rt_world_set_settings(w2, &two), RT_OK);
    }
    step_ok(w1, &s.m);
    step_ok(w2, &s.m);
    assert_same_state(w1, w2, k, "measured hand-off vs single-threaded");
    const int t = rt_world_step_info(w2)->factor_thread, at = k - RT__PICK_WARMUP;
    if (k < RT__PICK_WARMUP) {
      assert_int_equal(t, 1); /* the static estimate until measured */
    } else if (at < window) {
      assert_int_equal(t, ((at + 1) >> 1) & 1); /* A B B A ... */
      handed[t]++;
    } else if (k < again) {
      if (chosen < 0) chosen = w2->worker.pays.choice;
      assert_int_equal(t, chosen); /* the window's choice, steady */
    } else {
      assert_int_equal(t, ((k - again + 1) >> 1) & 1); /* measured again */
    }
  }
  assert_int_equal(handed[0], RT__PICK_SAMPLES);
  assert_int_equal(handed[1], RT__PICK_SAMPLES);
  rt_world_destroy(w1);
  rt_world_destroy(w2);
  sim_free(&s);
}

static void test_threaded_measures_the_hand_off(void **state) {
  (void)state;
  check_hand_off(0);
}

static void test_hand_off_measured_again(void **state) {
  (void)state;
  check_hand_off(1);
}

/* The window's verdict: the thread only when its median step is at least
 * 3 % below the single-threaded one's; a window's samples start afresh. */
static void test_hand_off_verdict(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "mechanisms/scissor_lift.lua", NULL);
  rt_settings set = s.set;
  set.threaded = 1;
  rt_world *w = sim_world(&s, &set);
  const struct {
    double single, handed, odd; /* odd: one outlier among the handed steps */
    int pays;
  } cases[] = {
      {1.0, 0.90, 0.90, 1}, {1.0, 0.98, 0.98, 0}, {1.0, 2.00, 2.00, 0}, {1.0, 0.90, 50.0, 1}, {1.0, 1.20, 0.01, 0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    w->worker.pays.choice = !cases[c].pays;
    for (int i = 0; i < RT__PICK_SAMPLES; i++) {
      rt__worker_timed(w, 0, cases[c].single);
      assert_int_equal(w->worker.pays.choice, !cases[c].pays); /* undecided until both kinds are in */
      rt__worker_timed(w, 1, i == 3 ? cases[c].odd : cases[c].handed);
    }
    assert_int_equal(w->worker.pays.choice, cases[c].pays);
    assert_int_equal(w->worker.pays.ntimes[0], 0);
    assert_int_equal(w->worker.pays.ntimes[1], 0);
  }
  /* 0, 1 and RT_THREADED_ALWAYS only */
  set.threaded = 3;
  assert_int_equal(rt_world_set_settings(w, &set), RT_ERR_INPUT);
  set.threaded = -1;
  assert_int_equal(rt_world_set_settings(w, &set), RT_ERR_INPUT);
  assert_int_equal(rt_world_settings(w)->threaded, 1);
  rt_world_destroy(w);
  sim_free(&s);
}

/* begin, then iterate before factor (they touch disjoint data, so the order
 * is free), then end: the same bits as rt_world_step. */
static void test_split_api_matches_step(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "mechanisms/scissor_lift.lua", NULL);
  for (int solver = 0; solver < 2; solver++) {
    rt_settings set = s.set;
    set.solver = solver ? RT_SOLVER_LDLPGS : RT_SOLVER_PGS;
    rt_world *w1 = sim_world(&s, &set), *w2 = sim_world(&s, &set);
    for (int k = 0; k < 40; k++) {
      step_ok(w1, &s.m);
      feed_ground(w2, &s.m);
      assert_int_equal(rt_world_step_begin(w2), RT_OK);
      rt_world_iterate(w2);
      rt_world_factor(w2);
      assert_int_equal(rt_world_step_end(w2), RT_OK);
      assert_int_equal(rt_world_step_info(w2)->factor_status, solver ? -1 : -2);
      /* the same sweeps as the step: all of them under PGS; under LDL-PGS
       * fewer when S couples every row outside the block (step.c) */
      assert_int_equal(rt_world_step_info(w2)->sweeps, rt_world_step_info(w1)->sweeps);
      assert_true(solver ? rt_world_step_info(w2)->sweeps <= set.iterations - 1
                         : rt_world_step_info(w2)->sweeps == set.iterations);
      assert_int_equal(rt_world_step_info(w1)->rows, rt_world_step_info(w2)->rows);
      assert_same_state(w1, w2, k, solver ? "split API vs step (LDL-PGS)" : "split API vs step (PGS)");
    }
    rt_world_destroy(w1);
    rt_world_destroy(w2);
  }
  sim_free(&s);
}

/* The world assembles H~ from a plan made at creation and the rows' W J^T
 * (runtime/assemble.c); every bit of its workspace must be rt_assemble's on
 * the same J, on every sample, in float and double, over steps that move the
 * poses, and with a fixed body (its terms are left out). */
static void test_world_assembly_matches_rt_assemble(void **state) {
  (void)state;
  static const char *const files[] = {"mechanisms/buggy.lua",         "mechanisms/chain.lua",
                                      "mechanisms/elimination_example.lua", "mechanisms/multi_wheel.lua",
                                      "mechanisms/scissor_lift.lua",  "mechanisms/track.lua",
                                      "tests/data/double_pendulum.lua", NULL};
  static const char fixed_base[] =
      "local m = { name = 'fixed_base', bodies = {}, constraints = {} }\n"
      "m.bodies[1] = { name = 'base', mass = 1, box = { 1, 1, 0.1 }, pos = { 0, 0, 0 }, fixed = true }\n"
      "m.bodies[2] = { name = 'arm', mass = 2, box = { 0.1, 0.1, 1 }, pos = { 0.3, 0, 0.5 } }\n"
      "m.bodies[3] = { name = 'hand', mass = 1, box = { 0.1, 0.1, 0.4 }, pos = { 0.3, 0, 1.2 } }\n"
      "m.constraints[1] = { name = 'hip', type = 'hinge', a = 'base', b = 'arm', anchor = { 0.3, 0, 0 }, axis = { 0, 1, 0 } }\n"
      "m.constraints[2] = { name = 'rod', type = 'rod', a = 'base', b = 'hand', anchor_a = { 0, 0, 0 }, anchor_b = { 0.3, 0, 1.2 } }\n"
      "m.constraints[3] = { name = 'wrist', type = 'ball', a = 'arm', b = 'hand', anchor = { 0.3, 0, 1 } }\n"
      "return m\n";
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) { /* NULL: fixed_base */
    for (int prec = 0; prec < 2; prec++) {
      sim s;
      if (files[f])
        sim_load(&s, files[f], NULL);
      else
        sim_load(&s, "fixed_base.lua", fixed_base);
      sim_build(&s, PROGRAM_SHATTER_FROM_MECH, prec ? RT_DOUBLE : RT_FLOAT);
      rt_settings set = s.set;
      set.epsilon = 1e-3; /* the regularized diagonal must match too */
      rt_world *w = sim_world(&s, &set);
      const size_t bytes = (prec ? sizeof(double) : sizeof(float)) * (size_t)s.rp.work_size;
      unsigned char *mine = malloc(bytes + 1), *ref = malloc(bytes + 1);
      assert_non_null(mine);
      assert_non_null(ref);
      for (int k = 0; k < 12; k++) {
        feed_ground(w, &s.m);
        assert_int_equal(rt_world_step_begin(w), RT_OK);
        memset(mine, 0xa5, bytes); /* stale values must be overwritten */
        rt__assemble_rows(&s.rp, &w->assembly, w->rows.J, w->rows.WJ, set.epsilon, mine);
        rt_assemble(&s.rp, w->rows.J, w->inv_mass, w->inv_inertia, set.epsilon, ref);
        if (memcmp(mine, ref, bytes) != 0) fail_msg("%s (%s), step %d: assembly differs", s.m.name, prec ? "double" : "float", k);
        rt_world_factor(w);
        /* the factorization thread's path: its own rows from the poses, then
         * the same factor, bit for bit */
        const int status = rt_world_step_info(w)->factor_status;
        memcpy(mine, w->work, bytes);
        memset(w->work, 0xa5, bytes);
        rt__worker_poses(w);
        rt__factor_from_poses(w);
        const size_t jbytes = 12 * sizeof(double) * (size_t)s.rp.dim;
        if (memcmp(w->worker.J, w->rows.J, jbytes) != 0 || memcmp(w->worker.WJ, w->rows.WJ, jbytes) != 0 ||
            memcmp(mine, w->work, bytes) != 0 || rt_world_step_info(w)->factor_status != status)
          fail_msg("%s (%s), step %d: the thread's rows or factor differ", s.m.name, prec ? "double" : "float", k);
        rt_world_iterate(w);
        assert_int_equal(rt_world_step_end(w), RT_OK);
      }
      free(mine);
      free(ref);
      rt_world_destroy(w);
      sim_free(&s);
    }
  }
}

/* The block step's residual (rt__pgs_residual), and the rows' velocities
 * the drift's expectation takes (rt__pgs_velocities), take only the
 * products the rows' letters allow (rt_joint_type_def.rows) and the
 * world's sides as zero velocities: their bits are rhs -
 * rt__pgs_row_velocity's and rt__pgs_row_velocity's, which
 * takes all of them, on every equality row, step after step -- on samples
 * and on random mechanisms with every joint type, the world and fixed
 * bodies on either side. So does W J^T (rt__rows_masses, by constraint):
 * each entry rt__rows_wj's value, its nonzeros to the bit, and the
 * inverse diagonal to the bit. */
static void check_masses_by_letters(const rt_world *w, const char *name, int step) {
  const rt__rows *r = &w->rows;
  const double reg = 1.0 + w->set.epsilon;
  for (int i = 0; i < w->dim; i++) {
    double want[12];
    const double jwj = rt__rows_wj(r->J + 12 * (size_t)i, r->a[i], r->b[i], w->inv_mass, w->inv_inertia, want);
    for (int k = 0; k < 12; k++) {
      const double got = r->WJ[12 * (size_t)i + (size_t)k];
      if (want[k] != got || (want[k] != 0.0 && memcmp(&want[k], &got, sizeof got) != 0))
        fail_msg("%s, step %d, row %d (letter %c), W J^T[%d]: %.17g, not %.17g", name, step, i, w->row_letter[i], k, got,
                 want[k]);
    }
    const double inv = jwj > 0.0 ? 1.0 / (reg * jwj) : 0.0;
    assert_memory_equal(&inv, &r->inv_diag[i], sizeof inv);
  }
}

/* Case f of a run over the sample files (f < nfile), then over random
 * mechanisms (seed f - nfile + 1 of random_mechanism.lua's text random):
 * loaded into s and built with the defaults; the caller frees *src (the
 * seeded text, NULL for a file) after sim_free. */
static void open_case(sim *s, const char *const *files, int nfile, int f, const char *random, char **src) {
  *src = NULL;
  if (f < nfile) {
    sim_load(s, files[f], NULL);
  } else {
    *src = malloc(strlen(random) + 32);
    assert_non_null(*src);
    sprintf(*src, "SEED = %d\n%s", f - nfile + 1, random);
    sim_load(s, "random_mechanism.lua", *src);
  }
  sim_build(s, PROGRAM_SHATTER_FROM_MECH, RT_DOUBLE);
}

static void test_residual_by_letters_matches_row_velocity(void **state) {
  (void)state;
  static const char *const files[] = {"mechanisms/scissor_lift.lua", "mechanisms/car.lua", "mechanisms/stewart.lua",
                                      "mechanisms/multi_wheel.lua"};
  const int nfile = (int)(sizeof files / sizeof files[0]);
  char *random = read_source("tests/data/random_mechanism.lua");
  int rows = 0;
  for (int f = 0; f < nfile + 4; f++) { /* then random seeds 1-4 */
    sim s;
    char *src;
    open_case(&s, files, nfile, f, random, &src);
    rt_world *w = sim_world(&s, &s.set);
    double *res = malloc(sizeof *res * (size_t)(s.rp.dim + 1));
    assert_non_null(res);
    for (int k = 0; k < 10; k++) {
      feed_ground(w, &s.m);
      if (rt_world_step_begin(w) != RT_OK) break;
      check_masses_by_letters(w, s.m.name, k);
      rt_world_factor(w);
      rt_world_iterate(w);
      double most = 0.0;
      const double got = rt__pgs_residual(&w->rows, w->prog, w->row_letter, w->vel, res);
      for (int i = 0; i < s.rp.dim; i++) {
        const double want = w->rows.rhs[i] - rt__pgs_row_velocity(&w->rows, i, w->vel);
        if (memcmp(&want, &res[i], sizeof want) != 0)
          fail_msg("%s, step %d, row %d (letter %c): %.17g, not %.17g", s.m.name, k, i, w->row_letter[i], res[i], want);
        most = fmax(most, fabs(want));
        rows++;
      }
      assert_true(got == most);
      rt__pgs_velocities(&w->rows, w->prog, w->row_letter, w->vel, res);
      for (int i = 0; i < s.rp.dim; i++) {
        const double want = rt__pgs_row_velocity(&w->rows, i, w->vel);
        if (memcmp(&want, &res[i], sizeof want) != 0)
          fail_msg("%s, step %d, row %d (letter %c): J v %.17g, not %.17g", s.m.name, k, i, w->row_letter[i], res[i], want);
      }
      if (rt_world_step_end(w) != RT_OK) break;
    }
    free(res);
    free(src);
    rt_world_destroy(w);
    sim_free(&s);
  }
  free(random);
  assert_true(rows > 5000);
}

/* The warm start's sums (rt__rows_warm_sums) go through the solver bodies,
 * J^T l = W^-1 dv: against the rows' own, row by row (sum over rows with
 * l != 0 of l (rhs - J v) and l (J dv + gamma l)), with every row the world
 * builds -- shards (the lift's chassis), fixed bodies, contacts, motors,
 * springs (soft rows: the car's suspension, the spring slider), the
 * geometric stiffness in the inertias -- step after step; the same to
 * rounding (a wrong term would be off by its own size). */
static void test_warm_sums_through_bodies(void **state) {
  (void)state;
  static const char *const files[] = {"mechanisms/scissor_lift.lua", "mechanisms/car.lua", "mechanisms/multi_wheel.lua",
                                      "tests/data/spring_slider.lua"};
  const int nfile = (int)(sizeof files / sizeof files[0]);
  char *random = read_source("tests/data/random_mechanism.lua");
  int impulses = 0, soft = 0;
  for (int f = 0; f < nfile + 4; f++) { /* then random seeds 1-4 */
    sim s;
    char *src;
    open_case(&s, files, nfile, f, random, &src);
    rt_world *w = sim_world(&s, &s.set);
    double *dv = malloc(6 * sizeof *dv * (size_t)w->nsbody);
    assert_non_null(dv);
    for (int k = 0; k < 12; k++) {
      feed_ground(w, &s.m);
      if (rt_world_step_begin(w) != RT_OK) break;
      const rt__rows *r = &w->rows;
      memset(dv, 0, 6 * sizeof *dv * (size_t)w->nsbody);
      rt__pgs_apply_equality(r, w->prog, r->lambda, dv);
      rt__pgs_apply(r, w->dim, r->n, r->lambda, dv);
      double num, den, want_num = 0.0, want_den = 0.0, size_num = 0.0, size_den = 0.0;
      rt__rows_warm_sums(w, dv, &num, &den);
      for (int i = 0; i < r->n; i++) {
        const double l = r->lambda[i];
        if (l == 0.0) continue;
        const double jv = rt__pgs_row_velocity(r, i, w->vel), jd = rt__pgs_row_velocity(r, i, dv);
        const double g = r->normal[i] == RT__ROW_SOFT ? r->soft[i] * l : 0.0;
        want_num += l * (r->rhs[i] - jv);
        want_den += l * (jd + g);
        size_num += fabs(l * r->rhs[i]) + fabs(l * jv);
        size_den += fabs(l * jd) + fabs(l * g);
        impulses++;
        soft += g != 0.0;
      }
      if (!(fabs(num - want_num) <= 1e-9 * size_num + 1e-300) || !(fabs(den - want_den) <= 1e-9 * size_den + 1e-300))
        fail_msg("%s, step %d: sums %.17g, %.17g through the bodies, %.17g, %.17g by the rows", s.m.name, k, num, den,
                 want_num, want_den);
      rt_world_factor(w);
      rt_world_iterate(w);
      if (rt_world_step_end(w) != RT_OK) break;
    }
    free(dv);
    free(src);
    rt_world_destroy(w);
    sim_free(&s);
  }
  free(random);
  print_message("warm start sums: %d rows with impulses (%d soft) checked\n", impulses, soft);
  assert_true(impulses > 5000);
  assert_true(soft > 0);
}

/* The next step's rows take the step's last evaluation of the joints
 * (stabilize.c: a kept projection pass's check, or the drift's when the
 * last step's projection kept no pass; c and J at those poses) only while
 * the bodies are still there (rows.c): after every rt_world_step_begin, c
 * and J are those of evaluating every equality constraint afresh at the
 * poses, bit for bit -- also after rt_world_set_body_state moved a body
 * between two steps, and for the lift's driven rod, whose length changes
 * every step. The lift (a pass every step) and the chain (none) take the
 * kept evaluation in most steps. */
static void test_rows_take_the_last_evaluation(void **state) {
  (void)state;
  /* the tank: post-stabilization moves its bodies last, and its check's
   * evaluation is the one kept */
  static const char *const files[] = {"mechanisms/scissor_lift.lua", "mechanisms/chain.lua", "mechanisms/tank.lua",
                                      "mechanisms/car.lua", "mechanisms/buggy.lua"};
  const int nfile = (int)(sizeof files / sizeof files[0]);
  char *random = read_source("tests/data/random_mechanism.lua");
  int taken_by[3] = {0, 0, 0}, checked = 0; /* the lift's, the chain's, the tank's */
  for (int f = 0; f < nfile + 3; f++) { /* then random seeds 1-3 */
    sim s;
    char *src;
    open_case(&s, files, nfile, f, random, &src);
    rt_world *w = sim_world(&s, &s.set);
    double c[RT_MAX_DEGREE], J[12 * RT_MAX_DEGREE];
    for (int k = 0; k < 40; k++) {
      feed_ground(w, &s.m);
      if (k == 20) { /* a body moved by hand: its joints' rows are evaluated again */
        int b = 0;
        while (b < w->nbody && w->body[b].fixed) b++;
        rt_pose pose = w->body[b].pose;
        pose.p[2] += 1e-3;
        assert_int_equal(rt_world_set_body_state(w, b, &pose, NULL, NULL), RT_OK);
      }
      int taken = w->kept;
      for (int i = 0; i < w->nbody && taken; i++)
        taken = memcmp(&w->kept_pose[i], &w->body[i].pose, sizeof(rt_pose)) == 0;
      if (k == 20) assert_false(taken);
      if (f < 3) taken_by[f] += taken;
      if (rt_world_step_begin(w) != RT_OK) break;
      const rt_program *p = w->prog;
      for (int n = 0; n < p->ncons; n++) {
        const int row = p->cons_row[n], d = p->cons_degree[n];
        rt__rows_cons_eval(w, w->body, n, c, J);
        if (memcmp(c, w->c + row, sizeof *c * (size_t)d) != 0 ||
            memcmp(J, w->rows.J + 12 * (size_t)row, 12 * sizeof *J * (size_t)d) != 0)
          fail_msg("%s, step %d, constraint %d: the rows are not the joints' evaluation at the poses (%s)", s.m.name, k,
                   n, taken ? "kept" : "evaluated");
        checked++;
      }
      rt_world_factor(w);
      rt_world_iterate(w);
      if (rt_world_step_end(w) != RT_OK) break;
    }
    free(src);
    rt_world_destroy(w);
    sim_free(&s);
  }
  free(random);
  print_message("the last evaluation taken in %d of the lift's 40 steps, %d of the chain's, %d of the tank's; "
                "%d constraints checked\n",
                taken_by[0], taken_by[1], taken_by[2], checked);
  assert_true(taken_by[0] >= 30 && taken_by[1] >= 30 && taken_by[2] >= 30);
  assert_true(checked > 2000);
}

/* What a step leaves behind and no later step may read: once the rows
 * took the kept evaluation (rows.c swaps the arrays), kept_c and kept_J
 * hold the last step's rows; the position pass's pseudo-velocities and
 * impulses hold the last pass's until a step runs one again (a step
 * without one integrates without them). A twin whose leftovers are
 * poisoned with NaN after each step's rows are built steps to the same
 * bits: on the lift and the buggy, the first body of each pulled off its
 * joints once (the lift's position pass runs then, the buggy's in a few
 * more steps). */
static void test_leftovers_are_not_read(void **state) {
  (void)state;
  static const char *const files[] = {"mechanisms/scissor_lift.lua", "mechanisms/buggy.lua"};
  for (int f = 0; f < 2; f++) {
    sim s;
    sim_open(&s, files[f], NULL);
    rt_world *w = sim_world(&s, &s.set), *twin = sim_world(&s, &s.set);
    int passes = 0, kept = 0;
    for (int k = 0; k < 40; k++) {
      if (k == 20) { /* the first body that moves, off its joints */
        int b = 0;
        while (b < w->nbody && w->body[b].fixed) b++;
        for (int t = 0; t < 2; t++) {
          rt_world *x = t ? twin : w;
          rt_pose pose = x->body[b].pose;
          pose.p[2] += 0.3;
          assert_int_equal(rt_world_set_body_state(x, b, &pose, NULL, NULL), RT_OK);
        }
      }
      feed_ground(w, &s.m);
      feed_ground(twin, &s.m);
      int taken = twin->kept;
      for (int i = 0; i < twin->nbody && taken; i++)
        taken = memcmp(&twin->kept_pose[i], &twin->body[i].pose, sizeof(rt_pose)) == 0;
      kept += taken;
      assert_int_equal(rt_world_step(w), RT_OK);
      assert_int_equal(rt_world_step_begin(twin), RT_OK);
      if (taken) assert_false(twin->kept); /* the rows have the evaluation now */
      if (!twin->kept) {                   /* else still an evaluation at kept_pose, which a step may take */
        for (int i = 0; i < twin->dim; i++) twin->kept_c[i] = NAN;
        for (int i = 0; i < 12 * twin->dim; i++) twin->kept_J[i] = NAN;
      }
      for (int i = 0; i < 6 * twin->nsbody; i++) twin->pvel[i] = NAN;
      for (int i = 0; i < twin->prows.n; i++) twin->prows.lambda[i] = NAN;
      rt_world_factor(twin);
      rt_world_iterate(twin);
      assert_int_equal(rt_world_step_end(twin), RT_OK);
      passes += !isnan(twin->pvel[0]); /* a pass cleared them */
      assert_same_state(w, twin, k, "leftovers poisoned");
    }
    print_message("%s: the kept evaluation taken in %d of 40 steps; %d steps ran the position pass\n", s.m.name, kept,
                  passes);
    assert_true(kept >= 30);
    if (f == 0) assert_true(passes > 0);
    rt_world_destroy(w);
    rt_world_destroy(twin);
    sim_free(&s);
  }
}

/* The sweeps before the block step (step.c): none when S couples every row
 * outside the block and there are no contacts (the chain: equality rows
 * only); two when the contacts are coupled too (the scissor lift on its
 * wheels' contacts: friction's answer depends on where it starts), the
 * second over the rows outside the block only, and the first too once the
 * contacts go to S with the first block step split around it (S held them
 * in the steps before: rt__schur_expects); N - 1 over all
 * rows when the contacts are left to the sweeps (coupled_contacts 0). */
static void test_sweeps_before_the_block(void **state) {
  (void)state;
  sim c;
  sim_open(&c, "mechanisms/chain.lua", NULL);
  rt_world *w = sim_world(&c, &c.set);
  for (int k = 0; k < 5; k++) {
    step_ok(w, &c.m);
    assert_int_equal(rt_world_step_info(w)->sweeps, 0);
  }
  rt_world_destroy(w);
  sim_free(&c);
  sim s;
  sim_open(&s, "mechanisms/scissor_lift.lua", NULL);
  /* mode 0: the contacts left to the sweeps (no contact passes); 1: to the
   * contact passes; 2: coupled through S */
  for (int mode = 0; mode < 3; mode++) {
    const int coupled = mode == 2;
    rt_settings set = s.set;
    set.coupled_contacts = coupled ? 16 : 0;
    if (mode == 0) set.contact_passes = 0;
    w = sim_world(&s, &set);
    const size_t nv = 6 * (size_t)w->nsbody;
    double *vel = malloc(sizeof *vel * nv), *want_v = malloc(sizeof *want_v * nv);
    assert_true(vel && want_v);
    int outside = 0, twos = 0, full = 0, last_passes = 0;
    for (int k = 0; k < 30; k++) {
      /* coupled: the first sweep over all rows (but when the contacts go
       * to S), the second over those outside the block; else every sweep
       * over all, two of them with contacts that the passes take */
      feed_ground(w, &s.m);
      assert_int_equal(rt_world_step_begin(w), RT_OK);
      const int to_s = coupled && rt__schur_expects(w);
      outside += to_s;
      rt_world_factor(w);
      const int n = w->rows.n;
      double *lambda = malloc(sizeof *lambda * (size_t)n), *want_l = malloc(sizeof *want_l * (size_t)n);
      assert_true(lambda && want_l);
      memcpy(lambda, w->rows.lambda, sizeof *lambda * (size_t)n);
      memcpy(vel, w->vel, sizeof *vel * nv);
      /* mode 1: two after a step whose contacts settled at the passes'
       * first sweep (it took no block step in them) */
      const int settled = w->ncontact > 0 && last_passes == 0;
      const int sweeps = mode == 0 || (mode == 1 && !settled) ? set.iterations - 1 : 2;
      if (mode == 1 && settled) twos++;
      if (mode == 1 && !settled) full++;
      for (int t = 0; t < sweeps; t++)
        rt__pgs_sweep(&w->rows, coupled && (t > 0 || to_s) ? w->dim : 0, n, w->vel);
      memcpy(want_l, w->rows.lambda, sizeof *want_l * (size_t)n);
      memcpy(want_v, w->vel, sizeof *want_v * nv);
      memcpy(w->rows.lambda, lambda, sizeof *lambda * (size_t)n);
      memcpy(w->vel, vel, sizeof *vel * nv);
      rt_world_iterate(w);
      assert_memory_equal(want_l, w->rows.lambda, sizeof *want_l * (size_t)n);
      assert_memory_equal(want_v, w->vel, sizeof *want_v * nv);
      free(lambda);
      free(want_l);
      assert_int_equal(rt_world_step_end(w), RT_OK);
      assert_int_equal(rt_world_step_info(w)->sweeps, sweeps);
      last_passes = rt_world_step_info(w)->contact_passes;
    }
    if (coupled) assert_true(outside > 0 && outside < 30);
    if (mode == 1) assert_true(twos > 0 && full > 0); /* the first step; the rising lift's passes take block steps */
    free(vel);
    free(want_v);
    rt_world_destroy(w);
  }
  sim_free(&s);
  /* the multi_wheel's 28 contacts, more than S couples, settle at rest:
   * two sweeps in most steps, after the first second */
  sim_open(&s, "mechanisms/multi_wheel.lua", NULL);
  w = sim_world(&s, &s.set);
  int last_passes = 0, twos = 0;
  for (int k = 0; k < 120; k++) {
    feed_ground(w, &s.m);
    const int settled = w->ncontact > 0 && last_passes == 0;
    assert_int_equal(rt_world_step(w), RT_OK);
    const rt_step_info *info = rt_world_step_info(w);
    assert_int_equal(info->sweeps, settled ? 2 : s.set.iterations - 1);
    if (k >= 60) {
      assert_true(w->ncontact > s.set.coupled_contacts);
      twos += settled;
    }
    last_passes = info->contact_passes;
  }
  assert_true(twos > 50);
  rt_world_destroy(w);
  sim_free(&s);
}

/* Contact passes that end in their first sweep, the contacts settled, leave
 * the contacts' impulses where the block step and S put them, bit for bit,
 * and with them the equality rows solved: the sample lift's wheel axles
 * were left up to 8e-5 rad/s off when that sweep moved its settled
 * contacts with no block step after it (rt__step_contacts_first). A first
 * sweep that finds a contact unsettled is the sweep over all rows outside
 * the block, bit for bit. */
typedef struct sweep_state {
  double *lambda, *lo, *hi, *vel;
} sweep_state;

static sweep_state sweep_state_alloc(const rt_world *w) {
  const size_t n = (size_t)w->rows.n + 1, nv = 6 * (size_t)w->nsbody;
  sweep_state t = {malloc(n * sizeof(double)), malloc(n * sizeof(double)), malloc(n * sizeof(double)),
                   malloc(nv * sizeof(double))};
  assert_true(t.lambda && t.lo && t.hi && t.vel);
  return t;
}

static void sweep_state_free(sweep_state *t) {
  free(t->lambda);
  free(t->lo);
  free(t->hi);
  free(t->vel);
}

/* What a sweep over the rows outside the block writes: their impulses and
 * bounds (friction's follow its normal), and the velocities. */
static void sweep_state_copy(const rt_world *w, sweep_state *t, int save) {
  const rt__rows *r = &w->rows;
  const size_t n = (size_t)(r->n - w->dim), nv = 6 * (size_t)w->nsbody;
  double *const live[4] = {r->lambda + w->dim, r->lo + w->dim, r->hi + w->dim, w->vel};
  double *const kept[4] = {t->lambda, t->lo, t->hi, t->vel};
  for (int k = 0; k < 4; k++) {
    const size_t bytes = (k == 3 ? nv : n) * sizeof(double);
    if (save)
      memcpy(kept[k], live[k], bytes);
    else
      memcpy(live[k], kept[k], bytes);
  }
}

static void test_settled_contacts_keep_the_block_solved(void **state) {
  (void)state;
  static const char *const path[] = {"mechanisms/scissor_lift.lua", "mechanisms/multi_wheel.lua"};
  for (int m = 0; m < 2; m++) {
    sim s;
    sim_open(&s, path[m], NULL);
    rt_world *w = sim_world(&s, &s.set);
    int settled = 0, swept = 0;
    double worst = 0.0;
    for (int k = 0; k < 60; k++) {
      feed_ground(w, &s.m);
      assert_int_equal(rt_world_step_begin(w), RT_OK);
      rt_world_factor(w);
      rt_world_iterate(w);
      rt__step_end_block(w);
      assert_true(rt__step_contact_passes(w) > 0);
      rt__rows *r = &w->rows;
      const size_t nc = (size_t)(r->n - w->nfixed_rows), na = (size_t)(r->n - w->dim);
      sweep_state before = sweep_state_alloc(w), first = sweep_state_alloc(w), all = sweep_state_alloc(w);
      sweep_state_copy(w, &before, 1);
      const double c_first = rt__step_contacts_first(w);
      sweep_state_copy(w, &first, 1);
      sweep_state_copy(w, &before, 0);
      const double c_all = rt__pgs_sweep_change(r, w->dim, r->n, w->vel);
      sweep_state_copy(w, &all, 1);
      sweep_state_copy(w, &before, 0); /* the step goes on from here, its own way */
      const size_t off = (size_t)(w->nfixed_rows - w->dim);
      const int kept = memcmp(first.lambda + off, before.lambda + off, nc * sizeof(double)) == 0;
      rt__step_contacts(w);
      if (kept && c_first <= RT__CONTACT_TOLERANCE) {
        settled++;
        assert_int_equal(w->info.contact_passes, 0);
        const double e = rt__block_residual(w, &w->rows, w->vel); /* the largest |rhs - J v| of the equality rows */
        if (k >= 20 && e > worst) worst = e; /* past the first steps' settling */
      } else {
        swept++;
        assert_true(c_first == c_all);
        assert_memory_equal(first.lambda, all.lambda, na * sizeof(double));
        assert_memory_equal(first.vel, all.vel, 6 * sizeof(double) * (size_t)w->nsbody);
      }
      sweep_state_free(&before);
      sweep_state_free(&first);
      sweep_state_free(&all);
      assert_int_equal(rt__step_end_finish(w), RT_OK);
    }
    print_message("%s: %d steps' contact passes ended in a first sweep that left the contacts as they were (the "
                  "equality rows then off by at most %.2g m/s, rad/s from step 20 on), %d swept them\n",
                  s.m.name, settled, worst, swept);
    assert_true(settled > 0);
    assert_true(worst < 1e-6);
    rt_world_destroy(w);
    sim_free(&s);
  }
}

/* Stage 6's block step (step.c, rt__step_end_block) with the factor: one
 * refined block step when S couples nothing (the chain), bit for bit; when
 * S couples rows (the lift's wheel contacts and motors), an unrefined one,
 * S's solve, and a refined one -- or, once the step expects S to couple
 * rows (rt__step_split_block: the lift's from its second step on, its
 * contacts coupled in the step before), the first block step's solve split
 * around S: its forward half, S's solve with the equality rows' response
 * to it, its backward half for the residual after S's impulses, and the
 * refinement. Each world is stepped by rt_world_step and a twin by those
 * calls spelled out; their states agree bit for bit. */
static void test_block_step_refined_once(void **state) {
  (void)state;
  static const char *const path[] = {"mechanisms/chain.lua", "mechanisms/scissor_lift.lua"};
  for (int m = 0; m < 2; m++) {
    sim s;
    sim_open(&s, path[m], NULL);
    assert_true(s.set.refine > 0);
    rt_world *w = sim_world(&s, &s.set), *twin = sim_world(&s, &s.set);
    double *a = state_alloc(w), *b = state_alloc(w);
    int coupled = 0, split = 0;
    for (int k = 0; k < 40; k++) {
      step_ok(w, &s.m);
      feed_ground(twin, &s.m);
      assert_int_equal(rt_world_step_begin(twin), RT_OK);
      rt_world_factor(twin);
      rt_world_iterate(twin);
      twin->info.contact_passes = 0;
      if (m == 0) {
        assert_false(rt__step_split_block(twin));
        rt__block_step(twin, &twin->rows, twin->vel, twin->set.refine);
        assert_int_equal(rt__schur_build(twin, NULL), 0);
      } else if (rt__step_split_block(twin) && rt__block_residual(twin, &twin->rows, twin->vel) > RT__BLOCK_TOLERANCE) {
        split++;
        rt__block_forward(twin, twin->r);
        if (rt__schur_build(twin, twin->r) > 0) {
          coupled++;
          twin->info.coupled_rows = twin->schur.k;
          twin->info.coupled_sweeps += rt__schur_step(twin, &twin->rows, twin->vel);
          rt__schur_response(twin, twin->r);
        }
        rt__block_backward(twin, twin->r);
        rt__block_correct(twin, &twin->rows, twin->r, twin->vel);
        rt__block_step(twin, &twin->rows, twin->vel, twin->set.refine - 1);
      } else {
        rt__block_step(twin, &twin->rows, twin->vel, 0);
        if (rt__schur_build(twin, NULL) > 0) {
          coupled++;
          twin->info.coupled_rows = twin->schur.k;
          twin->info.coupled_sweeps += rt__schur_step(twin, &twin->rows, twin->vel);
          rt__block_step(twin, &twin->rows, twin->vel, twin->set.refine);
        } else {
          rt__block_step(twin, &twin->rows, twin->vel, twin->set.refine - 1);
        }
      }
      rt__step_contacts(twin);
      assert_int_equal(rt__step_end_finish(twin), RT_OK);
      state_get(w, a);
      state_get(twin, b);
      assert_memory_equal(a, b, state_bytes(w));
    }
    if (m == 1) assert_true(coupled > 0 && split > 0);
    free(a);
    free(b);
    rt_world_destroy(w);
    rt_world_destroy(twin);
    sim_free(&s);
  }
}

/* How far the impulses S's solve left on C's rows are from solving their
 * box problem (schur.c) without the regularization: each row's gap
 * b - S x (less a soft row's compliance times x), for a row within
 * its box (friction's at the final normal's impulse times mu), must vanish;
 * at a bound, point outwards (a box of width 0 asks nothing). Returns the
 * largest violation (m/s). */
static double coupled_kkt_gap(const rt_world *w) {
  const rt__schur *s = &w->schur;
  const rt__rows *r = &w->rows;
  double most = 0.0;
  for (int c = 0; c < s->k; c++) {
    const int i = s->row[c];
    if (r->inv_diag[i] == 0.0) continue; /* takes no part */
    double g = s->b[c] - (r->normal[i] == RT__ROW_SOFT ? r->soft[i] * s->xs[c] : 0.0);
    for (int m = 0; m < s->k; m++) g -= s->S[(size_t)c * (size_t)s->k + (size_t)m] * s->xs[m];
    double lo = r->lo[i], hi = r->hi[i];
    if (r->normal[i] >= 0) {
      hi = r->mu[i] * r->lambda[r->normal[i]];
      lo = -hi;
    }
    const double l = r->lambda[i], slack = 1e-9 * (fabs(lo) + fabs(hi) + 1e-6);
    if (!(hi - lo > slack)) continue; /* friction under a normal that pushes nothing: held at 0 */
    const double v = l <= lo + slack ? fmax(g, 0.0) : l >= hi - slack ? fmax(-g, 0.0) : fabs(g);
    most = fmax(most, v);
  }
  return most;
}

/* The coupled contacts' impulses solve their box problem after every
 * step's S (the active-set method, friction's boxes solved again while a
 * row would change state, then sweeps whose bounds follow the normals to
 * RT__FRICTION_TOLERANCE): the lift standing on its wheels, and pushed
 * sideways from its second second on, hard enough that its wheels slide
 * (friction at its bounds), checked after each step's block step. */
static void test_coupled_contacts_meet_their_boxes(void **state) {
  (void)state;
  for (int push = 0; push < 2; push++) {
    sim s;
    sim_open(&s, "mechanisms/scissor_lift.lua", NULL);
    rt_world *w = sim_world(&s, &s.set);
    const int base = find_body(&s, "chassis");
    assert_true(base >= 0);
    int solved = 0, sliding = 0;
    double most = 0.0;
    for (int k = 0; k < 90; k++) {
      feed_ground(w, &s.m);
      const double side[3] = {push && k >= 60 ? 1e5 : 0.0, 0.0, 0.0};
      assert_int_equal(rt_world_add_force(w, base, side, NULL), RT_OK);
      assert_int_equal(rt_world_step_begin(w), RT_OK);
      rt_world_factor(w);
      rt_world_iterate(w);
      rt__step_end_block(w); /* S's solve, whose state stays until the next build */
      if (w->schur.k > 0 && rt__schur_has_contacts(w)) {
        most = fmax(most, coupled_kkt_gap(w));
        solved++;
        for (int c = 0; c < w->schur.k; c++) sliding += w->schur.state[c] == 1 || w->schur.state[c] == 2;
      }
      rt__step_contacts(w);
      assert_int_equal(rt__step_end_finish(w), RT_OK);
    }
    print_message("scissor_lift%s: %d steps' coupled contacts solved (%d rows held at a bound), their largest gap %.3g m/s\n",
                  push ? " pushed" : "", solved, sliding, most);
    assert_true(solved > 20);
    if (push) assert_true(sliding > 0);
    assert_true(most < 1e-5);
    rt_world_destroy(w);
    sim_free(&s);
  }
}

/* The position pass (stage 7) is skipped when no row has a target
 * (rt__rows_position_start returns 0): its sweeps, block step and S from
 * zero impulses would leave the pseudo-velocities zero, to the bit. Checked
 * on the lift by running them anyway; and a platform pulled 0.3 m off its
 * joints gives targets beyond max_bias, and a pass that moves it. */
static int all_zero_bits(const double *x, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const double zero = 0.0;
    if (memcmp(&x[i], &zero, sizeof zero) != 0) return 0;
  }
  return 1;
}

static void test_position_pass_without_targets_is_zero(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "mechanisms/scissor_lift.lua", NULL);
  rt_world *w = sim_world(&s, &s.set);
  const int platform = find_body(&s, "platform");
  assert_true(platform >= 0);
  int none = 0, some = 0;
  for (int k = 0; k < 30; k++) {
    if (k == 20) { /* the platform off its joints */
      rt_pose pose;
      double v[3], om[3];
      assert_int_equal(rt_world_body_pose(w, platform, &pose), RT_OK);
      assert_int_equal(rt_world_body_velocity(w, platform, v, om), RT_OK);
      pose.p[2] += 0.3;
      assert_int_equal(rt_world_set_body_state(w, platform, &pose, v, om), RT_OK);
    }
    feed_ground(w, &s.m);
    assert_int_equal(rt_world_step_begin(w), RT_OK);
    rt_world_factor(w);
    rt_world_iterate(w);
    rt__step_end_block(w);
    rt__step_contacts(w);
    const int targets = rt__rows_position_start(w);
    rt__rows *p = &w->prows;
    const size_t nv = 6 * (size_t)w->nsbody;
    if (!targets) { /* the pass's zero start, which rt__rows_position_start sets only for a pass it runs */
      memset(w->pvel, 0, sizeof *w->pvel * nv);
      memset(p->lambda, 0, sizeof *p->lambda * (size_t)p->n);
    }
    for (int t = 0; t < (w->set.iterations + 2) / 3; t++) rt__pgs_sweep(p, w->dim, p->n, w->pvel);
    rt__block_step(w, p, w->pvel, 0);
    if (w->schur.k > 0) rt__schur_step(w, p, w->pvel);
    if (!targets) {
      none++;
      assert_true(all_zero_bits(w->pvel, nv));
      assert_true(all_zero_bits(p->lambda, (size_t)p->n));
    } else {
      some++;
      assert_false(all_zero_bits(w->pvel, nv));
    }
    assert_int_equal(rt__step_end_finish(w), RT_OK);
  }
  assert_true(none > 0);
  assert_true(some > 0);
  rt_world_destroy(w);
  sim_free(&s);
}

/* The block step before the last sweep (RT_BLOCK_BEFORE_LAST): on the
 * chain (equality rows only) as accurate as the block step last; on the
 * scissor lift stable but much less accurate (measured: max 5 cm in 3 s,
 * 8.6 cm in 10 s, against 26 um with the block step last): the last sweep's
 * ground contacts push the light wheels (30 kg under ~2 t) and nothing
 * corrects the axles afterwards. */
static void test_block_before_last_stable(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "mechanisms/scissor_lift.lua", NULL);
  rt_settings set = s.set;
  set.block_at = RT_BLOCK_BEFORE_LAST;
  rt_world *w = sim_world(&s, &set);
  simrun_result r;
  sim_run(&s, w, 180, &r);
  /* N-2 sweeps, the block step, one last sweep */
  assert_int_equal(rt_world_step_info(w)->sweeps, set.iterations - 1);
  assert_int_equal(rt_world_step_info(w)->factor_status, -1);
  assert_true(state_finite(w));
  rt_world_destroy(w);
  sim_free(&s);

  sim c;
  sim_open(&c, "mechanisms/chain.lua", NULL);
  set = c.set;
  set.block_at = RT_BLOCK_BEFORE_LAST;
  w = sim_world(&c, &set);
  simrun_result rc;
  sim_run(&c, w, 600, &rc);
  rt_world_destroy(w);
  sim_free(&c);
  print_message("block step before the last sweep: scissor_lift 3 s max error %.3g m, platform %.4g -> %.4g m; "
                "chain 10 s max error %.3g m\n",
                r.max_pos_error, r.probe_start, r.probe_final, rc.max_pos_error);
  assert_false(r.exploded);
  assert_int_equal(r.steps, 180);
  assert_true(r.max_pos_error < 0.1);
  assert_true(r.probe_final > r.probe_start + 0.5);
  assert_false(rc.exploded);
  assert_true(rc.max_pos_error < 1e-4);
}

/*---- physics ---------------------------------------------------------------------*/

/* A 0.5 m bar on a hinge at one end, released horizontal, dt 1/240, 10 s. */
static void test_pendulum_conserves_energy(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "pendulum.lua",
           "return { name = 'pendulum', settings = { dt = 1 / 240 },\n"
           "  bodies = { { name = 'bar', mass = 1, box = { 0.5, 0.05, 0.05 }, pos = { 0.25, 0, 0 } } },\n"
           "  constraints = { { name = 'pivot', type = 'hinge', a = 'world', b = 'bar', anchor = { 0, 0, 0 },\n"
           "                    axis = { 0, 1, 0 } } } }\n");
  rt_world *w = sim_world(&s, &s.set);
  simrun_result r;
  sim_run(&s, w, 2400, &r);
  rt_world_destroy(w);
  const double scale = 1.0 * 9.81 * 0.25; /* m g h of the drop of the centre of mass */
  print_message("pendulum, dt 1/240, 10 s: energy %.6g J -> %.6g J, max |E - E0| %.3g J = %.3g%% of m g h; "
                "lowest centre of mass z %.4g m; max error %.3g m\n",
                r.energy_start, r.energy_final, r.max_energy_drift, 100 * r.max_energy_drift / scale, r.probe_min,
                r.max_pos_error);
  assert_false(r.exploded);
  assert_true(r.probe_min < -0.24); /* it swings through the bottom */
  assert_true(r.max_energy_drift < 0.05 * scale);
  assert_true(r.energy_final <= r.energy_start + 0.01 * scale);
  assert_true(r.max_pos_error < 1e-3);
  sim_free(&s);
}

/* A free asymmetric body (principal moments 0.5, 1.0, 1.3 kg m^2) tumbling
 * without gravity for 10 s, spun mostly about its major axis with a
 * wobble. Measured per step: its angular momentum L = R I R^T w and its
 * energy. The implicit gyroscopic step (one Newton step of backward Euler
 * in the body frame) dissipates: |L| and the energy shrink a little at
 * every step and never grow; the error is first order in dt (measured at
 * dt 1/60: |L - L0| / |L0| = 0.106, energy -16.6%; at dt 1/240: 0.028,
 * -4.6%), so a 4x smaller dt cuts the drift about 4x. */
typedef struct spin_result {
  double ldev;     /* max |L - L0| / |L0| */
  double ldir;     /* max angle between L and L0 (rad) */
  double e0, ef;   /* rotational energy at the start and the end */
  int e_grew;      /* steps where the energy or |L| grew */
} spin_result;

static void spin(double dt, spin_result *out) {
  sim s;
  sim_open(&s, "spinner.lua",
           "return { name = 'spinner', settings = { gravity = { 0, 0, 0 } },\n"
           "  bodies = { { name = 'body', mass = 2, inertia = { 0.5, 1.0, 1.3 }, pos = { 0, 0, 0 },\n"
           "               rot = { 0.8, 0.36, 0.48, 0 }, vel = { 0.1, 0, 0 }, angvel = { 0.4, 0.8, 3.0 } } },\n"
           "  constraints = {} }\n");
  assert_int_equal(s.rp.dim, 0);
  rt_settings set = s.set;
  set.dt = dt;
  rt_world *w = sim_world(&s, &set);
  const double *I = s.m.bodies[0].inertia;
  double L0[3] = {0, 0, 0}, Eprev = 0, Lprev = 0;
  memset(out, 0, sizeof *out);
  const int steps = (int)lround(10.0 / dt);
  for (int k = 0; k <= steps; k++) {
    if (k > 0) assert_int_equal(rt_world_step(w), RT_OK);
    rt_pose p;
    double v[3], om[3], M[3][3], wb[3], L[3];
    rt_world_body_pose(w, 0, &p);
    rt_world_body_velocity(w, 0, v, om);
    quat_mat(p.q, M);
    for (int i = 0; i < 3; i++) wb[i] = M[0][i] * om[0] + M[1][i] * om[1] + M[2][i] * om[2]; /* R^T w */
    for (int i = 0; i < 3; i++) L[i] = M[i][0] * I[0] * wb[0] + M[i][1] * I[1] * wb[1] + M[i][2] * I[2] * wb[2];
    const double E = 0.5 * (I[0] * wb[0] * wb[0] + I[1] * wb[1] * wb[1] + I[2] * wb[2] * wb[2]);
    if (k == 0) {
      memcpy(L0, L, sizeof L);
      out->e0 = E;
    } else {
      out->e_grew += E > Eprev * (1 + 1e-12) || norm3(L) > Lprev * (1 + 1e-12);
    }
    Eprev = E;
    Lprev = norm3(L);
    out->ef = E;
    double d[3] = {L[0] - L0[0], L[1] - L0[1], L[2] - L0[2]};
    out->ldev = fmax(out->ldev, norm3(d) / norm3(L0));
    const double c = (L[0] * L0[0] + L[1] * L0[1] + L[2] * L0[2]) / (norm3(L) * norm3(L0));
    out->ldir = fmax(out->ldir, acos(fmin(1.0, c)));
    /* the centre of mass moves uniformly */
    assert_true(fabs(v[0] - 0.1) < 1e-15 && v[1] == 0 && v[2] == 0);
  }
  rt_world_destroy(w);
  sim_free(&s);
}

static void test_free_body_conserves_momentum(void **state) {
  (void)state;
  spin_result a, b;
  spin(1.0 / 60, &a);
  spin(1.0 / 240, &b);
  print_message("free body, 10 s: dt 1/60: max |L - L0| / |L0| = %.3g, L turned by at most %.3g rad, energy %.6g -> "
                "%.6g J; dt 1/240: %.3g, %.3g rad, energy -> %.6g J\n",
                a.ldev, a.ldir, a.e0, a.ef, b.ldev, b.ldir, b.ef);
  assert_int_equal(a.e_grew, 0);
  assert_int_equal(b.e_grew, 0);
  assert_true(a.ldev < 0.15);
  assert_true(a.ldir < 0.06);
  assert_true(a.ef > 0.8 * a.e0);
  /* first order in dt */
  assert_true(b.ldev < 0.35 * a.ldev);
  assert_true(b.ldir < 0.35 * a.ldir);
  assert_true(b.e0 - b.ef < 0.35 * (a.e0 - a.ef));
}

/* A block welded to the world (anchor off its centre, so gravity also
 * pulls a torque) stays where it is for 10 s. */
static void test_welded_body_stays_at_rest(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "welded.lua",
           "return { name = 'welded',\n"
           "  bodies = { { name = 'block', mass = 5, box = { 0.3, 0.2, 0.1 }, pos = { 0.4, 0.1, 1.0 } } },\n"
           "  constraints = { { name = 'weld', type = 'weld', a = 'world', b = 'block', anchor = { 0, 0, 1 } } } }\n");
  rt_world *w = sim_world(&s, &s.set);
  double drift = 0, turn = 0;
  for (int k = 0; k < 600; k++) {
    assert_int_equal(rt_world_step(w), RT_OK);
    rt_pose p;
    rt_world_body_pose(w, 0, &p);
    double d[3] = {p.p[0] - 0.4, p.p[1] - 0.1, p.p[2] - 1.0};
    drift = fmax(drift, norm3(d));
    turn = fmax(turn, 2 * sqrt(p.q[1] * p.q[1] + p.q[2] * p.q[2] + p.q[3] * p.q[3]));
  }
  rt_world_destroy(w);
  print_message("welded block, 10 s: max position drift %.3g m, max rotation %.3g rad\n", drift, turn);
  assert_true(drift < 1e-6);
  assert_true(turn < 1e-6);
  sim_free(&s);
}

/*---- non-finite input, singular H ---------------------------------------------------------*/

static const char *const double_pendulum = "tests/data/double_pendulum.lua";

/* A NaN or infinite velocity, angular velocity or pose, or a NaN force or
 * torque: the setter refuses it with RT_ERR_INPUT and the state is left as
 * it was (bitwise); stepping goes on. (A state that is not finite all the
 * same -- written past the setters -- is refused by the step before it
 * changes anything: test_snapshot.) */
static void test_nonfinite_input_refused(void **state) {
  (void)state;
  sim s;
  sim_open(&s, double_pendulum, NULL);
  rt_settings set = s.set;
  set.threaded = 1; /* the refusal must not leave the thread waiting */
  for (int kind = 0; kind < 6; kind++) {
    rt_world *w = sim_world(&s, &set);
    for (int k = 0; k < 5; k++) assert_int_equal(rt_world_step(w), RT_OK);
    rt_pose pose;
    assert_int_equal(rt_world_body_pose(w, 1, &pose), RT_OK);
    const double bad[3] = {0.0, NAN, 0.0}, inf[3] = {INFINITY, 0, 0};
    double *before = state_alloc(w), *after = state_alloc(w);
    state_get(w, before);
    rt_status st = RT_OK;
    switch (kind) {
    case 0: st = rt_world_set_body_state(w, 1, NULL, bad, NULL); break;
    case 1: st = rt_world_set_body_state(w, 1, NULL, NULL, inf); break;
    case 2: pose.q[2] = NAN; st = rt_world_set_body_state(w, 1, &pose, NULL, NULL); break;
    case 3: pose.p[0] = -INFINITY; st = rt_world_set_body_state(w, 1, &pose, NULL, NULL); break;
    case 4: st = rt_world_add_force(w, 1, bad, NULL); break;
    case 5: st = rt_world_add_force(w, 0, NULL, inf); break;
    }
    assert_int_equal(st, RT_ERR_INPUT);
    state_get(w, after);
    if (memcmp(before, after, state_bytes(w)) != 0) fail_msg("case %d: a refused call changed the state", kind);
    assert_int_equal(rt_world_step(w), RT_OK);
    assert_true(state_finite(w));
    free(before);
    free(after);
    rt_world_destroy(w);
  }
  /* non-finite settings are refused where they are set */
  rt_world *w = sim_world(&s, &s.set);
  rt_settings bad = s.set;
  bad.dt = NAN;
  assert_int_equal(rt_world_set_settings(w, &bad), RT_ERR_INPUT);
  bad = s.set;
  bad.gravity[1] = INFINITY;
  assert_int_equal(rt_world_set_settings(w, &bad), RT_ERR_INPUT);
  bad = s.set;
  bad.epsilon = NAN;
  assert_int_equal(rt_world_set_settings(w, &bad), RT_ERR_INPUT);
  assert_true(rt_world_settings(w)->dt == s.set.dt);
  assert_int_equal(rt_world_step(w), RT_OK);
  rt_world_destroy(w);
  sim_free(&s);
}

/* Two identical hinges between the world and a bar, and two identical
 * balls between the bar and a tip, epsilon 0: H is exactly singular (each
 * row appears twice). The factorization may fail (a PGS sweep replaces the
 * block step: measured, it fails at every step) or succeed on a roundoff
 * pivot; either way the motion stays finite and the joints hold. With the
 * default regularization epsilon 1e-6, H~ is positive definite: it
 * factors and the block step holds the joints. */
#define TWIN_SRC(twice)                                                                                          \
  "local function hinge(name)\n"                                                                              \
  "  return { name = name, type = 'hinge', a = 'world', b = 'bar', anchor = { 0, 0, 0 }, axis = { 0, 1, 0 } }\n" \
  "end\n"                                                                                                     \
  "local function ball(name)\n"                                                                               \
  "  return { name = name, type = 'ball', a = 'bar', b = 'tip', anchor = { 0.5, 0, 0 } }\n"                   \
  "end\n"                                                                                                     \
  "local m = { name = 'twin_hinges', settings = { epsilon = 0 },\n"                                           \
  "  bodies = { { name = 'bar', mass = 1, box = { 0.5, 0.05, 0.05 }, pos = { 0.25, 0, 0 } },\n"               \
  "             { name = 'tip', mass = 0.2, sphere = 0.03, pos = { 0.5, 0, 0 } } },\n"                        \
  "  constraints = { hinge('pivot'), ball('tip_ball') } }\n"                                                  \
  "if " twice " then\n"                                                                                       \
  "  m.constraints[3] = hinge('pivot_again')\n"                                                               \
  "  m.constraints[4] = ball('tip_ball_again')\n"                                                             \
  "end\n"                                                                                                     \
  "return m\n"

static void test_singular_mechanism_stays_finite(void **state) {
  (void)state;
  sim s, ref;
  sim_open(&s, "twin_hinges.lua", TWIN_SRC("true"));
  sim_open(&ref, "single_hinge.lua", TWIN_SRC("false"));
  assert_int_equal(s.m.ncons, 4);
  assert_int_equal(ref.m.ncons, 2);
  assert_true(s.set.epsilon == 0.0);
  /* the reference: the same pendulum without the duplicates. Neither
   * projects after integrating (rt_settings.project): where the
   * factorization fails there is nothing to project with, and the runs
   * would differ by that, not by the duplicates. */
  ref.set.project = s.set.project = 0;
  rt_world *wr = sim_world(&ref, &ref.set);
  for (int k = 0; k < 300; k++) assert_int_equal(rt_world_step(wr), RT_OK);
  rt_pose pr;
  rt_world_body_pose(wr, 1, &pr);
  double ref_err, ae;
  rt_world_max_error(wr, &ref_err, &ae);
  rt_world_destroy(wr);
  /* PGS, LDL-PGS with epsilon 0, LDL-PGS with epsilon 1e-6 */
  for (int solver = 0; solver < 3; solver++) {
    rt_settings set = s.set;
    set.solver = solver ? RT_SOLVER_LDLPGS : RT_SOLVER_PGS;
    if (solver == 2) set.epsilon = 1e-6;
    rt_world *w = sim_world(&s, &set);
    int failures = 0, diverged = 0;
    double max_err = 0;
    for (int k = 0; k < 300; k++) {
      rt_status st = rt_world_step(w);
      if (st == RT_ERR_DIVERGED)
        diverged++;
      else
        assert_int_equal(st, RT_OK);
      if (rt_world_step_info(w)->factor_status >= 0) failures++;
      if (!state_finite(w)) fail_msg("%s: non-finite state after step %d", solver ? "LDL-PGS" : "PGS", k);
      double pe;
      rt_world_max_error(w, &pe, &ae);
      assert_true(isfinite(pe) && isfinite(ae));
      max_err = fmax(max_err, pe);
    }
    rt_pose p;
    rt_world_body_pose(w, 1, &p);
    double d[3] = {p.p[0] - pr.p[0], p.p[1] - pr.p[1], p.p[2] - pr.p[2]};
    print_message("singular H (duplicated hinge and ball), %s, epsilon %g, 5 s: factorization failed in %d of 300 "
                  "steps, %d steps undone, max error %.3g m; the tip is %.3g m from where it is without the "
                  "duplicates\n",
                  solver ? "LDL-PGS" : "PGS", set.epsilon, failures, diverged, max_err, norm3(d));
    assert_int_equal(diverged, 0);
    assert_true(max_err < 2e-2);
    /* the same swing (measured: 4.1e-5 m where the factorization fails and
     * PGS sweeps replace the block steps -- the position pass starts from
     * zero each step and sweeps a third of the iterations, so it converges
     * less far than a block step) */
    assert_true(norm3(d) < 1e-4);
    if (solver == 2) { /* regularized: factors every step, and moves like the reference (measured: 6.2e-9 m; the
                        * block step's residual epsilon D delta depends on where it starts, and the warm start's
                        * line search scales the duplicated rows' impulses by its own factor) */
      assert_int_equal(failures, 0);
      assert_true(norm3(d) < 1e-8);
    }
    rt_world_destroy(w);
  }
  sim_free(&s);
  sim_free(&ref);
}

/*---- creation: hash and bad input --------------------------------------------------------*/

static void test_create_refuses_foreign_program(void **state) {
  (void)state;
  sim chain, other;
  sim_open(&chain, "mechanisms/chain.lua", NULL);
  /* the same chain with its hook a hinge: same bodies, another structure */
  char *src = wrap_source("mechanisms/chain.lua",
                          "m.constraints[1].type = 'hinge'\n"
                          "m.constraints[1].axis = { 0, 1, 0 }\n"
                          "return m\n");
  sim_open(&other, "chain_hinged.lua", src);
  free(src);
  assert_int_equal(other.m.nbody, chain.m.nbody);
  char err[512];
  rt_status st = RT_OK;
  rt_world *w = rt_world_create(&other.desc, &chain.rp, &chain.set, &st, err, sizeof err);
  assert_null(w);
  assert_int_equal(st, RT_ERR_HASH);
  print_message("hash mismatch: %s\n", err);
  if (!strstr(err, "structure hash")) fail_msg("the message does not mention the structure hash: %s", err);
  assert_non_null(strstr(err, "chain"));
  assert_non_null(strstr(rt_status_message(st), "another mechanism"));
  /* the right program works */
  w = rt_world_create(&other.desc, &other.rp, &other.set, &st, err, sizeof err);
  assert_non_null(w);
  assert_int_equal(st, RT_OK);
  rt_world_destroy(w);

  /* a body count that is not the program's: another mechanism too */
  rt_world_desc d = chain.desc;
  d.nbody--;
  err[0] = 0;
  assert_null(rt_world_create(&d, &chain.rp, &chain.set, &st, err, sizeof err));
  assert_int_equal(st, RT_ERR_HASH);
  assert_non_null(strstr(err, "bodies"));
  /* a program whose constraints' rows do not follow each other: refused
   * (the rows and sweeps would write outside [0, dim)) */
  rt_program lying = chain.rp;
  int rows[64];
  assert_true(lying.ncons >= 2 && lying.ncons <= 64);
  memcpy(rows, lying.cons_row, sizeof *rows * (size_t)lying.ncons);
  rows[1] += 1;
  lying.cons_row = rows;
  err[0] = 0;
  assert_null(rt_world_create(&chain.desc, &lying, &chain.set, &st, err, sizeof err));
  assert_int_equal(st, RT_ERR_INPUT);
  assert_non_null(strstr(err, "rows"));
  /* no program is not bad input: the world solves its block with PCR
   * (test_pcr.c steps such worlds) */
  w = rt_world_create(&chain.desc, NULL, &chain.set, &st, err, sizeof err);
  assert_non_null(w);
  assert_int_equal(rt_world_settings(w)->block_solver, RT_BLOCK_PCR);
  rt_world_destroy(w);
  assert_null(rt_world_create(&chain.desc, &chain.rp, NULL, &st, NULL, 0));
  assert_int_equal(st, RT_ERR_INPUT);
  rt_settings bad = chain.set;
  bad.iterations = 0;
  assert_null(rt_world_create(&chain.desc, &chain.rp, &bad, &st, err, sizeof err));
  assert_int_equal(st, RT_ERR_INPUT);
  bad = chain.set;
  bad.dt = -1.0 / 60;
  assert_null(rt_world_create(&chain.desc, &chain.rp, &bad, &st, err, sizeof err));
  assert_int_equal(st, RT_ERR_INPUT);
  bad = chain.set;
  bad.beta = 1.5;
  assert_null(rt_world_create(&chain.desc, &chain.rp, &bad, &st, err, sizeof err));
  assert_int_equal(st, RT_ERR_INPUT);
  /* a body with no mass, a non-finite pose */
  rt_body_desc *bodies = calloc((size_t)chain.desc.nbody, sizeof *bodies);
  assert_non_null(bodies);
  d = chain.desc;
  d.bodies = bodies;
  memcpy(bodies, chain.desc.bodies, sizeof *bodies * (size_t)d.nbody);
  bodies[3].mass = 0;
  assert_null(rt_world_create(&d, &chain.rp, &chain.set, &st, err, sizeof err));
  assert_int_equal(st, RT_ERR_INPUT);
  memcpy(bodies, chain.desc.bodies, sizeof *bodies * (size_t)d.nbody);
  bodies[2].pose.p[1] = NAN;
  assert_null(rt_world_create(&d, &chain.rp, &chain.set, &st, err, sizeof err));
  assert_int_equal(st, RT_ERR_INPUT);
  free(bodies);
  /* a joint on a body that does not exist */
  rt_joint_desc *joints = calloc((size_t)chain.desc.njoint, sizeof *joints);
  assert_non_null(joints);
  d = chain.desc;
  d.joints = joints;
  memcpy(joints, chain.desc.joints, sizeof *joints * (size_t)d.njoint);
  joints[1].body_b = d.nbody;
  assert_null(rt_world_create(&d, &chain.rp, &chain.set, &st, err, sizeof err));
  assert_int_equal(st, RT_ERR_INPUT);
  free(joints);
  sim_free(&chain);
  sim_free(&other);
}

/*---- motors, driven rods, contacts --------------------------------------------------------*/

/* A wheel on a hinge to the world, driven at 5 rad/s with at most 2 N m:
 * the impulse never exceeds max_force dt, it saturates while the wheel
 * spins up, and the wheel reaches its target; then it is braked to 0. */
static void test_motor_reaches_target(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "motor_wheel.lua",
           "return { name = 'motor_wheel',\n"
           "  bodies = { { name = 'wheel', mass = 10, cylinder = { 0.3, 0.1 }, pos = { 0, 0, 1 },\n"
           "               rot = { math.sqrt(0.5), -math.sqrt(0.5), 0, 0 } } },\n"
           "  constraints = { { name = 'axle', type = 'hinge', a = 'world', b = 'wheel', anchor = { 0, 0, 1 },\n"
           "                    axis = { 0, 1, 0 } },\n"
           "                  { name = 'drive', type = 'motor', joint = 'axle', speed = 5, max_force = 2 } } }\n");
  const int motor = find_joint(&s, "drive"), axle = find_joint(&s, "axle");
  rt_world *w = sim_world(&s, &s.set);
  const double dt = s.set.dt, bound = 2.0 * dt;
  int saturated = 0, reached = -1;
  double max_imp = 0, om[3];
  for (int k = 0; k < 120; k++) {
    assert_int_equal(rt_world_step(w), RT_OK);
    const double imp = rt_world_motor_impulse(w, motor);
    max_imp = fmax(max_imp, fabs(imp));
    if (fabs(imp) > bound * (1 + 1e-12)) fail_msg("step %d: motor impulse %.17g above max_force dt = %.17g", k, imp, bound);
    saturated += fabs(imp) >= bound * (1 - 1e-12);
    rt_world_body_velocity(w, 0, NULL, om);
    if (reached < 0 && fabs(om[1] - 5.0) < 1e-3) reached = k;
  }
  rt_world_body_velocity(w, 0, NULL, om);
  print_message("motor: |impulse| <= %.4g N m s (max seen %.4g), saturated in %d steps, 5 rad/s reached at step %d; "
                "final w_y %.9g rad/s\n",
                bound, max_imp, saturated, reached, om[1]);
  assert_true(saturated >= 30);  /* 2 N m on 0.45 kg m^2 needs ~1.1 s to reach 5 rad/s */
  assert_true(reached > 30);
  assert_true(fabs(om[1] - 5.0) < 1e-3);
  assert_true(fabs(om[0]) < 1e-6 && fabs(om[2]) < 1e-6);
  /* brake to 0 */
  assert_int_equal(rt_world_set_motor(w, motor, 0.0, 2.0), RT_OK);
  for (int k = 0; k < 90; k++) {
    assert_int_equal(rt_world_step(w), RT_OK);
    assert_true(fabs(rt_world_motor_impulse(w, motor)) <= bound * (1 + 1e-12));
  }
  rt_world_body_velocity(w, 0, NULL, om);
  assert_true(fabs(om[1]) < 1e-3);
  /* set_motor only on motors, with max_force >= 0 */
  assert_int_equal(rt_world_set_motor(w, axle, 1.0, 1.0), RT_ERR_INPUT);
  assert_int_equal(rt_world_set_motor(w, motor, 1.0, -1.0), RT_ERR_INPUT);
  assert_int_equal(rt_world_set_motor(w, motor, NAN, 1.0), RT_ERR_INPUT);
  assert_int_equal(rt_world_set_motor(w, motor, 1.0, INFINITY), RT_ERR_INPUT);
  assert_true(rt_world_motor_impulse(w, axle) == 0.0);
  rt_world_destroy(w);
  sim_free(&s);
}

/* A load on a driven rod (a winch) from the world: the rod's length grows
 * by speed dt per step until it reaches upper, and the load follows it. */
static void test_driven_rod_follows_drive(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "winch.lua",
           "return { name = 'winch',\n"
           "  bodies = { { name = 'load', mass = 2, sphere = 0.05, pos = { 0, 0, -1 } } },\n"
           "  constraints = { { name = 'cable', type = 'rod', a = 'world', b = 'load', anchor_a = { 0, 0, 0 },\n"
           "                    anchor_b = { 0, 0, -1 }, speed = 0.1, upper = 1.2 } } }\n");
  const int rod = find_joint(&s, "cable");
  rt_world *w = sim_world(&s, &s.set);
  const double dt = s.set.dt, step_len = 0.1 * dt;
  double len = rt_world_joint_length(w, rod), max_err = 0, max_dist_err = 0;
  assert_true(len == 1.0);
  int stopped = -1;
  for (int k = 0; k < 180; k++) {
    assert_int_equal(rt_world_step(w), RT_OK);
    const double now = rt_world_joint_length(w, rod);
    if (stopped < 0) {
      if (now == 1.2)
        stopped = k;
      else if (fabs(now - len - step_len) > 1e-12)
        fail_msg("step %d: length %.17g -> %.17g, not + speed dt", k, len, now);
    } else {
      assert_true(now == 1.2);
    }
    len = now;
    double pe, ae;
    assert_int_equal(rt_world_joint_error(w, rod, &pe, &ae), 0);
    max_err = fmax(max_err, pe);
    rt_pose p;
    rt_world_body_pose(w, 0, &p);
    max_dist_err = fmax(max_dist_err, fabs(norm3(p.p) - now));
  }
  print_message("driven rod: length reached upper at step %d; max rod error %.3g m, max |distance - length| %.3g m\n",
                stopped, max_err, max_dist_err);
  assert_true(stopped >= 118 && stopped <= 121); /* 0.2 m at 0.1 m/s: 2 s */
  assert_true(max_err < 1e-4);
  assert_true(max_dist_err < 1e-4);
  assert_int_equal(rt_world_set_drive(w, rod, NAN), RT_ERR_INPUT);
  assert_int_equal(rt_world_set_drive(w, rod + 1, 0.1), RT_ERR_INPUT); /* no such joint */
  assert_int_equal(rt_world_set_drive(w, rod, -0.1), RT_OK);
  assert_int_equal(rt_world_step(w), RT_OK);
  assert_true(rt_world_joint_length(w, rod) < 1.2);
  rt_world_destroy(w);
  sim_free(&s);
}

/* A driven rod pushed past its reach: an arm on a ball joint at the origin,
 * the rod from the world at (-1, 0, 0) to the arm's end at (1, 0, 0),
 * already in line with the ball joint (2 m, all the two allow), and driven
 * longer; gravity along the line presses the arm on both. Before drives
 * stalled the drive pushed on every step: the ball joint was 0.5 m open
 * after 10 s and the arm had gained 4.9 J, as much as it had. Now the drive
 * stalls in its third step, 1.7 mm past the reach (what it pushed the ball
 * open by), the rod yields to the ball until the two meet (the error
 * halves every step), the arm keeps no energy of the push, and a new speed
 * starts the drive again. The impulses the push left in the rod and the
 * ball, equal and opposite (2.6e5 N s, which moves nothing), stay in the
 * warm start but grow no more: they grew by 1e5 N s a step while the drive
 * pushed. */
static void test_driven_rod_past_reach_stalls(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "reach.lua",
           "return { name = 'reach', settings = { gravity = { -9.81, 0, 0 } },\n"
           "  bodies = { { name = 'arm', mass = 1, box = { 1, 0.1, 0.1 }, pos = { 0.5, 0, 0 } } },\n"
           "  constraints = {\n"
           "    { name = 'pivot', type = 'ball', a = 'world', b = 'arm', anchor = { 0, 0, 0 } },\n"
           "    { name = 'strut', type = 'rod', a = 'world', b = 'arm', anchor_a = { -1, 0, 0 },\n"
           "      anchor_b = { 1, 0, 0 }, speed = 0.1, lower = 1 } } }\n");
  const int rod = find_joint(&s, "strut");
  rt_world *w = sim_world(&s, &s.set);
  const double dt = s.set.dt;
  assert_int_equal(rt_world_drive_stalled(w, rod), 0);
  assert_int_equal(rt_world_drive_stalled(w, find_joint(&s, "pivot")), 0);
  assert_int_equal(rt_world_drive_stalled(w, -1), -1);
  double ke, pe;
  rt_world_energy(w, &ke, &pe);
  const double e0 = ke + pe;
  double most = e0, settled = 0.0, late_lo = INFINITY, late_hi = 0.0, max_err = 0.0, pos = 0.0, ang;
  int stalled = -1;
  for (int k = 0; k < 600; k++) {
    assert_int_equal(rt_world_step(w), RT_OK);
    if (stalled < 0 && rt_world_drive_stalled(w, rod)) stalled = k;
    rt_world_energy(w, &ke, &pe);
    most = fmax(most, ke + pe);
    const double impulse = fabs(rt_world_rod_impulse(w, rod));
    if (k == 59) settled = impulse;
    if (k >= 60) {
      late_lo = fmin(late_lo, impulse);
      late_hi = fmax(late_hi, impulse);
    }
    rt_world_max_error(w, &pos, &ang);
    max_err = fmax(max_err, pos);
  }
  print_message("driven rod past its reach: stalled at step %d, length %.9g m, rod impulse after 1 s %.6g N s, "
                "then within [%.6g, %.6g]; joint error %.3g m (final %.3g), energy %.6g J -> %.6g J (largest %.6g J)\n",
                stalled, rt_world_joint_length(w, rod), settled, late_lo, late_hi, max_err, pos, e0, ke + pe, most);
  assert_true(stalled >= 0 && stalled < 5);
  assert_int_equal(rt_world_drive_stalled(w, rod), 1);
  assert_true(fabs(rt_world_joint_length(w, rod) - 2.0) < 1e-9);
  assert_true(max_err <= 2.0 * 0.1 * dt);
  assert_true(pos < 1e-9);
  assert_true(late_hi <= settled * (1 + 1e-3) && late_lo >= settled * (1 - 1e-3));
  assert_true(most - e0 <= 9.81 * 2.0 * 0.1 * dt); /* at most the work of two steps of the drive */
  assert_true(ke + pe <= e0 + 1e-9);
  assert_int_equal(rt_world_set_drive(w, rod, 0.1), RT_OK); /* the same command: still stalled */
  assert_int_equal(rt_world_drive_stalled(w, rod), 1);
  assert_int_equal(rt_world_set_drive(w, rod, -0.1), RT_OK); /* a new one: it runs again */
  assert_int_equal(rt_world_drive_stalled(w, rod), 0);
  const double before = rt_world_joint_length(w, rod);
  assert_int_equal(rt_world_step(w), RT_OK);
  assert_int_equal(rt_world_drive_stalled(w, rod), 0);
  assert_true(rt_world_joint_length(w, rod) < before);
  rt_world_destroy(w);
  sim_free(&s);
}

/* A box dropped from 0.3 m onto the ground plane comes to rest on it. */
/* Each contact's rows start from the impulses of the first of last step's
 * contacts with its bodies and feature (rt__contact_rows' table, against a
 * scan of last step's contacts in order), zero without one; with more
 * contacts than keys, keys shared by several of last step's, keys on the
 * world on either side, contacts in another order; and the table is empty
 * again after every step's rows. */
static void test_warm_start_finds_the_first_last_contact(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "boxes.lua",
           "return { name = 'boxes', bodies = {\n"
           "  { name = 'a', mass = 1, box = { 1, 1, 1 }, pos = { 0, 0, 1 } },\n"
           "  { name = 'b', mass = 1, box = { 1, 1, 1 }, pos = { 2, 0, 1 } },\n"
           "  { name = 'c', mass = 1, box = { 1, 1, 1 }, pos = { 4, 0, 1 } } },\n"
           "  constraints = {} }\n");
  rt_settings set = s.set;
  set.max_contacts = 700;
  rt_world *w = sim_world(&s, &set);
  const int pairs[6][2] = {{0, RT_WORLD}, {1, RT_WORLD}, {2, RT_WORLD}, {0, 1}, {RT_WORLD, 2}, {1, 2}};
  unsigned seed = 12345;
  int matched = 0, unmatched = 0;
  for (int round = 0; round < 6; round++) {
    const int nprev = round == 5 ? 0 : 100 * round + 37, n = round == 0 ? 0 : 700 - 90 * round;
    w->nprev = nprev;
    for (int p = 0; p < nprev; p++) {
      rt_contact *c = &w->prev[p];
      memset(c, 0, sizeof *c);
      seed = seed * 1103515245u + 12345u;
      const int *pr = pairs[(seed >> 16) % 6];
      c->body_a = pr[0];
      c->body_b = pr[1];
      c->feature = (seed >> 8) % 40; /* fewer keys than contacts: shared keys */
      for (int k = 0; k < 3; k++) w->prev_lambda[3 * p + k] = p + 0.25 * k + 1.0;
    }
    rt_contact *c = w->contact;
    for (int i = 0; i < n; i++) {
      memset(&c[i], 0, sizeof c[i]);
      seed = seed * 1103515245u + 12345u;
      const int *pr = pairs[(seed >> 16) % 6];
      c[i].body_a = pr[0];
      c[i].body_b = pr[1];
      c[i].feature = (seed >> 8) % 60; /* some without a last contact */
      c[i].point[2] = 0.5;
      c[i].normal[2] = 1.0;
      c[i].friction = 0.5;
    }
    w->ncontact = n;
    rt__contact_rows(w);
    for (int i = 0; i < n; i++) {
      int first = -1;
      for (int p = 0; p < nprev && first < 0; p++)
        if (w->prev[p].body_a == c[i].body_a && w->prev[p].body_b == c[i].body_b && w->prev[p].feature == c[i].feature)
          first = p;
      const int row = w->nfixed_rows + 3 * i;
      for (int k = 0; k < 3; k++)
        assert_true(w->rows.lambda[row + k] == (first >= 0 ? w->prev_lambda[3 * first + k] : 0.0));
      matched += first >= 0;
      unmatched += first < 0;
    }
    for (int e = 0; e < w->prev_slots; e++) assert_int_equal(w->prev_table[e], -1);
  }
  print_message("warm start: %d contacts found their first last contact, %d had none\n", matched, unmatched);
  assert_true(matched > 500 && unmatched > 500);
  rt_world_destroy(w);
  sim_free(&s);
}

static void test_box_comes_to_rest_on_ground(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "box_drop.lua",
           "return { name = 'box_drop', settings = { ground = { height = 0 } },\n"
           "  bodies = { { name = 'box', mass = 2, box = { 0.4, 0.4, 0.2 }, shape = { box = { 0.4, 0.4, 0.2 } },\n"
           "               pos = { 0, 0, 0.4 } } },\n"
           "  constraints = {} }\n");
  rt_world *w = sim_world(&s, &s.set);
  double zmin = INFINITY, zmax = -INFINITY, tilt = 0, support = 0;
  for (int k = 0; k < 180; k++) {
    step_ok(w, &s.m);
    rt_pose p;
    rt_world_body_pose(w, 0, &p);
    if (k >= 120) { /* the last second */
      zmin = fmin(zmin, p.p[2]);
      zmax = fmax(zmax, p.p[2]);
      tilt = fmax(tilt, 2 * sqrt(p.q[1] * p.q[1] + p.q[2] * p.q[2]));
    }
  }
  for (int i = 0; i < rt_world_contact_count(w); i++) support += rt_world_contact_impulse(w, i);
  const double weight = 2 * 9.81 * s.set.dt;
  print_message("box on the ground, last second: z in [%.6g, %.6g] m (half height 0.1 m), jitter %.3g m, tilt %.3g rad; "
                "%d contacts carry %.6g N s per step (weight %.6g N s)\n",
                zmin, zmax, zmax - zmin, tilt, rt_world_contact_count(w), support, weight);
  assert_int_equal(rt_world_contact_count(w), 4);
  assert_true(fabs(zmin - 0.1) < 3e-3 && fabs(zmax - 0.1) < 3e-3);
  assert_true(zmax - zmin < 1e-4);
  assert_true(tilt < 1e-3);
  assert_true(fabs(support - weight) < 0.01 * weight);
  rt_world_destroy(w);
  sim_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scissor_lift_ldlpgs_beats_pgs),
      cmocka_unit_test(test_chain_ldlpgs_beats_pgs),
      cmocka_unit_test(test_track_on_supports_stable),
      cmocka_unit_test(test_stabilize_moves_positions_only_and_closes_the_track),
      cmocka_unit_test(test_multi_wheel_on_ground_shattered_like_unshattered),
      cmocka_unit_test(test_multi_wheel_tumbling_shattered_like_unshattered),
      cmocka_unit_test(test_threaded_matches_single_threaded),
      cmocka_unit_test(test_threaded_measures_the_hand_off),
      cmocka_unit_test(test_hand_off_verdict),
      cmocka_unit_test(test_hand_off_measured_again),
      cmocka_unit_test(test_split_api_matches_step),
      cmocka_unit_test(test_sweeps_before_the_block),
      cmocka_unit_test(test_block_step_refined_once),
      cmocka_unit_test(test_settled_contacts_keep_the_block_solved),
      cmocka_unit_test(test_position_pass_without_targets_is_zero),
      cmocka_unit_test(test_world_assembly_matches_rt_assemble),
      cmocka_unit_test(test_residual_by_letters_matches_row_velocity),
      cmocka_unit_test(test_warm_sums_through_bodies),
      cmocka_unit_test(test_rows_take_the_last_evaluation),
      cmocka_unit_test(test_leftovers_are_not_read),
      cmocka_unit_test(test_coupled_contacts_meet_their_boxes),
      cmocka_unit_test(test_block_before_last_stable),
      cmocka_unit_test(test_pendulum_conserves_energy),
      cmocka_unit_test(test_free_body_conserves_momentum),
      cmocka_unit_test(test_welded_body_stays_at_rest),
      cmocka_unit_test(test_nonfinite_input_refused),
      cmocka_unit_test(test_singular_mechanism_stays_finite),
      cmocka_unit_test(test_create_refuses_foreign_program),
      cmocka_unit_test(test_motor_reaches_target),
      cmocka_unit_test(test_driven_rod_follows_drive),
      cmocka_unit_test(test_driven_rod_past_reach_stalls),
      cmocka_unit_test(test_warm_start_finds_the_first_last_contact),
      cmocka_unit_test(test_box_comes_to_rest_on_ground),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
