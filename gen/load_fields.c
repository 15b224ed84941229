/* load_fields.c -- the loader's diagnostics, name index and typed access to
 * the fields of the tables a mechanism file returns (raw accesses only: no
 * metamethod runs). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "load_internal.h"
#include "rt_joint_type.h"

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

char *load_fmt(arena *a, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  char *s = vfmt(a, f, ap);
  va_end(ap);
  return s;
}

/* Appends an input error at file:line (line 0 = no line); after MAX_ERRORS
 * errors only counts them. */
void load_err(loader *ld, int line, const char *f, ...) {
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
const char *load_num(loader *ld, double v) {
  char buf[32];
  rt_joint_num(buf, v);
  return arena_strdup(ld->a, buf);
}


//---- name index ---------------------------------------------------------------------

void load_index_init(arena *a, name_index *ix, int n) {
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
int load_index_find(const name_index *ix, const char *s) {
  if (!ix->cap) return -1;
  size_t i = index_slot(ix, s);
  return ix->key[i] ? ix->val[i] : -1;
}

/* Adds s -> v (s not present yet; at most cap / 2 entries). */
void load_index_add(name_index *ix, const char *s, int v) {
  size_t i = index_slot(ix, s);
  ix->key[i] = s;
  ix->val[i] = v;
}



//---- field access -----------------------------------------------------------------

tbl load_sub_table(loader *ld, int idx, int parent_line, const char *what) {
  tbl t = {ld, lua_absindex(ld->L, idx), sandbox_table_line(&ld->sb, idx), what};
  if (t.line == 0) t.line = parent_line;
  return t;
}

/* Pushes t[key] (raw: no metamethods run) and returns its type. */
int load_field(const tbl *t, const char *key) {
  lua_pushstring(t->ld->L, key);
  return lua_rawget(t->ld->L, t->idx);
}

int load_has_field(const tbl *t, const char *key) {
  int ty = load_field(t, key);
  lua_pop(t->ld->L, 1);
  return ty != LUA_TNIL;
}

const char *load_type_of(lua_State *L, int idx) { return luaL_typename(L, idx); }

/* Each get_* returns 1 if the field is present and valid, 0 if absent, -1 if
 * present and invalid (already reported). need_* also reports absence. */
int load_get_number(const tbl *t, const char *key, double *out) {
  lua_State *L = t->ld->L;
  int ty = load_field(t, key), r = 0;
  if (ty == LUA_TNUMBER) {
    double v = lua_tonumber(L, -1);
    r = isfinite(v) ? 1 : -1;
    if (r > 0)
      *out = v;
    else
      load_err(t->ld, t->line, "%s: non-finite number in '%s'", t->what, key);
  } else if (ty != LUA_TNIL) {
    load_err(t->ld, t->line, "%s: field '%s' must be a number (got %s)", t->what, key, load_type_of(L, -1));
    r = -1;
  }
  lua_pop(L, 1);
  return r;
}

void load_missing(const tbl *t, const char *key) {
  load_err(t->ld, t->line, "%s: missing required field '%s'", t->what, key);
}

int load_need_number(const tbl *t, const char *key, double *out) {
  int r = load_get_number(t, key, out);
  if (r == 0) load_missing(t, key);
  return r;
}

/* A number with an integral value in [lo, INT_MAX]. */
int load_get_int(const tbl *t, const char *key, int lo, int *out) {
  double v;
  int r = load_get_number(t, key, &v);
  if (r <= 0) return r;
  if (v != floor(v) || v < lo || v > INT_MAX) {
    load_err(t->ld, t->line, "%s: field '%s' must be an integer >= %d (got %s)", t->what, key, lo, load_num(t->ld, v));
    return -1;
  }
  *out = (int)v;
  return 1;
}

int load_get_bool(const tbl *t, const char *key, int *out) {
  lua_State *L = t->ld->L;
  int ty = load_field(t, key), r = 0;
  if (ty == LUA_TBOOLEAN) {
    *out = lua_toboolean(L, -1);
    r = 1;
  } else if (ty != LUA_TNIL) {
    load_err(t->ld, t->line, "%s: field '%s' must be a boolean (got %s)", t->what, key, load_type_of(L, -1));
    r = -1;
  }
  lua_pop(L, 1);
  return r;
}

/* A string, copied into the arena. */
int load_get_string(const tbl *t, const char *key, const char **out) {
  lua_State *L = t->ld->L;
  int ty = load_field(t, key), r = 0;
  if (ty == LUA_TSTRING) {
    size_t len;
    const char *s = lua_tolstring(L, -1, &len);
    char *c = arena_alloc(t->ld->a, len + 1);
    memcpy(c, s, len + 1);
    *out = c;
    r = strlen(c) == len ? 1 : -1; /* embedded NUL */
    if (r < 0) load_err(t->ld, t->line, "%s: field '%s' contains a NUL character", t->what, key);
  } else if (ty != LUA_TNIL) {
    load_err(t->ld, t->line, "%s: field '%s' must be a string (got %s)", t->what, key, load_type_of(L, -1));
    r = -1;
  }
  lua_pop(L, 1);
  return r;
}

int load_need_string(const tbl *t, const char *key, const char **out) {
  int r = load_get_string(t, key, out);
  if (r == 0) load_missing(t, key);
  return r;
}

/* Number of keys of the table at idx; *list = 1 if they are exactly 1..n. */
int load_count_keys(lua_State *L, int idx, int *list) {
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
int load_get_vec(const tbl *t, const char *key, int n, double *out) {
  lua_State *L = t->ld->L;
  int ty = load_field(t, key);
  if (ty == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  if (ty != LUA_TTABLE) {
    load_err(t->ld, t->line, "%s: field '%s' must be a list of %d numbers (got %s)", t->what, key, n, load_type_of(L, -1));
    lua_pop(L, 1);
    return -1;
  }
  int line = sandbox_table_line(&t->ld->sb, -1);
  if (!line) line = t->line;
  int list, k = load_count_keys(L, -1, &list);
  if (!list || k != n) {
    if (list)
      load_err(t->ld, line, "%s: field '%s' must have %d components (got %d)", t->what, key, n, k);
    else
      load_err(t->ld, line, "%s: field '%s' must be a list of %d numbers {a, b, ...} (got a table with other keys)",
          t->what, key, n);
    lua_pop(L, 1);
    return -1;
  }
  int r = 1;
  for (int i = 0; i < n && r > 0; i++) {
    if (lua_rawgeti(L, -1, i + 1) != LUA_TNUMBER) {
      load_err(t->ld, line, "%s: component %d of '%s' must be a number (got %s)", t->what, i + 1, key, load_type_of(L, -1));
      r = -1;
    } else {
      out[i] = lua_tonumber(L, -1);
      if (!isfinite(out[i])) {
        load_err(t->ld, line, "%s: non-finite number in '%s'", t->what, key);
        r = -1;
      }
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return r;
}

int load_need_vec(const tbl *t, const char *key, int n, double *out) {
  int r = load_get_vec(t, key, n, out);
  if (r == 0) load_missing(t, key);
  return r;
}

/* Line of the vector t[key] (for semantic errors about its value). */
int load_vec_line(const tbl *t, const char *key) {
  load_field(t, key);
  int line = sandbox_table_line(&t->ld->sb, -1);
  lua_pop(t->ld->L, 1);
  return line ? line : t->line;
}

static int cmp_str(const void *x, const void *y) { return strcmp(*(const char *const *)x, *(const char *const *)y); }

/* Reports every key of t that is not in allowed (NULL-terminated), sorted so
 * the diagnostics do not depend on Lua's hash order. */
void load_check_fields(const tbl *t, const char *const *allowed) {
  lua_State *L = t->ld->L;
  int list, n = load_count_keys(L, t->idx, &list), nbad = 0;
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
      bad[nbad++] = load_fmt(t->ld->a, "[%lld]", (long long)lua_tointeger(L, -1));
    } else {
      bad[nbad++] = load_fmt(t->ld->a, "[%s key]", load_type_of(L, -1));
    }
  }
  qsort(bad, (size_t)nbad, sizeof *bad, cmp_str);
  for (int i = 0; i < nbad; i++) load_err(t->ld, t->line, "%s: unknown field '%s'", t->what, bad[i]);
}

/* 1..64 characters of [A-Za-z0-9_.-]: names end up in C comments and identifiers. */
int load_valid_name(const char *s) {
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

void load_bad_name(const tbl *t, const char *kind, const char *name) {
  load_err(t->ld, t->line,
      "%s: %s name '%s' is invalid: names are 1 to %d characters of letters, digits, '_', '.' and '-'", t->what,
      kind, name, NAME_MAX_LEN);
}


void load_range_error(const tbl *t, const char *key, const char *rule, double v) {
  load_err(t->ld, t->line, "%s: field '%s' must be %s (got %s)", t->what, key, rule, load_num(t->ld, v));
}
