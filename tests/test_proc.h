/* test_proc.h -- helpers for tests that run ldlgen as a process: run a
 * shell command and capture its output, read a whole file. Static inline,
 * so each test program gets its own copy of what it uses. Needs _POSIX_C_SOURCE (popen). */
#ifndef LDLPGS_TEST_PROC_H
#define LDLPGS_TEST_PROC_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

/* Runs a shell command; returns its exit status, its output in out. */
static inline int run(const char *cmd, char *out, size_t cap) {
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  size_t n = fread(out, 1, cap - 1, f);
  out[n] = '\0';
  int st = pclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The whole file (NUL-terminated, *len bytes), or NULL if it cannot be read. */
static inline char *slurp(const char *path, size_t *len) {
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  assert_non_null(buf);
  *len = fread(buf, 1, (size_t)n, f);
  buf[*len] = '\0';
  fclose(f);
  return buf;
}

#endif
