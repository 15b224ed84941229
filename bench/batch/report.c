/* report.c -- bench/results/batch.md and batch.json (batch.h), with the
 * issue's goals as PASS/MISS lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"

/* The goals of issue 21 that a factor-only bench can judge. */
enum { GOAL_FRAC_PCT = 30 };        /* batched double factor, % of the AVX-512 double peak */
static const double GOAL_FLOAT_RATIO = 1.6; /* float x16 throughput / double x8 */

/* The row of mechanism `mech` in `precision`, or 0. */
static const bb_row *find(const bb_report *r, const char *mech, const char *precision) {
  for (int i = 0; i < r->nrows; i++)
    if (strcmp(r->rows[i].e->mech, mech) == 0 && strcmp(r->rows[i].precision, precision) == 0) return &r->rows[i];
  return 0;
}

static FILE *open_out(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(1);
  }
  return f;
}

static int avx512_peak(const bb_report *r) { return strstr(r->peak_name, "512") != 0; }

void bb_write_md(const bb_report *r, const char *path) {
  FILE *f = open_out(path);
  fprintf(f, "# Batch factor against N scalar factors (make bench-batch)\n\n");
  fprintf(f, "Revision %s; CPU %s; one core. Programs built with `%s` (%s).\n\n", r->revision, r->cpu, bb_cflags,
          bb_arch);
  fprintf(f, "The factor alone: N copies of the mechanism, each its own random SPD matrix with the program's\n"
             "block pattern, factored by N calls of the scalar unrolled program and by one call of the\n"
             "`ldlgen --batch N` program (lanes checked bitwise against the scalar factors first). Both built\n"
             "with the same flags. Times per N copies, the workspace restore (memcpy) subtracted; median over\n"
             "%d runs (each the median of %d batches of calls), min-max in brackets. Flops per copy:\n"
             "`ldlgen --stats`. Peak: %s, measured (bench/peak.c): %.1f GFLOP/s double, %.1f float.\n\n",
          r->runs, r->batches, r->peak_name, r->peak[0], r->peak[1]);
  fprintf(f, "| mechanism | precision | N | flops/copy | N scalar (us) | batch (us) | speedup | "
             "copy-factors/s scalar | copy-factors/s batch | GFLOP/s scalar | GFLOP/s batch | %% of peak | "
             "compile s (scalar, batch) | subnormal entries |\n");
  fprintf(f, "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (int i = 0; i < r->nrows; i++) {
    const bb_row *w = &r->rows[i];
    fprintf(f,
            "| %s | %s | %d | %.0f | %.3f [%.3f-%.3f] | %.3f [%.3f-%.3f] | %.2fx | %.3g | %.3g | %.2f | %.2f | "
            "%.1f %% | %.1f, %.1f | %ld of %ld |\n",
            w->e->mech, w->precision, w->e->lanes, w->e->flops, w->t_scalar.med * 1e6, w->t_scalar.lo * 1e6,
            w->t_scalar.hi * 1e6, w->t_batch.med * 1e6, w->t_batch.lo * 1e6, w->t_batch.hi * 1e6, w->speedup,
            w->cps_scalar, w->cps_batch, w->gf_scalar, w->gf_batch, 100 * w->frac, w->e->cc_scalar,
            w->e->cc_batch, w->subnormal, w->entries);
  }
  fprintf(f, "\nSubnormal entries: values of the N factored workspaces that are subnormal. Intermediate\n"
             "products are not counted: on the random inputs, float factors of long loops (the tank's\n"
             "tracks) hold entries small enough that their products underflow, and subnormal arithmetic\n"
             "is slow on x86 (microcode assists) in scalar and vector code alike -- a slow float row with\n"
             "0 here measures the inputs as much as the code (the bench keeps IEEE semantics: no FTZ/DAZ).\n");
  fprintf(f, "\n## Goals (issue 21)\n\n");
  for (int i = 0; i < r->nrows; i++) {
    const bb_row *w = &r->rows[i];
    if (strcmp(w->precision, "double") != 0) continue;
    if (!avx512_peak(r))
      fprintf(f, "- MISS (not measurable: no AVX-512 on this CPU) batched double factor >= %d %% of the AVX-512 "
                 "double peak: %s\n", GOAL_FRAC_PCT, w->e->mech);
    else
      fprintf(f, "- %s batched double factor (x%d) >= %d %% of the AVX-512 double peak: %s %.1f %%\n",
              100 * w->frac >= GOAL_FRAC_PCT ? "PASS" : "MISS", w->e->lanes, GOAL_FRAC_PCT, w->e->mech,
              100 * w->frac);
  }
  for (int i = 0; i < r->nrows; i++) {
    const bb_row *d = &r->rows[i], *s = find(r, d->e->mech, "float");
    if (strcmp(d->precision, "double") != 0 || !s) continue;
    double ratio = s->cps_batch / d->cps_batch;
    fprintf(f, "- %s float x%d >= %.1fx the double x%d batch (copy-factors/s): %s %.2fx\n",
            ratio >= GOAL_FLOAT_RATIO ? "PASS" : "MISS", s->e->lanes, GOAL_FLOAT_RATIO, d->e->lanes, d->e->mech,
            ratio);
  }
  fprintf(f, "- not measured: whole-step throughput (8 double lanes >= 4x 8 scalar steps): rt_batch not built\n");
  fclose(f);
}

static void json_stat(FILE *f, const char *name, bb_stat s) {
  fprintf(f, "\"%s\": {\"med\": %.6g, \"lo\": %.6g, \"hi\": %.6g}", name, s.med, s.lo, s.hi);
}

void bb_write_json(const bb_report *r, const char *path) {
  FILE *f = open_out(path);
  fprintf(f, "{\n  \"revision\": \"%s\",\n  \"cpu\": \"%s\",\n  \"arch\": \"%s\",\n  \"cflags\": \"%s\",\n", r->revision,
          r->cpu, bb_arch, bb_cflags);
  fprintf(f, "  \"peak\": {\"kernel\": \"%s\", \"double_gflops\": %.4g, \"float_gflops\": %.4g},\n", r->peak_name,
          r->peak[0], r->peak[1]);
  fprintf(f, "  \"runs\": %d,\n  \"batches\": %d,\n  \"rows\": [\n", r->runs, r->batches);
  for (int i = 0; i < r->nrows; i++) {
    const bb_row *w = &r->rows[i];
    fprintf(f, "    {\"mechanism\": \"%s\", \"precision\": \"%s\", \"lanes\": %d, \"flops_per_copy\": %.0f, ",
            w->e->mech, w->precision, w->e->lanes, w->e->flops);
    json_stat(f, "scalar_s", w->t_scalar);
    fputs(", ", f);
    json_stat(f, "batch_s", w->t_batch);
    fprintf(f,
            ", \"restore_scalar_s\": %.6g, \"restore_batch_s\": %.6g, \"speedup\": %.4g, "
            "\"copy_factors_per_s_scalar\": %.6g, \"copy_factors_per_s_batch\": %.6g, \"gflops_scalar\": %.4g, "
            "\"gflops_batch\": %.4g, \"fraction_of_peak\": %.4g, \"compile_s_scalar\": %.2f, "
            "\"compile_s_batch\": %.2f, \"subnormal_entries\": %ld, \"entries\": %ld}%s\n",
            w->copy_scalar, w->copy_batch, w->speedup, w->cps_scalar, w->cps_batch, w->gf_scalar, w->gf_batch,
            w->frac, w->e->cc_scalar, w->e->cc_batch, w->subnormal, w->entries, i + 1 < r->nrows ? "," : "");
  }
  fprintf(f, "  ],\n  \"whole_step\": \"not measured: rt_batch not built\"\n}\n");
  fclose(f);
}
