/* joint_rows.h -- the row kinds constraint types are built from (joint.c
 * derives each and its Jacobian): ball rows, dot rows, linear rows, rod
 * rows, the weld's angular rows. Runtime-internal: the type files in runtime/joints/ use
 * it. Each Jacobian row is RT_ROW_WIDTH numbers over (v_a, w_a, v_b, w_b). */
#ifndef LDLPGS_RUNTIME_JOINT_ROWS_H
#define LDLPGS_RUNTIME_JOINT_ROWS_H

#include "rt.h"

/* One side of a joint in world coordinates. */
typedef struct rt__side {
  double r[3];    /* lever arm R x */
  double pt[3];   /* anchor point p + R x */
  double f[3][3]; /* frame rows R frame[k], those rt__jrow_sides was asked for */
} rt__side;

/* The frame rows a type reads (rt__jrow_sides' frames): a's row k, b's
 * row k; the others are left unset. */
#define RT__FA(k) (1u << (k))
#define RT__FB(k) (1u << (3 + (k)))
#define RT__FRAMES_ALL 0x3fu
/* Both sides of joint at poses pa, pb (NULL: the world), with the frame
 * rows in frames (RT__FA, RT__FB), and the separation d = P_b - P_a. */
void rt__jrow_sides(const rt_joint_desc *joint, const rt_pose *pa, const rt_pose *pb, unsigned frames, rt__side *a,
                    rt__side *b, double d[3]);
/* Stores one Jacobian row; a NULL block is stored as zeros. */
void rt__jrow_put(double *row, const double va[3], const double wa[3], const double vb[3], const double wb[3]);
/* Row `row` of J, or NULL when J is NULL. */
double *rt__jrow_ptr(double *J, int row);
/* Ball rows into c[0..2] and J rows 0..2. */
void rt__jrow_ball(const rt__side *a, const rt__side *b, double *c, double *J);
/* Dot row c = A . B with A fixed in a, B fixed in b. */
void rt__jrow_dot(const double A[3], const double B[3], double *c, double *row);
/* Linear row c = d . T with T fixed in a. */
void rt__jrow_linear(const rt__side *a, const rt__side *b, const double d[3], const double T[3], double *c,
                     double *row);
/* Rod row c = |d| - length along n = d / |d|; zero row when |d| = 0. */
void rt__jrow_rod(const rt__side *a, const rt__side *b, const double d[3], double length, double *c, double *row);
/* The weld angular rows A_1.B_2, A_2.B_0, A_0.B_1 as rows first .. first+2. */
void rt__jrow_weld_angular(const rt__side *a, const rt__side *b, double *c, double *J, int first);

#endif
