/* json.h -- a small streaming JSON writer with deterministic formatting:
 * two-space indentation, one member or element per line, numbers printed
 * the same way on every machine. */
#ifndef LDLPGS_GEN_JSON_H
#define LDLPGS_GEN_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

typedef struct json_writer {
  FILE *out;
  int depth;
  int count[JSON_MAX_DEPTH]; /* members written at each level */
  int after_key;
} json_writer;

void json_begin(json_writer *w, FILE *out); /* opens the top-level object */
void json_end(json_writer *w);              /* closes it, newline */
void json_begin_object(json_writer *w);
void json_end_object(json_writer *w);
void json_begin_array(json_writer *w);
void json_end_array(json_writer *w);
void json_key(json_writer *w, const char *key);
void json_string(json_writer *w, const char *s);
void json_int(json_writer *w, int64_t v);
void json_double(json_writer *w, double v); /* %.6g; non-finite -> null */
void json_bool(json_writer *w, int v);

/* Writes s as a JSON string literal (quotes and escapes). */
void json_write_escaped(FILE *out, const char *s);

#endif
