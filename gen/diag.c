/* diag.c -- diagnostics list: see diag.h. */
#include "diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void diag_init(diag_list *d) { memset(d, 0, sizeof *d); }

void diag_free(diag_list *d) {
  for (int i = 0; i < d->n; i++) {
    free(d->items[i].file);
    free(d->items[i].msg);
  }
  free(d->items);
  memset(d, 0, sizeof *d);
}

static char *dup_str(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

void diag_error(diag_list *d, const char *file, int line, const char *fmt, ...) {
  if (d->n == d->cap) {
    int cap = d->cap ? 2 * d->cap : 8;
    diag *items = realloc(d->items, (size_t)cap * sizeof *items);
    if (!items) return; /* out of memory: the error is lost, the status is not */
    d->items = items;
    d->cap = cap;
  }
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *msg = malloc((size_t)(len > 0 ? len : 0) + 1);
  if (!msg) return;
  va_start(ap, fmt);
  vsnprintf(msg, (size_t)(len > 0 ? len : 0) + 1, fmt, ap);
  va_end(ap);
  diag *x = &d->items[d->n++];
  x->file = dup_str(file);
  x->line = line;
  x->msg = msg;
}

void diag_print(const diag_list *d, FILE *out) {
  for (int i = 0; i < d->n; i++) {
    const diag *x = &d->items[i];
    if (x->file && x->line > 0)
      fprintf(out, "%s:%d: error: %s\n", x->file, x->line, x->msg);
    else if (x->file)
      fprintf(out, "%s: error: %s\n", x->file, x->msg);
    else
      fprintf(out, "error: %s\n", x->msg);
  }
}
