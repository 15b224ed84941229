/* sample.c -- one mechanism from file to measured figures (see sample.h). */
#include "sample.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "fullstep.h"
#include "hmat.h"
#include "load.h"
#include "method.h"
#include "numeric.h"
#include "precision.h"
#include "program.h"
#include "registry.h"
#include "rtprog.h"

/* Median seconds of loading the mechanism and of the symbolic phase
 * (program_build, default options), over repeated fresh compilations. */
static int time_symbolic(const char *path, br_mech *out) {
  enum { MAX_REPS = 15 };
  double tl[MAX_REPS], ts[MAX_REPS], spent = 0;
  int k = 0;
  while (k < MAX_REPS && (k < 3 || spent < 0.3)) {
    arena a;
    arena_init(&a);
    diag_list d;
    diag_init(&d);
    mech m;
    program p;
    program_options o;
    program_default_options(&o);
    double t0 = bt_now();
    int ok = load_mech(&a, path, NULL, &m, &d) == GEN_OK;
    double t1 = bt_now();
    ok = ok && program_build(&a, &m, &o, &p, &d) == GEN_OK;
    double t2 = bt_now();
    if (!ok) diag_print(&d, stderr);
    diag_free(&d);
    arena_free(&a);
    if (!ok) return -1;
    tl[k] = t1 - t0;
    ts[k] = t2 - t1;
    spent += t2 - t0;
    k++;
  }
  out->load_s = bt_median(tl, k);
  out->symbolic_s = bt_median(ts, k);
  return 0;
}

#define SAME_ARRAY(f, n) (memcmp(a->f, b->f, sizeof *a->f * (size_t)(n)) == 0)

/* 1 if the compiled program a is the program gen builds now (b): same
 * structure, layout and RSI. */
static int same_program(const rt_program *a, const rt_program *b) {
  if (a->precision != b->precision || a->structure_hash != b->structure_hash || a->dim != b->dim ||
      a->ncons != b->ncons || a->nsbody != b->nsbody || a->work_size != b->work_size || a->nblk != b->nblk ||
      a->nrsi != b->nrsi)
    return 0;
  return SAME_ARRAY(cons_degree, a->ncons) && SAME_ARRAY(cons_row, a->ncons) && SAME_ARRAY(cons_a, a->ncons) &&
         SAME_ARRAY(cons_b, a->ncons) && SAME_ARRAY(cons_joint, a->ncons) && SAME_ARRAY(piv_cons, a->ncons) &&
         SAME_ARRAY(piv_node, a->ncons) && SAME_ARRAY(piv_edge, a->ncons) && SAME_ARRAY(piv_height, a->ncons) &&
         SAME_ARRAY(piv_blk_adr, a->ncons + 1) && SAME_ARRAY(blk_piv, a->nblk) && SAME_ARRAY(blk_off, a->nblk) &&
         SAME_ARRAY(blk_fill, a->nblk) && SAME_ARRAY(piv_rsi_adr, a->ncons + 1) && SAME_ARRAY(rsi, a->nrsi) &&
         SAME_ARRAY(sbody_body, a->nsbody);
}

/* The registry entry generated from `path` in precision prec, or NULL. */
static const bench_entry *find_entry(const char *path, rt_precision prec) {
  for (const bench_entry *e = bench_entries; e->mech; e++)
    if (strcmp(e->mech, path) == 0 && e->prog->precision == prec) return e;
  return NULL;
}

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Adds a method that initialised (init == 0) and whose check solve works. */
static void add_method(br_mech *out, bm_method *bm, int init, const bm_input *in, double *x) {
  if (init != 0) return;
  bm_method *m = &bm[out->nmethod];
  br_method *o = &out->method[out->nmethod];
  memset(o, 0, sizeof *o);
  snprintf(o->name, sizeof o->name, "%s", m->name);
  o->precision = m->precision;
  o->library = m->library;
  o->flops_block = m->flops_block;
  o->flops_chol = m->flops_chol;
  o->lnz = m->lnz;
  if (m->check(m->state, x) == 0) {
    o->ok = 1;
    o->residual = hm_residual(in->H, x, in->b);
  } else {
    fprintf(stderr, "bench: %s: %s (%s) failed to factor\n", out->name, m->name, m->precision);
  }
  out->nmethod++;
}

int sm_avx2(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
#else
  return 0;
#endif
}

static void fail(br_mech *out, const char *msg) {
  out->error = msg;
  fprintf(stderr, "bench: %s: %s\n", out->path, msg);
}

int sm_measure(const char *path, const char *series, int param, const ms_config *cfg, br_mech *out) {
  memset(out, 0, sizeof *out);
  out->path = path;
  out->series = series;
  out->param = param;
  out->ud = out->uf = out->ud_avx2 = out->uf_avx2 = out->fastest_lib = -1;
  snprintf(out->name, sizeof out->name, "%s", path);
  if (!cfg->step_only && time_symbolic(path, out) != 0) {
    fail(out, "the mechanism does not load or compile");
    return -1;
  }

  arena a;
  arena_init(&a);
  diag_list d;
  diag_init(&d);
  mech m;
  program p;
  program_options o;
  program_default_options(&o);
  if (load_mech(&a, path, NULL, &m, &d) != GEN_OK || program_build(&a, &m, &o, &p, &d) != GEN_OK) {
    diag_print(&d, stderr);
    diag_free(&d);
    arena_free(&a);
    fail(out, "the mechanism does not load or compile");
    return -1;
  }
  diag_free(&d);
  snprintf(out->name, sizeof out->name, "%s", m.name);
  out->bodies = m.nbody;
  out->ncons = p.s.ncons;
  out->shards = p.s.nshards;
  out->dim = p.sym.dim;
  out->density = p.density;
  out->heuristic = p.heuristic;
  out->flops_block = (double)p.sym.flops3 / 3.0;

  /* the programs: compiled (registry) when make built them, else tables
   * built here for the interpreter */
  rt_program tables[2];
  const rt_program *prog[2];
  const bench_entry *entry[2];
  for (int k = 0; k < 2; k++) {
    const rt_precision prec = k == 0 ? RT_DOUBLE : RT_FLOAT;
    rtprog_build(&a, &p, prec, &tables[k]);
    entry[k] = find_entry(path, prec);
    if (entry[k] && (!same_program(entry[k]->prog, &tables[k]) ||
                     (entry[k]->prog_avx2 && !same_program(entry[k]->prog_avx2, &tables[k])))) {
      arena_free(&a);
      fail(out, "the compiled program does not match the mechanism (stale build: run make bench)");
      return -1;
    }
    prog[k] = entry[k] ? entry[k]->prog : &tables[k];
    if (entry[k]) {
      br_compile *c = &out->compile[out->ncompile++];
      c->precision = k == 0 ? "double" : "float";
      c->source = entry[k]->source;
      c->lines = entry[k]->lines;
      c->compile_s = entry[k]->compile_s;
      c->text = entry[k]->text;
      c->data = entry[k]->data;
      c->compile_avx2_s = entry[k]->compile_avx2_s;
      c->text_avx2 = entry[k]->text_avx2;
    }
  }

  if (cfg->step_only) { /* bench --step-only: the full step on the double program */
    if (series == NULL && fs_measure(&m, prog[0], 10, cfg, &out->step) != 0)
      fprintf(stderr, "bench: %s: the full step could not be measured\n", out->name);
    arena_free(&a);
    return 0;
  }

  /* H~ at the initial pose, in double, and the right-hand side */
  numeric num;
  numeric_build(&a, &p, &num);
  double *work = calloc((size_t)tables[0].work_size + 1, sizeof *work);
  if (!work) abort();
  rt_assemble(&tables[0], num.J, num.inv_mass, num.inv_inertia, m.settings.epsilon, work);
  hm_matrix H;
  hm_from_workspace(&tables[0], work, &H);
  free(work);
  out->nnz = hm_nnz(&H);
  double *b = malloc(sizeof *b * (size_t)(H.n + 1)), *x = malloc(sizeof *x * (size_t)(H.n + 1));
  if (!b || !x) abort();
  uint64_t seed = 12345;
  for (int i = 0; i < H.n; i++) b[i] = (double)(splitmix64(&seed) >> 11) * 0x1p-52 - 1.0;
  bm_input in = {&H, b, num.J, num.inv_mass, num.inv_inertia, m.settings.epsilon};

  /* the methods */
  bm_method bm[BR_MAX_METHODS];
  const int full = series == NULL;
  for (int k = 0; k < (full ? 2 : 1); k++) {
    if (!entry[k]) continue;
    const int init = bm_program_init(&bm[out->nmethod], &in, prog[k], 0);
    if (init == 0 && k == 0) out->ud = out->nmethod;
    if (init == 0 && k == 1) out->uf = out->nmethod;
    add_method(out, bm, init, &in, x);
  }
  /* the -mavx2 build of the same programs, where the CPU runs it; checked
   * bitwise against the baseline build */
  for (int k = 0; k < (full ? 2 : 1) && sm_avx2(); k++) {
    const int base = k == 0 ? out->ud : out->uf;
    if (!entry[k] || !entry[k]->prog_avx2 || base < 0) continue;
    const int i = out->nmethod, init = bm_program_init(&bm[i], &in, entry[k]->prog_avx2, 0);
    if (init != 0) continue;
    snprintf(bm[i].name, sizeof bm[i].name, "unrolled (AVX2 build)");
    add_method(out, bm, init, &in, x);
    out->method[i].avx2 = 1;
    out->method[i].bitwise = bm_program_same(&bm[i], &bm[base]) == 1;
    if (k == 0) out->ud_avx2 = i;
    if (k == 1) out->uf_avx2 = i;
    if (!out->method[i].bitwise)
      fprintf(stderr, "bench: %s: unrolled %s, AVX2 build: factor or solve NOT bitwise identical to the baseline build\n",
              out->name, bm[i].precision);
  }
  if (full)
    for (int k = 0; k < 2; k++) add_method(out, bm, bm_program_init(&bm[out->nmethod], &in, prog[k], 1), &in, x);
  add_method(out, bm, bm_ldl_init(&bm[out->nmethod], &in), &in, x);
  if (full) {
    add_method(out, bm, bm_cholmod_init(&bm[out->nmethod], &in, 0), &in, x);
    add_method(out, bm, bm_cholmod_init(&bm[out->nmethod], &in, 1), &in, x);
    add_method(out, bm, bm_lapack_init(&bm[out->nmethod], &in, 0), &in, x);
    add_method(out, bm, bm_lapack_init(&bm[out->nmethod], &in, 1), &in, x);
  }
  ms_measure(bm, out, cfg);
  for (int k = 0; k < out->nmethod; k++) bm_destroy(&bm[k]);

  if (full) pr_measure(&m, prog[1], prog[0], &in, cfg, &out->prec);

  bo_compare(&p.g, out->order);
  out->has_orders = 1;
  if (full && fs_measure(&m, prog[0], 10, cfg, &out->step) != 0)
    fprintf(stderr, "bench: %s: the full step could not be measured\n", out->name);

  free(b);
  free(x);
  hm_free(&H);
  arena_free(&a);
  return 0;
}
