/* dot.h -- Graphviz DOT output of a program's body graph (shards included)
 * and constraint graph (fill-in edges dashed red, pivot order in labels). */
#ifndef LDLPGS_GEN_DOT_H
#define LDLPGS_GEN_DOT_H

#include <stdio.h>

#include "program.h"

void dot_write(const program *p, FILE *out);

#endif
