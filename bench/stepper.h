/* stepper.h -- one interface over every whole-step method the bench
 * compares (issue 16): the runtime's worlds (PGS, LDL-PGS on one thread and
 * with the factorization thread) and the peers, ODE (peer_ode.h) and
 * MuJoCo (peer_mujoco.h), each built from the same loaded mechanism at the
 * same dt, gravity and iteration count N. fullstep.c times them
 * interleaved, stepcg.c counts their instructions under callgrind, and
 * sp_hold runs each for the quality columns. */
#ifndef LDLPGS_BENCH_STEPPER_H
#define LDLPGS_BENCH_STEPPER_H

#include <stddef.h>

#include "mech.h"
#include "rt_world.h"

typedef enum sp_kind {
  SP_ODE_QUICK,   /* ODE dWorldQuickStep, N iterations */
  SP_ODE_QUICK2,  /* the same, 2N iterations */
  SP_ODE_DIRECT,  /* ODE dWorldStep (dense direct LCP solver) */
  SP_MJ_NEWTON,   /* MuJoCo, Newton solver, generalized coordinates */
  SP_MJ_PGS,      /* MuJoCo, PGS solver, N iterations */
  SP_PGS,         /* ldlpgs, N PGS sweeps */
  SP_LDLPGS,      /* ldlpgs LDL-PGS, one thread */
  SP_LDLPGS_THREADED, /* LDL-PGS with the factorization thread */
  SP_COUNT
} sp_kind;

/* "ODE QuickStep 10" and the like (N filled in), and a short key for JSON
 * and command lines ("ode_quick", "ode_quick2", "ode_direct", "mujoco_newton",
 * "mujoco_pgs", "pgs", "ldlpgs", "ldlpgs_threaded"). */
void sp_label(sp_kind k, int iterations, char *buf, size_t n);
const char *sp_key(sp_kind k);
/* The kind with that key, or -1. */
int sp_from_key(const char *key);
/* 1 for the runtime's own methods. */
int sp_is_ours(sp_kind k);

typedef struct sp_stepper sp_stepper;

/* The mechanism m as a method of kind k at N = iterations (ours use the
 * program prog; post-stabilization off, the talk's step). NULL if the kind
 * cannot model m or was not built in: why (n bytes) then says so. */
sp_stepper *sp_create(sp_kind k, const mech *m, const rt_program *prog, int iterations, char *why, size_t n);
void sp_destroy(sp_stepper *s);

/* What the method cannot model of m ("" if nothing) -- left out of it. */
const char *sp_unmapped(const sp_stepper *s);

/* Contacts for the following steps (ODE and ours; MuJoCo finds its own
 * with its collision detection, from the mechanism's shapes). */
void sp_set_contacts(sp_stepper *s, const rt_contact *c, int n);
void sp_step(sp_stepper *s);
void sp_body(const sp_stepper *s, int body, rt_pose *pose, double vel[3], double angvel[3]);
/* Rows the method's sweep visits in a step (see po_rows, mj's nefc). */
int sp_rows(const sp_stepper *s);

/* Contacts of the mechanism's ground (and body pairs, with settings.collide)
 * at the current state of s, found with the runtime's generator; writes at
 * most cap and returns how many (at most cap). */
int sp_contacts(const sp_stepper *s, rt_contact *out, int cap);
/* The same at the poses of a world of ours (m's). */
int sp_world_contacts(const mech *m, const rt_world *w, rt_contact *out, int cap);
/* Whether the method finds its contacts itself, in its step (MuJoCo). */
int sp_finds_contacts(const sp_stepper *s);

/* How well a method holds the mechanism: run for `steps` steps from the
 * initial state with contacts found before every step (sp_contacts; MuJoCo
 * its own), errors of the equality joints measured as rt_world_max_error
 * does on the method's poses. */
typedef struct sp_hold {
  int measured;
  int steps;                 /* steps run (fewer if it exploded) */
  int exploded;              /* a non-finite state or a body over 100 m/s */
  double max_pos, final_pos; /* m */
  double max_ang, final_ang; /* rad */
  double probe_start, probe_final, probe_min; /* z of the probe body (m) */
} sp_hold;
void sp_hold_run(sp_stepper *s, int steps, sp_hold *out);

#endif
