/* fuzz_pipeline.c -- libFuzzer target: the whole generation pipeline on an
 * arbitrary mechanism file: load, symbolic phase (shattering, orderings,
 * layout, RSI, with small limits), statistics, DOT, the program emitted in
 * both modes, and a few steps of a world running the interpreted program
 * (sim/: contacts, measures, CSV). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dot.h"
#include "emit.h"
#include "fuzz.h"
#include "mechworld.h"
#include "redundant.h"
#include "rtprog.h"
#include "simrun.h"

static void emit_both(const program *p, const program_options *po, diag_list *d) {
  for (int mode = 0; mode < 2; mode++) {
    emit_options eo;
    emit_default_options(&eo);
    eo.mode = mode ? EMIT_TABLES : EMIT_UNROLLED;
    eo.precision = mode ? RT_DOUBLE : RT_FLOAT;
    eo.header = "fuzz.h";
    eo.version = "fuzz";
    emit_output out = {0};
    if (program_check_emit(p, po, mode, d) == GEN_OK)
      emit_program(p, &eo, &out, d);
    emit_output_free(&out);
  }
}

static void steps(arena *a, const mech *m, const program *p) {
  rt_program rp;
  rtprog_build(a, p, RT_DOUBLE, &rp);
  rt_world_desc desc;
  mechworld_desc(a, m, &desc);
  rt_settings s;
  mechworld_settings(m, &s);
  char err[256];
  rt_world *w = rt_world_create(&desc, &rp, &s, NULL, err, sizeof err);
  if (!w) return; /* refused: a result too */
  char *buf = NULL;
  size_t len = 0;
  FILE *csv = open_memstream(&buf, &len);
  simrun_options so = {0};
  so.steps = 5;
  so.probe = simrun_default_probe(m);
  so.csv = csv;
  simrun_result r = {0};
  simrun_run(w, m, &so, &r);
  rt_world_destroy(w);
  if (csv) fclose(csv);
  free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *src = malloc(size + 1);
  if (!src) return 0;
  memcpy(src, data, size);
  src[size] = '\0';
  arena a;
  arena_init(&a);
  diag_list d;
  diag_init(&d);
  load_limits lim;
  fuzz_load_limits(&lim);
  mech m;
  program p;
  program_options po;
  fuzz_program_options(&po);
  if (load_mech_string(&a, "fuzz.lua", src, &lim, &m, &d) == GEN_OK &&
      program_build(&a, &m, &po, &p, &d) == GEN_OK) {
    FILE *null = fopen("/dev/null", "w");
    if (null) {
      redundant r;
      program_write_stats(&p, redundant_analyze(&a, &p, &r) == 0 ? &r : NULL, 0, null);
      dot_write(&p, null);
      fclose(null);
    }
    emit_both(&p, &po, &d);
    steps(&a, &m, &p);
  }
  diag_free(&d);
  arena_free(&a);
  free(src);
  return 0;
}
