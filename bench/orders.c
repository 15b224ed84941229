/* orders.c -- our orderings against AMD and METIS on the constraint graph
 * (see orders.h). */
#include "orders.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amd.h>
#include <metis.h>

#include "btime.h"
#include "order.h"
#include "symbolic.h"

static void evaluate(const cgraph *g, const int *perm, bo_row *row) {
  if (!order_is_permutation(perm, g->n)) {
    row->ok = 0;
    return;
  }
  row->flops = (double)symbolic_count(g, perm, &row->fill) / 3.0;
  row->ok = 1;
}

/* AMD on the block graph's pattern (no diagonal; AMD does not need it). */
static void amd_perm(const cgraph *g, int *perm, bo_row *row) {
  int st = amd_order(g->n, g->adr, g->adj, perm, NULL, NULL);
  if (st != AMD_OK && st != AMD_OK_BUT_JUMBLED) {
    row->ok = 0;
    snprintf(row->detail, sizeof row->detail, "amd_order failed (%d)", st);
  }
}

/* METIS_NodeND with vertex weights = block sizes. Its `perm` output maps a
 * position of the permuted matrix to the original vertex (row i of PAP^T is
 * row perm[i] of A): the pivot sequence, our perm. (Checked on a star
 * graph: nested dissection puts the centre, the separator, last there.) */
static void metis_perm(const cgraph *g, int *perm, bo_row *row) {
  idx_t n = g->n;
  if (n < 3) { /* METIS needs a graph to bisect; any order is optimal here */
    for (int i = 0; i < g->n; i++) perm[i] = i;
    return;
  }
  idx_t *xadj = malloc(sizeof *xadj * (size_t)(n + 1)), *adj = malloc(sizeof *adj * (size_t)(g->adr[n] + 1));
  idx_t *vwgt = malloc(sizeof *vwgt * (size_t)n), *p = malloc(sizeof *p * (size_t)n), *ip = malloc(sizeof *ip * (size_t)n);
  if (!xadj || !adj || !vwgt || !p || !ip) abort();
  for (int i = 0; i <= n; i++) xadj[i] = g->adr[i];
  for (int k = 0; k < g->adr[n]; k++) adj[k] = g->adj[k];
  for (int i = 0; i < n; i++) vwgt[i] = g->degree[i];
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  int st = METIS_NodeND(&n, xadj, adj, vwgt, options, p, ip);
  if (st != METIS_OK) {
    row->ok = 0;
    snprintf(row->detail, sizeof row->detail, "METIS_NodeND failed (%d)", st);
  }
  for (int i = 0; i < g->n; i++) perm[i] = (int)p[i];
  free(xadj);
  free(adj);
  free(vwgt);
  free(p);
  free(ip);
}

void bo_compare(const cgraph *g, bo_row *rows) {
  static const char *const names[BO_COUNT] = {"natural", "mda", "meca", "best", "AMD", "METIS"};
  int *perm = malloc(sizeof *perm * (size_t)(g->n + 1));
  if (!perm) abort();
  for (int k = 0; k < BO_COUNT; k++) {
    bo_row *r = &rows[k];
    memset(r, 0, sizeof *r);
    r->name = names[k];
    r->ok = 1;
    double t0 = bt_now();
    if (k <= BO_BEST) {
      const char *chosen = NULL;
      order_compute(g, (order_kind)k, perm, &chosen);
      if (k == BO_BEST) snprintf(r->detail, sizeof r->detail, "%s", chosen ? chosen : "?");
    } else if (k == BO_AMD) {
      snprintf(r->detail, sizeof r->detail, "amd_order, default controls");
      amd_perm(g, perm, r);
    } else {
      snprintf(r->detail, sizeof r->detail, "METIS_NodeND, weights = degrees");
      metis_perm(g, perm, r);
    }
    r->seconds = bt_now() - t0;
    if (r->ok) evaluate(g, perm, r);
  }
  free(perm);
}
