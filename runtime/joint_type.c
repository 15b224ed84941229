/* joint_type.c -- the constraint type table: names and degrees. */
#include "rt.h"

#include <string.h>

static const struct {
  const char *name;
  int degree;
} types[RT_JOINT_NTYPES] = {
    [RT_BALL] = {"ball", 3},
    [RT_HINGE] = {"hinge", 5},
    [RT_ROD] = {"rod", 1},
    [RT_PRISMATIC] = {"prismatic", 5},
    [RT_CYLINDRICAL] = {"cylindrical", 4},
    [RT_UNIVERSAL] = {"universal", 4},
    [RT_WELD] = {"weld", 6},
    [RT_ANGULAR_LIMIT] = {"angular_limit", 0},
    [RT_POSITIONAL_LIMIT] = {"positional_limit", 0},
    [RT_ROPE] = {"rope", 0},
    [RT_MOTOR] = {"motor", 0},
};

int rt_joint_degree(rt_joint_type type) {
  return (unsigned)type < RT_JOINT_NTYPES ? types[type].degree : 0;
}

const char *rt_joint_type_name(rt_joint_type type) {
  return (unsigned)type < RT_JOINT_NTYPES ? types[type].name : "?";
}

int rt_joint_type_from_name(const char *name) {
  for (int i = 0; i < RT_JOINT_NTYPES; i++)
    if (strcmp(types[i].name, name) == 0) return i;
  return -1;
}
