/* simrun.h -- runs a world for a number of steps and measures it: the
 * summary of `ldlsim` (docs/DESIGN.md section 4) and of the demo, and the
 * per-step CSV. The world can come from any program (interpreted or
 * generated); the mechanism supplies names and the probe body. */
#ifndef LDLPGS_SIM_SIMRUN_H
#define LDLPGS_SIM_SIMRUN_H

#include <stdio.h>

#include "mech.h"
#include "rt_world.h"

/* The speed (m/s) above which a run counts as exploded. */
#define SIMRUN_MAX_SPEED 100.0
/* Ground contacts are generated for shape points closer than this (m). */
#define SIMRUN_CONTACT_MARGIN 0.02

/* Called before each step with the step index and the time; it may change
 * motor targets and forces (a control script). */
typedef void (*simrun_control_fn)(rt_world *w, int step, double time, void *ctx);

/* Called with the initial state (steps 0, time 0) and after every step that
 * went through, with the steps done and the time reached: a recorder
 * (gltf_record_observe). It must not change the world. */
typedef void (*simrun_observe_fn)(const rt_world *w, int steps, double time, void *ctx);

typedef struct simrun_options {
  int steps;                /* > 0 */
  int probe;                /* body whose height is reported; -1: none */
  FILE *csv;                /* per-step rows, or NULL */
  simrun_control_fn control;
  void *control_ctx;
  simrun_observe_fn observe; /* or NULL */
  void *observe_ctx;
  /* appended */
  const rt_world_desc *desc; /* the world's description: its limits, ropes
                                and motors are watched (watch.h); NULL: not */
  FILE *poses;              /* every body's pose, the initial state (step 0)
                               and after every step, or NULL */
} simrun_options;

typedef struct simrun_result {
  int steps;                /* steps run (fewer than asked if it exploded) */
  int exploded;             /* non-finite state or a speed above SIMRUN_MAX_SPEED */
  const char *why;          /* what exploded ("" if not) */
  double max_pos_error, final_pos_error;  /* m */
  double max_ang_error, final_ang_error;  /* rad */
  double energy_start, energy_final;      /* kinetic + potential, J */
  double max_energy_drift;                /* max |E - E_start| over the run */
  double max_energy_gain;                 /* max (E - E_start) over the run (>= 0) */
  double probe_start, probe_final, probe_min, probe_max; /* z of the probe body */
  double probe_distance;    /* path length of the probe body in x-y (m) */
  int factor_failures;      /* steps whose factorization failed */
  int max_contacts;         /* most contacts found in a step */
  int contact_overflows;    /* steps that found more than the world's capacity
                               (the excess was dropped) */
  double us_per_step;       /* wall-clock time of rt_world_step, mean */
  double *pos_error;        /* per step, if the caller supplied room (steps) */
  /* appended: the block solve (rt_step_info; docs/DESIGN.md section 8) */
  long long refine_steps;   /* refinement steps kept, over the run */
  long long contact_passes; /* LDL-PGS's contact passes, over the run */
  int capped_passes;        /* steps whose contact passes reached their cap */
  long long pcr_iterations; /* PCR iterations, over the run */
  int pcr_max_iterations;   /* most in a step */
  int pcr_capped;           /* steps whose PCR stopped at its cap, above the
                               tolerance */
  double pcr_max_residual;  /* largest relative residual PCR left */
  /* appended: limits and motors (watch.h; 0 and -1 without options.desc,
     NaN if the watch found no memory) */
  double max_limit_violation; /* largest overrun of a limit or rope (m or rad) */
  double max_motor_slip;    /* largest slip of an unsaturated motor (m or rad) */
  double max_hold_slip;     /* the same, of motors commanded to speed 0 */
  int worst_limit, worst_motor; /* their joints, or -1 */
  double motor_work;        /* J: the motors' work over the run (watch.h) */
  double drive_work;        /* J: the rods' work over the run (watch.h) */
  double max_gain_beyond_motor_work; /* J: the largest E - E_start - W over
                               the steps (0 at the start), W the motors' and
                               rods' work so far: energy neither the motors
                               nor the driven rods put in */
  /* appended: the factorization thread (rt_settings.threaded) */
  long long thread_steps;   /* steps that handed their factorization to it */
} simrun_result;

/* Runs the world; with a ground plane in the mechanism's settings, ground
 * contacts (rt_world_ground_contacts) are fed in before every step, and
 * with settings.collide the body-body contacts (rt_world_body_contacts).
 * result->pos_error may point to `steps` doubles to get the
 * error of every step (else NULL).
 *
 * options.poses receives the header `step,time,body,x,y,z,qw,qx,qy,qz`,
 * then one row per body (in the mechanism's order, by name) for the initial
 * state (step 0, time 0) and after every step that went through: position
 * (m) and orientation quaternion, numbers in "%.17g" (they read back
 * exactly). The caller checks the stream for write errors. */
void simrun_run(rt_world *w, const mech *m, const simrun_options *o, simrun_result *result);

/* The contacts simrun_run feeds in before a step: with a ground plane in
 * the mechanism's settings the ground contacts, with settings.collide the
 * body-body contacts, found at w's current state into buf (cap entries,
 * cap + 1 allocated) and set on w (at most cap). Returns how many were
 * found (more than cap: the excess was dropped). */
int simrun_feed_contacts(rt_world *w, const mech *m, rt_contact *buf, int cap);

/* The mechanism's probe body: settings.probe, else the last body. */
int simrun_default_probe(const mech *m);

#endif
