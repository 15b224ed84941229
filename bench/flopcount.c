/* flopcount.c -- flop counts in the two conventions (see flopcount.h). */
#include "flopcount.h"

static int pivot_degree(const rt_program *p, int piv) { return p->cons_degree[p->piv_cons[piv]]; }

double fc_block(const rt_program *p) {
  double f = 0;
  for (int piv = 0; piv < p->ncons; piv++) {
    const double d = pivot_degree(p, piv), h = p->piv_height[piv];
    f += 2.0 * (d * d * d / 6.0 + h * d * d + d * h * (h + 1) / 2.0);
  }
  return f;
}

double fc_chol_program(const rt_program *p) {
  double f = 0;
  for (int piv = 0; piv < p->ncons; piv++) {
    const int d = pivot_degree(p, piv), h = p->piv_height[piv];
    for (int c = 0; c < d; c++) {
      const double len = (double)(d - c + h);
      f += len * len;
    }
  }
  return f;
}

long long fc_lnz_program(const rt_program *p) {
  long long nz = 0;
  for (int piv = 0; piv < p->ncons; piv++) {
    const long long d = pivot_degree(p, piv), h = p->piv_height[piv];
    nz += d * (d + 1) / 2 + h * d;
  }
  return nz;
}

double fc_chol_counts(const long long *count, int n) {
  double f = 0;
  for (int j = 0; j < n; j++) f += (double)count[j] * (double)count[j];
  return f;
}

double fc_chol_dense(int n) {
  const double m = n;
  return m * (m + 1) * (2 * m + 1) / 6.0;
}
