/* libversions.h -- versions of the libraries the bench links, from their
 * headers: "SuiteSparse LDL 2.2.6, AMD 2.4.6, CHOLMOD 3.0.14, METIS 5.1.0". */
#ifndef LDLPGS_BENCH_LIBVERSIONS_H
#define LDLPGS_BENCH_LIBVERSIONS_H

#include <stddef.h>

void lv_describe(char *buf, size_t size);

#endif
