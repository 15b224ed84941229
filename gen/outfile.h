/* outfile.h -- output files that appear whole or not at all.
 *
 * Output goes to a temporary next to the destination; outfile_commit renames
 * it over the destination (leaving an identical existing file untouched, so
 * make does not rebuild what depends on it), outfile_abort deletes it. */
#ifndef LDLPGS_GEN_OUTFILE_H
#define LDLPGS_GEN_OUTFILE_H

#include <stdio.h>

#include "diag.h"

typedef struct outfile {
  char *path;
  char *tmp;
  FILE *f;
} outfile;

gen_status outfile_open(outfile *o, const char *path, diag_list *d);
gen_status outfile_commit(outfile *o, diag_list *d);
void outfile_abort(outfile *o);

#endif
