/* fullstep.c -- see fullstep.h. */
#include "fullstep.h"

#include <stdlib.h>
#include <string.h>

#include "btime.h"
#include "mechworld.h"
#include "simrun.h"

/* Configurations: LDL-PGS single-threaded, LDL-PGS with the factorization
 * on a second thread, PGS (all three without post-stabilization, the
 * talk's step), and, for a mechanism that asks for it, LDL-PGS on two
 * threads with post-stabilization. */
enum { STEPS_PER_BATCH = 8, NCONF = 4 };

/* One batch: seconds per step. */
static double batch(rt_world *w) {
  const double t0 = bt_now();
  for (int i = 0; i < STEPS_PER_BATCH; i++) rt_world_step(w);
  return (bt_now() - t0) / STEPS_PER_BATCH;
}

int fs_measure(const mech *m, const rt_program *prog, int iterations, const ms_config *cfg, br_step *out) {
  memset(out, 0, sizeof *out);
  out->iterations = iterations;
  arena a;
  arena_init(&a);
  rt_world_desc desc;
  mechworld_desc(&a, m, &desc);
  rt_settings base;
  mechworld_settings(m, &base);
  base.iterations = iterations;
  base.stabilize = 0;
  out->stabilized = m->settings.stabilize;
  const int nconf = out->stabilized ? 4 : 3;
  const int nb = cfg->batches, nr = cfg->runs;
  double *per_run[NCONF], *per_batch = malloc(sizeof(double) * (size_t)nb * NCONF);
  for (int k = 0; k < NCONF; k++) per_run[k] = malloc(sizeof(double) * (size_t)nr);
  rt_contact *contacts = calloc((size_t)base.max_contacts + 1, sizeof *contacts);
  int rc = 0;
  for (int run = 0; run < nr && rc == 0; run++) {
    rt_world *w[NCONF] = {NULL, NULL, NULL, NULL};
    for (int k = 0; k < nconf; k++) {
      rt_settings s = base;
      s.solver = k == 2 ? RT_SOLVER_PGS : RT_SOLVER_LDLPGS;
      s.threaded = k == 1 || k == 3;
      s.stabilize = k == 3;
      w[k] = rt_world_create(&desc, prog, &s, NULL, NULL, 0);
      if (w[k] == NULL) {
        rc = -1;
        continue;
      }
      if (m->settings.has_ground) {
        const double mu = m->settings.ground_friction >= 0 ? m->settings.ground_friction : m->settings.friction;
        int n = rt_world_ground_contacts(w[k], m->settings.ground_height, mu, SIMRUN_CONTACT_MARGIN, contacts,
                                         base.max_contacts);
        rt_world_set_contacts(w[k], contacts, n < base.max_contacts ? n : base.max_contacts);
      }
      batch(w[k]); /* warm-up: caches, the thread's first wake-up */
    }
    for (int b = 0; b < nb && rc == 0; b++)
      for (int j = 0; j < nconf; j++) {
        const int k = (b + j) % nconf; /* rotating order */
        per_batch[k * nb + b] = batch(w[k]);
      }
    for (int k = 0; k < nconf; k++) {
      if (rc == 0) per_run[k][run] = bt_median(per_batch + k * nb, nb);
      rt_world_destroy(w[k]);
    }
  }
  if (rc == 0) {
    out->ldlpgs_1thread = bt_stats(per_run[0], nr);
    out->ldlpgs_2threads = bt_stats(per_run[1], nr);
    out->pgs = bt_stats(per_run[2], nr);
    if (out->stabilized) out->ldlpgs_stab = bt_stats(per_run[3], nr);
    out->measured = 1;
  }
  for (int k = 0; k < NCONF; k++) free(per_run[k]);
  free(per_batch);
  free(contacts);
  arena_free(&a);
  return rc;
}
