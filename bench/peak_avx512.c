/* peak_avx512.c -- 512-bit FMA peak kernels. Compiled with -mavx512f;
 * called only when the CPU has AVX-512F (peak.c checks). */
#include <immintrin.h>

#include "peak.h"
#include "peak_chains.h"

#define PEAK_VEC __m512d
#define PEAK_SPLAT(x) _mm512_set1_pd(x)
#define PEAK_OP(a, m, c) _mm512_fmadd_pd(a, m, c)
#define PEAK_LANE0(a) _mm_cvtsd_f64(_mm512_castpd512_pd128(a))
PEAK_KERNEL(bp_avx512_d, 8)
#undef PEAK_VEC
#undef PEAK_SPLAT
#undef PEAK_OP
#undef PEAK_LANE0

#define PEAK_VEC __m512
#define PEAK_SPLAT(x) _mm512_set1_ps((float)(x))
#define PEAK_OP(a, m, c) _mm512_fmadd_ps(a, m, c)
#define PEAK_LANE0(a) (double)_mm_cvtss_f32(_mm512_castps512_ps128(a))
PEAK_KERNEL(bp_avx512_f, 16)
