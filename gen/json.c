/* json.c -- see json.h. */
#include "json.h"

#include <math.h>

void json_write_escaped(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(out, "\\%c", *p);
    else if (*p < 0x20)
      fprintf(out, "\\u%04x", *p);
    else
      fputc(*p, out);
  }
  fputc('"', out);
}

static void indent(json_writer *w) {
  for (int i = 0; i < w->depth; i++) fputs("  ", w->out);
}

/* Separator and indentation before a value or key at the current level. */
static void before_item(json_writer *w) {
  if (w->after_key) {
    w->after_key = 0;
    return;
  }
  if (w->count[w->depth]++ > 0) fputc(',', w->out);
  fputc('\n', w->out);
  indent(w);
}

static void open(json_writer *w, char c) {
  before_item(w);
  fputc(c, w->out);
  if (w->depth + 1 < JSON_MAX_DEPTH) w->depth++;
  w->count[w->depth] = 0;
}

static void close(json_writer *w, char c) {
  int had = w->count[w->depth] > 0;
  w->depth--;
  if (had) {
    fputc('\n', w->out);
    indent(w);
  }
  fputc(c, w->out);
}

void json_begin(json_writer *w, FILE *out) {
  w->out = out;
  w->depth = 0;
  w->count[0] = 0;
  w->after_key = 1; /* no separator before the top-level object */
  open(w, '{');
}

void json_end(json_writer *w) {
  close(w, '}');
  fputc('\n', w->out);
}

void json_begin_object(json_writer *w) { open(w, '{'); }
void json_end_object(json_writer *w) { close(w, '}'); }
void json_begin_array(json_writer *w) { open(w, '['); }
void json_end_array(json_writer *w) { close(w, ']'); }

void json_key(json_writer *w, const char *key) {
  before_item(w);
  json_write_escaped(w->out, key);
  fputs(": ", w->out);
  w->after_key = 1;
}

void json_string(json_writer *w, const char *s) {
  before_item(w);
  json_write_escaped(w->out, s ? s : "");
}

void json_int(json_writer *w, int64_t v) {
  before_item(w);
  fprintf(w->out, "%lld", (long long)v);
}

void json_double(json_writer *w, double v) {
  before_item(w);
  if (isfinite(v))
    fprintf(w->out, "%.6g", v);
  else
    fputs("null", w->out);
}

void json_bool(json_writer *w, int v) {
  before_item(w);
  fputs(v ? "true" : "false", w->out);
}
