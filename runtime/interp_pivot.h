/* interp_pivot.h -- the interpreter's elimination of one pivot (rt.h factor
 * steps 1-4) for one precision and one degree.
 *
 * Included by interp_kernel.h once per degree 1..RT_MAX_DEGREE and once for
 * any other degree, with
 *   RT_REAL   the scalar type (float or double)
 *   RT_PIVOT  the name of the function to define
 *   RT_D      the degree: a literal, so that the compiler unrolls every
 *             loop over the degree, or `d` (the parameter) for the rest
 * defined; undefines RT_PIVOT and RT_D at the end. The operations are the
 * reference arithmetic of rt.h, in its order; the degree only changes how
 * the loops are compiled (`#pragma GCC unroll`, which GCC and Clang honour
 * and other compilers ignore, asks for the loops over the degree to be
 * unrolled completely). No include guard: meant to be included more than
 * once. */
#if !defined(RT_REAL) || !defined(RT_PIVOT) || !defined(RT_D)
#error "define RT_REAL, RT_PIVOT and RT_D before including interp_pivot.h"
#endif

/* Eliminates a pivot of degree d whose node block is n and whose edge
 * column of height h is e (both in work), its RSI at ri; temp holds h*d
 * scalars. Returns 0 if the node block is not positive definite (n then
 * holds the columns factored so far), else 1. The elements reached through
 * n, e, work (the RSI's targets: other pivots' blocks) and temp are
 * distinct, hence restrict. */
static int RT_PIVOT(RT_REAL *restrict n, RT_REAL *restrict e, int d, int h, RT_REAL *restrict work,
                    const int32_t *restrict ri, RT_REAL *restrict temp) {
  const int D = RT_D;
  RT_REAL rinv[RT_MAX_DEGREE];
  (void)d;
  /* 1. LDL^T of the node block, column by column, and the reciprocals */
  #pragma GCC unroll 6
  for (int j = 0; j < D; j++) {
    RT_REAL *nj = n + j * D;
    RT_REAL dj = nj[j];
    if (j > 0) {
      RT_REAL s = nj[0] * (nj[0] * n[0]);
      #pragma GCC unroll 6
      for (int k = 1; k < j; k++) s += nj[k] * (nj[k] * n[k * D + k]);
      dj = dj - s;
    }
    if (!(dj > 0)) return 0;
    nj[j] = dj;
    const RT_REAL rj = 1 / dj;
    rinv[j] = rj;
    #pragma GCC unroll 6
    for (int i = j + 1; i < D; i++) {
      RT_REAL *ni = n + i * D;
      RT_REAL v = ni[j];
      if (j > 0) {
        RT_REAL s = ni[0] * (nj[0] * n[0]);
        #pragma GCC unroll 6
        for (int k = 1; k < j; k++) s += ni[k] * (nj[k] * n[k * D + k]);
        v = v - s;
      }
      ni[j] = v * rj;
    }
  }
  /* 2. T[r] = node_solve(N, E[r]), in place in temp: y (forward), z = y *
   * rinv, x (backward) */
  for (int r = 0; r < h; r++) {
    RT_REAL *v = temp + r * D;
    const RT_REAL *er = e + r * D;
    v[0] = er[0];
    #pragma GCC unroll 6
    for (int i = 1; i < D; i++) {
      const RT_REAL *ni = n + i * D;
      RT_REAL s = ni[0] * v[0];
      #pragma GCC unroll 6
      for (int k = 1; k < i; k++) s += ni[k] * v[k];
      v[i] = er[i] - s;
    }
    #pragma GCC unroll 6
    for (int i = 0; i < D; i++) v[i] = v[i] * rinv[i];
    #pragma GCC unroll 6
    for (int i = D - 2; i >= 0; i--) {
      RT_REAL s = n[(i + 1) * D + i] * v[i + 1];
      #pragma GCC unroll 6
      for (int k = i + 2; k < D; k++) s += n[k * D + i] * v[k];
      v[i] = v[i] - s;
    }
  }
  /* 3. work[*ri++] -= T[r] . E[c] for c <= r */
  for (int r = 0; r < h; r++) {
    const RT_REAL *tr = temp + r * D;
    for (int c = 0; c <= r; c++) {
      const RT_REAL *ec = e + c * D;
      RT_REAL s = tr[0] * ec[0];
      #pragma GCC unroll 6
      for (int k = 1; k < D; k++) s += tr[k] * ec[k];
      RT_REAL *w = work + *ri++;
      *w = *w - s;
    }
  }
  /* 4. E = T: the column now holds L */
  memcpy(e, temp, sizeof *e * (size_t)(h * D));
  return 1;
}

#undef RT_PIVOT
#undef RT_D
