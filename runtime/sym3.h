/* sym3.h -- the positive semidefinite part of a symmetric 3x3 matrix, in
 * closed form (sym3.c). */
#ifndef LDLPGS_RT_SYM3_H
#define LDLPGS_RT_SYM3_H

/* K (row-major, symmetric) replaced by its positive semidefinite part:
 * V max(Lambda, 0) V^T for K = V Lambda V^T. A K that is already positive
 * semidefinite is kept bit for bit; a K with a NaN becomes 0. */
void rt__sym3_positive_part(double K[9]);

#endif
