/* precision.c -- see precision.h. */
#include "precision.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mechworld.h"
#include "preset.h"
#include "simrun.h"

enum { PCR_CAP = 20000, STEPS_PER_BATCH = 4 };

/* What the timed calls work on. */
typedef struct ctx {
  const rt_program *pf, *pd;
  const bm_input *in;
  int n;
  size_t bytes_f, bytes_d;
  void *pristine_f, *work_f, *temp_f, *asm_f;
  void *pristine_d, *work_d, *temp_d;
  float *xf;
  double *x, *xd, *xp, *refine_scratch, *pcr_scratch;
  double pcr_tol;
} ctx;

static void restore_f(void *p) {
  ctx *c = p;
  memcpy(c->work_f, c->pristine_f, c->bytes_f);
  __asm__ volatile("" ::: "memory");
}

static void factor_f(void *p) {
  ctx *c = p;
  memcpy(c->work_f, c->pristine_f, c->bytes_f);
  rt_program_factor(c->pf, c->work_f, c->temp_f);
}

/* As the world's block step solves: b rounded to float, solved, back. */
static void solve_f(void *p) {
  ctx *c = p;
  for (int i = 0; i < c->n; i++) c->xf[i] = (float)c->in->b[i];
  rt_program_solve(c->pf, c->work_f, c->xf);
  for (int i = 0; i < c->n; i++) c->x[i] = c->xf[i];
}

/* The fast preset: the float solve and one refinement step (unchecked, as
 * the world takes it). */
static void fast_f(void *p) {
  ctx *c = p;
  rt_program_solve_refined(c->pf, c->in->J, c->in->inv_mass, c->in->inv_inertia, c->in->epsilon, c->work_f, c->in->b,
                           c->x, 1, c->refine_scratch, NULL);
}

static void assemble_f(void *p) {
  ctx *c = p;
  rt_assemble(c->pf, c->in->J, c->in->inv_mass, c->in->inv_inertia, c->in->epsilon, c->asm_f);
}

static void restore_d(void *p) {
  ctx *c = p;
  memcpy(c->work_d, c->pristine_d, c->bytes_d);
  __asm__ volatile("" ::: "memory");
}

static void factor_d(void *p) {
  ctx *c = p;
  memcpy(c->work_d, c->pristine_d, c->bytes_d);
  rt_program_factor(c->pd, c->work_d, c->temp_d);
}

static void solve_d(void *p) {
  ctx *c = p;
  memcpy(c->xd, c->in->b, sizeof *c->xd * (size_t)c->n);
  rt_program_solve(c->pd, c->work_d, c->xd);
}

static int pcr_to(ctx *c, double tol, double *res) {
  memset(c->xp, 0, sizeof *c->xp * (size_t)c->n);
  return rt_program_solve_pcr(c->pd, c->in->J, c->in->inv_mass, c->in->inv_inertia, c->in->epsilon, c->in->b, c->xp,
                              tol, PCR_CAP, c->pcr_scratch, res);
}

static void pcr_ldl(void *p) { pcr_to(p, ((ctx *)p)->pcr_tol, NULL); }
static void pcr_1e6(void *p) { pcr_to(p, 1e-6, NULL); }

/*---- residuals ----------------------------------------------------------------------*/

/* b = J v for v uniform in [-1, 1) on every solver body that moves. */
static void consistent_b(const ctx *c, double *b) {
  const rt_program *p = c->pd;
  double *v = calloc(6 * (size_t)p->nsbody + 1, sizeof *v);
  if (!v) abort();
  uint64_t seed = 777;
  for (int i = 0; i < 6 * p->nsbody; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    v[i] = c->in->inv_mass[i / 6] > 0 ? (double)(seed >> 11) * 0x1p-52 - 1.0 : 0.0;
  }
  for (int k = 0; k < p->ncons; k++)
    for (int row = p->cons_row[k]; row < p->cons_row[k] + p->cons_degree[k]; row++) {
      double s = 0;
      for (int side = 0; side < 2; side++) {
        const int sb = side ? p->cons_b[k] : p->cons_a[k];
        if (sb == RT_WORLD) continue;
        for (int j = 0; j < 6; j++) s += c->in->J[12 * (size_t)row + 6 * side + j] * v[6 * sb + j];
      }
      b[row] = s;
    }
  free(v);
}

static void residuals(ctx *c, br_prec *o) {
  const bm_input *in = c->in;
  /* first on b = J v, through a copy of the input that points at it */
  double *bjv = malloc(sizeof *bjv * (size_t)(c->n + 1));
  if (!bjv) abort();
  consistent_b(c, bjv);
  bm_input jv = *in;
  jv.b = bjv;
  c->in = &jv;
  factor_f(c);
  solve_f(c);
  o->res_float_jv = hm_residual(in->H, c->x, bjv);
  fast_f(c);
  o->res_fast_jv = hm_residual(in->H, c->x, bjv);
  factor_d(c);
  solve_d(c);
  o->res_double_jv = hm_residual(in->H, c->xd, bjv);
  c->in = in;
  free(bjv);
  factor_f(c);
  solve_f(c);
  o->res_float = hm_residual(in->H, c->x, in->b);
  fast_f(c);
  o->res_fast = hm_residual(in->H, c->x, in->b);
  factor_d(c);
  solve_d(c);
  o->res_double = hm_residual(in->H, c->xd, in->b);
  rt_refine_info info;
  rt_program_solve_refined(c->pf, in->J, in->inv_mass, in->inv_inertia, in->epsilon, c->work_f, in->b, c->x,
                           RT_MAX_REFINE, c->refine_scratch, &info);
  o->res_refined = hm_residual(in->H, c->x, in->b);
  o->refine_steps = info.steps;
  o->refine_to_1e6 = -1;
  for (int k = 0; k <= RT_MAX_REFINE && o->refine_to_1e6 < 0; k++) {
    const int kept = rt_program_solve_refined(c->pf, in->J, in->inv_mass, in->inv_inertia, in->epsilon, c->work_f,
                                              in->b, c->x, k, c->refine_scratch, &info);
    if (hm_residual(in->H, c->x, in->b) <= 1e-6) o->refine_to_1e6 = k;
    if (kept < k) break; /* stopped falling */
  }
  c->pcr_tol = o->pcr_tol = fmax(o->res_double, 1e-12);
  o->pcr_cap = PCR_CAP;
  o->pcr_iterations = pcr_to(c, c->pcr_tol, NULL);
  o->res_pcr = hm_residual(in->H, c->xp, in->b);
  o->pcr_iterations_1e6 = pcr_to(c, 1e-6, NULL);
  o->res_pcr_1e6 = hm_residual(in->H, c->xp, in->b);
}

/*---- costs ----------------------------------------------------------------------------*/

enum { T_ASM, T_RESTORE_F, T_FACTOR_F, T_SOLVE_F, T_FAST, T_RESTORE_D, T_FACTOR_D, T_SOLVE_D, T_PCR, T_PCR6, NT };

/* Rounds of batches; within a round the groups (assembly; float factor
 * and solves; double; PCR) rotate, each group in its own order (a solve
 * needs its factor). */
static void costs(ctx *c, const ms_config *cfg, br_prec *o) {
  static const bt_fn fn[NT] = {assemble_f, restore_f, factor_f, solve_f, fast_f,
                               restore_d,  factor_d,  solve_d,  pcr_ldl, pcr_1e6};
  static const int group[4][5] = {{T_ASM, -1}, {T_RESTORE_F, T_FACTOR_F, T_SOLVE_F, T_FAST, -1},
                                  {T_RESTORE_D, T_FACTOR_D, T_SOLVE_D, -1}, {T_PCR, T_PCR6, -1}};
  int reps[NT];
  factor_f(c);
  factor_d(c);
  for (int k = 0; k < NT; k++) {
    if (k == T_RESTORE_F || k == T_RESTORE_D) continue; /* they unfactor: calibrated below */
    reps[k] = bt_calibrate(fn[k], c, cfg->batch_s);
  }
  reps[T_RESTORE_F] = bt_calibrate(restore_f, c, cfg->batch_s);
  reps[T_RESTORE_D] = bt_calibrate(restore_d, c, cfg->batch_s);
  const int runs = cfg->runs, nb = cfg->batches;
  double *t = malloc(sizeof *t * (size_t)(NT * nb)), *per_run = malloc(sizeof *per_run * (size_t)(6 * runs));
  if (!t || !per_run) abort();
  for (int r = 0; r < runs; r++) {
    for (int b = 0; b < nb; b++)
      for (int g = 0; g < 4; g++) {
        const int *grp = group[(g + r + b) % 4];
        for (int j = 0; grp[j] >= 0; j++) t[grp[j] * nb + b] = bt_batch(fn[grp[j]], c, reps[grp[j]]);
      }
    double med[NT];
    for (int k = 0; k < NT; k++) med[k] = bt_median(t + k * nb, nb);
    const double ff = med[T_FACTOR_F] - med[T_RESTORE_F], fd = med[T_FACTOR_D] - med[T_RESTORE_D];
    per_run[0 * runs + r] = ff + med[T_SOLVE_F];
    per_run[1 * runs + r] = ff + med[T_FAST];
    per_run[2 * runs + r] = fd + med[T_SOLVE_D];
    per_run[3 * runs + r] = med[T_PCR];
    per_run[4 * runs + r] = med[T_PCR6];
    per_run[5 * runs + r] = med[T_ASM];
  }
  double *ratio = malloc(sizeof *ratio * (size_t)runs);
  if (!ratio) abort();
  for (int r = 0; r < runs; r++) ratio[r] = per_run[1 * runs + r] / per_run[0 * runs + r];
  o->fast_vs_float = bt_stats(ratio, runs);
  for (int r = 0; r < runs; r++)
    ratio[r] = (per_run[5 * runs + r] + per_run[1 * runs + r]) / (per_run[5 * runs + r] + per_run[0 * runs + r]);
  o->fast_vs_float_asm = bt_stats(ratio, runs);
  o->float_s = bt_stats(per_run + 0 * runs, runs);
  o->fast_s = bt_stats(per_run + 1 * runs, runs);
  o->double_s = bt_stats(per_run + 2 * runs, runs);
  o->pcr_s = bt_stats(per_run + 3 * runs, runs);
  o->pcr_1e6_s = bt_stats(per_run + 4 * runs, runs);
  o->assemble_f = bt_stats(per_run + 5 * runs, runs);
  free(ratio);
  free(t);
  free(per_run);
}

/*---- short runs ----------------------------------------------------------------------*/

/* Settings and program of configuration k: the presets float, fast and
 * accurate, PCR on the double program's view, PCR without a program. */
static const rt_program *config(int k, const mech *m, const rt_program *pf, const rt_program *pd, rt_settings *s) {
  static const char *const names[3] = {"float", "fast", "accurate"};
  mechworld_settings(m, s);
  if (k < 3) {
    const preset *p = preset_find(names[k]);
    s->refine = p->refine;
    return p->precision == RT_FLOAT ? pf : pd;
  }
  s->block_solver = RT_BLOCK_PCR;
  return k == 3 ? pd : NULL;
}

/* One untimed step, then STEPS_PER_BATCH timed ones: the worlds'
 * batches are interleaved, and a PCR world's batch (up to 30 ms on the
 * sample lift) leaves the next world's first step cold -- measured, that
 * step of the lift's accurate world 0.3-1.3 ms instead of 75 us, which put
 * the presets' times at 2-8x their steps' own (a cold-cache figure that
 * depends on what ran before, not on the preset). */
static double step_batch(rt_world *w) {
  rt_world_step(w);
  const double t0 = bt_now();
  for (int i = 0; i < STEPS_PER_BATCH; i++) rt_world_step(w);
  return (bt_now() - t0) / STEPS_PER_BATCH;
}

static void runs(const mech *m, const rt_program *pf, const rt_program *pd, const ms_config *cfg, br_prec *o) {
  arena a;
  arena_init(&a);
  rt_world_desc desc;
  mechworld_desc(&a, m, &desc);
  o->sim_steps = (int)ceil(2.0 / m->settings.dt - 1e-9);
  for (int k = 0; k < BR_PREC_SIMS; k++) { /* the joint error over 2 s, contacts every step */
    rt_settings s;
    const rt_program *p = config(k, m, pf, pd, &s);
    rt_world *w = rt_world_create(&desc, p, &s, NULL, NULL, 0);
    if (!w) continue;
    simrun_options so = {0};
    so.steps = o->sim_steps;
    so.probe = -1;
    simrun_result r = {0};
    simrun_run(w, m, &so, &r);
    o->sim_err[k] = r.max_pos_error;
    o->sim_exploded[k] = r.exploded;
    if (k >= 3) o->sim_pcr_iterations[k - 3] = r.steps ? (double)r.pcr_iterations / r.steps : 0;
    rt_world_destroy(w);
  }
  /* the time a step takes: interleaved batches, contacts at the initial
   * pose set once (fullstep.c's protocol) */
  const int nb = cfg->batches / 4 > 3 ? cfg->batches / 4 : 3, nr = cfg->runs;
  double *pb = malloc(sizeof *pb * (size_t)(nb * BR_PREC_SIMS)), *pr = malloc(sizeof *pr * (size_t)(nr * BR_PREC_SIMS));
  rt_settings s0;
  mechworld_settings(m, &s0);
  rt_contact *contacts = calloc((size_t)s0.max_contacts + 1, sizeof *contacts);
  if (!pb || !pr || !contacts) abort();
  for (int run = 0; run < nr; run++) {
    rt_world *w[BR_PREC_SIMS];
    for (int k = 0; k < BR_PREC_SIMS; k++) {
      rt_settings s;
      const rt_program *p = config(k, m, pf, pd, &s);
      s.stabilize = 0;
      w[k] = rt_world_create(&desc, p, &s, NULL, NULL, 0);
      if (!w[k]) abort();
      if (m->settings.has_ground) {
        const double mu = m->settings.ground_friction >= 0 ? m->settings.ground_friction : m->settings.friction;
        const int n = rt_world_ground_contacts(w[k], m->settings.ground_height, mu, SIMRUN_CONTACT_MARGIN, contacts,
                                               s.max_contacts);
        rt_world_set_contacts(w[k], contacts, n < s.max_contacts ? n : s.max_contacts);
      }
      step_batch(w[k]); /* warm-up */
    }
    for (int b = 0; b < nb; b++)
      for (int j = 0; j < BR_PREC_SIMS; j++) {
        const int k = (b + j + run) % BR_PREC_SIMS;
        pb[k * nb + b] = step_batch(w[k]);
      }
    for (int k = 0; k < BR_PREC_SIMS; k++) {
      pr[k * nr + run] = bt_median(pb + k * nb, nb);
      rt_world_destroy(w[k]);
    }
  }
  double *ratio = malloc(sizeof *ratio * (size_t)nr);
  if (!ratio) abort();
  for (int run = 0; run < nr; run++) ratio[run] = pr[1 * nr + run] / pr[0 * nr + run];
  o->step_fast_vs_float = bt_stats(ratio, nr);
  free(ratio);
  for (int k = 0; k < BR_PREC_SIMS; k++) o->step_s[k] = bt_stats(pr + k * nr, nr);
  free(pb);
  free(pr);
  free(contacts);
  arena_free(&a);
}

void pr_measure(const mech *m, const rt_program *pf, const rt_program *pd, const bm_input *in, const ms_config *cfg,
                br_prec *out) {
  memset(out, 0, sizeof *out);
  ctx c;
  memset(&c, 0, sizeof c);
  c.pf = pf;
  c.pd = pd;
  c.in = in;
  c.n = pd->dim;
  c.bytes_f = sizeof(float) * (size_t)pf->work_size;
  c.bytes_d = sizeof(double) * (size_t)pd->work_size;
  c.pristine_f = calloc((size_t)pf->work_size + 1, sizeof(float));
  c.work_f = calloc((size_t)pf->work_size + 1, sizeof(float));
  c.asm_f = calloc((size_t)pf->work_size + 1, sizeof(float));
  c.temp_f = calloc((size_t)pf->temp_size + 1, sizeof(float));
  c.pristine_d = calloc((size_t)pd->work_size + 1, sizeof(double));
  c.work_d = calloc((size_t)pd->work_size + 1, sizeof(double));
  c.temp_d = calloc((size_t)pd->temp_size + 1, sizeof(double));
  c.xf = calloc((size_t)c.n + 1, sizeof *c.xf);
  c.x = calloc((size_t)c.n + 1, sizeof *c.x);
  c.xd = calloc((size_t)c.n + 1, sizeof *c.xd);
  c.xp = calloc((size_t)c.n + 1, sizeof *c.xp);
  c.refine_scratch = calloc(rt_program_refine_scratch(pf) + 1, sizeof(double));
  c.pcr_scratch = calloc(rt_program_pcr_scratch(pd) + 1, sizeof(double));
  if (!c.pristine_f || !c.work_f || !c.asm_f || !c.temp_f || !c.pristine_d || !c.work_d || !c.temp_d || !c.xf || !c.x ||
      !c.xd || !c.xp || !c.refine_scratch || !c.pcr_scratch)
    abort();
  rt_assemble(pf, in->J, in->inv_mass, in->inv_inertia, in->epsilon, c.pristine_f);
  rt_assemble(pd, in->J, in->inv_mass, in->inv_inertia, in->epsilon, c.pristine_d);
  memcpy(c.work_f, c.pristine_f, c.bytes_f);
  memcpy(c.work_d, c.pristine_d, c.bytes_d);
  if (rt_program_factor(pf, c.work_f, c.temp_f) == -1 && rt_program_factor(pd, c.work_d, c.temp_d) == -1) {
    residuals(&c, out);
    costs(&c, cfg, out);
    runs(m, pf, pd, cfg, out);
    out->measured = 1;
  }
  void *bufs[] = {c.pristine_f, c.work_f, c.asm_f, c.temp_f, c.pristine_d, c.work_d, c.temp_d,
                  c.xf,         c.x,      c.xd,    c.xp,     c.refine_scratch, c.pcr_scratch};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) free(bufs[i]);
}
