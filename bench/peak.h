/* peak.h -- single-core floating-point peak of this machine, measured with
 * small throughput kernels: 14 independent accumulator chains (see
 * peak_chains.h) -- fused multiply-adds, or for the kernels without FMA
 * half multiply and half add chains -- so the result is the arithmetic
 * throughput, not a latency.
 *
 *   SSE2 scalar mul+add   what x86-64 baseline code without FMA can do in
 *                         scalar arithmetic (the generated code built with
 *                         plain -O2 -ffp-contract=off)
 *   SSE2 packed mul+add   the same, 128-bit vectors
 *   scalar FMA            vfmadd on one lane (-mfma)
 *   AVX2 FMA              256-bit vfmadd (-mavx2 -mfma)
 *   AVX-512 FMA           512-bit vfmadd (-mavx512f)
 *
 * The FMA kernels live in their own translation units compiled with those
 * flags and run only when __builtin_cpu_supports says the CPU has them.
 * Flops: 2 per lane per FMA, 1 per lane per multiply or add. */
#ifndef LDLPGS_BENCH_PEAK_H
#define LDLPGS_BENCH_PEAK_H

enum { BP_SSE2_SCALAR = 0, BP_SSE2_PACKED, BP_FMA_SCALAR, BP_AVX2, BP_AVX512, BP_COUNT };

typedef struct bp_result {
  const char *name;
  int available;
  double gflops[2];    /* [0] double, [1] float: median over samples */
  double lo[2], hi[2]; /* min-max over samples */
} bp_result;

/* One sample: GFLOP/s of every kernel (median of a few batches of about
 * 2 ms), 0 where the CPU lacks the instructions. */
void bp_sample(double gflops[BP_COUNT][2]);

/* Summarizes n samples. On a shared VM a sample can only come out low
 * (another guest on the core, a lower clock), so the max is the best
 * estimate of the peak; the median and min show how much it moved. */
void bp_summarize(double (*samples)[BP_COUNT][2], int n, bp_result out[BP_COUNT]);

/* Kernels: `steps` steps of every chain; return a value derived from all
 * accumulators (so nothing is optimized away). *flops_per_step receives the
 * flops of one step of all chains. */
typedef double (*bp_kernel)(long steps, double seed, double *flops_per_step);

double bp_sse2_scalar_d(long steps, double seed, double *flops_per_step);
double bp_sse2_scalar_f(long steps, double seed, double *flops_per_step);
double bp_sse2_packed_d(long steps, double seed, double *flops_per_step);
double bp_sse2_packed_f(long steps, double seed, double *flops_per_step);
double bp_fma_scalar_d(long steps, double seed, double *flops_per_step);  /* peak_avx2.c */
double bp_fma_scalar_f(long steps, double seed, double *flops_per_step);
double bp_avx2_d(long steps, double seed, double *flops_per_step);
double bp_avx2_f(long steps, double seed, double *flops_per_step);
double bp_avx512_d(long steps, double seed, double *flops_per_step);     /* peak_avx512.c */
double bp_avx512_f(long steps, double seed, double *flops_per_step);

#endif
