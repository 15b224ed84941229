/* test_generated.c -- generated unrolled programs against the interpreter.
 *
 * The Makefile generates every sample mechanism in float and double (and
 * the unshattered, dense multi_wheel, and random mechanisms made from
 * tests/data/random_mechanism.lua with several seeds) into build/gentest/ with distinct
 * prefixes, compiles them into this program and lists them in
 * gentest_programs. For each program, on random SPD matrices with the
 * program's block pattern packed per its layout: the unrolled factor and
 * solve (the program's own entry points) and the interpreter
 * (rt_interp_factor/rt_interp_solve) must agree bit for bit -- workspace,
 * status and solution -- including on a matrix that is not positive
 * definite and on right-hand sides with signed zeros; and the solution must
 * solve the dense system.
 *
 * Generated code chooses its vector width when it is compiled (16-byte
 * vectors, or 32 under AVX, or plain C without vector types); some programs
 * are compiled a second time with -mavx2 (gentest_programs_avx) and checked
 * the same way when the CPU has AVX2, and again for the plain-C branch,
 * with -DLDLPGS_NO_VECTOR (gentest_programs_novec) and by tcc
 * (gentest_programs_tcc), so every kernel body is held to the
 * interpreter's bits.
 *
 * Whole trajectories too: for every program generated from a mechanism
 * file (the samples in mechanisms/, the random ones in build/gentest/), a
 * world stepped with the generated unrolled program and a world stepped
 * with the interpreter running the same program built in memory (gen's
 * symbolic phase, rtprog_build, same precision) must give bitwise
 * identical body poses and velocities after every one of 120 steps, with
 * ground contacts where the mechanism has a ground plane. So must the
 * world the generated file creates itself (NAME_create(NULL, ...): its own
 * description and settings, which must equal those ldlsim builds from the
 * mechanism file -- sim/mechworld.c -- field by field and bit for bit). */
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
#include "mechworld.h"
#include "program.h"
#include "program_check.h"
#include "rt.h"
#include "rt_world.h"
#include "rtprog.h"
#include "simrun.h"
#include "test_util.h"

extern const rt_program *const gentest_programs[];
/* some of them compiled again for AVX2 (the Makefile's GENTEST_AVX_NAMES) */
extern const rt_program *const gentest_programs_avx[];
/* and their plain-C branch (GENTEST_PLAIN_NAMES): by the test's compiler
 * with -DLDLPGS_NO_VECTOR, and by tcc */
extern const rt_program *const gentest_programs_novec[];
extern const rt_program *const gentest_programs_tcc[];
/* the mechanism each generated file of gentest_programs holds, in the same
 * order (the Makefile's gentest_list) */
typedef struct gentest_world {
  const rt_world_desc *desc;
  const rt_settings *settings;
  rt_world *(*create)(const rt_settings *, rt_status *);
} gentest_world;
extern const gentest_world gentest_programs_worlds[];

static void test_program(void **state) { check_program(*state); }

/*---- trajectories: generated program against the interpreter ---------------------*/

#define TRAJ_STEPS 120

/* The mechanism file a program was generated from: mechanisms/NAME.lua,
 * or build/gentest/NAME.lua for the random ones; 0 if there is none. */
static int mechanism_path(const rt_program *p, char *path, size_t len) {
  snprintf(path, len, "%s/mechanisms/%s.lua", SRC_DIR, p->name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    const char *slash = strrchr(LDLGEN_PATH, '/');
    snprintf(path, len, "%.*s/gentest/%s.lua", (int)(slash - LDLGEN_PATH), LDLGEN_PATH, p->name);
    f = fopen(path, "rb");
  }
  if (!f) return 0;
  fclose(f);
  return 1;
}

/* The two programs describe the same solver: sizes, layout, RSI. */
static int same_layout(const rt_program *a, const rt_program *b) {
#define SAME_ARRAY(f, n) (memcmp(a->f, b->f, sizeof *a->f * (size_t)(n)) == 0)
  return a->nbody == b->nbody && a->nsbody == b->nsbody && a->ncons == b->ncons && a->dim == b->dim &&
         a->work_size == b->work_size && a->temp_size == b->temp_size && a->nblk == b->nblk && a->nrsi == b->nrsi &&
         a->structure_hash == b->structure_hash && a->precision == b->precision && SAME_ARRAY(sbody_body, a->nsbody) &&
         SAME_ARRAY(shard_num, a->nbody) && SAME_ARRAY(cons_joint, a->ncons) && SAME_ARRAY(cons_row, a->ncons) &&
         SAME_ARRAY(piv_cons, a->ncons) && SAME_ARRAY(piv_node, a->ncons) && SAME_ARRAY(piv_edge, a->ncons) &&
         SAME_ARRAY(blk_off, a->nblk) && SAME_ARRAY(piv_rsi_adr, a->ncons + 1) && SAME_ARRAY(rsi, a->nrsi);
#undef SAME_ARRAY
}

static void feed_ground(rt_world *w, const mech *m, rt_contact *buf, int cap) {
  if (!m->settings.has_ground) return;
  const double mu = m->settings.ground_friction >= 0 ? m->settings.ground_friction : m->settings.friction;
  int n = rt_world_ground_contacts(w, m->settings.ground_height, mu, SIMRUN_CONTACT_MARGIN, buf, cap);
  assert_int_equal(rt_world_set_contacts(w, buf, n < cap ? n : cap), RT_OK);
}

/* Poses and velocities of every body, 13 doubles each. */
static void world_state(const rt_world *w, double *s) {
  for (int i = 0; i < rt_world_body_count(w); i++, s += 13) {
    rt_pose p;
    rt_world_body_pose(w, i, &p);
    memcpy(s, p.p, sizeof p.p);
    memcpy(s + 3, p.q, sizeof p.q);
    rt_world_body_velocity(w, i, s + 7, s + 10);
  }
}

/* Bitwise equality of two values (-0 is not 0, padding is not compared). */
#define SAME(a, b) (memcmp(&(a), &(b), sizeof(a)) == 0)

static void same_desc(const char *name, const rt_world_desc *g, const rt_world_desc *m) {
  assert_int_equal(g->nbody, m->nbody);
  assert_int_equal(g->njoint, m->njoint);
  for (int i = 0; i < g->nbody; i++) {
    const rt_body_desc *a = &g->bodies[i], *b = &m->bodies[i];
    if (!(SAME(a->mass, b->mass) && SAME(a->inertia, b->inertia) && SAME(a->pose.p, b->pose.p) &&
          SAME(a->pose.q, b->pose.q) && SAME(a->vel, b->vel) && SAME(a->angvel, b->angvel) && SAME(a->fixed, b->fixed) &&
          SAME(a->shape, b->shape) && SAME(a->shape_size, b->shape_size) && SAME(a->friction, b->friction)))
      fail_msg("%s: body %d of the generated description differs from the mechanism file's", name, i);
  }
  for (int i = 0; i < g->njoint; i++) {
    const rt_joint_desc *a = &g->joints[i], *b = &m->joints[i];
    if (!(SAME(a->type, b->type) && SAME(a->body_a, b->body_a) && SAME(a->body_b, b->body_b) &&
          SAME(a->anchor_a, b->anchor_a) && SAME(a->anchor_b, b->anchor_b) && SAME(a->frame_a, b->frame_a) &&
          SAME(a->frame_b, b->frame_b) && SAME(a->length, b->length) && SAME(a->target, b->target) &&
          SAME(a->lower, b->lower) && SAME(a->upper, b->upper) && SAME(a->speed, b->speed) &&
          SAME(a->max_force, b->max_force)))
      fail_msg("%s: joint %d of the generated description differs from the mechanism file's", name, i);
  }
}

static void same_settings(const char *name, const rt_settings *a, const rt_settings *b) {
  if (!(SAME(a->dt, b->dt) && SAME(a->gravity, b->gravity) && SAME(a->iterations, b->iterations) &&
        SAME(a->beta, b->beta) && SAME(a->epsilon, b->epsilon) && SAME(a->solver, b->solver) &&
        SAME(a->block_at, b->block_at) && SAME(a->threaded, b->threaded) && SAME(a->max_contacts, b->max_contacts) &&
        SAME(a->restitution, b->restitution) && SAME(a->contact_slop, b->contact_slop) &&
        SAME(a->stabilize, b->stabilize)))
    fail_msg("%s: the generated settings differ from the mechanism file's", name);
}

/* The mechanism the generated file of program gp holds. */
static const gentest_world *world_of(const rt_program *gp) {
  for (int i = 0; gentest_programs[i]; i++)
    if (gentest_programs[i] == gp) return &gentest_programs_worlds[i];
  fail_msg("%s: not in gentest_programs", gp->name);
  return NULL;
}

static void test_trajectory(void **state) {
  const rt_program *gp = *state;
  char path[1024];
  assert_true(mechanism_path(gp, path, sizeof path));
  arena a;
  arena_init(&a);
  diag_list d;
  diag_init(&d);
  mech m;
  if (load_mech(&a, path, NULL, &m, &d) != GEN_OK) {
    diag_print(&d, stderr);
    fail_msg("%s did not load", path);
  }
  /* the interpreted program: the default options, or shattering off for
   * the dense variant */
  rt_program ip;
  int found = 0;
  for (int variant = 0; variant < 2 && !found; variant++) {
    program_options o;
    program_default_options(&o);
    if (variant) o.shatter = 0;
    program prog;
    if (program_build(&a, &m, &o, &prog, &d) != GEN_OK) {
      diag_print(&d, stderr);
      fail_msg("program_build failed for %s", path);
    }
    rtprog_build(&a, &prog, gp->precision, &ip);
    found = same_layout(gp, &ip);
  }
  if (!found) fail_msg("%s: no in-memory program has the generated program's layout", gp->name);
  assert_null(ip.factor);
  assert_non_null(gp->factor);

  rt_world_desc desc;
  rt_settings set;
  mechworld_desc(&a, &m, &desc);
  mechworld_settings(&m, &set);
  char err[256];
  rt_world *wg = rt_world_create(&desc, gp, &set, NULL, err, sizeof err);
  if (!wg) fail_msg("%s: %s", gp->name, err);
  rt_world *wi = rt_world_create(&desc, &ip, &set, NULL, err, sizeof err);
  if (!wi) fail_msg("%s: %s", gp->name, err);
  /* the generated file's own world: its description and settings */
  const gentest_world *gw = world_of(gp);
  same_desc(gp->name, gw->desc, &desc);
  same_settings(gp->name, gw->settings, &set);
  rt_status stc = RT_ERR_INPUT;
  rt_world *wc = gw->create(NULL, &stc);
  assert_non_null(wc);
  assert_int_equal(stc, RT_OK);
  same_settings(gp->name, rt_world_settings(wc), gw->settings);
  const size_t n = (size_t)m.nbody * 13;
  double *sg = zalloc(n, sizeof *sg), *si = zalloc(n, sizeof *si), *sc = zalloc(n, sizeof *sc);
  enum { CAP = 256 };
  rt_contact *contacts = zalloc(CAP, sizeof *contacts);
  int steps = 0, factored = 0;
  for (int k = 0; k < TRAJ_STEPS; k++) {
    feed_ground(wg, &m, contacts, CAP);
    feed_ground(wi, &m, contacts, CAP);
    feed_ground(wc, &m, contacts, CAP);
    rt_status stg = rt_world_step(wg), sti = rt_world_step(wi), stw = rt_world_step(wc);
    assert_int_equal(stg, sti);
    assert_int_equal(stw, sti);
    assert_int_equal(rt_world_step_info(wg)->factor_status, rt_world_step_info(wi)->factor_status);
    factored += rt_world_step_info(wg)->factor_status == -1;
    world_state(wg, sg);
    world_state(wi, si);
    world_state(wc, sc);
    for (size_t i = 0; i < n; i++) {
      if (memcmp(&sg[i], &si[i], sizeof sg[i]) != 0)
        fail_msg("%s %s: step %d, body %d, state component %d: generated %a, interpreter %a", gp->name,
                 gp->precision == RT_FLOAT ? "float" : "double", k, (int)(i / 13), (int)(i % 13), sg[i], si[i]);
      if (memcmp(&sc[i], &si[i], sizeof sc[i]) != 0)
        fail_msg("%s %s: step %d, body %d, state component %d: the generated file's world %a, interpreter %a",
                 gp->name, gp->precision == RT_FLOAT ? "float" : "double", k, (int)(i / 13), (int)(i % 13), sc[i],
                 si[i]);
    }
    if (stg != RT_OK) break; /* a random mechanism may diverge: the same way in both */
    steps++;
  }
  /* the trajectory went somewhere: the unrolled factor did run */
  assert_true(factored > 0);
  print_message("%s %s: %d steps bitwise identical (%d factored)\n", gp->name,
                gp->precision == RT_FLOAT ? "float" : "double", steps, factored);
  free(sg);
  free(si);
  free(sc);
  free(contacts);
  rt_world_destroy(wg);
  rt_world_destroy(wi);
  rt_world_destroy(wc);
  diag_free(&d);
  arena_free(&a);
}

/*---- the generated sweep and assembly against the runtime's generic ones ---------
 * A world stepped with program p, whose equality rows the generated sweep
 * (rt_program.sweep) runs whenever it fits and whose H~ the generated
 * assembly (rt_program.assemble) builds, and a world stepped with a copy
 * of p without them (the runtime's generic sweep on every row, its
 * assembly plan) must give bitwise identical body states after every step: under the
 * mechanism's settings, under PGS (every sweep, and the position pass's,
 * over all rows) and under LDL-PGS with the factorization thread. */
static void test_sweep(void **state) {
  const rt_program *p = *state;
  assert_non_null(p->sweep);
  assert_non_null(p->sweep_side);
  char path[1024];
  assert_true(mechanism_path(p, path, sizeof path));
  arena a;
  arena_init(&a);
  diag_list d;
  diag_init(&d);
  mech m;
  if (load_mech(&a, path, NULL, &m, &d) != GEN_OK) {
    diag_print(&d, stderr);
    fail_msg("%s did not load", path);
  }
  rt_world_desc desc;
  rt_settings base;
  mechworld_desc(&a, &m, &desc);
  mechworld_settings(&m, &base);
  rt_program generic = *p;
  generic.sweep = NULL;
  generic.sweep_side = NULL;
  generic.assemble = NULL;
  const size_t n = (size_t)m.nbody * 13;
  double *sg = zalloc(n, sizeof *sg), *sn = zalloc(n, sizeof *sn);
  enum { CAP = 256 };
  rt_contact *contacts = zalloc(CAP, sizeof *contacts);
  static const char *const label[] = {"own settings", "PGS", "LDL-PGS threaded"};
  for (int config = 0; config < 3; config++) {
    rt_settings set = base;
    if (config == 1) set.solver = RT_SOLVER_PGS;
    if (config == 2) set.solver = RT_SOLVER_LDLPGS, set.threaded = 1;
    char err[256];
    rt_world *wg = rt_world_create(&desc, p, &set, NULL, err, sizeof err);
    if (!wg) fail_msg("%s: %s", p->name, err);
    rt_world *wn = rt_world_create(&desc, &generic, &set, NULL, err, sizeof err);
    if (!wn) fail_msg("%s: %s", p->name, err);
    int steps = 0;
    long long program_sweeps = 0, sweeps = 0;
    for (int k = 0; k < TRAJ_STEPS; k++) {
      feed_ground(wg, &m, contacts, CAP);
      feed_ground(wn, &m, contacts, CAP);
      const rt_status stg = rt_world_step(wg), stn = rt_world_step(wn);
      assert_int_equal(stg, stn);
      assert_int_equal(rt_world_step_info(wn)->program_sweeps, 0);
      program_sweeps += rt_world_step_info(wg)->program_sweeps;
      sweeps += rt_world_step_info(wg)->sweeps;
      world_state(wg, sg);
      world_state(wn, sn);
      for (size_t i = 0; i < n; i++)
        if (memcmp(&sg[i], &sn[i], sizeof sg[i]) != 0)
          fail_msg("%s %s, %s: step %d, body %d, state component %d: generated sweep and assembly %a, generic %a", p->name,
                   p->precision == RT_FLOAT ? "float" : "double", label[config], k, (int)(i / 13), (int)(i % 13),
                   sg[i], sn[i]);
      if (stg != RT_OK) break;
      steps++;
    }
    /* the generated sweep did run, if any sweep did (LDL-PGS runs none when
     * every row outside the block is coupled to it: step.c); PGS always sweeps */
    if (sweeps > 0 || config == 1) assert_true(program_sweeps > 0);
    print_message("%s %s, %s: %d steps bitwise identical, %lld generated sweeps\n", p->name,
                  p->precision == RT_FLOAT ? "float" : "double", label[config], steps, program_sweeps);
    rt_world_destroy(wg);
    rt_world_destroy(wn);
  }
  free(sg);
  free(sn);
  free(contacts);
  diag_free(&d);
  arena_free(&a);
}

static int count(const rt_program *const *list) {
  int n = 0;
  while (list[n]) n++;
  return n;
}

int main(void) {
  int avx2 = 0;
#if defined(__x86_64__) || defined(__i386__)
  avx2 = __builtin_cpu_supports("avx2");
#endif
  /* the builds of the programs: every one, then the variants */
  const struct {
    const rt_program *const *list;
    const char *label;
    int run;
  } builds[] = {
      {gentest_programs, "", 1},
      {gentest_programs_avx, " (AVX2 build)", avx2},
      {gentest_programs_novec, " (LDLPGS_NO_VECTOR build)", 1},
      {gentest_programs_tcc, " (tcc build)", 1},
  };
  const int nbuild = (int)(sizeof builds / sizeof builds[0]);
  const int n = count(gentest_programs);
  size_t cap = (size_t)n + 1;
  for (int b = 0; b < nbuild; b++) cap += 2 * (size_t)count(builds[b].list); /* programs, sweeps */
  struct CMUnitTest *tests = calloc(cap, sizeof *tests);
  char (*names)[128] = calloc(cap, sizeof *names);
  if (!tests || !names) return 1;
  int nt = 0;
  for (int b = 0; b < nbuild; b++) {
    if (!builds[b].run) continue;
    for (const rt_program *const *q = builds[b].list; *q; q++) {
      const rt_program *p = *q;
      snprintf(names[nt], sizeof names[nt], "%s %s dim %d rsi %lld%s", p->name,
               p->precision == RT_FLOAT ? "float" : "double", p->dim, (long long)p->nrsi, builds[b].label);
      tests[nt] = (struct CMUnitTest){names[nt], test_program, NULL, NULL, (void *)p};
      nt++;
    }
  }
  for (int b = 0; b < nbuild; b++) {
    if (!builds[b].run) continue;
    for (const rt_program *const *q = builds[b].list; *q; q++) {
      const rt_program *p = *q;
      char path[1024];
      if (!mechanism_path(p, path, sizeof path)) continue;
      snprintf(names[nt], sizeof names[nt], "sweep %s %s dim %d%s", p->name,
               p->precision == RT_FLOAT ? "float" : "double", p->dim, builds[b].label);
      tests[nt] = (struct CMUnitTest){names[nt], test_sweep, NULL, NULL, (void *)p};
      nt++;
    }
  }
  for (int i = 0; i < n; i++) {
    const rt_program *p = gentest_programs[i];
    char path[1024];
    if (!mechanism_path(p, path, sizeof path)) continue;
    snprintf(names[nt], sizeof names[nt], "trajectory %s %s dim %d", p->name,
             p->precision == RT_FLOAT ? "float" : "double", p->dim);
    tests[nt] = (struct CMUnitTest){names[nt], test_trajectory, NULL, NULL, (void *)p};
    nt++;
  }
  int rc = _cmocka_run_group_tests("test_generated", tests, (size_t)nt, NULL, NULL);
  free(tests);
  free(names);
  return rc;
}
