/* viewer.c -- see viewer.h. */
#include "viewer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"

static const char MARKER[] = "@LDLPGS_DATA@";

/* A JSON string that may sit inside a script element: '<' is escaped, so
 * no "</script" can end it early. */
static void js_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

static void base64(FILE *f, const unsigned char *p, size_t n) {
  static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  fputc('"', f);
  for (size_t i = 0; i < n; i += 3) {
    const uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    fputc(digits[v >> 18 & 63], f);
    fputc(digits[v >> 12 & 63], f);
    fputc(i + 1 < n ? digits[v >> 6 & 63] : '=', f);
    fputc(i + 2 < n ? digits[v & 63] : '=', f);
  }
  fputc('"', f);
}

/* The per-body errors as little-endian float32 bytes, base64. */
static int errors(FILE *f, const gltf_recording *r) {
  const size_t n = (size_t)r->n * (size_t)r->nbody;
  unsigned char *b = malloc(4 * n + 1);
  if (!b) return -1;
  for (size_t k = 0; k < n; k++) {
    uint32_t v;
    memcpy(&v, &r->error[k], 4);
    for (int i = 0; i < 4; i++) b[4 * k + (size_t)i] = (unsigned char)(v >> (8 * i));
  }
  base64(f, b, 4 * n);
  free(b);
  return 0;
}

static int write_run(FILE *f, const viewer_run *run) {
  size_t len = 0;
  unsigned char *glb = gltf_write_memory(run->rec, run->label, &len);
  if (!glb) return -1;
  fputs("{\"label\":", f);
  js_string(f, run->label);
  fprintf(f, ",\"steps\":%d,\"exploded\":%s,\"why\":", run->steps, run->exploded ? "true" : "false");
  js_string(f, run->why);
  fprintf(f, ",\"max_error\":%.6g,\"samples\":%d,\"glb\":", gltf_record_max_error(run->rec), run->rec->n);
  base64(f, glb, len);
  free(glb);
  fputs(",\"error\":", f);
  if (errors(f, run->rec) != 0) return -1;
  fputc('}', f);
  return 0;
}

static int write_data(FILE *f, const char *title, const viewer_scene *scenes, int nscene) {
  fputs("{\"title\":", f);
  js_string(f, title);
  fputs(",\"scenes\":[", f);
  for (int s = 0; s < nscene; s++) {
    const viewer_scene *sc = &scenes[s];
    const mech *m = sc->runs[0].rec->m;
    fputs(s ? ",{\"name\":" : "{\"name\":", f);
    js_string(f, sc->name);
    fputs(",\"caption\":", f);
    js_string(f, sc->caption);
    fprintf(f, ",\"dt\":%.17g,\"ground\":", sc->runs[0].rec->dt);
    if (m->settings.has_ground)
      fprintf(f, "%.17g", m->settings.ground_height); /* glTF y = mechanism z */
    else
      fputs("null", f);
    fprintf(f, ",\"together\":%s,\"runs\":[", sc->together ? "true" : "false");
    for (int i = 0; i < sc->nrun; i++) {
      if (i) fputc(',', f);
      if (write_run(f, &sc->runs[i]) != 0) return -1;
    }
    fputs("]}", f);
  }
  fputs("]}", f);
  return 0;
}

gen_status viewer_write(FILE *out, const unsigned char *tpl, size_t len, const char *title,
                        const viewer_scene *scenes, int nscene) {
  const size_t mlen = sizeof MARKER - 1;
  size_t at = 0;
  while (at + mlen <= len && memcmp(tpl + at, MARKER, mlen) != 0) at++;
  if (at + mlen > len) return GEN_ERR_INPUT;
  fwrite(tpl, 1, at, out);
  if (write_data(out, title, scenes, nscene) != 0) return GEN_ERR_IO;
  fwrite(tpl + at + mlen, 1, len - at - mlen, out);
  return ferror(out) ? GEN_ERR_IO : GEN_OK;
}

gen_status viewer_write_file(const char *path, const unsigned char *tpl, size_t len, const char *title,
                             const viewer_scene *scenes, int nscene, diag_list *d) {
  outfile o;
  gen_status st = outfile_open(&o, path, d);
  if (st != GEN_OK) return st;
  if ((st = viewer_write(o.f, tpl, len, title, scenes, nscene)) != GEN_OK) {
    diag_error(d, path, 0, "%s", st == GEN_ERR_INPUT ? "the viewer page template has no data marker"
                                                     : "cannot write the page (out of memory or write error)");
    outfile_abort(&o);
    return st;
  }
  return outfile_commit(&o, d);
}
