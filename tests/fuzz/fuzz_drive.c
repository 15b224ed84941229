/* fuzz_drive.c -- libFuzzer target: the drive-script parser (sim/drive.c)
 * on arbitrary text, for the buggy (motors, a driven rack) loaded once;
 * a script that parses drives a world for a few steps. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive.h"
#include "fuzz.h"
#include "mechworld.h"
#include "rtprog.h"
#include "simrun.h"

static arena keep;
static mech buggy;
static rt_program rp;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  arena_init(&keep);
  diag_list d;
  diag_init(&d);
  program p;
  program_options po;
  program_default_options(&po);
  if (load_mech(&keep, SRC_DIR "/mechanisms/buggy.lua", NULL, &buggy, &d) != GEN_OK ||
      program_build(&keep, &buggy, &po, &p, &d) != GEN_OK) {
    diag_print(&d, stderr);
    abort();
  }
  rtprog_build(&keep, &p, RT_DOUBLE, &rp);
  diag_free(&d);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0; /* fmemopen needs a buffer */
  FILE *f = fmemopen((void *)data, size, "r");
  if (!f) return 0;
  arena a;
  arena_init(&a);
  diag_list d;
  diag_init(&d);
  drive_script script;
  gen_status st = drive_read(&a, "fuzz.drive", f, &buggy, &script, &d);
  fclose(f);
  if (st == GEN_OK) {
    rt_world_desc desc;
    mechworld_desc(&a, &buggy, &desc);
    rt_settings s;
    mechworld_settings(&buggy, &s);
    char err[256];
    rt_world *w = rt_world_create(&desc, &rp, &s, NULL, err, sizeof err);
    if (!w) abort();
    simrun_options so = {0};
    so.steps = 8;
    so.probe = simrun_default_probe(&buggy);
    so.control = drive_apply;
    so.control_ctx = &script;
    simrun_result r = {0};
    simrun_run(w, &buggy, &so, &r);
    rt_world_destroy(w);
  } else if (d.n == 0) {
    abort();
  }
  diag_free(&d);
  arena_free(&a);
  return 0;
}
