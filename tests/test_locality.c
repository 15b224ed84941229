/* test_locality.c -- generated programs that review well (issue 18): small
 * edits of a mechanism give small diffs of its generated files.
 *
 *   swap    two constraints' declarations, adjacent or far apart: not a
 *           byte of either file changes (the constraints are numbered by
 *           name, gen/canon.h)
 *   rename  one body (to a name that sorts after the others), or one
 *           constraint (to a name that keeps its place in name order):
 *           every changed line contains its old or new name, or is the
 *           frame of a function cut at it (gen/chunk.h); with
 *           --keep-order, a constraint whose new name is an anchor where
 *           its old one was not (or the other way round): every changed
 *           line contains the name (the cuts are the previous program's)
 *   add     one body with a ball joint, and remove one joint: at most 5 %
 *           of the lines change; the functions cut by name keep their
 *           cuts, and the sweep's pairs change in the edit's part only
 *   kept cuts  with --keep-order, a constraint that began functions taken
 *           out: the next one of each function begins it instead
 *   keep    ldlgen --keep-order OLD.c: a part hung in the middle of the
 *           chain goes in before the joint it hangs from, every other
 *           pivot keeps its place (the fresh order turns half the chain
 *           around), at the same flops; an order that would cost flops is
 *           not kept (a note says so); a missing or foreign OLD.c is an
 *           error naming it; a small program's order is kept within
 *           100 flops; the shattering is kept too (a wheel taken
 *           off a shattered chassis moves no axle to another shard); a
 *           program without pivots is kept too
 *
 * Each case wraps a sample as `local m = (function() ... end)()`, edits the
 * table in Lua and runs ldlgen on the original and the edit. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunk.h"
#include "test_proc.h"

enum { MAX_LINES = 40000 };

typedef struct lines {
  char *text;  /* the file, NUL at every line end */
  char **line; /* (n) */
  int n;
} lines;

static void read_lines(const char *path, lines *l) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  l->text = malloc((size_t)size + 1);
  l->line = malloc(sizeof *l->line * MAX_LINES);
  assert_non_null(l->text);
  assert_non_null(l->line);
  assert_int_equal(fread(l->text, 1, (size_t)size, f), (size_t)size);
  fclose(f);
  l->text[size] = '\0';
  l->n = 0;
  for (char *p = l->text; *p && l->n < MAX_LINES;) {
    l->line[l->n++] = p;
    char *e = strchr(p, '\n');
    if (!e) break;
    *e = '\0';
    p = e + 1;
  }
}

static void free_lines(lines *l) {
  free(l->text);
  free(l->line);
}

/* 1 if needle occurs in hay, ignoring case (the enums upper-case names). */
static int contains_nocase(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++) {
    size_t k = 0;
    while (k < n && hay[k] && tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k])) k++;
    if (k == n) return 1;
  }
  return 0;
}

/* Writes DIR/NAME.lua: the sample wrapped, then `edit` (Lua on m). */
static void write_edit(const char *dir, const char *name, const char *sample, const char *edit) {
  char path[512], src[512];
  snprintf(path, sizeof path, "%s/%s.lua", dir, name);
  if (strchr(sample, '/')) /* a file of the repository, not a sample */
    snprintf(src, sizeof src, "%s/%s", SRC_DIR, sample);
  else
    snprintf(src, sizeof src, "%s/mechanisms/%s.lua", SRC_DIR, sample);
  FILE *in = fopen(src, "rb"), *out = fopen(path, "wb");
  assert_non_null(in);
  assert_non_null(out);
  fputs("local m = (function()\n", out);
  char buf[4096];
  size_t k;
  while ((k = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, k, out);
  fprintf(out, "\nend)()\n%s\nreturn m\n", edit);
  fclose(in);
  fclose(out);
}

/* ldlgen DIR/NAME.lua -o DIR/NAME/x.c */
static void generate(const char *dir, const char *name) {
  char cmd[1024], out[4096];
  snprintf(cmd, sizeof cmd, "mkdir -p %s/%s && %s %s/%s.lua -o %s/%s/x.c 2>/dev/null", dir, name, LDLGEN_PATH, dir,
           name, dir, name);
  if (run(cmd, out, sizeof out) != 0) fail_msg("ldlgen failed on %s/%s.lua", dir, name);
}

/* Lines of b not matched in a and of a not in b, by diff(1): calls
 * keep(line, ctx) on each; returns how many it rejected. */
typedef int (*line_ok)(const char *line, const void *ctx);
static int changed_lines(const char *a, const char *b, line_ok ok, const void *ctx, int *changed) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "diff %s %s", a, b);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  char line[65536];
  int bad = 0, del = 0, ins = 0;
  while (fgets(line, sizeof line, p)) {
    if (line[0] != '<' && line[0] != '>') continue;
    if (line[0] == '<') del++;
    if (line[0] == '>') ins++;
    if (ok && !ok(line + 2, ctx)) {
      bad++;
      print_error("unexpected changed line: %s", line);
    }
  }
  pclose(p);
  if (changed) *changed = del > ins ? del : ins;
  return bad;
}

typedef struct names {
  const char *v[3];
} names;

/* A line with one of the names (ctx: a names), and nothing else. */
static int names_only(const char *line, const void *ctx) {
  const names *n = ctx;
  for (int i = 0; i < 3 && n->v[i]; i++)
    if (contains_nocase(line, n->v[i])) return 1;
  return 0;
}

/* A line with one of the names, or a function's frame without a name (a
 * closing brace, a blank line, a backward solve's sums): a renamed
 * constraint whose new name is an anchor and its old one not (or the other
 * way round) starts a function cut by chunk.h (or no longer does), named
 * after it. */
static int names_a_name(const char *line, const void *ctx) {
  if (names_only(line, ctx)) return 1;
  return strcmp(line, "}\n") == 0 || strcmp(line, "\n") == 0 || strcmp(line, "  scalar s[RT_MAX_DEGREE];\n") == 0;
}

/* 1 if the files at a and b hold the same bytes. */
static int same_bytes(const char *a, const char *b) {
  lines la, lb;
  read_lines(a, &la);
  read_lines(b, &lb);
  int same = la.n == lb.n;
  for (int i = 0; same && i < la.n; i++) same = strcmp(la.line[i], lb.line[i]) == 0;
  free_lines(&la);
  free_lines(&lb);
  return same;
}

static void check_swap(const char *sample, const char *c1, const char *c2) {
  char dir[] = "/tmp/ldlgen-locality-XXXXXX", edit[512], a[600], b[600], cmd[700];
  assert_non_null(mkdtemp(dir));
  write_edit(dir, "none", sample, "");
  snprintf(edit, sizeof edit,
           "local i, j\nfor k, c in ipairs(m.constraints) do\n"
           "  if c.name == '%s' then i = k elseif c.name == '%s' then j = k end\nend\n"
           "assert(i and j)\nm.constraints[i], m.constraints[j] = m.constraints[j], m.constraints[i]",
           c1, c2);
  write_edit(dir, "swap", sample, edit);
  generate(dir, "none");
  generate(dir, "swap");
  for (int f = 0; f < 2; f++) {
    snprintf(a, sizeof a, "%s/none/x.%s", dir, f ? "h" : "c");
    snprintf(b, sizeof b, "%s/swap/x.%s", dir, f ? "h" : "c");
    if (!same_bytes(a, b)) fail_msg("%s: swapping %s and %s changed x.%s", sample, c1, c2, f ? "h" : "c");
  }
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

static int generate_keep(const char *dir, const char *name, const char *keep, char *err, size_t cap);

/* Renames a part of m[list] ("bodies" or "constraints") from old to new
 * with every reference to it: every changed line contains the old name
 * (the new one contains it too), or is a function's frame at a cut that
 * the new name moved (names_a_name). With keep, both sides are generated
 * with --keep-order (the original's from its own fresh program, as a
 * repository that always keeps would have it), and every changed line
 * must contain the name. */
static void check_rename(const char *sample, const char *list, const char *old, const char *renamed, int keep) {
  char dir[] = "/tmp/ldlgen-locality-XXXXXX", edit[1024], a[600], b[600], cmd[700];
  assert_non_null(mkdtemp(dir));
  write_edit(dir, "none", sample, "");
  snprintf(edit, sizeof edit,
           "local old, new = '%s', '%s'\nlocal found\n"
           "for _, b in ipairs(m.%s) do if b.name == old then b.name = new; found = true end end\n"
           "assert(found)\n"
           "for _, c in ipairs(m.constraints) do\n"
           "  for k, v in pairs(c) do if k ~= 'name' and k ~= 'type' and v == old then c[k] = new end end\nend\n"
           "if m.settings then for k, v in pairs(m.settings) do if v == old then m.settings[k] = new end end end",
           old, renamed, list);
  write_edit(dir, "rename", sample, edit);
  generate(dir, "none");
  const char *base = "none";
  if (keep) {
    char err[4096];
    base = "kept";
    write_edit(dir, base, sample, "");
    snprintf(a, sizeof a, "%s/none/x.c", dir);
    if (generate_keep(dir, base, a, err, sizeof err) != 0) fail_msg("ldlgen --keep-order failed: %s", err);
    snprintf(a, sizeof a, "%s/%s/x.c", dir, base);
    if (generate_keep(dir, "rename", a, err, sizeof err) != 0) fail_msg("ldlgen --keep-order failed: %s", err);
  } else {
    generate(dir, "rename");
  }
  names allowed = {{old, NULL, NULL}};
  int changed = 0;
  for (int f = 0; f < 2; f++) {
    snprintf(a, sizeof a, "%s/%s/x.%s", dir, base, f ? "h" : "c");
    snprintf(b, sizeof b, "%s/rename/x.%s", dir, f ? "h" : "c");
    int n;
    assert_int_equal(changed_lines(a, b, keep ? names_only : names_a_name, &allowed, &n), 0);
    changed += n;
  }
  assert_true(changed > 0);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

static void check_body_rename(const char *sample, const char *body) {
  char renamed[128];
  snprintf(renamed, sizeof renamed, "zz_%s", body); /* moves it in name order: bodies keep the file's */
  check_rename(sample, "bodies", body, renamed, 0);
}

/* A constraint renamed so that it keeps its place in name order. */
static void check_constraint_rename(const char *sample, const char *cons) {
  char renamed[128];
  snprintf(renamed, sizeof renamed, "%s_renamed", cons);
  check_rename(sample, "constraints", cons, renamed, 0);
}

/* Whether name is an anchor of the generated functions' cuts (the rule of
 * gen/emit_plan.c, emit.c and emit_sweep.c: 3 bits of CHUNK_SALT's hash). */
static int anchor(const char *name) {
  const chunk_rule r = {0, 200, 3, CHUNK_SALT};
  return (chunk_hash(&r, name) & 7u) == 0;
}

/* Percent of the original's lines (.c and .h) that `edit` changes. */
static double changed_percent(const char *sample, const char *edit) {
  char dir[] = "/tmp/ldlgen-locality-XXXXXX", a[600], b[600], cmd[700];
  assert_non_null(mkdtemp(dir));
  write_edit(dir, "none", sample, "");
  write_edit(dir, "edit", sample, edit);
  generate(dir, "none");
  generate(dir, "edit");
  int changed = 0, total = 0;
  for (int f = 0; f < 2; f++) {
    snprintf(a, sizeof a, "%s/none/x.%s", dir, f ? "h" : "c");
    snprintf(b, sizeof b, "%s/edit/x.%s", dir, f ? "h" : "c");
    int n;
    changed_lines(a, b, NULL, NULL, &n);
    changed += n;
    lines l;
    read_lines(a, &l);
    total += l.n;
    free_lines(&l);
  }
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
  return 100.0 * changed / total;
}

static void test_swap_changes_nothing(void **state) {
  (void)state;
  check_swap("buggy", "spindleR", "tie_rodR"); /* a shattered body's constraint among them */
  check_swap("track", "pin20", "pin21");       /* a ring of ties: the natural order used to win */
  check_swap("tank", "pinL20", "pinL21");
  check_swap("car", "towerFL", "driveRR"); /* far apart, a joint and a motor */
}

/* Renames: the lines with the name change, and at most the frame of a
 * function cut at the renamed constraint (check_rename). */
static void test_rename_changes_its_lines_and_its_cut(void **state) {
  (void)state;
  check_body_rename("buggy", "rearL");
  check_body_rename("track", "plate20");
  check_body_rename("stewart", "platform"); /* shattered: its welds are renamed with it */
  check_constraint_rename("car", "towerRL");   /* a joint its spring, stop and motor name */
  check_constraint_rename("chain", "joint6");
  check_constraint_rename("tank", "pinL20");
}

/* With --keep-order a renamed constraint keeps the previous program's cuts,
 * so only the lines with its name change, though its new name's hash
 * would cut the functions elsewhere: each case here renames a constraint
 * to "<name>_renamed" whose anchor status differs from its old name's --
 * without the kept cuts, a function's frame lines change too. */
static void test_kept_rename_changes_only_its_lines(void **state) {
  (void)state;
  static const char *const cases[][2] = {
      {"scissor_lift", "pivot6"}, {"scissor_lift", "outer1_weld"}, {"scissor_lift", "knee_outer5"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char renamed[128];
    snprintf(renamed, sizeof renamed, "%s_renamed", cases[i][1]);
    if (anchor(cases[i][1]) == anchor(renamed)) fail_msg("%s: renaming it moves no cut: no test", cases[i][1]);
    check_rename(cases[i][0], "constraints", cases[i][1], renamed, 1);
  }
}

/* The bench's add_end and remove on scissor_lift: one body with a ball joint
 * on the top platform, and one weld taken out. */
static void test_add_and_remove_stay_local(void **state) {
  (void)state;
  static const char *add =
      "local ref\nfor _, b in ipairs(m.bodies) do if b.name == 'platform' then ref = b end end\n"
      "local body = {}\nfor k, v in pairs(ref) do body[k] = v end\nbody.name = 'extra_body'\n"
      "m.bodies[#m.bodies + 1] = body\n"
      "m.constraints[#m.constraints + 1] = { name = 'extra_joint', type = 'ball', a = 'platform',"
      " b = 'extra_body', anchor = ref.pos or { 0, 0, 0 } }";
  static const char *remove =
      "for k, c in ipairs(m.constraints) do if c.name == 'outer2_weld' then table.remove(m.constraints, k) break end end";
  double p = changed_percent("scissor_lift", add);
  if (p > 5.0) fail_msg("adding a body and a joint to scissor_lift changed %.1f %% of the lines", p);
  p = changed_percent("scissor_lift", remove);
  if (p > 5.0) fail_msg("removing a joint from scissor_lift changed %.1f %% of the lines", p);
}

/* ldlgen DIR/NAME.lua -o DIR/NAME/x.c --keep-order KEEP, stderr into err. */
static int generate_keep(const char *dir, const char *name, const char *keep, char *err, size_t cap) {
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "mkdir -p %s/%s && %s %s/%s.lua -o %s/%s/x.c --keep-order %s 2>&1 >/dev/null", dir, name,
           LDLGEN_PATH, dir, name, dir, name, keep);
  return run(cmd, err, cap);
}

/* The pivot names of a generated file's banner, in order, joined by ' '. */
static void pivot_order(const char *path, char *out, size_t cap) {
  lines l;
  read_lines(path, &l);
  out[0] = '\0';
  int in = 0;
  for (int i = 0; i < l.n; i++) {
    const char *t = l.line[i];
    if (strncmp(t, " * Pivot order", 14) == 0) {
      in = 1;
    } else if (in && strncmp(t, " */", 3) == 0) {
      break;
    } else if (in && strncmp(t, " *   ", 5) == 0 && strchr(t, ':')) {
      const size_t n = strlen(out), k = (size_t)(strchr(t, ':') - (t + 5));
      if (n + k + 2 < cap) {
        if (n) strcat(out, " ");
        strncat(out, t + 5, k);
      }
    }
  }
  free_lines(&l);
}

static int changed_count(const char *dir, const char *from, const char *to) {
  int changed = 0;
  for (int f = 0; f < 2; f++) {
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/%s/x.%s", dir, from, f ? "h" : "c");
    snprintf(b, sizeof b, "%s/%s/x.%s", dir, to, f ? "h" : "c");
    int n;
    changed_lines(a, b, NULL, NULL, &n);
    changed += n;
  }
  return changed;
}

/* Whether a generated line opens one of the functions cut by chunk.h:
 * the solve's, the assembly's and the sweep's parts. */
static int opens_cut_function(const char *t) {
  return strncmp(t, "static void solve_", 18) == 0 || strncmp(t, "static void asm_part_", 21) == 0 ||
         strncmp(t, "static void sweep_part_", 23) == 0;
}

/* Whether t is one of l's lines. */
static int in_list(const lines *l, const char *t) {
  for (int i = 0; i < l->n; i++)
    if (strcmp(l->line[i], t) == 0) return 1;
  return 0;
}

/* The sample lift with a body and a ball joint added, its order kept:
 * every function cut by chunk.h (the solve's, the assembly's, the sweep's
 * parts) but the one the new pivot goes into at most keeps its first line,
 * and the sweep's groups change in the part of the new constraint only --
 * cut by count or by a budget filling up, or paired in one walk, every
 * part and pair after the edit moved (the sweep alone was 28 of the 117
 * changed lines). */
static void test_cuts_stay_with_their_names(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlgen-locality-XXXXXX", path[600], err[4096], cmd[700];
  assert_non_null(mkdtemp(dir));
  static const char *add =
      "local ref\nfor _, b in ipairs(m.bodies) do if b.name == 'roller_top' then ref = b end end\n"
      "local body = {}\nfor k, v in pairs(ref) do body[k] = v end\nbody.name = 'extra_body'\n"
      "m.bodies[#m.bodies + 1] = body\n"
      "m.constraints[#m.constraints + 1] = { name = 'extra_joint', type = 'ball', a = 'roller_top',"
      " b = 'extra_body', anchor = ref.pos or { 0, 0, 0 } }";
  write_edit(dir, "none", "scissor_lift", "");
  generate(dir, "none");
  snprintf(path, sizeof path, "%s/none/x.c", dir);
  write_edit(dir, "edit", "scissor_lift", add);
  assert_int_equal(generate_keep(dir, "edit", path, err, sizeof err), 0);
  assert_null(strstr(err, "note: the order kept"));
  lines a, b;
  read_lines(path, &a);
  snprintf(path, sizeof path, "%s/edit/x.c", dir);
  read_lines(path, &b);
  int opened = 0, lost = 0;
  for (int i = 0; i < a.n; i++)
    if (opens_cut_function(a.line[i])) {
      opened++;
      lost += !in_list(&b, a.line[i]);
    }
  if (!(opened >= 8 && lost <= 1)) fail_msg("%d of the %d cut functions' first lines changed", lost, opened);
  /* the sweep's changed groups: all in the part that sweeps extra_joint */
  const char *part = NULL, *edited = NULL;
  int changed = 0;
  for (int i = 0; i < b.n; i++) {
    const char *t = b.line[i];
    if (strncmp(t, "static void sweep_part_", 23) == 0) part = t;
    if (strncmp(t, "  sweep_", 8) != 0 || in_list(&a, t)) continue;
    changed++;
    if (strstr(t, "X_extra_joint,")) edited = part;
  }
  assert_non_null(edited);
  for (int i = 0, in = 0; i < b.n; i++) {
    const char *t = b.line[i];
    if (strncmp(t, "static void sweep_part_", 23) == 0) in = t == edited;
    if (strncmp(t, "  sweep_", 8) == 0 && !in_list(&a, t) && !in) fail_msg("a group changed in another part: %s", t);
  }
  assert_true(changed >= 1 && changed <= 16);
  free_lines(&a);
  free_lines(&b);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

/* ldlgen --keep-order: a part hung in the middle of the chain (a T-junction
 * at link6) goes in just before joint6 and every other pivot keeps its
 * place, at the fresh order's flops; without it the fresh order turns the
 * chain's lower half around. Regenerating the unedited chain with its own
 * order gives it back byte for byte. */
/* With --keep-order, a constraint taken out whose functions began with it
 * (joint6 of the chain: an anchor) hands each of them to the next
 * constraint of its function, which begins it under its own name: every
 * kind keeps its number of functions (merged into the function before,
 * each took that one's frame lines along). */
static void test_kept_cuts_pass_to_the_next(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlgen-locality-XXXXXX", path[600], err[4096], cmd[700];
  assert_non_null(mkdtemp(dir));
  if (!anchor("joint6")) fail_msg("joint6 begins no function: no test");
  write_edit(dir, "none", "chain", "");
  generate(dir, "none");
  write_edit(dir, "kept", "chain", "");
  snprintf(path, sizeof path, "%s/none/x.c", dir);
  assert_int_equal(generate_keep(dir, "kept", path, err, sizeof err), 0);
  write_edit(dir, "edit", "chain",
             "for k, c in ipairs(m.constraints) do if c.name == 'joint6' then table.remove(m.constraints, k) break end end");
  snprintf(path, sizeof path, "%s/kept/x.c", dir);
  assert_int_equal(generate_keep(dir, "edit", path, err, sizeof err), 0);
  lines a, b;
  read_lines(path, &a);
  snprintf(path, sizeof path, "%s/edit/x.c", dir);
  read_lines(path, &b);
  static const char *const kinds[] = {"static void solve_forward_", "static void solve_backward_",
                                      "static void asm_part_", "static void sweep_part_"};
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
    int before = 0, after = 0, began = 0;
    for (int i = 0; i < a.n; i++) {
      before += strncmp(a.line[i], kinds[k], strlen(kinds[k])) == 0;
      began += strncmp(a.line[i], kinds[k], strlen(kinds[k])) == 0 && strstr(a.line[i], "joint6(") != NULL;
    }
    for (int i = 0; i < b.n; i++) {
      after += strncmp(b.line[i], kinds[k], strlen(kinds[k])) == 0;
      if (strncmp(b.line[i], kinds[k], strlen(kinds[k])) == 0 && strstr(b.line[i], "joint6(")) fail_msg("%s", b.line[i]);
    }
    if (before != after) fail_msg("%s...: %d functions, %d after joint6 went (it began %d)", kinds[k], before, after, began);
  }
  free_lines(&a);
  free_lines(&b);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

static void test_keep_order_hangs_a_part_in_place(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlgen-locality-XXXXXX", path[600], err[4096], before[4096], after[4096], cmd[700];
  assert_non_null(mkdtemp(dir));
  static const char *hang =
      "local ref\nfor _, b in ipairs(m.bodies) do if b.name == 'link6' then ref = b end end\n"
      "local body = {}\nfor k, v in pairs(ref) do body[k] = v end\nbody.name = 'extra_body'\n"
      "m.bodies[#m.bodies + 1] = body\n"
      "m.constraints[#m.constraints + 1] = { name = 'extra_joint', type = 'ball', a = 'link6',"
      " b = 'extra_body', anchor = ref.pos }";
  write_edit(dir, "none", "chain", "");
  write_edit(dir, "edit", "chain", hang);
  generate(dir, "none");
  generate(dir, "edit"); /* fresh */
  snprintf(path, sizeof path, "%s/none/x.c", dir);
  write_edit(dir, "kept", "chain", ""); /* the steady state: none with its own order kept */
  assert_int_equal(generate_keep(dir, "kept", path, err, sizeof err), 0);
  snprintf(path, sizeof path, "%s/kept/x.c", dir);
  write_edit(dir, "again", "chain", "");
  assert_int_equal(generate_keep(dir, "again", path, err, sizeof err), 0);
  assert_int_equal(changed_count(dir, "kept", "again"), 0);
  write_edit(dir, "hung", "chain", hang);
  assert_int_equal(generate_keep(dir, "hung", path, err, sizeof err), 0);
  assert_null(strstr(err, "note: the order kept"));
  pivot_order(path, before, sizeof before);
  snprintf(path, sizeof path, "%s/hung/x.c", dir);
  pivot_order(path, after, sizeof after);
  assert_string_equal(before, "hook joint2 joint3 joint4 joint5 joint6 joint7 joint8 joint9 joint10 shackle");
  assert_string_equal(after, "hook joint2 joint3 joint4 joint5 extra_joint joint6 joint7 joint8 joint9 joint10 shackle");
  const int kept = changed_count(dir, "kept", "hung"), fresh = changed_count(dir, "none", "edit");
  if (!(2 * kept < fresh)) fail_msg("kept order: %d lines changed, fresh order %d", kept, fresh);
  /* the same flops as the fresh order: --stats says so */
  char out[16384];
  snprintf(cmd, sizeof cmd, "%s %s/hung.lua --stats --keep-order %s", LDLGEN_PATH, dir, path);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"kept_order\": true"));
  const char *kf = strstr(out, "\"kept_flops\": "), *ff = strstr(out, "\"fresh_flops\": ");
  assert_non_null(kf);
  assert_non_null(ff);
  assert_true(atol(kf + 14) == atol(ff + 15));
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

/* The on-shard ends of a generated file's banner ("axle2L: ..., on
 * chassis#1"), as "axle2L, on chassis#1;" one after the other. */
static void shard_ends(const char *path, char *out, size_t cap) {
  lines l;
  read_lines(path, &l);
  out[0] = '\0';
  for (int i = 0; i < l.n; i++) {
    const char *t = l.line[i], *on = strstr(t, ", on ");
    if (strncmp(t, " *   ", 5) != 0 || !on || !strchr(t, ':')) continue;
    const size_t n = strlen(out), k = (size_t)(strchr(t, ':') - (t + 5));
    if (n + k + strlen(on) + 2 < cap) {
      strncat(out, t + 5, k);
      strcat(out, on);
      strcat(out, ";");
    }
  }
  free_lines(&l);
}

/* entry taken out of list (it must be there). */
static void drop(char *list, const char *entry) {
  char *at = strstr(list, entry);
  assert_non_null(at);
  memmove(at, at + strlen(entry), strlen(at + strlen(entry)) + 1);
}

/* The Lua that takes a constraint and a body out of m. */
static void take_off(char *lua, size_t cap, const char *cons, const char *body) {
  snprintf(lua, cap,
           "for k, c in ipairs(m.constraints) do if c.name == '%s' then table.remove(m.constraints, k) break end end\n"
           "for k, b in ipairs(m.bodies) do if b.name == '%s' then table.remove(m.bodies, k) break end end",
           cons, body);
}

/* ldlgen --keep-order keeps the shattering: with one wheel and its axle
 * taken off multi_wheel, the fresh program shatters the chassis in 9
 * shards instead of 10 and moves most axles to another shard (a third of
 * the lines change); kept, every remaining axle stays on its shard, the
 * chassis keeps 10, and only the wheel's lines and the tables' change --
 * at fewer flops here than the fresh program's. A kept structure that
 * costs more flops is taken within --keep-tolerance, with a note, and not
 * beyond it. */
static void test_keep_order_keeps_the_shattering(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlgen-locality-XXXXXX", path[600], err[4096], cmd[1400], out[16384];
  static char before[16384], after[16384];
  assert_non_null(mkdtemp(dir));
  char edit[512];
  take_off(edit, sizeof edit, "axle4L", "wheel4L");
  write_edit(dir, "fresh", "multi_wheel", "");
  generate(dir, "fresh");
  snprintf(path, sizeof path, "%s/fresh/x.c", dir);
  write_edit(dir, "none", "multi_wheel", "");
  assert_int_equal(generate_keep(dir, "none", path, err, sizeof err), 0);
  write_edit(dir, "edit", "multi_wheel", edit);
  generate(dir, "edit");
  snprintf(path, sizeof path, "%s/none/x.c", dir);
  write_edit(dir, "kept", "multi_wheel", edit);
  assert_int_equal(generate_keep(dir, "kept", path, err, sizeof err), 0);
  shard_ends(path, before, sizeof before);
  snprintf(cmd, sizeof cmd, "%s/kept/x.c", dir);
  shard_ends(cmd, after, sizeof after);
  /* the same ends, in the same order, but the one taken off */
  drop(before, "axle4L, on chassis#3;");
  assert_string_equal(before, after);
  const int kept = changed_count(dir, "none", "kept"), fresh = changed_count(dir, "fresh", "edit");
  if (!(4 * kept < fresh)) fail_msg("kept shattering: %d lines changed, fresh %d", kept, fresh);

  snprintf(cmd, sizeof cmd, "%s %s/kept.lua --stats --keep-order %s", LDLGEN_PATH, dir, path);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"kept_shattering\": true"));
  assert_non_null(strstr(out, "\"shards\": 10"));
  const char *kf = strstr(out, "\"kept_flops\": "), *ff = strstr(out, "\"fresh_flops\": ");
  assert_non_null(kf);
  assert_non_null(ff);
  assert_true(atol(kf + 14) <= atol(ff + 15));

  /* a constraint on a shard of two bodies keeps both ends: the two hubs'
   * bridge, when a spoke goes (the fresh program moves pinA2 to hubA#1) */
  take_off(edit, sizeof edit, "pinA3", "spokeA3");
  write_edit(dir, "hubs", "tests/data/two_hubs.lua", "");
  generate(dir, "hubs");
  write_edit(dir, "spoked", "tests/data/two_hubs.lua", edit);
  char hubs[600];
  snprintf(hubs, sizeof hubs, "%s/hubs/x.c", dir);
  assert_int_equal(generate_keep(dir, "spoked", hubs, err, sizeof err), 0);
  shard_ends(hubs, before, sizeof before);
  snprintf(cmd, sizeof cmd, "%s/spoked/x.c", dir);
  shard_ends(cmd, after, sizeof after);
  assert_non_null(strstr(after, "bridge, on hubA#0, hubB#0;"));
  drop(before, "pinA3, on hubA#1;");
  assert_string_equal(before, after);

  /* a kept structure that costs flops (the tank without its left idler:
   * the hull's 4 shards kept cost 1.2 % more than the fresh program's):
   * within the default 3 % it is taken, with a note; with
   * --keep-tolerance 0 the fresh program is used, byte for byte */
  take_off(edit, sizeof edit, "idler_axleL", "idlerL");
  write_edit(dir, "tank", "tank", "");
  generate(dir, "tank");
  write_edit(dir, "idle", "tank", edit);
  generate(dir, "idle");
  snprintf(path, sizeof path, "%s/tank/x.c", dir);
  snprintf(cmd, sizeof cmd, "%s %s/idle.lua --stats --keep-order %s 2>&1", LDLGEN_PATH, dir, path);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"kept_shattering\": true"));
  assert_non_null(strstr(out, "note: the order and shattering kept from"));
  kf = strstr(out, "\"kept_flops\": ");
  ff = strstr(out, "\"fresh_flops\": ");
  assert_non_null(kf);
  assert_non_null(ff);
  const long kflops = atol(kf + 14), fflops = atol(ff + 15);
  if (!(kflops > fflops && 100 * kflops <= 103 * fflops)) fail_msg("kept %ld flops, fresh %ld", kflops, fflops);
  snprintf(cmd, sizeof cmd, "mkdir -p %s/strict && %s %s/idle.lua -o %s/strict/x.c --keep-order %s --keep-tolerance 0 2>&1",
           dir, LDLGEN_PATH, dir, dir, path);
  assert_int_equal(run(cmd, err, sizeof err), 0);
  assert_non_null(strstr(err, "the fresh order is used"));
  assert_int_equal(changed_count(dir, "idle", "strict"), 0);

  /* --keep-tolerance: a percentage, with --keep-order */
  static const char *const bad[] = {"-1", "abc", "", "1e9", "nan"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(cmd, sizeof cmd, "%s %s/idle.lua --stats --keep-order %s --keep-tolerance '%s' 2>&1", LDLGEN_PATH, dir,
             path, bad[i]);
    assert_int_equal(run(cmd, err, sizeof err), 2);
    assert_non_null(strstr(err, "--keep-tolerance needs a percentage"));
  }
  snprintf(cmd, sizeof cmd, "%s %s/idle.lua --stats --keep-tolerance 1 2>&1", LDLGEN_PATH, dir);
  assert_int_equal(run(cmd, err, sizeof err), 2);
  assert_non_null(strstr(err, "--keep-tolerance goes with --keep-order"));
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

/* A small program keeps its order within PROGRAM_KEEP_FLOOR_FLOPS, though
 * that is more than --keep-tolerance's 3 %: the elimination example without
 * its right pendulum's pivot kept costs 20 flops (5.7 %) more than the
 * fresh order, which mirrors every pivot and changes half again as many
 * lines; with --keep-tolerance 0 the fresh order is used. */
static void test_keep_order_small_programs(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlgen-locality-XXXXXX", path[600], err[4096], cmd[1400];
  assert_non_null(mkdtemp(dir));
  static const char *edit =
      "for k, c in ipairs(m.constraints) do if c.name == 'pivot_right' then table.remove(m.constraints, k) break end end";
  write_edit(dir, "none", "elimination_example", "");
  generate(dir, "none");
  write_edit(dir, "edit", "elimination_example", edit);
  generate(dir, "edit");
  write_edit(dir, "kept", "elimination_example", edit);
  snprintf(path, sizeof path, "%s/none/x.c", dir);
  assert_int_equal(generate_keep(dir, "kept", path, err, sizeof err), 0);
  if (!strstr(err, "note: the order kept from") || strstr(err, "the fresh order is used")) fail_msg("%s", err);
  const int kept = changed_count(dir, "none", "kept"), fresh = changed_count(dir, "none", "edit");
  if (!(3 * kept < 2 * fresh)) fail_msg("kept order: %d lines changed, fresh %d", kept, fresh);
  snprintf(cmd, sizeof cmd, "mkdir -p %s/strict && %s %s/edit.lua -o %s/strict/x.c --keep-order %s --keep-tolerance 0 2>&1",
           dir, LDLGEN_PATH, dir, dir, path);
  assert_int_equal(run(cmd, err, sizeof err), 0);
  assert_non_null(strstr(err, "the fresh order is used"));
  assert_int_equal(changed_count(dir, "edit", "strict"), 0);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

/* An order that would cost flops is not kept: a joint taken out of the
 * track's loop (the loop's order would keep its fill) gives the fresh
 * program byte for byte, with a note. And --keep-order needs a program
 * ldlgen wrote: a missing file or another file is an error naming it, and
 * nothing is written. */
static void test_keep_order_refused(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlgen-locality-XXXXXX", path[600], err[4096], cmd[1400];
  assert_non_null(mkdtemp(dir));
  static const char *open_loop =
      "for k, c in ipairs(m.constraints) do if c.name == 'pin20' then table.remove(m.constraints, k) break end end";
  write_edit(dir, "none", "track", "");
  write_edit(dir, "fresh", "track", open_loop);
  write_edit(dir, "opened", "track", open_loop);
  generate(dir, "none");
  generate(dir, "fresh");
  snprintf(path, sizeof path, "%s/none/x.c", dir);
  assert_int_equal(generate_keep(dir, "opened", path, err, sizeof err), 0);
  assert_non_null(strstr(err, "note: the order kept from"));
  assert_non_null(strstr(err, "the fresh order is used"));
  assert_int_equal(changed_count(dir, "fresh", "opened"), 0);

  snprintf(path, sizeof path, "%s/missing.c", dir);
  assert_int_equal(generate_keep(dir, "bad", path, err, sizeof err), 1);
  assert_non_null(strstr(err, path));
  snprintf(path, sizeof path, "%s/none.lua", dir);
  assert_int_equal(generate_keep(dir, "bad", path, err, sizeof err), 1);
  assert_non_null(strstr(err, "no pivot order"));
  snprintf(cmd, sizeof cmd, "test ! -e %s/bad/x.c && test ! -e %s/bad/x.h", dir, dir);
  assert_int_equal(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

/* A mechanism without equality constraints has a program without pivots,
 * and --keep-order takes it all the same (it was refused as "not a
 * program"): kept once, then again, the same bytes. */
static void test_keep_order_without_constraints(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlgen-locality-XXXXXX", path[600], err[4096], cmd[1400];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/lone.lua", dir);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs("return { name = 'lone', bodies = { { name = 'b', mass = 1, sphere = 0.5, pos = { 0, 0, 1 } } },\n"
        "  constraints = {} }\n",
        f);
  fclose(f);
  generate(dir, "lone");
  snprintf(cmd, sizeof cmd, "mkdir -p %s/kept %s/again && cp %s/lone.lua %s/kept.lua && cp %s/lone.lua %s/again.lua", dir,
           dir, dir, dir, dir, dir);
  assert_int_equal(system(cmd), 0);
  snprintf(path, sizeof path, "%s/lone/x.c", dir);
  if (generate_keep(dir, "kept", path, err, sizeof err) != 0) fail_msg("--keep-order refused a program without pivots: %s", err);
  snprintf(path, sizeof path, "%s/kept/x.c", dir);
  assert_int_equal(generate_keep(dir, "again", path, err, sizeof err), 0);
  assert_int_equal(changed_count(dir, "kept", "again"), 0);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_swap_changes_nothing),
      cmocka_unit_test(test_rename_changes_its_lines_and_its_cut),
      cmocka_unit_test(test_kept_rename_changes_only_its_lines),
      cmocka_unit_test(test_kept_cuts_pass_to_the_next),
      cmocka_unit_test(test_add_and_remove_stay_local),
      cmocka_unit_test(test_cuts_stay_with_their_names),
      cmocka_unit_test(test_keep_order_hangs_a_part_in_place),
      cmocka_unit_test(test_keep_order_keeps_the_shattering),
      cmocka_unit_test(test_keep_order_small_programs),
      cmocka_unit_test(test_keep_order_refused),
      cmocka_unit_test(test_keep_order_without_constraints),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
