/* test_joint_types.c -- the constraint type table (rt_joint_type.h) is
 * complete: every type has a definition with everything a type needs for
 * its kind, the loader accepts exactly its fields, the runtime refuses a
 * description that breaks its rules, and the README's table is the one the
 * table writes (ldlgen --types). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "arena.h"
#include "diag.h"
#include "load.h"
#include "rt_joint_type.h"
#include "test_proc.h"

static int has_slot(const rt_joint_type_def *def, rt_joint_slot slot) {
  for (const rt_joint_field *f = def->fields; f->key; f++)
    if (f->slot == slot) return 1;
  return 0;
}

static void test_every_type_is_complete(void **state) {
  (void)state;
  for (int t = 0; t < RT_JOINT_NTYPES; t++) {
    const rt_joint_type_def *def = rt_joint_type_def_of((rt_joint_type)t);
    assert_non_null(def);
    assert_non_null(def->name);
    assert_string_equal(def->name, rt_joint_type_name((rt_joint_type)t));
    assert_int_equal(rt_joint_type_from_name(def->name), t);
    assert_int_equal(rt_joint_degree((rt_joint_type)t), def->degree);
    assert_true(def->doc != NULL && def->doc[0] != '\0');
    assert_true(def->dot_style != NULL && def->dot_style[0] != '\0');
    assert_true(def->degree >= 0 && def->degree <= RT_MAX_DEGREE);
    if (def->degree > 0) { /* equality: rows in H */
      assert_non_null(def->eval);
      assert_null(def->row);
      assert_true(def->npos >= 0 && def->npos <= def->degree);
    } else { /* inequality: a PGS row */
      assert_non_null(def->row);
      assert_null(def->eval);
    }
    /* fields: unique keys, valid slots; a target or two bodies */
    assert_non_null(def->fields);
    assert_non_null(def->fields[0].key);
    for (const rt_joint_field *f = def->fields; f->key; f++) {
      assert_true(f->slot < RT_NSLOTS);
      assert_true(strcmp(f->key, "name") != 0 && strcmp(f->key, "type") != 0);
      for (const rt_joint_field *g = f + 1; g->key; g++) assert_string_not_equal(f->key, g->key);
    }
    if (def->targets) {
      assert_true(has_slot(def, RT_SLOT_TARGET));
      assert_non_null(def->targets_text);
      assert_true((def->targets >> RT_JOINT_NTYPES) == 0);
      for (int u = 0; u < RT_JOINT_NTYPES; u++) /* a target is an equality joint */
        if (def->targets >> u & 1u) assert_true(rt_joint_degree((rt_joint_type)u) > 0);
    } else {
      assert_true(has_slot(def, RT_SLOT_A) && has_slot(def, RT_SLOT_B));
      assert_false(has_slot(def, RT_SLOT_TARGET));
    }
  }
  assert_null(rt_joint_type_def_of(RT_JOINT_NTYPES));
  assert_null(rt_joint_type_def_of((rt_joint_type)-1));
  assert_int_equal(rt_joint_type_from_name("gear"), -1);
}

/* A mechanism with one constraint of type t (on a hinge, a slider or two
 * bodies as the type needs), every field given; extra is added to it. */
static void one_constraint(char *buf, size_t n, const rt_joint_type_def *def, const char *extra) {
  char fields[512] = "";
  for (const rt_joint_field *f = def->fields; f->key; f++) {
    char one[96];
    const char *v = "1";
    switch (f->slot) {
    case RT_SLOT_A: v = "'p'"; break;
    case RT_SLOT_B: v = "'q'"; break;
    case RT_SLOT_ANCHOR: case RT_SLOT_ANCHOR_A: v = "{0, 0, 0}"; break;
    case RT_SLOT_ANCHOR_B: v = "{1, 0, 0}"; break;
    case RT_SLOT_AXIS: case RT_SLOT_AXIS_A: v = "{0, 0, 1}"; break;
    case RT_SLOT_AXIS_B: v = "{0, 1, 0}"; break;
    case RT_SLOT_TARGET: v = def->targets >> RT_HINGE & 1u ? "'h'" : "'s'"; break;
    case RT_SLOT_LOWER: v = "0"; break;
    case RT_SLOT_SPEED: v = "0"; break;
    case RT_SLOT_FREE_AXIS: v = "'angular'"; break;
    default: break;
    }
    snprintf(one, sizeof one, ", %s = %s", f->key, v);
    strncat(fields, one, sizeof fields - strlen(fields) - 1);
  }
  snprintf(buf, n,
           "return { name = 'm', bodies = {\n"
           "  { name = 'p', mass = 1, inertia = {1, 1, 1}, pos = {0, 0, 0} },\n"
           "  { name = 'q', mass = 1, inertia = {1, 1, 1}, pos = {1, 0, 0} } },\n"
           "  constraints = {\n"
           "    { name = 'h', type = 'hinge', a = 'world', b = 'p', anchor = {0, 0, 0}, axis = {0, 0, 1} },\n"
           "    { name = 's', type = 'prismatic', a = 'world', b = 'q', anchor = {1, 0, 0}, axis = {1, 0, 0} },\n"
           "    { name = 'c', type = '%s'%s%s } } }\n",
           def->name, fields, extra);
}

static gen_status load(const char *src, diag_list *d) {
  arena a;
  arena_init(&a);
  mech m;
  diag_init(d);
  gen_status st = load_mech_string(&a, "inline.lua", src, NULL, &m, d);
  arena_free(&a);
  return st;
}

static void test_loader_reads_each_type_by_its_fields(void **state) {
  (void)state;
  for (int t = 0; t < RT_JOINT_NTYPES; t++) {
    const rt_joint_type_def *def = rt_joint_type_def_of((rt_joint_type)t);
    char src[2048];
    diag_list d;
    /* a rod from (0,0,0) to (1,0,0) with length 1 and lower 0 would break its
     * own rule (lower > 0): give it a real lower bound */
    one_constraint(src, sizeof src, def, "");
    if (t == RT_ROD) {
      char *lo = strstr(src, "lower = 0");
      if (lo) lo[8] = '1';
    }
    gen_status st = load(src, &d);
    if (st != GEN_OK) {
      diag_print(&d, stderr);
      fail_msg("type %s with all its fields was refused", def->name);
    }
    diag_free(&d);
    /* a field the type does not have is an error naming it */
    one_constraint(src, sizeof src, def, ", bogus = 1");
    assert_int_equal(load(src, &d), GEN_ERR_INPUT);
    int found = 0;
    for (int i = 0; i < d.n; i++) found |= strstr(d.items[i].msg, "unknown field 'bogus'") != NULL;
    assert_true(found);
    diag_free(&d);
    /* every required field, left out, is an error naming it */
    for (const rt_joint_field *f = def->fields; f->key; f++) {
      if (!(f->flags & RT_FIELD_REQUIRED)) continue;
      one_constraint(src, sizeof src, def, "");
      char pat[64];
      snprintf(pat, sizeof pat, ", %s = ", f->key);
      char *at = strstr(strstr(src, "name = 'c'"), pat);
      assert_non_null(at);
      char *end = at + 2; /* drop ", key = value" up to the next ", " or " }" outside braces */
      for (int depth = 0; *end && (depth > 0 || (strncmp(end, ", ", 2) != 0 && strncmp(end, " }", 2) != 0)); end++)
        depth += *end == '{' ? 1 : *end == '}' ? -1 : 0;
      memmove(at, end, strlen(end) + 1);
      assert_int_equal(load(src, &d), GEN_ERR_INPUT);
      char want[96];
      snprintf(want, sizeof want, "missing required field '%s'", f->key);
      found = 0;
      for (int i = 0; i < d.n; i++) found |= strstr(d.items[i].msg, want) != NULL;
      if (!found) {
        diag_print(&d, stderr);
        fail_msg("%s without %s: no \"%s\"", def->name, f->key, want);
      }
      diag_free(&d);
    }
  }
}

/* The README's constraint table is ldlgen --types, byte for byte. */
/* Entry k (0-5, of one side) of a row with pattern letter l: whether it
 * is declared +-0 at every pose (rt_joint_type_def.rows). */
static int declared_zero(char l, int k) {
  if (l == 'a') return k < 3;
  if (l >= 'x' && l <= 'z') return k < 3 ? k != l - 'x' : k - 3 == l - 'x';
  return 0;
}

/* A random number in [-1, 1]. */
static double rnd(unsigned *seed) {
  *seed = *seed * 1103515245u + 12345u;
  return (double)(*seed >> 8 & 0xffff) / 32767.5 - 1.0;
}

/* q made a unit quaternion (w, x, y, z), and the rows of its rotation. */
static void unit(double q[4]) {
  const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; k++) q[k] /= n;
}
static void rotation(double q[4], double m[3][3]) {
  unit(q);
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  const double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                          {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                          {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
  memcpy(m, r, sizeof r);
}

/* Each equality type's row letters: one per row, from x, y, z, a, g; at
 * random anchors, frames and poses every entry a letter declares zero is
 * +-0 on both sides, and every entry it declares nonzero is nonzero at
 * some pose (the letters are not weaker than they could be). The ball
 * rows' unit entries are exactly +-1. */
static void test_row_letters_hold_at_every_pose(void **state) {
  (void)state;
  int checked = 0;
  for (int t = 0; t < RT_JOINT_NTYPES; t++) {
    const rt_joint_type_def *def = rt_joint_type_def_of((rt_joint_type)t);
    if (def->degree == 0) {
      assert_null(def->rows);
      continue;
    }
    assert_non_null(def->rows);
    assert_int_equal((int)strlen(def->rows), def->degree);
    assert_true(strspn(def->rows, "xyzag") == strlen(def->rows));
    unsigned seed = 12345u + (unsigned)t, seen[RT_MAX_DEGREE] = {0};
    for (int trial = 0; trial < 200; trial++) {
      rt_joint_desc j;
      memset(&j, 0, sizeof j);
      j.type = (rt_joint_type)t;
      j.body_a = 0, j.body_b = 1, j.target = -1, j.length = 0.5;
      rt_pose pa, pb;
      for (int k = 0; k < 3; k++) {
        j.anchor_a[k] = rnd(&seed), j.anchor_b[k] = rnd(&seed);
        pa.p[k] = rnd(&seed), pb.p[k] = rnd(&seed);
      }
      /* orthonormal frames: a rotation's rows, from random quaternions */
      double qa[4], qb[4];
      for (int k = 0; k < 4; k++) qa[k] = rnd(&seed), qb[k] = rnd(&seed), pa.q[k] = rnd(&seed), pb.q[k] = rnd(&seed);
      rotation(qa, j.frame_a);
      rotation(qb, j.frame_b);
      unit(pa.q);
      unit(pb.q);
      double c[RT_MAX_DEGREE], J[RT_MAX_DEGREE * RT_ROW_WIDTH];
      def->eval(&j, &pa, &pb, c, J);
      for (int r = 0; r < def->degree; r++)
        for (int side = 0; side < RT_ROW_SIDES; side++)
          for (int k = 0; k < 6; k++) {
            const double v = J[r * RT_ROW_WIDTH + 6 * side + k];
            if (declared_zero(def->rows[r], k)) {
              assert_true(v == 0.0);
              checked++;
            } else if (v != 0.0) {
              seen[r] |= 1u << (6 * side + k);
            }
            if (def->rows[r] != 'a' && def->rows[r] != 'g' && k == def->rows[r] - 'x')
              assert_true(v == (side ? -1.0 : 1.0));
          }
    }
    for (int r = 0; r < def->degree; r++)
      for (int k = 0; k < RT_ROW_WIDTH; k++)
        if (!declared_zero(def->rows[r], k % 6)) assert_true(seen[r] >> k & 1u);
  }
  assert_true(checked > 10000);
}

static void test_readme_table_is_the_type_table(void **state) {
  (void)state;
  static char table[16384];
  assert_int_equal(run(LDLGEN_PATH " --types", table, sizeof table), 0);
  const size_t n = strlen(table);
  size_t len;
  char *readme = slurp(SRC_DIR "/README.md", &len);
  assert_non_null(readme);
  const char *begin = strstr(readme, "<!-- types:begin");
  assert_non_null(begin);
  begin = strchr(begin, '\n') + 1;
  const char *end = strstr(begin, "<!-- types:end -->");
  assert_non_null(end);
  if ((size_t)(end - begin) != n || memcmp(begin, table, n) != 0)
    fail_msg("README.md's constraint table differs from `ldlgen --types`: paste its output between the markers");
  free(readme);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_type_is_complete),
      cmocka_unit_test(test_loader_reads_each_type_by_its_fields),
      cmocka_unit_test(test_row_letters_hold_at_every_pose),
      cmocka_unit_test(test_readme_table_is_the_type_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
