/* lanes.h -- the rows and velocities of N copies of one mechanism
 * lane-interleaved, for the batch's PGS sweeps (batch_pgs.c, used by
 * batch.c): entry k of copy j at k * N + j, so that one entry of all N
 * copies is N consecutive doubles. Internal to the runtime. */
#ifndef LDLPGS_RT_LANES_INTERNAL_H
#define LDLPGS_RT_LANES_INTERNAL_H

#include <string.h>

#include "world.h"

/* o_i[c] = p_c[i] for i, c < 4 (the o_i do not overlap the p_c): a 4 x 4
 * transpose between four loads and four stores of 4 scalars, with GCC or
 * Clang 8 shuffles (pairs interleaved within each half, then the halves
 * exchanged: unpack, then a 128-bit permute with AVX), elsewhere 16
 * assignments. How N copies' arrays go into and out of the lanes, 4 copies
 * at a time (batch.c's workspaces, batch_pgs.c's rows). */
#if defined(__GNUC__) || defined(__clang__)
#define RT__LANES_INLINE static inline __attribute__((always_inline))
#else
#define RT__LANES_INLINE static inline
#endif
#if (defined(__GNUC__) || defined(__clang__)) && defined(__has_builtin) && !defined(LDLPGS_NO_VECTOR)
#if __has_builtin(__builtin_shufflevector)
#define RT__LANES_SHUFFLE 1
#endif
#endif
/* Without AVX a vector of 4 doubles is two SSE registers, and gcc 12
 * shuffled it through the stack, each 16-byte load after two 8-byte stores
 * (a store-forwarding stall): the copies into and out of the lanes took 40 %
 * of 8 lifts' batch step in the portable build. Doubles there go in halves,
 * four 2 x 2 transposes of pairs. */
#if defined(RT__LANES_SHUFFLE) && !defined(__AVX__)
#define RT__LANES_TRANSPOSE4_PAIRS 1
typedef double rt__v2double __attribute__((vector_size(2 * sizeof(double)), aligned(sizeof(double)), may_alias));
RT__LANES_INLINE void rt__transpose4_double(const double *p0, const double *p1, const double *p2, const double *p3,
                                            double *o0, double *o1, double *o2, double *o3) {
  typedef rt__v2double V;
  const V a0 = *(const V *)p0, a1 = *(const V *)(p0 + 2), b0 = *(const V *)p1, b1 = *(const V *)(p1 + 2);
  const V c0 = *(const V *)p2, c1 = *(const V *)(p2 + 2), d0 = *(const V *)p3, d1 = *(const V *)(p3 + 2);
  *(V *)o0 = __builtin_shufflevector(a0, b0, 0, 2);
  *(V *)(o0 + 2) = __builtin_shufflevector(c0, d0, 0, 2);
  *(V *)o1 = __builtin_shufflevector(a0, b0, 1, 3);
  *(V *)(o1 + 2) = __builtin_shufflevector(c0, d0, 1, 3);
  *(V *)o2 = __builtin_shufflevector(a1, b1, 0, 2);
  *(V *)(o2 + 2) = __builtin_shufflevector(c1, d1, 0, 2);
  *(V *)o3 = __builtin_shufflevector(a1, b1, 1, 3);
  *(V *)(o3 + 2) = __builtin_shufflevector(c1, d1, 1, 3);
}
#endif
#ifdef RT__LANES_SHUFFLE
#define RT__LANES_TRANSPOSE4(T)                                                                                        \
  typedef T rt__v4##T __attribute__((vector_size(4 * sizeof(T)), aligned(sizeof(T)), may_alias));                     \
  RT__LANES_INLINE void rt__transpose4_##T(const T *p0, const T *p1, const T *p2, const T *p3, T *o0, T *o1, T *o2,    \
                                           T *o3) {                                                                    \
    typedef rt__v4##T V;                                                                                               \
    const V a = *(const V *)p0, b = *(const V *)p1, c = *(const V *)p2, d = *(const V *)p3;                            \
    const V t0 = __builtin_shufflevector(a, b, 0, 4, 2, 6), t1 = __builtin_shufflevector(a, b, 1, 5, 3, 7);            \
    const V t2 = __builtin_shufflevector(c, d, 0, 4, 2, 6), t3 = __builtin_shufflevector(c, d, 1, 5, 3, 7);            \
    *(V *)o0 = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);                                                            \
    *(V *)o1 = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);                                                            \
    *(V *)o2 = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);                                                            \
    *(V *)o3 = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);                                                            \
  }
#else
#define RT__LANES_TRANSPOSE4(T)                                                                                        \
  RT__LANES_INLINE void rt__transpose4_##T(const T *p0, const T *p1, const T *p2, const T *p3, T *o0, T *o1, T *o2,    \
                                           T *o3) {                                                                    \
    const T *p[4] = {p0, p1, p2, p3};                                                                                  \
    T *o[4] = {o0, o1, o2, o3}, t[4][4];                                                                               \
    for (int i = 0; i < 4; i++)                                                                                        \
      for (int c = 0; c < 4; c++) t[i][c] = p[c][i];                                                                   \
    for (int i = 0; i < 4; i++) memcpy(o[i], t[i], sizeof t[i]);                                                       \
  }
#endif
#ifndef RT__LANES_TRANSPOSE4_PAIRS
RT__LANES_TRANSPOSE4(double)
#endif
RT__LANES_TRANSPOSE4(float)
#undef RT__LANES_TRANSPOSE4

/* rt__lanes.kind of a row whose copies differ in their normal. */
#define RT__LANES_MIXED (RT__ROW_SOFT - 1)

/* The most lanes a batch has (rt_batch.h). */
#define RT__LANES_MAX 16

/* The arrays of doubles below start at a 64-byte line (world.h's
 * rt__alloc_lines), so that a slot's vector of N doubles never straddles
 * two lines. */
typedef struct rt__lanes {
  int N;             /* lanes: copies */
  int nsbody;        /* solver bodies of the mechanism */
  /* The lanes' rows, "slots": slot s holds row row[s N + j] of copy j, or
   * none (-1: an inert row in that lane). Each copy's rows lie in its
   * lane in their order, so that every lane sweeps its copy's rows as
   * pgs.c does; among the mechanism's rows (equality, joints') slot s
   * holds row s of every copy, and the contacts' rows after them are
   * merged by their bodies (rt__lanes_gather), so that a contact on the
   * same bodies in several copies is one vector row, however the copies'
   * contacts lie in their lists. */
  int cap;           /* the most rows of a copy */
  int slots;         /* the most slots: 2 cap */
  int n;             /* slots swept: [0, n) */
  int from;          /* the slots gathered: [from, n) */
  int *nrow;         /* N: each copy's rows (0 for a copy left out) */
  int *row;          /* slots N: the row of copy j in slot s at s N + j */
  int *slot;         /* N cap: the slot of row i of copy j at j cap + i */
  /* per slot, N lanes (slot s of lane j at s N + j; entry k of J and
   * W J^T at rt__lanes_at(l, s, k) + j): rt__rows's fields, the normal
   * row of a friction row (normal) the slot of that row; a slot without
   * a row in a lane is inert there (inv_diag 0) */
  int *a, *b, *normal;
  size_t side;       /* where J's and W J^T's side b starts: 6 slots N */
  /* rows 0 .. dim: the mechanism's equality rows, on the same bodies in
   * every copy; their J and W J^T packed instead, by the rows' letters
   * (rt_joint_type_def.rows, world.h's row_letter; 'g' where the copies'
   * letters differ): of each side only the entries that can be nonzero
   * (RT__LANES_J* and RT__LANES_W* masks; the others are +-0 in J at every
   * pose, +0 in W J^T), side a's, then side b's, entry k of row i's J at
   * (jat[i] + k) N + j, of its W J^T at (wat[i] + k) N + j */
  int dim;
  unsigned char *letter; /* dim */
  int *jat, *wat;    /* dim + 1 */
  double *eqJ, *eqWJ;
  double *J, *WJ, *rhs, *inv_diag, *lambda, *lo, *hi, *mu, *soft;
  unsigned char *uniform; /* slots: the slot is on the same bodies in every copy */
  int *run_end;      /* slots: the end of the run of slots from s whose
                        bodies are slot s's in lane 0, uniform past s (the
                        sweeps' runs: rt__lanes_gather sets it) */
  int *kind;         /* slots: the slot's normal (its slot) in every copy that
                        has it -- friction on normal row kind[i] >= 0, -1
                        plain, RT__ROW_SOFT -- or RT__LANES_MIXED */
  double *vel;       /* 6 nsbody N: velocity k of solver body s of copy j at
                        (6 s + k) N + j */
} rt__lanes;

/* Where entry k (< 12) of J or W J^T of row i starts in the lanes: side
 * a's six entries of all rows first, then side b's, so that a sweep over
 * rows with a side on the world (a contact on the ground) streams only
 * the lines it reads. */
static inline size_t rt__lanes_at(const rt__lanes *l, int i, int k) {
  return (k < 6 ? 0 : l->side) + (6 * (size_t)i + (size_t)(k % 6)) * (size_t)l->N;
}

/* The entries of one side of an equality row that can be nonzero, by its
 * letter, bit k for entry k (rows.c's wj_side): in J a ball row along x,
 * y or z has one linear entry and the angular ones about the other two
 * axes, an angular row ('a') the angular ones; in W J^T the ball rows
 * have all three angular entries. A general row has all six. */
#define RT__LANES_JX 0x31
#define RT__LANES_JY 0x2a
#define RT__LANES_JZ 0x1c
#define RT__LANES_JA 0x38
#define RT__LANES_WX 0x39
#define RT__LANES_WY 0x3a
#define RT__LANES_WZ 0x3c
#define RT__LANES_WA 0x38

static inline int rt__popcount6(int mask) {
  int n = 0;
  for (int k = 0; k < 6; k++) n += mask >> k & 1;
  return n;
}

/* The J and W J^T masks of letter c. */
static inline void rt__lanes_masks(unsigned char c, int *jmask, int *wmask) {
  switch (c) {
  case 'x': *jmask = RT__LANES_JX, *wmask = RT__LANES_WX; break;
  case 'y': *jmask = RT__LANES_JY, *wmask = RT__LANES_WY; break;
  case 'z': *jmask = RT__LANES_JZ, *wmask = RT__LANES_WZ; break;
  case 'a': *jmask = RT__LANES_JA, *wmask = RT__LANES_WA; break;
  default: *jmask = *wmask = 0x3f; break;
  }
}

/* batch_pgs.c */
/* Allocates for N lanes (4, 8 or 16) of cap rows and nsbody solver
 * bodies, the first dim rows the equality rows with the letters letter
 * (copied): 0, or -1 if out of memory (then rt__lanes_free releases what
 * was allocated). */
int rt__lanes_alloc(rt__lanes *l, int N, int cap, int nsbody, int dim, const unsigned char *letter);
/* The bytes of the lanes' arrays for N lanes of `rows` slots and nsbody
 * solver bodies: what a sweep over them goes through at most (a side on
 * the world in every lane leaves its J and W J^T unread, and the equality
 * rows' are packed). */
size_t rt__lanes_bytes(int N, int rows, int nsbody);
void rt__lanes_free(rt__lanes *l);
/* The rows and the velocities of the copies w[j] with take[j] set into
 * the lanes (the others: no rows), the rows placed into slots [0, n)
 * (rt__lanes) and those of slots first .. n gathered. */
void rt__lanes_gather(rt__lanes *l, rt_world *const *w, const unsigned char *take, int first);
/* The slots before those gathered, from the same copies: then the lanes
 * hold slots 0 .. n (their velocities stay the lanes'). */
void rt__lanes_gather_before(rt__lanes *l, rt_world *const *w);
/* One PGS sweep over the lanes' slots first .. n in the lanes whose act is
 * nonzero (N entries; the others are left alone): in every lane, the
 * operations of pgs.c's sweep of that copy alone, in its order (the same
 * bits). change, if not NULL, gets each lane's rt__pgs_sweep_change. */
void rt__lanes_sweep(rt__lanes *l, int first, const long long *act, double *change);
/* The contact passes' first sweep (step.c's rt__step_contacts_first) in
 * the lanes whose act is nonzero: slots dim .. fixed (the joints' rows
 * outside the block: motors, limits), then, in each lane where those
 * changed no row's velocity by more than tol, the slots from fixed (the
 * contacts) only if some row of them would change by more than the lane's
 * ctol (pgs.c's rt__pgs_rows_settled); each lane's largest change into
 * change, the contacts' times tol / ctol. */
void rt__lanes_first_pass(rt__lanes *l, int dim, int fixed, const long long *act, double tol, const double *ctol,
                          double *change);
/* The impulses, friction bounds and velocities of the copies taken again
 * from them (the slots are those gathered last, from .. n). */
void rt__lanes_refresh(rt__lanes *l, rt_world *const *w, const unsigned char *take);
/* Rows rows[0 .. k) of lane j out of its sweeps (their inverse diagonals
 * 0 in the lanes; the copy's own rows keep theirs), as rt__schur_mask
 * takes them out of a world's. */
void rt__lanes_mask(rt__lanes *l, int j, const int *rows, int k);
/* The block step's right-hand side on the equality rows 0 .. dim (slots
 * 0 .. dim) in every lane: res = rhs - J v, row i of lane j at
 * res[i stride + j] (stride >= N: these lanes within a batch's residual
 * of stride lanes), and each lane's largest |res| in most (N). */
void rt__lanes_residual(const rt__lanes *l, int dim, double *res, int stride, double *most);
/* lambda += delta on rows 0 .. dim and the velocities' response W J^T
 * delta, in the lanes whose act is nonzero; delta laid out as
 * rt__lanes_residual's res. */
void rt__lanes_correct(rt__lanes *l, int dim, const double *delta, int stride, const unsigned char *act);
/* The impulses and friction bounds of the slots gathered (from .. n) and
 * the velocities back to the copies taken. */
void rt__lanes_scatter(const rt__lanes *l, rt_world *const *w, const unsigned char *take);

#endif
