/* subcmd.h -- ldlgen's commands that build no program from the command
 * line's options: --kernels-header FILE (rt_kernels.h), --diff OLD NEW and
 * --textconv FILE.c (the structural diff, gen/gdiff.h). main.c hands them
 * argv first. */
#ifndef LDLPGS_GEN_SUBCMD_H
#define LDLPGS_GEN_SUBCMD_H

/* -1 when argv is not one of these commands; else the exit status (0, 1 for
 * an input or I/O error, 2 for a usage error), diagnostics printed. */
int subcmd_main(int argc, char **argv, const char *version);

#endif
