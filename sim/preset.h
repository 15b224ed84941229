/* preset.h -- precision presets (README, "Precision presets"): named
 * bundles of existing switches, as SAP Warp names its own
 * (../shared/seeds/sap-warp-solver.txt), each of which a user can still
 * override one by one (ldlsim: --precision, --refine after or before
 * --preset). The world's state and the block step's residual are in double
 * under every preset; what a preset picks is the program's precision and
 * how many refinement steps follow its solve (rt_settings.refine). */
#ifndef LDLPGS_SIM_PRESET_H
#define LDLPGS_SIM_PRESET_H

#include "rt.h"

typedef struct preset {
  const char *name;
  rt_precision precision; /* of the program (ldlgen --precision) */
  int refine;             /* refinement steps (rt_settings.refine) */
  const char *doc;        /* one line: what it is for */
} preset;

/* The preset called name, or NULL. */
const preset *preset_find(const char *name);
/* Every preset, in the order the README lists them; n receives the count. */
const preset *preset_all(int *n);
/* "fast, accurate or float": the names for a usage message. */
const char *preset_names(void);

#endif
