/* outfile.c -- see outfile.h. */
#define _POSIX_C_SOURCE 200809L
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

//---- temporaries removed on a signal ------------------------------------------------
/* The one process-wide state of gen/: the handler can reach nothing else.
 * Slots are claimed and released by the owning thread only; the handler
 * reads a slot's path only while its `live` flag is set. */

enum { MAX_PENDING = 16, PENDING_PATH = 4096 };

static struct {
  volatile sig_atomic_t live;
  char path[PENDING_PATH];
} pending[MAX_PENDING];

static void on_signal(int sig) {
  for (int i = 0; i < MAX_PENDING; i++)
    if (pending[i].live) unlink(pending[i].path);
  signal(sig, SIG_DFL);
  raise(sig);
}

void outfile_catch_signals(void) {
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* a signal the caller ignores (nohup, a background job) stays ignored */
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sigs[i], &sa, NULL);
  }
}

/* Creates the temporary from the template tmp (mkstemp, the name written
 * back into tmp) in a claimed slot's own path, so that a signal at any
 * moment -- in any thread, also between the file's creation and its return
 * -- finds the name mkstemp is creating (the ASan build of make test-san once
 * left a temporary that a SIGINT sent as it appeared had missed). *slot:
 * the slot, or -1 if all are taken (the temporary then is not removed on a
 * signal, only on every other exit path). Returns mkstemp's descriptor. */
static int create_claimed(char *tmp, int *slot) {
  *slot = -1;
  if (strlen(tmp) < PENDING_PATH)
    for (int i = 0; i < MAX_PENDING && *slot < 0; i++)
      if (!pending[i].live) {
        memcpy(pending[i].path, tmp, strlen(tmp) + 1);
        pending[i].live = 1;
        *slot = i;
      }
  if (*slot < 0) return mkstemp(tmp);
  const int fd = mkstemp(pending[*slot].path);
  if (fd < 0) {
    pending[*slot].live = 0;
    *slot = -1;
    return fd;
  }
  memcpy(tmp, pending[*slot].path, strlen(tmp) + 1);
  return fd;
}

static void unclaim(int slot) {
  if (slot >= 0) pending[slot].live = 0;
}

//---- files ------------------------------------------------------------------------

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

static void release(outfile *o) {
  unclaim(o->slot);
  free(o->path);
  free(o->tmp);
  o->path = o->tmp = NULL;
  o->f = NULL;
  o->direct = 0;
  o->slot = -1;
}

/* The file a path names after following symbolic links, existing or not
 * (a dangling link names the file it would create). malloc'd; NULL with
 * errno set on a loop or an unreadable link. */
static char *resolve(const char *path) {
  char *cur = dup_str(path);
  for (int hop = 0; cur; hop++) {
    struct stat st;
    if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
    if (hop == 40) {
      free(cur);
      errno = ELOOP;
      return NULL;
    }
    char target[PATH_MAX];
    ssize_t n = readlink(cur, target, sizeof target - 1);
    if (n < 0) {
      free(cur);
      return NULL;
    }
    target[n] = '\0';
    char *next;
    const char *slash = strrchr(cur, '/');
    if (target[0] == '/' || !slash) {
      next = dup_str(target);
    } else { /* relative to the link's directory */
      size_t dlen = (size_t)(slash - cur) + 1;
      next = malloc(dlen + (size_t)n + 1);
      if (next) {
        memcpy(next, cur, dlen);
        memcpy(next + dlen, target, (size_t)n + 1);
      }
    }
    free(cur);
    cur = next;
  }
  errno = ENOMEM;
  return NULL;
}

/* Writes straight into what is there: stdout for "-", and pipes, terminals
 * and other devices, which cannot be renamed over and may not be read back. */
static gen_status open_direct(outfile *o, const char *path, diag_list *d) {
  o->direct = 1;
  o->path = dup_str(path);
  if (strcmp(path, "-") == 0) {
    o->f = stdout;
    return GEN_OK;
  }
  o->f = fopen(path, "w");
  if (!o->f) {
    diag_error(d, path, 0, "cannot open output file: %s", strerror(errno));
    release(o);
    return GEN_ERR_IO;
  }
  return GEN_OK;
}

gen_status outfile_open(outfile *o, const char *path, diag_list *d) {
  memset(o, 0, sizeof *o);
  o->slot = -1;
  struct stat st;
  int exists = stat(path, &st) == 0;
  if (strcmp(path, "-") == 0 || (exists && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)))
    return open_direct(o, path, d);
  if (exists && S_ISDIR(st.st_mode)) {
    diag_error(d, path, 0, "cannot write output file: it is a directory");
    return GEN_ERR_IO;
  }
  /* the temporary goes next to the file the path names, so that renaming
   * it replaces that file and leaves a symbolic link on the way a link */
  o->path = resolve(path);
  if (!o->path) {
    diag_error(d, path, 0, "cannot resolve output file: %s", strerror(errno));
    return GEN_ERR_IO;
  }
  size_t n = strlen(o->path) + 16;
  o->tmp = malloc(n);
  if (!o->tmp) {
    release(o);
    diag_error(d, path, 0, "out of memory");
    return GEN_ERR_IO;
  }
  snprintf(o->tmp, n, "%s.tmp.XXXXXX", o->path);
  int fd = create_claimed(o->tmp, &o->slot);
  if (fd < 0) {
    diag_error(d, path, 0, "cannot create output file: %s", strerror(errno));
    release(o);
    return GEN_ERR_IO;
  }
  /* the mode of the file it replaces, else what creating it would give
   * (0666 less the umask; mkstemp makes 0600) */
  mode_t mode;
  if (exists) {
    mode = st.st_mode & 07777;
  } else {
    mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  if (fchmod(fd, mode) != 0) {
    diag_error(d, path, 0, "cannot set the mode of output file: %s", strerror(errno));
    close(fd);
    unlink(o->tmp);
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
  if (o->direct) {
    if (o->f && o->f != stdout) fclose(o->f);
    release(o);
    return;
  }
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
  if (o->direct) {
    if (o->f != stdout) bad |= fclose(o->f) != 0;
    o->f = NULL;
    if (bad) diag_error(d, o->path ? o->path : "-", 0, "write failed: %s", strerror(errno));
    release(o);
    return bad ? GEN_ERR_IO : GEN_OK;
  }
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
