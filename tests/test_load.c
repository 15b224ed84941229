/* test_load.c -- the sandboxed mechanism loader: every bad-input case names
 * the exact line of the offending table, the sandbox bounds hold, and valid
 * files load with the documented values and defaults. (Over 600 lines: one
 * case per schema rule, each a few lines, sharing one set of fixtures.) */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "canon.h"
#include "load.h"

#define INLINE "inline.lua"

//---- helpers ------------------------------------------------------------------

typedef struct run {
  arena a;
  diag_list d;
  mech m;
  gen_status st;
} run;

static void run_src(run *r, const char *src, const load_limits *lim) {
  arena_init(&r->a);
  diag_init(&r->d);
  r->st = load_mech_string(&r->a, INLINE, src, lim, &r->m, &r->d);
}

static void run_done(run *r) {
  diag_free(&r->d);
  arena_free(&r->a);
}

/* The diagnostic containing substr (fails if none). */
static const diag *find_diag(const diag_list *d, const char *substr) {
  for (int i = 0; i < d->n; i++)
    if (strstr(d->items[i].msg, substr)) return &d->items[i];
  diag_print(d, stderr);
  fail_msg("no diagnostic contains \"%s\"", substr);
  return NULL;
}

/* Loads src and asserts status, and a diagnostic at file:line containing substr. */
static void expect_limited(const char *src, const load_limits *lim, gen_status st, int line, const char *substr) {
  run r;
  run_src(&r, src, lim);
  if (r.st != st) diag_print(&r.d, stderr);
  assert_int_equal(r.st, st);
  assert_true(r.d.n >= 1);
  const diag *x = find_diag(&r.d, substr);
  assert_non_null(x->file);
  assert_string_equal(x->file, INLINE);
  if (x->line != line) {
    diag_print(&r.d, stderr);
    fail_msg("\"%s\" reported at line %d, expected %d", substr, x->line, line);
  }
  run_done(&r);
}

static void expect(const char *src, int line, const char *substr) {
  expect_limited(src, NULL, GEN_ERR_INPUT, line, substr);
}

/* Template: body 'a' on line 3, the given body text on line 4, no constraints. */
static char *with_body(const char *body) {
  static char buf[4096];
  snprintf(buf, sizeof buf,
           "return { name = 'm',\n"                                         /* 1 */
           "  bodies = {\n"                                                 /* 2 */
           "    { name = 'a', mass = 1, sphere = 0.1, pos = {0, 0, 0} },\n" /* 3 */
           "    %s,\n"                                                      /* 4 */
           "  },\n"                                                         /* 5 */
           "  constraints = {},\n"                                          /* 6 */
           "}\n",
           body);
  return buf;
}

/* Template: bodies 'a' (line 3), 'b' (4), 'f' fixed (5); the given constraint
 * text starts on line 7. */
static char *with_cons(const char *cons) {
  static char buf[4096];
  snprintf(buf, sizeof buf,
           "return { name = 'm',\n"                                                      /* 1 */
           "  bodies = {\n"                                                              /* 2 */
           "    { name = 'a', mass = 1, sphere = 0.1, pos = {0, 0, 0} },\n"              /* 3 */
           "    { name = 'b', mass = 1, sphere = 0.1, pos = {1, 0, 0} },\n"              /* 4 */
           "    { name = 'f', fixed = true, pos = {0, 0, 1} },\n"                        /* 5 */
           "  }, constraints = {\n"                                                      /* 6 */
           "    %s,\n"                                                                   /* 7 */
           "  },\n"
           "}\n",
           cons);
  return buf;
}

//---- Lua errors -----------------------------------------------------------------

static void test_syntax_error(void **state) {
  (void)state;
  expect("local x = 1\nlocal y = = 2\nreturn {}\n", 2, "unexpected symbol near '='");
}

static void test_runtime_error(void **state) {
  (void)state;
  expect("local t = nil\n\nlocal x = t.field\nreturn {}\n", 3, "attempt to index a nil value");
  expect("local function f()\n  error('boom')\nend\nf()\n", 2, "boom");
  /* no position in the message: the handler's line of the raising chunk frame */
  expect("local a = 1\nerror('plain', 0)\n", 2, "plain");
  expect("local a = 1\n\nerror({})\n", 3, "error object is a table value");
}

static void test_long_chunkname(void **state) {
  (void)state;
  /* Lua abbreviates long names to "...tail" in its positions */
  const char *name = "some/very/long/directory/name/that/goes/on/and/on/and/on/forever/mech.lua";
  run r;
  arena_init(&r.a);
  diag_init(&r.d);
  r.st = load_mech_string(&r.a, name, "local x = 1\nlocal y = = 2\n", NULL, &r.m, &r.d);
  assert_int_equal(r.st, GEN_ERR_INPUT);
  assert_int_equal(r.d.n, 1);
  assert_string_equal(r.d.items[0].file, name);
  assert_int_equal(r.d.items[0].line, 2);
  assert_true(strncmp(r.d.items[0].msg, "unexpected symbol", 17) == 0);
  run_done(&r);
}

/* At the line of the return; a file that returns nothing, at its last line
 * of code (where the chunk ended). */
static void test_not_a_table(void **state) {
  (void)state;
  expect_limited("return 42\n", NULL, GEN_ERR_INPUT, 1, "must return a table (got number)");
  expect_limited("local m = {}\n\nreturn nil\n", NULL, GEN_ERR_INPUT, 3, "must return a table (got nil)");
  expect_limited("local m = { name = 'm' }\nlocal x = 2\n-- no return\n", NULL, GEN_ERR_INPUT, 2,
                 "returns nothing");
  expect_limited("local m = {}\nif m then\n  return\nend\nreturn m\n", NULL, GEN_ERR_INPUT, 3, "returns nothing");
  expect_limited("\n\n", NULL, GEN_ERR_INPUT, 1, "returns nothing"); /* no code: line 1 */
}

/* bodies and constraints that are not tables: the line that assigns them,
 * in the constructor or later, and not the line of the returned table. */
static void test_top_level_field_lines(void **state) {
  (void)state;
  expect("local m = { name = 'm',\n"
         "  bodies = 'string',\n"
         "  constraints = {} }\n"
         "return m\n",
         2, "field 'bodies' must be a list of tables (got string)");
  expect("local m = { name = 'm', constraints = {},\n"
         "  bodies = { { name = 'a', mass = 1, sphere = 0.1, pos = {0, 0, 0} } } }\n"
         "-- m.constraints = {} in a comment, and in a string:\n"
         "local s = 'm.constraints = 1'\n"
         "m.constraints = 42\n"
         "return m\n",
         5, "field 'constraints' must be a list of tables (got number)");
  expect("local m = { name = 'm', constraints = {},\n"
         "  bodies = { { name = 'a', mass = 1, sphere = 0.1, pos = {0, 0, 0} } } }\n"
         "m[\"constraints\"]\n"
         "  = true\n"
         "return m\n",
         3, "field 'constraints' must be a list of tables (got boolean)");
  /* a local of the same name is not the field */
  expect("local bodies = 'x'\nreturn { name = 'm', constraints = {},\n  bodies = bodies }\n", 3,
         "field 'bodies' must be a list of tables (got string)");
}

/* Files with CR-only line breaks (old Mac), and CR LF: lines count as Lua
 * counts them, and a comment ends at its line's end. */
static void test_cr_line_endings(void **state) {
  (void)state;
  expect("return { name = 'm', -- comment { with a brace\r"
         "  bodies = {\r"
         "    { name = 'a', mass = 1, sphere = 0.1, pos = {0, 0, 0} },\r"
         "    { name = 'b', mass = -1, sphere = 0.1, pos = {0, 0, 0} },\r"
         "  },\r"
         "  constraints = {},\r"
         "}\r",
         4, "mass");
  expect("return { name = 'm', -- comment }\r\n"
         "  bodies = {\r\n"
         "    { name = 'a', mass = 1, sphere = 0.1, pos = {0, 0, 0} },\r\n"
         "    { name = 'b', mass = -1, sphere = 0.1, pos = {0, 0, 0} },\r\n"
         "  },\r\n"
         "  constraints = {},\r\n"
         "}\r\n",
         4, "mass");
}

/* Constructors nested 100 to 197 deep compile as written (Lua's limit is
 * about 200 levels) though not with the parentheses the line rewrite adds:
 * they load, and the mechanism's own tables keep their lines. */
static void test_deeply_nested_constructors(void **state) {
  (void)state;
  static const int depths[] = {1, 60, 100, 150, 197};
  for (size_t k = 0; k < sizeof depths / sizeof depths[0]; k++) {
    int d = depths[k];
    size_t cap = 2 * (size_t)d + 512;
    char *src = malloc(cap);
    assert_non_null(src);
    size_t n = (size_t)snprintf(src, cap, "local deep = ");
    for (int i = 0; i < d; i++) src[n++] = '{';
    src[n++] = '1';
    for (int i = 0; i < d; i++) src[n++] = '}';
    snprintf(src + n, cap - n,
             "\nreturn { name = 'm',\n"
             "  bodies = {\n"
             "    { name = 'a', mass = -1, sphere = 0.1, pos = {0, 0, 0} },\n"
             "  },\n"
             "  constraints = {} }\n");
    expect(src, 4, "mass");
    free(src);
  }
}

static void test_binary_chunk_refused(void **state) {
  (void)state;
  expect_limited("\x1bLua", NULL, GEN_ERR_INPUT, 0, "attempt to load a binary chunk");
}

//---- sandbox --------------------------------------------------------------------

static void test_sandbox_globals_removed(void **state) {
  (void)state;
  static const char *const tables[] = {"io", "os", "debug", "package", "coroutine", "utf8"};
  static const char *const funcs[] = {"require", "load", "loadfile", "dofile", "collectgarbage"};
  char src[256], want[128];
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    snprintf(src, sizeof src, "local ok = 1\nlocal x = %s.open\nreturn {}\n", tables[i]);
    snprintf(want, sizeof want, "attempt to index a nil value (global '%s')", tables[i]);
    expect(src, 2, want);
  }
  for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++) {
    snprintf(src, sizeof src, "local ok = 1\n%s('x')\nreturn {}\n", funcs[i]);
    snprintf(want, sizeof want, "attempt to call a nil value (global '%s')", funcs[i]);
    expect(src, 2, want);
  }
  expect("local f = function() end\nlocal s = string.dump(f)\n", 2, "attempt to call a nil value (field 'dump')");
  expect("local f = function() end\nlocal s = ('x').dump(f)\n", 2, "attempt to call a nil value (field 'dump')");
  /* pattern matching backtracks in C, beyond the instruction bound */
  static const char *const patterns[] = {"find", "match", "gmatch", "gsub"};
  for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
    snprintf(src, sizeof src, "local ok = 1\nlocal r = ('aaa'):%s('a-b')\n", patterns[i]);
    snprintf(want, sizeof want, "attempt to call a nil value (method '%s')", patterns[i]);
    expect(src, 2, want);
  }
}

static void test_sandbox_gc_metamethod_refused(void **state) {
  (void)state;
  expect("local mt = {}\nmt.__gc = function() while true do end end\nsetmetatable({}, mt)\n", 3,
         "__gc metamethods are not allowed");
}

static void test_sandbox_math_deterministic(void **state) {
  (void)state;
  const char *src = "return { name = 'm' .. math.random(1, 1000000), bodies = {\n"
                    "  { name = 'a', mass = math.random(), sphere = 0.1, pos = {0, 0, 0} } }, constraints = {} }\n";
  run r1, r2;
  run_src(&r1, src, NULL);
  run_src(&r2, src, NULL);
  assert_int_equal(r1.st, GEN_OK);
  assert_int_equal(r2.st, GEN_OK);
  assert_string_equal(r1.m.name, r2.m.name);
  assert_true(r1.m.bodies[0].mass == r2.m.bodies[0].mass);
  run_done(&r1);
  run_done(&r2);
}

/* Reads everything from a temporary file. */
static void slurp(FILE *f, char *buf, size_t cap) {
  rewind(f);
  size_t n = fread(buf, 1, cap - 1, f);
  buf[n] = 0;
}

static void test_print_goes_to_stderr(void **state) {
  (void)state;
  FILE *fo = tmpfile(), *fe = tmpfile();
  assert_non_null(fo);
  assert_non_null(fe);
  fflush(stdout);
  fflush(stderr);
  int save_out = dup(1), save_err = dup(2);
  dup2(fileno(fo), 1);
  dup2(fileno(fe), 2);
  run r;
  run_src(&r, "print('marker', 42, nil)\nreturn 1\n", NULL);
  fflush(stdout);
  fflush(stderr);
  dup2(save_out, 1);
  dup2(save_err, 2);
  close(save_out);
  close(save_err);
  char out[256], errbuf[256];
  slurp(fo, out, sizeof out);
  slurp(fe, errbuf, sizeof errbuf);
  fclose(fo);
  fclose(fe);
  assert_string_equal(out, "");
  assert_string_equal(errbuf, "marker\t42\tnil\n");
  assert_int_equal(r.st, GEN_ERR_INPUT); /* returned 1, not a table */
  run_done(&r);
}

static void test_default_limits(void **state) {
  (void)state;
  load_limits l;
  load_default_limits(&l);
  assert_true(l.max_instructions == 100000000LL);
  assert_true(l.max_memory == (size_t)256 * 1024 * 1024);
}

static void test_instruction_limit(void **state) {
  (void)state;
  load_limits l;
  load_default_limits(&l);
  l.max_instructions = 100000;
  expect_limited("local n = 0\nwhile true do n = n + 1 end\n", &l, GEN_ERR_LIMIT, 2,
                 "mechanism did not finish within 100000 instructions (infinite loop?)");
  /* the script's pcall cannot swallow the bound */
  expect_limited("local n = 0\n"
                 "for i = 1, 10 do pcall(function() while true do end end) end\n"
                 "while true do\n"
                 "  pcall(function() while true do n = n + 1 end end)\n"
                 "end\n",
                 &l, GEN_ERR_LIMIT, 2, "did not finish within");
  expect_limited("local n = 0\n\nwhile true do xpcall(function() while true do end end, print) end\n", &l,
                 GEN_ERR_LIMIT, 3, "did not finish within");
  /* work inside C is charged too: each case stays far below the bound in VM
   * instructions, and would run to completion if only those were counted */
  l.max_instructions = 1000000;
  expect_limited("local t = {}\nfor i = 1, 1e4 do t[i] = i end\nfor k = 1, 1e5 do table.insert(t, 1, k) end\n", &l,
                 GEN_ERR_LIMIT, 3, "did not finish within 1000000 instructions");
  expect_limited("local t = {}\nfor i = 1, 1e5 do t[i] = i end\nfor k = 1, 1e4 do table.remove(t, 1) end\n", &l,
                 GEN_ERR_LIMIT, 3, "did not finish within");
  expect_limited("local t = {}\nfor i = 1, 1e5 do t[i] = '' end\n\nfor k = 1, 1000 do local s = table.concat(t) end\n",
                 &l, GEN_ERR_LIMIT, 4, "did not finish within");
  expect_limited("local t = {}\nfor i = 1, 1e5 do t[i] = -i end\nfor k = 1, 100 do table.sort(t) end\n", &l,
                 GEN_ERR_LIMIT, 3, "did not finish within");
  expect_limited("local s = string.rep('x', 1e6)\nfor i = 1, 100 do\n  local t = s .. i\nend\n", &l, GEN_ERR_LIMIT, 3,
                 "did not finish within");
  /* a tiny bound below the hook period */
  l.max_instructions = 10;
  expect_limited("local n = 0\nfor i = 1, 1000 do n = n + i end\nreturn {}\n", &l, GEN_ERR_LIMIT, 2,
                 "within 10 instructions");
}

static void test_memory_limit(void **state) {
  (void)state;
  load_limits l;
  load_default_limits(&l);
  l.max_memory = 4u << 20;
  /* at the line running when the bound was hit */
  expect_limited("local t = {}\nfor i = 1, 1e9 do t[i] = i end\n", &l, GEN_ERR_LIMIT, 2,
                 "mechanism exceeds the memory limit of 4194304 bytes");
  expect_limited("local s = 'x'\nwhile true do\n  s = s .. s\nend\n", &l, GEN_ERR_LIMIT, 3, "memory limit");
  expect_limited("\nlocal s = string.rep('x', 1 << 30)\n", &l, GEN_ERR_LIMIT, 2, "memory limit");
  /* many small tables fill the line map too: still bounded */
  expect_limited("local t = {}\nfor i = 1, 1e9 do t[i] = {} end\n", &l, GEN_ERR_LIMIT, 2, "memory limit");
  /* pcall cannot swallow it */
  expect_limited("local ok = pcall(function() local t = {} for i = 1, 1e9 do t[i] = i end end)\nreturn {}\n", &l,
                 GEN_ERR_LIMIT, 1, "memory limit");
  /* too small to even create the state */
  l.max_memory = 100;
  expect_limited("return {}\n", &l, GEN_ERR_LIMIT, 0, "memory limit of 100 bytes");
}

//---- schema errors ----------------------------------------------------------------

static void test_unknown_body(void **state) {
  (void)state;
  expect(with_cons("{ name = 'c', type = 'ball', a = 'a', b = 'forarm', anchor = {0, 0, 0} }"), 7,
         "constraint 'c': unknown body 'forarm' in field 'b'");
}

static void test_duplicate_body_name(void **state) {
  (void)state;
  expect(with_body("{ name = 'a', mass = 1, sphere = 0.1, pos = {1, 0, 0} }"), 4,
         "duplicate body name 'a' (first defined at line 3)");
  expect(with_body("{ name = 'world', mass = 1, sphere = 0.1, pos = {1, 0, 0} }"), 4, "'world' is reserved");
}

static void test_duplicate_constraint_name(void **state) {
  (void)state;
  expect(with_cons("{ name = 'c', type = 'ball', a = 'world', b = 'a', anchor = {0, 0, 0} },\n"
                   "    { name = 'c', type = 'ball', a = 'a', b = 'b', anchor = {0, 0, 0} }"),
         8, "duplicate constraint name 'c' (first defined at line 7)");
}

static void test_invalid_names(void **state) {
  (void)state;
  expect(with_body("{ name = 'has space', mass = 1, sphere = 0.1, pos = {1, 0, 0} }"), 4,
         "body name 'has space' is invalid");
  expect(with_body("{ name = '', mass = 1, sphere = 0.1, pos = {1, 0, 0} }"), 4, "body name '' is invalid");
  expect(with_body("{ name = string.rep('x', 65), mass = 1, sphere = 0.1, pos = {1, 0, 0} }"), 4, "is invalid");
  expect(with_cons("{ name = 'c*/', type = 'ball', a = 'world', b = 'a', anchor = {0, 0, 0} }"), 7,
         "constraint name 'c*/' is invalid");
  expect("return { name = 'bad name', bodies = {\n"
         "  { name = 'a', mass = 1, sphere = 0.1, pos = {0, 0, 0} } }, constraints = {} }\n",
         1, "mechanism name 'bad name' is invalid");
}

static void test_zero_length_axis(void **state) {
  (void)state;
  expect(with_cons("{ name = 'h', type = 'hinge', a = 'world', b = 'a', anchor = {0, 0, 0}, axis = {0, 0, 0} }"),
         7, "constraint 'h': zero-length axis in 'axis'");
  /* the vector's own line when it sits on another line */
  expect(with_cons("{ name = 'h', type = 'hinge', a = 'world', b = 'a', anchor = {0, 0, 0},\n"
                   "      axis = {0, 0, 0} }"),
         8, "zero-length axis");
}

static void test_non_finite(void **state) {
  (void)state;
  expect(with_body("{ name = 'b', mass = 1, sphere = 0.1, pos = {0, 0/0, 0} }"), 4,
         "body 'b': non-finite number in 'pos'");
  expect(with_body("{ name = 'b', mass = math.huge, sphere = 0.1, pos = {0, 0, 0} }"), 4,
         "body 'b': non-finite number in 'mass'");
  expect(with_body("{ name = 'b', mass = 1, sphere = 0.1, pos = {0, 0, 0}, vel = {-math.huge, 0, 0} }"), 4,
         "non-finite number in 'vel'");
  expect(with_cons("{ name = 'c', type = 'ball', a = 'a', b = 'b', anchor = {0, 0, 1/0} }"), 7,
         "constraint 'c': non-finite number in 'anchor'");
  expect("return { name = 'm', settings = {\n  dt = 0/0 },\n"
         "  bodies = { { name = 'a', mass = 1, sphere = 0.1, pos = {0, 0, 0} } }, constraints = {} }\n",
         1, "settings: non-finite number in 'dt'");
}

static void test_self_constraint(void **state) {
  (void)state;
  expect(with_cons("{ name = 'c', type = 'ball', a = 'a', b = 'a', anchor = {0, 0, 0} }"), 7,
         "constraint 'c' connects 'a' to itself");
  expect(with_cons("{ name = 'c', type = 'ball', a = 'world', b = 'world', anchor = {0, 0, 0} }"), 7,
         "connects 'world' to itself");
}

static void test_both_fixed(void **state) {
  (void)state;
  expect(with_cons("{ name = 'c', type = 'weld', a = 'world', b = 'f', anchor = {0, 0, 0} }"), 7,
         "constraint 'c' connects two fixed bodies ('world' and 'f')");
}

static void test_unknown_fields(void **state) {
  (void)state;
  expect(with_body("{ name = 'b', mass = 1, sphere = 0.1, pos = {0, 0, 0}, colour = 'red' }"), 4,
         "body 'b': unknown field 'colour'");
  expect(with_cons("{ name = 'h', type = 'hinge', a = 'world', b = 'a', anchor = {0, 0, 0}, axs = {0, 1, 0} }"), 7,
         "constraint 'h': unknown field 'axs'");
  /* a field of another constraint type */
  expect(with_cons("{ name = 'c', type = 'ball', a = 'world', b = 'a', anchor = {0, 0, 0}, axis = {0, 1, 0} }"), 7,
         "constraint 'c': unknown field 'axis'");
  expect("local x = 1\nreturn { name = 'm', foo = 1, bodies = {\n"
         "  { name = 'a', mass = 1, sphere = 0.1, pos = {0, 0, 0} } }, constraints = {} }\n",
         2, "mechanism: unknown field 'foo'");
  expect("return { name = 'm',\n  settings = { gravity = {0, 0, -1}, substeps = 4 },\n"
         "  bodies = { { name = 'a', mass = 1, sphere = 0.1, pos = {0, 0, 0} } }, constraints = {} }\n",
         2, "settings: unknown field 'substeps'");
  expect(with_body("{ name = 'b', mass = 1, sphere = 0.1, pos = {0, 0, 0}, 'stray' }"), 4,
         "body 'b': unknown field '[1]'");
}

static void test_unknown_fields_sorted(void **state) {
  (void)state;
  run r;
  run_src(&r, with_body("{ name = 'b', mass = 1, sphere = 0.1, pos = {0, 0, 0}, zz = 1, aa = 1, mm = 1 }"), NULL);
  assert_int_equal(r.st, GEN_ERR_INPUT);
  assert_int_equal(r.d.n, 3);
  assert_non_null(strstr(r.d.items[0].msg, "'aa'"));
  assert_non_null(strstr(r.d.items[1].msg, "'mm'"));
  assert_non_null(strstr(r.d.items[2].msg, "'zz'"));
  run_done(&r);
}

static void test_unknown_type(void **state) {
  (void)state;
  expect(with_cons("{ name = 'h', type = 'hing', a = 'world', b = 'a', anchor = {0, 0, 0} }"), 7,
         "constraint 'h': unknown constraint type 'hing'");
}

static void test_bad_mass(void **state) {
  (void)state;
  expect(with_body("{ name = 'b', mass = 0, sphere = 0.1, pos = {0, 0, 0} }"), 4,
         "body 'b': field 'mass' must be > 0 (got 0)");
  expect(with_body("{ name = 'b', mass = -2, box = {1, 1, 1}, pos = {0, 0, 0} }"), 4,
         "field 'mass' must be > 0 (got -2)");
  expect(with_body("{ name = 'b', mass = -0.1, box = {1, 1, 1}, pos = {0, 0, 0} }"), 4,
         "field 'mass' must be > 0 (got -0.1)");
  expect(with_body("{ name = 'b', mass = '1', sphere = 0.1, pos = {0, 0, 0} }"), 4,
         "field 'mass' must be a number (got string)");
}

static void test_bad_inertia(void **state) {
  (void)state;
  expect(with_body("{ name = 'b', mass = 1, inertia = {1, 1, 3}, pos = {0, 0, 0} }"), 4,
         "body 'b': inertia is not physical");
  expect(with_body("{ name = 'b', mass = 1, inertia = {1, 0, 1}, pos = {0, 0, 0} }"), 4,
         "inertia is not positive definite");
  expect(with_body("{ name = 'b', mass = 1, pos = {0, 0, 0} }"), 4, "body 'b': missing inertia");
  expect(with_body("{ name = 'b', mass = 1, box = {1, 1, 1}, sphere = 1, pos = {0, 0, 0} }"), 4,
         "give only one of inertia, box, sphere, cylinder, capsule (got 'box' and 'sphere')");
  expect(with_body("{ name = 'b', mass = 1, box = {1, 0, 1}, pos = {0, 0, 0} }"), 4, "the sides of 'box' must be > 0");
  expect(with_body("{ name = 'b', mass = 1, cylinder = {0.1, -1}, pos = {0, 0, 0} }"), 4,
         "'cylinder' must be { radius > 0, length > 0 }");
}

static void test_missing_field(void **state) {
  (void)state;
  expect(with_body("{ name = 'b', mass = 1, sphere = 0.1 }"), 4, "body 'b': missing required field 'pos'");
  expect(with_body("{ name = 'b', sphere = 0.1, pos = {0, 0, 0} }"), 4, "body 'b': missing required field 'mass'");
  expect(with_body("{ mass = 1, sphere = 0.1, pos = {0, 0, 0} }"), 4, "bodies[2]: missing required field 'name'");
  expect(with_cons("{ name = 'h', type = 'hinge', a = 'world', b = 'a', anchor = {0, 0, 0} }"), 7,
         "constraint 'h': missing required field 'axis'");
  expect(with_cons("{ name = 'm', type = 'motor', joint = 'x' }"), 7,
         "constraint 'm': missing required field 'max_force'");
  expect("return { name = 'm', bodies = {\n  { name = 'a', mass = 1, sphere = 0.1, pos = {0, 0, 0} } } }\n", 1,
         "mechanism: missing required field 'constraints'");
  expect("return { name = 'm', bodies = {}, constraints = {} }\n", 1, "field 'bodies' must not be empty");
}

static void test_wrong_types(void **state) {
  (void)state;
  expect(with_body("{ name = 'b', mass = 1, sphere = 0.1, pos = {0, 0, 0}, fixed = 1 }"), 4,
         "field 'fixed' must be a boolean (got number)");
  expect(with_body("{ name = 'b', mass = 1, sphere = 0.1, pos = 'origin' }"), 4,
         "field 'pos' must be a list of 3 numbers (got string)");
  expect(with_body("{ name = 'b', mass = 1, sphere = 0.1, pos = {0, 'y', 0} }"), 4,
         "component 2 of 'pos' must be a number (got string)");
  expect(with_body("{ name = 'b', mass = 1, sphere = 0.1, pos = {x = 0, y = 0, z = 0} }"), 4,
         "field 'pos' must be a list of 3 numbers");
  expect(with_body("'not a table'"), 2, "bodies[2] must be a table (got string)");
}

static void test_wrong_length_vector(void **state) {
  (void)state;
  expect(with_body("{ name = 'b', mass = 1, sphere = 0.1, pos = {0, 0} }"), 4,
         "body 'b': field 'pos' must have 3 components (got 2)");
  expect(with_body("{ name = 'b', mass = 1, sphere = 0.1, pos = {0, 0, 0}, rot = {1, 0, 0} }"), 4,
         "field 'rot' must have 4 components (got 3)");
  expect(with_body("{ name = 'b', mass = 1, sphere = 0.1, pos = {0, 0, 0}, rot = {0, 0, 0, 0} }"), 4,
         "'rot' must be a non-zero quaternion");
}

static void test_bad_settings(void **state) {
  (void)state;
  static const char *const cases[][2] = {
      {"dt = 0", "field 'dt' must be > 0"},
      {"iterations = 2.5", "field 'iterations' must be an integer >= 1 (got 2.5)"},
      {"iterations = 0", "field 'iterations' must be an integer >= 1 (got 0)"},
      {"epsilon = 1", "field 'epsilon' must be in [0, 1)"},
      {"beta = 1.5", "field 'beta' must be in [0, 1]"},
      {"shatter = true", "field 'shatter' must be an integer >= 1 or false"},
      {"ground = true", "field 'ground' must be false or a table"},
      {"friction = -1", "field 'friction' must be >= 0"},
      {"gravity = {0, 0}", "field 'gravity' must have 3 components (got 2)"},
      {"collide = 1", "field 'collide' must be a boolean (got number)"},
      {"stabilize = 'yes'", "field 'stabilize' must be a boolean (got string)"},
      {"max_contacts = 0", "field 'max_contacts' must be an integer >= 1 (got 0)"},
      {"max_contacts = 2e6", "field 'max_contacts' must be at most 1000000 (got 2e+06)"},
  };
  char src[512];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    snprintf(src, sizeof src,
             "return { name = 'm',\n\n  settings = { %s },\n"
             "  bodies = { { name = 'a', mass = 1, sphere = 0.1, pos = {0, 0, 0} } }, constraints = {} }\n",
             cases[i][0]);
    expect(src, 3, cases[i][1]);
  }
}

static void test_rank_deficient_rod(void **state) {
  (void)state;
  expect(with_cons("{ name = 'r', type = 'rod', a = 'a', b = 'b', anchor_a = {0.5, 0, 0}, anchor_b = {0.5, 0, 0} }"),
         7, "constraint 'r': degenerate at the initial pose: its Jacobian has rank 0 < degree 1 (a rod of zero "
            "length)");
  expect(with_cons("{ name = 'r', type = 'rod', a = 'a', b = 'b', anchor_a = {0.5, 0, 0}, anchor_b = {0.5, 0, 0},"
                   " length = 1 }"),
         7, "rank 0 < degree 1 (the anchors of the rod coincide)");
  expect(with_cons("{ name = 'r', type = 'rod', a = 'a', b = 'b', anchor_a = {0, 0, 0}, anchor_b = {1, 0, 0},"
                   " length = 0 }"),
         7, "field 'length' must be > 0");
  expect(with_cons("{ name = 'r', type = 'rope', a = 'a', b = 'b', anchor_a = {0, 0, 0}, anchor_b = {0, 0, 0} }"), 7,
         "the anchors of the rope coincide");
}

static void test_universal_parallel_axes(void **state) {
  (void)state;
  expect(with_cons("{ name = 'u', type = 'universal', a = 'a', b = 'b', anchor = {0.5, 0, 0},\n"
                   "      axis_a = {1, 0, 0}, axis_b = {2, 0, 0} }"),
         7, "constraint 'u' is degenerate at the initial pose: its Jacobian has rank 3 < degree 4");
  expect(with_cons("{ name = 'u', type = 'universal', a = 'a', b = 'b', anchor = {0.5, 0, 0},\n"
                   "      axis_a = {1, 0, 0}, axis_b = {1, 1, 0} }"),
         7, "axis_a and axis_b of a universal joint must be perpendicular");
}

static void test_bad_limit_references(void **state) {
  (void)state;
  const char *hinge = "{ name = 'h', type = 'hinge', a = 'world', b = 'a', anchor = {0, 0, 0}, axis = {0, 1, 0} },\n"
                      "    { name = 'p', type = 'prismatic', a = 'a', b = 'b', anchor = {0, 0, 0}, axis = {1, 0, 0} },\n"
                      "    { name = 'ball', type = 'ball', a = 'world', b = 'b', anchor = {1, 0, 0} },\n";
  char buf[2048];
  snprintf(buf, sizeof buf, "%s    { name = 'lim', type = 'angular_limit', hinge = 'nope', lower = -1, upper = 1 }",
           hinge);
  expect(with_cons(buf), 10, "constraint 'lim': field 'hinge' names unknown constraint 'nope'");
  snprintf(buf, sizeof buf, "%s    { name = 'lim', type = 'angular_limit', hinge = 'ball', lower = -1, upper = 1 }",
           hinge);
  expect(with_cons(buf), 10, "field 'hinge' must name a hinge or cylindrical constraint ('ball' is a ball)");
  snprintf(buf, sizeof buf, "%s    { name = 'lim', type = 'positional_limit', joint = 'h', lower = -1, upper = 1 }",
           hinge);
  expect(with_cons(buf), 10, "field 'joint' must name a prismatic or cylindrical constraint ('h' is a hinge)");
  snprintf(buf, sizeof buf, "%s    { name = 'mot', type = 'motor', joint = 'ball', max_force = 10 }", hinge);
  expect(with_cons(buf), 10, "field 'joint' must name a hinge, cylindrical or prismatic constraint");
  snprintf(buf, sizeof buf, "%s    { name = 'lim', type = 'angular_limit', hinge = 'h', lower = 1, upper = -1 }",
           hinge);
  expect(with_cons(buf), 10, "lower (1) must not exceed upper (-1)");
  /* a reference to a constraint that is itself wrong is not reported twice */
  snprintf(buf, sizeof buf, "%s    { name = 'lim', type = 'angular_limit', hinge = 'x', lower = -1, upper = 1 },\n"
           "    { name = 'x', type = 'hing', a = 'a', b = 'b', anchor = {0, 0, 0}, axis = {0, 1, 0} }", hinge);
  run r;
  run_src(&r, with_cons(buf), NULL);
  assert_int_equal(r.st, GEN_ERR_INPUT);
  assert_int_equal(r.d.n, 1);
  assert_int_equal(find_diag(&r.d, "unknown constraint type 'hing'")->line, 11);
  run_done(&r);
  snprintf(buf, sizeof buf, "%s    { name = 'mot', type = 'motor', joint = 'h', max_force = 0 }", hinge);
  expect(with_cons(buf), 10, "field 'max_force' must be > 0");
}

static void test_gc_line_after_call(void **state) {
  (void)state;
  /* the box table is built after vec() returns on the same line: its line is
   * 4, not vec's line 1 (a line hook would not fire again after the return) */
  expect("local function vec(x) return {x, 0, 0} end\n"
         "return { name = 'm', constraints = {}, bodies = {\n"
         "  { name = 'a', mass = 1, sphere = 0.1, pos = vec(0) },\n"
         "  { name = 'b', pos = vec(1), mass = 1, box = {0, 1, 1} },\n"
         "} }\n",
         4, "body 'b': the sides of 'box' must be > 0");
  /* tables built by a helper carry the helper's line */
  expect("local function body(n, m)\n"
         "  return { name = n, mass = m, sphere = 0.1, pos = {0, 0, 0} }\n"
         "end\n"
         "return { name = 'm', constraints = {}, bodies = { body('a', 1), body('b', -1) } }\n",
         2, "body 'b': field 'mass' must be > 0");
}

static void test_many_errors_reported(void **state) {
  (void)state;
  run r;
  run_src(&r,
          "return { name = 'm', bodies = {\n"
          "  { name = 'a', mass = -1, sphere = 0.1, pos = {0, 0, 0} },\n"
          "  { name = 'b', mass = 1, sphere = 0.1, pos = {0, 0} },\n"
          "}, constraints = {\n"
          "  { name = 'c', type = 'ball', a = 'a', b = 'zz', anchor = {0, 0, 0} },\n"
          "  { name = 'd', type = 'nope' },\n"
          "} }\n",
          NULL);
  assert_int_equal(r.st, GEN_ERR_INPUT);
  assert_int_equal(r.d.n, 4);
  assert_int_equal(find_diag(&r.d, "'mass' must be > 0")->line, 2);
  assert_int_equal(find_diag(&r.d, "must have 3 components")->line, 3);
  assert_int_equal(find_diag(&r.d, "unknown body 'zz'")->line, 5);
  assert_int_equal(find_diag(&r.d, "unknown constraint type 'nope'")->line, 6);
  run_done(&r);
}

/* Braces inside strings and comments are not constructors: the rewrite that
 * makes table lines exact must leave them alone. */
static void test_braces_in_strings_and_comments(void **state) {
  (void)state;
  const char *src = "-- a { comment }\n"
                    "--[==[ a long { comment ]] still\n going ]==]\n"
                    "local s = \"x{y}\" .. 'a\\'{' .. [[{\n]] .. [=[}]]=] .. \"\\\n}\"\n"
                    "assert(s == 'x{y}a\\'{{\\n}]\\n}', s)\n"
                    "local f = function(t) return t end\n"
                    "local t = f{ name = 'm', constraints = {} }\n"
                    "t.bodies = f\n"
                    "{\n"
                    "  { name = 'a', mass = 1, sphere = 0.1, pos = {0, 0, 0} },\n"
                    "  { name = 'b', mass = -1, sphere = 0.1, pos = {0, 0, 0} } }\n"
                    "return t\n";
  expect(src, 13, "body 'b': field 'mass' must be > 0");
}

static void test_too_many_errors(void **state) {
  (void)state;
  run r;
  run_src(&r,
          "local m = { name = 'm', bodies = {}, constraints = {} }\n"
          "for i = 1, 500 do m.bodies[i] = { name = 'b' .. i, mass = -1, sphere = 1, pos = {0, 0, 0} } end\n"
          "return m\n",
          NULL);
  assert_int_equal(r.st, GEN_ERR_INPUT);
  assert_int_equal(r.d.n, 101);
  assert_int_equal(r.d.items[0].line, 2);
  assert_non_null(strstr(r.d.items[100].msg, "too many errors (limit is 100)"));
  run_done(&r);
}

/* Name look-ups are hashed: a long chain loads quickly. */
static void test_large_mechanism(void **state) {
  (void)state;
  run r;
  run_src(&r,
          "local m = { name = 'chain', bodies = {}, constraints = {} }\n"
          "for i = 1, 50000 do\n"
          "  m.bodies[i] = { name = 'l' .. i, mass = 1, sphere = 0.1, pos = {0, 0, -i} }\n"
          "  m.constraints[i] = { name = 'j' .. i, type = 'ball', a = i == 1 and 'world' or 'l' .. (i - 1),\n"
          "                       b = 'l' .. i, anchor = {0, 0, 0.5 - i} }\n"
          "end\n"
          "return m\n",
          NULL);
  if (r.st != GEN_OK) diag_print(&r.d, stderr);
  assert_int_equal(r.st, GEN_OK);
  assert_int_equal(r.m.nbody, 50000);
  assert_int_equal(r.m.cons[49999].a, 49998);
  assert_int_equal(r.m.bodies[123].line, 3);
  assert_int_equal(r.m.cons[123].line, 4);
  run_done(&r);
}

/* Constraints are numbered in name order, runs of digits by value: the
 * order of the file does not matter, and targets follow their joints. */
static void test_constraints_numbered_by_name(void **state) {
  (void)state;
  assert_true(canon_name_cmp("joint2", "joint10") < 0);
  assert_true(canon_name_cmp("joint10", "joint2") > 0);
  assert_true(canon_name_cmp("pin09", "pin10") < 0);
  assert_true(canon_name_cmp("a1b", "a1c") < 0);
  assert_true(canon_name_cmp("a", "a0") < 0);
  assert_true(canon_name_cmp("a01", "a1") != 0); /* equal in value, still distinct */
  assert_true((canon_name_cmp("a01", "a1") < 0) == (canon_name_cmp("a1", "a01") > 0));
  assert_true(canon_name_cmp("B", "a") < 0);     /* bytes: upper case first */
  assert_int_equal(canon_name_cmp("x12y", "x12y"), 0);
  static const char *const order[2] = {"j10", "j2"};
  for (int v = 0; v < 2; v++) {
    char src[1024];
    snprintf(src, sizeof src,
             "return { name = 'n', bodies = {\n"
             "  { name = 'a', mass = 1, sphere = 0.1, pos = {0, 0, -1} },\n"
             "  { name = 'b', mass = 1, sphere = 0.1, pos = {0, 0, -2} } },\n"
             "  constraints = {\n"
             "  { name = 'lim', type = 'angular_limit', hinge = '%s', lower = -1, upper = 1 },\n"
             "  { name = '%s', type = 'hinge', a = 'world', b = 'a', anchor = {0, 0, 0}, axis = {0, 1, 0} },\n"
             "  { name = '%s', type = 'hinge', a = 'a', b = 'b', anchor = {0, 0, -1.5}, axis = {0, 1, 0} } } }\n",
             order[v], order[v], order[1 - v]);
    run r;
    run_src(&r, src, NULL);
    if (r.st != GEN_OK) diag_print(&r.d, stderr);
    assert_int_equal(r.st, GEN_OK);
    const mech_constraint *lim = &r.m.cons[mech_find_constraint(&r.m, "lim")];
    assert_string_equal(r.m.cons[lim->target].name, order[v]);
    assert_int_equal(lim->decl, 0);
    assert_int_equal(r.m.cons[mech_find_constraint(&r.m, order[v])].decl, 1);
    assert_string_equal(r.m.cons[0].name, "j2");
    assert_string_equal(r.m.cons[1].name, "j10");
    assert_string_equal(r.m.cons[2].name, "lim");
    run_done(&r);
  }
}

//---- valid mechanisms ---------------------------------------------------------------

static void load_file(run *r, const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", SRC_DIR, rel);
  arena_init(&r->a);
  diag_init(&r->d);
  r->st = load_mech(&r->a, path, NULL, &r->m, &r->d);
  if (r->st != GEN_OK) diag_print(&r->d, stderr);
}

static void assert_vec(const double *v, double x, double y, double z) {
  assert_true(fabs(v[0] - x) < 1e-15 && fabs(v[1] - y) < 1e-15 && fabs(v[2] - z) < 1e-15);
}

/* The constraint the file declared k-th (the mechanism numbers them by
 * name: canon.h). */
static const mech_constraint *declared(const mech *m, int k) {
  for (int i = 0; i < m->ncons; i++)
    if (m->cons[i].decl == k) return &m->cons[i];
  fail_msg("no constraint declared at %d", k);
  return NULL;
}

static void test_double_pendulum(void **state) {
  (void)state;
  run r;
  load_file(&r, "tests/data/double_pendulum.lua");
  assert_int_equal(r.st, GEN_OK);
  assert_int_equal(r.d.n, 0);
  const mech *m = &r.m;
  assert_string_equal(m->name, "double_pendulum");
  assert_int_equal(m->line, 2); /* the table built on line 2 and returned as m */
  assert_non_null(strstr(m->file, "tests/data/double_pendulum.lua"));
  assert_int_equal(m->nbody, 2);
  assert_int_equal(m->ncons, 3);
  for (int i = 0; i < 2; i++) {
    const mech_body *b = &m->bodies[i];
    assert_string_equal(b->name, i ? "link2" : "link1");
    assert_int_equal(b->line, 5);
    assert_true(b->mass == 1.0);
    /* box {0.05, 0.05, 0.5}: m/12 (sy^2 + sz^2, sx^2 + sz^2, sx^2 + sy^2) */
    assert_true(fabs(b->inertia[0] - (0.0025 + 0.25) / 12) < 1e-15);
    assert_true(fabs(b->inertia[1] - (0.0025 + 0.25) / 12) < 1e-15);
    assert_true(fabs(b->inertia[2] - 0.005 / 12) < 1e-15);
    assert_vec(b->pos, 0, 0, -0.25 - 0.5 * i);
    assert_true(b->rot[0] == 1 && b->rot[1] == 0 && b->rot[2] == 0 && b->rot[3] == 0);
    assert_vec(b->vel, 0, 0, 0);
    assert_vec(b->angvel, 0, 0, 0);
    assert_int_equal(b->fixed, 0);
    assert_int_equal(b->shape, MECH_SHAPE_NONE);
    assert_true(b->friction == -1);
  }
  /* numbered by name, each with its place in the file */
  assert_string_equal(m->cons[0].name, "elbow");
  assert_string_equal(m->cons[1].name, "elbow_limit");
  assert_string_equal(m->cons[2].name, "shoulder");
  const mech_constraint *c[3] = {declared(m, 0), declared(m, 1), declared(m, 2)};
  assert_string_equal(c[0]->name, "shoulder");
  assert_int_equal(c[0]->line, 8);
  assert_int_equal(c[0]->type, RT_HINGE);
  assert_int_equal(c[0]->a, MECH_WORLD);
  assert_int_equal(c[0]->b, 0);
  assert_int_equal(c[0]->target, -1);
  assert_vec(c[0]->anchor_a, 0, 0, 0);
  assert_vec(c[0]->anchor_b, 0, 0, 0);
  assert_vec(c[0]->axis_a, 0, 1, 0);
  assert_vec(c[0]->axis_b, 0, 1, 0);
  assert_string_equal(c[1]->name, "elbow");
  assert_int_equal(c[1]->line, 10);
  assert_int_equal(c[1]->a, 0);
  assert_int_equal(c[1]->b, 1);
  assert_vec(c[1]->anchor_a, 0, 0, -0.5);
  assert_vec(c[1]->anchor_b, 0, 0, -0.5);
  assert_string_equal(c[2]->name, "elbow_limit");
  assert_int_equal(c[2]->line, 12);
  assert_int_equal(c[2]->type, RT_ANGULAR_LIMIT);
  assert_int_equal(c[2]->target, 0); /* elbow */
  assert_int_equal(c[2]->a, 0);
  assert_int_equal(c[2]->b, 1);
  assert_true(c[2]->lower == -1.0 && c[2]->upper == 1.0);
  mech_settings def;
  mech_default_settings(&def);
  assert_memory_equal(&m->settings, &def, sizeof def);
  run_done(&r);
}

static void test_values_and_defaults(void **state) {
  (void)state;
  run r;
  run_src(&r,
          "return { name = 'v',\n"
          "  settings = { gravity = {0, -9.8, 0}, dt = 0.01, iterations = 4, epsilon = 0, beta = 1,\n"
          "               shatter = false, ground = { height = -1, friction = 0.5 }, friction = 0.3, collide = true,"
          " max_contacts = 40, stabilize = true },\n"
          "  bodies = {\n"
          "    { name = 'base', fixed = true, pos = {0, 0, 0} },\n"
          "    { name = 'a', mass = 2, inertia = {1, 2, 2.5}, pos = {1, 2, 3}, rot = {0, 0, 0, 2},\n"
          "      vel = {1, 0, 0}, angvel = {0, 0, 3}, shape = { capsule = {0.1, 0.5} }, friction = 0.2 },\n"
          "    { name = 'b', mass = 3, sphere = 0.5, pos = {2, 0, 0} },\n"
          "    { name = 'c', mass = 4, cylinder = {0.5, 2}, pos = {3, 0, 0} },\n"
          "    { name = 'd', mass = 4, capsule = {0.5, 1}, pos = {4, 0, 0}, shape = { box = {1, 2, 3} } },\n"
          "  },\n"
          "  constraints = {\n"
          "    { name = 'lim', type = 'positional_limit', joint = 'slide', lower = -0.5, upper = 0.5 },\n"
          "    { name = 'slide', type = 'prismatic', a = 'base', b = 'a', anchor = {1, 2, 3}, axis = {0, 0, 3} },\n"
          "    { name = 'rod', type = 'rod', a = 'a', b = 'b', anchor_a = {1, 2, 3}, anchor_b = {2, 0, 0} },\n"
          "    { name = 'rope', type = 'rope', a = 'b', b = 'c', anchor_a = {2, 0, 0}, anchor_b = {3, 0, 0},\n"
          "      length = 1.5 },\n"
          "    { name = 'u', type = 'universal', a = 'c', b = 'd', anchor = {3.5, 0, 0},\n"
          "      axis_a = {0, 2, 0}, axis_b = {0, 0, 1} },\n"
          "    { name = 'mot', type = 'motor', joint = 'slide', max_force = 100 },\n"
          "    { name = 'w', type = 'weld', a = 'world', b = 'd', anchor = {4, 0, 0} },\n"
          "  },\n"
          "}\n",
          NULL);
  if (r.st != GEN_OK) diag_print(&r.d, stderr);
  assert_int_equal(r.st, GEN_OK);
  const mech *m = &r.m;
  assert_int_equal(m->line, 1);
  const mech_settings *s = &m->settings;
  assert_vec(s->gravity, 0, -9.8, 0);
  assert_true(s->dt == 0.01 && s->iterations == 4 && s->epsilon == 0 && s->beta == 1);
  assert_int_equal(s->shatter, 0);
  assert_int_equal(s->has_ground, 1);
  assert_true(s->ground_height == -1 && s->friction == 0.3 && s->ground_friction == 0.5);
  assert_true(s->collide == 1 && s->max_contacts == 40 && s->stabilize == 1);
  const mech_body *b = m->bodies;
  assert_int_equal(b[0].fixed, 1);
  assert_true(b[0].mass == 0);
  assert_int_equal(b[1].line, 6);
  assert_vec(b[1].inertia, 1, 2, 2.5);
  assert_true(b[1].rot[0] == 0 && b[1].rot[3] == 1); /* normalized */
  assert_vec(b[1].vel, 1, 0, 0);
  assert_vec(b[1].angvel, 0, 0, 3);
  assert_int_equal(b[1].shape, MECH_SHAPE_CAPSULE);
  assert_true(b[1].shape_size[0] == 0.1 && b[1].shape_size[1] == 0.5);
  assert_true(b[1].friction == 0.2);
  assert_true(fabs(b[2].inertia[0] - 0.4 * 3 * 0.25) < 1e-15 && b[2].inertia[0] == b[2].inertia[2]);
  assert_true(fabs(b[3].inertia[0] - 4 * (3 * 0.25 + 4) / 12) < 1e-15);
  assert_true(b[3].inertia[1] == b[3].inertia[0] && fabs(b[3].inertia[2] - 0.5 * 4 * 0.25) < 1e-15);
  assert_true(fabs(b[4].inertia[0] - 4 * (3 * 0.25 + 4) / 12) < 1e-15); /* capsule: cylinder of length + 2r */
  assert_int_equal(b[4].shape, MECH_SHAPE_BOX);
  assert_vec(b[4].shape_size, 1, 2, 3);
  const mech_constraint *c[7];
  for (int k = 0; k < 7; k++) c[k] = declared(m, k);
  assert_string_equal(m->cons[c[0]->target].name, "slide"); /* forward reference */
  assert_int_equal(c[0]->a, 0);
  assert_int_equal(c[0]->b, 1);
  assert_true(c[0]->lower == -0.5 && c[0]->upper == 0.5);
  assert_vec(c[1]->axis_a, 0, 0, 1);
  assert_vec(c[1]->axis_b, 0, 0, 1);
  assert_true(fabs(c[2]->length - sqrt(1 + 4 + 9)) < 1e-15); /* rod: initial distance */
  assert_vec(c[2]->anchor_a, 1, 2, 3);
  assert_vec(c[2]->anchor_b, 2, 0, 0);
  assert_true(c[3]->length == 1.5);
  assert_int_equal(c[3]->target, -1);
  assert_vec(c[4]->axis_a, 0, 1, 0);
  assert_vec(c[4]->axis_b, 0, 0, 1);
  assert_string_equal(m->cons[c[5]->target].name, "slide");
  assert_true(c[5]->speed == 0 && c[5]->max_force == 100);
  assert_int_equal(c[6]->a, MECH_WORLD);
  run_done(&r);
}

/* Copies without the name pointers, which differ between arenas. */
static void assert_same_mech(const mech *x, const mech *y) {
  assert_string_equal(x->name, y->name);
  assert_int_equal(x->nbody, y->nbody);
  assert_int_equal(x->ncons, y->ncons);
  assert_int_equal(x->line, y->line);
  assert_memory_equal(&x->settings, &y->settings, sizeof x->settings);
  for (int i = 0; i < x->nbody; i++) {
    mech_body p, q;
    memset(&p, 0, sizeof p);
    memset(&q, 0, sizeof q);
    memcpy(&p, &x->bodies[i], sizeof p);
    memcpy(&q, &y->bodies[i], sizeof q);
    assert_string_equal(p.name, q.name);
    p.name = q.name = NULL;
    assert_memory_equal(&p, &q, sizeof p);
  }
  for (int i = 0; i < x->ncons; i++) {
    mech_constraint p, q;
    memcpy(&p, &x->cons[i], sizeof p);
    memcpy(&q, &y->cons[i], sizeof q);
    assert_string_equal(p.name, q.name);
    p.name = q.name = NULL;
    assert_memory_equal(&p, &q, sizeof p);
  }
}

static void test_load_twice_identical(void **state) {
  (void)state;
  static const char *const files[] = {"tests/data/double_pendulum.lua", "mechanisms/track.lua",
                                      "mechanisms/buggy.lua"};
  for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
    run r1, r2;
    load_file(&r1, files[k]);
    load_file(&r2, files[k]);
    assert_int_equal(r1.st, GEN_OK);
    assert_int_equal(r2.st, GEN_OK);
    assert_same_mech(&r1.m, &r2.m);
    run_done(&r1);
    run_done(&r2);
  }
}

static void test_missing_file(void **state) {
  (void)state;
  run r;
  load_file(&r, "tests/data/no_such_file.lua");
  assert_int_equal(r.st, GEN_ERR_IO);
  assert_int_equal(r.d.n, 1);
  assert_int_equal(r.d.items[0].line, 0);
  assert_non_null(strstr(r.d.items[0].msg, "cannot open mechanism file"));
  run_done(&r);
}

/* Every tests/data/bad/NAME.lua starts with "-- expect: LINE: substring"
 * (and "-- limit: N" for an instruction bound): load_mech must report it. */
static void test_bad_fixtures(void **state) {
  (void)state;
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/tests/data/bad", SRC_DIR);
  DIR *dp = opendir(dir);
  assert_non_null(dp);
  int nfiles = 0;
  struct dirent *e;
  while ((e = readdir(dp)) != NULL) {
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 4, ".lua") != 0) continue;
    char path[2048], head[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int line = -1;
    char want[400] = "";
    long long limit = 0;
    while (fgets(head, sizeof head, f) && strncmp(head, "--", 2) == 0) {
      head[strcspn(head, "\n")] = 0;
      if (sscanf(head, "-- expect: %d: %399[^\n]", &line, want) == 2) continue;
      sscanf(head, "-- limit: %lld", &limit);
    }
    fclose(f);
    if (line < 0) fail_msg("%s has no '-- expect: LINE: text' header", path);
    load_limits lim;
    load_default_limits(&lim);
    if (limit > 0) lim.max_instructions = limit;
    arena a;
    diag_list d;
    mech m;
    arena_init(&a);
    diag_init(&d);
    gen_status st = load_mech(&a, path, &lim, &m, &d);
    assert_int_not_equal(st, GEN_OK);
    const diag *x = find_diag(&d, want);
    if (x->line != line) fail_msg("%s: \"%s\" at line %d, expected %d", e->d_name, want, x->line, line);
    assert_string_equal(x->file, path);
    diag_free(&d);
    arena_free(&a);
    nfiles++;
  }
  closedir(dp);
  assert_true(nfiles >= 10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_syntax_error),
      cmocka_unit_test(test_runtime_error),
      cmocka_unit_test(test_long_chunkname),
      cmocka_unit_test(test_not_a_table),
      cmocka_unit_test(test_top_level_field_lines),
      cmocka_unit_test(test_cr_line_endings),
      cmocka_unit_test(test_deeply_nested_constructors),
      cmocka_unit_test(test_binary_chunk_refused),
      cmocka_unit_test(test_sandbox_globals_removed),
      cmocka_unit_test(test_sandbox_gc_metamethod_refused),
      cmocka_unit_test(test_sandbox_math_deterministic),
      cmocka_unit_test(test_print_goes_to_stderr),
      cmocka_unit_test(test_default_limits),
      cmocka_unit_test(test_instruction_limit),
      cmocka_unit_test(test_memory_limit),
      cmocka_unit_test(test_unknown_body),
      cmocka_unit_test(test_duplicate_body_name),
      cmocka_unit_test(test_duplicate_constraint_name),
      cmocka_unit_test(test_invalid_names),
      cmocka_unit_test(test_zero_length_axis),
      cmocka_unit_test(test_non_finite),
      cmocka_unit_test(test_self_constraint),
      cmocka_unit_test(test_both_fixed),
      cmocka_unit_test(test_unknown_fields),
      cmocka_unit_test(test_unknown_fields_sorted),
      cmocka_unit_test(test_unknown_type),
      cmocka_unit_test(test_bad_mass),
      cmocka_unit_test(test_bad_inertia),
      cmocka_unit_test(test_missing_field),
      cmocka_unit_test(test_wrong_types),
      cmocka_unit_test(test_wrong_length_vector),
      cmocka_unit_test(test_bad_settings),
      cmocka_unit_test(test_rank_deficient_rod),
      cmocka_unit_test(test_universal_parallel_axes),
      cmocka_unit_test(test_bad_limit_references),
      cmocka_unit_test(test_gc_line_after_call),
      cmocka_unit_test(test_many_errors_reported),
      cmocka_unit_test(test_braces_in_strings_and_comments),
      cmocka_unit_test(test_too_many_errors),
      cmocka_unit_test(test_large_mechanism),
      cmocka_unit_test(test_constraints_numbered_by_name),
      cmocka_unit_test(test_double_pendulum),
      cmocka_unit_test(test_values_and_defaults),
      cmocka_unit_test(test_load_twice_identical),
      cmocka_unit_test(test_missing_file),
      cmocka_unit_test(test_bad_fixtures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
