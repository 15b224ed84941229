/* ineq.h -- `make bench-inequality` (issue 14, part 6): for every sample
 * mechanism, driven by its .drive script where it has one, the cost of the
 * step with limits, motors, springs and ropes coupled to the block through
 * the Schur complement (runtime/schur.c, rt_settings.coupled_rows, default
 * 16: "the new step") against the same LDL-PGS step without that coupling
 * (coupled_rows 0: "the equality-only step", those rows as PGS rows only),
 * and how well PGS and both LDL-PGS steps keep the limits and motors.
 *
 * Every run is the one `ldlsim MECH --drive MECH.drive` makes (sim/simrun.c,
 * sim/watch.c): the mechanism's settings with dt and iterations fixed
 * (IQ_DT, IQ_ITERATIONS), IQ_SECONDS of simulated time, contacts fed in
 * before every step, single-threaded, the sample's unrolled double program
 * when the bench registry has it (else the interpreter's tables). */
#ifndef LDLPGS_BENCH_INEQ_H
#define LDLPGS_BENCH_INEQ_H

#include "arena.h"
#include "../btime.h"
#include "drive.h"
#include "mech.h"
#include "rt_world.h"

#define IQ_DT (1.0 / 60.0)
#define IQ_ITERATIONS 10
#define IQ_SECONDS 10.0
/* The goal: the new step costs at most this many times the equality-only one. */
#define IQ_GOAL 1.3

/* The three steps compared. */
typedef enum iq_variant {
  IQ_PGS,      /* plain PGS, IQ_ITERATIONS sweeps */
  IQ_EQ_ONLY,  /* LDL-PGS, coupled_rows 0 */
  IQ_NEW,      /* LDL-PGS, the default coupled_rows */
  IQ_VARIANTS
} iq_variant;

/* "pgs", "ldlpgs_equality_only", "ldlpgs"; the variant with that key or -1. */
const char *iq_key(iq_variant v);
int iq_from_key(const char *key);
/* "PGS", "LDL-PGS, coupled_rows 0", "LDL-PGS, coupled_rows 16". */
void iq_label(iq_variant v, char *buf, int n);

/* A sample: the mechanism, its program, its drive script (if any). */
typedef struct iq_case {
  arena a;
  const char *path;       /* the mechanism file */
  char name[128];         /* its base name */
  char drive_path[1024];  /* MECH.drive, "" if there is none */
  mech m;
  rt_world_desc desc;
  const rt_program *prog; /* unrolled (bench registry) or &tables */
  rt_program tables;
  int unrolled;           /* 1: prog is the registry's unrolled program */
  drive_script script;    /* n == 0 without a drive script */
  int steps;              /* IQ_SECONDS / IQ_DT */
} iq_case;

/* Loads path (and path's .drive beside it, if there is one); diagnostics to
 * stderr. Returns 0, or -1 (c is then freed). */
int iq_case_open(iq_case *c, const char *path);
void iq_case_close(iq_case *c);
/* The settings of a variant's run. */
void iq_case_settings(const iq_case *c, iq_variant v, rt_settings *out);

/* A world of the case run as ldlsim runs it: the drive script from its
 * start, contacts before every step. */
typedef struct iq_driven {
  const iq_case *c;
  rt_world *w;
  drive_script script;  /* this world's copy */
  rt_contact *contacts; /* settings.max_contacts + 1 */
  int cap;
  int step;             /* steps taken */
} iq_driven;

/* Returns 0, or -1 (message on stderr). */
int iq_driven_open(iq_driven *d, const iq_case *c, iq_variant v);
void iq_driven_close(iq_driven *d);
/* Drive and contacts for the next step (not part of the step's cost). */
void iq_driven_prepare(iq_driven *d);
/* The step itself; the world's status. */
rt_status iq_driven_step(iq_driven *d);

/* The cost of the new step against the equality-only one (timing.c). */
typedef struct iq_cost {
  int timed;                  /* the timing went through */
  bt_stat us[IQ_VARIANTS];    /* median µs per step, over the runs (IQ_EQ_ONLY, IQ_NEW) */
  bt_stat ratio;              /* new / equality-only, per run */
  int runs, batches;
  double coupled_mean;        /* rows coupled per step, new step (run 0) */
  int coupled_max;
  int counted;                /* the callgrind counts went through */
  double instr[IQ_VARIANTS];  /* instructions per step (IQ_EQ_ONLY, IQ_NEW) */
  char why[256];              /* why not timed or not counted */
} iq_cost;

/* Times the two LDL-PGS steps of c interleaved: `runs` runs, each stepping
 * a fresh world of each through the whole driven run in batches of
 * IQ_BATCH steps, alternating which goes first; a run's figure is the
 * median over its batches of the mean step time. */
enum { IQ_BATCH = 8 };
void iq_time(const iq_case *c, int runs, iq_cost *out);

/* Instructions per step of a variant under callgrind (cgcount.c): runs
 * `self --count MECH VARIANT` under valgrind; -1 if it could not count
 * (why says so). */
double iq_count(const char *self, const char *scratch, const char *path, iq_variant v, char *why, int n);
/* The --count child: the driven run of the variant with callgrind's
 * collection on around every step only; prints "steps N". Exit status. */
int iq_count_child(const char *path, const char *key);

/* How well a variant keeps the mechanism (hold.c). */
typedef struct iq_hold {
  int ran;
  int steps;              /* steps run */
  int exploded;
  char why[256];
  double limit;           /* max_limit_violation, m or rad (0 without limits) */
  double slip;            /* max_motor_slip, m or rad (0 without motors) */
  char worst_limit[64];   /* the limit or rope of `limit`, "" if none was exceeded */
  char worst_motor[64];   /* the motor of `slip`, "" if none slipped */
  double pos, ang;        /* largest joint error, m and rad */
  double drift, gain;     /* max |E - E0| and max (E - E0), J */
  double energy_start;    /* J */
} iq_hold;
void iq_hold_run(const iq_case *c, iq_variant v, iq_hold *out);

/* Everything measured on one sample. */
typedef struct iq_sample {
  char name[128];
  char drive[1024];       /* the drive script, "" if none */
  int dim;                /* rows of the program */
  int unrolled;
  int nlimit, nmotor, nspring; /* limits and ropes, motors, springs */
  iq_cost cost;
  iq_hold hold[IQ_VARIANTS];
} iq_sample;

typedef struct iq_report {
  const char *revision;
  int runs;
  iq_sample *s;
  int n;
} iq_report;

/* 1 if a sample meets the goal on every measure it has, 0 if not, -1 if it
 * has none (report.c). */
int iq_verdict(const iq_sample *s);
void iq_write_md(FILE *f, const iq_report *r);
void iq_write_json(FILE *f, const iq_report *r);
/* The README's table (README.md, "Limits, motors and springs"). */
void iq_write_readme(FILE *f, const iq_report *r);

#endif
