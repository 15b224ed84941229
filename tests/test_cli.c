/* test_cli.c -- the ldlgen command line: bad input leaves no output file
 * and names the file and line; outputs are byte-identical from run to run;
 * usage errors exit with 2. And ldlsim's simulation mode: the --json
 * summary keys of docs/DESIGN.md section 4, the --csv file (a header and one
 * line per step), --poses, the limit and motor keys, an exploded run (a result: exit 0), bad values and
 * option mixes (exit 2), bad mechanism files (exit 1, file:line); presets,
 * refinement and the block solver. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
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

/* --stats carries the keys of docs/DESIGN.md section 4. */
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

/* --diff on two mechanisms and on their generated files, --json, and
 * --textconv: a body with a joint added to chain at the end changes one
 * pivot's code and adds one. The new ball ties with hook (degree 1, 3 rows)
 * and comes first by name, so hook's node factor moves into its function
 * (a pivot's function factors the next pivot's node block). */
static void test_diff_and_textconv(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlgen-diff-XXXXXX", cmd[2048], out[16384];
  assert_non_null(mkdtemp(dir));
  snprintf(cmd, sizeof cmd,
           "{ printf 'local m = (function()\\n'; cat %s/mechanisms/chain.lua; printf '\\nend)()\\n"
           "m.bodies[#m.bodies + 1] = { name = \"extra\", mass = 1, box = { 0.1, 0.1, 0.1 }, pos = { 0, 0, -2 } }\\n"
           "m.constraints[#m.constraints + 1] = { name = \"extra_pin\", type = \"ball\", a = \"weight\", "
           "b = \"extra\", anchor = { 0, 0, -1.9 } }\\nreturn m\\n'; } > %s/new.lua",
           SRC_DIR, dir);
  assert_int_equal(system(cmd), 0);
  const char *forms[2][2] = {{"%s/mechanisms/chain.lua", "%s/new.lua"}, {"%s/old/chain.c", "%s/new/chain.c"}};
  snprintf(cmd, sizeof cmd, "mkdir -p %s/old %s/new && %s %s/mechanisms/chain.lua -o %s/old/chain.c && %s %s/new.lua -o %s/new/chain.c",
           dir, dir, LDLGEN_PATH, SRC_DIR, dir, LDLGEN_PATH, dir, dir);
  assert_int_equal(system(cmd), 0);
  for (int f = 0; f < 2; f++) {
    char a[700], b[700];
    snprintf(a, sizeof a, forms[f][0], f ? dir : SRC_DIR);
    snprintf(b, sizeof b, forms[f][1], dir);
    snprintf(cmd, sizeof cmd, "%s --diff %s %s 2>&1", LDLGEN_PATH, a, b);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, f ? "bodies added (1): EXTRA\n" : "bodies added (1): extra\n"));
    assert_non_null(strstr(out, "pivots added (1): extra_pin\n"));
    assert_non_null(strstr(out, "pivots whose code changed (1): hook\n"));
    assert_non_null(strstr(out, "dim              33 -> 36 (+3)\n"));
    assert_null(strstr(out, "pivots moved"));
    snprintf(cmd, sizeof cmd, "%s --diff %s %s --json 2>&1", LDLGEN_PATH, a, b);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "\"pivots_code_changed\": [\n    \"hook\"\n  ]"));
  }
  /* a file against itself: nothing */
  snprintf(cmd, sizeof cmd, "%s --diff %s/old/chain.c %s/old/chain.c 2>&1", LDLGEN_PATH, dir, dir);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_null(strstr(out, "added"));
  assert_null(strstr(out, "changed"));
  snprintf(cmd, sizeof cmd, "%s --textconv %s/old/chain.c > %s/tc.txt 2>&1 && head -c 8000 %s/tc.txt", LDLGEN_PATH,
           dir, dir, dir);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_true(strncmp(out, "ldlgen summary of ", 18) == 0);
  assert_non_null(strstr(out, "dim 33, fill blocks 0, flops 999"));
  assert_non_null(strstr(out, "\n\n/* generated by ldlgen"));
  snprintf(cmd, sizeof cmd, "%s --diff %s/old/chain.c 2>&1", LDLGEN_PATH, dir);
  assert_int_equal(run(cmd, out, sizeof out), 2);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
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

/* --batch N: 4, 8 or 16 lanes, else exit 2 naming the option and the
 * values; tables mode has no batch form (exit 2); --stats gains "batch"
 * with it and has no such key without; -o writes the batch entry points
 * and leaves no file on a usage error; a small factor's kernels are
 * static inline. */
static void test_batch_option(void **state) {
  (void)state;
  char cmd[1024], out[65536], dir[] = "/tmp/ldlgen_batchXXXXXX";
  assert_non_null(mkdtemp(dir));
  static const char *bad[] = {"5", "0", "32", "-8", "eight", "8x"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua -o %s/c.c --batch %s 2>&1", LDLGEN_PATH, SRC_DIR, dir, bad[i]);
    if (run(cmd, out, sizeof out) != 2) fail_msg("--batch %s did not exit with 2:\n%s", bad[i], out);
    if (!strstr(out, "--batch") || !strstr(out, "4, 8 or 16")) fail_msg("--batch %s: unclear message:\n%s", bad[i], out);
  }
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua -o %s/c.c --batch 8 --mode tables 2>&1", LDLGEN_PATH, SRC_DIR, dir);
  assert_int_equal(run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "--batch"));
  assert_non_null(strstr(out, "tables"));
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --batch 2>&1", LDLGEN_PATH, SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 2);
  assert_true(dir_is_empty(dir));
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --stats", LDLGEN_PATH, SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_null(strstr(out, "\"batch\""));
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --stats --batch 16 -o %s/c.c", LDLGEN_PATH, SRC_DIR, dir);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"batch\": 16"));
  assert_non_null(strstr(out, "\"dim\": 33"));
  /* the entry points: the factor, the solve and its halves */
  snprintf(cmd, sizeof cmd,
           "grep -c 'chain_batch_factor(\\|chain_batch_solve\\(_forward\\|_backward\\)\\?(\\|CHAIN_BATCH_LANES 16' %s/c.h", dir);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_int_equal(atoi(out), 5);
  /* a small factor's kernels static inline (the chain: 31 kernel calls),
   * a larger one's static (multi_wheel: 205) */
  snprintf(cmd, sizeof cmd, "grep -c '^static inline void lane_factor_node_3(' %s/c.c", dir);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_int_equal(atoi(out), 1);
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/multi_wheel.lua -o %s/b.c --batch 8", LDLGEN_PATH, SRC_DIR, dir);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  snprintf(cmd, sizeof cmd, "grep -c '^static inline void lane_' %s/b.c", dir);
  assert_int_equal(run(cmd, out, sizeof out), 1);
  assert_int_equal(atoi(out), 0);
  snprintf(cmd, sizeof cmd, "grep -c '^static void lane_factor_node_' %s/b.c", dir);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_true(atoi(out) >= 1);
  /* and so are the shared kernels of the scalar program each carries */
  snprintf(cmd, sizeof cmd, "grep -c '^#define RT_KERNELS_INLINE 1' %s/c.c", dir);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_int_equal(atoi(out), 1);
  snprintf(cmd, sizeof cmd, "grep -c 'RT_KERNELS_INLINE' %s/b.c", dir);
  assert_int_equal(run(cmd, out, sizeof out), 1);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

/* The text of dir/name from the line starting with mark on (NULL if the
 * mark is not in it), malloc'ed. */
static char *from_mark(const char *dir, const char *name, const char *mark) {
  char path[1024];
  size_t len;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *text = slurp(path, &len);
  if (!text) fail_msg("cannot read %s", path);
  const char *at = strstr(text, mark);
  char *part = at ? strdup(at) : NULL;
  free(text);
  return part;
}

/* An unrolled program's .c compiled with the header of another program of
 * the same identifiers (another mechanism's, --prefix chain) does not
 * compile: its sizes are the compiler's sums over its own tables, and a
 * _Static_assert holds the header's ID_DIM and ID_WORK_SIZE to them; with
 * its own header it compiles. */
static void test_header_of_another_program_refused(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlgen-stale-XXXXXX", cmd[4096], out[16384];
  assert_non_null(mkdtemp(dir));
  snprintf(cmd, sizeof cmd,
           "mkdir -p %s/a %s/b && %s %s/mechanisms/chain.lua -o %s/a/chain.c 2>/dev/null && "
           "%s %s/mechanisms/elimination_example.lua -o %s/b/chain.c --prefix chain 2>/dev/null",
           dir, dir, LDLGEN_PATH, SRC_DIR, dir, LDLGEN_PATH, SRC_DIR, dir);
  assert_int_equal(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "cd %s/a && cc -std=c11 -Wall -Wextra -Wpedantic -Werror -I%s/runtime/include -c chain.c -o p.o 2>&1",
           dir, SRC_DIR);
  if (run(cmd, out, sizeof out) != 0) fail_msg("chain.c does not compile with its own header:\n%s", out);
  snprintf(cmd, sizeof cmd,
           "cd %s/a && cp ../b/chain.h chain.h && cc -std=c11 -Wall -Wextra -Wpedantic -Werror -I%s/runtime/include -c chain.c "
           "-o p.o 2>&1",
           dir, SRC_DIR);
  assert_int_not_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "chain.h is not the header generated with this file"));
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

/* --mechanism-out M.c: the mechanism part (after the mark, the same bytes
 * as in the program's files without the option) in M.c and M.h, which
 * compile on their own with -Werror; the program's files without it, and
 * the same bytes after the weight's mass changes, which changes M.c alone.
 * --diff and --textconv find M.c next to the program's .c (and say so when
 * it is not there); usage errors exit with 2 and write nothing. */
static void test_mechanism_out(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlgen-mech-XXXXXX", cmd[4096], out[16384];
  assert_non_null(mkdtemp(dir));
  const char *mark = "/*---- the mechanism ";
  snprintf(cmd, sizeof cmd,
           "mkdir -p %s/one %s/a %s/b && sed 's/mass = 100.0/mass = 150.0/' %s/mechanisms/chain.lua > %s/heavier.lua && "
           "%s %s/mechanisms/chain.lua -o %s/one/chain.c && "
           "%s %s/mechanisms/chain.lua -o %s/a/chain.c --mechanism-out %s/a/chain_mech.c && "
           "%s %s/heavier.lua -o %s/b/chain.c --mechanism-out %s/b/chain_mech.c",
           dir, dir, dir, SRC_DIR, dir, LDLGEN_PATH, SRC_DIR, dir, LDLGEN_PATH, SRC_DIR, dir, dir, LDLGEN_PATH, dir,
           dir, dir);
  assert_int_equal(system(cmd), 0);
  /* the parts: the same bytes, in the mechanism's files only */
  static const char *const files[][2] = {{"chain.c", "chain_mech.c"}, {"chain.h", "chain_mech.h"}};
  for (int f = 0; f < 2; f++) {
    char one[600], a[600];
    snprintf(one, sizeof one, "%s/one", dir);
    snprintf(a, sizeof a, "%s/a", dir);
    char *whole = from_mark(one, files[f][0], mark), *own = from_mark(a, files[f][1], mark);
    assert_non_null(whole);
    assert_non_null(own);
    if (f == 0)
      assert_string_equal(whole, own);
    else /* the header's part, up to the end of its extern "C" */
      assert_true(strncmp(whole, own, strlen(whole) - strlen(strstr(whole, "#ifdef __cplusplus"))) == 0);
    assert_null(from_mark(a, files[f][0], mark));
    free(whole);
    free(own);
  }
  /* a mass: the program's files the same bytes, the mechanism's .c not */
  snprintf(cmd, sizeof cmd, "cd %s && cmp a/chain.c b/chain.c && cmp a/chain.h b/chain.h && cmp a/chain_mech.h b/chain_mech.h && "
           "! cmp -s a/chain_mech.c b/chain_mech.c", dir);
  assert_int_equal(system(cmd), 0);
  /* both compile on their own */
  snprintf(cmd, sizeof cmd,
           "cd %s/a && cc -std=c11 -Wall -Wextra -Wpedantic -Werror -I%s/runtime/include -c chain.c -o p.o 2>&1 && "
           "cc -std=c11 -Wall -Wextra -Wpedantic -Werror -I%s/runtime/include -c chain_mech.c -o m.o 2>&1",
           dir, SRC_DIR, SRC_DIR);
  if (run(cmd, out, sizeof out) != 0) fail_msg("the split files do not compile:\n%s", out);
  /* --diff and --textconv read the mechanism part next to the program */
  snprintf(cmd, sizeof cmd, "cd %s && %s --diff one/chain.c a/chain.c 2>&1", dir, LDLGEN_PATH);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_null(strstr(out, "added"));
  assert_null(strstr(out, "removed"));
  snprintf(cmd, sizeof cmd, "cd %s && %s --textconv a/chain.c 2>&1 | head -2", dir, LDLGEN_PATH);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "bodies 11, constraints 11, pivots 11"));
  snprintf(cmd, sizeof cmd, "cd %s && cp a/chain.c lone.c && %s --diff lone.c b/chain.c --json 2>&1", dir, LDLGEN_PATH);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"mechanism_compared\": false"));
  snprintf(cmd, sizeof cmd, "cd %s && %s --diff lone.c b/chain.c 2>&1", dir, LDLGEN_PATH);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "bodies and constraints not compared: lone.c's mechanism part chain_mech.c is not next to it"));
  /* usage errors: no -o, the same file name as -o's, not a .c */
  static const char *const bad[] = {"--mechanism-out %s/u/m.c", "-o %s/u/x.c --mechanism-out %s/u/x.c",
                                    "-o %s/u/x.c --mechanism-out %s/u/sub/x.c", "-o %s/u/x.c --mechanism-out %s/u/m.h"};
  snprintf(cmd, sizeof cmd, "mkdir -p %s/u/sub", dir);
  assert_int_equal(system(cmd), 0);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char opts[1024];
    snprintf(opts, sizeof opts, bad[i], dir, dir);
    snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua %s 2>&1", LDLGEN_PATH, SRC_DIR, opts);
    if (run(cmd, out, sizeof out) != 2) fail_msg("'%s' did not exit with 2:\n%s", opts, out);
    if (!strstr(out, "--mechanism-out")) fail_msg("'%s': the message does not name the option:\n%s", opts, out);
  }
  snprintf(cmd, sizeof cmd, "%s/u/sub", dir);
  assert_true(dir_is_empty(cmd));
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

/*---- ldlsim ----------------------------------------------------------------------*/

/* The tool NAME (ldlsim, soak) next to build/ldlgen, into path (test
 * programs depend on ldlgen only: `make test` builds them all). */
static const char *tool_path(const char *name, char *path, size_t cap) {
  const char *slash = strrchr(LDLGEN_PATH, '/');
  snprintf(path, cap, "%.*s/%s", (int)(slash - LDLGEN_PATH), LDLGEN_PATH, name);
  if (access(path, X_OK) != 0) fail_msg("%s is missing: build it (make %s)", path, path);
  return path;
}

static const char *ldlsim_path(void) {
  static char path[1024];
  return tool_path("ldlsim", path, sizeof path);
}

/* The number after "KEY": in a JSON summary; fails if the key is absent. */
static double json_number(const char *json, const char *key) {
  char pat[128];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *at = strstr(json, pat);
  if (!at) fail_msg("no key %s in\n%s", key, json);
  return strtod(at + strlen(pat), NULL);
}

static void test_ldlsim_json_summary(void **state) {
  (void)state;
  char cmd[2048], out[16384];
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --steps 30 --json", ldlsim_path(), SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  /* one JSON object */
  assert_true(out[0] == '{');
  size_t n = strlen(out);
  assert_true(n > 2 && out[n - 1] == '\n' && out[n - 2] == '}');
  assert_null(strchr(out + 1, '{'));
  static const char *keys[] = {"\"steps\": 30,", "\"max_pos_error\": ", "\"final_pos_error\": ",
                               "\"max_ang_error\": ", "\"exploded\": false", "\"us_per_step\": ",
                               "\"name\": \"chain\"", "\"solver\": \"ldlpgs\"", "\"iterations\": 10,"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (!strstr(out, keys[i])) fail_msg("missing %s in\n%s", keys[i], out);
  const double max_pos = json_number(out, "max_pos_error"), final_pos = json_number(out, "final_pos_error");
  assert_true(max_pos >= 0 && max_pos < 1e-3);
  assert_true(final_pos >= 0 && final_pos <= max_pos);
  assert_true(json_number(out, "max_ang_error") >= 0);
  assert_true(json_number(out, "us_per_step") > 0);
  /* options reach the run */
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --steps 12 --iterations 4 --dt 0.01 --solver pgs --json",
           ldlsim_path(), SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"steps\": 12,"));
  assert_non_null(strstr(out, "\"iterations\": 4,"));
  assert_non_null(strstr(out, "\"solver\": \"pgs\""));
  assert_true(json_number(out, "dt") == 0.01);
}

/* Pure PGS on the 1000:1 chain with the correction as a velocity bias
 * (the scheme before split impulses) explodes: a result, reported, exit 0. */
static void test_ldlsim_exploded_is_a_result(void **state) {
  (void)state;
  char cmd[2048], out[16384];
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --solver pgs --correction baumgarte --json", ldlsim_path(),
           SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"exploded\": true"));
  assert_non_null(strstr(out, "\"exploded_because\": "));
  assert_true(json_number(out, "steps") < 600);
}

static void test_ldlsim_csv(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlsim-csv-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char cmd[2048], out[16384], path[600];
  snprintf(path, sizeof path, "%s/run.csv", dir);
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --steps 25 --csv %s --json", ldlsim_path(), SRC_DIR, path);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"steps\": 25,"));
  size_t len;
  char *csv = slurp(path, &len);
  assert_non_null(csv);
  /* a header, then one line per step: step, time, then the measures */
  char *save = NULL, *line = strtok_r(csv, "\n", &save);
  assert_non_null(line);
  assert_true(strncmp(line, "step,time,pos_error,ang_error,", 30) == 0);
  assert_non_null(strstr(line, "energy"));
  int fields = 1;
  for (const char *c = line; *c; c++) fields += *c == ',';
  int rows = 0;
  while ((line = strtok_r(NULL, "\n", &save))) {
    rows++;
    int f = 1;
    for (const char *c = line; *c; c++) f += *c == ',';
    if (f != fields) fail_msg("row %d has %d fields, the header %d: %s", rows, f, fields, line);
    char *end;
    if (strtol(line, &end, 10) != rows || *end != ',') fail_msg("row %d does not start with its step: %s", rows, line);
    const double t = strtod(end + 1, &end);
    assert_true(fabs(t - rows / 60.0) < 1e-6);
    const double err = strtod(end + 1, &end);
    assert_true(err >= 0 && err < 1e-3);
  }
  assert_int_equal(rows, 25);
  free(csv);
  /* a CSV file that cannot be written: exit 1, naming it */
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --steps 3 --csv %s/no/such/dir/run.csv 2>&1", ldlsim_path(),
           SRC_DIR, dir);
  assert_int_equal(run(cmd, out, sizeof out), 1);
  assert_non_null(strstr(out, "run.csv"));
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

static void test_ldlsim_usage_errors(void **state) {
  (void)state;
  static const char *bad[] = {"--iterations 0", "--iterations abc", "--solver foo", "--dt -1", "--dt 0", "--dt nan",
                              "--steps 0",      "--beta 2",         "--csv",        "--frobnicate",
                              "--check --steps 10", "--check --solver pgs", "--seed 3", "--refine -1",
                              "--refine 101",   "--pcr-tolerance -1", "--pcr-iterations -2", "--preset",
                              "--check --block-solver", "--solver both --poses p.csv", "--check --poses p.csv", ""};
  char cmd[2048], out[16384];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const int with_file = bad[i][0] != '\0';
    snprintf(cmd, sizeof cmd, "%s %s%s %s 2>&1 >/dev/null", ldlsim_path(), with_file ? SRC_DIR : "",
             with_file ? "/mechanisms/chain.lua" : "", bad[i]);
    int rc = run(cmd, out, sizeof out);
    if (rc != 2) fail_msg("ldlsim '%s' exited %d, not 2:\n%s", bad[i], rc, out);
    if (strncmp(out, "ldlsim: ", 8) != 0 && strncmp(out, "usage: ", 7) != 0)
      fail_msg("ldlsim '%s': no message:\n%s", bad[i], out);
  }
}

/* --poses: a header, then every body (in the mechanism's order) at the
 * start and after each step, in numbers that read back exactly: the first
 * rows are the mechanism file's initial poses. A file that cannot be
 * written: exit 1 naming it, nothing left behind. */
static void test_ldlsim_poses(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlsim-poses-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char cmd[2048], out[16384], path[600];
  snprintf(path, sizeof path, "%s/poses.csv", dir);
  snprintf(cmd, sizeof cmd, "%s %s/tests/data/motor_boom.lua --steps 5 --poses %s --json", ldlsim_path(), SRC_DIR,
           path);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"steps\": 5,"));
  size_t len;
  char *csv = slurp(path, &len);
  assert_non_null(csv);
  char *save = NULL, *line = strtok_r(csv, "\n", &save);
  assert_non_null(line);
  assert_string_equal(line, "step,time,body,x,y,z,qw,qx,qy,qz");
  static const char *const names[] = {"boom", "link", "load"};
  /* the mechanism file's poses; the load's rotation {0.8, 0, 0, 0.6} */
  static const double start[3][7] = {
      {0.5, 0, 0, 1, 0, 0, 0}, {1, 0, -0.25, 1, 0, 0, 0}, {1, 0, -0.6, 0.8, 0, 0, 0.6}};
  int rows = 0;
  while ((line = strtok_r(NULL, "\n", &save))) {
    const int step = rows / 3, body = rows % 3;
    int f = 1;
    for (const char *c = line; *c; c++) f += *c == ',';
    if (f != 10) fail_msg("row %d has %d fields, not 10: %s", rows + 1, f, line);
    char *end;
    if (strtol(line, &end, 10) != step || *end != ',') fail_msg("row %d: not step %d: %s", rows + 1, step, line);
    const double t = strtod(end + 1, &end);
    assert_true(fabs(t - step / 60.0) < 1e-12);
    const size_t n = strlen(names[body]);
    if (strncmp(end + 1, names[body], n) != 0 || end[1 + n] != ',')
      fail_msg("row %d: not body %s: %s", rows + 1, names[body], line);
    end += 1 + n;
    double v[7];
    for (int k = 0; k < 7; k++) v[k] = strtod(end + 1, &end);
    assert_true(*end == '\0');
    if (step == 0)
      for (int k = 0; k < 7; k++)
        if (fabs(v[k] - start[body][k]) > (k < 3 ? 0.0 : 1e-15))
          fail_msg("%s starts with %.17g, not %.17g (column %d)", names[body], v[k], start[body][k], k + 4);
    rows++;
  }
  assert_int_equal(rows, 3 * (5 + 1));
  free(csv);
  /* a directory that does not exist: exit 1 naming the file, no file */
  snprintf(cmd, sizeof cmd, "%s %s/tests/data/motor_boom.lua --steps 3 --poses %s/no/such/dir/poses.csv 2>&1",
           ldlsim_path(), SRC_DIR, dir);
  assert_int_equal(run(cmd, out, sizeof out), 1);
  assert_non_null(strstr(out, "no/such/dir/poses.csv"));
  assert_non_null(strstr(out, "error"));
  /* a bad mechanism fails before the file is made: nothing left */
  snprintf(cmd, sizeof cmd, "%s %s/tests/data/bad/bad_limit_reference.lua --poses %s/bad.csv 2>&1", ldlsim_path(),
           SRC_DIR, dir);
  assert_int_equal(run(cmd, out, sizeof out), 1);
  snprintf(path, sizeof path, "%s/poses.csv", dir);
  assert_int_equal(remove(path), 0);
  assert_true(dir_is_empty(dir));
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

/* The --json keys max_limit_violation and max_motor_slip (README, ldlsim;
 * tests/test_watch.c checks their figures step by step): a limit past its
 * bound is overrun and one never reached is not; a rope swung hard is
 * overrun under plain PGS; a motor with ample force holds, one too weak is
 * saturated (which is not slip) while its arm falls, and plain PGS lets the
 * 250:1 boom's motor slip far below its force bound. */
static void test_ldlsim_limits_and_motors(void **state) {
  (void)state;
  char cmd[2048], out[16384];
  snprintf(cmd, sizeof cmd, "%s %s/tests/data/limit_past.lua --solver pgs --steps 60 --json", ldlsim_path(), SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_true(json_number(out, "max_limit_violation") > 0.1);
  assert_true(json_number(out, "max_motor_slip") == 0);
  snprintf(cmd, sizeof cmd, "%s %s/tests/data/limit_clear.lua --solver pgs --steps 300 --json", ldlsim_path(),
           SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_true(json_number(out, "max_limit_violation") == 0);
  snprintf(cmd, sizeof cmd, "%s %s/tests/data/rope_swing.lua --solver pgs --steps 120 --json", ldlsim_path(), SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_true(json_number(out, "max_limit_violation") > 1e-3);
  snprintf(cmd, sizeof cmd, "%s %s/tests/data/motor_hold.lua --solver pgs --json", ldlsim_path(), SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_true(json_number(out, "max_motor_slip") < 1e-6);
  assert_true(json_number(out, "max_limit_violation") == 0);
  snprintf(cmd, sizeof cmd, "%s %s/tests/data/motor_hold.lua --solver pgs --drive %s/tests/data/motor_weak.drive --json",
           ldlsim_path(), SRC_DIR, SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_true(json_number(out, "probe_z_final") < -0.2);
  assert_true(json_number(out, "max_motor_slip") < 1e-4);
  snprintf(cmd, sizeof cmd, "%s %s/tests/data/motor_boom.lua --solver pgs --iterations 1 --steps 120 --json",
           ldlsim_path(), SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_true(json_number(out, "max_motor_slip") > 0.1);
  /* the text summary names the worst limit and motor */
  snprintf(cmd, sizeof cmd, "%s %s/tests/data/motor_boom.lua --solver pgs --iterations 1 --steps 120", ldlsim_path(),
           SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "(m or rad, hold)"));
}

/* Presets, refinement and the block solver (README, "Precision
 * presets"): --check reports the residual before and after refinement, a
 * preset's parts can be overridden one by one in any order, PCR's figures
 * appear when asked for, and an unknown preset or block solver is a usage
 * error naming the valid values. */
static void test_ldlsim_presets(void **state) {
  (void)state;
  char cmd[2048], out[16384];
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/scissor_lift.lua --check --preset fast", ldlsim_path(), SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  static const char *keys[] = {"\"preset\": \"fast\"", "\"precision\": \"float\"", "\"refine\": 1,",
                               "\"refine_steps\": 1", "\"residual_unrefined\": "};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (!strstr(out, keys[i])) fail_msg("missing %s in\n%s", keys[i], out);
  const double fast = json_number(out, "residual"), unrefined = json_number(out, "residual_unrefined");
  assert_true(fast < 0.2 * unrefined);
  /* overrides, before or after the preset */
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/scissor_lift.lua --refine 12 --check --preset fast", ldlsim_path(),
           SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"refine\": 12,"));
  assert_true(json_number(out, "residual") < 1e-9);
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --check --preset accurate --precision float", ldlsim_path(),
           SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"precision\": \"float\""));
  assert_non_null(strstr(out, "\"refine\": 0,"));
  assert_true(json_number(out, "residual") == json_number(out, "residual_unrefined"));
  /* PCR in --check and in a run */
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --check --block-solver pcr --pcr-tolerance 1e-9",
           ldlsim_path(), SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"block_solver\": \"pcr\""));
  assert_true(json_number(out, "pcr_residual") <= 1.5e-9);
  assert_true(json_number(out, "pcr_iterations") > 0);
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --steps 20 --block-solver pcr --json", ldlsim_path(), SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"block_solver\": \"pcr\""));
  assert_true(json_number(out, "pcr_iterations_mean") > 0);
  assert_int_equal((int)json_number(out, "pcr_capped_steps"), 0);
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --steps 20 --preset fast --json", ldlsim_path(), SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"block_solver\": \"ldl\""));
  /* one refinement step a step, kept where it lowered the residual: the
   * chain's block step starts from the warm start, which some steps leave
   * nothing to refine */
  assert_true(json_number(out, "refine_steps") >= 10 && json_number(out, "refine_steps") <= 20);
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --steps 20 --preset float --json", ldlsim_path(), SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_int_equal((int)json_number(out, "refine_steps"), 0);
  /* unknown values: exit 2, naming the valid ones */
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --check --preset quick 2>&1", ldlsim_path(), SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "fast, accurate or float"));
  assert_non_null(strstr(out, "quick"));
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --block-solver cg 2>&1", ldlsim_path(), SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "ldl or pcr"));
  /* --coupled-contacts: in [0, 64], a simulation option, echoed in --json
   * with the contact passes it left to run */
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/buggy.lua --coupled-contacts 65 2>&1", ldlsim_path(), SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "--coupled-contacts needs an integer in [0, 64]"));
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/buggy.lua --check --coupled-contacts 4 2>&1", ldlsim_path(), SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 2);
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/buggy.lua --steps 30 --coupled-contacts 0 --json", ldlsim_path(),
           SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_int_equal((int)json_number(out, "coupled_contacts"), 0);
  assert_true(json_number(out, "mean_contact_passes") >= 0);
  assert_true(json_number(out, "capped_contact_passes") >= 0);
}

/* Bad mechanism files: exit 1, "file:line: error:" naming the file. */
static void test_ldlsim_bad_mechanism(void **state) {
  (void)state;
  static const char *files[] = {"unknown_body.lua", "syntax_error.lua", "non_finite.lua", "duplicate_body.lua",
                                "self_constraint.lua"};
  regex_t re;
  assert_int_equal(regcomp(&re, "^[^ ]+\\.lua:[0-9]+: error: ", REG_EXTENDED | REG_NEWLINE), 0);
  char cmd[2048], out[16384];
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    snprintf(cmd, sizeof cmd, "%s %s/tests/data/bad/%s --json 2>&1", ldlsim_path(), SRC_DIR, files[i]);
    int rc = run(cmd, out, sizeof out);
    if (rc != 1) fail_msg("%s: exit %d, output:\n%s", files[i], rc, out);
    if (!strstr(out, files[i]) || regexec(&re, out, 0, NULL, 0) != 0)
      fail_msg("%s: no file:line: error: message:\n%s", files[i], out);
    assert_null(strstr(out, "\"steps\"")); /* no summary */
  }
  regfree(&re);
  snprintf(cmd, sizeof cmd, "%s /nonexistent/mech.lua 2>&1", ldlsim_path());
  assert_int_equal(run(cmd, out, sizeof out), 1);
  assert_non_null(strstr(out, "/nonexistent/mech.lua"));
}

/*---- soak ------------------------------------------------------------------------*/

/* tools/soak.c fails a vehicle that does not stay where it rested: a cart
 * whose motor turns a wheel drives off at 0.25 m/s, though it neither
 * gains energy, rises nor tilts; with the motor at speed 0 it passes. */
static void test_soak_fails_a_vehicle_that_rolls_away(void **state) {
  (void)state;
  char soak[1024], cmd[4096], out[4096];
  tool_path("soak", soak, sizeof soak);
  const char *mech = SRC_DIR "/tests/data/soak_roll.lua";
  snprintf(cmd, sizeof cmd, "%s --steps 420 --settle 300 --precision double %s 2>&1", soak, mech);
  assert_int_equal(run(cmd, out, sizeof out), 1);
  assert_non_null(strstr(out, "soak_roll"));
  const char *w = strstr(out, "wandered");
  assert_non_null(w);
  assert_true(strtod(w + strlen("wandered"), NULL) > 0.4); /* 2 s at 0.25 m/s */
  assert_non_null(strstr(out, "FAIL"));

  char dir[] = "/tmp/ldlpgs-soak-XXXXXX";
  assert_non_null(mkdtemp(dir));
  snprintf(cmd, sizeof cmd, "sed 's/speed = 1,/speed = 0,/' %s > %s/still.lua", mech, dir);
  assert_int_equal(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "%s --steps 420 --settle 300 --precision double %s/still.lua 2>&1", soak, dir);
  const int st = run(cmd, out, sizeof out);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
  assert_int_equal(st, 0);
  assert_non_null(strstr(out, " ok"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_input_leaves_no_output),
      cmocka_unit_test(test_outputs_are_deterministic),
      cmocka_unit_test(test_stats_keys),
      cmocka_unit_test(test_batch_option),
      cmocka_unit_test(test_options),
      cmocka_unit_test(test_diff_and_textconv),
      cmocka_unit_test(test_mechanism_out),
      cmocka_unit_test(test_header_of_another_program_refused),
      cmocka_unit_test(test_ldlsim_json_summary),
      cmocka_unit_test(test_ldlsim_exploded_is_a_result),
      cmocka_unit_test(test_ldlsim_csv),
      cmocka_unit_test(test_ldlsim_poses),
      cmocka_unit_test(test_ldlsim_limits_and_motors),
      cmocka_unit_test(test_ldlsim_usage_errors),
      cmocka_unit_test(test_ldlsim_presets),
      cmocka_unit_test(test_ldlsim_bad_mechanism),
      cmocka_unit_test(test_soak_fails_a_vehicle_that_rolls_away),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
