/* load_body.c -- a body of the mechanism file: name, mass and inertia (given
 * or from a shape), pose, velocities, collision shape. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "load_internal.h"

//---- bodies ---------------------------------------------------------------------

static const char *const body_fields[] = {"name", "mass", "inertia", "box",   "sphere", "cylinder", "capsule",
                                          "pos",  "rot",  "vel",     "angvel", "fixed", "shape",    "friction",
                                          NULL};
static const char *const shape_kinds[] = {"box", "sphere", "cylinder", "capsule", NULL};
static const mech_shape shape_of_kind[] = {MECH_SHAPE_BOX, MECH_SHAPE_SPHERE, MECH_SHAPE_CYLINDER,
                                           MECH_SHAPE_CAPSULE};

/* Reads shape kind k (an index into shape_kinds) from t[kind] into size:
 * box {sx, sy, sz} full sides > 0; sphere r > 0; cylinder and capsule
 * {radius > 0, length} with length > 0 (capsule: >= 0, the segment between
 * the cap centres). Returns 1 if valid. */
static int read_shape_size(const tbl *t, int k, double size[3]) {
  const char *key = shape_kinds[k];
  switch (shape_of_kind[k]) {
  case MECH_SHAPE_BOX:
    if (load_get_vec(t, key, 3, size) <= 0) return 0;
    if (!(size[0] > 0 && size[1] > 0 && size[2] > 0)) {
      load_err(t->ld, load_vec_line(t, key), "%s: the sides of 'box' must be > 0", t->what);
      return 0;
    }
    return 1;
  case MECH_SHAPE_SPHERE:
    if (load_get_number(t, key, &size[0]) <= 0) return 0;
    if (!(size[0] > 0)) {
      load_range_error(t, key, "a radius > 0", size[0]);
      return 0;
    }
    return 1;
  default: /* cylinder, capsule: { radius, length } */
    if (load_get_vec(t, key, 2, size) <= 0) return 0;
    if (!(size[0] > 0) || !(shape_of_kind[k] == MECH_SHAPE_CAPSULE ? size[1] >= 0 : size[1] > 0)) {
      load_err(t->ld, load_vec_line(t, key), "%s: '%s' must be { radius > 0, length %s 0 }", t->what, key,
          shape_of_kind[k] == MECH_SHAPE_CAPSULE ? ">=" : ">");
      return 0;
    }
    return 1;
  }
}

/* Principal moments of a solid of mass m; a capsule is treated as a cylinder
 * of length + 2 radius (close enough for a solver's effective masses). */
static void shape_inertia(mech_shape s, const double z[3], double m, double I[3]) {
  switch (s) {
  case MECH_SHAPE_BOX:
    I[0] = m / 12.0 * (z[1] * z[1] + z[2] * z[2]);
    I[1] = m / 12.0 * (z[0] * z[0] + z[2] * z[2]);
    I[2] = m / 12.0 * (z[0] * z[0] + z[1] * z[1]);
    break;
  case MECH_SHAPE_SPHERE:
    I[0] = I[1] = I[2] = 0.4 * m * z[0] * z[0];
    break;
  case MECH_SHAPE_CYLINDER:
  case MECH_SHAPE_CAPSULE: {
    double r = z[0], l = s == MECH_SHAPE_CAPSULE ? z[1] + 2.0 * z[0] : z[1];
    I[0] = I[1] = m * (3.0 * r * r + l * l) / 12.0;
    I[2] = 0.5 * m * r * r;
    break;
  }
  default:
    break;
  }
}

/* Explicit principal moments: each > 0, and each <= the sum of the other two
 * (relative tolerance 1e-9), as for any real mass distribution. */
static void check_inertia(const tbl *t, const double I[3]) {
  int line = load_vec_line(t, "inertia");
  if (!(I[0] > 0 && I[1] > 0 && I[2] > 0)) {
    load_err(t->ld, line, "%s: inertia is not positive definite (every principal moment must be > 0)", t->what);
    return;
  }
  double tol = 1e-9 * (I[0] + I[1] + I[2]);
  for (int k = 0; k < 3; k++)
    if (I[(k + 1) % 3] + I[(k + 2) % 3] < I[k] - tol) {
      load_err(t->ld, line, "%s: inertia is not physical: principal moments must satisfy the triangle inequality "
                       "(%s + %s < %s)",
          t->what, load_num(t->ld, I[(k + 1) % 3]), load_num(t->ld, I[(k + 2) % 3]), load_num(t->ld, I[k]));
      return;
    }
}

static void read_mass_inertia(const tbl *t, mech_body *b) {
  int rm = load_get_number(t, "mass", &b->mass);
  if (rm > 0 && !(b->mass > 0)) {
    load_range_error(t, "mass", "> 0", b->mass);
    rm = -1;
  } else if (rm == 0 && !b->fixed) {
    load_missing(t, "mass");
  }
  static const char *const sources[] = {"inertia", "box", "sphere", "cylinder", "capsule", NULL};
  int first = -1, second = -1;
  for (int k = 0; sources[k]; k++) {
    if (!load_has_field(t, sources[k])) continue;
    if (first < 0)
      first = k;
    else if (second < 0)
      second = k;
  }
  if (second >= 0) {
    load_err(t->ld, t->line, "%s: give only one of inertia, box, sphere, cylinder, capsule (got '%s' and '%s')",
        t->what, sources[first], sources[second]);
    return;
  }
  if (first < 0) {
    if (!b->fixed)
      load_err(t->ld, t->line, "%s: missing inertia: give one of inertia, box, sphere, cylinder, capsule", t->what);
    return;
  }
  if (first == 0) {
    if (load_get_vec(t, "inertia", 3, b->inertia) > 0) check_inertia(t, b->inertia);
    return;
  }
  double size[3] = {0, 0, 0};
  if (!read_shape_size(t, first - 1, size)) return;
  b->solid = shape_of_kind[first - 1];
  memcpy(b->solid_size, size, sizeof size);
  if (rm > 0) shape_inertia(b->solid, size, b->mass, b->inertia);
}

static void read_collision_shape(const tbl *t, mech_body *b) {
  loader *ld = t->ld;
  lua_State *L = ld->L;
  int ty = load_field(t, "shape");
  if (ty == LUA_TTABLE) {
    tbl s = load_sub_table(ld, -1, t->line, load_fmt(ld->a, "%s: shape", t->what));
    load_check_fields(&s, shape_kinds);
    int n = 0, k = -1;
    for (int i = 0; shape_kinds[i]; i++)
      if (load_has_field(&s, shape_kinds[i])) {
        n++;
        k = i;
      }
    if (n != 1)
      load_err(ld, s.line, "%s: field 'shape' must have exactly one of box, sphere, cylinder, capsule", t->what);
    else if (read_shape_size(&s, k, b->shape_size))
      b->shape = shape_of_kind[k];
  } else if (ty != LUA_TNIL) {
    load_err(ld, t->line, "%s: field 'shape' must be a table (got %s)", t->what, load_type_of(L, -1));
  }
  lua_pop(L, 1);
}

int load_find_body(const loader *ld, const char *name) { return load_index_find(&ld->body_names, name); }

/* Body i from the table on the stack top. */
void load_read_body(loader *ld, int i, int list_line) {
  mech_body *b = &ld->m.bodies[i];
  tbl t = load_sub_table(ld, -1, list_line, load_fmt(ld->a, "bodies[%d]", i + 1));
  int nerr = ld->nerr;
  b->line = t.line;
  b->rot[0] = 1.0;
  b->friction = -1.0;
  const char *name;
  if (load_need_string(&t, "name", &name) > 0) {
    if (!load_valid_name(name)) {
      load_bad_name(&t, "body", name);
    } else if (strcmp(name, "world") == 0) {
      load_err(ld, t.line, "%s: body name 'world' is reserved for the fixed world", t.what);
    } else {
      int j = load_find_body(ld, name);
      if (j >= 0) {
        load_err(ld, t.line, "duplicate body name '%s' (first defined at line %d)", name, ld->m.bodies[j].line);
      } else {
        b->name = name;
        load_index_add(&ld->body_names, name, i);
      }
      t.what = load_fmt(ld->a, "body '%s'", name);
    }
  }
  load_check_fields(&t, body_fields);
  load_get_bool(&t, "fixed", &b->fixed);
  read_mass_inertia(&t, b);
  load_need_vec(&t, "pos", 3, b->pos);
  if (load_get_vec(&t, "rot", 4, b->rot) > 0) {
    double *q = b->rot, n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0) || !isfinite(n)) {
      load_err(ld, load_vec_line(&t, "rot"), "%s: 'rot' must be a non-zero quaternion {w, x, y, z}", t.what);
    } else {
      for (int k = 0; k < 4; k++) q[k] /= n;
    }
  }
  load_get_vec(&t, "vel", 3, b->vel);
  load_get_vec(&t, "angvel", 3, b->angvel);
  read_collision_shape(&t, b);
  if (load_get_number(&t, "friction", &b->friction) > 0 && !(b->friction >= 0)) load_range_error(&t, "friction", ">= 0", b->friction);
  ld->body_ok[i] = ld->nerr == nerr;
}

