/* load.h -- the sandboxed mechanism loader.
 *
 * Runs a mechanism file (a Lua 5.4 chunk returning a table) in a fresh Lua
 * state with only the basic functions, math, string and table libraries, a
 * bound on executed instructions and a bound on memory, then validates the
 * returned table and converts it into a mech. Every mistake is reported as a
 * diagnostic at the file and line of the table that holds it. */
#ifndef LDLPGS_GEN_LOAD_H
#define LDLPGS_GEN_LOAD_H

#include "arena.h"
#include "diag.h"
#include "mech.h"

typedef struct load_limits {
  long long max_instructions; /* VM instructions; default 100 million */
  size_t max_memory;          /* bytes of Lua heap; default 256 MiB */
} load_limits;

void load_default_limits(load_limits *lim);

/* Loads path into *out (strings and arrays in arena a). Returns GEN_OK, or an
 * error status with at least one diagnostic in d. lim may be NULL. */
gen_status load_mech(arena *a, const char *path, const load_limits *lim, mech *out, diag_list *d);

/* Same, from a string; chunkname is used as the file name in diagnostics. */
gen_status load_mech_string(arena *a, const char *chunkname, const char *src,
                            const load_limits *lim, mech *out, diag_list *d);

#endif
