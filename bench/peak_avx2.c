/* peak_avx2.c -- FMA peak kernels: one lane (scalar vfmadd) and 256-bit
 * AVX2. Compiled with -mavx2 -mfma; called only when the CPU has both
 * (peak.c checks). */
#include <immintrin.h>

#include "peak.h"
#include "peak_chains.h"

#define PEAK_VEC __m128d
#define PEAK_SPLAT(x) _mm_set1_pd(x)
#define PEAK_OP(a, m, c) _mm_fmadd_sd(a, m, c)
#define PEAK_LANE0(a) _mm_cvtsd_f64(a)
PEAK_KERNEL(bp_fma_scalar_d, 1)
#undef PEAK_VEC
#undef PEAK_SPLAT
#undef PEAK_OP
#undef PEAK_LANE0

#define PEAK_VEC __m128
#define PEAK_SPLAT(x) _mm_set1_ps((float)(x))
#define PEAK_OP(a, m, c) _mm_fmadd_ss(a, m, c)
#define PEAK_LANE0(a) (double)_mm_cvtss_f32(a)
PEAK_KERNEL(bp_fma_scalar_f, 1)
#undef PEAK_VEC
#undef PEAK_SPLAT
#undef PEAK_OP
#undef PEAK_LANE0

#define PEAK_VEC __m256d
#define PEAK_SPLAT(x) _mm256_set1_pd(x)
#define PEAK_OP(a, m, c) _mm256_fmadd_pd(a, m, c)
#define PEAK_LANE0(a) _mm256_cvtsd_f64(a)
PEAK_KERNEL(bp_avx2_d, 4)
#undef PEAK_VEC
#undef PEAK_SPLAT
#undef PEAK_OP
#undef PEAK_LANE0

#define PEAK_VEC __m256
#define PEAK_SPLAT(x) _mm256_set1_ps((float)(x))
#define PEAK_OP(a, m, c) _mm256_fmadd_ps(a, m, c)
#define PEAK_LANE0(a) (double)_mm256_cvtss_f32(a)
PEAK_KERNEL(bp_avx2_f, 8)
