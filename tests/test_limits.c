/* test_limits.c -- ldlgen's and ldlsim's limits fail fast: past --max-rows
 * or --max-memory they stop with file:line of the mechanism's return and
 * the numbers, exit 1 and write no output file; the defaults let every
 * sample through with room; bad values are usage errors (exit 2). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "program.h"
#include "test_proc.h"

static char dir[64];
static char ldlsim[512]; /* next to LDLGEN_PATH (build/ or build/san/) */
#define LDLSIM_PATH ldlsim

/* The bench's hinge chain with n links in dir/chainN.lua (its `return` is
 * on the file's last line, *ret_line). */
static void write_chain(int n, char *path, size_t cap, int *ret_line) {
  char src[512];
  snprintf(src, sizeof src, "%s/bench/scale/hinge_chain.lua", SRC_DIR);
  size_t len;
  char *text = slurp(src, &len);
  if (!text) abort();
  snprintf(path, cap, "%s/chain%d.lua", dir, n);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "LINKS = %d\n%s", n, text);
  fclose(f);
  int lines = 1; /* the prepended line */
  for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
  *ret_line = lines; /* "return m" is the last line */
  free(text);
}

static int dir_entries(void) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strncmp(e->d_name, "out", 3) == 0) n++;
  closedir(d);
  return n;
}

static int setup(void **state) {
  (void)state;
  const char *slash = strrchr(LDLGEN_PATH, '/');
  snprintf(ldlsim, sizeof ldlsim, "%.*s/ldlsim", (int)(slash - LDLGEN_PATH), LDLGEN_PATH);
  snprintf(dir, sizeof dir, "/tmp/ldlgen-limits-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* Runs cmd; expects exit status rc and (if want) a message at path:line. */
static void expect_run(const char *cmd, int rc, const char *path, int line, const char *want) {
  char out[8192];
  int got = run(cmd, out, sizeof out);
  if (got != rc) fail_msg("%s\nexit %d, expected %d; output:\n%s", cmd, got, rc, out);
  if (!want) return;
  char where[600];
  snprintf(where, sizeof where, "%s:%d: error: ", path, line);
  if (!strstr(out, where) || !strstr(out, want)) fail_msg("%s\nexpected \"%s...%s\" in:\n%s", cmd, where, want, out);
}

static void test_max_rows(void **state) {
  (void)state;
  char path[256], cmd[2048];
  int ret;
  write_chain(200, path, sizeof path, &ret); /* 200 hinges: 1000 rows */
  snprintf(cmd, sizeof cmd, "%s %s --max-rows 999 -o %s/out.c --dot %s/out.dot 2>&1", LDLGEN_PATH, path, dir, dir);
  expect_run(cmd, 1, path, ret, "mechanism has 1000 rows (200 equality constraints), more than the limit of 999");
  assert_int_equal(dir_entries(), 0);
  snprintf(cmd, sizeof cmd, "%s %s --max-rows 1000 --stats > /dev/null 2>&1", LDLGEN_PATH, path);
  expect_run(cmd, 0, NULL, 0, NULL);
  snprintf(cmd, sizeof cmd, "%s %s --max-rows 999 --steps 2 --csv %s/out.csv 2>&1", LDLSIM_PATH, path, dir);
  expect_run(cmd, 1, path, ret, "more than the limit of 999 (--max-rows)");
  snprintf(cmd, sizeof cmd, "%s %s --check --max-rows 999 2>&1", LDLSIM_PATH, path);
  expect_run(cmd, 1, path, ret, "more than the limit of 999 (--max-rows)");
  assert_int_equal(dir_entries(), 0);
  /* shard welds count: multi_wheel has 88 rows whole, 142 shattered */
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/multi_wheel.lua --max-rows 100 --stats 2>&1", LDLGEN_PATH, SRC_DIR);
  char mw[300];
  snprintf(mw, sizeof mw, "%s/mechanisms/multi_wheel.lua", SRC_DIR);
  expect_run(cmd, 1, mw, 54, "mechanism has 142 rows (29 equality constraints, shard welds included)");
  /* bad values */
  static const char *const bad[] = {"0", "-5", "x", "12abc", "99999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(cmd, sizeof cmd, "%s %s --max-rows '%s' 2>&1", LDLGEN_PATH, path, bad[i]);
    expect_run(cmd, 2, NULL, 0, NULL);
    snprintf(cmd, sizeof cmd, "%s %s --max-memory '%s' 2>&1", LDLSIM_PATH, path, bad[i]);
    expect_run(cmd, 2, NULL, 0, NULL);
  }
}

static void test_max_memory(void **state) {
  (void)state;
  char path[256], cmd[2048];
  int ret;
  /* a hub of 600 ball joints: 180,000 pairs of constraints on one body */
  snprintf(path, sizeof path, "%s/hub.lua", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("local m = { name = 'hub', bodies = { { name = 'hub', mass = 1, sphere = 1, pos = { 0, 0, 0 } } },\n"
        "  constraints = {} }\n"
        "for i = 1, 600 do\n"
        "  m.bodies[i + 1] = { name = 's' .. i, mass = 1, sphere = 0.1, pos = { 2, i, 0 } }\n"
        "  m.constraints[i] = { name = 'j' .. i, type = 'ball', a = 'hub', b = 's' .. i, anchor = { 1, i, 0 } }\n"
        "end\n"
        "return m\n",
        f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s %s --max-memory 4 -o %s/out.c 2>&1", LDLGEN_PATH, path, dir);
  expect_run(cmd, 1, path, 7, "pairs of constraints sharing a body; 'hub' carries 600), more than the memory limit of 4 MiB");
  snprintf(cmd, sizeof cmd, "%s %s --max-memory 4 2>&1", LDLSIM_PATH, path);
  expect_run(cmd, 1, path, 7, "the constraint graph would need");
  /* a chain of 2000 links: its factorization, then the C output (which
   * costs the most) */
  write_chain(2000, path, sizeof path, &ret);
  snprintf(cmd, sizeof cmd, "%s %s --max-memory 1 2>&1", LDLSIM_PATH, path);
  expect_run(cmd, 1, path, ret, "the factorization would need 1.2 MiB (1999 edge blocks, 29985 RSI entries");
  snprintf(cmd, sizeof cmd, "%s %s --max-memory 40 -o %s/out.c 2>&1", LDLGEN_PATH, path, dir);
  expect_run(cmd, 1, path, ret, "writing the program (unrolled) would need");
  snprintf(cmd, sizeof cmd, "%s %s --max-memory 40 --mode tables -o %s/out.c > /dev/null 2>&1", LDLGEN_PATH, path,
           dir);
  expect_run(cmd, 0, NULL, 0, NULL); /* tables cost less */
  snprintf(cmd, sizeof cmd, "rm -f %s/out.c %s/out.h", dir, dir);
  assert_int_equal(system(cmd), 0);
  assert_int_equal(dir_entries(), 0);
}

/* A grid's factorization is far larger than its graph. */
static void test_factor_memory(void **state) {
  (void)state;
  char path[256], cmd[2048];
  snprintf(path, sizeof path, "%s/grid.lua", dir);
  char src[512];
  snprintf(src, sizeof src, "%s/bench/scale/grid.lua", SRC_DIR);
  size_t len;
  char *text = slurp(src, &len);
  if (!text) abort();
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "SIDE = 30\n%s", text);
  fclose(f);
  int ret = 1;
  for (size_t i = 0; i < len; i++) ret += text[i] == '\n';
  free(text);
  snprintf(cmd, sizeof cmd, "%s %s --max-memory 4 --stats 2>&1", LDLGEN_PATH, path);
  expect_run(cmd, 1, path, ret, "the factorization would need");
  snprintf(cmd, sizeof cmd, "%s %s --max-memory 4 --steps 1 2>&1", LDLSIM_PATH, path);
  expect_run(cmd, 1, path, ret, "RSI entries");
}

/* Every sample passes the defaults with room: under a tenth of each. */
static void test_defaults_have_room(void **state) {
  (void)state;
  static const char *const samples[] = {"buggy",       "chain", "elimination_example", "multi_wheel",
                                        "scissor_lift", "tank",  "track"};
  for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
    char cmd[2048], out[1 << 16];
    snprintf(cmd, sizeof cmd, "%s %s/mechanisms/%s.lua --stats --max-rows %d --max-memory %lld 2>&1", LDLGEN_PATH,
             SRC_DIR, samples[i], PROGRAM_MAX_ROWS_DEFAULT / 10, (long long)(PROGRAM_MAX_MEMORY_DEFAULT >> 20) / 10);
    if (run(cmd, out, sizeof out) != 0) fail_msg("%s: %s", samples[i], out);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_max_rows),
      cmocka_unit_test(test_max_memory),
      cmocka_unit_test(test_factor_memory),
      cmocka_unit_test(test_defaults_have_room),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
