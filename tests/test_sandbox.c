/* test_sandbox.c -- the sandboxed Lua state on its own: table lines, the
 * report path for every kind of failure, and the user pointer. The loader's
 * view of the same behaviour (through load_mech) is in test_load.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "sandbox.h"

#define FILE_NAME "box.lua"

//---- helpers ------------------------------------------------------------------

typedef struct box {
  arena a;
  sandbox sb;
  int nrep;         /* reports received */
  int line;         /* of the last one */
  char msg[256];
  int called;       /* check_user ran */
  int arg_line;     /* table line of its argument */
} box;

static void on_report(void *user, int line, const char *msg) {
  box *b = user;
  b->nrep++;
  b->line = line;
  snprintf(b->msg, sizeof b->msg, "%s", msg);
}

static gen_status box_open(box *b, long long max_instructions, size_t max_memory) {
  memset(b, 0, sizeof *b);
  arena_init(&b->a);
  sandbox_config cfg = {.file = FILE_NAME,
                        .max_instructions = max_instructions,
                        .max_memory = max_memory,
                        .a = &b->a,
                        .report = on_report,
                        .user = b};
  return sandbox_open(&b->sb, &cfg);
}

static void box_close(box *b) {
  sandbox_close(&b->sb);
  arena_free(&b->a);
}

/* Runs src with generous bounds and expects status st. */
static void run_expect(box *b, const char *src, gen_status st) {
  assert_int_equal(box_open(b, 10000000, (size_t)64 << 20), GEN_OK);
  gen_status got = sandbox_run(&b->sb, src, strlen(src));
  if (got != st) print_error("report: %d: %s\n", b->line, b->msg);
  assert_int_equal(got, st);
}

//---- tests --------------------------------------------------------------------

static void test_table_lines(void **state) {
  (void)state;
  box b;
  run_expect(&b, "local x = 1\n"
                 "return {\n"
                 "  inner = {\n"
                 "    1, 2 },\n"
                 "  later = { f = (function() return {} end)() },\n"
                 "  n = 3,\n"
                 "}\n",
             GEN_OK);
  lua_State *L = b.sb.L;
  assert_int_equal(lua_type(L, -1), LUA_TTABLE);
  assert_int_equal(sandbox_table_line(&b.sb, -1), 2);
  lua_getfield(L, -1, "inner");
  assert_int_equal(sandbox_table_line(&b.sb, -1), 3);
  lua_pop(L, 1);
  lua_getfield(L, -1, "later");
  assert_int_equal(sandbox_table_line(&b.sb, -1), 5);
  lua_getfield(L, -1, "f");
  assert_int_equal(sandbox_table_line(&b.sb, -1), 5);
  lua_pop(L, 2);
  lua_getfield(L, -1, "n");
  assert_int_equal(sandbox_table_line(&b.sb, -1), 0); /* not a table */
  lua_pop(L, 1);
  lua_newtable(L); /* built by C, after the chunk: no line */
  assert_int_equal(sandbox_table_line(&b.sb, -1), 0);
  lua_pop(L, 1);
  assert_int_equal(b.nrep, 0);
  box_close(&b);
}

static void test_syntax_error_reported(void **state) {
  (void)state;
  box b;
  run_expect(&b, "return {\n  a = 1\n  b = 2,\n}\n", GEN_ERR_INPUT);
  assert_int_equal(b.nrep, 1);
  assert_int_equal(b.line, 3);
  assert_non_null(strstr(b.msg, "'}' expected"));
  assert_null(strstr(b.msg, FILE_NAME)); /* the position is split off */
  box_close(&b);
}

static void test_runtime_error_reported(void **state) {
  (void)state;
  box b;
  run_expect(&b, "local t = nil\n\nreturn t.x\n", GEN_ERR_INPUT);
  assert_int_equal(b.nrep, 1);
  assert_int_equal(b.line, 3);
  assert_non_null(strstr(b.msg, "attempt to index a nil value"));
  box_close(&b);
  run_expect(&b, "\nerror({})\n", GEN_ERR_INPUT);
  assert_int_equal(b.line, 2);
  assert_string_equal(b.msg, "(error object is a table value)");
  box_close(&b);
}

static void test_binary_chunk_refused(void **state) {
  (void)state;
  box b;
  run_expect(&b, "\x1bLua", GEN_ERR_INPUT);
  assert_non_null(strstr(b.msg, "binary chunk"));
  box_close(&b);
}

static void test_instruction_bound(void **state) {
  (void)state;
  box b;
  assert_int_equal(box_open(&b, 100000, (size_t)64 << 20), GEN_OK);
  const char *src = "local n = 0\nwhile true do\n  n = n + 1\nend\n";
  assert_int_equal(sandbox_run(&b.sb, src, strlen(src)), GEN_ERR_LIMIT);
  assert_int_equal(b.nrep, 1);
  assert_string_equal(b.msg, "mechanism did not finish within 100000 instructions (infinite loop?)");
  assert_true(b.line >= 2 && b.line <= 4);
  box_close(&b);
  /* the script's pcall cannot catch it */
  assert_int_equal(box_open(&b, 100000, (size_t)64 << 20), GEN_OK);
  src = "for i = 1, 10 do pcall(function() while true do end end) end\nreturn {}\n";
  assert_int_equal(sandbox_run(&b.sb, src, strlen(src)), GEN_ERR_LIMIT);
  assert_int_equal(b.nrep, 1);
  box_close(&b);
}

static void test_memory_bound(void **state) {
  (void)state;
  box b;
  assert_int_equal(box_open(&b, 100000000, (size_t)1 << 20), GEN_OK);
  const char *src = "local ok = pcall(string.rep, 'x', 1 << 24)\nreturn { ok = ok }\n";
  assert_int_equal(sandbox_run(&b.sb, src, strlen(src)), GEN_ERR_LIMIT);
  assert_int_equal(b.nrep, 1);
  assert_int_equal(b.line, 1); /* the line running when the bound was hit */
  assert_string_equal(b.msg, "mechanism exceeds the memory limit of 1048576 bytes");
  box_close(&b);
  /* too small for the state itself */
  assert_int_equal(box_open(&b, 100000000, 64), GEN_ERR_LIMIT);
  assert_int_equal(b.nrep, 1);
  assert_string_equal(b.msg, "mechanism exceeds the memory limit of 64 bytes");
  assert_null(b.sb.L);
  box_close(&b);
}

/* table.sort charges len log2 len instructions before it runs; a __len
 * that returns the largest integer saturates the charge (it overflowed a
 * signed integer once: UBSan in make test-san checks) and stops the chunk. */
static void test_sort_charge_saturates(void **state) {
  (void)state;
  box b;
  assert_int_equal(box_open(&b, 10000000, (size_t)64 << 20), GEN_OK);
  const char *src = "local t = setmetatable({}, { __len = function() return math.maxinteger end })\n"
                    "table.sort(t)\n"
                    "return t\n";
  assert_int_equal(sandbox_run(&b.sb, src, strlen(src)), GEN_ERR_LIMIT);
  assert_int_equal(b.nrep, 1);
  assert_int_equal(b.line, 2);
  assert_non_null(strstr(b.msg, "did not finish"));
  box_close(&b);
  /* every charged function with huge or negative spans */
  static const char *const calls[] = {
      "table.insert(t, math.mininteger, 1)", "table.remove(t, math.mininteger)",
      "table.move(t, math.mininteger, math.maxinteger, 1)", "table.concat(t, ',', math.mininteger, math.maxinteger)",
      "table.unpack(t, math.mininteger, math.maxinteger)", "table.sort(t)"};
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
    char buf[512];
    snprintf(buf, sizeof buf,
             "local t = setmetatable({}, { __len = function() return math.maxinteger end })\n"
             "local ok = pcall(function() %s end)\nreturn {}\n",
             calls[i]);
    assert_int_equal(box_open(&b, 10000000, (size_t)64 << 20), GEN_OK);
    gen_status st = sandbox_run(&b.sb, buf, strlen(buf));
    assert_true(st == GEN_OK || st == GEN_ERR_LIMIT || st == GEN_ERR_INPUT);
    box_close(&b);
  }
}

/* Where the chunk returned, and how many values. */
static void test_return_line(void **state) {
  (void)state;
  box b;
  run_expect(&b, "local function f() return 1 end\nlocal m = { f() }\n\nreturn m, 2\n-- after\n", GEN_OK);
  assert_int_equal(b.sb.ret_line, 4);
  assert_int_equal(b.sb.nresults, 2);
  assert_int_equal(lua_type(b.sb.L, -1), LUA_TTABLE);
  box_close(&b);
  run_expect(&b, "local m = {}\nlocal n = 1\n", GEN_OK);
  assert_int_equal(b.sb.nresults, 0);
  assert_int_equal(b.sb.ret_line, 2);
  assert_int_equal(lua_type(b.sb.L, -1), LUA_TNIL);
  box_close(&b);
}

/* The text's last assignment to a key, outside comments and strings. */
static void test_key_line(void **state) {
  (void)state;
  box b;
  run_expect(&b,
             "local m = { bodies = {},\n"         /* 1 */
             "  -- bodies = 1\n"                  /* 2 */
             "  s = 'bodies = 2', t = [[\n"       /* 3 */
             "bodies = 3]],\n"                    /* 4 */
             "}\n"                                /* 5 */
             "local bodies = 4\n"                 /* 6: a local, not a field */
             "m.bodies = bodies\n"                /* 7 */
             "m [ 'constraints' ] =\n  5\n"      /* 8 */
             "if m.bodies == 5 then end\n"        /* 10: a comparison */
             "return m\n",
             GEN_OK);
  assert_int_equal(sandbox_key_line(&b.sb, "bodies"), 7);
  assert_int_equal(sandbox_key_line(&b.sb, "constraints"), 8);
  assert_int_equal(sandbox_key_line(&b.sb, "settings"), 0);
  box_close(&b);
}

/* Constructors nested as deep as Lua compiles them run, and the shallow
 * tables beside them keep their exact lines. */
static void test_deep_constructors(void **state) {
  (void)state;
  for (int d = 90; d <= 197; d += 107 / 4) {
    char src[1024];
    size_t n = 0;
    n += (size_t)snprintf(src + n, sizeof src - n, "local x = ");
    for (int i = 0; i < d; i++) src[n++] = '{';
    for (int i = 0; i < d; i++) src[n++] = '}';
    snprintf(src + n, sizeof src - n, "\nreturn {\n  a = {\n  1 }\n}\n");
    box b;
    run_expect(&b, src, GEN_OK);
    lua_getfield(b.sb.L, -1, "a");
    assert_int_equal(sandbox_table_line(&b.sb, -1), 3);
    lua_pop(b.sb.L, 1);
    box_close(&b);
  }
}

static void test_restricted_globals(void **state) {
  (void)state;
  box b;
  run_expect(&b,
             "return { load = load, require = require, io = io, os = os, debug = debug,\n"
             "  find = string.find, dump = string.dump, rep = string.rep }\n",
             GEN_OK);
  lua_State *L = b.sb.L;
  static const char *const gone[] = {"load", "require", "io", "os", "debug", "find", "dump"};
  for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
    lua_getfield(L, -1, gone[i]);
    assert_true(lua_isnil(L, -1));
    lua_pop(L, 1);
  }
  lua_getfield(L, -1, "rep");
  assert_true(lua_isfunction(L, -1));
  lua_pop(L, 1);
  box_close(&b);
}

/* Records what it sees; the assertions run outside Lua. */
static int check_user(lua_State *L) {
  box *b = sandbox_user(L);
  b->called = lua_gettop(L);
  b->arg_line = sandbox_table_line(&b->sb, 1);
  lua_pushboolean(L, 1); /* results are discarded */
  return 1;
}

static int raise_error(lua_State *L) { return luaL_error(L, "from C"); }

static void test_call(void **state) {
  (void)state;
  box b;
  run_expect(&b, "return {}", GEN_OK);
  int top = lua_gettop(b.sb.L);
  assert_int_equal(sandbox_call(&b.sb, check_user, 1), GEN_OK);
  assert_int_equal(b.called, 1); /* one argument */
  assert_int_equal(b.arg_line, 1);
  assert_int_equal(lua_gettop(b.sb.L), top - 1);
  assert_int_equal(b.nrep, 0);
  assert_int_equal(sandbox_call(&b.sb, raise_error, 0), GEN_ERR_INPUT);
  assert_int_equal(b.nrep, 1);
  assert_string_equal(b.msg, "from C");
  assert_int_equal(b.line, 0);
  box_close(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table_lines),
      cmocka_unit_test(test_syntax_error_reported),
      cmocka_unit_test(test_runtime_error_reported),
      cmocka_unit_test(test_binary_chunk_refused),
      cmocka_unit_test(test_instruction_bound),
      cmocka_unit_test(test_memory_bound),
      cmocka_unit_test(test_restricted_globals),
      cmocka_unit_test(test_sort_charge_saturates),
      cmocka_unit_test(test_return_line),
      cmocka_unit_test(test_key_line),
      cmocka_unit_test(test_deep_constructors),
      cmocka_unit_test(test_call),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
