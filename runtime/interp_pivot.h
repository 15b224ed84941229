/* interp_pivot.h -- the interpreter's elimination of one pivot (rt.h factor
 * steps 1-3) for one precision and one degree.
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
 * scalars (Y of rt.h). Returns 0 if the node block is not positive definite (n then
 * holds the columns factored so far), else 1. The elements reached through
 * n, e, work (the RSI's targets: other pivots' blocks) and temp are
 * distinct, hence restrict. */
static int RT_PIVOT(RT_REAL *restrict n, RT_REAL *restrict e, int d, int h, RT_REAL *restrict work,
                    const int32_t *restrict ri, RT_REAL *restrict temp) {
  const int D = RT_D;
  RT_REAL rinv[RT_MAX_DEGREE];
  (void)d;
  /* 1. LDL^T of the node block, right-looking, and the reciprocals */
#pragma GCC unroll 6
  for (int j = 0; j < D; j++) {
    const RT_REAL dj = n[j * D + j];
    if (!(dj > 0)) return 0;
    const RT_REAL rj = 1 / dj;
    rinv[j] = rj;
    RT_REAL u[RT_MAX_DEGREE];
#pragma GCC unroll 6
    for (int i = j + 1; i < D; i++) {
      u[i] = n[i * D + j];
      n[i * D + j] = u[i] * rj;
    }
#pragma GCC unroll 6
    for (int i = j + 1; i < D; i++) {
      RT_REAL *ni = n + i * D;
      ni[i] = ni[i] - (u[i] * u[i]) * rj;
#pragma GCC unroll 6
      for (int k = j + 1; k < i; k++) ni[k] = ni[k] - ni[j] * u[k];
    }
  }
  /* 2. Y[r] (in temp) = E[r] by forward substitution with l; E[r] = Y[r] D^-1 */
  for (int r = 0; r < h; r++) {
    RT_REAL *y = temp + r * D;
    RT_REAL *er = e + r * D;
#pragma GCC unroll 6
    for (int i = 0; i < D; i++) {
      const RT_REAL *ni = n + i * D;
      RT_REAL v = er[i];
#pragma GCC unroll 6
      for (int k = 0; k < i; k++) v = v - ni[k] * y[k];
      y[i] = v;
      er[i] = v * rinv[i];
    }
  }
  /* 3. work[*ri++] -= E[r] . Y[c] for c <= r, summed from k = 0 up */
  for (int r = 0; r < h; r++) {
    const RT_REAL *er = e + r * D;
    for (int c = 0; c <= r; c++) {
      const RT_REAL *yc = temp + c * D;
      RT_REAL s = er[0] * yc[0];
#pragma GCC unroll 6
      for (int k = 1; k < D; k++) s += er[k] * yc[k];
      RT_REAL *w = work + *ri++;
      *w = *w - s;
    }
  }
  return 1;
}

#undef RT_PIVOT
#undef RT_D
