/* typedoc.h -- the constraint types as documentation: the Markdown table
 * `ldlgen --types` prints and README.md carries, written from the type
 * table (rt_joint_type.h), so the documentation cannot drift from the
 * types. */
#ifndef LDLPGS_GEN_TYPEDOC_H
#define LDLPGS_GEN_TYPEDOC_H

#include <stdio.h>

void typedoc_write(FILE *out);

#endif
