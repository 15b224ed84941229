/* test_outfile.c -- output files (gen/outfile.c, used by ldlgen's outputs
 * and ldlsim's --csv): pipes, devices and "-" are written directly (ldlsim
 * --csv /dev/stdout | head must not hang); a symbolic link is followed and
 * its target replaced; the mode of the file replaced is kept, a new file
 * gets 0666 less the umask; an interrupted run leaves no temporary. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "outfile.h"
#include "test_proc.h"

static char dir[64];
static char ldlsim[512];

static int setup(void **state) {
  (void)state;
  const char *slash = strrchr(LDLGEN_PATH, '/');
  snprintf(ldlsim, sizeof ldlsim, "%.*s/ldlsim", (int)(slash - LDLGEN_PATH), LDLGEN_PATH);
  snprintf(dir, sizeof dir, "/tmp/ldlgen-outfile-XXXXXX");
  umask(022);
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* Entries of dir whose name contains "tmp". */
static int temporaries(void) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strstr(e->d_name, "tmp")) n++;
  closedir(d);
  return n;
}

/* Writes text through an outfile at path and commits it. */
static gen_status write_through(const char *path, const char *text) {
  diag_list d;
  diag_init(&d);
  outfile o;
  gen_status st = outfile_open(&o, path, &d);
  if (st == GEN_OK) {
    fputs(text, o.f);
    st = outfile_commit(&o, &d);
  }
  outfile_abort(&o);
  if (st != GEN_OK) diag_print(&d, stderr);
  diag_free(&d);
  return st;
}

static void test_pipe_is_written_directly(void **state) {
  (void)state;
  char cmd[2048], out[4096];
  /* the run is long: only a pipe read as it is written ends it early */
  snprintf(cmd, sizeof cmd,
           "cd %s && timeout 120 %s %s/mechanisms/track.lua --steps 100000 --csv /dev/stdout | head -3 | wc -l", dir,
           ldlsim, SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_int_equal(atoi(out), 3);
  /* "-" is stdout */
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --steps 4 --csv - | grep -c '^[0-9]'", ldlsim, SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_int_equal(atoi(out), 4);
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --report - --dot /dev/null | grep -c '\"constraint\"'",
           LDLGEN_PATH, SRC_DIR);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_int_equal(atoi(out), 11);
  /* a named pipe (FIFO) read by another process */
  char fifo[128];
  snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  assert_int_equal(mkfifo(fifo, 0644), 0);
  snprintf(cmd, sizeof cmd, "cat %s > %s/fromfifo & %s %s/mechanisms/chain.lua --report %s; wait; grep -c '\"constraint\"' %s/fromfifo",
           fifo, dir, LDLGEN_PATH, SRC_DIR, fifo, dir);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_int_equal(atoi(out), 11);
  struct stat st;
  assert_int_equal(stat(fifo, &st), 0);
  assert_true(S_ISFIFO(st.st_mode));
  unlink(fifo);
  /* a character device stays one */
  assert_int_equal(write_through("/dev/null", "nothing\n"), GEN_OK);
  assert_int_equal(stat("/dev/null", &st), 0);
  assert_true(S_ISCHR(st.st_mode));
  assert_int_equal(temporaries(), 0);
}

static void test_symlink_target_replaced(void **state) {
  (void)state;
  char target[128], link[128], sub[128], dangling[160], rel[160];
  snprintf(target, sizeof target, "%s/target.txt", dir);
  snprintf(link, sizeof link, "%s/link.txt", dir);
  assert_int_equal(write_through(target, "old\n"), GEN_OK);
  assert_int_equal(symlink("target.txt", link), 0); /* relative to the link's directory */
  assert_int_equal(write_through(link, "new\n"), GEN_OK);
  struct stat st;
  assert_int_equal(lstat(link, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  size_t len;
  char *text = slurp(target, &len);
  assert_string_equal(text, "new\n");
  free(text);
  /* a dangling link: its target is created */
  snprintf(sub, sizeof sub, "%s/sub", dir);
  assert_int_equal(mkdir(sub, 0755), 0);
  snprintf(dangling, sizeof dangling, "%s/dangling.txt", dir);
  snprintf(rel, sizeof rel, "%s/sub/made.txt", dir);
  assert_int_equal(symlink(rel, dangling), 0);
  assert_int_equal(write_through(dangling, "made\n"), GEN_OK);
  text = slurp(rel, &len);
  assert_string_equal(text, "made\n");
  free(text);
  assert_int_equal(lstat(dangling, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  /* a loop is an error, not a hang */
  char a[128], b[128];
  snprintf(a, sizeof a, "%s/loop_a", dir);
  snprintf(b, sizeof b, "%s/loop_b", dir);
  assert_int_equal(symlink(b, a), 0);
  assert_int_equal(symlink(a, b), 0);
  assert_int_equal(write_through(a, "x\n"), GEN_ERR_IO);
  assert_int_equal(temporaries(), 0);
}

static void test_mode_kept(void **state) {
  (void)state;
  char path[128];
  struct stat st;
  snprintf(path, sizeof path, "%s/new.txt", dir);
  assert_int_equal(write_through(path, "a\n"), GEN_OK);
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0644); /* umask 022 */
  assert_int_equal(chmod(path, 0640), 0);
  assert_int_equal(write_through(path, "b\n"), GEN_OK);
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0640);
  assert_int_equal(chmod(path, 0755), 0); /* and through a link */
  char link[160];
  snprintf(link, sizeof link, "%s/new_link.txt", dir);
  assert_int_equal(symlink(path, link), 0);
  assert_int_equal(write_through(link, "c\n"), GEN_OK);
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0755);
  /* ldlgen's generated files too */
  char cmd[2048], out[1024];
  snprintf(cmd, sizeof cmd, "umask 027 && %s %s/mechanisms/chain.lua -o %s/gen.c", LDLGEN_PATH, SRC_DIR, dir);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  snprintf(path, sizeof path, "%s/gen.h", dir);
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0640);
  assert_int_equal(temporaries(), 0);
}

/* SIGINT and SIGTERM during a long ldlsim run: the process dies of the
 * signal and neither the file nor its temporary is left. */
static void test_signal_removes_temporary(void **state) {
  (void)state;
  static const int sigs[] = {SIGINT, SIGTERM};
  for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
    char csv[128], track[512], steps[] = "10000000"; /* the lift: at rest on the ground, never ends early */
    snprintf(csv, sizeof csv, "%s/run%zu.csv", dir, k);
    snprintf(track, sizeof track, "%s/mechanisms/scissor_lift.lua", SRC_DIR);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
      signal(SIGINT, SIG_DFL); /* as from a shell, not ignored */
      execl(ldlsim, ldlsim, track, "--steps", steps, "--csv", csv, (char *)NULL);
      _exit(127);
    }
    /* wait for the temporary to appear (ldlsim loads and plans first) */
    int seen = 0;
    for (int i = 0; i < 600 && !seen; i++) {
      seen = temporaries() > 0;
      if (!seen) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
      }
    }
    assert_true(seen);
    kill(pid, sigs[k]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), sigs[k]);
    assert_int_equal(temporaries(), 0);
    assert_int_equal(access(csv, F_OK), -1);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pipe_is_written_directly),
      cmocka_unit_test(test_symlink_target_replaced),
      cmocka_unit_test(test_mode_kept),
      cmocka_unit_test(test_signal_removes_temporary),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
