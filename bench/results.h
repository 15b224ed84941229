/* results.h -- everything one `make bench` run measured, as the reports
 * (report_md.c, report_json.c) read it. Times are seconds per call: the
 * median over runs of each run's median over batches, with the min-max
 * over the runs. Ratios are formed within each run, then summarized. */
#ifndef LDLPGS_BENCH_RESULTS_H
#define LDLPGS_BENCH_RESULTS_H

#include "btime.h"
#include "corun.h"
#include "orders.h"
#include "peak.h"
#include "stepper.h"

enum { BR_MAX_METHODS = 12 };

typedef struct br_method {
  char name[40];
  const char *precision;
  int library;              /* an external library */
  int ok;                   /* measured (set up, factored, solved) */
  bt_stat factor, solve;    /* seconds */
  bt_stat vs_ud;            /* factor time / unrolled double's, per run */
  /* not a library: SuiteSparse LDL+AMD's factor time / this one's, and the
   * fastest library's (fastest of each run) / this one's, per run */
  bt_stat ldl_vs, lib_vs;
  int avx2;                 /* the -mavx2 build of an unrolled program */
  int bitwise;              /* avx2: 1 factor and solve bitwise identical to the
                               baseline build's, 0 not (bm_program_same) */
  double flops_block;       /* block convention (0: not applicable) */
  double flops_chol;        /* CHOLMOD convention, own L */
  long long lnz;
  double residual;          /* ||H x - b|| / ||b|| of its solve */
} br_method;

typedef struct br_compile {
  const char *precision;
  const char *source;
  long lines;
  double compile_s;
  long text, data;
  double compile_avx2_s;    /* the -mavx2 build (text_avx2 = 0: none) */
  long text_avx2;
} br_compile;

/* One whole-step method of the comparison with ODE and MuJoCo (issue 16),
 * sp_kind order. */
typedef struct br_peer {
  int measured;          /* timed (a stepper could be made) */
  char label[48];        /* "ODE QuickStep 10", ... */
  char why[200];         /* not measured: why */
  char unmapped[512];    /* constraints the method leaves out ("" none) */
  bt_stat time;          /* seconds per step */
  bt_stat vs_quick;      /* time / ODE QuickStep N's, per run */
  int rows;              /* rows its sweep visits (sp_rows) */
  sp_hold hold;          /* how well it holds the mechanism */
  /* make bench-cg's count, if bench/results/step-cg.tsv has this method */
  double instructions;   /* per step, 0: not counted */
} br_peer;

/* The full step (assembly + factor + N-1 PGS + block-GS step vs N PGS,
 * single-threaded and with the factorization on a second thread), filled
 * by fs_measure (fullstep.c); measured = 0 if no world could be made. The
 * same step against ODE and MuJoCo in peer[]. */
typedef struct br_step {
  int measured;
  int iterations;
  bt_stat ldlpgs_1thread, ldlpgs_2threads, pgs; /* seconds per step: the talk's step
                                                  (post-stabilization off) */
  int stabilized;        /* the mechanism asks for post-stabilization: */
  bt_stat ldlpgs_stab;   /* 2 threads with it (a second assembly and
                            factorization per step, on the stepping thread) */
  br_peer peer[SP_COUNT];
  double hold_seconds;   /* simulated time of the hold runs */
  /* make bench-cg's sweep cost, instructions per row and iteration (0:
   * not counted): ours (PGS) and ODE QuickStep's */
  double sweep_pgs, sweep_ode;
  char cg_revision[64];  /* of the instruction counts ("": none) */
} br_step;

/* The precision presets and the block solvers side by side on one sample
 * (precision.c; README, "Precision presets"). Residuals are
 * ||H~ x - b|| / ||b|| of sample.c's right-hand side, in double; times are
 * seconds per call (factor + solve, plus the refinement step or the PCR
 * solve; the assembly, the same for all, apart). */
enum { BR_PREC_SIMS = 5 }; /* float, fast, accurate, PCR, PCR without a program */
typedef struct br_prec {
  int measured;
  double res_float, res_fast, res_double; /* float alone, float + 1 step, double */
  double res_float_jv, res_fast_jv, res_double_jv; /* the same for b = J v (v random
                               on the moving bodies): consistent, as the block
                               step's R - J V nearly is */
  double res_refined;       /* float refined until the residual stops falling */
  int refine_steps;         /* the steps that took */
  int refine_to_1e6;        /* steps to <= 1e-6 (-1: never) */
  double pcr_tol;           /* the LDL double residual (at least 1e-12) */
  int pcr_iterations;       /* PCR iterations to pcr_tol from zero */
  int pcr_iterations_1e6;   /* ... to 1e-6, the world's default */
  double res_pcr, res_pcr_1e6;
  int pcr_cap;              /* the cap they ran under */
  bt_stat assemble_f;       /* rt_assemble, float */
  bt_stat float_s, fast_s, double_s, pcr_s, pcr_1e6_s;
  bt_stat fast_vs_float;    /* per run: (factor + refined solve) / (factor + solve) */
  bt_stat fast_vs_float_asm; /* the same with the assembly in both: what a game
                               calling the program pays per solve */
  bt_stat step_fast_vs_float; /* per run: a world's step, fast / float */
  /* a short run of each preset (simrun: contacts every step) */
  int sim_steps;
  double sim_err[BR_PREC_SIMS];   /* max positional joint error, m */
  int sim_exploded[BR_PREC_SIMS];
  double sim_pcr_iterations[2];   /* PCR, PCR without a program: mean a step */
  bt_stat step_s[BR_PREC_SIMS];   /* seconds a step, interleaved batches */
} br_prec;

typedef struct br_mech {
  const char *path;
  char name[64];
  const char *series; /* NULL: a sample */
  int param;
  const char *error;  /* set when it could not be measured */
  int bodies, ncons, shards, dim;
  double density;
  long long nnz;      /* structural nonzeros of H~ (full) */
  const char *heuristic;
  double flops_block; /* of the program (best order) */
  double load_s, symbolic_s; /* load (Lua) and symbolic phase, median */
  int nmethod;
  br_method method[BR_MAX_METHODS];
  int ud, uf;         /* indices of unrolled double / float, -1 if absent */
  int ud_avx2, uf_avx2; /* the same, -mavx2 build ("unrolled (AVX2 build)") */
  int fastest_lib;    /* library with the smallest median factor time, -1 if none */
  bt_stat lib_vs_ud, lib_vs_uf; /* fastest library per run / unrolled double, float */
  bt_stat ldl_vs_uf;  /* SuiteSparse LDL / unrolled float */
  int has_orders;
  bo_row order[BO_COUNT];
  int ncompile;
  br_compile compile[2];
  br_step step;
  br_prec prec;       /* samples only */
} br_mech;

typedef struct br_report {
  char date[40];       /* UTC */
  char cpu[128];       /* /proc/cpuinfo model name */
  int ncpu;
  char compiler[96];
  const char *cflags;  /* of the generated programs */
  const char *avx2_flags; /* added for their AVX2 build ("": not built) */
  int avx2_cpu;        /* the CPU has AVX2, so that build was measured */
  char blas[160];      /* OpenBLAS configuration */
  const char *revision; /* of the sources measured (git), as make passes it */
  char libs[160];      /* library versions */
  int runs, batches;
  double batch_s;
  bp_result peak[BP_COUNT];
  bc_result corun;     /* a second busy thread's cost to the first (corun.h) */
  br_mech *mech;       /* samples (and extra mechanism files) */
  int nmech;
  br_mech *series;     /* scaling series */
  int nseries;
  double wall_s;       /* of the whole measurement */
} br_report;

/* Index of method `name` in precision `prec` of m, or -1. */
int br_find(const br_mech *m, const char *name, const char *prec);

#endif
