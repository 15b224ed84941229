/* convoy.h -- make demo's convoy (issue 21, part 4): 8 tanks
 * (mechanisms/tank.lua), each at its own place and driven by its own script
 * (mechanisms/convoy/tankK.drive), stepped together in one rt_batch of 8
 * double lanes (rt_batch.h) with the batch program the build generates
 * (ldlgen --batch 8 --precision double --prefix tank_b8). Beside them, the
 * same 8 tanks stepped one by one with rt_world_step and the same program's
 * scalar entry points: the two must give the same bits after every step,
 * and the demo shows what the batch saves. */
#ifndef LDLPGS_TOOLS_CONVOY_H
#define LDLPGS_TOOLS_CONVOY_H

#include "arena.h"
#include "diag.h"
#include "gltf.h"
#include "viewer.h"

enum { CONVOY_TANKS = 8, CONVOY_GLTF_EVERY = 3 };

/* The convoy as a scene of the browser viewer (sim/viewer.h): a run per
 * tank, its batch copy recorded every CONVOY_GLTF_EVERY steps (20 samples
 * a second at 60 Hz: the page's 8 tanks about 13 MB), all in one view. */
typedef struct convoy_view {
  gltf_recording rec[CONVOY_TANKS];
  viewer_run run[CONVOY_TANKS];
  char label[CONVOY_TANKS][48];
  char caption[160];
  viewer_scene scene; /* valid after convoy_run returned GEN_OK */
} convoy_view;

typedef struct convoy_options {
  const char *src;  /* the tree holding mechanisms/ (tank.lua, convoy/) */
  const char *dir;  /* where the outputs go */
  int iterations;   /* solver iterations per step */
  double seconds;   /* simulated time */
  convoy_view *view; /* NULL, or filled for the viewer (convoy_view_free) */
} convoy_options;

/* Runs the convoy and prints its table: per tank the distance, start and
 * final position, heading, largest joint error and failed steps; the wall
 * time of a batch step against the 8 scalar steps; whether the two sides
 * agreed bit for bit. Writes dir/convoy_paths.svg (the hulls' x-y paths)
 * and dir/convoy_tankK.csv (K = 1..8: the hull's state after every step);
 * with o->view, records every batch copy for the viewer too.
 * Returns GEN_ERR_INPUT, after a message in d, if a file is wrong or a
 * batch copy ever differs from its tank stepped alone; GEN_ERR_IO if an
 * output cannot be written. */
gen_status convoy_run(const convoy_options *o, arena *a, diag_list *d);

/* The recordings of a view convoy_run filled (or began to: after a
 * failure too); then the view is empty. */
void convoy_view_free(convoy_view *v);

#endif
