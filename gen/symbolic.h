/* symbolic.h -- symbolic block factorization for a pivot order: edge
 * sequences (the row blocks of each pivot's column, in pivot order), fill-in,
 * the packed workspace layout, the RSI and the flop count.
 *
 * Packed layout (docs/DESIGN.md section 3): for each pivot p in order, its node
 * block N_p (d x d, row-major, full square) then its edge column: the blocks
 * E_{q,p} of every row block q below p, in pivot order, each d_q x d row-major
 * -- together one h x d row-major matrix, h = sum of the d_q.
 *
 * RSI of pivot p: for every pair (row r of E, row c of L) with c <= r, in
 * row-major order over r then c, the workspace offset that receives -E_r.L_c.
 * Row r lies in block I, row c in block J (J <= I in pivot order): the target
 * is N_I(r', c') when I == J, else E_{I,J}(r', c') in J's column.
 *
 * Flops (the talk's convention): per pivot d^3/6 + h d^2 + d h(h+1)/2
 * multiply-adds, times 2. */
#ifndef LDLPGS_GEN_SYMBOLIC_H
#define LDLPGS_GEN_SYMBOLIC_H

#include <stdint.h>

#include "arena.h"
#include "graph.h"

typedef struct symbolic {
  int n;                  /* pivots (= graph nodes) */
  int dim;                /* sum of degrees */
  int *perm;              /* pivot p -> graph node                      (n) */
  int *pos;               /* graph node -> pivot index                  (n) */
  int *degree;            /* d of pivot p                               (n) */
  int *height;            /* h of pivot p                               (n) */
  int *row_off;           /* first row of pivot p in the permuted vector (n) */
  int *node_off;          /* workspace offset of N_p                    (n) */
  int *edge_off;          /* workspace offset of p's edge column        (n) */
  int *col_adr;           /* row blocks of column p: [col_adr[p], col_adr[p+1]) (n+1) */
  int *col_piv;           /* pivot index of each row block, ascending    (nblock) */
  unsigned char *col_fill;/* 1 if the block is fill-in                   (nblock) */
  int *col_row;           /* first row of the block within its column    (nblock) */
  int *col_off;           /* workspace offset of the block               (nblock) */
  int nblock;             /* edge blocks (original + fill) */
  int nfill;              /* fill-in blocks */
  int64_t *rsi_adr;       /* RSI of pivot p: rsi[rsi_adr[p] .. rsi_adr[p+1]) (n+1) */
  int32_t *rsi;           /* workspace offsets                           (nrsi) */
  int64_t nrsi;           /* sum of h(h+1)/2 */
  int work_size;          /* doubles/floats in the packed workspace */
  int max_col;            /* largest h*d (temporary L buffer) */
  int64_t flops3;         /* 3 x flops, exact */
} symbolic;

/* Flops of a pivot of degree d and column height h, times 3 (exact). */
int64_t symbolic_pivot_flops3(int64_t d, int64_t h);

/* What eliminating g in order perm (pivot p -> node) produces, without
 * eliminating: 3 x flops, edge blocks, RSI entries, workspace
 * (symbolic_totals). The
 * elimination tree and the column counts of the filled graph (each
 * column's height by the row subtrees that cross it), in time nearly
 * linear in the graph's edges whatever the fill. */
typedef struct symbolic_totals {
  int64_t flops3;
  int64_t nblock;
  int64_t nrsi;
  int64_t work;  /* workspace scalars: sum of d^2 + h d */
  int64_t span3; /* 3 x flops of the heaviest path up the elimination tree:
                    the factor's critical path, which independent pivots
                    do not lengthen */
} symbolic_totals;
void symbolic_totals_of(const cgraph *g, const int *perm, symbolic_totals *t);

/* The elimination tree of g in order perm: parent[p] of pivot p (-1 at a
 * root) and the column height h of each pivot, as symbolic_totals_of
 * counts them (n each). */
void symbolic_tree(const cgraph *g, const int *perm, int *parent, int *height);

/* 3 x flops and the number of fill blocks of eliminating g in order perm,
 * without building the layout (symbolic_totals_of). */
int64_t symbolic_count(const cgraph *g, const int *perm, int *nfill);

/* Full symbolic factorization: structure (on the quotient graph, qgraph.h),
 * layout, RSI: time proportional to the edge blocks and the RSI. */
void symbolic_build(arena *a, const cgraph *g, const int *perm, symbolic *s);

/* Flops rounded to the nearest integer. */
long long symbolic_flops(const symbolic *s);

#endif
