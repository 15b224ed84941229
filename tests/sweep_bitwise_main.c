/* sweep_bitwise_main.c -- make check-bitwise, the generated sweep and
 * assembly: linked
 * with generated programs compiled by one compiler at one optimization
 * level (build/bitwise/sweep_CC-OPT, the Makefile's BITWISE_SWEEP_NAMES).
 * For each program, under the mechanism's settings and under PGS, a world
 * stepped with the program (its equality rows swept by the generated
 * sweep, rt_program.sweep, and H~ assembled by rt_program.assemble) and
 * one stepped with a copy without them (the runtime's generic sweep and
 * assembly) must give bitwise the same bodies after every
 * step; it prints one line per program and settings with the hash of the
 * states after the last step. Every build must print the same lines. Exit
 * status 1 if the two worlds differed or the generated sweep never ran
 * where sweeps did. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rt_world.h"

typedef struct gentest_world {
  const rt_world_desc *desc;
  const rt_settings *settings;
  rt_world *(*create)(const rt_settings *, rt_status *);
} gentest_world;
extern const rt_program *const sweep_programs[];
extern const gentest_world sweep_programs_worlds[];

enum { STEPS = 60 };

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 0x100000001b3ull;
  return h;
}

/* FNV-1a of every body's pose and velocities. */
static uint64_t state_hash(const rt_world *w) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int i = 0; i < rt_world_body_count(w); i++) {
    rt_pose p;
    double v[3], av[3];
    rt_world_body_pose(w, i, &p);
    rt_world_body_velocity(w, i, v, av);
    h = fnv(h, &p, sizeof p);
    h = fnv(h, v, sizeof v);
    h = fnv(h, av, sizeof av);
  }
  return h;
}

int main(void) {
  int rc = 0;
  for (int i = 0; sweep_programs[i]; i++) {
    const rt_program *p = sweep_programs[i];
    rt_program generic = *p;
    generic.sweep = NULL;
    generic.sweep_side = NULL;
    generic.assemble = NULL;
    for (int config = 0; config < 2; config++) {
      rt_settings set = *sweep_programs_worlds[i].settings;
      if (config == 1) set.solver = RT_SOLVER_PGS;
      char err[256];
      rt_world *wg = rt_world_create(sweep_programs_worlds[i].desc, p, &set, NULL, err, sizeof err);
      rt_world *wn = rt_world_create(sweep_programs_worlds[i].desc, &generic, &set, NULL, err, sizeof err);
      if (!wg || !wn) {
        printf("%s: no world: %s\n", p->name, err);
        return 1;
      }
      long long ran = 0, sweeps = 0;
      int k = 0, same = 1;
      for (; k < STEPS && same; k++) {
        const rt_status a = rt_world_step(wg), b = rt_world_step(wn);
        ran += rt_world_step_info(wg)->program_sweeps;
        sweeps += rt_world_step_info(wg)->sweeps;
        same = a == b && state_hash(wg) == state_hash(wn);
        if (a != RT_OK) break;
      }
      const char *label = config ? "PGS" : "own settings";
      printf("%s %s %s %016" PRIx64, p->name, p->precision == RT_FLOAT ? "float" : "double", label, state_hash(wg));
      if (!same) printf(" FAILED: the generated sweep differs from the generic one at step %d", k - 1);
      /* LDL-PGS sweeps not at all when every row outside the block is
       * coupled to it (step.c); PGS always does */
      const int missed = ran == 0 && (sweeps > 0 || config == 1);
      if (missed) printf(" FAILED: the generated sweep never ran");
      printf("\n");
      rc |= !same || missed;
      rt_world_destroy(wg);
      rt_world_destroy(wn);
    }
  }
  return rc;
}
