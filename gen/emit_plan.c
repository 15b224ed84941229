/* emit_plan.c -- see emit.h. The plan: what the unrolled code does, op by
 * op, with every workspace offset, grouped into bounded functions. */
#include "emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunk.h"

/*---- plan -----------------------------------------------------------------------*/

static const char *const kernel_prefix[EK_NKINDS] = {
    [EK_FACTOR_NODE] = "factor_node",   [EK_NODE_FORWARD] = "node_forward", [EK_NODE_DIAG] = "node_diag",
    [EK_NODE_BACKWARD] = "node_backward", [EK_PANEL] = "panel",
    [EK_REDUCE_TRI] = "reduce_tri",   [EK_REDUCE] = "reduce",             [EK_FORWARD] = "forward",
    [EK_BACKWARD_SET] = "backward_set", [EK_BACKWARD_ADD] = "backward_add", [EK_SUBTRACT] = "subtract",
};

const char *emit_kernel_kind_name(emit_kernel_kind kind) { return kernel_prefix[kind]; }

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

int emit_all_kernels(rt_precision precision, emit_kernel *out, int cap) {
  int n = 0, lanes = rtprog_lanes(precision);
#define ADD(kind_, m_, n_, d_) \
  do {                                                                   \
    if (n < cap) out[n] = (emit_kernel){(kind_), (m_), (n_), (d_)};     \
    n++;                                                                 \
  } while (0)
  for (int kind = 0; kind < EK_NKINDS; kind++) {
    switch ((emit_kernel_kind)kind) {
    case EK_PANEL:
      for (int m = 1; m <= lanes; m *= 2)
        for (int r = 1; r <= m; r++)
          for (int d = 1; d <= RT_MAX_DEGREE; d++) ADD(EK_PANEL, m, r, d);
      break;
    case EK_REDUCE:
      for (int m = 1; m <= RT_MAX_DEGREE; m++)
        for (int r = 1; r <= RT_MAX_DEGREE; r++)
          for (int d = 1; d <= RT_MAX_DEGREE; d++) ADD(EK_REDUCE, m, r, d);
      break;
    case EK_REDUCE_TRI:
    case EK_FORWARD:
    case EK_BACKWARD_SET:
    case EK_BACKWARD_ADD:
      for (int m = 1; m <= RT_MAX_DEGREE; m++)
        for (int d = 1; d <= RT_MAX_DEGREE; d++) ADD((emit_kernel_kind)kind, m, 0, d);
      break;
    case EK_NODE_FORWARD:
    case EK_NODE_BACKWARD: /* a 1 x 1 node block has no l: never called */
      for (int d = 2; d <= RT_MAX_DEGREE; d++) ADD((emit_kernel_kind)kind, 0, 0, d);
      break;
    default:
      for (int d = 1; d <= RT_MAX_DEGREE; d++) ADD((emit_kernel_kind)kind, 0, 0, d);
      break;
    }
  }
#undef ADD
  return n;
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
    if (nlist) memcpy(list, b->ops + first, sizeof *list * (size_t)nlist); /* b->ops may be NULL */
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
    if (nstmt) memcpy(stmts, b->ops + begin, sizeof *stmts * (size_t)nstmt);
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
static void plan_solve_phase(builder *b, emit_phase phase, const int *kept) {
  const rt_program *r = b->prog;
  /* a function ends at the budget, or before a pivot whose name is an
   * anchor (one in 8): an edit seldom moves another cut (chunk.h); or,
   * with kept, where the previous program's functions ended */
  const chunk_rule rule = {0, b->budget, 3, CHUNK_SALT};
  int n = r->ncons, open = 0, last = 0;
  for (int i = 0; i < n; i++) {
    int p = phase == EP_BACKWARD ? n - 1 - i : i;
    int d = piv_degree(r, p), nb = r->piv_blk_adr[p + 1] - r->piv_blk_adr[p];
    int cost = nb + (phase == EP_BACKWARD && nb > 0) + (d > 1) + (phase == EP_FORWARD);
    if (cost == 0) continue;
    const int c = r->piv_cons[p];
    if (chunk_cut_kept(&rule, open ? b->fns[b->nfn - 1].statements : 0, cost, r->cons_name[c], kept ? kept[c] : -1,
                       &last) &&
        open) {
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

gen_status emit_plan_build(arena *a, const rt_program *prog, int budget, const int *const *kept, emit_plan *out,
                           diag_list *d) {
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
  plan_solve_phase(b, EP_FORWARD, kept ? kept[KEEP_CUT_FORWARD] : NULL);
  plan_solve_phase(b, EP_BACKWARD, kept ? kept[KEEP_CUT_BACKWARD] : NULL);

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
  int calls = 0;
  for (int i = 0; i < b->nfn; i++) calls += b->fns[i].phase == EP_FACTOR ? b->fns[i].statements : 0;
  out->inline_kernels = calls <= EMIT_INLINE_CALLS;

  free(index);
  free(b->ops);
  free(b->fns);
  free(b);
  return GEN_OK;
}

