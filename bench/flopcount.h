/* flopcount.h -- the two flop conventions of the benchmark report.
 *
 * Block convention (the talk's, docs/DESIGN.md section 3): a pivot of degree d
 * whose edge column has height h costs d^3/6 + h d^2 + d h(h+1)/2
 * multiply-adds, flops = 2 x multiply-adds.
 *
 * CHOLMOD's convention: sum over the columns j of the factor of |L(:,j)|^2,
 * |L(:,j)| the entries of column j with the diagonal, counted on the
 * pattern the method actually stores (explicit zeros included). A dense
 * n x n factor costs sum k^2, k = 1..n. */
#ifndef LDLPGS_BENCH_FLOPCOUNT_H
#define LDLPGS_BENCH_FLOPCOUNT_H

#include "rt.h"

/* Block-convention flops of a program's pivots. */
double fc_block(const rt_program *p);

/* CHOLMOD-convention flops of a program's block factor: every pivot's node
 * block is a dense lower triangle and its edge column a dense h x d block, so
 * scalar column c (0-based) of a degree-d pivot holds d - c + h entries. */
double fc_chol_program(const rt_program *p);

/* Entries of a program's block factor L, diagonal included. */
long long fc_lnz_program(const rt_program *p);

/* sum count[j]^2 over n columns (count[j]: entries of column j with the
 * diagonal). */
double fc_chol_counts(const long long *count, int n);

/* A dense n x n factor: sum k^2, k = 1..n. */
double fc_chol_dense(int n);

#endif
