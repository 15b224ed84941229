/* results.c -- lookups in the measured results (see results.h). */
#include "results.h"

#include <string.h>

int br_find(const br_mech *m, const char *name, const char *prec) {
  for (int k = 0; k < m->nmethod; k++)
    if (strcmp(m->method[k].name, name) == 0 && strcmp(m->method[k].precision, prec) == 0) return k;
  return -1;
}
