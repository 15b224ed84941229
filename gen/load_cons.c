/* load_cons.c -- the constraints of a mechanism file. Which fields a type
 * has, what each holds and which rules bind them are the type's own, in its
 * rt_joint_type_def (runtime/joints/<name>.c): this file reads any type
 * through that record, resolves the joints limits and motors act on, and
 * checks what needs every body and constraint (pairs, the Jacobian's rank
 * at the initial pose). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "load_internal.h"
#include "rt_joint_type.h"

static int find_constraint(const loader *ld, const char *name) { return load_index_find(&ld->cons_names, name); }

/* t[key] as a body index (or MECH_WORLD); -2 on error. */
static int read_body_ref(const tbl *t, const char *key) {
  const char *name;
  if (load_need_string(t, key, &name) <= 0) return -2;
  if (strcmp(name, "world") == 0) return MECH_WORLD;
  if (!t->ld->bodies_listed) return -2; /* already reported: no bodies to look in */
  int i = load_find_body(t->ld, name);
  if (i < 0) load_err(t->ld, t->line, "%s: unknown body '%s' in field '%s'", t->what, name, key);
  return i < 0 ? -2 : i;
}

/* A unit axis from t[key]; 1 if valid, 0 if absent, -1 if invalid. */
static int read_axis(const tbl *t, const char *key, int required, double v[3]) {
  int r = required ? load_need_vec(t, key, 3, v) : load_get_vec(t, key, 3, v);
  if (r <= 0) return r;
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(n > 0) || !isfinite(n)) {
    load_err(t->ld, load_vec_line(t, key), "%s: zero-length axis in '%s'", t->what, key);
    return -1;
  }
  for (int k = 0; k < 3; k++) v[k] /= n;
  return 1;
}

/* The number slots of a spec. */
static double *number_slot(rt_joint_spec *s, rt_joint_slot slot) {
  switch (slot) {
  case RT_SLOT_LENGTH: return &s->length;
  case RT_SLOT_LOWER: return &s->lower;
  case RT_SLOT_UPPER: return &s->upper;
  case RT_SLOT_SPEED: return &s->speed;
  case RT_SLOT_MAX_FORCE: return &s->max_force;
  case RT_SLOT_STIFFNESS: return &s->stiffness;
  case RT_SLOT_DAMPING: return &s->damping;
  case RT_SLOT_REST: return &s->rest;
  default: return NULL;
  }
}

/* Field f of t into the spec (and the constraint's bodies and reference);
 * 1 if valid or absent and optional, 0 if not. */
static int read_field(const tbl *t, const rt_joint_field *f, rt_joint_spec *s, mech_constraint *c, const char **ref) {
  const int req = (f->flags & RT_FIELD_REQUIRED) != 0;
  int r = 0;
  switch (f->slot) {
  case RT_SLOT_A:
  case RT_SLOT_B: {
    const int b = read_body_ref(t, f->key);
    *(f->slot == RT_SLOT_A ? &c->a : &c->b) = b == -2 ? MECH_WORLD : b;
    return b != -2;
  }
  case RT_SLOT_ANCHOR:
  case RT_SLOT_ANCHOR_A:
  case RT_SLOT_ANCHOR_B: {
    double *v = f->slot == RT_SLOT_ANCHOR_B ? s->anchor_b : s->anchor_a;
    r = req ? load_need_vec(t, f->key, 3, v) : load_get_vec(t, f->key, 3, v);
    if (r > 0 && f->slot == RT_SLOT_ANCHOR) memcpy(s->anchor_b, s->anchor_a, sizeof s->anchor_b);
    break;
  }
  case RT_SLOT_AXIS:
  case RT_SLOT_AXIS_A:
  case RT_SLOT_AXIS_B: {
    double *v = f->slot == RT_SLOT_AXIS_B ? s->axis_b : s->axis_a;
    r = read_axis(t, f->key, req, v);
    if (r > 0 && f->slot == RT_SLOT_AXIS) memcpy(s->axis_b, s->axis_a, sizeof s->axis_b);
    break;
  }
  case RT_SLOT_TARGET:
    r = req ? load_need_string(t, f->key, ref) : load_get_string(t, f->key, ref);
    break;
  case RT_SLOT_FREE_AXIS: {
    const char *axis = NULL;
    r = req ? load_need_string(t, f->key, &axis) : load_get_string(t, f->key, &axis);
    if (r <= 0) break;
    if (strcmp(axis, "angular") == 0) {
      s->free_axis = RT_AXIS_ANGULAR;
    } else if (strcmp(axis, "linear") == 0) {
      s->free_axis = RT_AXIS_LINEAR;
    } else {
      load_err(t->ld, load_vec_line(t, f->key), "%s: field '%s' must be \"angular\" or \"linear\", not '%s'", t->what,
               f->key, axis);
      r = -1;
    }
    break;
  }
  default: {
    double *v = number_slot(s, f->slot);
    r = req ? load_need_number(t, f->key, v) : load_get_number(t, f->key, v);
    if (r > 0 && (f->flags & RT_FIELD_POSITIVE) && !(*v > 0)) {
      load_range_error(t, f->key, "> 0", *v);
      r = -1;
    } else if (r > 0 && (f->flags & RT_FIELD_NONNEGATIVE) && !(*v >= 0)) {
      load_range_error(t, f->key, ">= 0", *v);
      r = -1;
    }
  }
  }
  if (r > 0) s->have |= 1u << f->slot;
  return r > 0 || (r == 0 && !req);
}

/* A broken rule of the type, at the line of the field it names. */
static void report_problem(loader *ld, const tbl *t, const rt_joint_problem *why) {
  load_err(ld, why->key ? load_vec_line(t, why->key) : t->line, "%s: %s", t->what, why->msg);
}

static void spec_to_constraint(const rt_joint_spec *s, mech_constraint *c) {
  memcpy(c->anchor_a, s->anchor_a, sizeof c->anchor_a);
  memcpy(c->anchor_b, s->anchor_b, sizeof c->anchor_b);
  memcpy(c->axis_a, s->axis_a, sizeof c->axis_a);
  memcpy(c->axis_b, s->axis_b, sizeof c->axis_b);
  c->length = s->length;
  c->lower = s->lower;
  c->upper = s->upper;
  c->speed = s->speed;
  c->max_force = s->max_force;
  c->free_axis = s->free_axis;
  c->stiffness = s->stiffness;
  c->damping = s->damping;
  c->rest = s->rest;
}

static void constraint_to_spec(const mech_constraint *c, rt_joint_spec *s) {
  memset(s, 0, sizeof *s);
  s->type = c->type;
  memcpy(s->anchor_a, c->anchor_a, sizeof s->anchor_a);
  memcpy(s->anchor_b, c->anchor_b, sizeof s->anchor_b);
  memcpy(s->axis_a, c->axis_a, sizeof s->axis_a);
  memcpy(s->axis_b, c->axis_b, sizeof s->axis_b);
  s->length = c->length;
  s->lower = c->lower;
  s->upper = c->upper;
  s->speed = c->speed;
  s->max_force = c->max_force;
  s->free_axis = c->free_axis;
  s->stiffness = c->stiffness;
  s->damping = c->damping;
  s->rest = c->rest;
}

/* The type's fields of t, then its rules across them; 1 if all hold. */
static int read_constraint_fields(const tbl *t, const rt_joint_type_def *def, mech_constraint *c, const char **ref) {
  rt_joint_spec s;
  memset(&s, 0, sizeof s);
  s.type = c->type;
  int ok = 1;
  for (const rt_joint_field *f = def->fields; f->key; f++) ok &= read_field(t, f, &s, c, ref);
  rt_joint_problem why = {{0}, NULL};
  if (ok && def->finish && def->finish(&s, &why) != 0) {
    report_problem(t->ld, t, &why);
    ok = 0;
  }
  spec_to_constraint(&s, c);
  return ok;
}

/* The keys a constraint of the type may have: name, type and its fields. */
static const char *const *allowed_fields(arena *a, const rt_joint_type_def *def) {
  int n = 0;
  while (def->fields[n].key) n++;
  const char **keys = ARENA_ARRAY(a, const char *, n + 3);
  keys[0] = "name";
  keys[1] = "type";
  for (int i = 0; i < n; i++) keys[2 + i] = def->fields[i].key;
  keys[n + 2] = NULL;
  return keys;
}

void load_read_constraint(loader *ld, int i, int list_line) {
  mech_constraint *c = &ld->m.cons[i];
  tbl t = load_sub_table(ld, -1, list_line, load_fmt(ld->a, "constraints[%d]", i + 1));
  int nerr = ld->nerr;
  c->line = t.line;
  c->target = -1;
  c->a = c->b = MECH_WORLD;
  const char *name, *type;
  if (load_need_string(&t, "name", &name) > 0) {
    if (!load_valid_name(name)) {
      load_bad_name(&t, "constraint", name);
    } else {
      int j = find_constraint(ld, name);
      if (j >= 0) {
        load_err(ld, t.line, "duplicate constraint name '%s' (first defined at line %d)", name, ld->m.cons[j].line);
      } else {
        c->name = name;
        load_index_add(&ld->cons_names, name, i);
      }
      t.what = load_fmt(ld->a, "constraint '%s'", name);
    }
  }
  int r = load_need_string(&t, "type", &type);
  int ty = r > 0 ? rt_joint_type_from_name(type) : -1;
  if (r > 0 && ty < 0) load_err(ld, t.line, "%s: unknown constraint type '%s'", t.what, type);
  if (ty < 0) return; /* the allowed fields depend on the type */
  c->type = (rt_joint_type)ty;
  const rt_joint_type_def *def = rt_joint_type_def_of(c->type);
  load_check_fields(&t, allowed_fields(ld->a, def));
  int ok = read_constraint_fields(&t, def, c, &ld->ref[i]);
  ld->cons_ok[i] = ok && ld->nerr == nerr;
}

/* The key of the type's field that names its target. */
static const char *target_key(const rt_joint_type_def *def) {
  for (const rt_joint_field *f = def->fields; f->key; f++)
    if (f->slot == RT_SLOT_TARGET) return f->key;
  return "target";
}

/* Limits and motors: target and bodies of the joint they act on. */
static void resolve_reference(loader *ld, int i) {
  mech_constraint *c = &ld->m.cons[i];
  const rt_joint_type_def *def = rt_joint_type_def_of(c->type);
  const char *key = target_key(def);
  int j = find_constraint(ld, ld->ref[i]);
  if (j < 0) {
    load_err(ld, c->line, "constraint '%s': field '%s' names unknown constraint '%s'", c->name, key, ld->ref[i]);
    return;
  }
  if (!ld->cons_ok[j]) return; /* already reported; its type may not even be known */
  rt_joint_type tj = ld->m.cons[j].type;
  if (!(def->targets >> tj & 1u)) {
    load_err(ld, c->line, "constraint '%s': field '%s' must name %s constraint ('%s' is a %s)", c->name, key,
             def->targets_text, ld->ref[i], rt_joint_type_name(tj));
    return;
  }
  if (rt_joint_free_angular(c->free_axis, tj) < 0) {
    load_err(ld, c->line, "constraint '%s': a %s has no %s axis to act on ('%s' is a %s; axis must be \"%s\")", c->name,
             rt_joint_type_name(tj), c->free_axis == RT_AXIS_LINEAR ? "linear" : "angular", ld->ref[i],
             rt_joint_type_name(tj), c->free_axis == RT_AXIS_LINEAR ? "angular" : "linear");
    return;
  }
  c->target = j;
  c->a = ld->m.cons[j].a;
  c->b = ld->m.cons[j].b;
}

static const char *body_label(const mech *m, int i) { return i == MECH_WORLD ? "world" : m->bodies[i].name; }

/* Rank of the symmetric positive semidefinite n x n matrix G (destroyed):
 * elimination with diagonal pivoting, stopping at a pivot <= tol * max diag. */
static int psd_rank(double *G, int n) {
  double maxd = 0;
  for (int i = 0; i < n; i++) maxd = fmax(maxd, G[i * n + i]);
  if (!(maxd > 0)) return 0;
  double tol = RANK_TOL * maxd;
  int alive[RT_MAX_DEGREE] = {0};
  for (int k = 0; k < n; k++) {
    int p = -1;
    for (int i = 0; i < n; i++)
      if (!alive[i] && (p < 0 || G[i * n + i] > G[p * n + p])) p = i;
    if (!(G[p * n + p] > tol)) return k;
    alive[p] = 1;
    double d = G[p * n + p];
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        if (!alive[i] && !alive[j]) G[i * n + j] -= G[i * n + p] * G[p * n + j] / d;
  }
  return n;
}

/* Equality constraint i: rows of J (over the moving bodies' columns) must be
 * linearly independent at the initial pose. Returns 1 if they are. */
static int check_rank(loader *ld, int i) {
  const mech *m = &ld->m;
  const mech_constraint *c = &m->cons[i];
  int deg = mech_degree(c);
  rt_joint_desc jd;
  rt_pose pa, pb;
  mech_joint_desc(m, i, &jd);
  mech_body_pose(m, c->a, &pa);
  mech_body_pose(m, c->b, &pb);
  double cval[RT_MAX_DEGREE], J[RT_MAX_DEGREE * 12];
  if (rt_joint_eval(&jd, c->a == MECH_WORLD ? NULL : &pa, c->b == MECH_WORLD ? NULL : &pb, cval, J) != deg) return 1;
  int cols[12], nc = 0;
  for (int s = 0; s < 2; s++)
    if (!mech_body_is_fixed(m, s ? c->b : c->a))
      for (int k = 0; k < 6; k++) cols[nc++] = 6 * s + k;
  double G[RT_MAX_DEGREE * RT_MAX_DEGREE];
  int finite = 1;
  for (int r = 0; r < deg; r++)
    for (int s = 0; s < deg; s++) {
      double acc = 0;
      for (int k = 0; k < nc; k++) acc += J[r * 12 + cols[k]] * J[s * 12 + cols[k]];
      G[r * deg + s] = acc;
      finite &= isfinite(acc) != 0;
    }
  if (!finite) {
    load_err(ld, c->line, "constraint '%s' is degenerate at the initial pose: its Jacobian is not finite", c->name);
    return 0;
  }
  int rank = psd_rank(G, deg);
  if (rank < deg)
    load_err(ld, c->line, "constraint '%s' is degenerate at the initial pose: its Jacobian has rank %d < degree %d",
             c->name, rank, deg);
  return rank == deg;
}

void load_check_constraints(loader *ld) {
  mech *m = &ld->m;
  for (int i = 0; i < m->ncons; i++) {
    mech_constraint *c = &m->cons[i];
    if (!ld->cons_ok[i]) continue;
    const rt_joint_type_def *def = rt_joint_type_def_of(c->type);
    if (def->targets) {
      resolve_reference(ld, i);
      continue;
    }
    if (c->a == c->b) {
      load_err(ld, c->line, "constraint '%s' connects '%s' to itself", c->name, body_label(m, c->a));
      continue;
    }
    if (mech_body_is_fixed(m, c->a) && mech_body_is_fixed(m, c->b)) {
      load_err(ld, c->line, "constraint '%s' connects two fixed bodies ('%s' and '%s'), so it constrains nothing",
               c->name, body_label(m, c->a), body_label(m, c->b));
      continue;
    }
    /* the Jacobian needs valid poses on both sides */
    int poses_ok = (c->a == MECH_WORLD || ld->body_ok[c->a]) && (c->b == MECH_WORLD || ld->body_ok[c->b]);
    if (!mech_is_equality(c) || !poses_ok || !check_rank(ld, i) || !def->at_rest) continue;
    rt_joint_spec s;
    rt_joint_problem why = {{0}, NULL};
    constraint_to_spec(c, &s);
    if (def->at_rest(&s, &why) != 0) load_err(ld, c->line, "constraint '%s': %s", c->name, why.msg);
  }
}
