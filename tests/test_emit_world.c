/* test_emit_world.c -- the mechanism part of generated files
 * (gen/emit_world.c): the C names of bodies and constraints and their
 * collisions, which are file:line errors naming both (from the library and
 * from ldlgen, which then writes nothing), and numbers written so that
 * they read back exactly. That a world made from a generated file steps
 * bitwise like ldlsim's, and that its description and settings are
 * mechdesc's field by field, is tests/test_generated.c (it links the
 * generated code). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emit.h"
#include "load.h"
#include "program.h"
#include "test_proc.h"
#include "test_util.h"

/*---- names ---------------------------------------------------------------------*/

/* A mechanism of three bodies b1, b2, b3 on a chain of balls j1, j2 and a
 * motor-free hinge j3, the names given. */
static const char *names_fmt =
    "local m = { name = 'n', bodies = {}, constraints = {} }\n"               /* 1 */
    "m.bodies[1] = { name = '%s', mass = 1, sphere = 0.1, pos = {0, 0, 0} }\n" /* 2 */
    "m.bodies[2] = { name = '%s', mass = 1, sphere = 0.1, pos = {1, 0, 0} }\n" /* 3 */
    "m.bodies[3] = { name = '%s', mass = 1, sphere = 0.1, pos = {2, 0, 0} }\n" /* 4 */
    "m.constraints[1] = { name = '%s', type = 'ball', a = 'world', b = '%s', anchor = {0, 0, 0} }\n"
    "m.constraints[2] = { name = '%s', type = 'ball', a = '%s', b = '%s', anchor = {1, 0, 0} }\n"
    "m.constraints[3] = { name = '%s', type = 'hinge', a = '%s', b = '%s', anchor = {2, 0, 0}, axis = {0, 1, 0} }\n"
    "return m\n";

/* Emits the mechanism with those names; returns the status, the
 * diagnostics in d (the caller frees them) and the header in *h if it
 * worked (the caller frees it). */
static gen_status emit_named(const char *b1, const char *b2, const char *b3, const char *j1, const char *j2,
                             const char *j3, const char *prefix, diag_list *d, char **h) {
  char src[4096];
  snprintf(src, sizeof src, names_fmt, b1, b2, b3, j1, b1, j2, b1, b2, j3, b2, b3);
  arena a;
  arena_init(&a);
  mech m;
  program p;
  program_options po;
  program_default_options(&po);
  diag_init(d);
  gen_status st = load_mech_string(&a, "names.lua", src, NULL, &m, d);
  if (st != GEN_OK) {
    diag_print(d, stderr);
    fail_msg("the names mechanism did not load");
  }
  assert_int_equal(program_build(&a, &m, &po, &p, d), GEN_OK);
  emit_options o;
  emit_default_options(&o);
  o.mode = EMIT_TABLES;
  o.prefix = prefix;
  emit_output out;
  st = emit_program(&p, &o, &out, d);
  *h = NULL;
  if (st == GEN_OK) {
    *h = out.h;
    out.h = NULL;
  }
  emit_output_free(&out);
  arena_free(&a);
  return st;
}

static int has_diag(const diag_list *d, int line, const char *text) {
  for (int i = 0; i < d->n; i++)
    if (d->items[i].line == line && d->items[i].file && strcmp(d->items[i].file, "names.lua") == 0 &&
        strstr(d->items[i].msg, text))
      return 1;
  return 0;
}

/* Upper-cased, every character outside [A-Z0-9_] made '_', under the
 * upper-cased prefix; bodies and joints have their own enums. */
static void test_names_upper_cased(void **state) {
  (void)state;
  diag_list d;
  char *h;
  assert_int_equal(emit_named("frontWheel.L", "rear-wheel_2", "x", "x", "Pin.3-a", "j", "Crane_1", &d, &h), GEN_OK);
  assert_int_equal(d.n, 0);
  static const char *const want[] = {
      "enum Crane_1_body {\n    CRANE_1_BODY_FRONTWHEEL_L,\n    CRANE_1_BODY_REAR_WHEEL_2,\n"
      "    CRANE_1_BODY_X,\n    CRANE_1_BODY_COUNT\n};\n",
      "enum Crane_1_joint {\n    CRANE_1_JOINT_PIN_3_A,\n    CRANE_1_JOINT_J,\n"
      "    CRANE_1_JOINT_X,\n    CRANE_1_JOINT_COUNT\n};\n", /* constraints in name order */
      "extern const rt_world_desc Crane_1_desc;\n",
      "rt_world *Crane_1_create(const rt_settings *settings, rt_status *status);\n",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(h, want[i])) fail_msg("the header lacks:\n%s", want[i]);
  free(h);
  diag_free(&d);
}

/* Two names that coincide after upper-casing are an error at the later
 * one's line, naming both and the line of the first; so is a name that
 * would be the COUNT of its kind. */
static void test_name_collisions_are_errors(void **state) {
  (void)state;
  diag_list d;
  char *h;
  assert_int_equal(emit_named("wheel", "Wheel", "b3", "j1", "j2", "j3", NULL, &d, &h), GEN_ERR_INPUT);
  assert_null(h);
  assert_true(has_diag(&d, 3, "body 'Wheel' and body 'wheel' (line 2) both become N_BODY_WHEEL"));
  diag_free(&d);

  assert_int_equal(emit_named("b1", "b2", "b3", "arm-1", "j2", "arm.1", NULL, &d, &h), GEN_ERR_INPUT);
  assert_true(has_diag(&d, 7, "constraint 'arm.1' and constraint 'arm-1' (line 5) both become N_JOINT_ARM_1"));
  diag_free(&d);

  /* three at once: one error, the first two; and under another prefix */
  assert_int_equal(emit_named("a.b", "a-b", "a_b", "j1", "j2", "j3", "veh", &d, &h), GEN_ERR_INPUT);
  assert_int_equal(d.n, 1);
  assert_true(has_diag(&d, 3, "body 'a-b' and body 'a.b' (line 2) both become VEH_BODY_A_B"));
  diag_free(&d);

  /* the counts */
  assert_int_equal(emit_named("count", "b2", "b3", "j1", "Count", "j3", NULL, &d, &h), GEN_ERR_INPUT);
  assert_true(has_diag(&d, 2, "body 'count' would be N_BODY_COUNT"));
  assert_true(has_diag(&d, 6, "constraint 'Count' would be N_JOINT_COUNT"));
  diag_free(&d);

  /* a body and a constraint of the same name do not collide */
  assert_int_equal(emit_named("arm", "b2", "b3", "arm", "j2", "j3", NULL, &d, &h), GEN_OK);
  free(h);
  diag_free(&d);
}

/* ldlgen reports a collision as file:line: error, exits 1 and writes no
 * file. */
static void test_ldlgen_reports_collision(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlgen-names-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[600], cmd[2048], out[8192];
  snprintf(path, sizeof path, "%s/names.lua", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, names_fmt, "wheel", "Wheel", "b3", "j1", "wheel", "j2", "wheel", "Wheel", "j3", "Wheel", "b3");
  fclose(f);
  snprintf(cmd, sizeof cmd, "cd %s && %s names.lua -o out.c 2>&1", dir, LDLGEN_PATH);
  assert_int_equal(run(cmd, out, sizeof out), 1);
  if (!strstr(out, "names.lua:3: error: body 'Wheel' and body 'wheel' (line 2) both become N_BODY_WHEEL"))
    fail_msg("unexpected diagnostics:\n%s", out);
  snprintf(path, sizeof path, "%s/out.c", dir);
  assert_int_equal(access(path, F_OK), -1);
  snprintf(path, sizeof path, "%s/out.h", dir);
  assert_int_equal(access(path, F_OK), -1);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

/*---- numbers -------------------------------------------------------------------*/

static void check_number(double v) {
  char b[64];
  emit_number(v, b, sizeof b);
  double back = strtod(b, NULL);
  if (memcmp(&back, &v, sizeof v) != 0) fail_msg("%a written as %s reads back as %a", v, b, back);
  if (!strpbrk(b, ".e")) fail_msg("%a written as %s: not a floating constant", v, b);
}

/* Every double reads back with the same bits, including -0, subnormals and
 * the extremes, and is a floating constant; the shortest form is used. */
static void test_numbers_read_back_exactly(void **state) {
  (void)state;
  static const double fixed[] = {0.0, -0.0, 1.0, -1.0, 0.1, 1.0 / 3.0, 1e-6, 9.81, 1e300, -1e-300, 5e-324,
                                 2.2250738585072014e-308, 1.7976931348623157e308, 4503599627370497.0, 0.016666666666666666};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) check_number(fixed[i]);
  test_rng r = {42};
  for (int i = 0; i < 3000; i++) {
    uint64_t bits = rng_next(&r);
    double v;
    memcpy(&v, &bits, sizeof v);
    if (isfinite(v)) check_number(v);
    double u = (double)(rng_next(&r) >> 11) / 9007199254740992.0 * 100.0; /* ordinary magnitudes */
    check_number(u);
    check_number((float)u); /* floats widened: short forms */
  }
  char b[64];
  emit_number(0.1, b, sizeof b);
  assert_string_equal(b, "0.1");
  emit_number(-0.0, b, sizeof b);
  assert_string_equal(b, "-0.0");
  emit_number(3, b, sizeof b);
  assert_string_equal(b, "3.0");
  emit_number(1e300, b, sizeof b);
  assert_string_equal(b, "1e+300");
  emit_number(INFINITY, b, sizeof b);
  assert_string_equal(b, "HUGE_VAL");
  emit_number(-INFINITY, b, sizeof b);
  assert_string_equal(b, "-HUGE_VAL");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_names_upper_cased),
      cmocka_unit_test(test_name_collisions_are_errors),
      cmocka_unit_test(test_ldlgen_reports_collision),
      cmocka_unit_test(test_numbers_read_back_exactly),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
