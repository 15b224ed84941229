/* report.h -- the bench results as Markdown (bench/results/latest.md, and
 * the main table that README.md shows) and as JSON (latest.json). */
#ifndef LDLPGS_BENCH_REPORT_H
#define LDLPGS_BENCH_REPORT_H

#include <stdio.h>

#include "results.h"

/* The whole report. */
void br_write_md(FILE *f, const br_report *r);
/* The main factor table with its date and machine (README.md's excerpt). */
void br_write_main_table(FILE *f, const br_report *r);
/* The full-step section (also what bench --step-only prints). */
void br_write_full_step(FILE *f, const br_report *r);
/* The precision presets and the block solvers (precision.c; also
 * README.md's excerpt between its precision markers). */
void br_write_precision(FILE *f, const br_report *r);
/* The whole step against ODE and MuJoCo (also printed by --step-only). */
void br_write_peers(FILE *f, const br_report *r);
void br_write_json(FILE *f, const br_report *r);

/* Replaces the lines between the marker lines `begin` and `end` of the
 * text file at path with `text` (the markers stay). Returns 0, or -1 if the
 * file cannot be read or written or lacks the markers. */
int br_splice_file(const char *path, const char *begin, const char *end, const char *text);

#endif
