/* gltf.h -- a run as an animated binary glTF 2.0 file (.glb): what
 * `ldlsim --gltf` writes and the browser viewer (viewer.h) plays.
 *
 * A recording samples every body's pose and error while simrun steps the
 * world (it is simrun's observe hook): the initial state, then every
 * `every` steps, then the last state. Samples are appended to buffers
 * reserved for the expected number of steps (they grow by doubling past
 * that); nothing else is allocated while stepping.
 *
 * The file: one scene, one node per body named as in the mechanism, in
 * mechanism order, with a mesh for its shape (the collision shape if it has
 * one, else the solid its inertia was given as: box, sphere, cylinder,
 * capsule; else a small axis cross drawn as lines, red x, green y, blue z),
 * and one animation with a translation and a rotation channel per node
 * (linear interpolation between samples). Units are metres and seconds.
 *
 * Coordinates: glTF is +Y up, mechanisms are +Z up. A mechanism point
 * (x, y, z) is the glTF point (x, z, -y): the rotation C of -90 degrees
 * about x. Meshes stay in body coordinates (a cylinder's axis is the body's
 * z), and a body pose (p, q) becomes the node transform (C p, qC q), so the
 * node maps a body point b to C (p + R(q) b). */
#ifndef LDLPGS_SIM_GLTF_H
#define LDLPGS_SIM_GLTF_H

#include <stddef.h>
#include <stdio.h>

#include "diag.h"
#include "mech.h"
#include "rt_world.h"

typedef struct gltf_recording {
  const mech *m;
  double dt;            /* s per step */
  int every;            /* a sample every `every` steps */
  int nbody;
  int n, cap;           /* samples recorded, room for */
  int last_steps;       /* steps of the last sample (-1: none yet) */
  float *time;          /* n: s */
  float *pose;          /* n x nbody x 7: translation x y z, rotation x y z w (glTF frame) */
  float *error;         /* n x nbody: the largest positional error (m) of the
                           equality joints at the body (rt_world_joint_error);
                           0 for a body without any */
  int *eq;              /* equality joints of m (neq) */
  int neq;
  int nonfinite;        /* a state with a non-finite pose was seen and not recorded */
  int nomem;            /* a sample was dropped: out of memory */
} gltf_recording;

/* Steps per sample for about 60 samples per second of simulated time (at least 1). */
int gltf_default_every(double dt);

/* Prepares r for mechanism m stepped by dt, a sample every `every` steps,
 * with room for a run of `steps` steps. Returns 0, or -1 out of memory. */
int gltf_record_init(gltf_recording *r, const mech *m, double dt, int every, int steps);
void gltf_record_free(gltf_recording *r);

/* simrun's observe hook (ctx: the recording): samples the world after
 * `steps` steps when steps is a multiple of `every`. */
void gltf_record_observe(const rt_world *w, int steps, double time, void *ctx);

/* Samples the world's current state as the last one, after `steps` steps,
 * unless that is already the last sample (a run that stopped between two
 * samples ends with its final state). */
void gltf_record_finish(gltf_recording *r, const rt_world *w, int steps);

/* The largest error over the recording (m). */
double gltf_record_max_error(const gltf_recording *r);

/* Writes the recording as a .glb; the animation is named `name`. Returns
 * GEN_OK, or GEN_ERR_IO if writing failed or memory ran out. */
gen_status gltf_write(FILE *out, const gltf_recording *r, const char *name);

/* gltf_write to a temporary next to path, renamed into place on success. */
gen_status gltf_write_file(const char *path, const gltf_recording *r, const char *name, diag_list *d);

/* The .glb in memory (malloc'ed, *len bytes), or NULL. */
unsigned char *gltf_write_memory(const gltf_recording *r, const char *name, size_t *len);

#endif
