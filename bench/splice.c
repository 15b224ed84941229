/* splice.c -- replace a marked region of a text file (see report.h). The
 * file is rewritten through a temporary and renamed into place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  if (!buf) abort();
  size_t got;
  while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      cap *= 2;
      buf = realloc(buf, cap + 1);
      if (!buf) abort();
    }
  }
  fclose(f);
  buf[n] = '\0';
  *len = n;
  return buf;
}

int br_splice_file(const char *path, const char *begin, const char *end, const char *text) {
  size_t len;
  char *old = slurp(path, &len);
  if (!old) return -1;
  char *b = strstr(old, begin);
  char *e = b ? strstr(b, end) : NULL;
  char *b_eol = b ? strchr(b, '\n') : NULL;
  if (!b || !e || !b_eol || b_eol > e) {
    free(old);
    return -1;
  }
  size_t tmp_len = strlen(path) + 8;
  char *tmp = malloc(tmp_len);
  if (!tmp) abort();
  snprintf(tmp, tmp_len, "%s.tmp", path);
  FILE *f = fopen(tmp, "wb");
  int ok = f != NULL;
  if (ok) {
    fwrite(old, 1, (size_t)(b_eol + 1 - old), f); /* up to the begin marker's line */
    fputs(text, f);
    fputs(e, f); /* the end marker and the rest */
    ok = fclose(f) == 0;
  }
  ok = ok && rename(tmp, path) == 0;
  if (!ok) remove(tmp);
  free(tmp);
  free(old);
  return ok ? 0 : -1;
}
