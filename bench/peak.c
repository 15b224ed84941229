/* peak.c -- the baseline (SSE2) peak kernels and the measurement driver
 * (see peak.h). */
#include "peak.h"

#include <emmintrin.h>
#include <stdlib.h>

#include "btime.h"
#include "peak_chains.h"

#define PEAK_VEC __m128d
#define PEAK_SPLAT(x) _mm_set1_pd(x)
#define PEAK_LANE0(a) _mm_cvtsd_f64(a)
#define PEAK_MUL(a, m) _mm_mul_sd(a, m)
#define PEAK_ADD(a, c) _mm_add_sd(a, c)
PEAK_KERNEL_SPLIT(bp_sse2_scalar_d, 1)
#undef PEAK_MUL
#undef PEAK_ADD
#define PEAK_MUL(a, m) _mm_mul_pd(a, m)
#define PEAK_ADD(a, c) _mm_add_pd(a, c)
PEAK_KERNEL_SPLIT(bp_sse2_packed_d, 2)
#undef PEAK_VEC
#undef PEAK_SPLAT
#undef PEAK_LANE0
#undef PEAK_MUL
#undef PEAK_ADD

#define PEAK_VEC __m128
#define PEAK_SPLAT(x) _mm_set1_ps((float)(x))
#define PEAK_LANE0(a) (double)_mm_cvtss_f32(a)
#define PEAK_MUL(a, m) _mm_mul_ss(a, m)
#define PEAK_ADD(a, c) _mm_add_ss(a, c)
PEAK_KERNEL_SPLIT(bp_sse2_scalar_f, 1)
#undef PEAK_MUL
#undef PEAK_ADD
#define PEAK_MUL(a, m) _mm_mul_ps(a, m)
#define PEAK_ADD(a, c) _mm_add_ps(a, c)
PEAK_KERNEL_SPLIT(bp_sse2_packed_f, 4)

/* A kernel as a bt_fn: `steps` steps per call. */
typedef struct kernel_call {
  bp_kernel k;
  long steps;
  double flops_per_step, sink;
} kernel_call;

static void call(void *ctx) {
  kernel_call *c = ctx;
  c->sink += c->k(c->steps, 1.0 + 1e-3 * (double)(c->steps & 7), &c->flops_per_step);
}

/* GFLOP/s of one kernel. */
static double measure(bp_kernel k) {
  kernel_call c = {k, 2000, 0, 0};
  int reps = bt_calibrate(call, &c, 2e-3);
  double t = bt_median_time(call, &c, reps, 5);
  return c.flops_per_step * (double)c.steps / t * 1e-9;
}

static const char *const names[BP_COUNT] = {"SSE2 scalar mul+add (baseline -O2)", "SSE2 packed mul+add",
                                             "scalar FMA", "AVX2 FMA (256-bit)", "AVX-512 FMA (512-bit)"};

static void availability(int avail[BP_COUNT]) {
  __builtin_cpu_init();
  const int fma = __builtin_cpu_supports("fma") != 0, avx2 = __builtin_cpu_supports("avx2") != 0;
  avail[BP_SSE2_SCALAR] = avail[BP_SSE2_PACKED] = 1;
  avail[BP_FMA_SCALAR] = fma;
  avail[BP_AVX2] = avx2 && fma;
  avail[BP_AVX512] = __builtin_cpu_supports("avx512f") != 0;
}

void bp_sample(double gflops[BP_COUNT][2]) {
  const bp_kernel kernels[BP_COUNT][2] = {{bp_sse2_scalar_d, bp_sse2_scalar_f},
                                          {bp_sse2_packed_d, bp_sse2_packed_f},
                                          {bp_fma_scalar_d, bp_fma_scalar_f},
                                          {bp_avx2_d, bp_avx2_f},
                                          {bp_avx512_d, bp_avx512_f}};
  int avail[BP_COUNT];
  availability(avail);
  for (int i = 0; i < BP_COUNT; i++)
    for (int p = 0; p < 2; p++) gflops[i][p] = avail[i] ? measure(kernels[i][p]) : 0;
}

void bp_summarize(double (*samples)[BP_COUNT][2], int n, bp_result out[BP_COUNT]) {
  int avail[BP_COUNT];
  availability(avail);
  double *v = malloc(sizeof *v * (size_t)(n > 0 ? n : 1));
  if (!v) abort();
  for (int i = 0; i < BP_COUNT; i++) {
    out[i].name = names[i];
    out[i].available = avail[i] && n > 0;
    for (int p = 0; p < 2; p++) {
      out[i].gflops[p] = out[i].lo[p] = out[i].hi[p] = 0;
      if (!out[i].available) continue;
      for (int k = 0; k < n; k++) v[k] = samples[k][i][p];
      bt_stat s = bt_stats(v, n);
      out[i].gflops[p] = s.med;
      out[i].lo[p] = s.lo;
      out[i].hi[p] = s.hi;
    }
  }
  free(v);
}
