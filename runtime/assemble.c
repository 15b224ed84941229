/* assemble.c -- assembly of H~ = J W J^T + epsilon diag(J W J^T) into a
 * program's packed workspace (rt.h, rt_assemble).
 *
 * Block (q, p) of H is the sum, over the solver bodies b that constraints q
 * and p both act on, of J_q,b W_b J_p,b^T, where J_c,b is the d_c x 6 part of
 * c's Jacobian acting on (v_b, w_b) and W_b = diag(m_b^-1 I_3, I_b^-1) with
 * I_b^-1 the world-frame inverse inertia. Everything is computed in double
 * and rounded once when stored. */
#include "rt.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "world.h"

/* Solver body of side s (0 = a, 1 = b) of solver constraint c. */
static int side_body(const rt_program *p, int c, int s) { return s ? p->cons_b[c] : p->cons_a[c]; }

/* out (dq x dp, row-major, double) = block (q, p) of J W J^T for solver
 * constraints cq, cp (cq == cp: the node block). */
static void block(const rt_program *p, int cq, int cp, const double *J, const double *inv_mass,
                  const double *inv_inertia, double *out) {
  const int dq = p->cons_degree[cq], dp = p->cons_degree[cp];
  const double *jq = J + 12 * (size_t)p->cons_row[cq];
  const double *jp = J + 12 * (size_t)p->cons_row[cp];
  memset(out, 0, sizeof *out * (size_t)(dq * dp));
  for (int sp = 0; sp < 2; sp++) {
    const int b = side_body(p, cp, sp);
    if (b == RT_WORLD) continue;
    for (int sq = 0; sq < 2; sq++) {
      if (side_body(p, cq, sq) != b) continue;
      const double im = inv_mass[b];
      const double *ii = inv_inertia + 9 * (size_t)b;
      for (int c = 0; c < dp; c++) {
        /* wj = W_b J_p,b[c]^T: the column c of W_b J_p,b^T */
        const double *jc = jp + 12 * c + 6 * sp;
        double wj[6];
        for (int k = 0; k < 3; k++) wj[k] = im * jc[k];
        for (int k = 0; k < 3; k++) wj[3 + k] = ii[3 * k] * jc[3] + ii[3 * k + 1] * jc[4] + ii[3 * k + 2] * jc[5];
        for (int r = 0; r < dq; r++) {
          const double *jr = jq + 12 * r + 6 * sq;
          double s = 0;
          for (int k = 0; k < 6; k++) s += jr[k] * wj[k];
          out[r * dp + c] += s;
        }
      }
    }
  }
}

static void store(rt_precision prec, void *work, int off, const double *v, int n) {
  if (prec == RT_FLOAT) {
    float *w = (float *)work + off;
    for (int i = 0; i < n; i++) w[i] = (float)v[i];
  } else {
    memcpy((double *)work + off, v, sizeof *v * (size_t)n);
  }
}

void rt_assemble(const rt_program *p, const double *J, const double *inv_mass, const double *inv_inertia,
                 double epsilon, void *work) {
  const size_t scalar = p->precision == RT_FLOAT ? sizeof(float) : sizeof(double);
  memset(work, 0, scalar * (size_t)p->work_size); /* all-bits-zero is 0.0 (IEEE 754) */
  double buf[RT_MAX_DEGREE * RT_MAX_DEGREE];
  for (int piv = 0; piv < p->ncons; piv++) {
    const int cp = p->piv_cons[piv];
    const int d = p->cons_degree[cp];
    /* node block: the lower triangle mirrored, so the block is exactly
     * symmetric; regularized on its diagonal */
    block(p, cp, cp, J, inv_mass, inv_inertia, buf);
    for (int i = 0; i < d; i++) {
      for (int j = 0; j < i; j++) buf[j * d + i] = buf[i * d + j];
      buf[i * d + i] += epsilon * buf[i * d + i];
    }
    store(p->precision, work, p->piv_node[piv], buf, d * d);
    /* edge blocks of the column (fill-in blocks stay zero) */
    for (int k = p->piv_blk_adr[piv]; k < p->piv_blk_adr[piv + 1]; k++) {
      if (p->blk_fill[k]) continue;
      const int cq = p->piv_cons[p->blk_piv[k]];
      block(p, cq, cp, J, inv_mass, inv_inertia, buf);
      store(p->precision, work, p->blk_off[k], buf, p->cons_degree[cq] * d);
    }
  }
}

/*---- the world's assembly (world.h): a plan made once, at creation -------------
 *
 * The same sums as rt_assemble, bit for bit, from the rows' J and W J^T
 * (rt__rows_masses in rows.c computes W_b J_p,b^T with exactly block()'s
 * operations): per block a list of at most two terms (the solver bodies the
 * two constraints share, in block()'s order), no W J^T recomputed per
 * block, node blocks' upper triangles copied instead of computed, and only
 * the workspace entries no block writes zeroed. A fixed body's term is left
 * out: its W is zero, so its term is +-0, and adding +-0 to a sum that
 * started at +0 changes no bit. */

/* Rows' sides of the bodies constraints cq and cp share (in block()'s
 * order), as row offsets into J and W J^T. Returns the number of terms. */
static int shared_terms(const rt_program *p, const unsigned char *fixed_sbody, int cq, int cp, int jq[2],
                        int wp[2]) {
  int n = 0;
  for (int sp = 0; sp < 2; sp++) {
    const int b = side_body(p, cp, sp);
    if (b == RT_WORLD || fixed_sbody[b]) continue;
    for (int sq = 0; sq < 2; sq++) {
      if (side_body(p, cq, sq) != b) continue;
      jq[n] = 12 * p->cons_row[cq] + 6 * sq;
      wp[n] = 12 * p->cons_row[cp] + 6 * sp;
      n++;
    }
  }
  return n;
}

int rt__assemble_plan(const rt_program *p, const unsigned char *fixed_sbody, rt__assembly *a) {
  a->nblock = 0;
  for (int piv = 0; piv < p->ncons; piv++) {
    const int cp = p->piv_cons[piv];
    rt__asm_block *b = &a->block[a->nblock++];
    b->dst = p->piv_node[piv];
    b->dq = b->dp = p->cons_degree[cp];
    b->node = 1;
    b->nterm = shared_terms(p, fixed_sbody, cp, cp, b->jq, b->wp);
    for (int k = p->piv_blk_adr[piv]; k < p->piv_blk_adr[piv + 1]; k++) {
      if (p->blk_fill[k]) continue;
      const int cq = p->piv_cons[p->blk_piv[k]];
      b = &a->block[a->nblock++];
      b->dst = p->blk_off[k];
      b->dq = p->cons_degree[cq];
      b->dp = p->cons_degree[cp];
      b->node = 0;
      b->nterm = shared_terms(p, fixed_sbody, cq, cp, b->jq, b->wp);
    }
  }
  /* the entries no block writes (fill-in, padding): runs to zero */
  unsigned char *hit = calloc((size_t)p->work_size + 1, 1);
  if (hit == NULL) return -1;
  for (int i = 0; i < a->nblock; i++)
    memset(hit + a->block[i].dst, 1, (size_t)(a->block[i].dq * a->block[i].dp));
  a->nzero = 0;
  for (int i = 0; i < p->work_size;) {
    if (hit[i]) {
      i++;
      continue;
    }
    int j = i;
    while (j < p->work_size && !hit[j]) j++;
    a->zero_off[a->nzero] = i; /* runs lie between blocks: at most nblock + 1 */
    a->zero_len[a->nzero] = j - i;
    a->nzero++;
    i = j;
  }
  free(hit);
  return 0;
}

/* The sum of a[k] b[k], k = 0..5, from +0 in that order (block()'s). */
static inline double dot6(const double *a, const double *b) {
  double s = 0;
  s += a[0] * b[0];
  s += a[1] * b[1];
  s += a[2] * b[2];
  s += a[3] * b[3];
  s += a[4] * b[4];
  s += a[5] * b[5];
  return s;
}

/* Entry (r, c) of block b, summed from +0 in block()'s order. */
static inline double entry(const double *J, const double *WJ, const int *jq, const int *wp, int nterm, int r,
                           int c) {
  double v = 0;
  for (int t = 0; t < nterm; t++) v += dot6(J + jq[t] + 12 * r, WJ + wp[t] + 12 * c);
  return v;
}

/* Block b into out, for a constant number of terms (1: one shared body,
 * the common edge block; 2: node blocks and constraints on the same two
 * bodies; 0: no dynamic body shared), so the compiler unrolls the terms
 * and keeps the rows of J in registers. */
#define ASSEMBLE_BLOCK(REAL, NTERM)                                                                   \
  do {                                                                                                \
    if (b->node) {                                                                                    \
      for (int r = 0; r < dq; r++) {                                                                  \
        for (int c = 0; c < r; c++) out[r * dp + c] = out[c * dp + r] = (REAL)entry(J, WJ, b->jq, b->wp, NTERM, r, c); \
        const double d = entry(J, WJ, b->jq, b->wp, NTERM, r, r);                                     \
        out[r * dp + r] = (REAL)(d + epsilon * d);                                                    \
      }                                                                                               \
    } else {                                                                                          \
      for (int r = 0; r < dq; r++)                                                                    \
        for (int c = 0; c < dp; c++) out[r * dp + c] = (REAL)entry(J, WJ, b->jq, b->wp, NTERM, r, c); \
    }                                                                                                 \
  } while (0)

#define ASSEMBLE_BODY(REAL)                                                                                    \
  for (int i = 0; i < a->nzero; i++) memset(work + a->zero_off[i], 0, sizeof *work * (size_t)a->zero_len[i]); \
  for (int i = 0; i < a->nblock; i++) {                                                                        \
    const rt__asm_block *b = &a->block[i];                                                                     \
    REAL *out = work + b->dst;                                                                                 \
    const int dq = b->dq, dp = b->dp;                                                                          \
    if (b->nterm == 1)                                                                                         \
      ASSEMBLE_BLOCK(REAL, 1);                                                                                 \
    else if (b->nterm == 2)                                                                                    \
      ASSEMBLE_BLOCK(REAL, 2);                                                                                 \
    else                                                                                                       \
      ASSEMBLE_BLOCK(REAL, 0);                                                                                 \
  }

static void assemble_d(const rt__assembly *a, const double *J, const double *WJ, double epsilon, double *work) {
  ASSEMBLE_BODY(double)
}

static void assemble_f(const rt__assembly *a, const double *J, const double *WJ, double epsilon, float *work) {
  ASSEMBLE_BODY(float)
}

/* A program's generated assembly (rt_program.assemble) is this plan with
 * every offset a constant, and without the products of J's entries that
 * are +-0 at every pose (rt_joint_type_def.rows): the same bits while
 * W J^T is finite. */
void rt__assemble_rows(const rt_program *p, const rt__assembly *a, const double *J, const double *WJ, double epsilon,
                       void *work) {
  if (p->assemble != NULL)
    p->assemble(J, WJ, epsilon, work);
  else if (p->precision == RT_FLOAT)
    assemble_f(a, J, WJ, epsilon, (float *)work);
  else
    assemble_d(a, J, WJ, epsilon, (double *)work);
}
