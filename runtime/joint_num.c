/* joint_num.c -- numbers in the constraint types' messages
 * (rt_joint_type.h). */
#include <stdio.h>
#include <stdlib.h>

#include "rt_joint_type.h"

void rt_joint_num(char out[32], double v) {
  for (int prec = 6; prec <= 17; prec++) {
    snprintf(out, 32, "%.*g", prec, v);
    if (strtod(out, NULL) == v) break;
  }
}
