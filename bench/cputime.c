/* cputime.c -- `cputime OUT CMD [ARG...]` runs CMD and writes the CPU time
 * it used (user + system seconds, children included) to the file OUT; exits
 * with CMD's status. make bench uses it to record the compile time of every
 * generated file. */
#define _POSIX_C_SOURCE 200809L
#include <spawn.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv) {
  if (argc < 3) {
    fputs("usage: cputime OUT CMD [ARG...]\n", stderr);
    return 2;
  }
  pid_t pid;
  if (posix_spawnp(&pid, argv[2], NULL, NULL, argv + 2, environ) != 0) {
    perror(argv[2]);
    return 127;
  }
  int status;
  if (waitpid(pid, &status, 0) < 0) {
    perror("waitpid");
    return 127;
  }
  struct rusage ru;
  getrusage(RUSAGE_CHILDREN, &ru);
  const double cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
                     1e-6 * (double)ru.ru_stime.tv_usec;
  FILE *f = fopen(argv[1], "w");
  if (!f || fprintf(f, "%.3f\n", cpu) < 0 || fclose(f) != 0) {
    perror(argv[1]);
    return 127;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}
