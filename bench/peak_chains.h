/* peak_chains.h -- the accumulator-chain loops shared by the peak kernels
 * (peak.c, peak_avx2.c, peak_avx512.c). An includer defines PEAK_VEC (the
 * vector type), PEAK_SPLAT(x) (all lanes x) and PEAK_LANE0(a) (lane 0 as a
 * double), then either
 *   PEAK_OP(a, m, c) (a fused multiply-add) and PEAK_KERNEL(name, lanes):
 *     14 chains a = a * m + c, 2 flops per lane each, or
 *   PEAK_MUL(a, m), PEAK_ADD(a, c) and PEAK_KERNEL_SPLIT(name, lanes):
 *     8 chains a = a * m and 6 chains a = a + c, 1 flop per lane each
 *     (separate chains, so a multiply's latency does not hold up an add);
 * and may redefine them for the next kernel. The chains are explicit
 * statements, so they stay in the 16 registers at -O2, and start from
 * different values, so the compiler cannot merge them. */
#ifndef LDLPGS_BENCH_PEAK_CHAINS_H
#define LDLPGS_BENCH_PEAK_CHAINS_H

#define PEAK_CHAINS 14
#define PEAK_REP(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13)
#define PEAK_DECL(k) PEAK_VEC a##k = PEAK_SPLAT(seed + 0.01 * (k));
#define PEAK_STEP(k) a##k = PEAK_OP(a##k, m, c);
#define PEAK_SUM(k) sum += PEAK_LANE0(a##k);

#define PEAK_REP_LO(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define PEAK_REP_HI(X) X(8) X(9) X(10) X(11) X(12) X(13)
#define PEAK_MSTEP(k) a##k = PEAK_MUL(a##k, m);
#define PEAK_ASTEP(k) a##k = PEAK_ADD(a##k, c);

#define PEAK_KERNEL(name, lanes)                                               \
  double name(long steps, double seed, double *flops_per_step) {               \
    const PEAK_VEC m = PEAK_SPLAT(1.0 - 1e-9 * seed), c = PEAK_SPLAT(1e-7 * seed); \
    PEAK_REP(PEAK_DECL)                                                         \
    for (long s = 0; s < steps; s++) {                                          \
      PEAK_REP(PEAK_STEP)                                                       \
    }                                                                           \
    *flops_per_step = PEAK_CHAINS * 2.0 * (lanes);                              \
    double sum = 0;                                                             \
    PEAK_REP(PEAK_SUM)                                                          \
    return sum;                                                                 \
  }

#define PEAK_KERNEL_SPLIT(name, lanes)                                         \
  double name(long steps, double seed, double *flops_per_step) {               \
    const PEAK_VEC m = PEAK_SPLAT(1.0 - 1e-9 * seed), c = PEAK_SPLAT(1e-7 * seed); \
    PEAK_REP(PEAK_DECL)                                                         \
    for (long s = 0; s < steps; s++) {                                          \
      PEAK_REP_LO(PEAK_MSTEP)                                                   \
      PEAK_REP_HI(PEAK_ASTEP)                                                   \
    }                                                                           \
    *flops_per_step = PEAK_CHAINS * 1.0 * (lanes);                              \
    double sum = 0;                                                             \
    PEAK_REP(PEAK_SUM)                                                          \
    return sum;                                                                 \
  }

#endif
