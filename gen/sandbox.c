/* sandbox.c -- the Lua state a mechanism file runs in (see sandbox.h).
 *
 * The chunk runs under lua_pcall with only base/math/string/table, an
 * instruction bound (count hook) and a memory bound (a counting lua_Alloc);
 * neither can be caught by the script's pcall. Work done inside C, which the
 * count hook cannot see, is charged to the instruction bound as well: one
 * instruction per 32 bytes allocated and per element moved by
 * table.insert/remove/move/concat/unpack/sort; the backtracking pattern
 * functions (string.find/match/gmatch/gsub) are removed.
 *
 * Lines of plain tables: Lua calls the allocator with ptr == NULL and
 * osize == LUA_TTABLE exactly when it creates a table. At that moment we ask
 * lua_getinfo for the current line of the innermost running Lua function and
 * record (address -> line) in an open-addressing map; lua_topointer of the
 * table later gives the same address. Entries are removed when the block is
 * freed, so a reused address never carries a stale line. Two details make the
 * line exact:
 *  - the count hook keeps the VM's saved pc current at every instruction
 *    (luaG_traceexec stores it before each one), so lua_getinfo reports the
 *    line of OP_NEWTABLE itself. (A LUA_MASKLINE hook would not do: it does
 *    not fire again when a call returns to the same line, so in
 *    `{ a = f(), b = {} }` the table b would get f's line.)
 *  - Lua stamps OP_NEWTABLE with the line of the token *before* `{`, so in
 *        bodies = {
 *          { name = "a", ... },     <- stamped with the line above
 *    every table would be one line early. The chunk is therefore compiled
 *    from a copy in which each `{` reads `({` and each `}` reads `})`: the
 *    parentheses generate no code, keep every line break in place, and put a
 *    token on the brace's own line. The original text is compiled first, so
 *    syntax errors quote exactly what the user wrote. */
#include "sandbox.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#define HOOK_INTERVAL 1000
#define BYTES_PER_INSTRUCTION 32 /* allocation volume charged to the instruction bound */

//---- table line map ---------------------------------------------------------------

static size_t map_home(const sandbox *sb, const void *p) {
  uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 32) & (sb->map_cap - 1);
}

/* Makes room for one more entry; 0 if that would exceed the memory bound. */
static int map_reserve(sandbox *sb) {
  if (2 * (sb->map_n + 1) <= sb->map_cap) return 1;
  size_t cap = sb->map_cap ? 2 * sb->map_cap : 256;
  size_t bytes = cap * (sizeof(void *) + sizeof(int));
  size_t old = sb->map_cap * (sizeof(void *) + sizeof(int));
  if (bytes - old > sb->cfg.max_memory - sb->used) return 0;
  const void **key = calloc(cap, sizeof *key);
  int *line = calloc(cap, sizeof *line);
  if (!key || !line) {
    free(key);
    free(line);
    return 0;
  }
  const void **okey = sb->map_key;
  int *oline = sb->map_line;
  size_t ocap = sb->map_cap;
  sb->map_key = key;
  sb->map_line = line;
  sb->map_cap = cap;
  for (size_t i = 0; i < ocap; i++) {
    if (!okey[i]) continue;
    size_t j = map_home(sb, okey[i]);
    while (key[j]) j = (j + 1) & (cap - 1);
    key[j] = okey[i];
    line[j] = oline[i];
  }
  free(okey);
  free(oline);
  sb->used = sb->used - old + bytes;
  return 1;
}

static void map_put(sandbox *sb, const void *p, int line) {
  size_t i = map_home(sb, p);
  while (sb->map_key[i] && sb->map_key[i] != p) i = (i + 1) & (sb->map_cap - 1);
  if (!sb->map_key[i]) sb->map_n++;
  sb->map_key[i] = p;
  sb->map_line[i] = line;
}

static size_t map_slot(const sandbox *sb, const void *p) {
  if (!sb->map_cap) return SIZE_MAX;
  size_t i = map_home(sb, p);
  while (sb->map_key[i]) {
    if (sb->map_key[i] == p) return i;
    i = (i + 1) & (sb->map_cap - 1);
  }
  return SIZE_MAX;
}

/* Removes p (if present) by backward-shift deletion, keeping probe chains intact. */
static void map_remove(sandbox *sb, const void *p) {
  size_t i = map_slot(sb, p);
  if (i == SIZE_MAX) return;
  size_t mask = sb->map_cap - 1, j = i;
  for (;;) {
    j = (j + 1) & mask;
    if (!sb->map_key[j]) break;
    size_t k = map_home(sb, sb->map_key[j]);
    /* move j back to i unless its home lies cyclically in (i, j] */
    int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
    if (stays) continue;
    sb->map_key[i] = sb->map_key[j];
    sb->map_line[i] = sb->map_line[j];
    i = j;
  }
  sb->map_key[i] = NULL;
  sb->map_n--;
}

static void map_free(sandbox *sb) {
  free(sb->map_key);
  free(sb->map_line);
  sb->map_key = NULL;
  sb->map_line = NULL;
  sb->map_cap = sb->map_n = 0;
}

//---- bounds -----------------------------------------------------------------------

static sandbox *get_sandbox(lua_State *L) {
  void *ud;
  lua_getallocf(L, &ud);
  return ud;
}

/* Current line of the innermost Lua function on the stack, or 0. */
static int running_line(lua_State *L) {
  lua_Debug ar;
  for (int level = 0; lua_getstack(L, level, &ar); level++)
    if (lua_getinfo(L, "l", &ar) && ar.currentline > 0) return ar.currentline;
  return 0;
}

/* Adds units to the instruction count; 0 (and the bound marked as reached,
 * at the running line) if that exceeds it. The count hook sees only VM
 * instructions, so work done inside C -- building long strings, moving table
 * elements -- is charged here too. */
static int charge(sandbox *sb, long long units) {
  if (!sb->instr_hit && units < sb->cfg.max_instructions - sb->count) {
    sb->count += units;
    return 1;
  }
  if (!sb->instr_hit) {
    sb->instr_hit = 1;
    sb->instr_line = running_line(sb->L);
  }
  return 0;
}

/* A refused allocation: remembers the chunk line that asked for it (the last
 * refusal is the one that raises the memory error; Lua retries after a
 * collection, so an earlier one may have passed). */
static void *refuse(sandbox *sb) {
  if (sb->running && sb->L) sb->mem_line = running_line(sb->L);
  return NULL;
}

/* Counting allocator: refuses to grow past max_memory, records table lines. */
static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  sandbox *sb = ud;
  size_t old = ptr ? osize : 0;
  if (nsize == 0) {
    if (ptr) {
      map_remove(sb, ptr);
      free(ptr);
      sb->used -= old;
    }
    return NULL;
  }
  /* grow the map first: the limit check below must see its bytes, or
   * max_memory - used could wrap around */
  int is_table = ptr == NULL && osize == LUA_TTABLE;
  if (is_table && !map_reserve(sb)) return refuse(sb);
  if (nsize > old && nsize - old > sb->cfg.max_memory - sb->used) return refuse(sb);
  if (sb->running && nsize > old && !charge(sb, (long long)((nsize - old) / BYTES_PER_INSTRUCTION))) return NULL;
  void *p = realloc(ptr, nsize);
  if (!p) return NULL;
  sb->used = sb->used - old + nsize;
  if (is_table) map_put(sb, p, sb->L ? running_line(sb->L) : 0);
  return p;
}

/* Count events charge the bound; return events of the chunk itself (the
 * only function with no caller on the stack) record its return line. */
static void count_hook(lua_State *L, lua_Debug *ar) {
  if (ar->event == LUA_HOOKRET) {
    lua_Debug caller;
    if (!lua_getstack(L, 1, &caller) && lua_getinfo(L, "l", ar) && ar->currentline > 0)
      get_sandbox(L)->ret_line = ar->currentline;
    return;
  }
  if (ar->event != LUA_HOOKCOUNT || charge(get_sandbox(L), get_sandbox(L)->interval)) return;
  lua_pushliteral(L, "instruction limit");
  lua_error(L);
}

//---- restricted libraries ---------------------------------------------------------

/* The sandbox's bounds are final: pcall and xpcall re-raise them. */
static int fatal_pending(lua_State *L, int status) {
  sandbox *sb = get_sandbox(L);
  if (status == LUA_ERRMEM) sb->mem_hit = 1;
  return sb->instr_hit || sb->mem_hit;
}

static int safe_pcall(lua_State *L) {
  luaL_checkany(L, 1);
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  int status = lua_pcall(L, lua_gettop(L) - 2, LUA_MULTRET, 0);
  if (status == LUA_OK) return lua_gettop(L);
  if (fatal_pending(L, status)) return lua_error(L);
  lua_pushboolean(L, 0);
  lua_pushvalue(L, -2);
  return 2;
}

static int safe_xpcall(lua_State *L) {
  int n = lua_gettop(L);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_pushboolean(L, 1);
  lua_pushvalue(L, 1);
  lua_rotate(L, 3, 2); /* f, msgh, true, f, args... */
  int status = lua_pcall(L, n - 2, LUA_MULTRET, 2);
  if (status == LUA_OK) return lua_gettop(L) - 2;
  if (fatal_pending(L, status)) return lua_error(L);
  lua_pushboolean(L, 0);
  lua_pushvalue(L, -2);
  return 2;
}

/* Table functions whose C loops grow with the table: each is charged one
 * instruction per element it moves, copies or compares, before it runs. */
enum { CH_INSERT, CH_REMOVE, CH_MOVE, CH_CONCAT, CH_UNPACK, CH_SORT };
static const char *const charged_names[] = {"insert", "remove", "move", "concat", "unpack", "sort"};

/* Elements in [from, to], saturating. */
static long long span(lua_Integer from, lua_Integer to) {
  if (to < from) return 0;
  lua_Unsigned n = (lua_Unsigned)to - (lua_Unsigned)from;
  return n >= (lua_Unsigned)LLONG_MAX ? LLONG_MAX : (long long)n + 1;
}

static lua_Integer opt_int(lua_State *L, int idx, lua_Integer def) {
  return lua_isinteger(L, idx) ? lua_tointeger(L, idx) : def;
}

static int charged_call(lua_State *L) {
  int kind = (int)lua_tointeger(L, lua_upvalueindex(2)), n = lua_gettop(L);
  long long units = 0;
  if (lua_type(L, 1) == LUA_TTABLE) {
    lua_Integer len = luaL_len(L, 1); /* what the function itself will use */
    switch (kind) {
    case CH_INSERT:
      /* len + 1 wraps as Lua's own integers do: __len may return the maximum */
      if (n >= 3) units = span(opt_int(L, 2, (lua_Integer)((lua_Unsigned)len + 1)), len);
      break;
    case CH_REMOVE:
      if (n >= 2) units = span(opt_int(L, 2, len), len);
      break;
    case CH_MOVE:
      units = span(opt_int(L, 2, 1), opt_int(L, 3, 0));
      break;
    case CH_CONCAT:
      units = span(opt_int(L, 3, 1), opt_int(L, 4, len));
      break;
    case CH_UNPACK:
      units = span(opt_int(L, 2, 1), opt_int(L, 3, len));
      break;
    case CH_SORT: { /* len log2 len, saturating: __len may return any integer */
      double u = len > 1 ? (double)len * log2((double)len) : 0.0;
      units = u >= (double)LLONG_MAX ? LLONG_MAX : (long long)u;
      break;
    }
    }
  }
  if (!charge(get_sandbox(L), units)) {
    lua_pushliteral(L, "instruction limit");
    return lua_error(L);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, n, LUA_MULTRET);
  return lua_gettop(L);
}

/* print writes to stderr: stdout carries ldlgen's JSON. */
static int print_stderr(lua_State *L) {
  int n = lua_gettop(L);
  for (int i = 1; i <= n; i++) {
    size_t len;
    const char *s = luaL_tolstring(L, i, &len);
    if (i > 1) fputc('\t', stderr);
    fwrite(s, 1, len, stderr);
    lua_pop(L, 1);
  }
  fputc('\n', stderr);
  fflush(stderr);
  return 0;
}

/* Finalizers run with hooks disabled (and again in lua_close), so a __gc
 * metamethod could loop forever: refuse metatables that have one. Lua only
 * marks an object for finalization if __gc is present at setmetatable time. */
static int safe_setmetatable(lua_State *L) {
  if (lua_type(L, 2) == LUA_TTABLE) {
    lua_pushliteral(L, "__gc");
    if (lua_rawget(L, 2) != LUA_TNIL) return luaL_error(L, "__gc metamethods are not allowed in mechanism files");
    lua_pop(L, 1);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

/* Opens the allowed libraries and removes or replaces the unsafe functions. */
static int open_libs(lua_State *L) {
  luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
  luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
  luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
  luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
  lua_settop(L, 0);
  lua_pushglobaltable(L);
  static const char *const removed[] = {"dofile", "loadfile", "load", "require", "collectgarbage"};
  for (size_t i = 0; i < sizeof removed / sizeof removed[0]; i++) {
    lua_pushnil(L);
    lua_setfield(L, 1, removed[i]);
  }
  lua_pushcfunction(L, print_stderr);
  lua_setfield(L, 1, "print");
  lua_pushcfunction(L, safe_pcall);
  lua_setfield(L, 1, "pcall");
  lua_pushcfunction(L, safe_xpcall);
  lua_setfield(L, 1, "xpcall");
  lua_getfield(L, 1, "setmetatable");
  lua_pushcclosure(L, safe_setmetatable, 1);
  lua_setfield(L, 1, "setmetatable");
  /* string.dump makes binary chunks; the pattern functions backtrack in C,
   * where the instruction bound cannot stop them (a 26-character subject
   * can take minutes) */
  static const char *const string_removed[] = {"dump", "find", "match", "gmatch", "gsub"};
  lua_getfield(L, 1, LUA_STRLIBNAME);
  for (size_t i = 0; i < sizeof string_removed / sizeof string_removed[0]; i++) {
    lua_pushnil(L);
    lua_setfield(L, -2, string_removed[i]);
  }
  lua_pop(L, 1);
  lua_getfield(L, 1, LUA_TABLIBNAME);
  for (int k = 0; k < (int)(sizeof charged_names / sizeof charged_names[0]); k++) {
    lua_getfield(L, -1, charged_names[k]);
    lua_pushinteger(L, k);
    lua_pushcclosure(L, charged_call, 2);
    lua_setfield(L, -2, charged_names[k]);
  }
  lua_pop(L, 1);
  /* math.random is seeded from the clock; a fixed seed keeps loads reproducible */
  lua_getfield(L, 1, LUA_MATHLIBNAME);
  lua_getfield(L, -1, "randomseed");
  lua_pushinteger(L, 0);
  lua_call(L, 1, 0);
  lua_settop(L, 0);
  return 0;
}

//---- chunk ------------------------------------------------------------------------

/* Message handler: keeps string messages, names other error objects, and
 * records the chunk line in case the message carries no position. */
static int msgh(lua_State *L) {
  get_sandbox(L)->err_line = running_line(L);
  if (lua_type(L, 1) != LUA_TSTRING) lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  return 1;
}

/* Splits "<chunkid>:LINE: msg" as Lua formats positions (luaO_chunkid keeps
 * only the tail of long file names). Returns msg and sets *line, or returns
 * the whole message and leaves *line alone. */
static const char *split_position(const char *path, const char *msg, int *line) {
  char id[LUA_IDSIZE + 4];
  size_t len = strlen(path);
  if (len + 1 <= LUA_IDSIZE)
    snprintf(id, sizeof id, "%s", path);
  else
    snprintf(id, sizeof id, "...%s", path + len - (LUA_IDSIZE - 4));
  size_t idlen = strlen(id);
  if (strncmp(msg, id, idlen) != 0 || msg[idlen] != ':') return msg;
  const char *p = msg + idlen + 1;
  long v = 0;
  if (*p < '0' || *p > '9') return msg;
  while (*p >= '0' && *p <= '9' && v < INT_MAX / 10) v = v * 10 + (*p++ - '0');
  if (*p != ':') return msg;
  *line = (int)v;
  return p[1] == ' ' ? p + 2 : p + 1;
}

/* If s starts a long bracket [[ or [==[, its length and level ('=' count). */
static size_t long_bracket(const char *s, const char *end, int *level) {
  const char *p = s + 1;
  if (*s != '[') return 0;
  while (p < end && *p == '=') p++;
  if (p >= end || *p != '[') return 0;
  *level = (int)(p - s - 1);
  return (size_t)(p - s + 1);
}

/* If p is at a line break (\n, \r, or either pair, as Lua counts them),
 * moves past it and returns 1. */
static int line_break(const char **p, const char *end) {
  char c = **p;
  if (c != '\n' && c != '\r') return 0;
  (*p)++;
  if (*p < end && (**p == '\n' || **p == '\r') && **p != c) (*p)++;
  return 1;
}

/* Past the closing bracket of a long string or comment body at p. */
static const char *skip_long(const char *p, const char *end, int level, int *line) {
  while (p < end) {
    if (line_break(&p, end)) {
      (*line)++;
      continue;
    }
    if (*p == ']') {
      const char *q = p + 1;
      while (q < end && *q == '=') q++;
      if (q < end && *q == ']' && q - p - 1 == level) return q + 1;
    }
    p++;
  }
  return p;
}

/* Offsets of the brace tokens of src, outside strings and comments (in
 * Lua, braces only delimit table constructors). malloc'd; NULL if out of
 * memory. */
static size_t *find_braces(const char *src, size_t len, size_t *count) {
  size_t cap = 64, n = 0;
  size_t *at = malloc(sizeof *at * cap);
  const char *p = src, *end = src + len;
  int level, lines = 0;
  size_t k;
  while (at && p < end) {
    char c = *p;
    if (c == '-' && p + 1 < end && p[1] == '-') {
      p += 2;
      if ((k = long_bracket(p, end, &level)) > 0)
        p = skip_long(p + k, end, level, &lines);
      else /* a line comment ends at any line break Lua knows: \n or \r */
        while (p < end && *p != '\n' && *p != '\r') p++;
    } else if (c == '[' && (k = long_bracket(p, end, &level)) > 0) {
      p = skip_long(p + k, end, level, &lines);
    } else if (c == '"' || c == '\'') {
      p++;
      while (p < end && *p != c) p += *p == '\\' && p + 1 < end ? 2 : 1;
      if (p < end) p++;
    } else {
      if (c == '{' || c == '}') {
        if (n == cap) {
          size_t *more = realloc(at, sizeof *at * (cap *= 2));
          if (!more) free(at);
          at = more;
          if (!at) break;
        }
        at[n++] = (size_t)(p - src);
      }
      p++;
    }
  }
  *count = n;
  return at;
}

/* The copy of a chunk that compiles with exact table lines (see the top of
 * this file): a `{` token becomes `({` and its `}` becomes `})`; strings and
 * comments are copied untouched. Each pair of parentheses costs the parser
 * a nesting level, and Lua allows about 200: constructors that nest deeper
 * than WRAP_MAX_DEPTH are left as written (every `{` on such a path: their
 * tables' lines are those of the token before), so that what compiles as
 * written compiles wrapped. src must be valid Lua. Returns a malloc'd
 * buffer (NULL if out of memory). */
enum { WRAP_MAX_DEPTH = 90 };
static char *wrap_constructors(const char *src, size_t len, size_t *outlen) {
  size_t nb;
  size_t *at = find_braces(src, len, &nb);
  /* deepest level inside each constructor, through a stack of open ones */
  int *deep = malloc(sizeof *deep * (nb + 1)), *open = malloc(sizeof *open * (nb + 1));
  char *buf = malloc(2 * len + 1), *out = buf;
  if (!at || !deep || !open || !buf) {
    free(at);
    free(deep);
    free(open);
    free(buf);
    return NULL;
  }
  int top = 0;
  for (size_t i = 0; i < nb; i++) {
    if (src[at[i]] == '{') {
      deep[i] = top + 1;
      open[top++] = (int)i;
    } else if (top > 0) {
      int o = open[--top];
      deep[i] = o; /* a closing brace: the index of its opening one */
      if (top > 0 && deep[o] > deep[open[top - 1]]) deep[open[top - 1]] = deep[o];
    } else {
      deep[i] = -1;
    }
  }
  size_t from = 0;
  for (size_t i = 0; i < nb; i++) {
    memcpy(out, src + from, at[i] - from);
    out += at[i] - from;
    if (src[at[i]] == '{') {
      int wrap = deep[i] <= WRAP_MAX_DEPTH;
      if (wrap) *out++ = '(';
      *out++ = '{';
    } else {
      *out++ = '}';
      if (deep[i] >= 0 && deep[deep[i]] <= WRAP_MAX_DEPTH) *out++ = ')';
    }
    from = at[i] + 1;
  }
  memcpy(out, src + from, len - from);
  out += len - from;
  free(at);
  free(deep);
  free(open);
  *outlen = (size_t)(out - buf);
  return buf;
}

/* Moves p past a run of blanks and line breaks, counting the breaks. */
static const char *skip_blank(const char *p, const char *end, int *line) {
  while (p < end) {
    if (line_break(&p, end))
      (*line)++;
    else if (*p == ' ' || *p == '\t' || *p == '\f' || *p == '\v')
      p++;
    else
      break;
  }
  return p;
}

/* 1 if p (after blanks) is `=` but not `==`. */
static int assigns(const char *p, const char *end) {
  int ignored = 0;
  p = skip_blank(p, end, &ignored);
  return p < end && *p == '=' && (p + 1 >= end || p[1] != '=');
}

static int ident_char(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

int sandbox_key_line(const sandbox *sb, const char *key) {
  if (!sb->src) return 0;
  const char *p = sb->src, *end = p + sb->len;
  size_t klen = strlen(key);
  int line = 1, found = 0, level;
  char prev = 0; /* the last significant character: what a key follows */
  size_t n;
  while (p < end) {
    char c = *p;
    if (line_break(&p, end)) {
      line++;
    } else if (c == '-' && p + 1 < end && p[1] == '-') {
      p += 2;
      if ((n = long_bracket(p, end, &level)) > 0) {
        p = skip_long(p + n, end, level, &line);
      } else {
        while (p < end && *p != '\n' && *p != '\r') p++;
      }
    } else if (c == '[' && (n = long_bracket(p, end, &level)) > 0) {
      p = skip_long(p + n, end, level, &line);
      prev = '"';
    } else if (c == '"' || c == '\'') {
      const char *start = ++p;
      int at = line;
      while (p < end && *p != c) {
        if (*p == '\\' && p + 1 < end) p++;
        if (!line_break(&p, end))
          p++;
        else
          line++;
      }
      size_t slen = (size_t)(p - start);
      if (p < end) p++;
      if (prev == '[' && slen == klen && memcmp(start, key, klen) == 0) {
        int ignored = 0;
        const char *q = skip_blank(p, end, &ignored);
        if (q < end && *q == ']' && assigns(q + 1, end)) found = at;
      }
      prev = '"';
    } else if (ident_char(c) && !(c >= '0' && c <= '9')) {
      const char *start = p;
      while (p < end && ident_char(*p)) p++;
      if ((size_t)(p - start) == klen && memcmp(start, key, klen) == 0 &&
          (prev == '{' || prev == ',' || prev == ';' || prev == '.') && assigns(p, end))
        found = line;
      prev = 'a';
    } else {
      if (c != ' ' && c != '\t' && c != '\f' && c != '\v') prev = c;
      p++;
    }
  }
  return found;
}

/* Reports a message at a chunk line (0 = no line) through the owner. */
static void report(sandbox *sb, int line, const char *msg) { sb->cfg.report(sb->cfg.user, line, msg); }

static gen_status report_memory_limit(sandbox *sb) {
  char buf[96];
  snprintf(buf, sizeof buf, "mechanism exceeds the memory limit of %zu bytes", sb->cfg.max_memory);
  report(sb, sb->mem_line, buf);
  return GEN_ERR_LIMIT;
}

/* Turns a failed lua_pcall or load (message on the stack top) into a diagnostic. */
static gen_status report_error(sandbox *sb, int status) {
  if (sb->instr_hit) {
    char buf[96];
    snprintf(buf, sizeof buf, "mechanism did not finish within %lld instructions (infinite loop?)",
             sb->cfg.max_instructions);
    report(sb, sb->instr_line, buf);
    return GEN_ERR_LIMIT;
  }
  if (status == LUA_ERRMEM || sb->mem_hit) return report_memory_limit(sb);
  const char *msg = lua_type(sb->L, -1) == LUA_TSTRING ? lua_tostring(sb->L, -1) : "(error object is not a string)";
  int line = sb->err_line;
  msg = split_position(sb->cfg.file, msg, &line);
  report(sb, line, msg);
  return GEN_ERR_INPUT;
}

//---- public -----------------------------------------------------------------------

gen_status sandbox_open(sandbox *sb, const sandbox_config *cfg) {
  memset(sb, 0, sizeof *sb);
  sb->cfg = *cfg;
  lua_State *L = lua_newstate(counting_alloc, sb);
  if (!L) return report_memory_limit(sb);
  sb->L = L;
  lua_pushcfunction(L, open_libs);
  int st = lua_pcall(L, 0, 0, 0);
  return st == LUA_OK ? GEN_OK : report_error(sb, st);
}

gen_status sandbox_run(sandbox *sb, const char *src, size_t len) {
  lua_State *L = sb->L;
  sb->src = src;
  sb->len = len;
  lua_pushcfunction(L, msgh);
  size_t nlen = strlen(sb->cfg.file) + 2;
  char *chunkname = arena_alloc(sb->cfg.a, nlen);
  snprintf(chunkname, nlen, "@%s", sb->cfg.file);
  int st = luaL_loadbufferx(L, src, len, chunkname, "t");
  if (st != LUA_OK) return report_error(sb, st);
  size_t wlen;
  char *wrapped = wrap_constructors(src, len, &wlen);
  if (!wrapped) {
    report(sb, 0, "out of memory preparing the mechanism");
    return GEN_ERR_LIMIT;
  }
  /* The parentheses cost the parser a nesting level each: constructors
   * nested about 100 deep or more compile as written ("C stack overflow")
   * but not wrapped. The chunk as written (on the stack) then runs, its
   * tables' lines at the token before each `{`: the rewrite only sharpens
   * lines, and what compiles as written must run. A memory error stands. */
  int wst = luaL_loadbufferx(L, wrapped, wlen, chunkname, "t");
  free(wrapped);
  if (wst == LUA_OK)
    lua_remove(L, -2);
  else if (wst == LUA_ERRMEM)
    return report_error(sb, wst);
  else
    lua_pop(L, 1);
  long long max = sb->cfg.max_instructions;
  sb->interval = max < HOOK_INTERVAL ? (int)(max > 0 ? max : 1) : HOOK_INTERVAL;
  int base = lua_gettop(L) - 2; /* below msgh and the chunk */
  lua_sethook(L, count_hook, LUA_MASKCOUNT | LUA_MASKRET, sb->interval);
  sb->running = 1;
  st = lua_pcall(L, 0, LUA_MULTRET, base + 1);
  sb->running = 0;
  lua_sethook(L, NULL, 0, 0);
  if (st != LUA_OK || sb->instr_hit || sb->mem_hit) return report_error(sb, st);
  sb->nresults = lua_gettop(L) - base - 1;
  if (sb->nresults == 0) lua_pushnil(L);
  lua_settop(L, base + 2); /* msgh, first result */
  return GEN_OK;
}

gen_status sandbox_call(sandbox *sb, lua_CFunction f, int nargs) {
  lua_pushcfunction(sb->L, f);
  lua_insert(sb->L, -(nargs + 1));
  int st = lua_pcall(sb->L, nargs, 0, 0);
  return st == LUA_OK ? GEN_OK : report_error(sb, st);
}

void *sandbox_user(lua_State *L) { return get_sandbox(L)->cfg.user; }

int sandbox_table_line(const sandbox *sb, int idx) {
  if (lua_type(sb->L, idx) != LUA_TTABLE) return 0;
  size_t i = map_slot(sb, lua_topointer(sb->L, idx));
  return i == SIZE_MAX ? 0 : sb->map_line[i];
}

void sandbox_close(sandbox *sb) {
  if (sb->L) lua_close(sb->L);
  sb->L = NULL;
  map_free(sb);
}
