/* emit_world.c -- the mechanism in a generated file (emit.h, "the
 * mechanism"): the C names of its bodies and constraints, checked for
 * collisions, and the view templates/world.c.tpl and world.h.tpl format --
 * the world description of gen/mechdesc.c (what ldlsim steps), every
 * number written so that it reads back exactly. */
#include "emit.h"

#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mechdesc.h"

/* The fields are written below by name: a field added to one of these
 * structs changes its size (on x86-64 and aarch64, where these hold) and
 * must be written here too. */
#if defined(__x86_64__) || defined(__aarch64__)
_Static_assert(sizeof(rt_body_desc) == 176, "a new field of rt_body_desc: write it in push_bodies");
_Static_assert(sizeof(rt_joint_desc) == 288, "a new field of rt_joint_desc: write it in push_joints");
_Static_assert(sizeof(rt_settings) == 152, "a new field of rt_settings: write it in push_settings");
#endif

/*---- numbers ---------------------------------------------------------------------*/

void emit_number(double v, char *buf, size_t size) {
  if (isinf(v)) {
    snprintf(buf, size, "%sHUGE_VAL", v < 0 ? "-" : "");
    return;
  }
  if (isnan(v)) {
    snprintf(buf, size, "NAN");
    return;
  }
  /* the shortest %g that reads back as v */
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  /* a floating constant, so that -0 keeps its sign and 1e300 is no integer */
  if (!strpbrk(buf, ".en")) {
    size_t n = strlen(buf);
    snprintf(buf + n, size - n, ".0");
  }
}

/* "{a, b, c}" of n numbers appended at buf[*at] (size bytes in all). */
static void put_vector(char *buf, size_t size, size_t *at, const double *v, int n) {
  *at += (size_t)snprintf(buf + *at, size - *at, "{");
  for (int i = 0; i < n; i++) {
    char num[40];
    emit_number(v[i], num, sizeof num);
    *at += (size_t)snprintf(buf + *at, size - *at, "%s%s", i ? ", " : "", num);
  }
  *at += (size_t)snprintf(buf + *at, size - *at, "}");
}

static int all_zero(const double *v, int n) {
  for (int i = 0; i < n; i++)
    if (v[i] != 0 || signbit(v[i])) return 0;
  return 1;
}

/*---- names -----------------------------------------------------------------------*/

/* NAME upper-cased, every character outside [A-Z0-9_] made '_'. */
static char *upper_name(arena *a, const char *name) {
  char *s = arena_strdup(a, name);
  for (char *c = s; *c; c++) {
    if (*c >= 'a' && *c <= 'z')
      *c = (char)(*c - 'a' + 'A');
    else if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
      *c = '_';
  }
  return s;
}

typedef struct named {
  const char *key; /* the upper-cased name */
  int index;
} named;

static int by_key(const void *x, const void *y) {
  const named *a = x, *b = y;
  int c = strcmp(a->key, b->key);
  return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* One kind ("body", "constraint"): its C names MACRO_KIND_NAME, and an
 * error at the later one's line for every two that coincide, or for one
 * that is MACRO_KIND_COUNT. */
static int name_kind(arena *a, const mech *m, const char *macro, const char *kind, const char *cmacro, int n,
                     const char *(*name_of)(const mech *, int), int (*line_of)(const mech *, int), char **out,
                     diag_list *d) {
  named *v = ARENA_ARRAY(a, named, n + 1);
  int bad = 0;
  for (int i = 0; i < n; i++) {
    const char *key = upper_name(a, name_of(m, i));
    size_t len = strlen(macro) + strlen(cmacro) + strlen(key) + 3;
    out[i] = arena_alloc(a, len);
    snprintf(out[i], len, "%s_%s_%s", macro, cmacro, key);
    v[i] = (named){key, i};
    if (strcmp(key, "COUNT") == 0) {
      diag_error(d, m->file, line_of(m, i), "%s '%s' would be %s, the generated header's count of %ss: rename it",
                 kind, name_of(m, i), out[i], kind);
      bad = 1;
    }
  }
  qsort(v, (size_t)n, sizeof *v, by_key);
  for (int i = 1; i < n; i++) {
    if (strcmp(v[i].key, v[i - 1].key) != 0) continue;
    int first = v[i - 1].index, later = v[i].index;
    while (i + 1 < n && strcmp(v[i + 1].key, v[i].key) == 0) i++; /* one error per clash: the first two */
    diag_error(d, m->file, line_of(m, later),
               "%s '%s' and %s '%s' (line %d) both become %s in the generated header: rename one", kind,
               name_of(m, later), kind, name_of(m, first), line_of(m, first), out[later]);
    bad = 1;
  }
  return bad ? -1 : 0;
}

static const char *body_name(const mech *m, int i) { return m->bodies[i].name; }
static int body_line(const mech *m, int i) { return m->bodies[i].line; }
static const char *cons_name(const mech *m, int i) { return m->cons[i].name; }
static int cons_line(const mech *m, int i) { return m->cons[i].line; }

gen_status emit_world_names(arena *a, const mech *m, const char *macro, emit_names *out, diag_list *d) {
  out->body = ARENA_ARRAY(a, char *, m->nbody + 1);
  out->joint = ARENA_ARRAY(a, char *, m->ncons + 1);
  int bad = name_kind(a, m, macro, "body", "BODY", m->nbody, body_name, body_line, out->body, d);
  bad |= name_kind(a, m, macro, "constraint", "JOINT", m->ncons, cons_name, cons_line, out->joint, d);
  return bad ? GEN_ERR_INPUT : GEN_OK;
}

/*---- the view ----------------------------------------------------------------------*/

static void set_str(lua_State *L, const char *k, const char *v) {
  lua_pushstring(L, v);
  lua_setfield(L, -2, k);
}

static void set_int(lua_State *L, const char *k, long long v) {
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, -2, k);
}

static void append(lua_State *L) { lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1); }

/* Appends {k = ".field", v = "initializer"} to the list on top of the stack. */
static void field(lua_State *L, const char *name, const char *init) {
  lua_createtable(L, 0, 2);
  set_str(L, "k", name);
  set_str(L, "v", init);
  append(L);
}

static void field_num(lua_State *L, const char *name, double x) {
  char b[40];
  emit_number(x, b, sizeof b);
  field(L, name, b);
}

static void field_vec(lua_State *L, const char *name, const double *x, int n) {
  char b[400];
  size_t at = 0;
  put_vector(b, sizeof b, &at, x, n);
  field(L, name, b);
}

/* A frame row by row: .frame_a[0] = {...}, ... (rows that are zero left
 * out). */
static void field_frame(lua_State *L, const char *name, const double f[3][3]) {
  for (int r = 0; r < 3; r++) {
    if (all_zero(f[r], 3)) continue;
    char k[32];
    snprintf(k, sizeof k, "%s[%d]", name, r);
    field_vec(L, k, f[r], 3);
  }
}

static const char *shape_name(rt_shape s) {
  switch (s) {
  case RT_SHAPE_SPHERE: return "RT_SHAPE_SPHERE";
  case RT_SHAPE_BOX: return "RT_SHAPE_BOX";
  case RT_SHAPE_CYLINDER: return "RT_SHAPE_CYLINDER";
  case RT_SHAPE_CAPSULE: return "RT_SHAPE_CAPSULE";
  case RT_SHAPE_NONE: break;
  }
  return "RT_SHAPE_NONE";
}

#define TYPE_ID(id, name) "RT_" #id,
static const char *const type_id[RT_JOINT_NTYPES] = {RT_JOINT_TYPES(TYPE_ID)};
#undef TYPE_ID

/* Bodies: the index's name and the fields worth writing (zero velocities,
 * no shape and not fixed are left to the initializer's zeros). */
static void push_bodies(lua_State *L, const rt_world_desc *w, const emit_names *names, const mech *m) {
  lua_createtable(L, w->nbody, 0);
  for (int i = 0; i < w->nbody; i++) {
    const rt_body_desc *b = &w->bodies[i];
    lua_createtable(L, 0, 3);
    set_str(L, "name", m->bodies[i].name);
    set_str(L, "enum", names->body[i]);
    lua_newtable(L);
    field_num(L, ".mass", b->mass);
    field_vec(L, ".inertia", b->inertia, 3);
    field_vec(L, ".pose.p", b->pose.p, 3);
    field_vec(L, ".pose.q", b->pose.q, 4);
    if (!all_zero(b->vel, 3)) field_vec(L, ".vel", b->vel, 3);
    if (!all_zero(b->angvel, 3)) field_vec(L, ".angvel", b->angvel, 3);
    if (b->fixed) field(L, ".fixed", "1");
    if (b->shape != RT_SHAPE_NONE) {
      field(L, ".shape", shape_name(b->shape));
      field_vec(L, ".shape_size", b->shape_size, 3);
    }
    field_num(L, ".friction", b->friction);
    lua_setfield(L, -2, "fields");
    append(L);
  }
}

static const char *body_ref(const emit_names *names, int b) { return b == RT_WORLD ? "RT_WORLD" : names->body[b]; }

/* Constraints: type, bodies and target always; the numbers unless zero. */
static void push_joints(lua_State *L, const rt_world_desc *w, const emit_names *names, const mech *m) {
  lua_createtable(L, w->njoint, 0);
  for (int i = 0; i < w->njoint; i++) {
    const rt_joint_desc *j = &w->joints[i];
    lua_createtable(L, 0, 3);
    set_str(L, "name", m->cons[i].name);
    set_str(L, "enum", names->joint[i]);
    lua_newtable(L);
    field(L, ".type", type_id[j->type]);
    field(L, ".body_a", body_ref(names, j->body_a));
    field(L, ".body_b", body_ref(names, j->body_b));
    if (!all_zero(j->anchor_a, 3)) field_vec(L, ".anchor_a", j->anchor_a, 3);
    if (!all_zero(j->anchor_b, 3)) field_vec(L, ".anchor_b", j->anchor_b, 3);
    field_frame(L, ".frame_a", j->frame_a);
    field_frame(L, ".frame_b", j->frame_b);
    if (!all_zero(&j->length, 1)) field_num(L, ".length", j->length);
    field(L, ".target", j->target >= 0 ? names->joint[j->target] : "-1");
    if (!all_zero(&j->lower, 1)) field_num(L, ".lower", j->lower);
    if (!all_zero(&j->upper, 1)) field_num(L, ".upper", j->upper);
    if (!all_zero(&j->speed, 1)) field_num(L, ".speed", j->speed);
    if (!all_zero(&j->max_force, 1)) field_num(L, ".max_force", j->max_force);
    if (j->free_axis != RT_AXIS_DEFAULT) field(L, ".free_axis", j->free_axis == RT_AXIS_LINEAR ? "RT_AXIS_LINEAR" : "RT_AXIS_ANGULAR");
    if (!all_zero(&j->stiffness, 1)) field_num(L, ".stiffness", j->stiffness);
    if (!all_zero(&j->damping, 1)) field_num(L, ".damping", j->damping);
    if (!all_zero(&j->rest, 1)) field_num(L, ".rest", j->rest);
    lua_setfield(L, -2, "fields");
    append(L);
  }
}

/* Every field of the settings, in declaration order. */
static void push_settings(lua_State *L, const rt_settings *s) {
  char b[32];
  lua_newtable(L);
  field_num(L, ".dt", s->dt);
  field_vec(L, ".gravity", s->gravity, 3);
  snprintf(b, sizeof b, "%d", s->iterations);
  field(L, ".iterations", b);
  field_num(L, ".beta", s->beta);
  field_num(L, ".epsilon", s->epsilon);
  field(L, ".solver", s->solver == RT_SOLVER_PGS ? "RT_SOLVER_PGS" : "RT_SOLVER_LDLPGS");
  field(L, ".block_at", s->block_at == RT_BLOCK_BEFORE_LAST ? "RT_BLOCK_BEFORE_LAST" : "RT_BLOCK_LAST");
  snprintf(b, sizeof b, "%d", s->threaded);
  field(L, ".threaded", b);
  snprintf(b, sizeof b, "%d", s->max_contacts);
  field(L, ".max_contacts", b);
  field_num(L, ".restitution", s->restitution);
  field_num(L, ".contact_slop", s->contact_slop);
  snprintf(b, sizeof b, "%d", s->stabilize);
  field(L, ".stabilize", b);
  field(L, ".correction", s->correction == RT_CORRECT_BAUMGARTE ? "RT_CORRECT_BAUMGARTE" : "RT_CORRECT_SPLIT");
  field_num(L, ".max_bias", s->max_bias);
  snprintf(b, sizeof b, "%d", s->project);
  field(L, ".project", b);
  snprintf(b, sizeof b, "%d", s->contact_passes);
  field(L, ".contact_passes", b);
  snprintf(b, sizeof b, "%d", s->geometric_stiffness);
  field(L, ".geometric_stiffness", b);
  snprintf(b, sizeof b, "%d", s->refine);
  field(L, ".refine", b);
  field(L, ".block_solver", s->block_solver == RT_BLOCK_PCR ? "RT_BLOCK_PCR" : "RT_BLOCK_LDL");
  field_num(L, ".pcr_tolerance", s->pcr_tolerance);
  snprintf(b, sizeof b, "%d", s->pcr_max_iterations);
  field(L, ".pcr_max_iterations", b);
  snprintf(b, sizeof b, "%d", s->coupled_rows);
  field(L, ".coupled_rows", b);
  snprintf(b, sizeof b, "%d", s->coupled_contacts);
  field(L, ".coupled_contacts", b);
}

void emit_world_push(lua_State *L, const mech *m, const emit_names *names) {
  arena a;
  arena_init(&a);
  rt_world_desc w;
  rt_settings s;
  mechdesc_world(&a, m, &w);
  mechdesc_settings(m, &s);
  lua_createtable(L, 0, 8);
  push_bodies(L, &w, names, m);
  lua_setfield(L, -2, "bodies");
  push_joints(L, &w, names, m);
  lua_setfield(L, -2, "joints");
  push_settings(L, &s);
  lua_setfield(L, -2, "settings");
  set_int(L, "ground", m->settings.has_ground != 0);
  char b[40];
  emit_number(m->settings.has_ground ? m->settings.ground_height : 0.0, b, sizeof b);
  set_str(L, "ground_height", b);
  emit_number(mechdesc_ground_friction(m), b, sizeof b);
  set_str(L, "ground_friction", b);
  set_int(L, "collide", m->settings.collide != 0);
  arena_free(&a);
}
