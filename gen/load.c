/* load.c -- the sandboxed mechanism loader (see load.h and README.md for the
 * schema).
 *
 * One fresh lua_State per load, in three steps:
 *   run       the chunk under lua_pcall, with only base/math/string/table,
 *             an instruction bound (count hook) and a memory bound (a counting
 *             lua_Alloc); neither can be caught by the script's pcall. Work
 *             done inside C, which the count hook cannot see, is charged to
 *             the instruction bound as well: one instruction per 32 bytes
 *             allocated and per element moved by table.insert/remove/move/
 *             concat/unpack/sort; the backtracking pattern functions
 *             (string.find/match/gmatch/gsub) are removed;
 *   validate  walk the returned table with raw accesses only (no metamethod
 *             runs), collecting every schema error, and build the mech;
 *   check     evaluate each equality constraint's Jacobian at the initial pose
 *             and reject rank-deficient ones.
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
#include <lualib.h>

#define NAME_MAX_LEN 64
#define HOOK_INTERVAL 1000
#define BYTES_PER_INSTRUCTION 32 /* allocation volume charged to the instruction bound */
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
  /* sandbox bounds */
  size_t used, max_memory;         /* bytes of Lua heap plus the line map */
  long long count, max_instructions;
  int interval;                    /* count hook period */
  int instr_hit, instr_line;       /* instruction bound reached, and where */
  int running;                     /* the chunk runs: allocations are charged */
  int mem_hit;                     /* a memory error was caught by the script */
  int err_line;                    /* innermost chunk line when an error was raised */
  /* table address -> line of construction */
  const void **map_key;
  int *map_line;
  size_t map_cap, map_n;
  /* output */
  lua_State *L;
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

//---- table line map -------------------------------------------------------------

static size_t map_home(const loader *ld, const void *p) {
  uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 32) & (ld->map_cap - 1);
}

/* Makes room for one more entry; 0 if that would exceed the memory bound. */
static int map_reserve(loader *ld) {
  if (2 * (ld->map_n + 1) <= ld->map_cap) return 1;
  size_t cap = ld->map_cap ? 2 * ld->map_cap : 256;
  size_t bytes = cap * (sizeof(void *) + sizeof(int));
  size_t old = ld->map_cap * (sizeof(void *) + sizeof(int));
  if (bytes - old > ld->max_memory - ld->used) return 0;
  const void **key = calloc(cap, sizeof *key);
  int *line = calloc(cap, sizeof *line);
  if (!key || !line) {
    free(key);
    free(line);
    return 0;
  }
  const void **okey = ld->map_key;
  int *oline = ld->map_line;
  size_t ocap = ld->map_cap;
  ld->map_key = key;
  ld->map_line = line;
  ld->map_cap = cap;
  for (size_t i = 0; i < ocap; i++) {
    if (!okey[i]) continue;
    size_t j = map_home(ld, okey[i]);
    while (key[j]) j = (j + 1) & (cap - 1);
    key[j] = okey[i];
    line[j] = oline[i];
  }
  free(okey);
  free(oline);
  ld->used = ld->used - old + bytes;
  return 1;
}

static void map_put(loader *ld, const void *p, int line) {
  size_t i = map_home(ld, p);
  while (ld->map_key[i] && ld->map_key[i] != p) i = (i + 1) & (ld->map_cap - 1);
  if (!ld->map_key[i]) ld->map_n++;
  ld->map_key[i] = p;
  ld->map_line[i] = line;
}

static size_t map_slot(const loader *ld, const void *p) {
  if (!ld->map_cap) return SIZE_MAX;
  size_t i = map_home(ld, p);
  while (ld->map_key[i]) {
    if (ld->map_key[i] == p) return i;
    i = (i + 1) & (ld->map_cap - 1);
  }
  return SIZE_MAX;
}

/* Removes p (if present) by backward-shift deletion, keeping probe chains intact. */
static void map_remove(loader *ld, const void *p) {
  size_t i = map_slot(ld, p);
  if (i == SIZE_MAX) return;
  size_t mask = ld->map_cap - 1, j = i;
  for (;;) {
    j = (j + 1) & mask;
    if (!ld->map_key[j]) break;
    size_t k = map_home(ld, ld->map_key[j]);
    /* move j back to i unless its home lies cyclically in (i, j] */
    int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
    if (stays) continue;
    ld->map_key[i] = ld->map_key[j];
    ld->map_line[i] = ld->map_line[j];
    i = j;
  }
  ld->map_key[i] = NULL;
  ld->map_n--;
}

static void map_free(loader *ld) {
  free(ld->map_key);
  free(ld->map_line);
  ld->map_key = NULL;
  ld->map_line = NULL;
  ld->map_cap = ld->map_n = 0;
}

/* Line where the table at idx was constructed, or 0 (not a table, unknown). */
static int line_of(loader *ld, int idx) {
  if (lua_type(ld->L, idx) != LUA_TTABLE) return 0;
  size_t i = map_slot(ld, lua_topointer(ld->L, idx));
  return i == SIZE_MAX ? 0 : ld->map_line[i];
}

//---- sandbox ----------------------------------------------------------------------

static loader *get_loader(lua_State *L) {
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
static int charge(loader *ld, long long units) {
  if (!ld->instr_hit && units < ld->max_instructions - ld->count) {
    ld->count += units;
    return 1;
  }
  if (!ld->instr_hit) {
    ld->instr_hit = 1;
    ld->instr_line = running_line(ld->L);
  }
  return 0;
}

/* Counting allocator: refuses to grow past max_memory, records table lines. */
static void *sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  loader *ld = ud;
  size_t old = ptr ? osize : 0;
  if (nsize == 0) {
    if (ptr) {
      map_remove(ld, ptr);
      free(ptr);
      ld->used -= old;
    }
    return NULL;
  }
  /* grow the map first: the limit check below must see its bytes, or
   * max_memory - used could wrap around */
  int is_table = ptr == NULL && osize == LUA_TTABLE;
  if (is_table && !map_reserve(ld)) return NULL;
  if (nsize > old && nsize - old > ld->max_memory - ld->used) return NULL;
  if (ld->running && nsize > old && !charge(ld, (long long)((nsize - old) / BYTES_PER_INSTRUCTION))) return NULL;
  void *p = realloc(ptr, nsize);
  if (!p) return NULL;
  ld->used = ld->used - old + nsize;
  if (is_table) map_put(ld, p, ld->L ? running_line(ld->L) : 0);
  return p;
}

static void sandbox_hook(lua_State *L, lua_Debug *ar) {
  if (ar->event != LUA_HOOKCOUNT || charge(get_loader(L), get_loader(L)->interval)) return;
  lua_pushliteral(L, "instruction limit");
  lua_error(L);
}

/* The sandbox's bounds are final: pcall and xpcall re-raise them. */
static int fatal_pending(lua_State *L, int status) {
  loader *ld = get_loader(L);
  if (status == LUA_ERRMEM) ld->mem_hit = 1;
  return ld->instr_hit || ld->mem_hit;
}

static int sandbox_pcall(lua_State *L) {
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

static int sandbox_xpcall(lua_State *L) {
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

static int sandbox_charged(lua_State *L) {
  int kind = (int)lua_tointeger(L, lua_upvalueindex(2)), n = lua_gettop(L);
  long long units = 0;
  if (lua_type(L, 1) == LUA_TTABLE) {
    lua_Integer len = luaL_len(L, 1); /* what the function itself will use */
    switch (kind) {
    case CH_INSERT:
      if (n >= 3) units = span(opt_int(L, 2, len + 1), len);
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
    case CH_SORT:
      units = len > 1 ? (long long)((double)len * log2((double)len)) : 0;
      break;
    }
  }
  if (!charge(get_loader(L), units)) {
    lua_pushliteral(L, "instruction limit");
    return lua_error(L);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, n, LUA_MULTRET);
  return lua_gettop(L);
}

/* print writes to stderr: stdout carries ldlgen's JSON. */
static int sandbox_print(lua_State *L) {
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
static int sandbox_setmetatable(lua_State *L) {
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
static int sandbox_open(lua_State *L) {
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
  lua_pushcfunction(L, sandbox_print);
  lua_setfield(L, 1, "print");
  lua_pushcfunction(L, sandbox_pcall);
  lua_setfield(L, 1, "pcall");
  lua_pushcfunction(L, sandbox_xpcall);
  lua_setfield(L, 1, "xpcall");
  lua_getfield(L, 1, "setmetatable");
  lua_pushcclosure(L, sandbox_setmetatable, 1);
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
    lua_pushcclosure(L, sandbox_charged, 2);
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

/* Message handler: keeps string messages, names other error objects, and
 * records the chunk line in case the message carries no position. */
static int sandbox_msgh(lua_State *L) {
  get_loader(L)->err_line = running_line(L);
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

/* Copies a long string or comment body from p up to and including its closing
 * bracket of the given level; returns the position after it. */
static const char *copy_long(const char *p, const char *end, int level, char **out) {
  while (p < end) {
    if (*p == ']') {
      const char *q = p + 1;
      while (q < end && *q == '=') q++;
      if (q < end && *q == ']' && q - p - 1 == level) {
        size_t n = (size_t)(q + 1 - p);
        memcpy(*out, p, n);
        *out += n;
        return q + 1;
      }
    }
    *(*out)++ = *p++;
  }
  return p;
}

/* The copy of a chunk that compiles with exact table lines (see the top of
 * this file): every `{` token becomes `({` and every `}` becomes `})`; strings
 * and comments are copied untouched. In Lua, braces only delimit table
 * constructors, so no matching is needed. src must be valid Lua. Returns a
 * malloc'd buffer (NULL if out of memory). */
static char *wrap_constructors(const char *src, size_t len, size_t *outlen) {
  char *buf = malloc(2 * len + 1), *out = buf;
  if (!buf) return NULL;
  const char *p = src, *end = src + len;
  int level;
  size_t n;
  while (p < end) {
    char c = *p;
    if (c == '-' && p + 1 < end && p[1] == '-') {
      *out++ = *p++;
      *out++ = *p++;
      if ((n = long_bracket(p, end, &level)) > 0) {
        memcpy(out, p, n);
        out += n;
        p = copy_long(p + n, end, level, &out);
      } else {
        while (p < end && *p != '\n') *out++ = *p++;
      }
    } else if (c == '[' && (n = long_bracket(p, end, &level)) > 0) {
      memcpy(out, p, n);
      out += n;
      p = copy_long(p + n, end, level, &out);
    } else if (c == '"' || c == '\'') {
      *out++ = *p++;
      while (p < end && *p != c) {
        if (*p == '\\' && p + 1 < end) *out++ = *p++;
        *out++ = *p++;
      }
      if (p < end) *out++ = *p++;
    } else if (c == '{') {
      *out++ = '(';
      *out++ = *p++;
    } else if (c == '}') {
      *out++ = *p++;
      *out++ = ')';
    } else {
      *out++ = *p++;
    }
  }
  *outlen = (size_t)(out - buf);
  return buf;
}

/* Turns a failed lua_pcall or load (message on the stack top) into a diagnostic. */
static gen_status report_lua_error(loader *ld, int status) {
  if (ld->instr_hit) {
    err(ld, ld->instr_line, "mechanism did not finish within %lld instructions (infinite loop?)",
        ld->max_instructions);
    return GEN_ERR_LIMIT;
  }
  if (status == LUA_ERRMEM || ld->mem_hit) {
    err(ld, 0, "mechanism exceeds the memory limit of %zu bytes", ld->max_memory);
    return GEN_ERR_LIMIT;
  }
  const char *msg = lua_type(ld->L, -1) == LUA_TSTRING ? lua_tostring(ld->L, -1) : "(error object is not a string)";
  int line = ld->err_line;
  msg = split_position(ld->file, msg, &line);
  err(ld, line, "%s", msg);
  return GEN_ERR_INPUT;
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
  tbl t = {ld, lua_absindex(ld->L, idx), line_of(ld, idx), what};
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
  int line = line_of(t->ld, -1);
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
  int line = line_of(t->ld, -1);
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

static const char *const settings_fields[] = {"gravity", "dt",      "iterations", "epsilon", "beta",
                                              "shatter", "ground",  "friction",   NULL};
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
    /* ground.friction is validated, but mech_settings has no field for it yet:
     * contacts with the ground use the body's (or the default) friction. */
    double f;
    if (get_number(&g, "friction", &f) > 0 && !(f >= 0)) range_error(&g, "friction", ">= 0", f);
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
  if (read_shape_size(t, first - 1, size) && rm > 0) shape_inertia(shape_of_kind[first - 1], size, b->mass, b->inertia);
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
static const char *const type_fields[RT_JOINT_NTYPES][8] = {
    [RT_BALL] = {"name", "type", "a", "b", "anchor", NULL},
    [RT_WELD] = {"name", "type", "a", "b", "anchor", NULL},
    [RT_HINGE] = {"name", "type", "a", "b", "anchor", "axis", NULL},
    [RT_PRISMATIC] = {"name", "type", "a", "b", "anchor", "axis", NULL},
    [RT_CYLINDRICAL] = {"name", "type", "a", "b", "anchor", "axis", NULL},
    [RT_UNIVERSAL] = {"name", "type", "a", "b", "anchor", "axis_a", "axis_b"},
    [RT_ROD] = {"name", "type", "a", "b", "anchor_a", "anchor_b", "length"},
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
  *line = line_of(ld, -1);
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

/* lua_CFunction run under lua_pcall (API errors are memory errors): validates
 * the table at index 1 into ld->m. */
static int validate(lua_State *L) {
  loader *ld = get_loader(L);
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
  lua_pushcfunction(L, sandbox_open);
  int st = lua_pcall(L, 0, 0, 0);
  if (st != LUA_OK) return report_lua_error(ld, st);
  lua_pushcfunction(L, sandbox_msgh);
  const char *chunkname = fmt(ld->a, "@%s", ld->file);
  st = luaL_loadbufferx(L, src, len, chunkname, "t");
  if (st != LUA_OK) return report_lua_error(ld, st);
  lua_pop(L, 1);
  size_t wlen;
  char *wrapped = wrap_constructors(src, len, &wlen);
  if (!wrapped) {
    err(ld, 0, "out of memory preparing the mechanism");
    return GEN_ERR_LIMIT;
  }
  st = luaL_loadbufferx(L, wrapped, wlen, chunkname, "t");
  free(wrapped);
  if (st != LUA_OK) return report_lua_error(ld, st);
  long long max = ld->max_instructions;
  ld->interval = max < HOOK_INTERVAL ? (int)(max > 0 ? max : 1) : HOOK_INTERVAL;
  lua_sethook(L, sandbox_hook, LUA_MASKCOUNT, ld->interval);
  ld->running = 1;
  st = lua_pcall(L, 0, 1, 1);
  ld->running = 0;
  lua_sethook(L, NULL, 0, 0);
  if (st != LUA_OK || ld->instr_hit || ld->mem_hit) return report_lua_error(ld, st);
  if (lua_type(L, -1) != LUA_TTABLE) {
    err(ld, 0, "mechanism file must return a table (got %s)", type_of(L, -1));
    return GEN_ERR_INPUT;
  }
  ld->top_line = line_of(ld, -1);
  ld->m.line = ld->top_line;
  lua_pushcfunction(L, validate);
  lua_insert(L, -2);
  st = lua_pcall(L, 1, 0, 0);
  if (st != LUA_OK) return report_lua_error(ld, st);
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

static gen_status load_buffer(arena *a, const char *name, const char *src, size_t len, const load_limits *lim,
                              mech *out, diag_list *d) {
  load_limits l = resolve_limits(lim);
  loader ld;
  memset(&ld, 0, sizeof ld);
  ld.max_memory = l.max_memory;
  ld.max_instructions = l.max_instructions;
  ld.a = a;
  ld.d = d;
  ld.file = arena_strdup(a, name);
  ld.m.file = ld.file;
  gen_status st;
  lua_State *L = lua_newstate(sandbox_alloc, &ld);
  if (!L) {
    err(&ld, 0, "mechanism exceeds the memory limit of %zu bytes", ld.max_memory);
    st = GEN_ERR_LIMIT;
  } else {
    ld.L = L;
    st = run(&ld, src, len);
    lua_close(L);
  }
  map_free(&ld);
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
