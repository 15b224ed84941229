/* canon.c -- the mechanism's constraints numbered in name order (canon.h). */
#include "canon.h"

#include <stdlib.h>
#include <string.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }

int canon_name_cmp(const char *a, const char *b) {
  const char *x = a, *y = b;
  while (*x && *y) {
    if (is_digit(*x) && is_digit(*y)) {
      while (*x == '0') x++;
      while (*y == '0') y++;
      size_t nx = 0, ny = 0;
      while (is_digit(x[nx])) nx++;
      while (is_digit(y[ny])) ny++;
      if (nx != ny) return nx < ny ? -1 : 1; /* fewer significant digits: smaller */
      int c = memcmp(x, y, nx);
      if (c) return c;
      x += nx;
      y += ny;
      continue;
    }
    if (*x != *y) return (unsigned char)*x < (unsigned char)*y ? -1 : 1;
    x++;
    y++;
  }
  if (*x || *y) return *x ? 1 : -1;
  return strcmp(a, b); /* equal by value ("01", "1"): by their bytes */
}

static int by_name(const void *x, const void *y) {
  return canon_name_cmp(((const mech_constraint *)x)->name, ((const mech_constraint *)y)->name);
}

void canon_constraints(arena *a, mech *m) {
  int n = m->ncons;
  if (n == 0) return;
  for (int i = 0; i < n; i++) m->cons[i].decl = i;
  qsort(m->cons, (size_t)n, sizeof *m->cons, by_name);
  int *at = ARENA_ARRAY(a, int, n); /* declaration index -> number */
  for (int i = 0; i < n; i++) at[m->cons[i].decl] = i;
  for (int i = 0; i < n; i++)
    if (m->cons[i].target >= 0) m->cons[i].target = at[m->cons[i].target];
}
