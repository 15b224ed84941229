/* method.h -- one factorization method under test, behind one interface:
 * the generated programs (unrolled code and the interpreter on its tables)
 * and the libraries (SuiteSparse LDL, CHOLMOD, LAPACK). Everything that is
 * not the numeric factorization or the solve -- ordering, symbolic
 * analysis, allocation -- happens once in the bm_*_init function.
 *
 * Every method factors the same H~ (bm_input) and solves with the same
 * right-hand side. */
#ifndef LDLPGS_BENCH_METHOD_H
#define LDLPGS_BENCH_METHOD_H

#include "btime.h"
#include "hmat.h"
#include "rt.h"

typedef struct bm_input {
  const hm_matrix *H; /* H~ in double, solver-constraint order */
  const double *b;    /* right-hand side (H->n) */
  /* the numeric inputs of rt_assemble, so a program assembles H~ in its own
   * precision through its own layout */
  const double *J, *inv_mass, *inv_inertia;
  double epsilon;
} bm_input;

typedef struct bm_method {
  char name[40];          /* "unrolled", "SuiteSparse LDL+AMD", ... */
  const char *precision;  /* "double" or "float" */
  int library;            /* 1: an external library (a competitor) */
  void *state;
  /* One numeric factorization. A method that factors in place restores its
   * input first; `restore` does that copy alone, so it can be subtracted
   * (NULL when the factorization leaves its input alone). */
  bt_fn factor;
  bt_fn restore;
  /* One solve of H~ x = b with the current factor (copying b in included). */
  bt_fn solve;
  /* Factors once and solves for b; x receives the solution in double.
   * Returns 0, or -1 if the factorization failed. */
  int (*check)(void *state, double *x);
  void (*destroy)(void *state);
  double flops_block;     /* block convention; 0 when it does not apply */
  double flops_chol;      /* CHOLMOD's convention on the method's own L */
  long long lnz;          /* entries of its L, diagonal included */
} bm_method;

/* The generated program p: its unrolled entry point, or (tables = 1) the
 * runtime interpreter on its tables. 0 on success. */
int bm_program_init(bm_method *m, const bm_input *in, const rt_program *p, int tables);

/* Two generated-program methods (bm_program_init) of the same program
 * compiled differently: 1 if, from the same assembled workspace, their
 * factorizations return the same and leave bitwise identical workspaces
 * and their solves bitwise identical solutions; 0 if not; -1 if they are
 * not comparable (other layout, precision or input). */
int bm_program_same(const bm_method *a, const bm_method *b);

/* SuiteSparse LDL: AMD ordering and ldl_symbolic once, ldl_numeric timed. */
int bm_ldl_init(bm_method *m, const bm_input *in);

/* CHOLMOD (AMD ordering, analyze once, factorize timed): simplicial LDL^T
 * (supernodal = 0) or supernodal LL^T (supernodal = 1). */
int bm_cholmod_init(bm_method *m, const bm_input *in, int supernodal);

/* LAPACK dense Cholesky (potrf/potrs, lower) in double or float (single =
 * 1) on the dense matrix, through LAPACKE; one BLAS thread. */
int bm_lapack_init(bm_method *m, const bm_input *in, int single);
/* BLAS/LAPACK build description (OpenBLAS's configuration string). */
const char *bm_lapack_config(void);

void bm_destroy(bm_method *m);

#endif
