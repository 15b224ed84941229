/* settings.c -- the default settings and their validation (rt_world.h). */
#include <math.h>
#include <string.h>

#include "rtmath.h"
#include "world.h"

void rt_settings_default(rt_settings *s) {
  memset(s, 0, sizeof *s);
  s->dt = 1.0 / 60.0;
  s->gravity[2] = -9.81;
  s->iterations = 10;
  s->beta = 0.2;
  s->epsilon = 1e-6;
  s->solver = RT_SOLVER_LDLPGS;
  s->block_at = RT_BLOCK_LAST;
  s->threaded = 0;
  s->max_contacts = 256;
  s->restitution = 0.0;
  s->contact_slop = 1e-3;
  s->correction = RT_CORRECT_SPLIT;
  s->max_bias = 0.05;
  s->refine = 1;
  s->project = 8;
  s->geometric_stiffness = 1;
  s->contact_passes = 24;
  s->block_solver = RT_BLOCK_LDL;
  s->pcr_tolerance = 1e-6;
  s->pcr_max_iterations = 1000;
  s->coupled_rows = 16;
  s->coupled_contacts = 16;
}

int rt__settings_valid(const rt_settings *s) {
  return isfinite(s->dt) && s->dt > 0 && rt__v3_finite(s->gravity) && s->iterations >= 1 && s->beta >= 0 &&
         s->beta <= 1 && isfinite(s->epsilon) && s->epsilon >= 0 &&
         (s->solver == RT_SOLVER_PGS || s->solver == RT_SOLVER_LDLPGS) &&
         (s->block_at == RT_BLOCK_LAST || s->block_at == RT_BLOCK_BEFORE_LAST) && s->max_contacts >= 0 &&
         s->max_contacts <= RT_MAX_CONTACTS && s->restitution >= 0 && s->restitution <= 1 && isfinite(s->contact_slop) &&
         s->contact_slop >= 0 && (s->stabilize == 0 || s->stabilize == 1) &&
         (s->correction == RT_CORRECT_SPLIT || s->correction == RT_CORRECT_BAUMGARTE) && isfinite(s->max_bias) &&
         s->max_bias >= 0 && s->refine >= 0 && s->refine <= RT_MAX_REFINE && s->project >= 0 &&
         s->project <= RT_MAX_REFINE && (s->geometric_stiffness == 0 || s->geometric_stiffness == 1) &&
         s->contact_passes >= 0 && s->contact_passes <= RT_MAX_CONTACT_PASSES &&
         (s->block_solver == RT_BLOCK_LDL || s->block_solver == RT_BLOCK_PCR) && isfinite(s->pcr_tolerance) &&
         s->pcr_tolerance >= 0 && s->pcr_max_iterations >= 0 && s->coupled_rows >= 0 &&
         s->coupled_rows <= RT_MAX_COUPLED_ROWS && s->coupled_contacts >= 0 &&
         s->coupled_contacts <= RT_MAX_COUPLED_CONTACTS && s->threaded >= 0 && s->threaded <= RT_THREADED_ALWAYS;
}
