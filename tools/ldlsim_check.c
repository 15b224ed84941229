/* ldlsim_check.c -- see ldlsim_check.h. */
#define _POSIX_C_SOURCE 200809L
#include "ldlsim_check.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json.h"
#include "load.h"
#include "numeric.h"
#include "outfile.h"
#include "program.h"
#include "rtprog.h"

/*---- dense reference ----------------------------------------------------------*/

/* Dense n x n H~ (row-major, solver-constraint order) from a double
 * workspace assembled by rt_assemble, before factoring. */
static void unpack(const rt_program *p, const double *w, double *h) {
  const int n = p->dim;
  memset(h, 0, sizeof *h * (size_t)n * (size_t)n);
  for (int piv = 0; piv < p->ncons; piv++) {
    const int cp = p->piv_cons[piv], dp = p->cons_degree[cp], rp = p->cons_row[cp];
    const double *nb = w + p->piv_node[piv];
    for (int i = 0; i < dp; i++)
      for (int j = 0; j <= i; j++) h[(size_t)(rp + i) * n + rp + j] = h[(size_t)(rp + j) * n + rp + i] = nb[i * dp + j];
    for (int k = p->piv_blk_adr[piv]; k < p->piv_blk_adr[piv + 1]; k++) {
      const int cq = p->piv_cons[p->blk_piv[k]], dq = p->cons_degree[cq], rq = p->cons_row[cq];
      const double *e = w + p->blk_off[k];
      for (int i = 0; i < dq; i++)
        for (int j = 0; j < dp; j++) h[(size_t)(rq + i) * n + rp + j] = h[(size_t)(rp + j) * n + rq + i] = e[i * dp + j];
    }
  }
}

/* Dense LDL^T (no pivoting) of the n x n matrix a in place; 0 if a pivot is
 * not positive. */
static int dense_ldl(double *a, int n) {
  for (int j = 0; j < n; j++) {
    double *aj = a + (size_t)j * n;
    double d = aj[j];
    for (int k = 0; k < j; k++) d -= aj[k] * aj[k] * a[(size_t)k * n + k];
    if (!(d > 0)) return 0;
    aj[j] = d;
    for (int i = j + 1; i < n; i++) {
      double *ai = a + (size_t)i * n;
      double v = ai[j];
      for (int k = 0; k < j; k++) v -= ai[k] * aj[k] * a[(size_t)k * n + k];
      ai[j] = v / d;
    }
  }
  return 1;
}

static void dense_ldl_solve(const double *a, int n, double *x) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < i; k++) x[i] -= a[(size_t)i * n + k] * x[k];
  for (int i = 0; i < n; i++) x[i] /= a[(size_t)i * n + i];
  for (int i = n - 1; i >= 0; i--)
    for (int k = i + 1; k < n; k++) x[i] -= a[(size_t)k * n + i] * x[k];
}

/* ||H x - b|| / ||b|| */
static double rel_residual(const double *h, int n, const double *x, const double *b) {
  double rn = 0, bn = 0;
  for (int i = 0; i < n; i++) {
    double ax = 0;
    for (int j = 0; j < n; j++) ax += h[(size_t)i * n + j] * x[j];
    rn += (ax - b[i]) * (ax - b[i]);
    bn += b[i] * b[i];
  }
  return bn > 0 ? sqrt(rn / bn) : sqrt(rn);
}

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/*---- export --------------------------------------------------------------------*/

static char *join_path(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s/%s", dir, name);
  return s;
}

/* Lower triangle of the structurally nonzero blocks (node blocks and the
 * edge blocks that are not fill-in), 1-based, in solver-constraint order. */
static void write_h(FILE *f, const rt_program *p, const double *h) {
  const int n = p->dim;
  unsigned char *blk = calloc((size_t)p->ncons * (size_t)p->ncons, 1);
  int *cons_of_row = malloc(sizeof *cons_of_row * (size_t)(n + 1));
  if (!blk || !cons_of_row) abort();
  for (int c = 0; c < p->ncons; c++) {
    blk[(size_t)c * p->ncons + c] = 1;
    for (int r = 0; r < p->cons_degree[c]; r++) cons_of_row[p->cons_row[c] + r] = c;
  }
  for (int piv = 0; piv < p->ncons; piv++)
    for (int k = p->piv_blk_adr[piv]; k < p->piv_blk_adr[piv + 1]; k++) {
      if (p->blk_fill[k]) continue;
      const int cp = p->piv_cons[piv], cq = p->piv_cons[p->blk_piv[k]];
      blk[(size_t)cp * p->ncons + cq] = blk[(size_t)cq * p->ncons + cp] = 1;
    }
  long long nnz = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) nnz += blk[(size_t)cons_of_row[i] * p->ncons + cons_of_row[j]];
  fprintf(f, "%%%%MatrixMarket matrix coordinate real symmetric\n");
  fprintf(f, "%% H~ = J W J^T + epsilon diag(J W J^T) of mechanism '%s', solver-constraint order\n", p->name);
  fprintf(f, "%d %d %lld\n", n, n, nnz);
  /* column-major over the lower triangle, as Matrix Market readers expect */
  for (int j = 0; j < n; j++)
    for (int i = j; i < n; i++)
      if (blk[(size_t)cons_of_row[i] * p->ncons + cons_of_row[j]])
        fprintf(f, "%d %d %.17g\n", i + 1, j + 1, h[(size_t)i * n + j]);
  free(blk);
  free(cons_of_row);
}

static void write_vec(FILE *f, const char *what, const double *v, int n) {
  fprintf(f, "%%%%MatrixMarket matrix array real general\n");
  fprintf(f, "%% %s\n", what);
  fprintf(f, "%d 1\n", n);
  for (int i = 0; i < n; i++) fprintf(f, "%.17g\n", v[i]);
}

static gen_status export_files(const char *dir, const rt_program *p, const double *h, const double *b,
                               const double *x, diag_list *d) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    diag_error(d, dir, 0, "cannot create directory: %s", strerror(errno));
    return GEN_ERR_IO;
  }
  static const char *const names[3] = {"H.mtx", "b.mtx", "x.mtx"};
  outfile of[3];
  memset(of, 0, sizeof of);
  gen_status st = GEN_OK;
  for (int i = 0; i < 3 && st == GEN_OK; i++) {
    char *path = join_path(dir, names[i]);
    if (!path) abort();
    st = outfile_open(&of[i], path, d);
    free(path);
  }
  if (st == GEN_OK) {
    write_h(of[0].f, p, h);
    write_vec(of[1].f, "right-hand side b", b, p->dim);
    write_vec(of[2].f, "solution x of H~ x = b (interpreter)", x, p->dim);
  }
  /* every file is complete before any is renamed into place */
  for (int i = 0; i < 3 && st == GEN_OK; i++) st = outfile_commit(&of[i], d);
  for (int i = 0; i < 3; i++) outfile_abort(&of[i]);
  return st;
}

/*---- check -------------------------------------------------------------------*/

static void *xcalloc(size_t n, size_t size);

/* --block-solver pcr: PCR from zero on the same H~ and b; its iterations,
 * its residual (dense, as `residual`) and its largest difference from the
 * dense solution xd, relative to xd's largest entry. */
static void check_pcr(const ldlsim_check_options *o, const rt_program *rp, const numeric *num, double eps,
                      const double *h, const double *b, const double *xd, int dense_ok, json_writer *w) {
  const int n = rp->dim;
  double *x = xcalloc((size_t)n, sizeof *x);
  double *scratch = xcalloc(rt_program_pcr_scratch(rp), sizeof *scratch);
  const int max_iter = o->pcr_max_iterations > 0 ? o->pcr_max_iterations : n;
  double res = NAN;
  const int it = rt_program_solve_pcr(rp, num->J, num->inv_mass, num->inv_inertia, eps, b, x, o->pcr_tolerance,
                                      max_iter, scratch, &res);
  double diff = NAN;
  if (dense_ok) {
    double num_max = 0, den = 0;
    for (int i = 0; i < n; i++) {
      num_max = fmax(num_max, fabs(x[i] - xd[i]));
      den = fmax(den, fabs(xd[i]));
    }
    diff = den > 0 ? num_max / den : num_max;
  }
  json_key(w, "block_solver");
  json_string(w, "pcr");
  json_key(w, "pcr_tolerance");
  json_double(w, o->pcr_tolerance);
  json_key(w, "pcr_max_iterations");
  json_int(w, max_iter);
  json_key(w, "pcr_iterations");
  json_int(w, it);
  json_key(w, "pcr_residual");
  json_double(w, rel_residual(h, n, x, b));
  json_key(w, "pcr_residual_own");
  json_double(w, res);
  json_key(w, "pcr_max_rel_diff");
  json_double(w, diff);
  free(x);
  free(scratch);
}

static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p) {
    fputs("ldlsim: out of memory\n", stderr);
    exit(1);
  }
  return p;
}

gen_status ldlsim_check(const ldlsim_check_options *o, arena *a, diag_list *d) {
  mech m;
  program prog;
  gen_status st = load_mech(a, o->input, NULL, &m, d);
  if (st != GEN_OK) return st;
  program_options po;
  program_default_options(&po);
  if (o->max_rows > 0) po.max_rows = o->max_rows;
  if (o->max_memory > 0) po.max_memory = o->max_memory;
  if ((st = program_build(a, &m, &po, &prog, d)) != GEN_OK) return st;
  rt_program rp;
  rtprog_build(a, &prog, o->precision, &rp);
  numeric num;
  numeric_build(a, &prog, &num);

  const int n = rp.dim;
  const size_t scalar = o->precision == RT_FLOAT ? sizeof(float) : sizeof(double);
  const double eps = m.settings.epsilon;
  /* the reference H~ in double, and the program's own workspace */
  rt_program rpd = rp;
  rpd.precision = RT_DOUBLE;
  double *wd = xcalloc((size_t)rp.work_size, sizeof *wd);
  rt_assemble(&rpd, num.J, num.inv_mass, num.inv_inertia, eps, wd);
  double *h = xcalloc((size_t)n * (size_t)n, sizeof *h);
  unpack(&rp, wd, h);
  void *work = xcalloc((size_t)rp.work_size, scalar);
  void *temp = xcalloc((size_t)rp.temp_size, scalar);
  rt_assemble(&rp, num.J, num.inv_mass, num.inv_inertia, eps, work);

  double *b = xcalloc((size_t)n, sizeof *b);
  double *x = xcalloc((size_t)n, sizeof *x);
  uint64_t rng = o->seed;
  for (int i = 0; i < n; i++) b[i] = 2.0 * ((double)(splitmix64(&rng) >> 11) * (1.0 / 9007199254740992.0)) - 1.0;

  int status = rt_interp_factor(&rp, work, temp);
  /* the plain solve, then the refined one (rp has no unrolled code: the
   * interpreter solves) */
  double *x0 = xcalloc((size_t)n, sizeof *x0);
  double *scratch = xcalloc(rt_program_refine_scratch(&rp), sizeof *scratch);
  rt_refine_info info = {0, NAN, NAN};
  if (status < 0) {
    rt_program_solve_refined(&rp, num.J, num.inv_mass, num.inv_inertia, eps, work, b, x0, 0, scratch, NULL);
    rt_program_solve_refined(&rp, num.J, num.inv_mass, num.inv_inertia, eps, work, b, x, o->refine, scratch, &info);
  }

  double *hf = xcalloc((size_t)n * (size_t)n, sizeof *hf);
  double *xd = xcalloc((size_t)n, sizeof *xd);
  memcpy(hf, h, sizeof *h * (size_t)n * (size_t)n);
  int dense_ok = dense_ldl(hf, n);
  memcpy(xd, b, sizeof *b * (size_t)n);
  if (dense_ok) dense_ldl_solve(hf, n, xd);

  double residual = status < 0 ? rel_residual(h, n, x, b) : NAN;
  double residual_unrefined = status < 0 ? rel_residual(h, n, x0, b) : NAN;
  double dense_residual = dense_ok ? rel_residual(h, n, xd, b) : NAN;
  double max_rel_diff = NAN;
  if (status < 0 && dense_ok) {
    double num_max = 0, den = 0;
    for (int i = 0; i < n; i++) {
      num_max = fmax(num_max, fabs(x[i] - xd[i]));
      den = fmax(den, fabs(xd[i]));
    }
    max_rel_diff = den > 0 ? num_max / den : num_max;
  }

  json_writer w;
  json_begin(&w, stdout);
  json_key(&w, "name");
  json_string(&w, m.name);
  json_key(&w, "precision");
  json_string(&w, o->precision == RT_FLOAT ? "float" : "double");
  if (o->preset) {
    json_key(&w, "preset");
    json_string(&w, o->preset);
  }
  json_key(&w, "seed");
  json_int(&w, (int64_t)o->seed);
  json_key(&w, "dim");
  json_int(&w, n);
  json_key(&w, "constraints");
  json_int(&w, rp.ncons);
  json_key(&w, "solver_bodies");
  json_int(&w, rp.nsbody);
  json_key(&w, "epsilon");
  json_double(&w, eps);
  json_key(&w, "flops");
  json_int(&w, symbolic_flops(&prog.sym));
  json_key(&w, "factor_status");
  json_int(&w, status);
  if (status >= 0) {
    json_key(&w, "failed_constraint");
    json_string(&w, rp.cons_name[rp.piv_cons[status]]);
  }
  json_key(&w, "residual");
  json_double(&w, residual);
  json_key(&w, "dense_residual");
  json_double(&w, dense_residual);
  json_key(&w, "max_rel_diff");
  json_double(&w, max_rel_diff);
  json_key(&w, "residual_unrefined");
  json_double(&w, residual_unrefined);
  json_key(&w, "refine");
  json_int(&w, o->refine);
  json_key(&w, "refine_steps");
  json_int(&w, info.steps);
  if (o->pcr) check_pcr(o, &rp, &num, eps, h, b, xd, dense_ok, &w);
  json_end(&w);

  if (status >= 0) {
    /* at the line of the constraint (a shard weld: of its body) */
    const int ci = rp.piv_cons[status], cj = prog.s.cons_orig[ci];
    const int line = cj >= 0 ? m.cons[cj].line : m.bodies[rp.sbody_body[rp.cons_a[ci]]].line;
    diag_error(d, m.file, line,
               "factorization of H~ failed at pivot %d (constraint '%s'): its block is not positive definite "
               "(epsilon %g)", status, rp.cons_name[ci], eps);
    st = GEN_ERR_INPUT;
  } else if (o->export_dir) {
    st = export_files(o->export_dir, &rp, h, b, x, d);
  }
  free(wd);
  free(h);
  free(work);
  free(temp);
  free(b);
  free(x);
  free(hf);
  free(xd);
  free(x0);
  free(scratch);
  return st;
}
