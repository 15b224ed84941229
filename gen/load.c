/* load.c -- the mechanism loader (see load.h and README.md): reads the table
 * a mechanism file returns into a mech; the schema of its parts is in
 * load_settings.c, load_body.c and load_cons.c.
 *
 * The chunk runs in a sandbox (sandbox.c), which also knows the line of every
 * table it built. Then:
 *   validate  walk the returned table with raw accesses only (no metamethod
 *             runs), collecting every schema error, and build the mech;
 *   check     evaluate each equality constraint's Jacobian at the initial pose
 *             and reject rank-deficient ones. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "canon.h"
#include "load_internal.h"

//---- top level --------------------------------------------------------------------

static const char *const top_fields[] = {"name", "bodies", "constraints", "settings", NULL};

/* Pushes top[key], checked to be a list of tables; returns its length or -1. */
static int open_list(const tbl *top, const char *key, int *line) {
  loader *ld = top->ld;
  lua_State *L = ld->L;
  int ty = load_field(top, key);
  if (ty != LUA_TTABLE) {
    /* a value that is not a table has no line of its own: the place in
     * the text that assigns the field, else the returned table's */
    int at = sandbox_key_line(&ld->sb, key);
    if (ty == LUA_TNIL)
      load_missing(top, key);
    else
      load_err(ld, at ? at : top->line, "%s: field '%s' must be a list of tables (got %s)", top->what, key,
               load_type_of(L, -1));
    lua_pop(L, 1);
    return -1;
  }
  *line = sandbox_table_line(&ld->sb, -1);
  if (!*line) *line = top->line;
  int list, n = load_count_keys(L, -1, &list);
  if (!list) {
    load_err(ld, *line, "%s: field '%s' must be a list {t1, t2, ...} without holes or other keys", top->what, key);
    lua_pop(L, 1);
    return -1;
  }
  if (n > MAX_ENTRIES) {
    load_err(ld, *line, "%s: too many entries in '%s' (limit is %d)", top->what, key, MAX_ENTRIES);
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
  load_check_fields(&top, top_fields);
  const char *name;
  if (load_need_string(&top, "name", &name) > 0) {
    if (load_valid_name(name))
      m->name = name;
    else
      load_bad_name(&top, "mechanism", name);
  }
  load_read_settings(&top);
  int line, n = open_list(&top, "bodies", &line);
  if (n == 0) load_err(ld, line, "%s: field 'bodies' must not be empty", top.what);
  ld->bodies_listed = n > 0;
  if (n > 0) {
    m->bodies = ARENA_ARRAY(ld->a, mech_body, n);
    load_index_init(ld->a, &ld->body_names, n);
    ld->body_ok = ARENA_ARRAY(ld->a, unsigned char, n);
    for (int i = 0; i < n; i++) {
      if (lua_rawgeti(L, -1, i + 1) == LUA_TTABLE)
        load_read_body(ld, i, line);
      else
        load_err(ld, line, "%s: bodies[%d] must be a table (got %s)", top.what, i + 1, load_type_of(L, -1));
      m->nbody = i + 1;
      lua_pop(L, 1);
    }
  }
  if (n >= 0) lua_pop(L, 1);
  if (ld->probe && ld->bodies_listed) {
    m->settings.probe = load_find_body(ld, ld->probe);
    if (m->settings.probe < 0)
      load_err(ld, ld->probe_line, "settings: field 'probe' names unknown body '%s'", ld->probe);
  }
  n = open_list(&top, "constraints", &line);
  if (n > 0) {
    m->cons = ARENA_ARRAY(ld->a, mech_constraint, n);
    load_index_init(ld->a, &ld->cons_names, n);
    ld->ref = ARENA_ARRAY(ld->a, const char *, n);
    ld->cons_ok = ARENA_ARRAY(ld->a, unsigned char, n);
    for (int i = 0; i < n; i++) {
      if (lua_rawgeti(L, -1, i + 1) == LUA_TTABLE)
        load_read_constraint(ld, i, line);
      else
        load_err(ld, line, "%s: constraints[%d] must be a table (got %s)", top.what, i + 1, load_type_of(L, -1));
      m->ncons = i + 1;
      lua_pop(L, 1);
    }
  }
  if (n >= 0) lua_pop(L, 1);
  load_check_constraints(ld);
  return 0;
}

/* Runs src in the sandbox and validates the result into ld->m. */
static gen_status run(loader *ld, const char *src, size_t len) {
  lua_State *L = ld->L;
  gen_status st = sandbox_run(&ld->sb, src, len);
  if (st != GEN_OK) return st;
  ld->m.return_line = ld->sb.ret_line;
  if (lua_type(L, -1) != LUA_TTABLE) {
    if (ld->sb.nresults == 0)
      load_err(ld, ld->sb.ret_line, "mechanism file returns nothing: it must end with `return` and a table");
    else
      load_err(ld, ld->sb.ret_line, "mechanism file must return a table (got %s)", load_type_of(L, -1));
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
static void report(void *user, int line, const char *msg) { load_err(user, line, "%s", msg); }

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
  if (st == GEN_OK) {
    canon_constraints(a, &ld.m);
    *out = ld.m;
  }
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

