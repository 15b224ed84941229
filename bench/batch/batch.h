/* batch.h -- make bench-batch (issue 21, part 5): the batch factor
 * (ldlgen --batch N) against N scalar factors of the same mechanism, and
 * the whole step: one rt_batch_step of N worlds against N rt_world_step.
 *
 * bench/batch.mk generates, per mechanism and configuration (double with 8
 * lanes, float with 16), the scalar unrolled program and the batch program,
 * compiles both with the same target flags (AVX-512 where the CPU has it,
 * else AVX2; -ffp-contract=off), links them with the runtime built for the
 * same target and lists them in bb_entries. */
#ifndef LDLPGS_BENCH_BATCH_H
#define LDLPGS_BENCH_BATCH_H

#include "rt_batch.h"

typedef int (*bb_factor_fn)(void *work, void *temp, int *lane_pivot);

/* One entry of the generated list (null-ended: mech 0). */
typedef struct bb_entry {
  const char *mech;
  int lanes;
  double flops;              /* one copy's factor: ldlgen --stats "flops" */
  const rt_program *scalar;  /* same mechanism and precision, scalar */
  bb_factor_fn factor;       /* the batch program's factor */
  double cc_scalar, cc_batch; /* compile CPU seconds of the two objects */
  /* appended for the whole step */
  const rt_batch_program *batch; /* the batch file's (its scalar program: batch->program) */
  const rt_world_desc *desc;  /* the mechanism, from the scalar file */
  const rt_settings *settings;
} bb_entry;
extern const bb_entry bb_entries[];
extern const char bb_arch[];  /* "avx512" or "avx2" */
extern const char bb_cflags[];
extern const char bb_order[]; /* ldlgen --order of both sides' programs */

/* Statistics over the runs: median, min, max. */
typedef struct bb_stat {
  double med, lo, hi;
} bb_stat;

/* One measured entry. Times are seconds per call of N copies (the
 * workspace restore subtracted), throughputs per second. */
typedef struct bb_row {
  const bb_entry *e;
  const char *precision;
  bb_stat t_scalar, t_batch;  /* N scalar factors; one batch factor */
  double copy_scalar, copy_batch; /* the restore alone (median) */
  double speedup;             /* t_scalar.med / t_batch.med */
  double cps_scalar, cps_batch; /* copy-factors per second */
  double gf_scalar, gf_batch; /* GFLOP/s */
  double peak;                /* the measured vector peak of the precision */
  double frac;                /* gf_batch / peak */
  long subnormal, entries;    /* subnormal values in the N factored workspaces, of all */
  /* a double row's: the float batch factor of its mechanism against it, in
     copy-factors a second, timed side by side; float_lanes 0 where there
     is none */
  bb_stat float_ratio;
  int float_lanes;
} bb_row;

/*---- the whole step (step.c, cg.c) ------------------------------------------*/

/* The stages of a step, as rt_world.h's split entry points divide it. */
enum { BB_BEGIN, BB_FACTOR, BB_ITERATE, BB_END, BB_STAGES };

/* Options of the whole-step measurement. */
typedef struct bb_step_opts {
  int runs;   /* each from fresh worlds */
  int warm;   /* steps before the timed ones, per run */
  int steps;  /* timed steps per run */
  size_t lane_budget; /* the batches' rt_batch_set_lane_budget; 0: the default */
  int stepping;       /* the batches' rt_batch_set_stepping (RT_BATCH_STEP_LANES unless told) */
  int left_out;       /* the last left_out copies left out of every step (rt_batch_set_active; the
                         singles step only the others): a convoy smaller than the lanes */
} bb_step_opts;

/* One entry's whole step. Times are seconds per step of all N copies. */
typedef struct bb_step_row {
  const bb_entry *e;
  const char *precision;
  bb_stat t_scalar, t_batch;  /* over the runs of each run's median over its steps */
  bb_stat speedup;            /* per run: its scalar median / its batch median */
  double cps_scalar, cps_batch; /* copy-steps per second (medians) */
  double stage[BB_STAGES];    /* mean seconds per copy-step of each stage (the split API) */
  double copywise;            /* N stage[BB_BEGIN] over t_batch.med: the share of the
                                 batch step that begin, run copy by copy, takes */
  double bound;               /* scalar median / (N begin): the most the batch can
                                 give while begin runs copy by copy */
  double after_s, after_scalar_s; /* estimated: the batch step less N begin, against
                                 N (factor + iterate + end) one by one */
  double contacts;            /* mean contacts per copy and step */
  double lanes_used;          /* share of the timed batch steps whose sweeps and contact
                                 passes ran in lanes (rt_batch_lanes_used) */
  long long checked;          /* copy-steps compared bit for bit */
  /* the same steps later, after the report's late_warm steps (one run),
     when the copies' contacts lie on other links in each copy; measured
     where the report's late_warm > 0 */
  bb_stat late_speedup;
  /* a double row's: the float batch of its mechanism against it, in
     copy-steps a second, measured side by side (bb_step_pair); float_lanes
     0 where there is none */
  bb_stat float_ratio;
  int float_lanes;
  /* instructions per copy-step under callgrind (0: not counted) */
  double cg_scalar, cg_batch;
  char cg_note[160];          /* why not counted, or the build counted */
} bb_step_row;

/* Measures e's whole step (fails the process, naming the copy and step, if
 * a batch copy ever differs from its copy stepped alone). */
void bb_step_measure(const bb_entry *e, const bb_step_opts *o, bb_step_row *out);
/* The float batch f against the double batch d of one mechanism: their
 * copy-steps a second, f's over d's, from the two batches stepped in
 * turns, step by step (the order alternating), o->runs runs from fresh
 * worlds of o->warm + o->steps steps: each run's ratio of their medians.
 * Stepped side by side, both meet the VM's speed of the moment; measured
 * minutes apart (bb_step_measure, entry after entry), their ratio moved
 * with its drift. */
bb_stat bb_step_pair(const bb_entry *d, const bb_entry *f, const bb_step_opts *o);
/* The factor's inputs: in[j] (e->scalar's packed workspace) gets copy j's
 * H~ as its world would assemble it -- rt_assemble of the mechanism at the
 * poses copy j reaches after `warm` steps of the whole step's own inputs
 * (its push, its phase of the drive script, its contacts), with the
 * settings' epsilon. */
void bb_step_factor_inputs(const bb_entry *e, int warm, void *const in[]);

/* The callgrind child: steps the entry's N worlds `warm` steps, then
 * `steps` more with collection on -- side 0: one by one (rt_world_step),
 * side 1: rt_batch_step. Returns the process's exit status. */
int bb_step_cg_child(const bb_entry *e, int side, int warm, int steps);

/* Counts both sides of row->e under callgrind by running `bin --cg-run`
 * (bin: a build of this bench without AVX-512, which valgrind cannot run),
 * files in `work`; fills row->cg_*. */
void bb_step_cg(const char *bin, const char *bin_arch, const char *work, int warm, int steps, bb_step_row *row);

/* The entry for mechanism `mech` in `precision`, or NULL. */
const bb_entry *bb_find_entry(const char *mech, const char *precision);

/* The factor alone as another build of this bench measured it on this
 * machine (bb_cg_factor): the callgrind binary, built for a narrower
 * target (AVX2 on an AVX-512 machine), timed too. */
typedef struct bb_other_row {
  char mech[40], precision[8];
  int lanes;
  double t_scalar, t_batch; /* medians: N scalar factors, one batch factor (s) */
} bb_other_row;

/* Runs `bin --no-step --factor-lines` (with `only` and `random`, as this
 * run) and reads its rows into out (at most max); returns how many, or -1
 * if it failed. */
int bb_cg_factor(const char *bin, const char *only, int random, int runs, int batches, bb_other_row *out, int max);

typedef struct bb_report {
  const char *revision, *cpu, *peak_name;
  double peak[2]; /* [0] double, [1] float: the vector peak (max over samples) */
  int runs, batches;
  int random_input; /* the factor's inputs: random SPD matrices, not the copies' H~ */
  int input_warm;   /* else the steps each copy takes before its H~ is taken */
  bb_row *rows;
  int nrows;
  /* the whole step (nsteps 0: not measured) */
  bb_step_opts step;
  bb_step_row *steps;
  int nsteps;
  int late_warm; /* the later window's steps before its timed ones (0: none) */
  int cg_warm, cg_steps;
  /* the factor alone in the callgrind binary's build (nother 0: not run) */
  const char *other_arch;
  bb_other_row *other;
  int nother;
} bb_report;

void bb_write_md(const bb_report *r, const char *path);
void bb_write_json(const bb_report *r, const char *path);

#endif
