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
 * convention (-Wpsabi), as in rt_lanes.h. */
#define BLEND(m, a, b) ((VD)(((VM)(a) & (m)) | ((VM)(b) & ~(m))))

/* A row on the same bodies in every lane (the mechanism's rows, and a
 * contact on the same bodies in every copy) loads and stores its
 * velocities as whole vectors; a row whose bodies differ between lanes (a
 * contact) goes lane by lane (lane_row), in its place in each lane's
 * order, the same bits. Its velocities gathered into vectors, the vector
 * operations and the scatter back cost more than the lanes' rows one by
 * one: the sample tank's batch of 8 (over 4 steps, 23,760 lane-rows lane
 * by lane beside 111,594 rows in vectors), 6.60 M -> 6.21 M instructions
 * per copy-step (AVX2 build under callgrind; its copies stepped alone:
 * 6.16 M); with AVX-512, 5,381 -> 5,318 us per step of the 8 copies (make
 * bench-batch's tank row, within its noise). */
static void LN_CAT(sweep_, LN)(rt__lanes *l, int first, const long long *act_, double *change_) {
  double *restrict v = l->vel;
  VM act;
  VD change = {0};
  memcpy(&act, act_, sizeof act);
  for (int i = first; i < l->n; i++) {
    const size_t r = (size_t)i * LN;
    if (!l->uniform[i]) {
      double c[LN] = {0};
      for (int j = 0; j < LN; j++)
        if (act_[j]) c[j] = lane_row(l, v, i, j);
      VD cv;
      memcpy(&cv, c, sizeof cv);
      change = BLEND(cv > change, cv, change);
      continue;
    }
    const VD *J = (const VD *)(l->J + 12 * r), *WJ = (const VD *)(l->WJ + 12 * r);
    /* the sides' velocities: entry k of lane j at v[ia + k LN + j]; a side
     * on the world is skipped */
    const int a = l->a[r], b = l->b[r];
    const size_t ia = 6 * (size_t)(a != RT_WORLD ? a : 0) * LN, ib = 6 * (size_t)(b != RT_WORLD ? b : 0) * LN;
    VD jv = {0};
    if (a != RT_WORLD)
      for (int k = 0; k < 6; k++) jv = jv + J[k] * *(const VD *)(v + ia + (size_t)k * LN);
    if (b != RT_WORLD)
      for (int k = 0; k < 6; k++) jv = jv + J[6 + k] * *(const VD *)(v + ib + (size_t)k * LN);
    VD *lam = (VD *)(l->lambda + r), *lo = (VD *)(l->lo + r), *hi = (VD *)(l->hi + r);
    const VD id = *(const VD *)(l->inv_diag + r), old = *lam;
    const VM on = (id != 0.0) & act;
    VD x = old + (*(const VD *)(l->rhs + r) - jv) * id;
    if (l->special[i]) { /* a friction or soft row in some lane */
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
    if (change_ != NULL) { /* |dl| / id in the lanes that swept the row */
      const VM magnitude = (VM){0} + 0x7fffffffffffffffLL; /* fabs: the sign bit cleared */
      const VD c = BLEND(on, (VD)((VM)dl & magnitude) / id, (VD){0});
      change = BLEND(c > change, c, change);
    }
    /* side a, then side b from memory: the same body on both sides takes
     * side b's change on top of side a's */
    if (a != RT_WORLD)
      for (int k = 0; k < 6; k++) {
        VD *p = (VD *)(v + ia + (size_t)k * LN);
        *p = BLEND(on, *p + WJ[k] * dl, *p);
      }
    if (b != RT_WORLD)
      for (int k = 0; k < 6; k++) {
        VD *p = (VD *)(v + ib + (size_t)k * LN);
        *p = BLEND(on, *p + WJ[6 + k] * dl, *p);
      }
  }
  if (change_ != NULL) memcpy(change_, &change, sizeof change);
}

/* batch_pgs.c's rt__lanes_residual in vectors (the equality rows are on
 * the same bodies in every lane). */
static void LN_CAT(residual_, LN)(const rt__lanes *l, int dim, double *res, double *most_) {
  VD most = {0};
  for (int i = 0; i < dim; i++) {
    const size_t r = (size_t)i * LN;
    const int a = l->a[r], b = l->b[r];
    const VD *J = (const VD *)(l->J + 12 * r);
    VD s = {0};
    if (a != RT_WORLD) {
      const VD *va = (const VD *)(l->vel + 6 * (size_t)a * LN);
      for (int k = 0; k < 6; k++) s = s + J[k] * va[k];
    }
    if (b != RT_WORLD) {
      const VD *vb = (const VD *)(l->vel + 6 * (size_t)b * LN);
      for (int k = 0; k < 6; k++) s = s + J[6 + k] * vb[k];
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
    const VD *WJ = (const VD *)(l->WJ + 12 * r), d = *(const VD *)(delta + r);
    VD *lam = (VD *)(l->lambda + r);
    *lam = BLEND(act, *lam + d, *lam);
    const VM m = act & (d != 0.0);
    if (a != RT_WORLD) {
      VD *va = (VD *)(l->vel + 6 * (size_t)a * LN);
      for (int k = 0; k < 6; k++) va[k] = BLEND(m, va[k] + WJ[k] * d, va[k]);
    }
    if (b != RT_WORLD) {
      VD *vb = (VD *)(l->vel + 6 * (size_t)b * LN);
      for (int k = 0; k < 6; k++) vb[k] = BLEND(m, vb[k] + WJ[6 + k] * d, vb[k]);
    }
  }
}

#undef BLEND
#undef VD
#undef VM
#undef LN_CAT
#undef LN_CAT2
