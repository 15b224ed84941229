/* interp_kernel.h -- body of the program interpreter for one precision.
 *
 * Included by interp.c once per precision, with
 *   RT_REAL      the scalar type (float or double)
 *   RT_KERNEL(n) the name of a kernel function for that precision (n_f, n_d)
 * defined; undefines both at the end. Every operation below is the
 * REFERENCE ARITHMETIC of rt.h, in its order: all arithmetic is done in
 * RT_REAL (no wider accumulators), each sum starts from its first product
 * and adds the next ones one at a time, and an empty sum is not subtracted.
 * Generated unrolled code performs the same operations, so both give bitwise
 * identical results. No include guard: this file is meant to be included
 * more than once. */
#if !defined(RT_REAL) || !defined(RT_KERNEL)
#error "define RT_REAL and RT_KERNEL before including interp_kernel.h"
#endif

/* The elimination of one pivot, specialized by degree (interp_pivot.h):
 * pivot1 .. pivot6, and pivotn for any other degree. */
#define RT_PIVOT RT_KERNEL(pivot1)
#define RT_D 1
#include "interp_pivot.h"
#define RT_PIVOT RT_KERNEL(pivot2)
#define RT_D 2
#include "interp_pivot.h"
#define RT_PIVOT RT_KERNEL(pivot3)
#define RT_D 3
#include "interp_pivot.h"
#define RT_PIVOT RT_KERNEL(pivot4)
#define RT_D 4
#include "interp_pivot.h"
#define RT_PIVOT RT_KERNEL(pivot5)
#define RT_D 5
#include "interp_pivot.h"
#define RT_PIVOT RT_KERNEL(pivot6)
#define RT_D 6
#include "interp_pivot.h"
#define RT_PIVOT RT_KERNEL(pivotn)
#define RT_D d
#include "interp_pivot.h"

static int RT_KERNEL(factor)(const rt_program *p, RT_REAL *work, RT_REAL *temp) {
  for (int piv = 0; piv < p->ncons; piv++) {
    const int d = p->cons_degree[p->piv_cons[piv]];
    const int h = p->piv_height[piv];
    RT_REAL *n = work + p->piv_node[piv];
    RT_REAL *e = work + p->piv_edge[piv];
    const int32_t *ri = p->rsi + p->piv_rsi_adr[piv];
    int ok;
    switch (d) {
    case 1: ok = RT_KERNEL(pivot1)(n, e, d, h, work, ri, temp); break;
    case 2: ok = RT_KERNEL(pivot2)(n, e, d, h, work, ri, temp); break;
    case 3: ok = RT_KERNEL(pivot3)(n, e, d, h, work, ri, temp); break;
    case 4: ok = RT_KERNEL(pivot4)(n, e, d, h, work, ri, temp); break;
    case 5: ok = RT_KERNEL(pivot5)(n, e, d, h, work, ri, temp); break;
    case 6: ok = RT_KERNEL(pivot6)(n, e, d, h, work, ri, temp); break;
    default: ok = RT_KERNEL(pivotn)(n, e, d, h, work, ri, temp); break;
    }
    if (!ok) return piv;
  }
  return -1;
}

static void RT_KERNEL(solve_forward)(const rt_program *p, const RT_REAL *work, RT_REAL *x) {
  const int np = p->ncons;
  /* forward: x_p = l_p^-1 x_p, x_q -= L_qp x_p, x_p = D_p^-1 x_p */
  for (int piv = 0; piv < np; piv++) {
    const int cp = p->piv_cons[piv];
    const int dp = p->cons_degree[cp];
    const RT_REAL *n = work + p->piv_node[piv];
    RT_REAL *xp = x + p->cons_row[cp];
    for (int i = 1; i < dp; i++) {
      RT_REAL y = xp[i];
      for (int k = 0; k < i; k++) y = y - n[i * dp + k] * xp[k];
      xp[i] = y;
    }
    for (int k = p->piv_blk_adr[piv]; k < p->piv_blk_adr[piv + 1]; k++) {
      const int cq = p->piv_cons[p->blk_piv[k]];
      const int dq = p->cons_degree[cq];
      const RT_REAL *l = work + p->blk_off[k];
      RT_REAL *xq = x + p->cons_row[cq];
      for (int r = 0; r < dq; r++) {
        const RT_REAL *lr = l + r * dp;
        RT_REAL s = lr[0] * xp[0];
        for (int c = 1; c < dp; c++) s += lr[c] * xp[c];
        xq[r] = xq[r] - s;
      }
    }
    for (int i = 0; i < dp; i++) xp[i] = xp[i] / n[i * dp + i];
  }
}

static void RT_KERNEL(solve_backward)(const rt_program *p, const RT_REAL *work, RT_REAL *x) {
  const int np = p->ncons;
  /* backward: x_p -= sum over p's blocks of L_qp^T x_q, one sum per row c of
   * x_p running over the blocks from the last to the first and their rows
   * from the last; then x_p = l_p^-T x_p */
  for (int piv = np - 1; piv >= 0; piv--) {
    const int kb = p->piv_blk_adr[piv], ke = p->piv_blk_adr[piv + 1];
    const int cp = p->piv_cons[piv];
    const int dp = p->cons_degree[cp];
    RT_REAL *xp = x + p->cons_row[cp];
    if (kb < ke) {
      const int cql = p->piv_cons[p->blk_piv[ke - 1]], dql = p->cons_degree[cql];
      const RT_REAL *xql = x + p->cons_row[cql];
      for (int c = 0; c < dp; c++) {
        RT_REAL s = work[p->blk_off[ke - 1] + (dql - 1) * dp + c] * xql[dql - 1];
        for (int k = ke - 1, r0 = dql - 2; k >= kb; k--) {
          const int cq = p->piv_cons[p->blk_piv[k]];
          const int dq = p->cons_degree[cq];
          const RT_REAL *l = work + p->blk_off[k] + c; /* column c of L_qp */
          const RT_REAL *xq = x + p->cons_row[cq];
          for (int r = k == ke - 1 ? r0 : dq - 1; r >= 0; r--) s += l[r * dp] * xq[r];
        }
        xp[c] = xp[c] - s;
      }
    }
    const RT_REAL *n = work + p->piv_node[piv];
    for (int i = dp - 2; i >= 0; i--) {
      RT_REAL v = xp[i];
      for (int k = dp - 1; k > i; k--) v = v - n[k * dp + i] * xp[k];
      xp[i] = v;
    }
  }
}

static void RT_KERNEL(solve)(const rt_program *p, const RT_REAL *work, RT_REAL *x) {
  RT_KERNEL(solve_forward)(p, work, x);
  RT_KERNEL(solve_backward)(p, work, x);
}

#undef RT_REAL
#undef RT_KERNEL
