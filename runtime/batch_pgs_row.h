/* batch_pgs_row.h -- one PGS row in all N lanes at once with GCC/Clang
 * vector extensions, included by batch_pgs.c once per lane count with
 * LN (4, 8 or 16) defined; it defines sweep_LN. Every lane does pgs.c's
 * sweep_row on its copy (batch_pgs.c says how the bits stay the same). */
#define LN_CAT2(a, b) a##b
#define LN_CAT(a, b) LN_CAT2(a, b)
#define VD LN_CAT(vd, LN)
#define VM LN_CAT(vm, LN)

typedef double VD __attribute__((vector_size(LN * sizeof(double)), aligned(sizeof(double)), may_alias));
typedef long long VM __attribute__((vector_size(LN * sizeof(long long))));

/* Where m is set, a; elsewhere b (bit for bit). A macro: a vector
 * argument wider than the target's registers changes the calling
 * convention (-Wpsabi), as in rt_lanes.h. Written with the masks, gcc
 * gives AVX2 three instructions (b ^ ((a ^ b) & m)) and AVX-512 one
 * (vpternlogq); AVX2's one, vblendvpd, takes each lane's sign bit of m,
 * which a comparison's all-ones or all-zeros sets or clears alike. */
#if defined(__AVX__) && !defined(__AVX512VL__) && LN == 4
#define BLEND(m, a, b) ((VD)__builtin_ia32_blendvpd256((VD)(b), (VD)(a), (VD)(m)))
#else
#define BLEND(m, a, b) ((VD)(((VM)(a) & (m)) | ((VM)(b) & ~(m))))
#endif

/* DO(jmask, wmask) with the masks of equality row letter c (constants). */
#define BY_LETTER(c, DO)                                                                                               \
  switch (c) {                                                                                                         \
  case 'x': DO(RT__LANES_JX, RT__LANES_WX); break;                                                                     \
  case 'y': DO(RT__LANES_JY, RT__LANES_WY); break;                                                                     \
  case 'z': DO(RT__LANES_JZ, RT__LANES_WZ); break;                                                                     \
  case 'a': DO(RT__LANES_JA, RT__LANES_WA); break;                                                                     \
  default: DO(0x3f, 0x3f); break;                                                                                      \
  }

/* A body's six velocity vectors vb += W d in the lanes of m, W one side's
 * W J^T: its entries of wmask one after another, each other entry +0,
 * whose product 0.0 d is added as the scalar step adds it (-0.0 + 0.0 is
 * +0.0). */
static inline __attribute__((always_inline)) void LN_CAT(add_side_, LN)(VD *vb, const VD *W, const VD *d, const VM *m,
                                                                       const int wmask) {
  const VD zero_d = (VD){0} * *d;
  for (int k = 0, e = 0; k < 6; k++) {
    VD add = zero_d;
    if (wmask >> k & 1) add = W[e++] * *d;
    vb[k] = BLEND(*m, vb[k] + add, vb[k]);
  }
}

/* *s = J v of a row whose sides' velocities are va and vb in every lane
 * (NULL: the world), J's entries of jmask for each side one after another
 * (side a's at Ja, side b's at Jb), side a's products added one by one
 * from +0, then side b's (a side on the world skipped): pgs.c's J v, by
 * the row's letter for a packed equality row (rt__pgs_residual). */
static inline __attribute__((always_inline)) void LN_CAT(dot_, LN)(const VD *Ja, const VD *Jb, const VD *va,
                                                                  const VD *vb, const int jmask, VD *s) {
  VD sum = {0};
  if (va != NULL)
    for (int k = 0, m = 0; k < 6; k++)
      if (jmask >> k & 1) sum = sum + Ja[m++] * va[k];
  if (vb != NULL)
    for (int k = 0, m = 0; k < 6; k++)
      if (jmask >> k & 1) sum = sum + Jb[m++] * vb[k];
  *s = sum;
}

/* The velocities va and vb (NULL: the world) += W J^T d of a row in every
 * lane, in the lanes of m: side a (W J^T at WJa), then side b, so that one
 * body on both sides (va == vb) takes side b's change on top of side a's
 * (pgs.c's rt__pgs_apply). */
static inline __attribute__((always_inline)) void LN_CAT(apply_, LN)(const VD *WJa, const VD *WJb, VD *va, VD *vb,
                                                                    const VD *d, const VM *m, const int wmask) {
  if (va != NULL) LN_CAT(add_side_, LN)(va, WJa, d, m, wmask);
  if (vb != NULL) LN_CAT(add_side_, LN)(vb, WJb, d, m, wmask);
}

/* Body a's six velocity vectors in the lanes' velocities v, or NULL for
 * the world. */
static inline VD *LN_CAT(body_, LN)(double *v, int a) { return a == RT_WORLD ? NULL : (VD *)(v + 6 * (size_t)a * LN); }

/* DO(va, vb) over a run of rows on sides pa and pb (NULL: the world),
 * their velocities in registers from its first row to its last, as
 * pgs.c's general_run (in memory, each row's J v would wait for the
 * previous row's stores); stored back after it if store. One body on both
 * sides stays in memory, its two sides one. */
#define WITH_SIDES(pa, pb, store, DO)                                                                                  \
  do {                                                                                                                 \
    VD ra_[6], rb_[6];                                                                                                 \
    if ((pa) != NULL && (pa) == (pb)) {                                                                                \
      DO((pa), (pb));                                                                                                  \
    } else if ((pa) != NULL && (pb) != NULL) {                                                                         \
      memcpy(ra_, (pa), sizeof ra_);                                                                                   \
      memcpy(rb_, (pb), sizeof rb_);                                                                                   \
      DO(ra_, rb_);                                                                                                    \
      if (store) memcpy((pa), ra_, sizeof ra_), memcpy((pb), rb_, sizeof rb_);                                         \
    } else if ((pa) != NULL) {                                                                                         \
      memcpy(ra_, (pa), sizeof ra_);                                                                                   \
      DO(ra_, (VD *)NULL);                                                                                             \
      if (store) memcpy((pa), ra_, sizeof ra_);                                                                        \
    } else if ((pb) != NULL) {                                                                                         \
      memcpy(rb_, (pb), sizeof rb_);                                                                                   \
      DO((VD *)NULL, rb_);                                                                                             \
      if (store) memcpy((pb), rb_, sizeof rb_);                                                                        \
    } else {                                                                                                           \
      DO((VD *)NULL, (VD *)NULL);                                                                                      \
    }                                                                                                                  \
  } while (0)

/* The end of the run of rows from s on the same bodies in every lane
 * (uniform slots, below n), on the bodies of row s. */
static inline int LN_CAT(run_end_, LN)(const rt__lanes *l, int s, int n) {
  const int e = l->run_end[s];
  return e < n ? e : n;
}

/* Row i's impulse in the lanes of act from its J v, jv: pgs.c's sweep_row
 * between J v and the velocities' update -- the impulse, the friction
 * bounds from the normal row's, the soft term, the clamp -- into lambda;
 * its change into *dl_out, the lanes that swept it into *on_out, and with
 * measure each lane's change into *change. */
static inline __attribute__((always_inline)) void LN_CAT(impulse_, LN)(rt__lanes *l, int i, const VD *jv_,
                                                                      const VM *act, VD *change, int measure,
                                                                      VD *dl_out, VM *on_out) {
  const size_t r = (size_t)i * LN;
  const VD jv = *jv_;
  VD *lam = (VD *)(l->lambda + r), *lo = (VD *)(l->lo + r), *hi = (VD *)(l->hi + r);
  const VD id = *(const VD *)(l->inv_diag + r), old = *lam;
  const VM on = (id != 0.0) & *act;
  VD x = old + (*(const VD *)(l->rhs + r) - jv) * id;
  const int kind = l->kind[i];
  if (kind >= 0) { /* friction in every lane, its normal at row kind: the bounds from its impulse */
    const VD fhi = *(const VD *)(l->mu + r) * *(const VD *)(l->lambda + (size_t)kind * LN);
    *hi = BLEND(on, fhi, *hi);
    *lo = BLEND(on, -fhi, *lo);
  } else if (kind == RT__ROW_SOFT) {
    x = x - *(const VD *)(l->soft + r) * old * id;
  } else if (kind == RT__LANES_MIXED) { /* friction, soft or plain, lane by lane */
    double tn[LN];
    long long fr_[LN], so_[LN];
    for (int j = 0; j < LN; j++) {
      const int nr = l->normal[r + j];
      fr_[j] = nr >= 0 ? -1 : 0;
      so_[j] = nr == RT__ROW_SOFT ? -1 : 0;
      tn[j] = l->lambda[(size_t)(nr >= 0 ? nr : i) * LN + (size_t)j];
    }
    VM fr, so;
    VD ln;
    memcpy(&fr, fr_, sizeof fr);
    memcpy(&so, so_, sizeof so);
    memcpy(&ln, tn, sizeof ln);
    const VD fhi = *(const VD *)(l->mu + r) * ln;
    *hi = BLEND(fr & on, fhi, *hi);
    *lo = BLEND(fr & on, -fhi, *lo);
    x = BLEND(so, x - *(const VD *)(l->soft + r) * old * id, x);
  }
  x = BLEND(x < *lo, *lo, x);
  x = BLEND(x > *hi, *hi, x);
  x = BLEND(on, x, old);
  *lam = x;
  const VD dl = x - old;
  if (measure) { /* |dl| / id in the lanes that swept the row */
    const VM magnitude = (VM){0} + 0x7fffffffffffffffLL; /* fabs: the sign bit cleared */
    const VD c = BLEND(on, (VD)((VM)dl & magnitude) / id, (VD){0});
    *change = BLEND(c > *change, c, *change);
  }
  *dl_out = dl;
  *on_out = on;
}

/* Row i in the lanes of act whose sides' velocities are va and vb (each
 * NULL on the world, or the same body in all of them): pgs.c's sweep_row
 * in each, the velocities updated as whole vectors, the other lanes left
 * as they were; with measure, each lane's change into *change (the most
 * so far). Its J and W J^T: side a's at Ja
 * and WJa, side b's at Jb and WJb, each side's entries k with bit k of
 * jmask (wmask) set, one after another (all six: the rows' layout, a
 * constant mask: an equality row packed by its letter, batch_pgs.c). An
 * entry of J left out is +-0, and its product left out of J v changes no
 * bit of a sum from +0; an entry of W J^T left out is +0, and its product
 * with dl is added as 0.0 * dl (the same bits: -0.0 + 0.0 is +0.0). */
static inline __attribute__((always_inline)) void LN_CAT(row_, LN)(rt__lanes *l, int i, VD *va, VD *vb,
                                                                  const VD *Ja, const VD *Jb, const VD *WJa,
                                                                  const VD *WJb, const int jmask, const int wmask,
                                                                  const VM *act, VD *change, int measure) {
  VD jv, dl;
  VM on;
  LN_CAT(dot_, LN)(Ja, Jb, va, vb, jmask, &jv);
  LN_CAT(impulse_, LN)(l, i, &jv, act, change, measure, &dl, &on);
  LN_CAT(apply_, LN)(WJa, WJb, va, vb, &dl, &on, wmask);
}

/* Row i in the rows' layout (lanes.h). */
static inline __attribute__((always_inline)) void LN_CAT(full_row_, LN)(rt__lanes *l, int i, VD *va, VD *vb,
                                                                       const VM *act, VD *change, int measure) {
  const VD *J = (const VD *)l->J, *WJ = (const VD *)l->WJ;
  const size_t sa = rt__lanes_at(l, i, 0) / LN, sb = rt__lanes_at(l, i, 6) / LN;
  LN_CAT(row_, LN)(l, i, va, vb, J + sa, J + sb, WJ + sa, WJ + sb, 0x3f, 0x3f, act, change, measure);
}

/* Equality row i (i < l->dim), packed by its letter (batch_pgs.c): each
 * letter's masks constant, so that each loop unrolls to its entries. */
static inline __attribute__((always_inline)) void LN_CAT(packed_row_, LN)(rt__lanes *l, int i, VD *va, VD *vb,
                                                                         const VM *act, VD *change, int measure) {
  const VD *J = (const VD *)l->eqJ + l->jat[i], *WJ = (const VD *)l->eqWJ + l->wat[i];
#define LN_PACKED(JM, WM)                                                                                              \
  LN_CAT(row_, LN)(l, i, va, vb, J, J + rt__popcount6(JM), WJ, WJ + rt__popcount6(WM), JM, WM, act, change, measure)
  BY_LETTER(l->letter[i], LN_PACKED)
#undef LN_PACKED
}

/* The sides of the row at r (its slot times LN) in each lane: at[t][j],
 * the first entry of side t's velocities in lane j of v (-1 on the world),
 * body[t] the lanes whose side t is a body, and each lane's velocities
 * gathered into vs[t] (0.0 on the world); returns bit t set where side t
 * is a body in some lane. */
static inline __attribute__((always_inline)) int LN_CAT(gather_sides_, LN)(const rt__lanes *l, const double *v,
                                                                          size_t r, long long at[2][LN], VM body[2],
                                                                          VD vs[2][6]) {
  int sides = 0;
  body[0] = body[1] = (VM){0};
  for (int j = 0; j < LN; j++) {
    const int a = l->a[r + (size_t)j], b = l->b[r + (size_t)j];
    at[0][j] = a != RT_WORLD ? 6 * (long long)a * LN + j : -1;
    at[1][j] = b != RT_WORLD ? 6 * (long long)b * LN + j : -1;
    body[0][j] = a != RT_WORLD ? -1 : 0;
    body[1][j] = b != RT_WORLD ? -1 : 0;
    sides |= (a != RT_WORLD) | (b != RT_WORLD) << 1;
  }
  for (int t = 0; t < 2; t++)
    for (int k = 0; k < 6; k++)
      for (int j = 0; j < LN; j++) vs[t][k][j] = at[t][j] >= 0 ? v[at[t][j] + (long long)k * LN] : 0.0;
  return sides;
}

/* Row i whose bodies differ between its lanes (contacts of copies on
 * other bodies), a lane of it with one body on both sides (the others take
 * gathered_run_, below), one vector row: each lane's velocities gathered
 * from its own bodies (0.0 for a side on the world, whose products then
 * add +-0 to a sum from +0: no bit changes), the impulse in vectors, the
 * velocities stored lane by lane where the lane swept the row and its side
 * is a body; side b gathered after side a's stores, for a lane with one
 * body on both sides. The lanes of a row touch only their own lanes of the
 * velocities. (One vector row for each pair of bodies among the lanes
 * instead, the sample tank's batch of 8 copies, once its copies' tracks
 * met the ground at other links, stepped 0.7x as fast as 8 scalar steps.) */
static inline __attribute__((always_inline)) void LN_CAT(gathered_row_, LN)(rt__lanes *l, double *restrict v, int i,
                                                                           const VM *act, VD *change, int measure) {
  const VD *Ja = (const VD *)(l->J + rt__lanes_at(l, i, 0)), *Jb = (const VD *)(l->J + rt__lanes_at(l, i, 6));
  const VD *WJa = (const VD *)(l->WJ + rt__lanes_at(l, i, 0)), *WJb = (const VD *)(l->WJ + rt__lanes_at(l, i, 6));
  long long at[2][LN];
  VM body[2];
  VD vs[2][6];
  const int sides = LN_CAT(gather_sides_, LN)(l, v, (size_t)i * LN, at, body, vs);
  VD jv, dl;
  VM on;
  LN_CAT(dot_, LN)(Ja, Jb, sides & 1 ? vs[0] : NULL, sides & 2 ? vs[1] : NULL, 0x3f, &jv);
  LN_CAT(impulse_, LN)(l, i, &jv, act, change, measure, &dl, &on);
  for (int s = 0; s < 2; s++) {
    if (!(sides >> s & 1)) continue;
    const VD *WJ = s ? WJb : WJa;
    for (int k = 0; k < 6; k++) {
      VD x = vs[0][k];
      if (s) /* after side a's stores */
        for (int j = 0; j < LN; j++) x[j] = at[1][j] >= 0 ? v[at[1][j] + (long long)k * LN] : 0.0;
      x = x + WJ[k] * dl;
      for (int j = 0; j < LN; j++)
        if (on[j] && at[s][j] >= 0) v[at[s][j] + (long long)k * LN] = x[j];
    }
  }
}

/* The end of the run of rows from s whose bodies differ between lanes
 * (a contact's normal and friction rows in each copy), each lane on row
 * s's bodies in every row of the run; or -1 if a lane of row s has one
 * body on both sides (gathered_row_ takes it). */
static inline int LN_CAT(gathered_end_, LN)(const rt__lanes *l, int s, int n) {
  const int *a = l->a + (size_t)s * LN, *b = l->b + (size_t)s * LN;
  for (int j = 0; j < LN; j++)
    if (a[j] != RT_WORLD && a[j] == b[j]) return -1;
  int e = s + 1;
  while (e < n && !l->uniform[e] && memcmp(l->a + (size_t)e * LN, a, LN * sizeof *a) == 0 &&
         memcmp(l->b + (size_t)e * LN, b, LN * sizeof *b) == 0)
    e++;
  return e;
}

/* Rows s .. e whose bodies differ between lanes, each lane on the same
 * two bodies (or the world) in all of them, not one body on both sides:
 * each lane's velocities gathered once (0.0 on the world, as
 * gathered_row_), the rows swept on them in vectors, stored back lane by
 * lane once (a lane that swept none of them stores what it gathered). A
 * contact's three rows in the tank's drifted copies gathered and stored
 * their velocities three times. */
static inline __attribute__((always_inline)) void LN_CAT(gathered_run_, LN)(rt__lanes *l, double *restrict v, int s,
                                                                           int e, const VM *act, VD *change,
                                                                           int measure) {
  long long at[2][LN];
  VM body[2];
  VD vs[2][6];
  const int sides = LN_CAT(gather_sides_, LN)(l, v, (size_t)s * LN, at, body, vs);
  VD *va = sides & 1 ? vs[0] : NULL, *vb = sides & 2 ? vs[1] : NULL;
  for (int i = s; i < e; i++) {
    const VD *J = (const VD *)l->J, *WJ = (const VD *)l->WJ;
    const size_t sa = rt__lanes_at(l, i, 0) / LN, sb = rt__lanes_at(l, i, 6) / LN;
    VD jv, dl;
    VM on;
    LN_CAT(dot_, LN)(J + sa, J + sb, va, vb, 0x3f, &jv);
    LN_CAT(impulse_, LN)(l, i, &jv, act, change, measure, &dl, &on);
    /* a side on the world keeps its 0.0 for the run's next rows */
    const VM ma = on & body[0], mb = on & body[1];
    if (va != NULL) LN_CAT(add_side_, LN)(va, WJ + sa, &dl, &ma, 0x3f);
    if (vb != NULL) LN_CAT(add_side_, LN)(vb, WJ + sb, &dl, &mb, 0x3f);
  }
  for (int t = 0; t < 2; t++)
    for (int k = 0; k < 6; k++)
      for (int j = 0; j < LN; j++)
        if (at[t][j] >= 0) v[at[t][j] + (long long)k * LN] = vs[t][k][j];
}

/* Whether the rows from s (below n) begin a run of contacts with the
 * ground on the same body in every lane: side a a body, side b the world. */
static inline int LN_CAT(on_ground_, LN)(const rt__lanes *l, int s, int n) {
  return s >= l->dim && s < n && l->uniform[s] && l->a[(size_t)s * LN] != RT_WORLD &&
         l->b[(size_t)s * LN] == RT_WORLD;
}

/* Rows s .. e, contacts of one body with the ground, and rows e .. f, of
 * another body, row by row in turn, each run's velocities in registers:
 * two dependency chains at once. Neither run touches the other's body (a
 * friction row's normal is on its own body), so each lane's rows of each
 * body go in their order, and the bits are those of one run after the
 * other. */
static inline __attribute__((always_inline)) void LN_CAT(ground_pair_, LN)(rt__lanes *l, double *v, int s, int e,
                                                                          int f, const VM *act, VD *change,
                                                                          int measure) {
  int t = e;
  VD *pa = LN_CAT(body_, LN)(v, l->a[(size_t)s * LN]), *pc = LN_CAT(body_, LN)(v, l->a[(size_t)t * LN]);
  VD ra[6], rc[6];
  memcpy(ra, pa, sizeof ra);
  memcpy(rc, pc, sizeof rc);
  while (s < e || t < f) {
    if (s < e) LN_CAT(full_row_, LN)(l, s++, ra, (VD *)NULL, act, change, measure);
    if (t < f) LN_CAT(full_row_, LN)(l, t++, rc, (VD *)NULL, act, change, measure);
  }
  memcpy(pa, ra, sizeof ra);
  memcpy(pc, rc, sizeof rc);
}

/* A row on the same bodies in every lane (the mechanism's rows, and a
 * contact on the same bodies in every copy) is one vector row, a run of
 * them on the same bodies one load and store of their velocities; a row
 * whose bodies differ between lanes, one gathered row, a run of them one
 * gather and store. */
static void LN_CAT(sweep_, LN)(rt__lanes *lanes, int first, int last, const long long *act_, double *change_) {
  /* the arrays' pointers in a local copy, which no store of the rows can
   * change: else each row loads them again after its stores */
  rt__lanes copy = *lanes, *l = &copy;
  double *restrict v = l->vel;
  VM act;
  VD change = {0};
  memcpy(&act, act_, sizeof act);
  const int measure = change_ != NULL;
  for (int i = first; i < last;) {
    if (!l->uniform[i]) {
      const int e = LN_CAT(gathered_end_, LN)(l, i, last);
      if (e < 0)
        LN_CAT(gathered_row_, LN)(l, v, i++, &act, &change, measure);
      else
        LN_CAT(gathered_run_, LN)(l, v, i, e, &act, &change, measure), i = e;
      continue;
    }
    const int e = LN_CAT(run_end_, LN)(l, i, last);
    if (LN_CAT(on_ground_, LN)(l, i, last) && LN_CAT(on_ground_, LN)(l, e, last)) { /* e: another body */
      const int f = LN_CAT(run_end_, LN)(l, e, last);
      LN_CAT(ground_pair_, LN)(l, v, i, e, f, &act, &change, measure);
      i = f;
      continue;
    }
    VD *pa = LN_CAT(body_, LN)(v, l->a[(size_t)i * LN]), *pb = LN_CAT(body_, LN)(v, l->b[(size_t)i * LN]);
#define LN_ROWS(va, vb)                                                                                                \
  for (; i < e; i++)                                                                                                   \
    if (i < l->dim)                                                                                                    \
      LN_CAT(packed_row_, LN)(l, i, va, vb, &act, &change, measure);                                                   \
    else                                                                                                               \
      LN_CAT(full_row_, LN)(l, i, va, vb, &act, &change, measure);
    WITH_SIDES(pa, pb, 1, LN_ROWS);
#undef LN_ROWS
  }
  if (measure) memcpy(change_, &change, sizeof change);
}

/* DO(va, vb) over each run of rows i .. e of the equality rows (0 .. dim,
 * on the same bodies in every lane) on the same bodies, their velocities
 * in registers (WITH_SIDES). */
#define EQUALITY_RUNS(store, DO)                                                                                       \
  for (int i = 0; i < dim;) {                                                                                          \
    const int e = LN_CAT(run_end_, LN)(l, i, dim);                                                                     \
    VD *pa = LN_CAT(body_, LN)(l->vel, l->a[(size_t)i * LN]), *pb = LN_CAT(body_, LN)(l->vel, l->b[(size_t)i * LN]); \
    WITH_SIDES(pa, pb, store, DO);                                                                                     \
  }

/* batch_pgs.c's rt__lanes_residual in vectors, run by run. */
static void LN_CAT(residual_, LN)(const rt__lanes *l, int dim, double *res, size_t stride, double *most_) {
  VD most = {0};
#define LN_ROWS(va, vb)                                                                                                \
  for (VD *va_ = (va), *vb_ = (vb); i < e; i++) {                                                                     \
    const size_t r = (size_t)i * LN;                                                                                   \
    const VD *J = (const VD *)l->eqJ + l->jat[i];                                                                      \
    VD s;                                                                                                              \
    BY_LETTER(l->letter[i], LN_DOT)                                                                                    \
    const VD x = *(const VD *)(l->rhs + r) - s;                                                                        \
    *(VD *)(res + (size_t)i * stride) = x;                                                                             \
    const VD m = (VD)((VM)x & ((VM){0} + 0x7fffffffffffffffLL));                                                       \
    most = BLEND(m > most, m, most);                                                                                   \
  }
#define LN_DOT(JM, WM) LN_CAT(dot_, LN)(J, J + rt__popcount6(JM), va_, vb_, JM, &s)
  EQUALITY_RUNS(0, LN_ROWS)
#undef LN_DOT
#undef LN_ROWS
  memcpy(most_, &most, sizeof most);
}

/* batch_pgs.c's rt__lanes_correct in vectors, run by run. */
static void LN_CAT(correct_, LN)(rt__lanes *l, int dim, const double *delta, size_t stride,
                                 const unsigned char *act_) {
  long long t[LN];
  for (int j = 0; j < LN; j++) t[j] = act_[j] ? -1 : 0;
  VM act;
  memcpy(&act, t, sizeof act);
#define LN_ROWS(va, vb)                                                                                                \
  for (VD *va_ = (va), *vb_ = (vb); i < e; i++) {                                                                     \
    const size_t r = (size_t)i * LN;                                                                                   \
    const VD *WJ = (const VD *)l->eqWJ + l->wat[i];                                                                    \
    const VD d = *(const VD *)(delta + (size_t)i * stride);                                                             \
    VD *lam = (VD *)(l->lambda + r);                                                                                   \
    *lam = BLEND(act, *lam + d, *lam);                                                                                 \
    const VM m = act & (d != 0.0);                                                                                     \
    BY_LETTER(l->letter[i], LN_APPLY)                                                                                  \
  }
#define LN_APPLY(JM, WM) LN_CAT(apply_, LN)(WJ, WJ + rt__popcount6(WM), va_, vb_, &d, &m, WM)
  EQUALITY_RUNS(1, LN_ROWS)
#undef LN_APPLY
#undef LN_ROWS
}

#undef BLEND
#undef WITH_SIDES
#undef EQUALITY_RUNS
#undef BY_LETTER
#undef VD
#undef VM
#undef LN_CAT
#undef LN_CAT2
