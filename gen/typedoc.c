/* typedoc.c -- see typedoc.h. */
#include "typedoc.h"

#include "rt_joint_type.h"

static void write_fields(const rt_joint_type_def *def, FILE *out) {
  for (const rt_joint_field *f = def->fields; f->key; f++) {
    fprintf(out, "%s%s`%s`", f == def->fields ? "" : ", ", f->flags & RT_FIELD_REQUIRED ? "" : "optional ", f->key);
    if (f->slot == RT_SLOT_TARGET) fprintf(out, " (%s)", def->targets_text);
    if (f->slot == RT_SLOT_FREE_AXIS) fputs(" (`\"angular\"` or `\"linear\"`)", out);
    if (f->flags & RT_FIELD_POSITIVE) fputs(" (> 0)", out);
    if (f->flags & RT_FIELD_NONNEGATIVE) fputs(" (>= 0)", out);
  }
}

void typedoc_write(FILE *out) {
  fputs("| type | degree | fields | what it holds |\n|---|---|---|---|\n", out);
  for (int t = 0; t < RT_JOINT_NTYPES; t++) {
    const rt_joint_type_def *def = rt_joint_type_def_of((rt_joint_type)t);
    fprintf(out, "| `%s` | ", def->name);
    if (def->degree > 0)
      fprintf(out, "%d", def->degree);
    else
      fputs("row", out);
    fputs(" | ", out);
    write_fields(def, out);
    fprintf(out, " | %s |\n", def->doc);
  }
}
