/* rt_lanes.h -- the lane arithmetic of batch programs (ldlgen --batch N):
 * N copies of one mechanism factored together, one copy per vector lane.
 *
 * A batch program stores every value lane-interleaved -- entry k of copy j
 * at scalar k * N + j -- so that entry k of all N copies is one
 * rt_lane_entry, and it performs one lane operation below wherever the
 * scalar program performs one scalar operation (docs/DESIGN.md section
 * 10). Each operation is the IEEE operation of the scalar program done in
 * every lane independently, so lane j of a batch result is bitwise the
 * scalar program's result for copy j (with -ffp-contract=off, like every
 * generated file).
 *
 * A generated batch file includes this header after defining
 *   RT_LANES_DOUBLE  1 for double, 0 for float;
 *   RT_LANES_N       the lanes: 4, 8 or 16;
 *   RT_LANES_GROUPED 1 (files of ldlgen since groups came in; older files
 *                    define none and take all N lanes at once).
 *
 * Groups. An operation takes RT_LANES_G lanes at once, the lanes of one
 * group; a grouped file's entry points run each of its functions (a
 * pivot's factor, a part of the solve) once per group, the group's first
 * lane as the base of the arrays (rt_lane_group): the groups of a pivot
 * are independent chains of operations, which the processor overlaps.
 * With the vector extensions a group is as many lanes as one vector
 * register of the target holds (AVX-512 64 bytes, AVX 32, else 16), at
 * most N: 8 double lanes on AVX2 run as two groups of 4, whose values fit
 * the 16 registers where vectors of 8 would spill (docs/DESIGN.md section
 * 10). In plain C, one group of N. RT_LANES_GROUP, if defined (a power of
 * two dividing N), sets a grouped file's group instead. Each lane's operations
 * and their order are the same whatever the groups, so are its bits.
 *
 * In memory an entry is an rt_lane_entry: the N lanes of entry k of every
 * copy (N scalars), of which a group's functions read and write .v, the
 * group's lanes (the pointer rt_lane_group made for it); rt_lane is one
 * group's value in registers. Entries are never copied whole.
 *
 * Two implementations with the same names:
 *   - GCC/Clang vector extensions (vector_size): rt_lane is one vector of a
 *     group's scalars, loaded and stored at any scalar-aligned address;
 *   - plain C11 (RT_BATCH_PORTABLE defined, or LDLPGS_NO_VECTOR, or a
 *     compiler without __GNUC__): rt_lane is a struct of a group's scalars
 *     and each operation a loop over the lanes, the same bits.
 * In the vector implementation the operations are macros, not functions: a
 * vector argument wider than the target's registers changes the calling
 * convention, which GCC and Clang warn about (-Wpsabi) at every call.
 *
 * Operations (a, b, c: rt_lane values; m: an rt_lane_mask lvalue):
 *   rt_lane_sub(a, b)        a - b
 *   rt_lane_mul(a, b)        a * b
 *   rt_lane_div(a, b)        a / b
 *   rt_lane_recip(a)         1 / a
 *   rt_lane_addmul(a, b, c)  a + b * c   (rounded twice: never fused)
 *   rt_lane_submul(a, b, c)  a - b * c   (rounded twice: never fused)
 *   rt_lane_not_positive(a)  the mask of the lanes where !(a > 0), NaN included
 *   rt_lane_mask_or(m1, m2)  lane-wise or of two masks
 *   rt_lane_mask_at(m, j)    nonzero if lane j of m is set
 *   rt_lane_record(fail, pivot, m)  fail[j] = pivot for every lane j set in m
 *                            whose fail[j] is still < 0 (a group's ints)
 */
#ifndef LDLPGS_RT_LANES_H
#define LDLPGS_RT_LANES_H

#if !defined(RT_LANES_DOUBLE) || !defined(RT_LANES_N)
#error "rt_lanes.h is for generated batch programs: define RT_LANES_DOUBLE and RT_LANES_N first"
#endif
#if RT_LANES_N != 4 && RT_LANES_N != 8 && RT_LANES_N != 16
#error "RT_LANES_N is 4, 8 or 16"
#endif

/* RT_LANES_G: the lanes of a group (above) */
#if !defined(RT_LANES_GROUPED) /* a file from before the groups: its entry points take all N lanes */
#define RT_LANES_G RT_LANES_N
#elif defined(RT_LANES_GROUP)
#define RT_LANES_G RT_LANES_GROUP
#elif defined(RT_BATCH_PORTABLE) || defined(LDLPGS_NO_VECTOR) || !defined(__GNUC__)
#define RT_LANES_G RT_LANES_N
#else
#if defined(__AVX512F__)
#define RT_LANES_REGISTER_ 64
#elif defined(__AVX__)
#define RT_LANES_REGISTER_ 32
#else
#define RT_LANES_REGISTER_ 16
#endif
#define RT_LANES_FIT_ (RT_LANES_REGISTER_ / (RT_LANES_DOUBLE ? 8 : 4))
#define RT_LANES_G (RT_LANES_FIT_ < RT_LANES_N ? RT_LANES_FIT_ : RT_LANES_N)
#endif
#if RT_LANES_G < 1 || RT_LANES_G > RT_LANES_N || RT_LANES_N % RT_LANES_G != 0 || (RT_LANES_G & (RT_LANES_G - 1)) != 0
#error "RT_LANES_GROUP is a power of two that divides RT_LANES_N"
#endif

#if RT_LANES_DOUBLE
typedef double rt_lane_scalar;
typedef long long rt_lane_int; /* a mask lane: as wide as a scalar */
#else
typedef float rt_lane_scalar;
typedef int rt_lane_int;
#endif

#if defined(RT_BATCH_PORTABLE) || defined(LDLPGS_NO_VECTOR) || !defined(__GNUC__)
/*---- plain C: a struct of N scalars, one loop per operation ---------------------*/
#define RT_LANES_VECTOR 0

typedef struct rt_lane {
  rt_lane_scalar v[RT_LANES_G];
} rt_lane;
typedef struct rt_lane_mask {
  rt_lane_int v[RT_LANES_G];
} rt_lane_mask;
#define RT_LANES_ALIAS_

static inline rt_lane rt_lane_sub(rt_lane a, rt_lane b) {
  for (int j = 0; j < RT_LANES_G; j++) a.v[j] = a.v[j] - b.v[j];
  return a;
}
static inline rt_lane rt_lane_mul(rt_lane a, rt_lane b) {
  for (int j = 0; j < RT_LANES_G; j++) a.v[j] = a.v[j] * b.v[j];
  return a;
}
static inline rt_lane rt_lane_div(rt_lane a, rt_lane b) {
  for (int j = 0; j < RT_LANES_G; j++) a.v[j] = a.v[j] / b.v[j];
  return a;
}
static inline rt_lane rt_lane_recip(rt_lane a) {
  for (int j = 0; j < RT_LANES_G; j++) a.v[j] = 1 / a.v[j];
  return a;
}
static inline rt_lane rt_lane_addmul(rt_lane a, rt_lane b, rt_lane c) {
  for (int j = 0; j < RT_LANES_G; j++) {
    const rt_lane_scalar p = b.v[j] * c.v[j];
    a.v[j] = a.v[j] + p;
  }
  return a;
}
static inline rt_lane rt_lane_submul(rt_lane a, rt_lane b, rt_lane c) {
  for (int j = 0; j < RT_LANES_G; j++) {
    const rt_lane_scalar p = b.v[j] * c.v[j];
    a.v[j] = a.v[j] - p;
  }
  return a;
}
static inline rt_lane_mask rt_lane_not_positive(rt_lane a) {
  rt_lane_mask m;
  for (int j = 0; j < RT_LANES_G; j++) m.v[j] = !(a.v[j] > 0);
  return m;
}
static inline rt_lane_mask rt_lane_mask_or(rt_lane_mask a, rt_lane_mask b) {
  for (int j = 0; j < RT_LANES_G; j++) a.v[j] = a.v[j] | b.v[j];
  return a;
}
#define rt_lane_mask_at(m, j) ((m).v[(j)] != 0)

#else
/*---- GCC/Clang vector extensions --------------------------------------------*/
#define RT_LANES_VECTOR 1

/* aligned to one scalar and may_alias: any scalar-aligned address of the
 * caller's float or double arrays is a lane */
typedef rt_lane_scalar rt_lane
    __attribute__((vector_size(RT_LANES_G * sizeof(rt_lane_scalar)), aligned(sizeof(rt_lane_scalar)), may_alias));
typedef rt_lane_int rt_lane_mask __attribute__((vector_size(RT_LANES_G * sizeof(rt_lane_int))));
#define RT_LANES_ALIAS_ __attribute__((may_alias))

#define rt_lane_sub(a, b) ((a) - (b))
#define rt_lane_mul(a, b) ((a) * (b))
#define rt_lane_div(a, b) ((a) / (b))
#define rt_lane_recip(a) ((rt_lane_scalar)1 / (a))
#define rt_lane_addmul(a, b, c) ((a) + (b) * (c))
#define rt_lane_submul(a, b, c) ((a) - (b) * (c))
/* a comparison is -1 where it holds, 0 elsewhere (NaN: 0) */
#define rt_lane_not_positive(a) (~((a) > (rt_lane_scalar)0))
#define rt_lane_mask_or(a, b) ((a) | (b))
#define rt_lane_mask_at(m, j) ((m)[(j)] != 0)
#endif

/* One entry in memory: its N lanes, of which .v is the group's (the
 * pointer's base lane on: rt_lane_group). */
typedef struct RT_LANES_ALIAS_ rt_lane_entry {
  rt_lane v;
#if RT_LANES_G < RT_LANES_N
  rt_lane_scalar other_groups_[RT_LANES_N - RT_LANES_G];
#endif
} rt_lane_entry;

/* The entries of lane-interleaved scalars p (N lanes an entry) as the
 * group whose first lane is h sees them. */
#define rt_lane_group(p, h) ((rt_lane_entry *)((rt_lane_scalar *)(p) + (h)))
#define rt_lane_group_const(p, h) ((const rt_lane_entry *)((const rt_lane_scalar *)(p) + (h)))

/* Records the lanes of m that fail at `pivot` in fail (a group's ints, -1
 * for a lane that has not failed): each lane keeps its first failure. A
 * macro, for the reason above. */
#define rt_lane_record(fail, pivot, m)                                  \
  do {                                                                  \
    for (int rt_lane_j_ = 0; rt_lane_j_ < RT_LANES_G; rt_lane_j_++)     \
      if (rt_lane_mask_at((m), rt_lane_j_) && (fail)[rt_lane_j_] < 0)   \
        (fail)[rt_lane_j_] = (pivot);                                   \
  } while (0)

#endif
