/* preset.c -- see preset.h. */
#include "preset.h"

#include <string.h>

static const preset presets[] = {
    {"fast", RT_FLOAT, 1, "float program, double state and residual, one refinement step"},
    {"accurate", RT_DOUBLE, 0, "double program"},
    {"float", RT_FLOAT, 0, "float program, no refinement"},
};

#define NPRESET ((int)(sizeof presets / sizeof presets[0]))

const preset *preset_find(const char *name) {
  for (int i = 0; i < NPRESET; i++)
    if (strcmp(presets[i].name, name) == 0) return &presets[i];
  return NULL;
}

const preset *preset_all(int *n) {
  *n = NPRESET;
  return presets;
}

const char *preset_names(void) { return "fast, accurate or float"; }
