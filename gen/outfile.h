/* outfile.h -- output files that appear whole or not at all.
 *
 * Output to a file goes to a temporary next to the destination;
 * outfile_commit renames it over the destination (leaving an identical
 * existing file untouched, so make does not rebuild what depends on it),
 * outfile_abort deletes it. A destination that is a symbolic link is
 * followed: its target is replaced and the link stays. The file keeps the
 * mode of the one it replaces, or gets 0666 less the umask when new. "-"
 * (stdout), pipes, terminals and other devices are written directly: they
 * cannot be renamed over or read back. */
#ifndef LDLPGS_GEN_OUTFILE_H
#define LDLPGS_GEN_OUTFILE_H

#include <stdio.h>

#include "diag.h"

typedef struct outfile {
  char *path;   /* the file replaced (symbolic links followed) */
  char *tmp;    /* the temporary; NULL when direct */
  FILE *f;
  int direct;   /* written in place: stdout, a pipe or a device */
  int slot;     /* in the list of temporaries removed on a signal, or -1 */
} outfile;

gen_status outfile_open(outfile *o, const char *path, diag_list *d);
gen_status outfile_commit(outfile *o, diag_list *d);
void outfile_abort(outfile *o);

/* Installs handlers for SIGINT, SIGTERM and SIGHUP (unless ignored) that
 * delete the temporaries of open outfiles, then die of the signal as they
 * would have. For programs' main(): the library itself never installs them. */
void outfile_catch_signals(void);

#endif
