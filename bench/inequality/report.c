/* report.c -- the inequality bench's results as Markdown, JSON and the
 * README's tables (ineq.h): the same numbers in each. */
#include <math.h>
#include <stdio.h>

#include "ineq.h"
#include "json.h"
#include "../stat_json.h"

int iq_verdict(const iq_sample *s) {
  const iq_cost *c = &s->cost;
  if (!c->timed && !c->counted) return -1;
  int ok = 1;
  if (c->timed) ok &= c->ratio.med <= IQ_GOAL;
  if (c->counted) ok &= c->instr[IQ_NEW] / c->instr[IQ_EQ_ONLY] <= IQ_GOAL;
  return ok;
}

static const char *verdict_text(int v) { return v < 0 ? "NOT MEASURED" : v ? "PASS" : "MISS"; }

static double instr_ratio(const iq_cost *c) { return c->instr[IQ_NEW] / c->instr[IQ_EQ_ONLY]; }

/*---- Markdown ----------------------------------------------------------------*/

static void md_header(FILE *f, const iq_report *r) {
  rt_settings def;
  rt_settings_default(&def);
  fprintf(f,
          "# Limits, motors and springs: the new step against the equality-only step\n\n"
          "`make bench-inequality` on sources %s (issue 14, part 6). Every sample mechanism (`mechanisms/*.lua`), "
          "driven by its `.drive` script where it has one, %.0f s at dt 1/%.0f, %d iterations, single-threaded, "
          "the mechanism's other settings, contacts found before every step as `ldlsim` finds them; the sample's "
          "unrolled double program from the bench registry (*tables*: the interpreter's).\n\n"
          "- **new step**: LDL-PGS with the default settings, `rt_settings.coupled_rows` = %d and "
          "`coupled_contacts` = %d: motors, springs, ropes, the limits within reach of their bound and (in a step "
          "with at most that many contacts, while they are not settled) the contacts solved against the block "
          "through the Schur complement (`runtime/schur.c`, docs/DESIGN.md section 9);\n"
          "- **equality-only step**: the same LDL-PGS step with `coupled_rows` = `coupled_contacts` = 0: those rows "
          "are PGS rows only, the block step overrides them and the contact passes settle the contacts (the step "
          "before that coupling).\n\n",
          r->revision, IQ_SECONDS, 1.0 / IQ_DT, IQ_ITERATIONS, def.coupled_rows, def.coupled_contacts);
}

static void md_cost(FILE *f, const iq_report *r) {
  fprintf(f,
          "## Cost\n\n"
          "*Time*: both steps run the driven sample side by side in one process, in batches of %d steps, "
          "alternating which goes first; a run's figure is the median over its batches of the mean step time (the "
          "drive and the contacts not timed); median and min-max over %d runs, the ratio taken within each run. "
          "*Instructions*: the driven run under `valgrind --tool=callgrind`, collection on around every "
          "`rt_world_step` only, total over the steps. *Coupled rows*: rows the new step solved through the "
          "Schur complement, per step (`rt_step_info.coupled_rows`).\n\n"
          "| sample | drive | program | coupled rows / step (mean, max) | equality-only µs | new µs | new / "
          "equality-only | equality-only instructions | new instructions | new / equality-only | goal <= %.1fx |\n"
          "|---|---|---|--:|--:|--:|--:|--:|--:|--:|---|\n",
          IQ_BATCH, r->runs, IQ_GOAL);
  for (int i = 0; i < r->n; i++) {
    const iq_sample *s = &r->s[i];
    const iq_cost *c = &s->cost;
    fprintf(f, "| %s | %s | %s | ", s->name, s->drive[0] ? "yes" : "--", s->unrolled ? "unrolled" : "tables");
    if (c->timed)
      fprintf(f, "%.2f, %d | %.1f | %.1f | %.2fx (%.2f-%.2f) | ", c->coupled_mean, c->coupled_max,
              c->us[IQ_EQ_ONLY].med, c->us[IQ_NEW].med, c->ratio.med, c->ratio.lo, c->ratio.hi);
    else
      fputs("-- | not timed | | | ", f);
    if (c->counted)
      fprintf(f, "%.0f | %.0f | %.2fx | ", c->instr[IQ_EQ_ONLY], c->instr[IQ_NEW], instr_ratio(c));
    else
      fputs("not counted | | | ", f);
    fprintf(f, "%s |\n", verdict_text(iq_verdict(s)));
  }
  fprintf(f, "\n## Goal (issue 14: the new step at most %.1fx the equality-only step)\n\n", IQ_GOAL);
  for (int i = 0; i < r->n; i++) {
    const iq_sample *s = &r->s[i];
    const iq_cost *c = &s->cost;
    fprintf(f, "%-12s %s: ", verdict_text(iq_verdict(s)), s->name);
    if (!c->timed && !c->counted) {
      fprintf(f, "not measured (%s)\n", c->why);
      continue;
    }
    fputs("the new step costs ", f);
    if (c->timed) fprintf(f, "%.2fx (%.2f-%.2f) the equality-only step in time", c->ratio.med, c->ratio.lo, c->ratio.hi);
    if (c->timed && c->counted) fputs(", ", f);
    if (c->counted) fprintf(f, "%.2fx in instructions", instr_ratio(c));
    if (!c->timed || !c->counted) fprintf(f, " (%s)", c->why);
    fprintf(f, " (goal <= %.1fx)\n", IQ_GOAL);
  }
}

/* A limit or slip figure, "--" when the sample has no such row. */
static void md_figure(FILE *f, int have, double v) {
  if (!have)
    fputs(" -- |", f);
  else
    fprintf(f, " %.2g |", v);
}

static void md_hold_row(FILE *f, const iq_sample *s, iq_variant v) {
  const iq_hold *h = &s->hold[v];
  char label[64];
  iq_label(v, label, sizeof label);
  fprintf(f, "| %s | %s |", s->name, label);
  if (!h->ran) {
    fprintf(f, " not run: %s | | | | | |\n", h->why);
    return;
  }
  md_figure(f, s->nlimit > 0, h->limit);
  md_figure(f, s->nmotor > 0, h->slip);
  fprintf(f, " %.2g | %.2g | %.3g |", h->pos, h->ang, h->drift);
  if (h->worst_limit[0]) fprintf(f, " limit: %s;", h->worst_limit);
  if (h->worst_motor[0]) fprintf(f, " motor: %s;", h->worst_motor);
  if (h->exploded) fprintf(f, " exploded after %d steps: %s", h->steps, h->why);
  fputs(" |\n", f);
}

static void md_hold(FILE *f, const iq_report *r) {
  fputs("\n## Limits, motors and joints\n\n"
        "Each step over the same driven run from the initial state (`ldlsim MECH --drive MECH.drive --json`'s "
        "figures, sim/watch.h): *limit overrun*, the largest amount any limit or rope was exceeded "
        "(`max_limit_violation`, m or rad); *motor slip*, the largest drift of a motor's axis from its commanded "
        "motion while below its `max_force` (`max_motor_slip`, m or rad); *joint error*, the largest error of "
        "the equality joints (`max_pos_error`, `max_ang_error`); *energy drift*, the largest |E - E0| over the "
        "run (`max_energy_drift`, J: in a driven run it includes the work of the motors and drives). -- : the "
        "sample has no such row. The note names the limit and the motor of the largest figures.\n\n"
        "| sample | step | limit overrun | motor slip | joint error (m) | joint error (rad) | energy drift (J) | "
        "note |\n|---|---|--:|--:|--:|--:|--:|---|\n",
        f);
  for (int i = 0; i < r->n; i++)
    for (int v = 0; v < IQ_VARIANTS; v++) md_hold_row(f, &r->s[i], (iq_variant)v);
}

void iq_write_md(FILE *f, const iq_report *r) {
  md_header(f, r);
  md_cost(f, r);
  md_hold(f, r);
}

/*---- README -------------------------------------------------------------------*/

static int has_inequality_rows(const iq_sample *s) { return s->nlimit + s->nmotor + s->nspring > 0; }

void iq_write_readme(FILE *f, const iq_report *r) {
  fprintf(f,
          "Measured by `make bench-inequality` on sources %s (10 s of each sample's `.drive` script at dt 1/60, "
          "10 iterations; the samples with limits, motors or springs; every sample and the definitions: "
          "[bench/results/inequality.md](bench/results/inequality.md)). *new / eq-only*: the cost of a step with "
          "the Schur coupling (default `coupled_rows` and `coupled_contacts`) over the same LDL-PGS step with both 0, "
          "in time "
          "(median) and in instructions (callgrind); limit overrun and motor slip in m or rad.\n\n"
          "| sample | step | limit overrun | motor slip (unsaturated) | joint error (m) | new / eq-only: time | "
          "instructions |\n|---|---|--:|--:|--:|--:|--:|\n",
          r->revision);
  for (int i = 0; i < r->n; i++) {
    const iq_sample *s = &r->s[i];
    if (!has_inequality_rows(s)) continue;
    for (int v = 0; v < IQ_VARIANTS; v++) {
      const iq_hold *h = &s->hold[v];
      char label[64];
      iq_label((iq_variant)v, label, sizeof label);
      fprintf(f, "| %s | %s |", s->name, label);
      if (!h->ran || h->exploded) {
        fprintf(f, " %s | | |", h->ran ? "exploded" : "not run");
      } else {
        md_figure(f, s->nlimit > 0, h->limit);
        md_figure(f, s->nmotor > 0, h->slip);
        fprintf(f, " %.2g |", h->pos);
      }
      if (v == IQ_NEW && s->cost.timed)
        fprintf(f, " %.2fx |", s->cost.ratio.med);
      else
        fputs(" |", f);
      if (v == IQ_NEW && s->cost.counted)
        fprintf(f, " %.2fx |\n", instr_ratio(&s->cost));
      else
        fputs(" |\n", f);
    }
  }
  fputs("\n", f);
}

/*---- JSON -----------------------------------------------------------------------*/

static void json_cost(json_writer *w, const iq_sample *s) {
  const iq_cost *c = &s->cost;
  json_key(w, "timed");
  json_bool(w, c->timed);
  if (c->timed) {
    json_key(w, "coupled_rows_mean");
    json_double(w, c->coupled_mean);
    json_key(w, "coupled_rows_max");
    json_int(w, c->coupled_max);
    bt_stat_json(w, "equality_only_us", c->us[IQ_EQ_ONLY]);
    bt_stat_json(w, "new_us", c->us[IQ_NEW]);
    bt_stat_json(w, "time_ratio", c->ratio);
  }
  json_key(w, "counted");
  json_bool(w, c->counted);
  if (c->counted) {
    json_key(w, "equality_only_instructions");
    json_double(w, c->instr[IQ_EQ_ONLY]);
    json_key(w, "new_instructions");
    json_double(w, c->instr[IQ_NEW]);
    json_key(w, "instruction_ratio");
    json_double(w, instr_ratio(c));
  }
  if (!c->timed || !c->counted) {
    json_key(w, "why");
    json_string(w, c->why);
  }
  json_key(w, "verdict");
  json_string(w, verdict_text(iq_verdict(s)));
}

static void json_hold(json_writer *w, const iq_sample *s, iq_variant v) {
  const iq_hold *h = &s->hold[v];
  json_begin_object(w);
  json_key(w, "step");
  json_string(w, iq_key(v));
  json_key(w, "ran");
  json_bool(w, h->ran);
  if (h->ran) {
    json_key(w, "steps");
    json_int(w, h->steps);
    json_key(w, "exploded");
    json_bool(w, h->exploded);
    json_key(w, "max_limit_violation");
    json_double(w, s->nlimit > 0 ? h->limit : NAN);
    json_key(w, "max_motor_slip");
    json_double(w, s->nmotor > 0 ? h->slip : NAN);
    json_key(w, "worst_limit");
    json_string(w, h->worst_limit);
    json_key(w, "worst_motor");
    json_string(w, h->worst_motor);
    json_key(w, "max_pos_error");
    json_double(w, h->pos);
    json_key(w, "max_ang_error");
    json_double(w, h->ang);
    json_key(w, "energy_start");
    json_double(w, h->energy_start);
    json_key(w, "max_energy_drift");
    json_double(w, h->drift);
    json_key(w, "max_energy_gain");
    json_double(w, h->gain);
  }
  if (!h->ran || h->exploded) {
    json_key(w, "why");
    json_string(w, h->why);
  }
  json_end_object(w);
}

static void json_sample(json_writer *w, const iq_sample *s) {
  json_begin_object(w);
  json_key(w, "sample");
  json_string(w, s->name);
  json_key(w, "drive");
  json_string(w, s->drive);
  json_key(w, "dim");
  json_int(w, s->dim);
  json_key(w, "program");
  json_string(w, s->unrolled ? "unrolled" : "tables");
  json_key(w, "limits");
  json_int(w, s->nlimit);
  json_key(w, "motors");
  json_int(w, s->nmotor);
  json_key(w, "springs");
  json_int(w, s->nspring);
  json_key(w, "cost");
  json_begin_object(w);
  json_cost(w, s);
  json_end_object(w);
  json_key(w, "hold");
  json_begin_array(w);
  for (int v = 0; v < IQ_VARIANTS; v++) json_hold(w, s, (iq_variant)v);
  json_end_array(w);
  json_end_object(w);
}

void iq_write_json(FILE *f, const iq_report *r) {
  rt_settings def;
  rt_settings_default(&def);
  json_writer w;
  json_begin(&w, f);
  json_key(&w, "revision");
  json_string(&w, r->revision);
  json_key(&w, "dt");
  json_double(&w, IQ_DT);
  json_key(&w, "iterations");
  json_int(&w, IQ_ITERATIONS);
  json_key(&w, "seconds");
  json_double(&w, IQ_SECONDS);
  json_key(&w, "timing_runs");
  json_int(&w, r->runs);
  json_key(&w, "batch_steps");
  json_int(&w, IQ_BATCH);
  json_key(&w, "new_coupled_rows");
  json_int(&w, def.coupled_rows);
  json_key(&w, "goal");
  json_double(&w, IQ_GOAL);
  json_key(&w, "samples");
  json_begin_array(&w);
  for (int i = 0; i < r->n; i++) json_sample(&w, &r->s[i]);
  json_end_array(&w);
  json_end(&w);
}
