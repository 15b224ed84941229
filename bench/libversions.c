/* libversions.c -- library versions from their headers (see libversions.h). */
#include "libversions.h"

#include <stdio.h>

#include <amd.h>
#include <cholmod.h>
#include <ldl.h>
#include <metis.h>

void lv_describe(char *buf, size_t size) {
  snprintf(buf, size, "SuiteSparse LDL %d.%d.%d, AMD %d.%d.%d, CHOLMOD %d.%d.%d, METIS %d.%d.%d", LDL_MAIN_VERSION,
           LDL_SUB_VERSION, LDL_SUBSUB_VERSION, AMD_MAIN_VERSION, AMD_SUB_VERSION, AMD_SUBSUB_VERSION,
           CHOLMOD_MAIN_VERSION, CHOLMOD_SUB_VERSION, CHOLMOD_SUBSUB_VERSION, METIS_VER_MAJOR, METIS_VER_MINOR,
           METIS_VER_SUBMINOR);
}
