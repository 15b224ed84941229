/* diag.h -- diagnostics collected by gen/ library code.
 *
 * Library code never prints or exits: it appends "file:line: message"
 * records here and returns a status; gen/main.c prints them and picks the
 * exit code. */
#ifndef LDLPGS_GEN_DIAG_H
#define LDLPGS_GEN_DIAG_H

#include <stdio.h>

typedef enum gen_status {
  GEN_OK = 0,
  GEN_ERR_INPUT,   /* the mechanism file is wrong */
  GEN_ERR_LIMIT,   /* a sandbox or size limit was hit */
  GEN_ERR_IO,      /* a file could not be read or written */
  GEN_ERR_USAGE    /* bad command line */
} gen_status;

typedef struct diag {
  char *file;   /* may be NULL */
  int line;     /* 0 when unknown */
  char *msg;
} diag;

typedef struct diag_list {
  diag *items;
  int n, cap;
} diag_list;

void diag_init(diag_list *d);
void diag_free(diag_list *d);
/* Appends an error at file:line (line 0 = no line). printf-style. */
void diag_error(diag_list *d, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Prints every record as "file:line: error: msg" (or "file: error: msg"). */
void diag_print(const diag_list *d, FILE *out);

#endif
