/* viewer.h -- the browser viewer: one self-contained HTML page that plays
 * runs of a mechanism side by side (`ldlsim --html`, `make demo`).
 *
 * The page template (tools/viewer/src/page.html with three.js and
 * tools/viewer/src/viewer.js bundled in by tools/viewer/build.mjs) holds
 * the marker @LDLPGS_DATA@ inside a JSON script element; viewer_write
 * copies the template and puts there, as JSON:
 *
 *   {"title": ..., "scenes": [{"name", "caption", "dt", "ground" (glTF y of
 *    the ground plane, or null), "together", "runs": [{"label", "steps", "exploded",
 *    "why", "max_error" (m), "samples", "glb" (the run's .glb, base64),
 *    "error" (samples x bodies float32 little-endian, base64: the
 *    recording's per-body errors)}]}]}
 *
 * Several scenes (mechanisms) can share a page; the page shows one at a
 * time. */
#ifndef LDLPGS_SIM_VIEWER_H
#define LDLPGS_SIM_VIEWER_H

#include <stddef.h>
#include <stdio.h>

#include "diag.h"
#include "gltf.h"

/* The template built by tools/viewer/build.mjs (build/viewer/viewer_page.c,
 * linked into ldlsim and demo): viewer_page_size bytes, then a NUL. */
extern const unsigned char viewer_page[];
extern const size_t viewer_page_size;

typedef struct viewer_run {
  const char *label;           /* "LDL-PGS", "PGS", ... */
  const gltf_recording *rec;
  int steps;                   /* steps run */
  int exploded;
  const char *why;             /* why it exploded, or "" */
} viewer_run;

typedef struct viewer_scene {
  const char *name;            /* what the scene menu shows */
  const char *caption;         /* one line under the title, or NULL */
  const viewer_run *runs;      /* shown left to right, the same mechanism */
  int nrun;                    /* >= 1 */
  int together;                /* 1: the runs start in one view, each at its own
                                  place (a convoy); the page's `together` box
                                  switches either way */
} viewer_scene;

/* Writes the page: the template tpl (len bytes, with one @LDLPGS_DATA@)
 * with the data of the scenes. Returns GEN_OK, GEN_ERR_INPUT if the
 * template has no marker, GEN_ERR_IO on a write error or out of memory. */
gen_status viewer_write(FILE *out, const unsigned char *tpl, size_t len, const char *title,
                        const viewer_scene *scenes, int nscene);

/* viewer_write to a temporary next to path, renamed into place on success. */
gen_status viewer_write_file(const char *path, const unsigned char *tpl, size_t len, const char *title,
                             const viewer_scene *scenes, int nscene, diag_list *d);

#endif
