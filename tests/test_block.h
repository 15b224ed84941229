/* test_block.h -- what test_refine.c and test_pcr.c share: a mechanism's
 * block system H~ x = b at its initial pose (the program, its J and masses,
 * H~ assembled densely in double as the reference), random right-hand
 * sides, dense residuals, and the list of mechanisms both run on: every
 * sample and the redundant ones built for these tests (a six-stage scissor
 * lift, tests/data/jansen.lua, tests/data/excavator.lua). Static, so each
 * test program gets its own copy. */
#ifndef LDLPGS_TEST_BLOCK_H
#define LDLPGS_TEST_BLOCK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "numeric.h"
#include "program.h"
#include "rtprog.h"
#include "test_util.h"

/* A mechanism file under SRC_DIR, with an optional line of Lua put in
 * front of it (the six-stage lift: "STAGES = 6"). */
typedef struct block_mech {
  const char *file, *prefix;
} block_mech;

static const block_mech block_mechs[] = {
    {"mechanisms/buggy.lua", NULL},
    {"mechanisms/chain.lua", NULL},
    {"mechanisms/elimination_example.lua", NULL},
    {"mechanisms/multi_wheel.lua", NULL},
    {"mechanisms/scissor_lift.lua", NULL},
    {"mechanisms/tank.lua", NULL},
    {"mechanisms/track.lua", NULL},
    {"mechanisms/scissor_lift.lua", "STAGES = 6"}, /* redundant, built for the tests */
    {"tests/data/jansen.lua", NULL},
    {"tests/data/excavator.lua", NULL},
};
#define NBLOCK_MECHS ((int)(sizeof block_mechs / sizeof block_mechs[0]))

/* The block system of one mechanism. rp is the program in the precision
 * asked; hd is H~ dense (dim x dim, row-major, solver-constraint order),
 * assembled in double; num holds J and the masses at the initial pose. */
typedef struct block_sys {
  arena a;
  mech m;
  program prog;
  rt_program rp;
  numeric num;
  int n;
  double eps;
  double *hd;
  void *work, *temp; /* the factor (rp's precision) */
  int factor_status;
  char label[96];
} block_sys;

/* Loads the mechanism and runs the symbolic phase with shattering
 * threshold shatter (PROGRAM_SHATTER_FROM_MECH: the mechanism's; 0: off). */
static void block_load_shatter(block_sys *s, const block_mech *bm, int shatter) {
  memset(s, 0, sizeof *s);
  arena_init(&s->a);
  diag_list d;
  diag_init(&d);
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", SRC_DIR, bm->file);
  gen_status st;
  if (bm->prefix) {
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    const long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    const size_t plen = strlen(bm->prefix);
    char *src = malloc(plen + 1 + (size_t)len + 1);
    assert_non_null(src);
    memcpy(src, bm->prefix, plen);
    src[plen] = '\n';
    const size_t got = fread(src + plen + 1, 1, (size_t)len, f);
    src[plen + 1 + got] = '\0';
    fclose(f);
    st = load_mech_string(&s->a, arena_strdup(&s->a, path), src, NULL, &s->m, &d);
    free(src);
  } else {
    st = load_mech(&s->a, arena_strdup(&s->a, path), NULL, &s->m, &d);
  }
  if (st != GEN_OK) {
    diag_print(&d, stderr);
    fail_msg("%s did not load", bm->file);
  }
  program_options o;
  program_default_options(&o);
  o.shatter = shatter;
  if (program_build(&s->a, &s->m, &o, &s->prog, &d) != GEN_OK) {
    diag_print(&d, stderr);
    fail_msg("program_build failed for %s", bm->file);
  }
  diag_free(&d);
  snprintf(s->label, sizeof s->label, "%s%s%s", s->m.name, bm->prefix ? ", " : "", bm->prefix ? bm->prefix : "");
}

static void block_load(block_sys *s, const block_mech *bm) { block_load_shatter(s, bm, PROGRAM_SHATTER_FROM_MECH); }

/* Builds the program in precision p, J and the masses, the dense H~ with
 * epsilon eps, and the factor. */
static void block_build(block_sys *s, rt_precision p, double eps) {
  rtprog_build(&s->a, &s->prog, p, &s->rp);
  numeric_build(&s->a, &s->prog, &s->num);
  s->n = s->rp.dim;
  s->eps = eps;
  const int n = s->n;
  /* the dense reference: a double twin of the program, assembled, unpacked */
  rt_program rpd = s->rp;
  rpd.precision = RT_DOUBLE;
  double *wd = calloc((size_t)s->rp.work_size + 1, sizeof *wd);
  s->hd = calloc((size_t)n * (size_t)n + 1, sizeof *s->hd);
  assert_true(wd && s->hd);
  rt_assemble(&rpd, s->num.J, s->num.inv_mass, s->num.inv_inertia, eps, wd);
  const rt_program *r = &s->rp;
  for (int piv = 0; piv < r->ncons; piv++) {
    const int cp = r->piv_cons[piv], dp = r->cons_degree[cp], rp = r->cons_row[cp];
    const double *nb = wd + r->piv_node[piv];
    for (int i = 0; i < dp; i++)
      for (int j = 0; j <= i; j++)
        s->hd[(size_t)(rp + i) * n + rp + j] = s->hd[(size_t)(rp + j) * n + rp + i] = nb[i * dp + j];
    for (int k = r->piv_blk_adr[piv]; k < r->piv_blk_adr[piv + 1]; k++) {
      const int cq = r->piv_cons[r->blk_piv[k]], dq = r->cons_degree[cq], rq = r->cons_row[cq];
      const double *e = wd + r->blk_off[k];
      for (int i = 0; i < dq; i++)
        for (int j = 0; j < dp; j++) s->hd[(size_t)(rq + i) * n + rp + j] = s->hd[(size_t)(rp + j) * n + rq + i] = e[i * dp + j];
    }
  }
  free(wd);
  const size_t scalar = p == RT_FLOAT ? sizeof(float) : sizeof(double);
  s->work = calloc((size_t)r->work_size + 1, scalar);
  s->temp = calloc((size_t)r->temp_size + 1, scalar);
  assert_true(s->work && s->temp);
  rt_assemble(r, s->num.J, s->num.inv_mass, s->num.inv_inertia, eps, s->work);
  s->factor_status = rt_program_factor(r, s->work, s->temp);
}

static void block_free(block_sys *s) {
  free(s->hd);
  free(s->work);
  free(s->temp);
  arena_free(&s->a);
}

/* b uniform in [-1, 1) (malloc'd). */
static double *block_random_b(int n, uint64_t seed) {
  test_rng r = {seed};
  double *b = malloc(sizeof *b * (size_t)n + 1);
  assert_non_null(b);
  for (int i = 0; i < n; i++) b[i] = 2.0 * rng_unit(&r) - 1.0;
  return b;
}

/* ||H~ x - b|| / ||b|| with the dense H~. */
static double block_residual(const block_sys *s, const double *x, const double *b) {
  return rel_residual(s->hd, s->n, x, b);
}

#endif
