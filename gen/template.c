/* template.c -- see template.h. */
#include "template.h"

#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdlib.h>
#include <string.h>

#define EXPANDER "expand.lua"

typedef struct job {
  const char *dir;
  tpl_build_fn build;
  void *ud;
  int n;
  const char *const *names;
  tpl_text *out;
} job;

const tpl_source *tpl_find_embedded(const char *name) {
  for (const tpl_source *s = tpl_embedded; s->name; s++)
    if (strcmp(s->name, name) == 0) return s;
  return NULL;
}

void tpl_text_free(tpl_text *t) {
  free(t->text);
  t->text = NULL;
  t->len = 0;
}

/* source(name) -> text, chunkname | nil, message. Upvalue 1: the template
 * directory (a string), or nil for the built-in copies. Names are plain
 * file names: no directory parts. */
static int source(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  const char *dir = lua_tostring(L, lua_upvalueindex(1));
  if (name[0] == '\0' || strchr(name, '/') || strcmp(name, "..") == 0) {
    lua_pushnil(L);
    lua_pushfstring(L, "bad template name '%s' (a file name in the template directory)", name);
    return 2;
  }
  if (!dir) {
    const tpl_source *s = tpl_find_embedded(name);
    if (!s) {
      lua_pushnil(L);
      lua_pushfstring(L, "no template '%s' is built into ldlgen", name);
      return 2;
    }
    lua_pushlstring(L, s->text, (size_t)s->size);
    lua_pushfstring(L, "templates/%s", name);
    return 2;
  }
  size_t dlen = strlen(dir);
  const char *path = lua_pushfstring(L, "%s%s%s", dir, dlen > 0 && dir[dlen - 1] == '/' ? "" : "/", name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: cannot read template: %s", path, strerror(errno));
    return 2;
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  char chunk[4096];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) luaL_addlstring(&b, chunk, got);
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: read error", path);
    return 2;
  }
  luaL_pushresult(&b);
  lua_pushvalue(L, -2); /* the path is the chunk name */
  return 2;
}

/* Base library without file access or printing, string, table, math. */
static void open_libs(lua_State *L) {
  luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
  luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
  luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
  luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
  lua_pop(L, 4);
  static const char *const removed[] = {"dofile", "loadfile", "print", "collectgarbage"};
  for (size_t i = 0; i < sizeof removed / sizeof removed[0]; i++) {
    lua_pushnil(L);
    lua_setglobal(L, removed[i]);
  }
}

/* The protected part: load the expander, build the data, render. */
static int run(lua_State *L) {
  job *j = lua_touserdata(L, 1);
  open_libs(L);
  if (j->dir)
    lua_pushstring(L, j->dir);
  else
    lua_pushnil(L);
  lua_pushcclosure(L, source, 1);
  int src = lua_gettop(L);

  /* expand.lua, through the same source function as the templates */
  lua_pushvalue(L, src);
  lua_pushstring(L, EXPANDER);
  lua_call(L, 1, 2);
  if (lua_isnil(L, -2)) return lua_error(L); /* the message */
  size_t len;
  const char *text = lua_tolstring(L, -2, &len);
  const char *chunk = lua_pushfstring(L, "=%s", lua_tostring(L, -1));
  if (luaL_loadbufferx(L, text, len, chunk, "t") != LUA_OK) return lua_error(L);
  lua_call(L, 0, 1);
  if (!lua_istable(L, -1)) return luaL_error(L, "%s must return a table", EXPANDER);
  lua_getfield(L, -1, "renderer");
  lua_pushvalue(L, src);
  j->build(L, j->ud);
  lua_call(L, 2, 1); /* render = renderer(source, data) */
  int render = lua_gettop(L);

  for (int i = 0; i < j->n; i++) {
    lua_pushvalue(L, render);
    lua_pushstring(L, j->names[i]);
    lua_call(L, 1, 1);
    const char *s = luaL_checklstring(L, -1, &len);
    char *copy = malloc(len + 1);
    if (!copy) return luaL_error(L, "out of memory");
    memcpy(copy, s, len + 1);
    j->out[i].text = copy;
    j->out[i].len = len;
    lua_pop(L, 1);
  }
  return 0;
}

static int msgh(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  luaL_traceback(L, L, msg, 1);
  return 1;
}

/* 1 if s[0..n) contains the string w. */
static int contains(const char *s, size_t n, const char *w) {
  size_t m = strlen(w);
  for (size_t i = 0; i + m <= n; i++)
    if (memcmp(s + i, w, m) == 0) return 1;
  return 0;
}

/* Length of "name:123" at the start of s if s starts with "name:123:", else
 * 0; *line receives the number. */
static size_t location(const char *s, size_t n, int *line) {
  for (size_t i = 0; i < n; i++) {
    if (s[i] != ':' || i == 0) continue;
    size_t k = i + 1;
    int v = 0;
    while (k < n && s[k] >= '0' && s[k] <= '9' && v < 100000000) v = v * 10 + (s[k++] - '0');
    if (k > i + 1 && k < n && s[k] == ':') {
      *line = v;
      return i;
    }
  }
  return 0;
}

/* "file:line: message\nstack traceback:\n\tfile:line: in ..." -> a
 * diagnostic at file:line, with one "note" line for every other template
 * frame of the traceback (the includes that led there). */
static void report(diag_list *d, const char *msg) {
  const char *tb = strstr(msg, "\nstack traceback:");
  size_t head = tb ? (size_t)(tb - msg) : strlen(msg);
  int line = 0;
  size_t flen = location(msg, head, &line);
  char *file = NULL;
  const char *text = msg;
  if (flen > 0) {
    file = malloc(flen + 1);
    if (file) {
      memcpy(file, msg, flen);
      file[flen] = '\0';
    }
    text = strchr(msg + flen + 1, ':') + 1;
    while (*text == ' ') text++;
  }
  size_t cap = head + 1 + (tb ? strlen(tb) * 2 : 0) + 64;
  char *buf = malloc(cap);
  if (!buf) {
    diag_error(d, file, line, "%s", "template error (out of memory formatting it)");
    free(file);
    return;
  }
  size_t n = (size_t)(msg + head - text);
  memcpy(buf, text, n);
  buf[n] = '\0';
  int first = 1, expander_error = file && strstr(file, EXPANDER) != NULL;
  for (const char *p = tb ? strchr(tb + 1, '\n') : NULL; p; p = strchr(p + 1, '\n')) {
    const char *f = p + 1;
    while (*f == '\t' || *f == ' ') f++;
    const char *end = strchr(f, '\n');
    size_t fl = end ? (size_t)(end - f) : strlen(f);
    int fline;
    size_t loc = location(f, fl, &fline);
    if (loc == 0 || (!expander_error && contains(f, loc, EXPANDER))) continue;
    if (first && file && loc == strlen(file) && memcmp(f, file, loc) == 0 && fline == line) {
      first = 0; /* the error location itself */
      continue;
    }
    first = 0;
    size_t used = strlen(buf);
    snprintf(buf + used, cap - used, "\n%.*s:%d: note: called from here", (int)loc, f, fline);
  }
  diag_error(d, file, line, "%s", buf);
  free(buf);
  free(file);
}

gen_status tpl_render(const char *dir, tpl_build_fn build, void *ud, int n, const char *const *names, tpl_text *out,
                      diag_list *d) {
  for (int i = 0; i < n; i++) out[i] = (tpl_text){0};
  lua_State *L = luaL_newstate();
  if (!L) {
    diag_error(d, NULL, 0, "cannot create a Lua state for the templates (out of memory)");
    return GEN_ERR_IO;
  }
  job j = {dir, build, ud, n, names, out};
  lua_pushcfunction(L, msgh);
  lua_pushcfunction(L, run);
  lua_pushlightuserdata(L, &j);
  gen_status st = GEN_OK;
  if (lua_pcall(L, 1, 0, 1) != LUA_OK) {
    report(d, lua_tostring(L, -1) ? lua_tostring(L, -1) : "template error");
    for (int i = 0; i < n; i++) tpl_text_free(&out[i]);
    st = GEN_ERR_INPUT;
  }
  lua_close(L);
  return st;
}
