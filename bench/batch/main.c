/* main.c -- make bench-batch: measures every entry of bb_entries (batch.h).
 *
 * Inputs: N copies' own H~ -- the mechanism assembled at the poses each
 * copy reaches after INPUT_WARM steps of the whole step's inputs
 * (step.c, bb_step_factor_inputs) -- or, with --input random, N different
 * random SPD matrices with the program's block pattern (tests/spd_pattern.h,
 * the inputs test_batch uses); packed for the scalar program and
 * lane-interleaved for the batch one (64-byte aligned, as a game would
 * allocate). Before timing, the batch factor is checked bitwise
 * against the N scalar factors. A timed call restores the workspace from the
 * input (memcpy, the same bytes both ways) and factors; the restore alone is
 * timed too and subtracted. Each run takes the median over many short
 * batches of calls (btime.h), scalar and batch interleaved; the report gives
 * the median over the runs and their min-max.
 *
 * Then the whole step of every entry (step.c): one rt_batch_step of N
 * worlds against N rt_world_step, in motion, checked bitwise after every
 * step, with each stage's share; and its instructions under callgrind
 * (cg.c) when --cg-bin names a build valgrind can run; that build's own
 * factor times too, when it is another target (bb_cg_factor). Then the whole
 * step's speedup once more, one run of the same steps after --late-warm
 * steps (LATE_WARM; 0: not measured): the first window flatters the
 * lanes, since the copies' contacts are still on the same bodies there,
 * while copies driven apart meet the ground at other links.
 *
 * usage: batch [--runs R] [--batches B] [--revision TEXT] [--md FILE] [--json FILE] [--only MECH]
 *              [--input mechanism|random]
 *              [--no-step] [--step-runs R] [--step-warm W] [--step-steps S] [--lane-budget-kib K]
 *              [--late-warm W]
 *              [--stepping lanes|measured|copies] [--left-out K]
 *              [--cg-bin FILE] [--cg-arch NAME] [--cg-warm W] [--cg-steps S] [--work DIR]
 *              [--factor-lines]   (a machine-readable line per factor row: bb_cg_factor)
 *        batch --cg-run MECH PRECISION SIDE WARM STEPS   (the callgrind child: cg.c) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "btime.h"
#include "peak.h"
#include "spd_pattern.h"

/* Steps before the later window of the whole step: 300 steps (5 s at
 * 60 Hz) drive the sample tanks' copies apart until most of their contact
 * rows lie on other links in other copies (docs/DESIGN.md section 10). */
#define LATE_WARM 300

/* Steps each copy takes before its H~ is the factor's input: half a second
 * at 60 Hz, so that the copies' pushes, drive phases and contacts have
 * moved them apart. */
enum { INPUT_WARM = 30 };

typedef struct bb_ctx {
  const bb_entry *e;
  size_t bytes;         /* one copy's workspace */
  void **in, **work;    /* N scalar inputs and workspaces */
  void *temp;
  void *bin, *bwork, *btemp; /* lane-interleaved */
  int *lane_pivot;
  long subnormal;       /* in the N scalar factors */
} bb_ctx;

static void *aligned_zalloc(size_t bytes) {
  size_t n = (bytes + 63) / 64 * 64;
  void *p = aligned_alloc(64, n > 0 ? n : 64);
  if (!p) abort();
  memset(p, 0, n > 0 ? n : 64);
  return p;
}

static void run_scalar(void *c) {
  bb_ctx *x = c;
  for (int j = 0; j < x->e->lanes; j++) {
    memcpy(x->work[j], x->in[j], x->bytes);
    x->e->scalar->factor(x->work[j], x->temp);
  }
}
static void copy_scalar(void *c) {
  bb_ctx *x = c;
  for (int j = 0; j < x->e->lanes; j++) memcpy(x->work[j], x->in[j], x->bytes);
}
static void run_batch(void *c) {
  bb_ctx *x = c;
  memcpy(x->bwork, x->bin, x->bytes * (size_t)x->e->lanes);
  x->e->factor(x->bwork, x->btemp, x->lane_pivot);
}
static void copy_batch(void *c) {
  bb_ctx *x = c;
  memcpy(x->bwork, x->bin, x->bytes * (size_t)x->e->lanes);
}

static void setup(bb_ctx *x, const bb_entry *e, int random) {
  const rt_program *p = e->scalar;
  const int N = e->lanes;
  const size_t sz = scalar_size(p), nw = (size_t)p->work_size;
  test_rng r = {0xbe4c0000u + (uint64_t)N * 977u + (uint64_t)p->dim};
  x->e = e;
  x->bytes = nw * sz;
  x->in = sp_zalloc((size_t)N, sizeof *x->in);
  x->work = sp_zalloc((size_t)N, sizeof *x->work);
  x->temp = aligned_zalloc((size_t)p->temp_size * sz);
  x->bin = aligned_zalloc(x->bytes * (size_t)N);
  x->bwork = aligned_zalloc(x->bytes * (size_t)N);
  x->btemp = aligned_zalloc((size_t)p->temp_size * sz * (size_t)N);
  x->lane_pivot = sp_zalloc((size_t)N, sizeof *x->lane_pivot);
  for (int j = 0; j < N; j++) {
    x->in[j] = aligned_zalloc(x->bytes);
    x->work[j] = aligned_zalloc(x->bytes);
    if (!random) continue;
    double *h = random_spd(&r, p);
    void *w = pack(p, h);
    memcpy(x->in[j], w, x->bytes);
    free(w);
    free(h);
  }
  if (!random) bb_step_factor_inputs(e, INPUT_WARM, x->in);
  for (int j = 0; j < N; j++) lane_copy(sz, N, j, nw, x->bin, x->in[j], 1);
  /* the batch factor is the N scalar factors, bit for bit */
  run_scalar(x);
  x->subnormal = 0;
  for (int j = 0; j < N; j++)
    for (size_t k = 0; k < nw; k++) {
      int c = p->precision == RT_FLOAT ? fpclassify(((const float *)x->work[j])[k])
                                       : fpclassify(((const double *)x->work[j])[k]);
      x->subnormal += c == FP_SUBNORMAL;
    }
  memcpy(x->bwork, x->bin, x->bytes * (size_t)N);
  int st = e->factor(x->bwork, x->btemp, x->lane_pivot);
  void *lane = sp_zalloc(nw, sz);
  for (int j = 0; j < N; j++) {
    lane_copy(sz, N, j, nw, x->bwork, lane, 0);
    if (st >= 0 || x->lane_pivot[j] >= 0 || memcmp(lane, x->work[j], x->bytes) != 0) {
      fprintf(stderr, "batch: %s %s x%d: lane %d is not the scalar factor (status %d)\n", e->mech,
              p->precision == RT_FLOAT ? "float" : "double", N, j, st);
      exit(1);
    }
  }
  free(lane);
}

static void teardown(bb_ctx *x) {
  for (int j = 0; j < x->e->lanes; j++) {
    free(x->in[j]);
    free(x->work[j]);
  }
  free(x->in);
  free(x->work);
  free(x->temp);
  free(x->bin);
  free(x->bwork);
  free(x->btemp);
  free(x->lane_pivot);
}

static bb_stat stat_of(double *v, int n) {
  bt_stat s = bt_stats(v, n);
  return (bb_stat){s.med, s.lo, s.hi};
}

/* Measures one entry: `runs` runs, each the median of `batches` batches of
 * about 0.2 ms, the four timings interleaved within a run. */
static bb_row measure(const bb_entry *e, int runs, int batches, int random, const double peak[2]) {
  bb_ctx x;
  setup(&x, e, random);
  int rs = bt_calibrate(run_scalar, &x, 2e-4), rb = bt_calibrate(run_batch, &x, 2e-4);
  int rcs = bt_calibrate(copy_scalar, &x, 2e-4), rcb = bt_calibrate(copy_batch, &x, 2e-4);
  double *ts = sp_zalloc((size_t)runs, sizeof *ts), *tb = sp_zalloc((size_t)runs, sizeof *tb);
  double *cs = sp_zalloc((size_t)runs, sizeof *cs), *cb = sp_zalloc((size_t)runs, sizeof *cb);
  for (int k = 0; k < runs; k++) {
    cs[k] = bt_median_time(copy_scalar, &x, rcs, batches);
    ts[k] = bt_median_time(run_scalar, &x, rs, batches);
    cb[k] = bt_median_time(copy_batch, &x, rcb, batches);
    tb[k] = bt_median_time(run_batch, &x, rb, batches);
  }
  bb_row w = {0};
  w.e = e;
  w.precision = e->scalar->precision == RT_FLOAT ? "float" : "double";
  w.copy_scalar = bt_median(cs, runs);
  w.copy_batch = bt_median(cb, runs);
  for (int k = 0; k < runs; k++) {
    ts[k] -= w.copy_scalar;
    tb[k] -= w.copy_batch;
  }
  w.t_scalar = stat_of(ts, runs);
  w.t_batch = stat_of(tb, runs);
  w.speedup = w.t_scalar.med / w.t_batch.med;
  w.cps_scalar = e->lanes / w.t_scalar.med;
  w.cps_batch = e->lanes / w.t_batch.med;
  w.gf_scalar = e->flops * w.cps_scalar * 1e-9;
  w.gf_batch = e->flops * w.cps_batch * 1e-9;
  w.peak = peak[e->scalar->precision == RT_FLOAT ? 1 : 0];
  w.frac = w.peak > 0 ? w.gf_batch / w.peak : 0;
  w.subnormal = x.subnormal;
  w.entries = (long)e->lanes * e->scalar->work_size;
  free(ts);
  free(tb);
  free(cs);
  free(cb);
  teardown(&x);
  return w;
}

/* The CPU's model name (/proc/cpuinfo), or "unknown". */
static const char *cpu_model(void) {
  static char name[160] = "unknown";
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  while (f && fgets(line, sizeof line, f)) {
    char *c = strchr(line, ':');
    if (strncmp(line, "model name", 10) == 0 && c) {
      snprintf(name, sizeof name, "%s", c + 2);
      name[strcspn(name, "\n")] = 0;
      break;
    }
  }
  if (f) fclose(f);
  return name;
}

/* A positive count from an option's value, or exit 2. */
static int count_arg(const char *opt, const char *v) {
  char *end;
  const long n = strtol(v, &end, 10);
  if (*end || n < 1 || n > 1000000) {
    fprintf(stderr, "batch: %s needs a count >= 1, not '%s'\n", opt, v);
    exit(2);
  }
  return (int)n;
}

/* The callgrind child's command line: MECH PRECISION SIDE WARM STEPS. */
static int cg_run(char **a) {
  const bb_entry *e = bb_find_entry(a[0], a[1]);
  if (!e || (strcmp(a[2], "0") != 0 && strcmp(a[2], "1") != 0)) {
    fprintf(stderr, "batch --cg-run: no entry %s %s, or side '%s' is not 0 or 1\n", a[0], a[1], a[2]);
    return 2;
  }
  return bb_step_cg_child(e, a[2][0] - '0', count_arg("WARM", a[3]), count_arg("STEPS", a[4]));
}

/* For a double entry d, the float entry of its mechanism in list[0 .. n-1],
 * or NULL (and for a float d). */
static const bb_entry *float_twin(const bb_entry *const *list, int n, const bb_entry *d) {
  if (d->scalar->precision != RT_DOUBLE) return NULL;
  for (int k = 0; k < n; k++)
    if (list[k]->scalar->precision == RT_FLOAT && strcmp(list[k]->mech, d->mech) == 0) return list[k];
  return NULL;
}

/* The progress line of a float goal measured side by side. */
static void pair_line(const bb_entry *d, const bb_entry *f, bb_stat q, const char *unit) {
  printf("%-14s float x%d against double x%d, side by side: %.2fx [%.2f-%.2f] in %s\n", d->mech, f->lanes, d->lanes,
         q.med, q.lo, q.hi, unit);
  fflush(stdout);
}

/* The float batch factor f against the double one d of a mechanism, in
 * copy-factors a second, f's over d's: both set up at once and timed in
 * turns within each run (as measure() times its sides), each run's ratio
 * of their times less their restores. Measured entry after entry, minutes
 * apart, the ratio moved with the VM's speed (make bench-batch on fb683f8:
 * the tank's 1.51x, its float batch 10.0-16.0 us over the runs). */
static bb_stat factor_pair(const bb_entry *d, const bb_entry *f, int runs, int batches, int random) {
  bb_ctx x[2];
  setup(&x[0], d, random);
  setup(&x[1], f, random);
  int rb[2], rc[2];
  for (int s = 0; s < 2; s++) {
    rb[s] = bt_calibrate(run_batch, &x[s], 2e-4);
    rc[s] = bt_calibrate(copy_batch, &x[s], 2e-4);
  }
  double *ratio = sp_zalloc((size_t)runs, sizeof *ratio);
  for (int k = 0; k < runs; k++) {
    double t[2];
    for (int s = 0; s < 2; s++) {
      const double c = bt_median_time(copy_batch, &x[s], rc[s], batches);
      t[s] = bt_median_time(run_batch, &x[s], rb[s], batches) - c;
    }
    ratio[k] = (f->lanes / t[1]) / (d->lanes / t[0]);
  }
  const bb_stat out = stat_of(ratio, runs);
  free(ratio);
  teardown(&x[0]);
  teardown(&x[1]);
  return out;
}

int main(int argc, char **argv) {
  if (argc == 7 && strcmp(argv[1], "--cg-run") == 0) return cg_run(argv + 2);
  bb_report r = {.revision = "unknown", .runs = 9, .batches = 41, .step = {3, 10, 100, 0, RT_BATCH_STEP_LANES}, .cg_warm = 6, .cg_steps = 4,
                 .late_warm = LATE_WARM};
  const char *md = 0, *json = 0, *only = 0, *cg_bin = 0, *cg_arch = "this", *work = ".";
  int step = 1, factor_lines = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : 0;
    if (strcmp(a, "--no-step") == 0) {
      step = 0;
      continue;
    }
    if (strcmp(a, "--factor-lines") == 0) { /* for bb_cg_factor */
      factor_lines = 1;
      continue;
    }
    if (!v) {
      fprintf(stderr, "batch: %s needs a value\n", a);
      return 2;
    }
    if (strcmp(a, "--only") == 0)
      only = v;
    else if (strcmp(a, "--input") == 0) {
      if (strcmp(v, "mechanism") != 0 && strcmp(v, "random") != 0) {
        fprintf(stderr, "batch: --input is mechanism or random, not '%s'\n", v);
        return 2;
      }
      r.random_input = strcmp(v, "random") == 0;
    }
    else if (strcmp(a, "--step-runs") == 0)
      r.step.runs = count_arg(a, v);
    else if (strcmp(a, "--step-warm") == 0)
      r.step.warm = count_arg(a, v);
    else if (strcmp(a, "--step-steps") == 0)
      r.step.steps = count_arg(a, v);
    else if (strcmp(a, "--late-warm") == 0)
      r.late_warm = strcmp(v, "0") == 0 ? 0 : count_arg(a, v);
    else if (strcmp(a, "--stepping") == 0) {
      const char *ways[3] = {"copies", "lanes", "measured"};
      const int how[3] = {RT_BATCH_STEP_COPIES, RT_BATCH_STEP_LANES, RT_BATCH_STEP_MEASURED};
      int k = 0;
      while (k < 3 && strcmp(v, ways[k]) != 0) k++;
      if (k == 3) {
        fprintf(stderr, "batch: --stepping takes lanes, measured or copies, not '%s'\n", v);
        return 2;
      }
      r.step.stepping = how[k];
    }
    else if (strcmp(a, "--left-out") == 0)
      r.step.left_out = strcmp(v, "0") == 0 ? 0 : count_arg(a, v);
    else if (strcmp(a, "--lane-budget-kib") == 0)
      r.step.lane_budget = (size_t)count_arg(a, v) << 10;
    else if (strcmp(a, "--cg-bin") == 0)
      cg_bin = v;
    else if (strcmp(a, "--cg-arch") == 0)
      cg_arch = v;
    else if (strcmp(a, "--cg-warm") == 0)
      r.cg_warm = count_arg(a, v);
    else if (strcmp(a, "--cg-steps") == 0)
      r.cg_steps = count_arg(a, v);
    else if (strcmp(a, "--work") == 0)
      work = v;
    else if (strcmp(a, "--runs") == 0)
      r.runs = atoi(v);
    else if (strcmp(a, "--batches") == 0)
      r.batches = atoi(v);
    else if (strcmp(a, "--revision") == 0)
      r.revision = v;
    else if (strcmp(a, "--md") == 0)
      md = v;
    else if (strcmp(a, "--json") == 0)
      json = v;
    else {
      fprintf(stderr, "batch: unknown option %s\n", a);
      return 2;
    }
    i++;
  }
  if (r.runs < 1 || r.batches < 1) {
    fprintf(stderr, "batch: --runs and --batches must be at least 1\n");
    return 2;
  }
  r.cpu = cpu_model();
  r.input_warm = INPUT_WARM;

  /* The vector peak: AVX-512 FMA where the CPU has it, else AVX2 FMA. */
  enum { PEAK_SAMPLES = 7 };
  double samples[PEAK_SAMPLES][BP_COUNT][2];
  bp_result peak[BP_COUNT];
  for (int k = 0; k < PEAK_SAMPLES; k++) bp_sample(samples[k]);
  bp_summarize(samples, PEAK_SAMPLES, peak);
  int pk = peak[BP_AVX512].available ? BP_AVX512 : BP_AVX2;
  r.peak_name = peak[pk].name;
  r.peak[0] = peak[pk].hi[0];
  r.peak[1] = peak[pk].hi[1];

  int n = 0;
  const bb_entry *list[64];
  for (const bb_entry *e = bb_entries; e->mech && n < 64; e++)
    if (!only || strcmp(e->mech, only) == 0) list[n++] = e;
  if (n == 0) {
    fprintf(stderr, "batch: no entry for mechanism '%s'\n", only ? only : "");
    return 2;
  }
  r.rows = sp_zalloc((size_t)n, sizeof *r.rows);
  printf("the factor alone:\n");
  for (int i = 0; i < n; i++) {
    r.rows[i] = measure(list[i], r.runs, r.batches, r.random_input, r.peak);
    const bb_row *w = &r.rows[i];
    printf("%-14s %-6s x%-2d  scalar %8.3f us  batch %8.3f us  %5.2fx  %6.2f GFLOP/s  %5.1f %% of %s peak\n",
           w->e->mech, w->precision, w->e->lanes, w->t_scalar.med * 1e6, w->t_batch.med * 1e6, w->speedup,
           w->gf_batch, 100 * w->frac, r.peak_name);
    if (factor_lines)
      printf("factor %s %s %d %.9g %.9g\n", w->e->mech, w->precision, w->e->lanes, w->t_scalar.med, w->t_batch.med);
    fflush(stdout);
  }
  /* the goal float x16 against double x8, both factors side by side */
  for (int i = 0; i < n; i++) {
    const bb_entry *f = float_twin(list, n, list[i]);
    if (!f) continue;
    r.rows[i].float_ratio = factor_pair(list[i], f, r.runs, r.batches, r.random_input);
    r.rows[i].float_lanes = f->lanes;
    pair_line(list[i], f, r.rows[i].float_ratio, "copy-factors/s");
  }
  r.nrows = n;
  /* the callgrind binary's build times its factor too, where it is another target */
  if (cg_bin && strcmp(cg_arch, bb_arch) != 0) {
    bb_other_row other[64];
    const int k = bb_cg_factor(cg_bin, only, r.random_input, r.runs, r.batches, other, 64);
    printf("the factor alone in the %s build:\n", cg_arch);
    if (k < 0) printf("  (%s failed)\n", cg_bin);
    for (int i = 0; i < k; i++)
      printf("%-14s %-6s x%-2d  scalar %8.3f us  batch %8.3f us  %5.2fx\n", other[i].mech, other[i].precision,
             other[i].lanes, other[i].t_scalar * 1e6, other[i].t_batch * 1e6, other[i].t_scalar / other[i].t_batch);
    if (k > 0) {
      r.other = sp_zalloc((size_t)k, sizeof *r.other);
      memcpy(r.other, other, sizeof *other * (size_t)k);
      r.nother = k;
      r.other_arch = cg_arch;
    }
  }
  if (step) {
    printf("the whole step (%d runs of %d steps after %d):\n", r.step.runs, r.step.steps, r.step.warm);
    r.steps = sp_zalloc((size_t)n, sizeof *r.steps);
    for (int i = 0; i < n; i++) {
      bb_step_row *w = &r.steps[i];
      bb_step_measure(list[i], &r.step, w);
      if (cg_bin) bb_step_cg(cg_bin, cg_arch, work, r.cg_warm, r.cg_steps, w);
      printf("%-14s %-6s x%-2d  %d x rt_world_step %9.1f us  rt_batch_step %9.1f us  %5.2fx  "
             "(begin, copy by copy: %4.1f %% of the batch step; instructions per copy-step %.3g vs %.3g)\n",
             w->e->mech, w->precision, w->e->lanes, w->e->lanes, w->t_scalar.med * 1e6, w->t_batch.med * 1e6,
             w->speedup.med, 100 * w->copywise, w->cg_scalar, w->cg_batch);
      fflush(stdout);
    }
    r.nsteps = n;
    /* the goal float x16 against double x8, both batches side by side */
    for (int i = 0; i < n; i++) {
      const bb_entry *f = float_twin(list, n, list[i]);
      if (!f) continue;
      r.steps[i].float_ratio = bb_step_pair(list[i], f, &r.step);
      r.steps[i].float_lanes = f->lanes;
      pair_line(list[i], f, r.steps[i].float_ratio, "copy-steps/s");
    }
    if (r.late_warm > 0) {
      bb_step_opts late = r.step;
      late.runs = 1;
      late.warm = r.late_warm;
      printf("the whole step later (%d steps after %d):\n", late.steps, late.warm);
      for (int i = 0; i < n; i++) {
        bb_step_row t;
        bb_step_measure(list[i], &late, &t);
        bb_step_row *w = &r.steps[i];
        w->late_speedup = t.speedup;
        w->checked += t.checked;
        printf("%-14s %-6s x%-2d  %d x rt_world_step %9.1f us  rt_batch_step %9.1f us  %5.2fx  (in lanes %.0f %%)\n",
               w->e->mech, w->precision, w->e->lanes, w->e->lanes, t.t_scalar.med * 1e6, t.t_batch.med * 1e6,
               t.speedup.med, 100 * t.lanes_used);
        fflush(stdout);
      }
    }
  }
  if (md) bb_write_md(&r, md);
  if (json) bb_write_json(&r, json);
  free(r.rows);
  free(r.other);
  free(r.steps);
  return 0;
}
