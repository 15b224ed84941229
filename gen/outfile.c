/* outfile.c -- see outfile.h. */
#define _POSIX_C_SOURCE 200809L
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

static void release(outfile *o) {
  free(o->path);
  free(o->tmp);
  o->path = o->tmp = NULL;
  o->f = NULL;
}

gen_status outfile_open(outfile *o, const char *path, diag_list *d) {
  memset(o, 0, sizeof *o);
  o->path = dup_str(path);
  size_t n = strlen(path) + 16;
  o->tmp = malloc(n);
  if (!o->path || !o->tmp) {
    release(o);
    diag_error(d, path, 0, "out of memory");
    return GEN_ERR_IO;
  }
  snprintf(o->tmp, n, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(o->tmp);
  if (fd < 0) {
    diag_error(d, path, 0, "cannot create output file: %s", strerror(errno));
    release(o);
    return GEN_ERR_IO;
  }
  o->f = fdopen(fd, "w");
  if (!o->f) {
    close(fd);
    unlink(o->tmp);
    diag_error(d, path, 0, "cannot open output file: %s", strerror(errno));
    release(o);
    return GEN_ERR_IO;
  }
  return GEN_OK;
}

void outfile_abort(outfile *o) {
  if (!o->tmp) return;
  if (o->f) fclose(o->f);
  unlink(o->tmp);
  release(o);
}

/* 1 if files a and b have the same bytes. */
static int same_contents(const char *a, const char *b) {
  FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
  int same = fa && fb;
  while (same) {
    int ca = fgetc(fa), cb = fgetc(fb);
    if (ca != cb) same = 0;
    if (ca == EOF || cb == EOF) break;
  }
  if (fa) fclose(fa);
  if (fb) fclose(fb);
  return same;
}

gen_status outfile_commit(outfile *o, diag_list *d) {
  int bad = fflush(o->f) != 0 || ferror(o->f);
  bad |= fclose(o->f) != 0;
  o->f = NULL;
  if (bad) {
    diag_error(d, o->path, 0, "write failed: %s", strerror(errno));
    unlink(o->tmp);
    release(o);
    return GEN_ERR_IO;
  }
  if (same_contents(o->tmp, o->path)) {
    unlink(o->tmp);
  } else if (rename(o->tmp, o->path) != 0) {
    diag_error(d, o->path, 0, "cannot replace output file: %s", strerror(errno));
    unlink(o->tmp);
    release(o);
    return GEN_ERR_IO;
  }
  release(o);
  return GEN_OK;
}
