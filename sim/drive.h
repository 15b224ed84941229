/* drive.h -- a timed control script for a mechanism's motors and driven
 * rods (`ldlsim --drive FILE`). One command per line:
 *
 *   # comment
 *   TIME  JOINT  SPEED  [MAX_FORCE]
 *
 * From TIME (s, >= 0, non-decreasing down the file) on, the motor or driven
 * rod JOINT (a constraint name) runs at SPEED (rad/s or m/s); a motor also
 * takes MAX_FORCE (N or N m, >= 0) if given. Example: throttle for 3 s,
 * then steer left for 2 s, then stop:
 *
 *   0  drive_rearL  10  300
 *   0  drive_rearR  10  300
 *   3  steer        0.05
 *   5  steer        0
 *   5  drive_rearL  0
 *   5  drive_rearR  0 */
#ifndef LDLPGS_SIM_DRIVE_H
#define LDLPGS_SIM_DRIVE_H

#include <stdio.h>

#include "arena.h"
#include "diag.h"
#include "mech.h"
#include "rt_world.h"

typedef struct drive_event {
  double time;
  int joint;          /* constraint index: a motor or a rod */
  int motor;          /* 1: a motor, 0: a rod */
  double speed;
  double max_force;   /* < 0: unchanged */
} drive_event;

typedef struct drive_script {
  drive_event *ev;
  int n;
  int next;           /* first event not yet applied */
} drive_script;

/* Reads a script for mechanism m; errors are "file:line: ..." in d. */
gen_status drive_load(arena *a, const char *path, const mech *m, drive_script *out, diag_list *d);

/* The same from an open stream; path names it in diagnostics. */
gen_status drive_read(arena *a, const char *path, FILE *f, const mech *m, drive_script *out, diag_list *d);

/* Applies every event due at time t (simrun's control hook: ctx is the
 * drive_script). */
void drive_apply(rt_world *w, int step, double t, void *ctx);

#endif
