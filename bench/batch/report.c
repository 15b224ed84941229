/* report.c -- bench/results/batch.md and batch.json (batch.h), with the
 * issue's goals as PASS/MISS lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"

/* The goals of issue 21. */
enum { GOAL_FRAC_PCT = 30 };        /* batched double factor, % of the AVX-512 double peak */
static const double GOAL_FLOAT_RATIO = 1.6; /* float x16 throughput / double x8 */
static const double GOAL_STEP_SPEEDUP = 4.0; /* whole step, 8 double lanes / 8 scalar steps */
/* the mechanisms the whole-step goal names */
static const char *const GOAL_STEP_MECHS[] = {"scissor_lift", "tank"};

static FILE *open_out(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(1);
  }
  return f;
}

static int avx512_peak(const bb_report *r) { return strstr(r->peak_name, "512") != 0; }

/* The whole-step row of mechanism `mech` in `precision`, or 0. */
static const bb_step_row *find_step(const bb_report *r, const char *mech, const char *precision) {
  for (int i = 0; i < r->nsteps; i++)
    if (strcmp(r->steps[i].e->mech, mech) == 0 && strcmp(r->steps[i].precision, precision) == 0) return &r->steps[i];
  return 0;
}

/* The goal line float x16 against the double batch d (of `what`: "" the
 * factor, "whole step, "), in `unit`, from the ratio q over the runs. */
static void float_goal(FILE *f, const char *what, const char *unit, const bb_entry *d, int float_lanes, bb_stat q) {
  fprintf(f, "- %s %sfloat x%d >= %.1fx the double x%d batch (%s): %s %.2fx [%.2f-%.2f over runs]\n",
          q.med >= GOAL_FLOAT_RATIO ? "PASS" : "MISS", what, float_lanes, GOAL_FLOAT_RATIO, d->lanes, unit, d->mech,
          q.med, q.lo, q.hi);
}

static double stage_sum(const bb_step_row *w) {
  double t = 0;
  for (int s = 0; s < BB_STAGES; s++) t += w->stage[s];
  return t;
}

static void step_md(FILE *f, const bb_report *r) {
  long long checked = 0;
  for (int i = 0; i < r->nsteps; i++) checked += r->steps[i].checked;
  fprintf(f, "\n## The whole step: rt_batch_step against N rt_world_step\n\n");
  fprintf(f,
          "N worlds of the mechanism stepped by one `rt_batch_step` (worlds of the batch file's own scalar\n"
          "program) and the same N worlds stepped one by one by `rt_world_step` (the scalar program's file),\n"
          "in lockstep in one process, the runtime built with the same target flags as the programs. In\n"
          "motion: copy j plays scenario j mod 8 (a 16-lane batch each twice, so that a copy-step is the\n"
          "same work at every N): its mechanism's drive script (`mechanisms/MECH.drive`: buggy, tank) from the\n"
          "scenario's phase, the lift its driven rod, the chain swings; the scenario's push at the start;\n"
          "and the vehicles their ground (and wheel) contacts, found at their own poses\n"
          "before every step. After every step both sides are compared bit for bit -- poses, velocities,\n"
          "step status: %lld copy-steps compared, all equal (the bench fails otherwise). Times per step of\n"
          "all N copies: the median over %d timed steps (after %d), then the median over %d runs from fresh\n"
          "worlds, [min-max] over the runs; the order of the sides rotates from step to step. The batch\n"
          "steps %s (`rt_batch_set_stepping`; its default, `RT_BATCH_STEP_MEASURED`, times the lanes\n"
          "against the copies one by one and keeps the faster).\n\n",
          checked, r->step.steps, r->step.warm, r->step.runs,
          r->step.stepping == RT_BATCH_STEP_LANES    ? "in lanes (`RT_BATCH_STEP_LANES`: what issue 21's goals measure)"
          : r->step.stepping == RT_BATCH_STEP_COPIES ? "its copies one by one (`RT_BATCH_STEP_COPIES`)"
                                                     : "as measured (`RT_BATCH_STEP_MEASURED`)");
  if (r->step.left_out > 0)
    fprintf(f,
            "**%d copies left out** (`--left-out`, `rt_batch_set_active`): the batch steps the other N - %d, and\n"
            "the scalar side steps those only; copy-steps and the stages count them, and every column headed N\n"
            "means them.\n\n",
            r->step.left_out, r->step.left_out);
  fprintf(f, "| mechanism | precision | N | contacts/copy | in lanes | N x rt_world_step (us) | rt_batch_step (us) | speedup | "
             "speedup later | copy-steps/s scalar | copy-steps/s batch | begin / factor / iterate / end | begin in the batch step | "
             "after begin: batch, one by one (us) | bound | "
             "instr./copy-step scalar | instr./copy-step batch | instr. ratio |\n");
  fprintf(f, "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (int i = 0; i < r->nsteps; i++) {
    const bb_step_row *w = &r->steps[i];
    const double t = stage_sum(w);
    fprintf(f, "| %s | %s | %d | %.0f | %.0f %% | %.1f [%.1f-%.1f] | %.1f [%.1f-%.1f] | %.2fx [%.2f-%.2f] |",
            w->e->mech, w->precision, w->e->lanes, w->contacts, 100 * w->lanes_used, w->t_scalar.med * 1e6,
            w->t_scalar.lo * 1e6,
            w->t_scalar.hi * 1e6, w->t_batch.med * 1e6, w->t_batch.lo * 1e6, w->t_batch.hi * 1e6, w->speedup.med,
            w->speedup.lo, w->speedup.hi);
    if (r->late_warm > 0)
      fprintf(f, " %.2fx |", w->late_speedup.med);
    else
      fprintf(f, " -- |");
    fprintf(f, " %.3g | %.3g |", w->cps_scalar, w->cps_batch);
    for (int s = 0; s < BB_STAGES; s++) fprintf(f, "%s%.0f", s ? " / " : " ", 100 * w->stage[s] / t);
    fprintf(f, " %% | %.0f %% | %.0f, %.0f | %.2fx ", 100 * w->copywise, w->after_s * 1e6, w->after_scalar_s * 1e6,
            w->bound);
    if (w->cg_scalar > 0)
      fprintf(f, "| %.4g | %.4g | %.2fx |\n", w->cg_scalar, w->cg_batch, w->cg_scalar / w->cg_batch);
    else
      fprintf(f, "| -- | -- | %s |\n", w->cg_note[0] ? w->cg_note : "not counted");
  }
  const char *cg_arch = "";
  for (int i = 0; i < r->nsteps; i++)
    if (r->steps[i].cg_scalar > 0) cg_arch = r->steps[i].cg_note;
  fprintf(f,
          "\nbegin / factor / iterate / end: each stage's share of the scalar step, measured on a third copy\n"
          "of the N worlds stepped through rt_world.h's split entry points (what rt_world_step does without\n"
          "its thread), in lockstep with the others: begin -- forces, rows, warm start; factor -- the\n"
          "assembly of H~ and its factorization; iterate -- the PGS sweeps before the block step; end -- the\n"
          "block step and the coupled rows, the contact passes, the position pass, integration, projection\n"
          "and stabilization. rt_batch_step (docs/DESIGN.md section 10) runs begin copy by copy; the\n"
          "factorization, the sweeps, the contact passes, the solves of the block steps and the projection,\n"
          "and post-stabilization's factorization and solve in lanes; each copy's assembly, block-step\n"
          "residuals and corrections, coupled rows (S), position pass and integration copy by copy.\n"
          "*in lanes*: the share of the timed batch steps that\n"
          "ran their sweeps and contact passes in lanes (rt_batch_lanes_used; by default while the step's\n"
          "rows in lanes fit RT_BATCH_LANES_BUDGET, copy by copy above). *begin in the batch step*: N x begin over the\n"
          "batch step's time; *after begin*: the batch step less N x begin (estimated: the stages are timed\n"
          "on the scalar side) against N x (factor + iterate + end) one by one; *bound*: N scalar steps\n"
          "over N x begin -- the most the batch can give while begin runs copy by copy, whatever the rest.\n");
  if (r->late_warm > 0)
    fprintf(f,
            "*speedup later*: the same %d steps in one run after %d steps instead of %d, checked bit for bit\n"
            "too. By then copies driven apart meet the ground at other links in each copy, so their contact\n"
            "rows lie on other bodies in other copies, and their contact passes and sweep counts differ; the\n"
            "first window, while the copies' contacts are still on the same bodies, flatters the lanes.\n",
            r->step.steps, r->late_warm, r->step.warm);
  if (cg_arch[0])
    fprintf(f,
            "\nInstructions per copy-step: each side run alone under `valgrind --tool=callgrind`, collection on\n"
            "around the step calls only, %d steps after %d, in the %s (valgrind cannot run AVX-512 code, so\n"
            "on an AVX-512 machine these count 256-bit lanes where the times above ran 512-bit ones).\n",
            r->cg_steps, r->cg_warm, cg_arch);
}

/* The factor alone in the callgrind binary's build (bb_cg_factor). */
static void other_md(FILE *f, const bb_report *r) {
  if (r->nother == 0) return;
  fprintf(f,
          "\n### The factor alone in the %s build\n\n"
          "The same programs compiled for `ARCH=%s` (the bench's callgrind binary), timed on this machine the\n"
          "same way: what a game shipping that build gets. A batch program runs its lanes in groups as wide as\n"
          "one register of its target (`rt_lanes.h`), so there a batch wider than a register goes in groups.\n\n",
          r->other_arch, r->other_arch);
  fprintf(f, "| mechanism | precision | N | N scalar (us) | batch (us) | speedup |\n|---|---|--:|--:|--:|--:|\n");
  for (int i = 0; i < r->nother; i++) {
    const bb_other_row *w = &r->other[i];
    fprintf(f, "| %s | %s | %d | %.3f | %.3f | %.2fx |\n", w->mech, w->precision, w->lanes, w->t_scalar * 1e6,
            w->t_batch * 1e6, w->t_scalar / w->t_batch);
  }
}

void bb_write_md(const bb_report *r, const char *path) {
  FILE *f = open_out(path);
  fprintf(f, "# N copies in lanes against N scalar copies: the factor and the whole step (make bench-batch)\n\n");
  fprintf(f, "Revision %s; CPU %s; one core. Programs generated with `ldlgen --order %s` and built with `%s` (%s).\n\n",
          r->revision, r->cpu, bb_order, bb_cflags, bb_arch);
  if (strstr(bb_cflags, "-fno-ipa-ra"))
    fprintf(f, "`-fno-ipa-ra`: gcc 12 otherwise leaves the AVX registers' upper halves dirty after a generated\n"
               "function's tail call, and every legacy-SSE libm call after it pays the SSE/AVX transition (before\n"
               "the runtime took fmax out of its hot loops, the whole step of both sides ran 4-5x slower; see\n"
               "the Makefile's vzeroupper_fix).\n\n");
  fprintf(f, "## The factor alone\n\n");
  if (r->random_input)
    fprintf(f, "N copies of the mechanism, each its own random SPD matrix with the program's\n"
               "block pattern (`--input random`),");
  else
    fprintf(f, "N copies of the mechanism, each its own H~ as its world assembles it: the mechanism at the\n"
               "poses the copy reaches after %d steps of the whole step's inputs below (its push, its phase\n"
               "of the drive script, its contacts), with the settings' epsilon,",
            r->input_warm);
  fprintf(f, "\nfactored by N calls of the scalar unrolled program and by one call of the\n"
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
             "products are not counted: on random diagonally dominant inputs (`--input random`), float\n"
             "factors of long loops (the tank's tracks) hold entries small enough that their products\n"
             "underflow, and subnormal arithmetic is slow on x86 (microcode assists) in scalar and vector\n"
             "code alike -- the tank's float row then measured the inputs as much as the code (0.42-0.49x\n"
             "the double batch); the bench keeps IEEE semantics: no FTZ/DAZ.\n");
  other_md(f, r);
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
    const bb_row *d = &r->rows[i];
    if (strcmp(d->precision, "double") == 0 && d->float_lanes > 0)
      float_goal(f, "", "copy-factors/s, both timed side by side", d->e, d->float_lanes, d->float_ratio);
  }
  if (r->nsteps == 0)
    fprintf(f, "- not measured (--no-step): whole-step throughput (8 double lanes >= %.0fx 8 scalar steps)\n",
            GOAL_STEP_SPEEDUP);
  if (r->nsteps > 0 && r->step.left_out > 0)
    fprintf(f, "- (the whole-step goals below measured with %d copies left out: not issue 21's measure)\n",
            r->step.left_out);
  for (size_t k = 0; k < sizeof GOAL_STEP_MECHS / sizeof GOAL_STEP_MECHS[0] && r->nsteps > 0; k++) {
    const bb_step_row *w = find_step(r, GOAL_STEP_MECHS[k], "double");
    if (!w || w->e->lanes != 8) {
      fprintf(f, "- MISS (not measured) whole step, 8 double lanes >= %.0fx 8 scalar steps: %s\n", GOAL_STEP_SPEEDUP,
              GOAL_STEP_MECHS[k]);
      continue;
    }
    fprintf(f, "- %s whole step, 8 double lanes >= %.0fx 8 scalar steps (copy-steps/s): %s %.2fx [%.2f-%.2f over runs]; "
               "at most %.2fx while begin runs copy by copy",
            w->speedup.med >= GOAL_STEP_SPEEDUP ? "PASS" : "MISS", GOAL_STEP_SPEEDUP, w->e->mech, w->speedup.med,
            w->speedup.lo, w->speedup.hi, w->bound);
    if (r->late_warm > 0) fprintf(f, "; %.2fx after %d steps", w->late_speedup.med, r->late_warm);
    fputs("\n", f);
  }
  for (int i = 0; i < r->nsteps; i++) {
    const bb_step_row *d = &r->steps[i];
    if (strcmp(d->precision, "double") == 0 && d->float_lanes > 0)
      float_goal(f, "whole step, ", "copy-steps/s, both stepped side by side", d->e, d->float_lanes, d->float_ratio);
  }
  if (r->nsteps > 0) step_md(f, r);
  fclose(f);
}

static void json_stat(FILE *f, const char *name, bb_stat s) {
  fprintf(f, "\"%s\": {\"med\": %.6g, \"lo\": %.6g, \"hi\": %.6g}", name, s.med, s.lo, s.hi);
}

void bb_write_json(const bb_report *r, const char *path) {
  FILE *f = open_out(path);
  fprintf(f, "{\n  \"revision\": \"%s\",\n  \"cpu\": \"%s\",\n  \"arch\": \"%s\",\n  \"cflags\": \"%s\",\n  \"order\": \"%s\",\n",
          r->revision, r->cpu, bb_arch, bb_cflags, bb_order);
  fprintf(f, "  \"peak\": {\"kernel\": \"%s\", \"double_gflops\": %.4g, \"float_gflops\": %.4g},\n", r->peak_name,
          r->peak[0], r->peak[1]);
  fprintf(f, "  \"runs\": %d,\n  \"batches\": %d,\n  \"input\": \"%s\",\n  \"input_warm\": %d,\n  \"rows\": [\n", r->runs,
          r->batches, r->random_input ? "random" : "mechanism", r->random_input ? 0 : r->input_warm);
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
            "\"compile_s_batch\": %.2f, \"subnormal_entries\": %ld, \"entries\": %ld",
            w->copy_scalar, w->copy_batch, w->speedup, w->cps_scalar, w->cps_batch, w->gf_scalar, w->gf_batch,
            w->frac, w->e->cc_scalar, w->e->cc_batch, w->subnormal, w->entries);
    if (w->float_lanes > 0) { /* a double row: its mechanism's float batch factor against it, side by side */
      fprintf(f, ", \"float_lanes\": %d, ", w->float_lanes);
      json_stat(f, "float_over_double", w->float_ratio);
    }
    fprintf(f, "}%s\n", i + 1 < r->nrows ? "," : "");
  }
  fprintf(f, "  ],\n");
  if (r->nother > 0) {
    fprintf(f, "  \"other_build\": {\"arch\": \"%s\", \"rows\": [\n", r->other_arch);
    for (int i = 0; i < r->nother; i++) {
      const bb_other_row *w = &r->other[i];
      fprintf(f, "    {\"mechanism\": \"%s\", \"precision\": \"%s\", \"lanes\": %d, \"scalar_s\": %.6g, \"batch_s\": %.6g, "
                 "\"speedup\": %.4g}%s\n", w->mech, w->precision, w->lanes, w->t_scalar, w->t_batch,
              w->t_scalar / w->t_batch, i + 1 < r->nother ? "," : "");
    }
    fprintf(f, "  ]},\n");
  } else {
    fprintf(f, "  \"other_build\": null,\n");
  }
  if (r->nsteps == 0) {
    fprintf(f, "  \"whole_step\": null\n}\n");
    fclose(f);
    return;
  }
  fprintf(f, "  \"whole_step\": {\"runs\": %d, \"warm_steps\": %d, \"timed_steps\": %d, \"goal_speedup\": %.1f, "
             "\"cg_warm_steps\": %d, \"cg_steps\": %d, \"late_warm_steps\": %d, \"stepping\": \"%s\", \"left_out\": %d, \"rows\": [\n",
          r->step.runs, r->step.warm, r->step.steps, GOAL_STEP_SPEEDUP, r->cg_warm, r->cg_steps, r->late_warm,
          r->step.stepping == RT_BATCH_STEP_LANES ? "lanes" : r->step.stepping == RT_BATCH_STEP_COPIES ? "copies" : "measured",
          r->step.left_out);
  static const char *const stage_name[BB_STAGES] = {"begin", "factor", "iterate", "end"};
  for (int i = 0; i < r->nsteps; i++) {
    const bb_step_row *w = &r->steps[i];
    fprintf(f,
            "    {\"mechanism\": \"%s\", \"precision\": \"%s\", \"lanes\": %d, \"contacts_per_copy\": %.4g, "
            "\"in_lanes\": %.4g, ",
            w->e->mech, w->precision, w->e->lanes, w->contacts, w->lanes_used);
    json_stat(f, "scalar_s", w->t_scalar);
    fputs(", ", f);
    json_stat(f, "batch_s", w->t_batch);
    fputs(", ", f);
    json_stat(f, "speedup", w->speedup);
    if (r->late_warm > 0) {
      fputs(", ", f);
      json_stat(f, "speedup_late", w->late_speedup);
    } else {
      fputs(", \"speedup_late\": null", f);
    }
    if (w->float_lanes > 0) { /* a double row: its mechanism's float batch against it, side by side */
      fprintf(f, ", \"float_lanes\": %d, ", w->float_lanes);
      json_stat(f, "float_over_double", w->float_ratio);
    }
    fprintf(f, ", \"copy_steps_per_s_scalar\": %.6g, \"copy_steps_per_s_batch\": %.6g, \"stage_s_per_copy_step\": {",
            w->cps_scalar, w->cps_batch);
    for (int s = 0; s < BB_STAGES; s++) fprintf(f, "%s\"%s\": %.6g", s ? ", " : "", stage_name[s], w->stage[s]);
    fprintf(f, "}, \"begin_share_of_batch\": %.4g, \"after_begin_batch_s\": %.6g, \"after_begin_one_by_one_s\": %.6g, "
               "\"speedup_bound\": %.4g, \"copy_steps_checked\": %lld, ",
            w->copywise, w->after_s, w->after_scalar_s, w->bound, w->checked);
    if (w->cg_scalar > 0)
      fprintf(f, "\"instructions_per_copy_step\": {\"scalar\": %.6g, \"batch\": %.6g, \"build\": \"%s\"}}", w->cg_scalar,
              w->cg_batch, w->cg_note);
    else
      fprintf(f, "\"instructions_per_copy_step\": null}");
    fprintf(f, "%s\n", i + 1 < r->nsteps ? "," : "");
  }
  fprintf(f, "  ]}\n}\n");
  fclose(f);
}
