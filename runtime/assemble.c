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
#include <string.h>

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
