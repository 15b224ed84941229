/* variant.c -- the names of the three steps the inequality bench compares
 * (ineq.h). */
#include <stdio.h>
#include <string.h>

#include "ineq.h"

static const char *const keys[IQ_VARIANTS] = {"pgs", "ldlpgs_equality_only", "ldlpgs"};

const char *iq_key(iq_variant v) { return keys[v]; }

int iq_from_key(const char *key) {
  for (int v = 0; v < IQ_VARIANTS; v++)
    if (strcmp(keys[v], key) == 0) return v;
  return -1;
}

void iq_label(iq_variant v, char *buf, int n) {
  rt_settings def;
  rt_settings_default(&def);
  if (v == IQ_PGS)
    snprintf(buf, (size_t)n, "PGS");
  else
    snprintf(buf, (size_t)n, "LDL-PGS, coupled_rows %d, coupled_contacts %d", v == IQ_EQ_ONLY ? 0 : def.coupled_rows,
             v == IQ_EQ_ONLY ? 0 : def.coupled_contacts);
}
