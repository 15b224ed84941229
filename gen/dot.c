/* dot.c -- see dot.h. Output is deterministic: nodes and edges in solver
 * order, no addresses or hash order. */
#include "dot.h"

#include "json.h"
#include "rt_joint_type.h"

static void body_id(const program *p, int b, FILE *out) {
  fputs("b:", out);
  fputs(b < 0 ? "world" : p->s.body_name[b], out);
}

void dot_write(const program *p, FILE *out) {
  const smech *s = &p->s;
  const symbolic *y = &p->sym;
  const mech *m = p->m;
  fputs("graph ", out);
  json_write_escaped(out, m->name);
  fputs(" {\n  node [fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=8];\n", out);

  fputs("  subgraph cluster_bodies {\n    label=\"body graph (nodes: bodies and shards; edges: constraints, styled by type; blue: shard welds; dashed: inequality rows)\";\n", out);
  fputs("    \"b:world\" [label=\"world\", shape=box, style=filled, fillcolor=gray85];\n", out);
  for (int b = 0; b < s->nbody; b++) {
    fputs("    \"", out);
    body_id(p, b, out);
    fprintf(out, "\" [label=\"%s\"%s];\n", s->body_name[b],
            s->body_fixed[b] ? ", shape=box, style=filled, fillcolor=gray85"
            : s->shard_num[s->body_orig[b]] > 1 ? ", style=filled, fillcolor=lightblue" : "");
  }
  for (int c = 0; c < s->ncons; c++) {
    fputs("    \"", out);
    body_id(p, s->cons_a[c], out);
    fputs("\" -- \"", out);
    body_id(p, s->cons_b[c], out);
    const int orig = s->cons_orig[c];
    fprintf(out, "\" [label=\"%s\", %s];\n", s->cons_name[c],
            orig < 0 ? "color=blue" : rt_joint_type_def_of(m->cons[orig].type)->dot_style);
  }
  for (int c = 0; c < m->ncons; c++) {
    const mech_constraint *k = &m->cons[c];
    if (mech_is_equality(k)) continue;
    fputs("    \"", out);
    body_id(p, k->a < 0 ? -1 : s->shard_adr[k->a], out);
    fputs("\" -- \"", out);
    body_id(p, k->b < 0 ? -1 : s->shard_adr[k->b], out);
    fprintf(out, "\" [label=\"%s (%s)\", %s];\n", k->name, rt_joint_type_name(k->type),
            rt_joint_type_def_of(k->type)->dot_style);
  }
  fputs("  }\n", out);

  fputs("  subgraph cluster_constraints {\n    label=\"constraint graph (label: name, degree, pivot index; dashed red: fill-in)\";\n", out);
  for (int c = 0; c < s->ncons; c++)
    fprintf(out, "    \"c:%s\" [label=\"%s\\nd=%d p=%d\"];\n", s->cons_name[c], s->cons_name[c], s->cons_degree[c],
            y->pos[c]);
  for (int q = 0; q < y->n; q++)
    for (int k = y->col_adr[q]; k < y->col_adr[q + 1]; k++)
      fprintf(out, "    \"c:%s\" -- \"c:%s\"%s;\n", s->cons_name[y->perm[q]], s->cons_name[y->perm[y->col_piv[k]]],
              y->col_fill[k] ? " [style=dashed, color=red]" : "");
  fputs("  }\n}\n", out);
}
