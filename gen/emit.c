/* emit.c -- see emit.h. The plan (what the unrolled code does) and the
 * view (the read-only tables the templates format). */
#include "emit.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>

#include "rtprog.h"
#include "target.h"
#include "template.h"

void emit_default_options(emit_options *o) {
  memset(o, 0, sizeof *o);
  o->mode = EMIT_UNROLLED;
  o->precision = RT_FLOAT;
  o->version = "?";
}

int emit_parse_mode(const char *s) {
  if (strcmp(s, "unrolled") == 0) return EMIT_UNROLLED;
  if (strcmp(s, "tables") == 0) return EMIT_TABLES;
  return -1;
}

int emit_parse_precision(const char *s) {
  if (strcmp(s, "float") == 0) return RT_FLOAT;
  if (strcmp(s, "double") == 0) return RT_DOUBLE;
  return -1;
}

static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_alnum(char c) { return is_alpha(c) || (c >= '0' && c <= '9'); }

int emit_valid_ident(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > EMIT_IDENT_MAX || !is_alpha(s[0])) return 0;
  for (size_t i = 1; i < n; i++)
    if (!is_alnum(s[i])) return 0;
  return 1;
}

/*---- plan -----------------------------------------------------------------------*/

static const char *const kernel_prefix[EK_NKINDS] = {
    [EK_FACTOR_NODE] = "factor_node",   [EK_NODE_FORWARD] = "node_forward", [EK_NODE_DIAG] = "node_diag",
    [EK_NODE_BACKWARD] = "node_backward", [EK_PANEL] = "panel",
    [EK_REDUCE_TRI] = "reduce_tri",   [EK_REDUCE] = "reduce",             [EK_FORWARD] = "forward",
    [EK_BACKWARD_SET] = "backward_set", [EK_BACKWARD_ADD] = "backward_add", [EK_SUBTRACT] = "subtract",
};

void emit_kernel_name(const emit_kernel *k, char *buf, size_t size) {
  const char *p = kernel_prefix[k->kind];
  switch (k->kind) {
  case EK_PANEL:
    if (k->n == k->m)
      snprintf(buf, size, "%s_%dx%d", p, k->d, k->m);
    else
      snprintf(buf, size, "%s_%dx%d_of_%d", p, k->d, k->n, k->m);
    break;
  case EK_REDUCE_TRI: snprintf(buf, size, "%s_%d_d%d", p, k->m, k->d); break;
  case EK_REDUCE: snprintf(buf, size, "%s_%dx%d_d%d", p, k->m, k->n, k->d); break;
  case EK_FORWARD:
  case EK_BACKWARD_SET:
  case EK_BACKWARD_ADD: snprintf(buf, size, "%s_%dx%d", p, k->m, k->d); break;
  default: snprintf(buf, size, "%s_%d", p, k->d); break;
  }
}

#define DIMS (EMIT_MAX_LANES > RT_MAX_DEGREE ? EMIT_MAX_LANES + 1 : RT_MAX_DEGREE + 1)
#define KEY(kind, m, n, d) ((((kind) * DIMS + (m)) * DIMS + (n)) * DIMS + (d))
#define NKEYS (EK_NKINDS * DIMS * DIMS * DIMS)

/* The plan under construction: ops in a growable array (kernel fields hold
 * KEY values until the kernel list is sorted), functions likewise. */
typedef struct builder {
  const rt_program *prog;
  int budget;
  emit_op *ops;
  int nop, op_cap;
  emit_fn *fns;
  int nfn, fn_cap;
  unsigned char used[NKEYS];
  int lanes;  /* widest panel */
  int et_ld;  /* row stride of Y^T in the temporary */
} builder;

static void *grow(void *p, int *cap, size_t elem) {
  *cap = *cap ? 2 * *cap : 256;
  void *q = realloc(p, elem * (size_t)*cap);
  if (!q) abort(); /* like arena_alloc: the compiler cannot go on */
  return q;
}

static int piv_degree(const rt_program *r, int q) { return r->cons_degree[r->piv_cons[q]]; }
static int piv_row(const rt_program *r, int q) { return r->cons_row[r->piv_cons[q]]; }

static emit_op *add_op(builder *b, emit_op_kind kind, int pivot) {
  if (b->nop == b->op_cap) b->ops = grow(b->ops, &b->op_cap, sizeof *b->ops);
  emit_op *op = &b->ops[b->nop++];
  memset(op, 0, sizeof *op);
  op->kind = kind;
  op->kernel = -1;
  op->pivot = pivot;
  op->row = op->col = -1;
  return op;
}

static void use_kernel(builder *b, emit_op *op, emit_kernel_kind kind, int m, int n, int d) {
  int key = KEY((int)kind, m, n, d);
  b->used[key] = 1;
  op->kernel = key;
}

static emit_fn *open_fn(builder *b, emit_phase phase, int pivot) {
  if (b->nfn == b->fn_cap) b->fns = grow(b->fns, &b->fn_cap, sizeof *b->fns);
  emit_fn *f = &b->fns[b->nfn++];
  memset(f, 0, sizeof *f);
  f->phase = phase;
  f->op_adr = b->nop;
  f->first_pivot = f->last_pivot = pivot;
  f->part = f->nparts = 1;
  f->fail_pivot = -1;
  return f;
}

static void close_fn(builder *b) {
  emit_fn *f = &b->fns[b->nfn - 1];
  f->op_num = b->nop - f->op_adr;
  f->statements = 0;
  for (int i = f->op_adr; i < b->nop; i++) f->statements += b->ops[i].kind != EO_SECTION;
}

/* Index of the edge block of column col whose row pivot is row, or -1. */
static int find_block(const rt_program *r, int col, int row) {
  for (int k = r->piv_blk_adr[col]; k < r->piv_blk_adr[col + 1]; k++)
    if (r->blk_piv[k] == row) return k;
  return -1;
}

/* Position of RSI pair (row r, row c <= r) within a pivot's RSI. */
static int64_t rsi_pos(int64_t r, int64_t c) { return r * (r + 1) / 2 + c; }

/* Appends the reduction ops of pivot p to `stmts` (a scratch array of ops,
 * reusing b->ops' layout): one per block pair (I, J), J <= I, each
 * checked entry by entry against the pivot's RSI. Returns 0 on a mismatch. */
static int plan_reduction(builder *b, int p) {
  const rt_program *r = b->prog;
  int d = piv_degree(r, p);
  int k0 = r->piv_blk_adr[p], k1 = r->piv_blk_adr[p + 1];
  const int32_t *rsi = r->rsi + r->piv_rsi_adr[p];
  int row_i = 0;
  for (int bi = k0; bi < k1; bi++) {
    int qi = r->blk_piv[bi], di = piv_degree(r, qi);
    int row_j = 0;
    for (int bj = k0; bj <= bi; bj++) {
      int qj = r->blk_piv[bj], dj = piv_degree(r, qj);
      int on_diag = bj == bi, stride = on_diag ? di : dj;
      int base = rsi[rsi_pos(row_i, row_j)];
      for (int ri = 0; ri < di; ri++)
        for (int ci = 0; ci < (on_diag ? ri + 1 : dj); ci++)
          if (rsi[rsi_pos(row_i + ri, row_j + ci)] != base + ri * stride + ci) return 0;
      emit_op *op = add_op(b, EO_REDUCE, p);
      op->a = base;
      op->b = r->piv_edge[p] + row_i * d;
      op->c = RTPROG_TEMP_ET + row_j;
      op->row = qi;
      op->col = qj;
      if (on_diag) {
        if (base != r->piv_node[qi]) return 0;
        use_kernel(b, op, EK_REDUCE_TRI, di, 0, d);
      } else {
        int t = find_block(r, qj, qi);
        if (t < 0 || r->blk_off[t] != base) return 0;
        op->fill = r->blk_fill[t];
        use_kernel(b, op, EK_REDUCE, di, dj, d);
      }
      row_j += dj;
    }
    row_i += di;
  }
  return row_i == r->piv_height[p];
}

/* The rinv slot of pivot p in the temporary: two slots, alternating, so
 * that the next pivot's node factor can run before p's panels are done. */
static int rinv_slot(int p) { return (p & 1) * RTPROG_TEMP_RINV; }

/* deferred: the node factor of the next pivot, hoisted into the current
 * pivot's function, which reports its failure only once the current
 * pivot's work is complete (so that a failing factorization leaves the
 * workspace exactly as the interpreter does). */
static emit_op *add_factor_node(builder *b, int q, int deferred) {
  emit_op *op = add_op(b, EO_FACTOR_NODE, q);
  op->a = b->prog->piv_node[q];
  op->b = rinv_slot(q);
  op->n = deferred;
  use_kernel(b, op, EK_FACTOR_NODE, 0, 0, piv_degree(b->prog, q));
  return op;
}

/* Appends ops[i] of the scratch list to the plan. */
static void push_op(builder *b, const emit_op *op) {
  if (b->nop == b->op_cap) b->ops = grow(b->ops, &b->op_cap, sizeof *b->ops);
  b->ops[b->nop++] = *op;
}

/* Factor: one function per pivot p, holding p's panels and reductions and
 * the node factor of pivot p + 1, hoisted to the earliest point where its
 * node block is final: right after p's reduction of that block (the first
 * block of p's column, whose rows are the first panels), or before
 * everything else when p does not update it. The next pivot's LDL^T, a
 * chain of divisions, then overlaps p's remaining work instead of waiting
 * behind it (each workspace element still receives its updates in pivot
 * order). Pivot 0's own node factor opens the first function. A pivot
 * above the budget is split into parts at statement boundaries (the
 * temporary carries over), and its next node factor then stays at the end
 * of its last part. Panels have b->lanes rows, then narrower ones (powers
 * of two) for the rest; a last panel more than half full is run at its
 * width with idle lanes. */
static int plan_factor(builder *b) {
  const rt_program *r = b->prog;
  for (int p = 0; p < r->ncons; p++) {
    int d = piv_degree(r, p), h = r->piv_height[p], q = p + 1 < r->ncons ? p + 1 : -1;
    int k0 = r->piv_blk_adr[p];
    /* rows of the first block when it is q's node block: they come first */
    int crit = q >= 0 && h > 0 && r->blk_piv[k0] == q ? piv_degree(r, q) : 0;
    int first = b->nop;
    for (int r0 = 0, lanes = b->lanes; r0 < h;) {
      /* a last panel more than half full keeps its width (idle lanes
       * compute zeros), else the width halves */
      while (lanes > 1 && lanes / 2 >= h - r0) lanes /= 2;
      int rows = h - r0 < lanes ? h - r0 : lanes;
      emit_op *op = add_op(b, EO_PANEL, p);
      op->a = r->piv_node[p];
      op->b = r->piv_edge[p] + r0 * d;
      op->c = RTPROG_TEMP_ET + r0;
      op->n = rows;
      op->rinv = rinv_slot(p);
      use_kernel(b, op, EK_PANEL, lanes, rows, d);
      r0 += rows;
    }
    int npanel = b->nop - first;
    if (h > 0 && !plan_reduction(b, p)) return 0;
    /* reorder: [F(0)] critical panels, N_q's reduction, F(q), the rest */
    int nlist = b->nop - first;
    emit_op *list = malloc(sizeof *list * (size_t)(nlist + 1));
    if (!list) abort();
    memcpy(list, b->ops + first, sizeof *list * (size_t)nlist);
    b->nop = first;
    int begin = b->nop;
    if (p == 0) add_factor_node(b, 0, 0);
    int split = (p == 0) + nlist + (q >= 0) > b->budget;
    int i = 0, red_q = -1;
    if (crit && !split) {
      for (; i < npanel && list[i].c - RTPROG_TEMP_ET < crit; i++) push_op(b, &list[i]);
      for (int k = npanel; k < nlist; k++)
        if (list[k].row == q && list[k].col == q) red_q = k;
      push_op(b, &list[red_q]);
    }
    if (q >= 0 && !split) add_factor_node(b, q, 1);
    for (; i < npanel; i++) push_op(b, &list[i]);
    for (int k = npanel; k < nlist; k++)
      if (k != red_q) push_op(b, &list[k]);
    if (q >= 0 && split) add_factor_node(b, q, 1);
    free(list);
    /* move the pivot's statements out and lay them back in parts */
    int nstmt = b->nop - begin;
    emit_op *stmts = malloc(sizeof *stmts * (size_t)(nstmt + 1));
    if (!stmts) abort();
    memcpy(stmts, b->ops + begin, sizeof *stmts * (size_t)nstmt);
    b->nop = begin;
    int nparts = (nstmt + b->budget - 1) / b->budget; /* none: nothing left to do */
    for (int part = 1, s = 0; part <= nparts; part++) {
      emit_fn *f = open_fn(b, EP_FACTOR, p);
      f->part = part;
      f->nparts = nparts;
      add_op(b, EO_SECTION, p);
      for (int e = s + b->budget; s < nstmt && s < e; s++) {
        push_op(b, &stmts[s]);
        f = &b->fns[b->nfn - 1];
        if (stmts[s].kind == EO_FACTOR_NODE) {
          f->status = 1;
          if (stmts[s].n) f->fail_pivot = stmts[s].pivot;
        }
      }
      close_fn(b);
    }
    free(stmts);
  }
  return 1;
}

/* A node kernel on pivot p's x (nothing for kernels that are empty at
 * degree 1: a unit l). */
static void add_node_op(builder *b, emit_kernel_kind kind, int p) {
  const rt_program *r = b->prog;
  int d = piv_degree(r, p);
  if (d == 1 && kind != EK_NODE_DIAG) return;
  emit_op *op = add_op(b, EO_NODE, p);
  op->a = r->piv_node[p];
  op->b = piv_row(r, p);
  use_kernel(b, op, kind, 0, 0, d);
}

/* Solve phases (rt.h solve): forward, per pivot in order, its node's l^-1,
 * its blocks' updates, its node's D^-1; backward, per pivot in reverse
 * order, the sum over its blocks from the last (whose x is final
 * earliest) to the first, its subtraction, and its node's l^-T. Pivots are
 * appended whole to the current function while it stays within the
 * budget (a backward pivot's partial sums live in the function's locals,
 * so a pivot is never split). */
static void plan_solve_phase(builder *b, emit_phase phase) {
  const rt_program *r = b->prog;
  int n = r->ncons, open = 0;
  for (int i = 0; i < n; i++) {
    int p = phase == EP_BACKWARD ? n - 1 - i : i;
    int d = piv_degree(r, p), nb = r->piv_blk_adr[p + 1] - r->piv_blk_adr[p];
    int cost = nb + (phase == EP_BACKWARD && nb > 0) + (d > 1) + (phase == EP_FORWARD);
    if (cost == 0) continue;
    if (open && b->fns[b->nfn - 1].statements + cost > b->budget) {
      close_fn(b);
      open = 0;
    }
    if (!open) {
      open_fn(b, phase, p);
      open = 1;
    }
    emit_fn *f = &b->fns[b->nfn - 1];
    f->last_pivot = p;
    f->statements += cost;
    add_op(b, EO_SECTION, p);
    if (phase == EP_FORWARD) add_node_op(b, EK_NODE_FORWARD, p);
    int k0 = r->piv_blk_adr[p], k1 = r->piv_blk_adr[p + 1];
    for (int j = 0; j < k1 - k0; j++) {
      int k = phase == EP_FORWARD ? k0 + j : k1 - 1 - j;
      int q = r->blk_piv[k], dq = piv_degree(r, q);
      emit_op *op = add_op(b, phase == EP_FORWARD ? EO_FORWARD : EO_BACKWARD, p);
      op->a = r->blk_off[k];
      op->b = piv_row(r, p);
      op->c = piv_row(r, q);
      op->row = q;
      emit_kernel_kind kind = phase == EP_FORWARD ? EK_FORWARD : j == 0 ? EK_BACKWARD_SET : EK_BACKWARD_ADD;
      use_kernel(b, op, kind, dq, 0, d);
    }
    if (phase == EP_FORWARD) {
      add_node_op(b, EK_NODE_DIAG, p);
      continue;
    }
    if (nb > 0) {
      emit_op *op = add_op(b, EO_SUBTRACT, p);
      op->b = piv_row(r, p);
      use_kernel(b, op, EK_SUBTRACT, 0, 0, d);
    }
    add_node_op(b, EK_NODE_BACKWARD, p);
  }
  if (open) close_fn(b);
}

gen_status emit_plan_build(arena *a, const rt_program *prog, int budget, emit_plan *out, diag_list *d) {
  memset(out, 0, sizeof *out);
  builder *b = calloc(1, sizeof *b);
  if (!b) abort();
  b->prog = prog;
  b->budget = budget > 0 ? budget : EMIT_DEFAULT_BUDGET;
  b->lanes = rtprog_lanes(prog->precision);
  b->et_ld = rtprog_et_ld(prog);
  if (!plan_factor(b)) {
    diag_error(d, NULL, 0, "internal error: the RSI of program '%s' does not follow its block layout", prog->name);
    free(b->ops);
    free(b->fns);
    free(b);
    return GEN_ERR_INPUT;
  }
  for (int ph = EP_FORWARD; ph < EP_NPHASES; ph++) plan_solve_phase(b, (emit_phase)ph);

  /* kernels in key order (kind, m, n, d); ops refer to them by index */
  int *index = malloc(sizeof *index * NKEYS);
  if (!index) abort();
  int nk = 0;
  for (int key = 0; key < NKEYS; key++) index[key] = b->used[key] ? nk++ : -1;
  out->kernels = ARENA_ARRAY(a, emit_kernel, nk + 1);
  for (int key = 0; key < NKEYS; key++)
    if (b->used[key]) {
      emit_kernel *k = &out->kernels[index[key]];
      k->d = key % DIMS;
      k->n = key / DIMS % DIMS;
      k->m = key / (DIMS * DIMS) % DIMS;
      k->kind = (emit_kernel_kind)(key / (DIMS * DIMS * DIMS));
    }
  out->nkernel = nk;
  out->ops = ARENA_ARRAY(a, emit_op, b->nop + 1);
  for (int i = 0; i < b->nop; i++) {
    out->ops[i] = b->ops[i];
    if (out->ops[i].kernel >= 0) out->ops[i].kernel = index[out->ops[i].kernel];
  }
  out->nop = b->nop;
  out->fns = ARENA_ARRAY(a, emit_fn, b->nfn + 1);
  if (b->nfn) memcpy(out->fns, b->fns, sizeof *b->fns * (size_t)b->nfn);
  out->nfn = b->nfn;
  out->budget = b->budget;
  out->et_ld = b->et_ld;
  out->lanes = b->lanes;

  free(index);
  free(b->ops);
  free(b->fns);
  free(b);
  return GEN_OK;
}

/*---- view: the tables handed to the templates ------------------------------------*/

typedef struct view {
  const program *p;
  const rt_program *r;
  const emit_plan *plan;
  const emit_options *o;
  char ident[EMIT_IDENT_MAX + 1];
  char macro[EMIT_IDENT_MAX + 1]; /* upper-case ident */
} view;

static void set_int(lua_State *L, const char *k, long long v) {
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, -2, k);
}

static void set_str(lua_State *L, const char *k, const char *v) {
  lua_pushstring(L, v);
  lua_setfield(L, -2, k);
}

static void set_bool(lua_State *L, const char *k, int v) {
  lua_pushboolean(L, v);
  lua_setfield(L, -2, k);
}

/* Appends the table on top of the stack to the list just below it. */
static void append(lua_State *L) { lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1); }

static const char *cons_type(const view *v, int c) {
  int orig = v->p->s.cons_orig[c];
  return orig < 0 ? "shard weld" : rt_joint_type_name(v->p->m->cons[orig].type);
}

static const char *piv_name(const view *v, int q) { return v->r->cons_name[v->r->piv_cons[q]]; }

static void push_stats(lua_State *L, const view *v) {
  const program *p = v->p;
  const symbolic *s = &p->sym;
  int neq = 0;
  for (int i = 0; i < p->m->ncons; i++) neq += mech_is_equality(&p->m->cons[i]);
  lua_createtable(L, 0, 24);
  set_int(L, "bodies", p->m->nbody);
  set_int(L, "solver_bodies", p->s.nbody);
  set_int(L, "shards", p->s.nshards);
  set_int(L, "shattered", p->s.nshattered);
  set_int(L, "constraints", p->s.ncons);
  set_int(L, "mechanism_constraints", p->m->ncons);
  set_int(L, "equality_constraints", neq);
  set_int(L, "shard_welds", p->s.ncons - neq);
  set_int(L, "dim", s->dim);
  set_int(L, "nnz", p->nnz);
  char buf[64];
  snprintf(buf, sizeof buf, "%.1f%%", 100.0 * p->density);
  set_str(L, "density", buf);
  set_int(L, "edge_blocks", s->nblock);
  set_int(L, "fill_blocks", s->nfill);
  set_int(L, "rsi_entries", s->nrsi);
  set_int(L, "flops", symbolic_flops(s));
  set_str(L, "flop_convention", "2 x (d^3/6 + h d^2 + d h (h+1)/2) per pivot of degree d and column height h");
  set_str(L, "order", order_kind_name(p->order));
  set_str(L, "heuristic", p->heuristic ? p->heuristic : order_kind_name(p->order));
  set_int(L, "workspace", v->r->work_size);
  set_int(L, "temp", v->r->temp_size);
  set_int(L, "unshattered_dim", p->unshattered_dim);
  set_int(L, "unshattered_flops", (p->unshattered_flops3 + 1) / 3);
  set_int(L, "shatter_threshold", p->shatter_threshold);
}

static void push_pivots(lua_State *L, const view *v) {
  const rt_program *r = v->r;
  lua_createtable(L, r->ncons, 0);
  for (int q = 0; q < r->ncons; q++) {
    int c = r->piv_cons[q], nfill = 0;
    for (int k = r->piv_blk_adr[q]; k < r->piv_blk_adr[q + 1]; k++) nfill += r->blk_fill[k];
    lua_createtable(L, 0, 12);
    set_int(L, "index", q);
    set_int(L, "cons", c);
    set_str(L, "name", r->cons_name[c]);
    set_str(L, "type", cons_type(v, c));
    set_int(L, "degree", r->cons_degree[c]);
    set_int(L, "height", r->piv_height[q]);
    set_int(L, "row", r->cons_row[c]);
    set_int(L, "node", r->piv_node[q]);
    set_int(L, "edge", r->piv_edge[q]);
    set_int(L, "nblocks", r->piv_blk_adr[q + 1] - r->piv_blk_adr[q]);
    set_int(L, "nfill", nfill);
    lua_createtable(L, r->piv_blk_adr[q + 1] - r->piv_blk_adr[q], 0);
    for (int k = r->piv_blk_adr[q]; k < r->piv_blk_adr[q + 1]; k++) {
      lua_createtable(L, 0, 4);
      set_int(L, "pivot", r->blk_piv[k]);
      set_str(L, "name", piv_name(v, r->blk_piv[k]));
      set_int(L, "degree", r->cons_degree[r->piv_cons[r->blk_piv[k]]]);
      set_bool(L, "fill", r->blk_fill[k]);
      append(L);
    }
    lua_setfield(L, -2, "blocks");
    append(L);
  }
}

typedef enum { A_INT, A_I32, A_I64, A_U8, A_STR } array_type;

/* One rt_program array: {field, ctype, count, empty, strings, comment,
 * values}. An empty array is emitted as one 0 or "" (ISO C has no empty
 * arrays). */
static void push_array(lua_State *L, const char *field, array_type t, const void *data, long long n,
                       const char *comment) {
  static const char *const ctype[] = {"int", "int32_t", "int64_t", "unsigned char", "char *const"};
  lua_createtable(L, 0, 8);
  set_str(L, "field", field);
  set_str(L, "ctype", ctype[t]);
  set_int(L, "count", n > 0 ? n : 1);
  set_bool(L, "empty", n == 0);
  set_bool(L, "strings", t == A_STR);
  set_str(L, "comment", comment);
  lua_createtable(L, (int)(n > 0 ? n : 1), 0);
  if (n == 0) {
    if (t == A_STR)
      lua_pushliteral(L, "");
    else
      lua_pushinteger(L, 0);
    lua_rawseti(L, -2, 1);
  }
  for (long long i = 0; i < n; i++) {
    switch (t) {
    case A_INT: lua_pushinteger(L, ((const int *)data)[i]); break;
    case A_I32: lua_pushinteger(L, ((const int32_t *)data)[i]); break;
    case A_I64: lua_pushinteger(L, (lua_Integer)((const int64_t *)data)[i]); break;
    case A_U8: lua_pushinteger(L, ((const unsigned char *)data)[i]); break;
    case A_STR: lua_pushstring(L, ((const char *const *)data)[i]); break;
    }
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "values");
  append(L);
}

static void push_arrays(lua_State *L, const view *v) {
  const rt_program *r = v->r;
  int n = r->ncons;
  lua_createtable(L, 19, 0);
  push_array(L, "sbody_body", A_INT, r->sbody_body, r->nsbody, "mechanism body of each solver body");
  push_array(L, "shard_adr", A_INT, r->shard_adr, r->nbody, "first solver body of each mechanism body");
  push_array(L, "shard_num", A_INT, r->shard_num, r->nbody, "solver bodies of each mechanism body (1 = whole)");
  push_array(L, "cons_joint", A_INT, r->cons_joint, n, "mechanism constraint of each solver constraint (-1 = shard weld)");
  push_array(L, "cons_a", A_INT, r->cons_a, n, "solver body a, or RT_WORLD (-1)");
  push_array(L, "cons_b", A_INT, r->cons_b, n, "solver body b, or RT_WORLD (-1)");
  push_array(L, "cons_degree", A_INT, r->cons_degree, n, "rows of each solver constraint");
  push_array(L, "cons_row", A_INT, r->cons_row, n, "first row of each solver constraint in vectors");
  push_array(L, "cons_name", A_STR, r->cons_name, n, "solver constraint names");
  push_array(L, "piv_cons", A_INT, r->piv_cons, n, "solver constraint of each pivot");
  push_array(L, "piv_node", A_INT, r->piv_node, n, "workspace offset of each pivot's node block");
  push_array(L, "piv_edge", A_INT, r->piv_edge, n, "workspace offset of each pivot's edge column");
  push_array(L, "piv_height", A_INT, r->piv_height, n, "height h of each pivot's edge column");
  push_array(L, "piv_blk_adr", A_INT, r->piv_blk_adr, n + 1, "edge blocks of pivot p: [adr[p], adr[p+1])");
  push_array(L, "blk_piv", A_INT, r->blk_piv, r->nblk, "row pivot of each edge block");
  push_array(L, "blk_off", A_INT, r->blk_off, r->nblk, "workspace offset of each edge block");
  push_array(L, "blk_fill", A_U8, r->blk_fill, r->nblk, "1 = fill-in block (zero in H)");
  push_array(L, "piv_rsi_adr", A_I64, r->piv_rsi_adr, n + 1, "RSI of pivot p: rsi[adr[p] .. adr[p+1])");
  push_array(L, "rsi", A_I32, r->rsi, r->nrsi, "RSI: workspace offset receiving each reduction product");
}

static const char *const op_kind_name[EO_NKINDS] = {
    [EO_SECTION] = "section",   [EO_FACTOR_NODE] = "factor_node", [EO_PANEL] = "panel",
    [EO_REDUCE] = "reduce",     [EO_FORWARD] = "forward",         [EO_NODE] = "node",
    [EO_BACKWARD] = "backward", [EO_SUBTRACT] = "subtract",
};
static const char *const phase_name[EP_NPHASES] = {"factor", "forward", "backward"};

/* The origin comment of an op: the block it writes or reads. */
static void op_comment(const view *v, const emit_op *op, char *buf, size_t size) {
  buf[0] = '\0';
  switch (op->kind) {
  case EO_REDUCE:
    if (op->row == op->col)
      snprintf(buf, size, "N[%s]", piv_name(v, op->row));
    else
      snprintf(buf, size, "E[%s, %s]%s", piv_name(v, op->row), piv_name(v, op->col), op->fill ? " fill" : "");
    break;
  case EO_FACTOR_NODE: snprintf(buf, size, "N[%s] = l D l^T", piv_name(v, op->pivot)); break;
  case EO_FORWARD: snprintf(buf, size, "x[%s]", piv_name(v, op->row)); break;
  case EO_BACKWARD: snprintf(buf, size, "L[%s, %s]", piv_name(v, op->row), piv_name(v, op->pivot)); break;
  case EO_NODE:
  case EO_SUBTRACT: snprintf(buf, size, "x[%s]", piv_name(v, op->pivot)); break;
  case EO_PANEL:
    if (op->n == 1)
      snprintf(buf, size, "row %d", op->c - RTPROG_TEMP_ET);
    else
      snprintf(buf, size, "rows %d..%d", op->c - RTPROG_TEMP_ET, op->c - RTPROG_TEMP_ET + op->n - 1);
    break;
  default: break;
  }
}

static void push_functions(lua_State *L, const view *v, int solve) {
  const emit_plan *pl = v->plan;
  int count[EP_NPHASES] = {0};
  lua_newtable(L);
  for (int i = 0; i < pl->nfn; i++) {
    const emit_fn *f = &pl->fns[i];
    if ((f->phase != EP_FACTOR) != solve) continue;
    char name[64];
    if (f->phase == EP_FACTOR && f->part > 1)
      snprintf(name, sizeof name, "factor_p%d_%d", f->first_pivot, f->part);
    else if (f->phase == EP_FACTOR)
      snprintf(name, sizeof name, "factor_p%d", f->first_pivot);
    else
      snprintf(name, sizeof name, "solve_%s_%d", phase_name[f->phase], count[f->phase]);
    count[f->phase]++;
    lua_createtable(L, 0, 12);
    set_str(L, "name", name);
    set_str(L, "phase", phase_name[f->phase]);
    set_int(L, "first_pivot", f->first_pivot);
    set_int(L, "last_pivot", f->last_pivot);
    set_int(L, "part", f->part);
    set_int(L, "nparts", f->nparts);
    set_bool(L, "status", f->status);
    set_int(L, "fail_pivot", f->fail_pivot);
    set_int(L, "statements", f->statements);
    lua_createtable(L, f->op_num, 0);
    for (int k = f->op_adr; k < f->op_adr + f->op_num; k++) {
      const emit_op *op = &pl->ops[k];
      char kname[64] = "", comment[300];
      if (op->kernel >= 0) emit_kernel_name(&pl->kernels[op->kernel], kname, sizeof kname);
      op_comment(v, op, comment, sizeof comment);
      lua_createtable(L, 0, 10);
      set_str(L, "kind", op_kind_name[op->kind]);
      set_str(L, "kernel", kname);
      set_int(L, "pivot", op->pivot);
      set_int(L, "a", op->a);
      set_int(L, "b", op->b);
      set_int(L, "c", op->c);
      set_int(L, "n", op->n);
      set_int(L, "rinv", op->rinv);
      set_str(L, "comment", comment);
      append(L);
    }
    lua_setfield(L, -2, "ops");
    append(L);
  }
}

static void push_kernels(lua_State *L, const view *v) {
  const emit_plan *pl = v->plan;
  lua_createtable(L, pl->nkernel, 0);
  for (int i = 0; i < pl->nkernel; i++) {
    const emit_kernel *k = &pl->kernels[i];
    char name[64];
    emit_kernel_name(k, name, sizeof name);
    lua_createtable(L, 0, 5);
    set_str(L, "kind", kernel_prefix[k->kind]);
    set_str(L, "name", name);
    set_int(L, "m", k->m);
    set_int(L, "n", k->n);
    set_int(L, "d", k->d);
    append(L);
  }
}

/* The target table (gen/target.h) for the program's precision: each row's
 * name, condition ("" for the last row, the #else), summary, vector bytes
 * and lanes. */
static void push_targets(lua_State *L, rt_precision precision) {
  lua_createtable(L, target_count, 0);
  for (int i = 0; i < target_count; i++) {
    const target_desc *t = &target_table[i];
    lua_createtable(L, 0, 5);
    set_str(L, "name", t->name);
    set_str(L, "condition", t->condition ? t->condition : "");
    set_str(L, "summary", t->summary);
    set_int(L, "bytes", t->vector_bytes);
    set_int(L, "lanes", target_lanes(t->vector_bytes, precision));
    append(L);
  }
}

static void build_view(lua_State *L, void *ud) {
  const view *v = ud;
  const rt_program *r = v->r;
  char buf[256];
  lua_createtable(L, 0, 24);
  snprintf(buf, sizeof buf, "ldlgen %s", v->o->version);
  set_str(L, "generator", buf);
  set_str(L, "name", r->name);
  set_str(L, "ident", v->ident);
  set_str(L, "macro", v->macro);
  snprintf(buf, sizeof buf, "LDLPGS_GENERATED_%s_H", v->macro);
  set_str(L, "guard", buf);
  set_str(L, "header", v->o->header ? v->o->header : "program.h");
  set_str(L, "mode", v->o->mode == EMIT_UNROLLED ? "unrolled" : "tables");
  set_str(L, "scalar", r->precision == RT_DOUBLE ? "double" : "float");
  set_str(L, "precision", r->precision == RT_DOUBLE ? "RT_DOUBLE" : "RT_FLOAT");
  snprintf(buf, sizeof buf, "0x%016llx", (unsigned long long)r->structure_hash);
  set_str(L, "hash", buf);

  lua_createtable(L, 0, 8);
  set_int(L, "nbody", r->nbody);
  set_int(L, "nsbody", r->nsbody);
  set_int(L, "ncons", r->ncons);
  set_int(L, "dim", r->dim);
  set_int(L, "work_size", r->work_size);
  set_int(L, "temp_size", r->temp_size);
  set_int(L, "nblk", r->nblk);
  set_int(L, "nrsi", r->nrsi);
  lua_setfield(L, -2, "sizes");

  push_stats(L, v);
  lua_setfield(L, -2, "stats");
  push_pivots(L, v);
  lua_setfield(L, -2, "pivots");
  push_arrays(L, v);
  lua_setfield(L, -2, "arrays");
  push_kernels(L, v);
  lua_setfield(L, -2, "kernels");
  push_functions(L, v, 0);
  lua_setfield(L, -2, "factor");
  push_functions(L, v, 1);
  lua_setfield(L, -2, "solve");
  set_int(L, "budget", v->plan->budget);
  set_int(L, "et_ld", v->plan->et_ld);
  set_int(L, "lanes", v->plan->lanes);
  push_targets(L, r->precision);
  lua_setfield(L, -2, "targets");
  set_int(L, "vector_align", TARGET_VECTOR_ALIGN);
}

/* The identifier prefix: the option, or the mechanism name with every
 * character that cannot appear in a C identifier replaced by '_' (and 'm_'
 * before a leading digit). */
static void make_ident(const char *name, char *out) {
  size_t k = 0;
  if (!is_alpha(name[0])) {
    out[k++] = 'm';
    out[k++] = '_';
  }
  for (size_t i = 0; name[i] && k < EMIT_IDENT_MAX; i++) out[k++] = is_alnum(name[i]) ? name[i] : '_';
  out[k] = '\0';
}

gen_status emit_program(const program *p, const emit_options *o, emit_output *out, diag_list *d) {
  memset(out, 0, sizeof *out);
  if (o->prefix && !emit_valid_ident(o->prefix)) {
    diag_error(d, NULL, 0, "prefix '%s' is not a C identifier", o->prefix);
    return GEN_ERR_USAGE;
  }
  arena a;
  arena_init(&a);
  rt_program r;
  rtprog_build(&a, p, o->precision, &r);
  view v = {p, &r, NULL, o, "", ""};
  emit_plan plan = {0};
  gen_status st = GEN_OK;
  if (o->mode == EMIT_UNROLLED) st = emit_plan_build(&a, &r, o->budget, &plan, d);
  v.plan = &plan;
  if (o->prefix)
    snprintf(v.ident, sizeof v.ident, "%s", o->prefix);
  else
    make_ident(p->m->name, v.ident);
  for (size_t i = 0; v.ident[i]; i++)
    v.macro[i] = (char)(v.ident[i] >= 'a' && v.ident[i] <= 'z' ? v.ident[i] - 'a' + 'A' : v.ident[i]);
  if (st == GEN_OK) {
    static const char *const names[] = {"program.c.tpl", "program.h.tpl"};
    tpl_text t[2];
    st = tpl_render(o->templates_dir, build_view, &v, 2, names, t, d);
    if (st == GEN_OK) {
      out->c = t[0].text;
      out->c_len = t[0].len;
      out->h = t[1].text;
      out->h_len = t[1].len;
    }
  }
  arena_free(&a);
  return st;
}

void emit_output_free(emit_output *out) {
  free(out->c);
  free(out->h);
  memset(out, 0, sizeof *out);
}
