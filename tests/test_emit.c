/* test_emit.c -- emitting programs as C: the plan (reductions decoded from
 * the RSI, kernels, function budget), golden files, determinism,
 * independence from numeric data, the target table and its branches,
 * template errors at template:line, the --templates override, and the
 * command line's output options. (Over 600 lines: one program per module,
 * and the golden, plan and CLI cases share their fixtures.)
 *
 * The golden files are the output of
 *   build/ldlgen mechanisms/elimination_example.lua -o tests/golden/elimination_example.c
 *   build/ldlgen tests/data/double_pendulum.lua -o tests/golden/double_pendulum_tables.c \
 *       --mode tables --precision double
 * regenerate them with those commands when a template changes on purpose
 * (and review the diff). The bitwise comparison of unrolled code with the
 * interpreter is tests/test_generated.c. */
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

#include "test_proc.h"

#include "emit.h"
#include "load.h"
#include "program.h"
#include "rtprog.h"
#include "target.h"

/*---- helpers ----------------------------------------------------------------*/

static int same_file(const char *a, const char *b) {
  size_t la, lb;
  char *x = slurp(a, &la), *y = slurp(b, &lb);
  int same = x && y && la == lb && memcmp(x, y, la) == 0;
  free(x);
  free(y);
  return same;
}

static int count_entries(const char *dir) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *e;
  int n = 0;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n;
}

static void rm_rf(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

/* A scratch directory holding a copy of templates/ in dir/tpl. */
static void scratch_with_templates(char *dir) {
  assert_non_null(mkdtemp(dir));
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "mkdir '%s/tpl' && cp %s/templates/* '%s/tpl/'", dir, SRC_DIR, dir);
  assert_int_equal(system(cmd), 0);
}

/* Inserts `line` before line number `at` (1-based) of a file. */
static void insert_line(const char *path, int at, const char *line) {
  size_t len;
  char *src = slurp(path, &len);
  assert_non_null(src);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  int ln = 1;
  for (size_t i = 0; i <= len; i++) {
    if (ln == at && (i == 0 || src[i - 1] == '\n')) {
      fputs(line, f);
      fputc('\n', f);
      ln++;
    }
    if (i < len) {
      fputc(src[i], f);
      if (src[i] == '\n') ln += ln < at;
    }
  }
  fclose(f);
  free(src);
}

/* The number of the line after the first line of a file that contains
 * text. */
static int line_after(const char *path, const char *text) {
  size_t len;
  char *src = slurp(path, &len);
  assert_non_null(src);
  char *at = strstr(src, text);
  if (!at) fail_msg("'%s' not found in %s", text, path);
  int ln = 2;
  for (char *c = src; c < at; c++) ln += *c == '\n';
  free(src);
  return ln;
}

/* Loads and builds a mechanism from source text. */
static void build_from_string(arena *a, const char *src, program *p) {
  diag_list d;
  diag_init(&d);
  mech *m = arena_alloc(a, sizeof *m);
  program_options o;
  program_default_options(&o);
  gen_status st = load_mech_string(a, "probe.lua", src, NULL, m, &d);
  if (st == GEN_OK) st = program_build(a, m, &o, p, &d);
  if (st != GEN_OK) {
    diag_print(&d, stderr);
    fail_msg("cannot build the probe mechanism");
  }
  diag_free(&d);
}

static void build_from_file(arena *a, const char *name, int shatter, program *p) {
  char path[512];
  snprintf(path, sizeof path, "%s/mechanisms/%s.lua", SRC_DIR, name);
  diag_list d;
  diag_init(&d);
  mech *m = arena_alloc(a, sizeof *m);
  program_options o;
  program_default_options(&o);
  if (shatter >= 0) o.shatter = shatter;
  gen_status st = load_mech(a, path, NULL, m, &d);
  if (st == GEN_OK) st = program_build(a, m, &o, p, &d);
  if (st != GEN_OK) {
    diag_print(&d, stderr);
    fail_msg("cannot build %s", path);
  }
  diag_free(&d);
}

/*---- the plan ------------------------------------------------------------------*/

/* Pivot of the block row holding row r of p's column, and that row's index
 * in its block. */
static int column_row(const rt_program *r, int p, int row, int *in_block) {
  for (int k = r->piv_blk_adr[p]; k < r->piv_blk_adr[p + 1]; k++) {
    int q = r->blk_piv[k], dq = r->cons_degree[r->piv_cons[q]];
    if (row < dq) {
      *in_block = row;
      return q;
    }
    row -= dq;
  }
  fail_msg("row outside the column of pivot %d", p);
  return -1;
}

/* The elements a reduce op writes, in order: out[i] = workspace offset. */
static int reduce_targets(const emit_plan *pl, const emit_op *op, int *out) {
  const emit_kernel *kn = &pl->kernels[op->kernel];
  int tri = kn->kind == EK_REDUCE_TRI, m = kn->m, n = tri ? kn->m : kn->n, cnt = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < (tri ? i + 1 : n); j++) out[cnt++] = op->a + i * n + j;
  return cnt;
}

/* Replays the factor functions' ops in call order against the dependences
 * of the reference arithmetic: every workspace element receives the RSI's
 * updates, each once, in pivot order; a node block is factored once, after
 * its last update; a panel runs after its pivot's node factor and after
 * the last update of its rows; a reduction runs after the panels of the
 * rows it reads; each pivot's reductions cover exactly its RSI. Also:
 * factor functions come in pivot order, none exceeds the budget unless it
 * holds a single pivot, a function reports a deferred node factor iff it
 * holds one; kernels are sorted, distinct and all used. */
static void check_plan(const rt_program *r, const emit_plan *pl) {
  int ws = r->work_size;
  int *expected = calloc((size_t)ws + 1, sizeof *expected), *done = calloc((size_t)ws + 1, sizeof *done);
  int *last = calloc((size_t)ws + 1, sizeof *last), *tg = calloc((size_t)ws + 1, sizeof *tg);
  unsigned char *factored = calloc((size_t)r->ncons + 1, 1), *used = calloc((size_t)pl->nkernel + 1, 1);
  unsigned char *row_done = calloc((size_t)r->dim + 1, 1);
  int64_t *nhit = calloc((size_t)r->ncons + 1, sizeof *nhit);
  assert_true(expected && done && last && tg && factored && used && row_done && nhit);
  for (int64_t k = 0; k < r->nrsi; k++) expected[r->rsi[k]]++;
  for (int i = 0; i < ws; i++) last[i] = -1;
  int prev_pivot = -1, last_phase = (int)EP_FACTOR, cur = -1;
  for (int f = 0; f < pl->nfn; f++) {
    const emit_fn *fn = &pl->fns[f];
    assert_true((int)fn->phase >= last_phase);
    last_phase = (int)fn->phase;
    if (fn->statements > pl->budget) assert_int_equal(fn->first_pivot, fn->last_pivot);
    for (int k = fn->op_adr; k < fn->op_adr + fn->op_num; k++)
      if (pl->ops[k].kernel >= 0) used[pl->ops[k].kernel] = 1;
    if (fn->phase != EP_FACTOR) continue;
    assert_int_equal(pl->ops[fn->op_adr].kind, EO_SECTION);
    assert_true(fn->part == 1 ? fn->first_pivot > prev_pivot : fn->first_pivot == prev_pivot);
    prev_pivot = fn->first_pivot;
    int has_node = 0, deferred = -1;
    for (int k = fn->op_adr; k < fn->op_adr + fn->op_num; k++) {
      const emit_op *op = &pl->ops[k];
      if (op->kind != EO_FACTOR_NODE && op->kind != EO_SECTION) assert_int_equal(op->pivot, fn->first_pivot);
      if (op->kind == EO_FACTOR_NODE) {
        int q = op->pivot, dq = r->cons_degree[r->piv_cons[q]];
        has_node = 1;
        if (op->n) deferred = q;
        assert_false(factored[q]);
        for (int i = 0; i < dq; i++)
          for (int j = 0; j <= i; j++) assert_int_equal(done[r->piv_node[q] + i * dq + j], expected[r->piv_node[q] + i * dq + j]);
        factored[q] = 1;
      } else if (op->kind == EO_PANEL) {
        int p = op->pivot, d = r->cons_degree[r->piv_cons[p]];
        if (p != cur) {
          memset(row_done, 0, (size_t)r->dim + 1);
          cur = p;
        }
        assert_true(factored[p]);
        for (int i = 0; i < op->n * d; i++) assert_int_equal(done[op->b + i], expected[op->b + i]);
        for (int i = 0; i < op->n; i++) row_done[op->c - RTPROG_TEMP_ET + i] = 1;
      } else if (op->kind == EO_REDUCE) {
        int p = op->pivot, d = r->cons_degree[r->piv_cons[p]];
        assert_int_equal(cur, p);
        /* the rows of L it reads (block row) and of Y^T (block column) */
        int row_l = (op->b - r->piv_edge[p]) / d, row_e = op->c - RTPROG_TEMP_ET, in;
        const emit_kernel *kn = &pl->kernels[op->kernel];
        int m = kn->m, n = kn->kind == EK_REDUCE_TRI ? kn->m : kn->n;
        assert_int_equal(column_row(r, p, row_l, &in), op->row);
        assert_int_equal(in, 0);
        assert_int_equal(column_row(r, p, row_e, &in), op->col);
        assert_int_equal(in, 0);
        for (int i = 0; i < m; i++) assert_true(row_done[row_l + i]);
        for (int j = 0; j < n; j++) assert_true(row_done[row_e + j]);
        int cnt = reduce_targets(pl, op, tg);
        for (int i = 0; i < cnt; i++) {
          assert_true(tg[i] >= 0 && tg[i] < ws);
          assert_true(last[tg[i]] < p); /* in pivot order, once per pivot */
          last[tg[i]] = p;
          done[tg[i]]++;
        }
        nhit[p] += cnt;
      }
    }
    assert_int_equal(fn->status, has_node);
    assert_int_equal(fn->fail_pivot, deferred);
  }
  for (int q = 0; q < r->ncons; q++) {
    assert_true(factored[q]);
    assert_int_equal(nhit[q], r->piv_rsi_adr[q + 1] - r->piv_rsi_adr[q]);
  }
  for (int i = 0; i < ws; i++) assert_int_equal(done[i], expected[i]);
  /* each pivot's reductions write exactly its RSI offsets */
  for (int p = 0; p < r->ncons; p++) {
    memset(done, 0, sizeof *done * (size_t)ws);
    for (int k = 0; k < pl->nop; k++) {
      const emit_op *op = &pl->ops[k];
      if (op->kind != EO_REDUCE || op->pivot != p) continue;
      int cnt = reduce_targets(pl, op, tg);
      for (int i = 0; i < cnt; i++) done[tg[i]] = 1;
    }
    for (int64_t k = r->piv_rsi_adr[p]; k < r->piv_rsi_adr[p + 1]; k++) assert_int_equal(done[r->rsi[k]], 1);
  }
  for (int k = 0; k < pl->nkernel; k++) {
    const emit_kernel *a = &pl->kernels[k];
    assert_true(used[k]);
    if (k > 0) {
      const emit_kernel *b = &pl->kernels[k - 1];
      int ka[4] = {(int)a->kind, a->m, a->n, a->d}, kb[4] = {(int)b->kind, b->m, b->n, b->d};
      assert_true(memcmp(kb, ka, sizeof ka) != 0);
      int less = 0;
      for (int i = 0; i < 4 && !less; i++) {
        if (kb[i] != ka[i]) {
          less = kb[i] < ka[i];
          break;
        }
      }
      assert_true(less);
    }
  }
  free(expected);
  free(done);
  free(last);
  free(tg);
  free(factored);
  free(used);
  free(row_done);
  free(nhit);
}

/* Every kernel a plan calls is in rt_kernels.h (emit_all_kernels). */
static void check_kernels_listed(const emit_plan *pl, rt_precision precision) {
  static emit_kernel all[EMIT_ALL_KERNELS_MAX];
  int n = emit_all_kernels(precision, all, EMIT_ALL_KERNELS_MAX);
  assert_true(n > 0 && n <= EMIT_ALL_KERNELS_MAX);
  for (int i = 0; i < pl->nkernel; i++) {
    const emit_kernel *k = &pl->kernels[i];
    int hit = 0;
    for (int j = 0; j < n && !hit; j++)
      hit = all[j].kind == k->kind && all[j].m == k->m && all[j].n == k->n && all[j].d == k->d;
    if (!hit) {
      char name[64];
      emit_kernel_name(k, name, sizeof name);
      fail_msg("kernel %s is not in rt_kernels.h", name);
    }
  }
}

static void test_plan_matches_rsi(void **state) {
  (void)state;
  static const struct {
    const char *name;
    int shatter, budget;
  } cases[] = {{"elimination_example", -1, 0}, {"track", -1, 0}, {"multi_wheel", -1, 0},
               {"multi_wheel", 0, 0},          {"multi_wheel", 0, 7}, {"buggy", -1, 3}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    arena a;
    arena_init(&a);
    program p;
    build_from_file(&a, cases[i].name, cases[i].shatter, &p);
    rt_program r;
    rtprog_build(&a, &p, RT_FLOAT, &r);
    emit_plan pl;
    diag_list d;
    diag_init(&d);
    assert_int_equal(emit_plan_build(&a, &r, cases[i].budget, NULL, &pl, &d), GEN_OK);
    assert_int_equal(pl.budget, cases[i].budget > 0 ? cases[i].budget : EMIT_DEFAULT_BUDGET);
    check_plan(&r, &pl);
    check_kernels_listed(&pl, RT_FLOAT);
    rt_program rd;
    emit_plan pd;
    rtprog_build(&a, &p, RT_DOUBLE, &rd);
    assert_int_equal(emit_plan_build(&a, &rd, cases[i].budget, NULL, &pd, &d), GEN_OK);
    check_kernels_listed(&pd, RT_DOUBLE);
    if (cases[i].budget == 7) { /* the dense vehicle's first pivot is split */
      int split = 0;
      for (int f = 0; f < pl.nfn; f++) split |= pl.fns[f].nparts > 1;
      assert_true(split);
    }
    diag_free(&d);
    arena_free(&a);
  }
}

/* An RSI that does not follow the block layout is refused, not emitted. */
static void test_plan_rejects_broken_rsi(void **state) {
  (void)state;
  arena a;
  arena_init(&a);
  program p;
  build_from_file(&a, "elimination_example", -1, &p);
  rt_program r;
  rtprog_build(&a, &p, RT_FLOAT, &r);
  int32_t *rsi = ARENA_ARRAY(&a, int32_t, r.nrsi);
  memcpy(rsi, r.rsi, sizeof *rsi * (size_t)r.nrsi);
  int32_t t = rsi[1];
  rsi[1] = rsi[2];
  rsi[2] = t;
  r.rsi = rsi;
  emit_plan pl;
  diag_list d;
  diag_init(&d);
  assert_int_not_equal(emit_plan_build(&a, &r, 0, NULL, &pl, &d), GEN_OK);
  assert_true(d.n == 1 && strstr(d.items[0].msg, "RSI") != NULL);
  diag_free(&d);
  arena_free(&a);
}

/*---- output ---------------------------------------------------------------------*/

static void test_golden_files(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlgen-golden-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char cmd[2048], out[8192], a[700], b[700];
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/elimination_example.lua -o %s/elimination_example.c 2>&1", LDLGEN_PATH,
           SRC_DIR, dir);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  snprintf(cmd, sizeof cmd,
           "%s %s/tests/data/double_pendulum.lua -o %s/double_pendulum_tables.c --mode tables --precision double 2>&1",
           LDLGEN_PATH, SRC_DIR, dir);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  static const char *files[] = {"elimination_example.c", "elimination_example.h", "double_pendulum_tables.c",
                                "double_pendulum_tables.h"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    snprintf(a, sizeof a, "%s/%s", dir, files[i]);
    snprintf(b, sizeof b, "%s/tests/golden/%s", SRC_DIR, files[i]);
    if (!same_file(a, b)) fail_msg("%s differs from tests/golden/%s (diff the two)", a, files[i]);
  }
  rm_rf(dir);
}

/* Byte-identical from run to run, and independent of how the input path is
 * spelled and of the working directory (no paths in the output). */
static void test_output_is_deterministic(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlgen-emitdet-XXXXXX";
  assert_non_null(mkdtemp(dir));
  static const char *mechs[] = {"multi_wheel", "buggy"};
  static const char *modes[] = {"--mode unrolled --precision float", "--mode tables --precision double"};
  for (size_t i = 0; i < 2; i++) {
    char cmd[2048], out[4096], a[600], b[600];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/1 %s/2 && %s %s/mechanisms/%s.lua -o %s/1/x.c %s 2>&1", dir, dir,
             LDLGEN_PATH, SRC_DIR, mechs[i], dir, modes[i]);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s ./mechanisms/../mechanisms/%s.lua -o %s/2/x.c %s 2>&1", SRC_DIR,
             LDLGEN_PATH, mechs[i], dir, modes[i]);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    static const char *ext[] = {"c", "h"};
    for (int k = 0; k < 2; k++) {
      snprintf(a, sizeof a, "%s/1/x.%s", dir, ext[k]);
      snprintf(b, sizeof b, "%s/2/x.%s", dir, ext[k]);
      if (!same_file(a, b)) fail_msg("%s and %s differ", a, b);
    }
  }
  rm_rf(dir);
}

/* Mechanism text with its numeric data (masses, sizes, positions, anchors)
 * as parameters; its structure is fixed. */
static const char *probe_fmt =
    "local m = { name = 'probe', bodies = {}, constraints = {} }\n"
    "m.bodies[1] = { name = 'arm', mass = %g, box = { 0.1, 0.1, %g }, pos = { 0, 0, %g } }\n"
    "m.bodies[2] = { name = 'bob', mass = %g, sphere = %g, pos = { %g, 0, -1 } }\n"
    "m.bodies[3] = { name = 'cart', mass = %g, box = { 1, 1, 0.2 }, pos = { 2, 0, %g } }\n"
    "m.constraints[1] = { name = 'pin', type = 'hinge', a = 'world', b = 'arm', anchor = { 0, 0, 0 },\n"
    "                     axis = { 0, 1, %g } }\n"
    "m.constraints[2] = { name = 'link', type = 'rod', a = 'arm', b = 'bob', anchor_a = { 0, 0, %g },\n"
    "                     anchor_b = { %g, 0, -1 } }\n"
    "m.constraints[3] = { name = 'rail', type = 'prismatic', a = 'world', b = 'cart', anchor = { 2, 0, %g },\n"
    "                     axis = { 1, 0, 0 } }\n"
    "m.constraints[4] = { name = 'tow', type = 'ball', a = 'cart', b = 'bob', anchor = { 1, 0, %g } }\n"
    "return m\n";

static void emit_text(const char *src, emit_mode mode, emit_output *out) {
  arena a;
  arena_init(&a);
  program p;
  build_from_string(&a, src, &p);
  emit_options o;
  emit_default_options(&o);
  o.mode = mode;
  o.header = "probe.h";
  o.version = "test";
  diag_list d;
  diag_init(&d);
  gen_status st = emit_program(&p, &o, out, &d);
  if (st != GEN_OK) diag_print(&d, stderr);
  assert_int_equal(st, GEN_OK);
  diag_free(&d);
  arena_free(&a);
}

/* The length of the program part of a generated text (before the
 * mechanism part, EMIT_MECHANISM_MARK). */
static size_t program_part(const char *text) {
  const char *mark = strstr(text, EMIT_MECHANISM_MARK);
  assert_non_null(mark);
  return (size_t)(mark - text);
}

/* The program does not depend on numeric data; the mechanism part after it
 * holds that data, so it does. */
static void test_numeric_data_does_not_change_output(void **state) {
  (void)state;
  char s1[2048], s2[2048];
  snprintf(s1, sizeof s1, probe_fmt, 1.0, 1.0, -0.5, 5.0, 0.1, 0.3, 20.0, 0.1, 0.0, -1.0, 0.3, 0.1, -0.2);
  snprintf(s2, sizeof s2, probe_fmt, 7.5, 2.5, -0.75, 0.25, 0.3, 0.6, 3.0, 0.5, 0.2, -0.9, 0.6, 0.4, -0.6);
  for (int mode = EMIT_UNROLLED; mode <= EMIT_TABLES; mode++) {
    emit_output a, b;
    emit_text(s1, (emit_mode)mode, &a);
    emit_text(s2, (emit_mode)mode, &b);
    assert_true(a.c_len > 1000);
    const size_t c_len = program_part(a.c), h_len = program_part(a.h);
    assert_true(c_len == program_part(b.c) && memcmp(a.c, b.c, c_len) == 0);
    assert_true(h_len == program_part(b.h) && memcmp(a.h, b.h, h_len) == 0);
    assert_true(a.h_len == b.h_len && memcmp(a.h, b.h, a.h_len) == 0); /* names only */
    assert_false(a.c_len == b.c_len && memcmp(a.c, b.c, a.c_len) == 0);
    assert_non_null(strstr(a.c + c_len, "        .mass = 1.0,\n"));
    assert_non_null(strstr(b.c + c_len, "        .mass = 7.5,\n"));
    assert_non_null(strstr(a.c, "const rt_program probe_program = {"));
    assert_non_null(strstr(a.c, mode == EMIT_TABLES ? ".factor = NULL," : ".factor = probe_factor,"));
    emit_output_free(&a);
    emit_output_free(&b);
  }
}

/* The output's promises: banner without dates or paths, one section per
 * pivot naming its constraint, the header's guard and declaration. */
static void test_output_shape(void **state) {
  (void)state;
  char src[2048];
  snprintf(src, sizeof src, probe_fmt, 1.0, 1.0, -0.5, 5.0, 0.1, 0.3, 20.0, 0.1, 0.0, -1.0, 0.3, 0.1, -0.2);
  emit_output o;
  emit_text(src, EMIT_UNROLLED, &o);
  assert_true(strncmp(o.c, "/* generated by ldlgen test from mechanism probe -- DO NOT EDIT.", 64) == 0);
  assert_null(strstr(o.c, "/tmp"));
  assert_null(strstr(o.c, SRC_DIR));
  static const char *pivots[] = {"pin", "link", "rail", "tow"};
  for (size_t i = 0; i < 4; i++) {
    char pat[64];
    char pat2[64];
    snprintf(pat, sizeof pat, "\n/*---- %s (", pivots[i]);
    snprintf(pat2, sizeof pat2, "\n  /* %s (", pivots[i]);
    if (!strstr(o.c, pat) && !strstr(o.c, pat2)) fail_msg("no section for pivot %s", pivots[i]);
    snprintf(pat, sizeof pat, "\n    X(%s, ", pivots[i]);
    if (!strstr(o.c, pat)) fail_msg("pivot %s is not in the table of pivots", pivots[i]);
  }
  assert_non_null(strstr(o.c, "\nstatic int pivot_"));
  assert_non_null(strstr(o.c, "#include \"probe.h\""));
  assert_non_null(strstr(o.h, "#ifndef LDLPGS_GENERATED_PROBE_H"));
  assert_non_null(strstr(o.h, "#include \"rt_world.h\""));
  assert_non_null(strstr(o.h, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n"));
  assert_non_null(strstr(o.h, "extern const rt_program probe_program;"));
  assert_non_null(strstr(o.h, "#define PROBE_WORK_SIZE "));
  /* the mechanism: names in mechanism order (bodies as declared, constraints
   * by name), the description, the settings,
   * the create function */
  const char *at = strstr(o.h, EMIT_MECHANISM_MARK);
  assert_non_null(at);
  static const char *const decls[] = {
      "enum probe_body {\n",         "    PROBE_BODY_ARM,\n",  "    PROBE_BODY_BOB,\n",
      "    PROBE_BODY_CART,\n",    "    PROBE_BODY_COUNT\n", "enum probe_joint {\n",
      "    PROBE_JOINT_LINK,\n",   "    PROBE_JOINT_PIN,\n",  "    PROBE_JOINT_RAIL,\n",
      "    PROBE_JOINT_TOW,\n",    "    PROBE_JOINT_COUNT\n",  "#define PROBE_GROUND 0\n",
      "extern const rt_world_desc probe_desc;\n", "extern const rt_settings probe_settings;\n",
      "rt_world *probe_create(const rt_settings *settings, rt_status *status);\n",
      "#ifdef __cplusplus\n}\n#endif\n"};
  for (size_t i = 0; i < sizeof decls / sizeof decls[0]; i++) {
    const char *hit = strstr(at, decls[i]);
    if (!hit) fail_msg("the header has no \"%s\" where expected", decls[i]);
    at = hit + strlen(decls[i]);
  }
  assert_non_null(strstr(o.c, "const rt_world_desc probe_desc = {\n"));
  assert_non_null(strstr(o.c, "    [PROBE_JOINT_LINK] = {\n        .type = RT_ROD,\n"));
  assert_non_null(strstr(o.c, "const rt_settings probe_settings = {\n"));
  assert_non_null(strstr(o.c, "rt_world *probe_create(const rt_settings *settings, rt_status *status) {\n"));
  emit_output_free(&o);
}

/*---- targets ---------------------------------------------------------------------*/

/* The target table (gen/target.h) is well formed: only the last row has no
 * condition, every vector is a power of two from one double up to the
 * panel, or 0 for the plain-C row (one lane), which comes first and is
 * chosen by LDLPGS_NO_VECTOR; one is as wide as the panel (target.c also
 * checks that when it compiles), and the plan's panels follow from it. */
static void test_target_table(void **state) {
  (void)state;
  assert_true(target_count >= 1);
  int widest = 0;
  for (int i = 0; i < target_count; i++) {
    const target_desc *t = &target_table[i];
    assert_non_null(t->name);
    assert_non_null(t->summary);
    if ((t->condition == NULL) != (i == target_count - 1))
      fail_msg("target %s: only the last row has no condition (it is the #else)", t->name);
    const int b = t->vector_bytes;
    if (b == 0) {
      if (i != 0 || !t->condition || !strstr(t->condition, "defined(LDLPGS_NO_VECTOR)"))
        fail_msg("target %s: a plain-C row is the first, selected by LDLPGS_NO_VECTOR", t->name);
      assert_int_equal(target_row_lanes(t, RT_FLOAT), 1);
      assert_int_equal(target_row_lanes(t, RT_DOUBLE), 1);
      continue;
    }
    if (b < (int)sizeof(double) || (b & (b - 1)) != 0 || b > TARGET_PANEL_BYTES)
      fail_msg("target %s: %d vector bytes", t->name, b);
    assert_int_equal(target_row_lanes(t, RT_DOUBLE), b / (int)sizeof(double));
    if (b > widest) widest = b;
    for (int j = 0; j < i; j++) assert_string_not_equal(t->name, target_table[j].name);
  }
  assert_int_equal(widest, TARGET_PANEL_BYTES);
  assert_int_equal(TARGET_VECTOR_ALIGN, 1);
  assert_int_equal(rtprog_lanes(RT_FLOAT), TARGET_PANEL_BYTES / (int)sizeof(float));
  assert_int_equal(rtprog_lanes(RT_DOUBLE), TARGET_PANEL_BYTES / (int)sizeof(double));
  assert_true(rtprog_lanes(RT_FLOAT) <= EMIT_MAX_LANES);
}

/* rt_kernels.h has, per precision, one branch of vector kernels per row of
 * the table, in its order (#if, #elif ..., #else, #endif), each under its
 * summary and holding panel kernels, and vector types up to the widest
 * row's lanes; unrolled code includes it and carries no kernel itself. */
static void test_output_has_every_target(void **state) {
  (void)state;
  char src[2048];
  snprintf(src, sizeof src, probe_fmt, 1.0, 1.0, -0.5, 5.0, 0.1, 0.3, 20.0, 0.1, 0.0, -1.0, 0.3, 0.1, -0.2);
  emit_output o;
  emit_text(src, EMIT_UNROLLED, &o);
  assert_non_null(strstr(o.c, "\n#include \"rt_kernels.h\"\n"));
  assert_non_null(strstr(o.c, "\n#define RT_KERNELS_DOUBLE 0\n"));
  assert_null(strstr(o.c, "static void panel_"));
  emit_output_free(&o);

  emit_options eo;
  emit_default_options(&eo);
  eo.version = "test";
  char *h;
  size_t len;
  diag_list d;
  diag_init(&d);
  assert_int_equal(emit_kernels_header(&eo, &h, &len, &d), GEN_OK);
  assert_int_equal(strlen(h), len);
  static const char *const prec[2] = {"#if RT_KERNELS_DOUBLE == 0\n", "#elif RT_KERNELS_DOUBLE == 1\n"};
  const char *at = h;
  for (int p = 0; p < 2; p++) {
    at = strstr(at, prec[p]);
    assert_non_null(at);
    int lanes = rtprog_lanes(p ? RT_DOUBLE : RT_FLOAT);
    char vec[64];
    snprintf(vec, sizeof vec, "typedef scalar v%d ", lanes);
    const char *v = strstr(at, vec);
    assert_non_null(v);
    snprintf(vec, sizeof vec, "typedef scalar v%d ", 2 * lanes);
    const char *v2 = strstr(at, vec);
    const char *next = p == 0 ? strstr(at, prec[1]) : strstr(at, "\n#else\n#error");
    assert_non_null(next);
    assert_true(v < next);
    assert_true(!v2 || v2 > next);
    at = strstr(at, "/*---- vector kernels");
    assert_non_null(at);
    for (int i = 0; i < target_count; i++) {
      const target_desc *t = &target_table[i];
      char branch[400];
      if (target_count == 1)
        snprintf(branch, sizeof branch, "\n/* %s */\n", t->summary);
      else if (i == 0)
        snprintf(branch, sizeof branch, "\n#if %s\n/* %s */\n", t->condition, t->summary);
      else if (t->condition)
        snprintf(branch, sizeof branch, "\n#elif %s\n/* %s */\n", t->condition, t->summary);
      else
        snprintf(branch, sizeof branch, "\n#else\n/* %s */\n", t->summary);
      const char *hit = strstr(at, branch);
      if (!hit) fail_msg("no branch for target %s (expected \"%s\" in order)", t->name, branch + 1);
      at = hit + strlen(branch);
      assert_non_null(strstr(at, "RT_KERNEL void panel_"));
    }
    assert_true(at < next);
    if (target_count > 1) assert_non_null(strstr(at, "\n#endif\n"));
  }
  free(h);
  diag_free(&d);
}

/* Pivot identifiers: a constraint's name with other characters made '_'
 * (names that become the same are refused by the header already, except a
 * shard weld's), cut at 40 characters, "_2", ... after a clash with an
 * earlier constraint or a name ending like a part ("_part2"); the output
 * compiles. */
static void test_pivot_identifiers(void **state) {
  (void)state;
  char src[4096];
  snprintf(src, sizeof src, probe_fmt, 1.0, 1.0, -0.5, 5.0, 0.1, 0.3, 20.0, 0.1, 0.0, -1.0, 0.3, 0.1, -0.2);
  static const char *const from[] = {"'pin'", "'link'", "'rail'"};
  static const char *const to[] = {"'k_part2'", "'a_very_long_constraint_name_of_fifty_characters_1'",
                                   "'a_very_long_constraint_name_of_fifty_characters_2'"};
  for (int i = 0; i < 3; i++) { /* the first occurrence: the constraint's name */
    char *at = strstr(src, from[i]);
    assert_non_null(at);
    char rest[4096];
    snprintf(rest, sizeof rest, "%s", at + strlen(from[i]));
    snprintf(at, sizeof src - (size_t)(at - src), "%s%s", to[i], rest);
  }
  emit_output o;
  emit_text(src, EMIT_UNROLLED, &o);
  static const char *const want[] = {"\n    X(k_part2_2, ", "\n    X(a_very_long_constraint_name_of_fifty_cha, ",
                                     "\n    X(a_very_long_constraint_name_of_fifty_cha_2, ", "\n    X(tow, "};
  for (int i = 0; i < 4; i++)
    if (!strstr(o.c, want[i])) fail_msg("no pivot line '%s' in:\n%.3000s", want[i] + 1, o.c);
  char dir[] = "/tmp/ldlgen-pid-XXXXXX", path[600], cmd[1600], out[4096];
  assert_non_null(mkdtemp(dir));
  const char *texts[2] = {o.c, o.h};
  static const char *const names[2] = {"probe.c", "probe.h"};
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[k]);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(texts[k], f);
    fclose(f);
  }
  snprintf(cmd, sizeof cmd, "cc -std=c11 -Wall -Wextra -Wpedantic -Werror -O2 -I%s/runtime/include -c %s/probe.c -o %s/probe.o 2>&1",
           SRC_DIR, dir, dir);
  if (run(cmd, out, sizeof out) != 0) fail_msg("does not compile:\n%s", out);
  emit_output_free(&o);
  rm_rf(dir);
}

/*---- templates -------------------------------------------------------------------*/

/* ldlgen with --templates dir/tpl on chain.lua, output in dir: exit status,
 * messages in out; no output or temporary file may be left on error. */
static int run_with_templates(const char *dir, char *out, size_t cap) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua -o %s/chain.c --templates %s/tpl 2>&1", LDLGEN_PATH, SRC_DIR,
           dir, dir);
  int rc = run(cmd, out, cap);
  if (rc != 0 && count_entries(dir) != 1) fail_msg("output left behind after an error:\n%s", out);
  return rc;
}

/* Inserts `line` at line `at` of template `file`, expects exit 1 with
 * "DIR/tpl/WHERE: error: ...WHAT" (and, if note is not NULL, a line
 * "DIR/tpl/NOTE:LINE: note: called from here" for the include chain),
 * then restores the template. */
static void expect_error(const char *dir, const char *file, int at, const char *line, const char *where,
                         const char *what, const char *note) {
  char path[700], out[8192], cmd[1600];
  snprintf(path, sizeof path, "%s/tpl/%s", dir, file);
  insert_line(path, at, line);
  int rc = run_with_templates(dir, out, sizeof out);
  snprintf(cmd, sizeof cmd, "cp '%s/templates/%s' '%s'", SRC_DIR, file, path);
  assert_int_equal(system(cmd), 0);
  if (rc != 1) fail_msg("'%s' in %s: exit %d:\n%s", line, file, rc, out);
  char loc[800];
  snprintf(loc, sizeof loc, "%s/tpl/%s: error: ", dir, where);
  if (!strstr(out, loc) || !strstr(out, what)) fail_msg("expected '%s' ... '%s' in:\n%s", loc, what, out);
  if (note) {
    snprintf(loc, sizeof loc, "\n%s/tpl/%s:", dir, note);
    const char *hit = strstr(out, loc);
    if (!hit || !strstr(hit, ": note: called from here")) fail_msg("expected a note at '%s' in:\n%s", loc + 1, out);
  }
}

static void test_template_errors_report_template_line(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlgen-tplerr-XXXXXX";
  scratch_with_templates(dir);
  /* a missing field of P, in the top template */
  expect_error(dir, "program.c.tpl", 3, "$(P.no_such_field)", "program.c.tpl:3", "no field 'no_such_field' in P",
               NULL);
  /* a Lua syntax error in an included template, with the include chain */
  expect_error(dir, "unrolled.tpl", 20, "--% if then", "unrolled.tpl:20", "near 'then'", "program.c.tpl");
  /* a runtime error inside a template function, called from elsewhere */
  char path[700], where[64];
  snprintf(path, sizeof path, "%s/templates/unrolled.tpl", SRC_DIR);
  int at = line_after(path, "function stmt.factor_node(op)");
  snprintf(where, sizeof where, "unrolled.tpl:%d", at);
  expect_error(dir, "unrolled.tpl", at, "--% local x = nil + 1", where, "arithmetic", "unrolled.tpl");
  /* expander errors: unterminated interpolation, nil value */
  expect_error(dir, "program.h.tpl", 4, "int x = $(P.name;", "program.h.tpl:4", "unterminated $(", NULL);
  expect_error(dir, "program.h.tpl", 4, "int x = $(nil);", "program.h.tpl:4", "$(nil) is nil", NULL);
  /* the data is read-only and pairs() is refused */
  expect_error(dir, "program.h.tpl", 4, "--% P.name = 'x'", "program.h.tpl:4", "read-only", NULL);
  expect_error(dir, "program.h.tpl", 4, "--% for k in pairs(P.sizes) do end", "program.h.tpl:4", "ipairs", NULL);
  /* an include of a template that does not exist */
  expect_error(dir, "program.c.tpl", 3, "--% include('nope.tpl')", "program.c.tpl:3", "nope.tpl: cannot read", NULL);
  /* the templates are intact again: it works */
  char out[8192];
  assert_int_equal(run_with_templates(dir, out, sizeof out), 0);
  rm_rf(dir);
}

static void test_templates_override(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlgen-tplovr-XXXXXX";
  scratch_with_templates(dir);
  char path[700], out[8192];
  snprintf(path, sizeof path, "%s/tpl/program.h.tpl", dir);
  insert_line(path, line_after(path, "#define $(P.guard)"), "/* override marker $(P.sizes.dim) */");
  assert_int_equal(run_with_templates(dir, out, sizeof out), 0);
  snprintf(path, sizeof path, "%s/chain.h", dir);
  size_t len;
  char *h = slurp(path, &len);
  assert_non_null(h);
  assert_non_null(strstr(h, "/* override marker 33 */"));
  free(h);
  /* without --templates, the built-in copies: no marker */
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua -o %s/chain.c 2>&1", LDLGEN_PATH, SRC_DIR, dir);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  h = slurp(path, &len);
  assert_non_null(h);
  assert_null(strstr(h, "override marker"));
  free(h);
  /* a directory without the templates */
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua -o %s/x.c --templates %s/nowhere 2>&1", LDLGEN_PATH, SRC_DIR,
           dir, dir);
  assert_int_equal(run(cmd, out, sizeof out), 1);
  assert_non_null(strstr(out, "nowhere/expand.lua: cannot read template"));
  rm_rf(dir);
}

/*---- command line -----------------------------------------------------------------*/

static void test_bad_options_exit_2(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlgen-emitopt-XXXXXX";
  assert_non_null(mkdtemp(dir));
  static const char *bad[] = {"-o", "-o out.txt", "-o .c", "--mode", "--mode fast", "--precision quad",
                              "--precision", "--prefix 9lives", "--prefix a-b", "--budget 0", "--budget x",
                              "--templates", "-o out.c --table"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char cmd[2048], out[8192];
    snprintf(cmd, sizeof cmd, "cd %s && %s %s/mechanisms/chain.lua %s 2>&1", dir, LDLGEN_PATH, SRC_DIR, bad[i]);
    if (run(cmd, out, sizeof out) != 2) fail_msg("'%s' did not exit with 2:\n%s", bad[i], out);
  }
  assert_int_equal(count_entries(dir), 0);
  rm_rf(dir);
}

/* -o writes OUT.c and OUT.h, leaves identical files alone, and the
 * existing options still work alongside. */
static void test_output_files(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlgen-emitout-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char cmd[2048], out[65536];
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/track.lua -o %s/t.c --mode tables --precision double --prefix trk "
           "--stats --report %s/r.json 2>&1", LDLGEN_PATH, SRC_DIR, dir, dir);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"dim\": 200"));
  assert_int_equal(count_entries(dir), 3);
  char path[600];
  size_t len;
  snprintf(path, sizeof path, "%s/t.c", dir);
  char *c = slurp(path, &len);
  assert_non_null(c);
  assert_non_null(strstr(c, "#include \"t.h\""));
  assert_non_null(strstr(c, "const rt_program trk_program = {"));
  assert_non_null(strstr(c, ".precision = RT_DOUBLE,"));
  assert_non_null(strstr(c, ".solve = NULL,"));
  free(c);
  snprintf(path, sizeof path, "%s/t.h", dir);
  char *h = slurp(path, &len);
  assert_non_null(h);
  assert_non_null(strstr(h, "#define TRK_DIM 200"));
  free(h);
  rm_rf(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plan_matches_rsi),
      cmocka_unit_test(test_plan_rejects_broken_rsi),
      cmocka_unit_test(test_golden_files),
      cmocka_unit_test(test_output_is_deterministic),
      cmocka_unit_test(test_numeric_data_does_not_change_output),
      cmocka_unit_test(test_output_shape),
      cmocka_unit_test(test_target_table),
      cmocka_unit_test(test_output_has_every_target),
      cmocka_unit_test(test_pivot_identifiers),
      cmocka_unit_test(test_template_errors_report_template_line),
      cmocka_unit_test(test_templates_override),
      cmocka_unit_test(test_bad_options_exit_2),
      cmocka_unit_test(test_output_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
