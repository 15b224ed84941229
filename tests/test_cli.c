/* test_cli.c -- the ldlgen command line: bad input leaves no output file
 * and names the file and line; outputs are byte-identical from run to run;
 * usage errors exit with 2. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_proc.h"


static int dir_is_empty(const char *path) {
  DIR *d = opendir(path);
  assert_non_null(d);
  struct dirent *e;
  int empty = 1;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = 0;
  closedir(d);
  return empty;
}

/* Every fixture in tests/data/bad: exit 1, "file:line: error:" naming the
 * fixture, and no output file (nor temporary) left in the output dir. */
static void test_bad_input_leaves_no_output(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlgen-cli-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char bad_dir[512];
  snprintf(bad_dir, sizeof bad_dir, "%s/tests/data/bad", SRC_DIR);
  DIR *d = opendir(bad_dir);
  assert_non_null(d);
  struct dirent *e;
  int count = 0;
  regex_t re;
  assert_int_equal(regcomp(&re, "^[^ ]+\\.lua:[0-9]+: error: ", REG_EXTENDED | REG_NEWLINE), 0);
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".lua") != 0) continue;
    char cmd[2048], out[8192];
    snprintf(cmd, sizeof cmd, "%s %s/%s --stats --dot %s/out.dot --report %s/out.json 2>&1", LDLGEN_PATH, bad_dir,
             e->d_name, dir, dir);
    int rc = run(cmd, out, sizeof out);
    if (rc != 1) fail_msg("%s: exit %d, output:\n%s", e->d_name, rc, out);
    if (!strstr(out, e->d_name)) fail_msg("%s: message does not name the file:\n%s", e->d_name, out);
    if (regexec(&re, out, 0, NULL, 0) != 0) fail_msg("%s: no file:line: error: message:\n%s", e->d_name, out);
    if (!dir_is_empty(dir)) fail_msg("%s: output left behind", e->d_name);
    count++;
  }
  closedir(d);
  regfree(&re);
  assert_true(count >= 5);
  rmdir(dir);
}

/* Two runs write the same bytes to stdout, the DOT file and the report. */
static void test_outputs_are_deterministic(void **state) {
  (void)state;
  static const char *mechs[] = {"multi_wheel", "track", "buggy"};
  char dir[] = "/tmp/ldlgen-det-XXXXXX";
  assert_non_null(mkdtemp(dir));
  for (size_t i = 0; i < sizeof mechs / sizeof mechs[0]; i++) {
    char *stats[2], *dots[2], *reps[2];
    size_t slen[2], dlen[2], rlen[2];
    for (int k = 0; k < 2; k++) {
      char cmd[2048];
      snprintf(cmd, sizeof cmd, "%s %s/mechanisms/%s.lua --stats --dot %s/g%d.dot --report %s/r%d.json > %s/s%d.json",
               LDLGEN_PATH, SRC_DIR, mechs[i], dir, k, dir, k, dir, k);
      assert_int_equal(system(cmd), 0);
      char p[600];
      snprintf(p, sizeof p, "%s/s%d.json", dir, k);
      stats[k] = slurp(p, &slen[k]);
      snprintf(p, sizeof p, "%s/g%d.dot", dir, k);
      dots[k] = slurp(p, &dlen[k]);
      snprintf(p, sizeof p, "%s/r%d.json", dir, k);
      reps[k] = slurp(p, &rlen[k]);
      assert_non_null(stats[k]);
      assert_non_null(dots[k]);
      assert_non_null(reps[k]);
    }
    assert_true(slen[0] > 100 && dlen[0] > 100 && rlen[0] > 100);
    assert_true(slen[0] == slen[1] && memcmp(stats[0], stats[1], slen[0]) == 0);
    assert_true(dlen[0] == dlen[1] && memcmp(dots[0], dots[1], dlen[0]) == 0);
    assert_true(rlen[0] == rlen[1] && memcmp(reps[0], reps[1], rlen[0]) == 0);
    /* the DOT file holds both graphs; multi_wheel's constraint graph has
     * its shard welds */
    assert_non_null(strstr(dots[0], "cluster_bodies"));
    assert_non_null(strstr(dots[0], "cluster_constraints"));
    if (i == 0) assert_non_null(strstr(dots[0], "chassis#weld1"));
    for (int k = 0; k < 2; k++) {
      free(stats[k]);
      free(dots[k]);
      free(reps[k]);
    }
  }
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

/* --stats carries the keys of DESIGN.md section 4. */
static void test_stats_keys(void **state) {
  (void)state;
  char cmd[1024], out[65536];
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/track.lua --stats", LDLGEN_PATH, SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  static const char *keys[] = {"\"name\": \"track\"", "\"bodies\": 40", "\"constraints\": 40", "\"shards\": 0",
                               "\"dim\": 200", "\"density\": 0.075", "\"fill_blocks\": ", "\"rsi_entries\": ",
                               "\"flops\": ", "\"order\": \"best\"", "\"pivots\": ["};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (!strstr(out, keys[i])) fail_msg("missing %s in\n%s", keys[i], out);
}

static void test_options(void **state) {
  (void)state;
  char cmd[1024], out[65536];
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/multi_wheel.lua --stats --shatter off --order mda", LDLGEN_PATH, SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"dim\": 88"));
  assert_non_null(strstr(out, "\"order\": \"mda\""));
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/multi_wheel.lua --stats --shatter 1000", LDLGEN_PATH, SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"dim\": 88"));
  static const char *bad[] = {"--order amd", "--shatter -3", "--shatter", "--frobnicate", ""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(cmd, sizeof cmd, "%s %s %s 2>&1", LDLGEN_PATH, i + 1 < sizeof bad / sizeof bad[0] ? SRC_DIR "/mechanisms/track.lua" : "", bad[i]);
    if (run(cmd, out, sizeof out) != 2) fail_msg("'%s' did not exit with 2:\n%s", bad[i], out);
  }
  snprintf(cmd, sizeof cmd, "%s /nonexistent/mech.lua --stats 2>&1", LDLGEN_PATH);
  assert_int_equal(run(cmd, out, sizeof out), 1);
  assert_non_null(strstr(out, "/nonexistent/mech.lua"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_input_leaves_no_output),
      cmocka_unit_test(test_outputs_are_deterministic),
      cmocka_unit_test(test_stats_keys),
      cmocka_unit_test(test_options),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
