/* subcmd.c -- see subcmd.h. */
#include "subcmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "emit.h"
#include "gdiff.h"
#include "outfile.h"

/* ldlgen --kernels-header FILE [--templates DIR] */
static int kernels_header(int argc, char **argv, const char *version) {
  emit_options eo;
  emit_default_options(&eo);
  eo.version = version;
  const char *out = NULL;
  for (int i = 1; i < argc; i++) {
    if (i + 1 < argc && strcmp(argv[i], "--kernels-header") == 0)
      out = argv[++i];
    else if (i + 1 < argc && strcmp(argv[i], "--templates") == 0)
      eo.templates_dir = argv[++i];
    else {
      fprintf(stderr, "ldlgen: usage: ldlgen --kernels-header FILE [--templates DIR]\n");
      return 2;
    }
  }
  if (!out) {
    fprintf(stderr, "ldlgen: --kernels-header needs a file\n");
    return 2;
  }
  diag_list d;
  diag_init(&d);
  char *text = NULL;
  size_t len = 0;
  outfile f = {0};
  gen_status st = emit_kernels_header(&eo, &text, &len, &d);
  if (st == GEN_OK && (st = outfile_open(&f, out, &d)) == GEN_OK) {
    fwrite(text, 1, len, f.f);
    st = outfile_commit(&f, &d);
  }
  outfile_abort(&f);
  free(text);
  diag_print(&d, stderr);
  diag_free(&d);
  return st == GEN_OK ? 0 : st == GEN_ERR_USAGE ? 2 : 1;
}

/* ldlgen --diff OLD NEW [--json], ldlgen --textconv FILE.c */
static int diff_cmd(int argc, char **argv, int textconv) {
  const char *files[2] = {NULL, NULL};
  int nfile = 0, json = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--diff") == 0 || strcmp(argv[i], "--textconv") == 0) continue;
    if (strcmp(argv[i], "--json") == 0 && !textconv)
      json = 1;
    else if (argv[i][0] != '-' && nfile < 2)
      files[nfile++] = argv[i];
    else
      nfile = 3;
  }
  if (nfile != (textconv ? 1 : 2)) {
    fprintf(stderr, "ldlgen: usage: ldlgen --diff OLD NEW [--json] (mechanism files or generated .c files),\n"
                    "       ldlgen --textconv FILE.c\n");
    return 2;
  }
  diag_list d;
  diag_init(&d);
  gen_status st = textconv ? gdiff_textconv(files[0], stdout, &d) : gdiff_run(files[0], files[1], json, stdout, &d);
  diag_print(&d, stderr);
  diag_free(&d);
  if (fflush(stdout) != 0 && st == GEN_OK) st = GEN_ERR_IO;
  return st == GEN_OK ? 0 : st == GEN_ERR_USAGE ? 2 : 1;
}

int subcmd_main(int argc, char **argv, const char *version) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--kernels-header") == 0) return kernels_header(argc, argv, version);
    if (strcmp(argv[i], "--diff") == 0) return diff_cmd(argc, argv, 0);
    if (strcmp(argv[i], "--textconv") == 0) return diff_cmd(argc, argv, 1);
  }
  return -1;
}
