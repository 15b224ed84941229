/* watch.h -- how well a run keeps its limits, ropes and motors: the largest
 * overrun of any limit or rope and the largest slip of any motor that was
 * not at its force bound (`ldlsim --json`'s max_limit_violation and
 * max_motor_slip; README, ldlsim). simrun calls watch_step after every step.
 *
 * Every inequality joint is read through the type table: its type's row
 * hook (rt_joint_type.h) gives, at the world's current poses, the row's
 * kind and its coordinate q. Kinds other than the two below are ignored.
 *
 *   RT_ROW_LIMIT  (angular_limit, positional_limit, rope): the violation is
 *                 max(q - upper, lower - q, 0), in m or rad, measured after
 *                 each step at the new poses.
 *   RT_ROW_MOTOR  each motor has a commanded coordinate q_cmd, which starts
 *                 at the measured q and advances by speed * dt every step
 *                 (the speed the motor ran with in that step:
 *                 rt_world_motor_speed). It is reset to the measured q
 *                 after a step in which the motor was saturated --
 *                 |impulse| >= (1 - 1e-6) max_force dt
 *                 (rt_world_motor_impulse, rt_world_motor_max_force) -- or
 *                 whose speed differed from the step before (a drive
 *                 changed it). Otherwise its slip is |q - q_cmd|. An angle
 *                 (a coordinate whose Jacobian row has no linear part) is
 *                 unwrapped: q accumulates the difference between
 *                 consecutive measurements taken into [-pi, pi], so a
 *                 motor spinning many turns does not show slips of 2 pi.
 *                 What is left for a spinning motor includes the
 *                 integrator's lag: a body turning at w advances by
 *                 2 atan(w dt / 2) per step, not w dt (0.23 % at 10 rad/s
 *                 and dt 1/60).
 *
 * The motors' work, motor_work (J), adds up every step's impulse times the
 * mean of the motor's rate before and after the step, (dq_before + dq) /
 * (2 dt): an impulse l that takes a coordinate of effective inertia m from
 * rate u to u' does l (u + u') / 2 = m (u'^2 - u^2) / 2 of work. It is
 * the energy the motors put in (> 0) or took out; the run checks the
 * mechanism's energy against it (simrun.h). The rods' work, drive_work
 * (J), is the same sum over every rod with its impulse along it
 * (rt_world_rod_impulse) and the rate of its anchors' distance: what a
 * driven rod (a linear actuator) puts in as it extends under load.
 *
 * watch_init allocates what watch_step needs; a step allocates nothing. */
#ifndef LDLPGS_SIM_WATCH_H
#define LDLPGS_SIM_WATCH_H

#include "rt_world.h"

/* A motor's coordinates (m or rad). */
typedef struct watch_motor {
  int joint;        /* index in the description */
  int angular;      /* 1: an angle, unwrapped */
  double raw;       /* q as the row gave it after the last measure */
  double q;         /* q, unwrapped */
  double cmd;       /* q_cmd */
  double speed;     /* the speed at the last measure */
  double dq;        /* the change of q in the last step */
} watch_motor;

/* A rod's distance: |d| - its description's length (m). */
typedef struct watch_rod {
  int joint;
  double q, dq; /* after the last measure; its change in the last step */
} watch_rod;

typedef struct watch {
  const rt_world_desc *desc; /* the world's description (not owned) */
  int *limit;                /* joints whose row is a limit        (nlimit) */
  int nlimit;
  watch_motor *motor;        /* joints whose row is a motor        (nmotor) */
  int nmotor;
  double max_limit_violation; /* m or rad, >= 0 */
  double max_motor_slip;      /* m or rad, >= 0 */
  double max_hold_slip;       /* the same, of motors commanded to speed 0 */
  double motor_work;          /* J, the motors' work so far */
  watch_rod *rod;             /* the rods                           (nrod) */
  int nrod;
  double drive_work;          /* J, the rods' work so far */
  int worst_limit, worst_motor; /* joints of the two maxima; -1: none above 0 */
} watch;

/* Watches the inequality joints of w, made from desc, from w's current
 * state (which is not measured). Returns 0, or -1 out of memory (*wt is
 * then empty: watch_step does nothing and watch_free may be called). */
int watch_init(watch *wt, const rt_world_desc *desc, const rt_world *w);

/* Measures w after a step. */
void watch_step(watch *wt, const rt_world *w);

void watch_free(watch *wt);

#endif
