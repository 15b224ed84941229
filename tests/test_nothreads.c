/* test_nothreads.c -- the runtime built with LDLPGS_NO_THREADS (the
 * Makefile links this program against build/nothreads/librt.a, compiled
 * without -pthread, and checks that its objects reference no pthread or
 * atomic symbol): a world that asks for the factorization thread is
 * refused with RT_ERR_THREAD, at creation and through
 * rt_world_set_settings (which leaves the settings alone); without it the
 * world steps, and the split entry points still give rt_world_step's bits.
 * The scissor lift keeps its joints together as it does in the threaded
 * build (test_world). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "load.h"
#include "mechworld.h"
#include "program.h"
#include "rt_world.h"
#include "rtprog.h"

typedef struct sim {
  arena a;
  mech m;
  rt_program rp;
  rt_world_desc desc;
  rt_settings set;
} sim;

static void sim_open(sim *s, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/mechanisms/%s.lua", SRC_DIR, name);
  arena_init(&s->a);
  diag_list d;
  diag_init(&d);
  program p;
  program_options po;
  program_default_options(&po);
  if (load_mech(&s->a, path, NULL, &s->m, &d) != GEN_OK || program_build(&s->a, &s->m, &po, &p, &d) != GEN_OK) {
    diag_print(&d, stderr);
    fail_msg("%s did not load", path);
  }
  diag_free(&d);
  rtprog_build(&s->a, &p, RT_DOUBLE, &s->rp);
  mechworld_desc(&s->a, &s->m, &s->desc);
  mechworld_settings(&s->m, &s->set);
}

static void test_threaded_refused(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "scissor_lift");
  rt_settings t = s.set;
  t.threaded = 1;
  rt_status st = RT_OK;
  char err[256] = "";
  assert_null(rt_world_create(&s.desc, &s.rp, &t, &st, err, sizeof err));
  assert_int_equal(st, RT_ERR_THREAD);
  assert_true(err[0] != '\0');

  rt_world *w = rt_world_create(&s.desc, &s.rp, &s.set, &st, err, sizeof err);
  if (!w) fail_msg("%s", err);
  assert_int_equal(rt_world_set_settings(w, &t), RT_ERR_THREAD);
  assert_int_equal(rt_world_settings(w)->threaded, 0);
  for (int k = 0; k < 30; k++) assert_int_equal(rt_world_step(w), RT_OK);
  rt_world_destroy(w);
  arena_free(&s.a);
}

static void state_of(const rt_world *w, double *out) {
  for (int i = 0; i < rt_world_body_count(w); i++, out += 13) {
    rt_pose p;
    rt_world_body_pose(w, i, &p);
    memcpy(out, p.p, sizeof p.p);
    memcpy(out + 3, p.q, sizeof p.q);
    rt_world_body_velocity(w, i, out + 7, out + 10);
  }
}

/* The split step and the whole step, one thread either way: the same
 * bits; the lift's joints hold (LDL-PGS works without the thread). */
static void test_split_step_same_bits(void **state) {
  (void)state;
  sim s;
  sim_open(&s, "scissor_lift");
  rt_world *a = rt_world_create(&s.desc, &s.rp, &s.set, NULL, NULL, 0);
  rt_world *b = rt_world_create(&s.desc, &s.rp, &s.set, NULL, NULL, 0);
  assert_non_null(a);
  assert_non_null(b);
  enum { MAXB = 64 };
  assert_true(s.m.nbody <= MAXB);
  double sa[13 * MAXB], sb[13 * MAXB];
  rt_contact c[256];
  for (int k = 0; k < 120; k++) {
    int n = rt_world_ground_contacts(a, s.m.settings.ground_height, 0.8, 0.02, c, 256);
    assert_int_equal(rt_world_set_contacts(a, c, n), RT_OK);
    assert_int_equal(rt_world_set_contacts(b, c, n), RT_OK);
    assert_int_equal(rt_world_step(a), RT_OK);
    assert_int_equal(rt_world_step_begin(b), RT_OK);
    rt_world_factor(b);
    rt_world_iterate(b);
    assert_int_equal(rt_world_step_end(b), RT_OK);
    state_of(a, sa);
    state_of(b, sb);
    assert_memory_equal(sa, sb, sizeof(double) * 13 * (size_t)s.m.nbody);
  }
  double pos, ang;
  rt_world_max_error(a, &pos, &ang);
  print_message("scissor_lift without threads: error after 2 s %.3g m\n", pos);
  assert_true(pos < 1e-3);
  rt_world_destroy(a);
  rt_world_destroy(b);
  arena_free(&s.a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threaded_refused),
      cmocka_unit_test(test_split_step_same_bits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
