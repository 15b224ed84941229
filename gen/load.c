/* load.c -- the mechanism schema (see load.h and README.md): reads the table
 * a mechanism file returns into a mech.
 *
 * The chunk runs in a sandbox (sandbox.c), which also knows the line of every
 * table it built. Then:
 *   validate  walk the returned table with raw accesses only (no metamethod
 *             runs), collecting every schema error, and build the mech;
 *   check     evaluate each equality constraint's Jacobian at the initial pose
 *             and reject rank-deficient ones. */
#include "load.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "rt_world.h"
#include "sandbox.h"

#define NAME_MAX_LEN 64
#define RANK_TOL 1e-9
#define MAX_ERRORS 100     /* diagnostics kept per load */
#define MAX_ENTRIES 1000000 /* bodies or constraints */
#define UNIVERSAL_TOL 1e-6 /* |cos| of the angle between the universal axes */

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* Name -> index, open addressing (bodies and constraints can be many). */
typedef struct name_index {
  const char **key;
  int *val;
  size_t cap;
} name_index;

typedef struct loader {
  sandbox sb;                      /* the Lua state the chunk ran in */
  lua_State *L;                    /* sb.L */
  arena *a;
  diag_list *d;
  const char *file;                /* name in diagnostics */
  int nerr;
  int top_line;                    /* line of the returned table */
  mech m;
  int bodies_listed;               /* 'bodies' was a valid list: body names resolve */
  name_index body_names, cons_names;
  unsigned char *body_ok;          /* body read without error */
  const char **ref;                /* limits, motors: referenced constraint name */
  unsigned char *cons_ok;          /* constraint read without error */
  const char *probe;               /* settings.probe, resolved after the bodies */
  int probe_line;
} loader;

//---- diagnostics --------------------------------------------------------------

static char *vfmt(arena *a, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  if (n < 0) n = 0;
  char *s = arena_alloc(a, (size_t)n + 1);
  vsnprintf(s, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return s;
}

static char *fmt(arena *a, const char *f, ...) PRINTF_LIKE(2, 3);
static char *fmt(arena *a, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  char *s = vfmt(a, f, ap);
  va_end(ap);
  return s;
}

/* Appends an input error at file:line (line 0 = no line); after MAX_ERRORS
 * errors only counts them. */
static void err(loader *ld, int line, const char *f, ...) PRINTF_LIKE(3, 4);
static void err(loader *ld, int line, const char *f, ...) {
  if (ld->nerr++ > MAX_ERRORS) return;
  if (ld->nerr > MAX_ERRORS) {
    diag_error(ld->d, ld->file, 0, "too many errors (limit is %d); the rest are not reported", MAX_ERRORS);
    return;
  }
  va_list ap;
  va_start(ap, f);
  char *s = vfmt(ld->a, f, ap);
  va_end(ap);
  diag_error(ld->d, ld->file, line, "%s", s);
}

/* Shortest "%g" form of v that reads back exactly, for messages. */
static const char *num(loader *ld, double v) {
  char buf[40];
  for (int prec = 6; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  return arena_strdup(ld->a, buf);
}

//---- name index ---------------------------------------------------------------------

static void index_init(arena *a, name_index *ix, int n) {
  ix->cap = 16;
  while (ix->cap < 2 * (size_t)n) ix->cap *= 2;
  ix->key = ARENA_ARRAY(a, const char *, ix->cap);
  ix->val = ARENA_ARRAY(a, int, ix->cap);
}

static size_t index_slot(const name_index *ix, const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) h = (h ^ *p) * 0x100000001b3ull;
  size_t i = (size_t)h & (ix->cap - 1);
  while (ix->key[i] && strcmp(ix->key[i], s) != 0) i = (i + 1) & (ix->cap - 1);
  return i;
}

/* Index stored for s, or -1. */
static int index_find(const name_index *ix, const char *s) {
  if (!ix->cap) return -1;
  size_t i = index_slot(ix, s);
  return ix->key[i] ? ix->val[i] : -1;
}

/* Adds s -> v (s not present yet; at most cap / 2 entries). */
static void index_add(name_index *ix, const char *s, int v) {
  size_t i = index_slot(ix, s);
  ix->key[i] = s;
  ix->val[i] = v;
}


//---- field access -----------------------------------------------------------------

/* A table being validated: its stack slot, the line for errors about it, and
 * the prefix naming it in messages ("body 'link1'"). */
typedef struct tbl {
  loader *ld;
  int idx;
  int line;
  const char *what;
} tbl;

static tbl sub_table(loader *ld, int idx, int parent_line, const char *what) {
  tbl t = {ld, lua_absindex(ld->L, idx), sandbox_table_line(&ld->sb, idx), what};
  if (t.line == 0) t.line = parent_line;
  return t;
}

/* Pushes t[key] (raw: no metamethods run) and returns its type. */
static int field(const tbl *t, const char *key) {
  lua_pushstring(t->ld->L, key);
  return lua_rawget(t->ld->L, t->idx);
}

static int has_field(const tbl *t, const char *key) {
  int ty = field(t, key);
  lua_pop(t->ld->L, 1);
  return ty != LUA_TNIL;
}

static const char *type_of(lua_State *L, int idx) { return luaL_typename(L, idx); }

/* Each get_* returns 1 if the field is present and valid, 0 if absent, -1 if
 * present and invalid (already reported). need_* also reports absence. */
static int get_number(const tbl *t, const char *key, double *out) {
  lua_State *L = t->ld->L;
  int ty = field(t, key), r = 0;
  if (ty == LUA_TNUMBER) {
    double v = lua_tonumber(L, -1);
    r = isfinite(v) ? 1 : -1;
    if (r > 0)
      *out = v;
    else
      err(t->ld, t->line, "%s: non-finite number in '%s'", t->what, key);
  } else if (ty != LUA_TNIL) {
    err(t->ld, t->line, "%s: field '%s' must be a number (got %s)", t->what, key, type_of(L, -1));
    r = -1;
  }
  lua_pop(L, 1);
  return r;
}

static void missing(const tbl *t, const char *key) {
  err(t->ld, t->line, "%s: missing required field '%s'", t->what, key);
}

static int need_number(const tbl *t, const char *key, double *out) {
  int r = get_number(t, key, out);
  if (r == 0) missing(t, key);
  return r;
}

/* A number with an integral value in [lo, INT_MAX]. */
static int get_int(const tbl *t, const char *key, int lo, int *out) {
  double v;
  int r = get_number(t, key, &v);
  if (r <= 0) return r;
  if (v != floor(v) || v < lo || v > INT_MAX) {
    err(t->ld, t->line, "%s: field '%s' must be an integer >= %d (got %s)", t->what, key, lo, num(t->ld, v));
    return -1;
  }
  *out = (int)v;
  return 1;
}

static int get_bool(const tbl *t, const char *key, int *out) {
  lua_State *L = t->ld->L;
  int ty = field(t, key), r = 0;
  if (ty == LUA_TBOOLEAN) {
    *out = lua_toboolean(L, -1);
    r = 1;
  } else if (ty != LUA_TNIL) {
    err(t->ld, t->line, "%s: field '%s' must be a boolean (got %s)", t->what, key, type_of(L, -1));
    r = -1;
  }
  lua_pop(L, 1);
  return r;
}

/* A string, copied into the arena. */
static int get_string(const tbl *t, const char *key, const char **out) {
  lua_State *L = t->ld->L;
  int ty = field(t, key), r = 0;
  if (ty == LUA_TSTRING) {
    size_t len;
    const char *s = lua_tolstring(L, -1, &len);
    char *c = arena_alloc(t->ld->a, len + 1);
    memcpy(c, s, len + 1);
    *out = c;
    r = strlen(c) == len ? 1 : -1; /* embedded NUL */
    if (r < 0) err(t->ld, t->line, "%s: field '%s' contains a NUL character", t->what, key);
  } else if (ty != LUA_TNIL) {
    err(t->ld, t->line, "%s: field '%s' must be a string (got %s)", t->what, key, type_of(L, -1));
    r = -1;
  }
  lua_pop(L, 1);
  return r;
}

static int need_string(const tbl *t, const char *key, const char **out) {
  int r = get_string(t, key, out);
  if (r == 0) missing(t, key);
  return r;
}

/* Number of keys of the table at idx; *list = 1 if they are exactly 1..n. */
static int count_keys(lua_State *L, int idx, int *list) {
  idx = lua_absindex(L, idx);
  int n = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    n++;
  }
  *list = (lua_Unsigned)n == lua_rawlen(L, idx);
  return n;
}

/* A list of n finite numbers. Errors about its content name the line of the
 * vector's own table (falling back to the enclosing table's). */
static int get_vec(const tbl *t, const char *key, int n, double *out) {
  lua_State *L = t->ld->L;
  int ty = field(t, key);
  if (ty == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  if (ty != LUA_TTABLE) {
    err(t->ld, t->line, "%s: field '%s' must be a list of %d numbers (got %s)", t->what, key, n, type_of(L, -1));
    lua_pop(L, 1);
    return -1;
  }
  int line = sandbox_table_line(&t->ld->sb, -1);
  if (!line) line = t->line;
  int list, k = count_keys(L, -1, &list);
  if (!list || k != n) {
    if (list)
      err(t->ld, line, "%s: field '%s' must have %d components (got %d)", t->what, key, n, k);
    else
      err(t->ld, line, "%s: field '%s' must be a list of %d numbers {a, b, ...} (got a table with other keys)",
          t->what, key, n);
    lua_pop(L, 1);
    return -1;
  }
  int r = 1;
  for (int i = 0; i < n && r > 0; i++) {
    if (lua_rawgeti(L, -1, i + 1) != LUA_TNUMBER) {
      err(t->ld, line, "%s: component %d of '%s' must be a number (got %s)", t->what, i + 1, key, type_of(L, -1));
      r = -1;
    } else {
      out[i] = lua_tonumber(L, -1);
      if (!isfinite(out[i])) {
        err(t->ld, line, "%s: non-finite number in '%s'", t->what, key);
        r = -1;
      }
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return r;
}

static int need_vec(const tbl *t, const char *key, int n, double *out) {
  int r = get_vec(t, key, n, out);
  if (r == 0) missing(t, key);
  return r;
}

/* Line of the vector t[key] (for semantic errors about its value). */
static int vec_line(const tbl *t, const char *key) {
  field(t, key);
  int line = sandbox_table_line(&t->ld->sb, -1);
  lua_pop(t->ld->L, 1);
  return line ? line : t->line;
}

static int cmp_str(const void *x, const void *y) { return strcmp(*(const char *const *)x, *(const char *const *)y); }

/* Reports every key of t that is not in allowed (NULL-terminated), sorted so
 * the diagnostics do not depend on Lua's hash order. */
static void check_fields(const tbl *t, const char *const *allowed) {
  lua_State *L = t->ld->L;
  int list, n = count_keys(L, t->idx, &list), nbad = 0;
  const char **bad = ARENA_ARRAY(t->ld->a, const char *, n + 1);
  lua_pushnil(L);
  while (lua_next(L, t->idx)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TSTRING) {
      const char *k = lua_tostring(L, -1);
      int known = 0;
      for (int i = 0; allowed[i] && !known; i++) known = strcmp(k, allowed[i]) == 0;
      if (!known) bad[nbad++] = arena_strdup(t->ld->a, k);
    } else if (lua_isinteger(L, -1)) {
      bad[nbad++] = fmt(t->ld->a, "[%lld]", (long long)lua_tointeger(L, -1));
    } else {
      bad[nbad++] = fmt(t->ld->a, "[%s key]", type_of(L, -1));
    }
  }
  qsort(bad, (size_t)nbad, sizeof *bad, cmp_str);
  for (int i = 0; i < nbad; i++) err(t->ld, t->line, "%s: unknown field '%s'", t->what, bad[i]);
}

/* 1..64 characters of [A-Za-z0-9_.-]: names end up in C comments and identifiers. */
static int valid_name(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > NAME_MAX_LEN) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
             c == '-';
    if (!ok) return 0;
  }
  return 1;
}

static void bad_name(const tbl *t, const char *kind, const char *name) {
  err(t->ld, t->line,
      "%s: %s name '%s' is invalid: names are 1 to %d characters of letters, digits, '_', '.' and '-'", t->what,
      kind, name, NAME_MAX_LEN);
}

//---- settings -------------------------------------------------------------------

static const char *const settings_fields[] = {"gravity", "dt",       "iterations", "epsilon", "beta",         "shatter",
                                              "ground",  "friction", "probe",      "collide", "max_contacts", "stabilize", NULL};
static const char *const ground_fields[] = {"height", "friction", NULL};

static void range_error(const tbl *t, const char *key, const char *rule, double v) {
  err(t->ld, t->line, "%s: field '%s' must be %s (got %s)", t->what, key, rule, num(t->ld, v));
}

static void read_ground(const tbl *t, mech_settings *s) {
  loader *ld = t->ld;
  lua_State *L = ld->L;
  int ty = field(t, "ground");
  if (ty == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
    s->has_ground = 0;
  } else if (ty == LUA_TTABLE) {
    tbl g = sub_table(ld, -1, t->line, "settings.ground");
    check_fields(&g, ground_fields);
    s->has_ground = 1;
    get_number(&g, "height", &s->ground_height);
    if (get_number(&g, "friction", &s->ground_friction) > 0 && !(s->ground_friction >= 0))
      range_error(&g, "friction", ">= 0", s->ground_friction);
  } else if (ty != LUA_TNIL) {
    err(ld, t->line, "%s: field 'ground' must be false or a table { height = h, friction = f } (got %s)", t->what,
        ty == LUA_TBOOLEAN ? "true" : type_of(L, -1));
  }
  lua_pop(L, 1);
}

static void read_settings(const tbl *top) {
  loader *ld = top->ld;
  lua_State *L = ld->L;
  mech_settings *s = &ld->m.settings;
  mech_default_settings(s);
  int ty = field(top, "settings");
  if (ty == LUA_TNIL) {
    lua_pop(L, 1);
    return;
  }
  if (ty != LUA_TTABLE) {
    err(ld, top->line, "%s: field 'settings' must be a table (got %s)", top->what, type_of(L, -1));
    lua_pop(L, 1);
    return;
  }
  tbl t = sub_table(ld, -1, top->line, "settings");
  check_fields(&t, settings_fields);
  get_vec(&t, "gravity", 3, s->gravity);
  if (get_number(&t, "dt", &s->dt) > 0 && !(s->dt > 0)) range_error(&t, "dt", "> 0", s->dt);
  get_int(&t, "iterations", 1, &s->iterations);
  if (get_number(&t, "epsilon", &s->epsilon) > 0 && !(s->epsilon >= 0 && s->epsilon < 1))
    range_error(&t, "epsilon", "in [0, 1)", s->epsilon);
  if (get_number(&t, "beta", &s->beta) > 0 && !(s->beta >= 0 && s->beta <= 1))
    range_error(&t, "beta", "in [0, 1]", s->beta);
  if (field(&t, "shatter") == LUA_TBOOLEAN) {
    if (lua_toboolean(L, -1))
      err(ld, t.line, "%s: field 'shatter' must be an integer >= 1 or false (got true)", t.what);
    else
      s->shatter = 0;
  } else {
    get_int(&t, "shatter", 1, &s->shatter);
  }
  lua_pop(L, 1);
  read_ground(&t, s);
  if (get_number(&t, "friction", &s->friction) > 0 && !(s->friction >= 0))
    range_error(&t, "friction", ">= 0", s->friction);
  get_bool(&t, "collide", &s->collide);
  get_bool(&t, "stabilize", &s->stabilize);
  if (get_int(&t, "max_contacts", 1, &s->max_contacts) > 0 && s->max_contacts > RT_MAX_CONTACTS)
    err(ld, t.line, "%s: field 'max_contacts' must be at most %d (got %s)", t.what, RT_MAX_CONTACTS,
        num(ld, s->max_contacts));
  get_string(&t, "probe", &ld->probe);
  ld->probe_line = t.line;
  lua_pop(L, 1);
}

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
    if (get_vec(t, key, 3, size) <= 0) return 0;
    if (!(size[0] > 0 && size[1] > 0 && size[2] > 0)) {
      err(t->ld, vec_line(t, key), "%s: the sides of 'box' must be > 0", t->what);
      return 0;
    }
    return 1;
  case MECH_SHAPE_SPHERE:
    if (get_number(t, key, &size[0]) <= 0) return 0;
    if (!(size[0] > 0)) {
      range_error(t, key, "a radius > 0", size[0]);
      return 0;
    }
    return 1;
  default: /* cylinder, capsule: { radius, length } */
    if (get_vec(t, key, 2, size) <= 0) return 0;
    if (!(size[0] > 0) || !(shape_of_kind[k] == MECH_SHAPE_CAPSULE ? size[1] >= 0 : size[1] > 0)) {
      err(t->ld, vec_line(t, key), "%s: '%s' must be { radius > 0, length %s 0 }", t->what, key,
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
  int line = vec_line(t, "inertia");
  if (!(I[0] > 0 && I[1] > 0 && I[2] > 0)) {
    err(t->ld, line, "%s: inertia is not positive definite (every principal moment must be > 0)", t->what);
    return;
  }
  double tol = 1e-9 * (I[0] + I[1] + I[2]);
  for (int k = 0; k < 3; k++)
    if (I[(k + 1) % 3] + I[(k + 2) % 3] < I[k] - tol) {
      err(t->ld, line, "%s: inertia is not physical: principal moments must satisfy the triangle inequality "
                       "(%s + %s < %s)",
          t->what, num(t->ld, I[(k + 1) % 3]), num(t->ld, I[(k + 2) % 3]), num(t->ld, I[k]));
      return;
    }
}

static void read_mass_inertia(const tbl *t, mech_body *b) {
  int rm = get_number(t, "mass", &b->mass);
  if (rm > 0 && !(b->mass > 0)) {
    range_error(t, "mass", "> 0", b->mass);
    rm = -1;
  } else if (rm == 0 && !b->fixed) {
    missing(t, "mass");
  }
  static const char *const sources[] = {"inertia", "box", "sphere", "cylinder", "capsule", NULL};
  int first = -1, second = -1;
  for (int k = 0; sources[k]; k++) {
    if (!has_field(t, sources[k])) continue;
    if (first < 0)
      first = k;
    else if (second < 0)
      second = k;
  }
  if (second >= 0) {
    err(t->ld, t->line, "%s: give only one of inertia, box, sphere, cylinder, capsule (got '%s' and '%s')",
        t->what, sources[first], sources[second]);
    return;
  }
  if (first < 0) {
    if (!b->fixed)
      err(t->ld, t->line, "%s: missing inertia: give one of inertia, box, sphere, cylinder, capsule", t->what);
    return;
  }
  if (first == 0) {
    if (get_vec(t, "inertia", 3, b->inertia) > 0) check_inertia(t, b->inertia);
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
  int ty = field(t, "shape");
  if (ty == LUA_TTABLE) {
    tbl s = sub_table(ld, -1, t->line, fmt(ld->a, "%s: shape", t->what));
    check_fields(&s, shape_kinds);
    int n = 0, k = -1;
    for (int i = 0; shape_kinds[i]; i++)
      if (has_field(&s, shape_kinds[i])) {
        n++;
        k = i;
      }
    if (n != 1)
      err(ld, s.line, "%s: field 'shape' must have exactly one of box, sphere, cylinder, capsule", t->what);
    else if (read_shape_size(&s, k, b->shape_size))
      b->shape = shape_of_kind[k];
  } else if (ty != LUA_TNIL) {
    err(ld, t->line, "%s: field 'shape' must be a table (got %s)", t->what, type_of(L, -1));
  }
  lua_pop(L, 1);
}

static int find_body(const loader *ld, const char *name) { return index_find(&ld->body_names, name); }

/* Body i from the table on the stack top. */
static void read_body(loader *ld, int i, int list_line) {
  mech_body *b = &ld->m.bodies[i];
  tbl t = sub_table(ld, -1, list_line, fmt(ld->a, "bodies[%d]", i + 1));
  int nerr = ld->nerr;
  b->line = t.line;
  b->rot[0] = 1.0;
  b->friction = -1.0;
  const char *name;
  if (need_string(&t, "name", &name) > 0) {
    if (!valid_name(name)) {
      bad_name(&t, "body", name);
    } else if (strcmp(name, "world") == 0) {
      err(ld, t.line, "%s: body name 'world' is reserved for the fixed world", t.what);
    } else {
      int j = find_body(ld, name);
      if (j >= 0) {
        err(ld, t.line, "duplicate body name '%s' (first defined at line %d)", name, ld->m.bodies[j].line);
      } else {
        b->name = name;
        index_add(&ld->body_names, name, i);
      }
      t.what = fmt(ld->a, "body '%s'", name);
    }
  }
  check_fields(&t, body_fields);
  get_bool(&t, "fixed", &b->fixed);
  read_mass_inertia(&t, b);
  need_vec(&t, "pos", 3, b->pos);
  if (get_vec(&t, "rot", 4, b->rot) > 0) {
    double *q = b->rot, n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0) || !isfinite(n)) {
      err(ld, vec_line(&t, "rot"), "%s: 'rot' must be a non-zero quaternion {w, x, y, z}", t.what);
    } else {
      for (int k = 0; k < 4; k++) q[k] /= n;
    }
  }
  get_vec(&t, "vel", 3, b->vel);
  get_vec(&t, "angvel", 3, b->angvel);
  read_collision_shape(&t, b);
  if (get_number(&t, "friction", &b->friction) > 0 && !(b->friction >= 0)) range_error(&t, "friction", ">= 0", b->friction);
  ld->body_ok[i] = ld->nerr == nerr;
}

//---- constraints ----------------------------------------------------------------

/* Fields allowed per type (besides name and type). */
static const char *const type_fields[RT_JOINT_NTYPES][10] = {
    [RT_BALL] = {"name", "type", "a", "b", "anchor", NULL},
    [RT_WELD] = {"name", "type", "a", "b", "anchor", NULL},
    [RT_HINGE] = {"name", "type", "a", "b", "anchor", "axis", NULL},
    [RT_PRISMATIC] = {"name", "type", "a", "b", "anchor", "axis", NULL},
    [RT_CYLINDRICAL] = {"name", "type", "a", "b", "anchor", "axis", NULL},
    [RT_UNIVERSAL] = {"name", "type", "a", "b", "anchor", "axis_a", "axis_b"},
    [RT_ROD] = {"name", "type", "a", "b", "anchor_a", "anchor_b", "length", "speed", "lower", "upper"},
    [RT_ROPE] = {"name", "type", "a", "b", "anchor_a", "anchor_b", "length"},
    [RT_ANGULAR_LIMIT] = {"name", "type", "hinge", "lower", "upper", NULL},
    [RT_POSITIONAL_LIMIT] = {"name", "type", "joint", "lower", "upper", NULL},
    [RT_MOTOR] = {"name", "type", "joint", "speed", "max_force", NULL},
};

static int find_constraint(const loader *ld, const char *name) { return index_find(&ld->cons_names, name); }

/* t[key] as a body index (or MECH_WORLD); -2 on error. */
static int read_body_ref(const tbl *t, const char *key) {
  const char *name;
  if (need_string(t, key, &name) <= 0) return -2;
  if (strcmp(name, "world") == 0) return MECH_WORLD;
  if (!t->ld->bodies_listed) return -2; /* already reported: no bodies to look in */
  int i = find_body(t->ld, name);
  if (i < 0) err(t->ld, t->line, "%s: unknown body '%s' in field '%s'", t->what, name, key);
  return i < 0 ? -2 : i;
}

/* A unit axis from t[key]; 1 if valid. */
static int read_axis(const tbl *t, const char *key, double v[3]) {
  if (need_vec(t, key, 3, v) <= 0) return 0;
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(n > 0) || !isfinite(n)) {
    err(t->ld, vec_line(t, key), "%s: zero-length axis in '%s'", t->what, key);
    return 0;
  }
  for (int k = 0; k < 3; k++) v[k] /= n;
  return 1;
}

static double dist3(const double p[3], const double q[3]) {
  double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
  return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* A rod's drive: its length changes at `speed` (m/s) within [lower, upper]
 * (defaults 0, and the rest length for both bounds' missing side: a rod
 * without a drive keeps its length). Returns 1 if valid. */
static int read_rod_drive(const tbl *t, mech_constraint *c) {
  int ok = get_number(t, "speed", &c->speed) >= 0;
  int lo = get_number(t, "lower", &c->lower), hi = get_number(t, "upper", &c->upper);
  ok &= lo >= 0 && hi >= 0;
  if (lo <= 0) c->lower = c->speed < 0 ? 0.0 : c->length;
  if (hi <= 0) c->upper = c->speed > 0 ? INFINITY : c->length;
  if (lo > 0 && !(c->lower > 0)) {
    range_error(t, "lower", "> 0", c->lower);
    return 0;
  }
  if (ok && !(c->lower <= c->length && c->length <= c->upper)) {
    err(t->ld, t->line, "%s: the length %s must lie within [lower, upper] = [%s, %s]", t->what, num(t->ld, c->length),
        num(t->ld, c->lower), num(t->ld, c->upper));
    ok = 0;
  }
  return ok;
}

/* Type-specific fields of constraint c; returns 1 if all valid. */
static int read_constraint_fields(const tbl *t, mech_constraint *c, const char **ref) {
  int ok = 1;
  if (c->type < RT_ANGULAR_LIMIT || c->type == RT_ROPE) {
    c->a = read_body_ref(t, "a");
    c->b = read_body_ref(t, "b");
    ok = c->a != -2 && c->b != -2;
  }
  switch (c->type) {
  case RT_BALL:
  case RT_WELD:
  case RT_HINGE:
  case RT_PRISMATIC:
  case RT_CYLINDRICAL:
  case RT_UNIVERSAL:
    ok &= need_vec(t, "anchor", 3, c->anchor_a) > 0;
    memcpy(c->anchor_b, c->anchor_a, sizeof c->anchor_b);
    if (c->type == RT_UNIVERSAL) {
      ok &= read_axis(t, "axis_a", c->axis_a);
      ok &= read_axis(t, "axis_b", c->axis_b);
    } else if (c->type != RT_BALL && c->type != RT_WELD) {
      ok &= read_axis(t, "axis", c->axis_a);
      memcpy(c->axis_b, c->axis_a, sizeof c->axis_b);
    } else {
      c->axis_a[2] = c->axis_b[2] = 1.0; /* only fixes the weld's reference frame */
    }
    break;
  case RT_ROD:
  case RT_ROPE: {
    int anchors = need_vec(t, "anchor_a", 3, c->anchor_a) > 0;
    anchors &= need_vec(t, "anchor_b", 3, c->anchor_b) > 0;
    ok &= anchors;
    int r = get_number(t, "length", &c->length);
    if (r > 0 && !(c->length > 0)) {
      range_error(t, "length", "> 0", c->length);
      r = -1;
    }
    ok &= r >= 0;
    if (r == 0 && anchors) {
      c->length = dist3(c->anchor_a, c->anchor_b);
      if (c->type == RT_ROPE && !(c->length > 0)) {
        err(t->ld, t->line, "%s: the anchors of the rope coincide, so its 'length' must be given", t->what);
        ok = 0;
      }
    }
    if (c->type == RT_ROD) ok &= read_rod_drive(t, c);
    break;
  }
  case RT_ANGULAR_LIMIT:
  case RT_POSITIONAL_LIMIT: {
    ok &= need_string(t, c->type == RT_ANGULAR_LIMIT ? "hinge" : "joint", ref) > 0;
    int lo = need_number(t, "lower", &c->lower), hi = need_number(t, "upper", &c->upper);
    if (lo > 0 && hi > 0 && !(c->lower <= c->upper)) {
      err(t->ld, t->line, "%s: lower (%s) must not exceed upper (%s)", t->what, num(t->ld, c->lower),
          num(t->ld, c->upper));
      ok = 0;
    }
    ok &= lo > 0 && hi > 0;
    break;
  }
  case RT_MOTOR: {
    ok &= need_string(t, "joint", ref) > 0;
    ok &= get_number(t, "speed", &c->speed) >= 0;
    int r = need_number(t, "max_force", &c->max_force);
    if (r > 0 && !(c->max_force > 0)) {
      range_error(t, "max_force", "> 0", c->max_force);
      r = -1;
    }
    ok &= r > 0;
    break;
  }
  default:
    break;
  }
  return ok;
}

/* Constraint i from the table on the stack top. */
static void read_constraint(loader *ld, int i, int list_line) {
  mech_constraint *c = &ld->m.cons[i];
  tbl t = sub_table(ld, -1, list_line, fmt(ld->a, "constraints[%d]", i + 1));
  int nerr = ld->nerr;
  c->line = t.line;
  c->target = -1;
  c->a = c->b = MECH_WORLD;
  const char *name, *type;
  if (need_string(&t, "name", &name) > 0) {
    if (!valid_name(name)) {
      bad_name(&t, "constraint", name);
    } else {
      int j = find_constraint(ld, name);
      if (j >= 0) {
        err(ld, t.line, "duplicate constraint name '%s' (first defined at line %d)", name, ld->m.cons[j].line);
      } else {
        c->name = name;
        index_add(&ld->cons_names, name, i);
      }
      t.what = fmt(ld->a, "constraint '%s'", name);
    }
  }
  int r = need_string(&t, "type", &type);
  int ty = r > 0 ? rt_joint_type_from_name(type) : -1;
  if (r > 0 && ty < 0) err(ld, t.line, "%s: unknown constraint type '%s'", t.what, type);
  if (ty < 0) return; /* the allowed fields depend on the type */
  c->type = (rt_joint_type)ty;
  check_fields(&t, type_fields[ty]);
  int ok = read_constraint_fields(&t, c, &ld->ref[i]);
  ld->cons_ok[i] = ok && ld->nerr == nerr;
}

/* Limits and motors: target and bodies of the referenced joint. */
static void resolve_reference(loader *ld, int i) {
  mech_constraint *c = &ld->m.cons[i];
  const char *key = c->type == RT_ANGULAR_LIMIT ? "hinge" : "joint";
  const char *want = c->type == RT_ANGULAR_LIMIT      ? "a hinge or cylindrical"
                     : c->type == RT_POSITIONAL_LIMIT ? "a prismatic or cylindrical"
                                                      : "a hinge, cylindrical or prismatic";
  int j = find_constraint(ld, ld->ref[i]);
  if (j < 0) {
    err(ld, c->line, "constraint '%s': field '%s' names unknown constraint '%s'", c->name, key, ld->ref[i]);
    return;
  }
  if (!ld->cons_ok[j]) return; /* already reported; its type may not even be known */
  rt_joint_type tj = ld->m.cons[j].type;
  int fits = tj == RT_CYLINDRICAL || (tj == RT_HINGE && c->type != RT_POSITIONAL_LIMIT) ||
             (tj == RT_PRISMATIC && c->type != RT_ANGULAR_LIMIT);
  if (!fits) {
    err(ld, c->line, "constraint '%s': field '%s' must name %s constraint ('%s' is a %s)", c->name, key, want,
        ld->ref[i], rt_joint_type_name(tj));
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
  if (c->type == RT_ROD && !(dist3(c->anchor_a, c->anchor_b) > 0)) {
    err(ld, c->line, "constraint '%s' is degenerate at the initial pose: its Jacobian has rank 0 < degree 1 (%s)",
        c->name, c->length > 0 ? "the anchors of the rod coincide" : "a rod of zero length");
    return 0;
  }
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
    err(ld, c->line, "constraint '%s' is degenerate at the initial pose: its Jacobian is not finite", c->name);
    return 0;
  }
  int rank = psd_rank(G, deg);
  if (rank < deg)
    err(ld, c->line, "constraint '%s' is degenerate at the initial pose: its Jacobian has rank %d < degree %d",
        c->name, rank, deg);
  return rank == deg;
}

/* Checks that need all bodies and constraints: references, pairs, rank. */
static void check_constraints(loader *ld) {
  mech *m = &ld->m;
  for (int i = 0; i < m->ncons; i++) {
    mech_constraint *c = &m->cons[i];
    if (!ld->cons_ok[i]) continue;
    if (c->type == RT_ANGULAR_LIMIT || c->type == RT_POSITIONAL_LIMIT || c->type == RT_MOTOR) {
      resolve_reference(ld, i);
      continue;
    }
    if (c->a == c->b) {
      err(ld, c->line, "constraint '%s' connects '%s' to itself", c->name, body_label(m, c->a));
      continue;
    }
    if (mech_body_is_fixed(m, c->a) && mech_body_is_fixed(m, c->b)) {
      err(ld, c->line, "constraint '%s' connects two fixed bodies ('%s' and '%s'), so it constrains nothing",
          c->name, body_label(m, c->a), body_label(m, c->b));
      continue;
    }
    /* the Jacobian needs valid poses on both sides */
    int poses_ok = (c->a == MECH_WORLD || ld->body_ok[c->a]) && (c->b == MECH_WORLD || ld->body_ok[c->b]);
    if (!mech_is_equality(c) || !poses_ok || !check_rank(ld, i)) continue;
    /* the universal joint holds axis_a . axis_b = 0: at rest it must hold */
    double dot = c->axis_a[0] * c->axis_b[0] + c->axis_a[1] * c->axis_b[1] + c->axis_a[2] * c->axis_b[2];
    if (c->type == RT_UNIVERSAL && fabs(dot) > UNIVERSAL_TOL)
      err(ld, c->line, "constraint '%s': axis_a and axis_b of a universal joint must be perpendicular (cosine %.3g)",
          c->name, dot);
  }
}

//---- top level --------------------------------------------------------------------

static const char *const top_fields[] = {"name", "bodies", "constraints", "settings", NULL};

/* Pushes top[key], checked to be a list of tables; returns its length or -1. */
static int open_list(const tbl *top, const char *key, int *line) {
  loader *ld = top->ld;
  lua_State *L = ld->L;
  int ty = field(top, key);
  if (ty != LUA_TTABLE) {
    if (ty == LUA_TNIL)
      missing(top, key);
    else
      err(ld, top->line, "%s: field '%s' must be a list of tables (got %s)", top->what, key, type_of(L, -1));
    lua_pop(L, 1);
    return -1;
  }
  *line = sandbox_table_line(&ld->sb, -1);
  if (!*line) *line = top->line;
  int list, n = count_keys(L, -1, &list);
  if (!list) {
    err(ld, *line, "%s: field '%s' must be a list {t1, t2, ...} without holes or other keys", top->what, key);
    lua_pop(L, 1);
    return -1;
  }
  if (n > MAX_ENTRIES) {
    err(ld, *line, "%s: too many entries in '%s' (limit is %d)", top->what, key, MAX_ENTRIES);
    lua_pop(L, 1);
    return -1;
  }
  return n;
}

/* lua_CFunction run by sandbox_call (API errors are memory errors): validates
 * the table at index 1 into ld->m. */
static int validate(lua_State *L) {
  loader *ld = sandbox_user(L);
  tbl top = {ld, 1, ld->top_line, "mechanism"};
  mech *m = &ld->m;
  check_fields(&top, top_fields);
  const char *name;
  if (need_string(&top, "name", &name) > 0) {
    if (valid_name(name))
      m->name = name;
    else
      bad_name(&top, "mechanism", name);
  }
  read_settings(&top);
  int line, n = open_list(&top, "bodies", &line);
  if (n == 0) err(ld, line, "%s: field 'bodies' must not be empty", top.what);
  ld->bodies_listed = n > 0;
  if (n > 0) {
    m->bodies = ARENA_ARRAY(ld->a, mech_body, n);
    index_init(ld->a, &ld->body_names, n);
    ld->body_ok = ARENA_ARRAY(ld->a, unsigned char, n);
    for (int i = 0; i < n; i++) {
      if (lua_rawgeti(L, -1, i + 1) == LUA_TTABLE)
        read_body(ld, i, line);
      else
        err(ld, line, "%s: bodies[%d] must be a table (got %s)", top.what, i + 1, type_of(L, -1));
      m->nbody = i + 1;
      lua_pop(L, 1);
    }
  }
  if (n >= 0) lua_pop(L, 1);
  if (ld->probe && ld->bodies_listed) {
    m->settings.probe = find_body(ld, ld->probe);
    if (m->settings.probe < 0)
      err(ld, ld->probe_line, "settings: field 'probe' names unknown body '%s'", ld->probe);
  }
  n = open_list(&top, "constraints", &line);
  if (n > 0) {
    m->cons = ARENA_ARRAY(ld->a, mech_constraint, n);
    index_init(ld->a, &ld->cons_names, n);
    ld->ref = ARENA_ARRAY(ld->a, const char *, n);
    ld->cons_ok = ARENA_ARRAY(ld->a, unsigned char, n);
    for (int i = 0; i < n; i++) {
      if (lua_rawgeti(L, -1, i + 1) == LUA_TTABLE)
        read_constraint(ld, i, line);
      else
        err(ld, line, "%s: constraints[%d] must be a table (got %s)", top.what, i + 1, type_of(L, -1));
      m->ncons = i + 1;
      lua_pop(L, 1);
    }
  }
  if (n >= 0) lua_pop(L, 1);
  check_constraints(ld);
  return 0;
}

/* Runs src in the sandbox and validates the result into ld->m. */
static gen_status run(loader *ld, const char *src, size_t len) {
  lua_State *L = ld->L;
  gen_status st = sandbox_run(&ld->sb, src, len);
  if (st != GEN_OK) return st;
  if (lua_type(L, -1) != LUA_TTABLE) {
    err(ld, 0, "mechanism file must return a table (got %s)", type_of(L, -1));
    return GEN_ERR_INPUT;
  }
  ld->top_line = sandbox_table_line(&ld->sb, -1);
  ld->m.line = ld->top_line;
  st = sandbox_call(&ld->sb, validate, 1);
  if (st != GEN_OK) return st;
  return ld->nerr ? GEN_ERR_INPUT : GEN_OK;
}

void load_default_limits(load_limits *lim) {
  lim->max_instructions = 100000000;
  lim->max_memory = (size_t)256 << 20;
}

static load_limits resolve_limits(const load_limits *lim) {
  load_limits l;
  load_default_limits(&l);
  if (lim && lim->max_instructions > 0) l.max_instructions = lim->max_instructions;
  if (lim && lim->max_memory > 0) l.max_memory = lim->max_memory;
  return l;
}

/* The sandbox's errors go through err too, so MAX_ERRORS counts them. */
static void report(void *user, int line, const char *msg) { err(user, line, "%s", msg); }

static gen_status load_buffer(arena *a, const char *name, const char *src, size_t len, const load_limits *lim,
                              mech *out, diag_list *d) {
  load_limits l = resolve_limits(lim);
  loader ld;
  memset(&ld, 0, sizeof ld);
  ld.a = a;
  ld.d = d;
  ld.file = arena_strdup(a, name);
  ld.m.file = ld.file;
  sandbox_config cfg = {.file = ld.file,
                        .max_instructions = l.max_instructions,
                        .max_memory = l.max_memory,
                        .a = a,
                        .report = report,
                        .user = &ld};
  gen_status st = sandbox_open(&ld.sb, &cfg);
  if (st == GEN_OK) {
    ld.L = ld.sb.L;
    st = run(&ld, src, len);
  }
  sandbox_close(&ld.sb);
  if (st == GEN_OK) *out = ld.m;
  return st;
}

gen_status load_mech_string(arena *a, const char *chunkname, const char *src, const load_limits *lim, mech *out,
                            diag_list *d) {
  memset(out, 0, sizeof *out);
  return load_buffer(a, chunkname, src, strlen(src), lim, out, d);
}

gen_status load_mech(arena *a, const char *path, const load_limits *lim, mech *out, diag_list *d) {
  memset(out, 0, sizeof *out);
  load_limits l = resolve_limits(lim);
  FILE *f = fopen(path, "rb");
  if (!f) {
    diag_error(d, path, 0, "cannot open mechanism file: %s", strerror(errno));
    return GEN_ERR_IO;
  }
  size_t len = 0, cap = 4096;
  char *buf = malloc(cap);
  gen_status st = GEN_OK;
  while (buf) {
    len += fread(buf + len, 1, cap - len, f);
    if (len < cap) break;
    if (cap >= l.max_memory) {
      diag_error(d, path, 0, "mechanism exceeds the memory limit of %zu bytes", l.max_memory);
      st = GEN_ERR_LIMIT;
      break;
    }
    char *nb = realloc(buf, 2 * cap);
    if (!nb) free(buf);
    buf = nb;
    cap *= 2;
  }
  if (!buf) {
    diag_error(d, path, 0, "out of memory reading the mechanism file");
    st = GEN_ERR_IO;
  } else if (ferror(f)) {
    diag_error(d, path, 0, "cannot read mechanism file: %s", strerror(errno));
    st = GEN_ERR_IO;
  }
  fclose(f);
  if (st == GEN_OK) st = load_buffer(a, path, buf, len, lim, out, d);
  free(buf);
  return st;
}
