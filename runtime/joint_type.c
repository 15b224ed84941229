/* joint_type.c -- the constraint type table, and what dispatches through it
 * (rt_joint_eval, degrees, names): every type of RT_JOINT_TYPES
 * (rt.h) with its definition, rt__joint_<name> in runtime/joints/<name>.c.
 * A type in the list without its file does not link; the array's size is
 * checked against the enum at compile time. */
#include <string.h>

#include "rt_joint_type.h"

#define RT__JOINT_DECL(id, name) extern const rt_joint_type_def rt__joint_##name;
RT_JOINT_TYPES(RT__JOINT_DECL)
#undef RT__JOINT_DECL

#define RT__JOINT_ENTRY(id, name) [RT_##id] = &rt__joint_##name,
static const rt_joint_type_def *const types[] = {RT_JOINT_TYPES(RT__JOINT_ENTRY)};
#undef RT__JOINT_ENTRY

_Static_assert(sizeof types / sizeof types[0] == RT_JOINT_NTYPES, "one definition per constraint type");
_Static_assert(RT_JOINT_NTYPES <= 32, "targets masks are 32 bits");

const rt_joint_type_def *rt_joint_type_def_of(rt_joint_type type) {
  return (unsigned)type < RT_JOINT_NTYPES ? types[type] : NULL;
}

int rt_joint_degree(rt_joint_type type) {
  return (unsigned)type < RT_JOINT_NTYPES ? types[type]->degree : 0;
}

const char *rt_joint_type_name(rt_joint_type type) {
  return (unsigned)type < RT_JOINT_NTYPES ? types[type]->name : "?";
}

int rt_joint_type_from_name(const char *name) {
  for (int i = 0; i < RT_JOINT_NTYPES; i++)
    if (strcmp(types[i]->name, name) == 0) return i;
  return -1;
}

int rt_joint_eval(const rt_joint_desc *joint, const rt_pose *pa, const rt_pose *pb, double *c, double *J) {
  const rt_joint_type_def *def = rt_joint_type_def_of(joint->type);
  if (def == NULL || def->degree == 0) return -1;
  def->eval(joint, pa, pb, c, J);
  return def->degree;
}
