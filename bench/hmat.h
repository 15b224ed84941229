/* hmat.h -- H~ as an ordinary sparse matrix, for the libraries the benchmark
 * compares with: the assembled packed workspace of a program unpacked into
 * compressed-column form (both triangles, row indices ascending), in
 * solver-constraint order (the order of rt.h's vectors).
 *
 * The pattern is the block structure of H: every node block and every edge
 * block that is not fill-in, stored whole (a library sees the same
 * structural nonzeros as our symbolic phase does). */
#ifndef LDLPGS_BENCH_HMAT_H
#define LDLPGS_BENCH_HMAT_H

#include "rt.h"

typedef struct hm_matrix {
  int n;
  int *Ap;    /* column pointers (n+1) */
  int *Ai;    /* row indices     (Ap[n]) */
  double *Ax; /* values          (Ap[n]) */
} hm_matrix;

/* Unpacks a double-precision workspace of p, assembled and not factored. */
void hm_from_workspace(const rt_program *p, const double *work, hm_matrix *h);
void hm_free(hm_matrix *h);

/* Structural nonzeros of the full matrix. */
long long hm_nnz(const hm_matrix *h);

/* The lower triangle (diagonal included) as a new matrix. */
void hm_lower(const hm_matrix *h, hm_matrix *lower);

/* The full matrix dense, column-major n x n (malloc'ed, caller frees). */
double *hm_dense(const hm_matrix *h);

/* ||H x - b||_2 / ||b||_2. */
double hm_residual(const hm_matrix *h, const double *x, const double *b);

#endif
