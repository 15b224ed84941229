/* replay.c -- runs a fuzz target without libFuzzer: every file named on
 * the command line, and every file in every directory named, goes once
 * through LLVMFuzzerTestOneInput (LLVMFuzzerInitialize first, where the
 * target has one). make test replays the seed corpora and every input that
 * ever crashed (tests/fuzz/regressions/TARGET/) this way, in the plain and
 * the sanitizer builds. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return 1;
  }
  size_t cap = 4096, len = 0;
  unsigned char *buf = malloc(cap);
  size_t n;
  while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
    len += n;
    if (len == cap) {
      unsigned char *more = realloc(buf, cap *= 2);
      if (!more) free(buf);
      buf = more;
    }
  }
  fclose(f);
  if (!buf) return 1;
  LLVMFuzzerTestOneInput(buf, len);
  free(buf);
  return 0;
}

static int cmp_str(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  int bad = 0, count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) continue; /* an empty regressions directory is not in git */
    if (!S_ISDIR(st.st_mode)) {
      bad |= replay_file(argv[i]);
      count++;
      continue;
    }
    DIR *dir = opendir(argv[i]);
    if (!dir) continue;
    char **names = NULL;
    size_t nn = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
      if (e->d_name[0] == '.') continue;
      char **more = realloc(names, sizeof *names * (nn + 1));
      if (!more) break;
      names = more;
      size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
      names[nn] = malloc(len);
      if (!names[nn]) break;
      snprintf(names[nn++], len, "%s/%s", argv[i], e->d_name);
    }
    closedir(dir);
    qsort(names, nn, sizeof *names, cmp_str); /* the same order every time */
    for (size_t k = 0; k < nn; k++) {
      bad |= replay_file(names[k]);
      count++;
      free(names[k]);
    }
    free(names);
  }
  printf("%s: %d inputs replayed\n", argv[0], count);
  return bad;
}
