/* batch_pgs_row.h -- one PGS row in all N lanes at once with GCC/Clang
 * vector extensions, included by batch_pgs.c once per lane count with
 * LN (4, 8 or 16) defined; it defines sweep_LN. Every lane does pgs.c's
 * sweep_row on its copy (batch_pgs.c says how the bits stay the same). */
#define LN_CAT2(a, b) a##b
#define LN_CAT(a, b) LN_CAT2(a, b)
#define VD LN_CAT(vd, LN)
#define VM LN_CAT(vm, LN)
#define VI LN_CAT(vi, LN)

typedef double VD __attribute__((vector_size(LN * sizeof(double)), aligned(sizeof(double)), may_alias));
typedef long long VM __attribute__((vector_size(LN * sizeof(long long))));
typedef int VI __attribute__((vector_size(LN * sizeof(int)), aligned(sizeof(int)), may_alias));

/* Where m is set, a; elsewhere b (bit for bit). A macro: a vector
 * argument wider than the target's registers changes the calling
 * convention (-Wpsabi), as in rt_lanes.h. */
#define BLEND(m, a, b) ((VD)(((VM)(a) & (m)) | ((VM)(b) & ~(m))))

/* Row i in the lanes of act whose sides are bodies a and b (each side
 * RT_WORLD or the same body in all of them): pgs.c's sweep_row in each,
 * the velocities loaded and stored as whole vectors (a side on the world
 * skipped), the other lanes left as they were; with measure, each lane's
 * change into *change (the most so far). */
static inline __attribute__((always_inline)) void LN_CAT(row_, LN)(rt__lanes *l, double *restrict v, int i, int a,
                                                                  int b, const VM *act, VD *change, int measure) {
  const size_t r = (size_t)i * LN;
  const size_t sa = rt__lanes_at(l, i, 0), sb = rt__lanes_at(l, i, 6);
  const VD *Ja = (const VD *)(l->J + sa), *Jb = (const VD *)(l->J + sb);
  const VD *WJa = (const VD *)(l->WJ + sa), *WJb = (const VD *)(l->WJ + sb);
  /* entry k of lane j of body s at v[6 s LN + k LN + j] */
  const size_t ia = 6 * (size_t)(a != RT_WORLD ? a : 0) * LN, ib = 6 * (size_t)(b != RT_WORLD ? b : 0) * LN;
  VD jv = {0};
  if (a != RT_WORLD)
    for (int k = 0; k < 6; k++) jv = jv + Ja[k] * *(const VD *)(v + ia + (size_t)k * LN);
  if (b != RT_WORLD)
    for (int k = 0; k < 6; k++) jv = jv + Jb[k] * *(const VD *)(v + ib + (size_t)k * LN);
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
  /* side a, then side b from memory: the same body on both sides takes
   * side b's change on top of side a's */
  if (a != RT_WORLD)
    for (int k = 0; k < 6; k++) {
      VD *p = (VD *)(v + ia + (size_t)k * LN);
      *p = BLEND(on, *p + WJa[k] * dl, *p);
    }
  if (b != RT_WORLD)
    for (int k = 0; k < 6; k++) {
      VD *p = (VD *)(v + ib + (size_t)k * LN);
      *p = BLEND(on, *p + WJb[k] * dl, *p);
    }
}

/* A row on the same bodies in every lane (the mechanism's rows, and a
 * contact on the same bodies in every copy) is one vector row. A row whose
 * bodies differ between lanes (a contact) is one vector row for each pair
 * of bodies among its lanes, in the lanes on that pair; the lanes of a row
 * touch only their own lanes of the velocities, so the order of the pairs
 * changes no bit. (Lane by lane instead, each lane's row alone with its
 * entries a line apart, the sample tank's batch of 8 spent 18 % of its
 * step there, on 4 % of its rows: every such row had two pairs.) */
static void LN_CAT(sweep_, LN)(rt__lanes *lanes, int first, const long long *act_, double *change_) {
  /* the arrays' pointers in a local copy, which no store of the rows can
   * change: else each row loads them again after its stores */
  rt__lanes copy = *lanes, *l = &copy;
  double *restrict v = l->vel;
  VM act;
  VD change = {0};
  memcpy(&act, act_, sizeof act);
  const int measure = change_ != NULL;
  for (int i = first; i < l->n; i++) {
    const size_t r = (size_t)i * LN;
    if (l->uniform[i]) {
      LN_CAT(row_, LN)(l, v, i, l->a[r], l->b[r], &act, &change, measure);
      continue;
    }
    /* the lanes left: active, and a row that is not inert */
    const VM live = act & (*(const VD *)(l->inv_diag + r) != 0.0);
    unsigned left = 0;
    for (int j = 0; j < LN; j++)
      if (act_[j] && l->inv_diag[r + (size_t)j] != 0.0) left |= 1u << j;
    const VI as = *(const VI *)(l->a + r), bs = *(const VI *)(l->b + r);
    while (left != 0) {
      const int j0 = __builtin_ctz(left), a = l->a[r + (size_t)j0], b = l->b[r + (size_t)j0];
      const VM pair = __builtin_convertvector((as == (VI){0} + a) & (bs == (VI){0} + b), VM) & live;
      for (int j = 0; j < LN; j++)
        if (l->a[r + (size_t)j] == a && l->b[r + (size_t)j] == b) left &= ~(1u << j);
      LN_CAT(row_, LN)(l, v, i, a, b, &pair, &change, measure);
    }
  }
  if (measure) memcpy(change_, &change, sizeof change);
}

/* batch_pgs.c's rt__lanes_residual in vectors (the equality rows are on
 * the same bodies in every lane). */
static void LN_CAT(residual_, LN)(const rt__lanes *l, int dim, double *res, double *most_) {
  VD most = {0};
  for (int i = 0; i < dim; i++) {
    const size_t r = (size_t)i * LN;
    const int a = l->a[r], b = l->b[r];
    const VD *Ja = (const VD *)(l->J + rt__lanes_at(l, i, 0)), *Jb = (const VD *)(l->J + rt__lanes_at(l, i, 6));
    VD s = {0};
    if (a != RT_WORLD) {
      const VD *va = (const VD *)(l->vel + 6 * (size_t)a * LN);
      for (int k = 0; k < 6; k++) s = s + Ja[k] * va[k];
    }
    if (b != RT_WORLD) {
      const VD *vb = (const VD *)(l->vel + 6 * (size_t)b * LN);
      for (int k = 0; k < 6; k++) s = s + Jb[k] * vb[k];
    }
    const VD x = *(const VD *)(l->rhs + r) - s;
    *(VD *)(res + r) = x;
    const VD m = (VD)((VM)x & ((VM){0} + 0x7fffffffffffffffLL));
    most = BLEND(m > most, m, most);
  }
  memcpy(most_, &most, sizeof most);
}

/* batch_pgs.c's rt__lanes_correct in vectors. */
static void LN_CAT(correct_, LN)(rt__lanes *l, int dim, const double *delta, const unsigned char *act_) {
  long long t[LN];
  for (int j = 0; j < LN; j++) t[j] = act_[j] ? -1 : 0;
  VM act;
  memcpy(&act, t, sizeof act);
  for (int i = 0; i < dim; i++) {
    const size_t r = (size_t)i * LN;
    const int a = l->a[r], b = l->b[r];
    const VD *WJa = (const VD *)(l->WJ + rt__lanes_at(l, i, 0)), *WJb = (const VD *)(l->WJ + rt__lanes_at(l, i, 6));
    const VD d = *(const VD *)(delta + r);
    VD *lam = (VD *)(l->lambda + r);
    *lam = BLEND(act, *lam + d, *lam);
    const VM m = act & (d != 0.0);
    if (a != RT_WORLD) {
      VD *va = (VD *)(l->vel + 6 * (size_t)a * LN);
      for (int k = 0; k < 6; k++) va[k] = BLEND(m, va[k] + WJa[k] * d, va[k]);
    }
    if (b != RT_WORLD) {
      VD *vb = (VD *)(l->vel + 6 * (size_t)b * LN);
      for (int k = 0; k < 6; k++) vb[k] = BLEND(m, vb[k] + WJb[k] * d, vb[k]);
    }
  }
}

#undef BLEND
#undef VD
#undef VM
#undef VI
#undef LN_CAT
#undef LN_CAT2
