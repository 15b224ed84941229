/* emit.c -- see emit.h. The options, the view (the read-only tables the
 * templates format, from the plan of emit_plan.c) and the program's
 * emission through the templates. */
#include "emit.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>

#include "chunk.h"
#include "rt_joint_type.h"
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

/*---- view: the tables handed to the templates ------------------------------------*/

typedef struct view {
  const program *p;
  const rt_program *r;
  const emit_plan *plan;
  const emit_options *o;
  char ident[EMIT_IDENT_MAX + 1];
  char macro[EMIT_IDENT_MAX + 1]; /* upper-case ident */
  emit_names names;               /* of the bodies and constraints */
  char **pid;                     /* each pivot's C identifier part (pivot order) */
  char **sbid;                    /* each solver body's (B_ of pivots.tpl) */
  /* per constraint, the previous program's function of each kind it was
   * in (program_kept_chunk); NULL: not known */
  const int *kept[KEEP_CUT_KINDS];
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

/*---- offsets relative to each pivot's base -------------------------------------
 * Unrolled code names every pivot by its constraint (pivot identifiers,
 * make_pivot_ids) and writes each workspace offset as its pivot's base plus
 * a literal: "W_<id> + 12", with the bases declared once in a table (P_ the
 * pivot's index, W_ its node block, R_ its reciprocals' slot in the
 * temporary, X_ its first row in x). Inserting or removing a pivot then
 * changes the table and the code of the pivots whose blocks change, and
 * nothing else; the offsets are still compile-time constants. */

/* The reciprocals' slot of pivot q in the temporary (emit_plan.c; pivots.tpl
 * writes R_ from P_'s parity, the same rule). */
static int rinv_slot_of(int q) { return (q & 1) * RTPROG_TEMP_RINV; }

/* Workspace offset abs, in the region of pivot q (its node block and edge
 * column), as "W_<id> + rel". */
static void wref(const view *v, int q, long long abs, char *buf, size_t size) {
  const rt_program *r = v->r;
  int d = r->cons_degree[r->piv_cons[q]];
  long long rel = abs - r->piv_node[q], end = (long long)d * d + (long long)r->piv_height[q] * d;
  if (rel < 0 || rel >= (end > 0 ? end : 1)) abort(); /* not in q's region: an emitter bug */
  if (rel == 0)
    snprintf(buf, size, "W_%s", v->pid[q]);
  else
    snprintf(buf, size, "W_%s + %lld", v->pid[q], rel);
}

/* Offset abs into x, at pivot q's rows, as "X_<id> + rel". */
static void xref(const view *v, int q, int abs, char *buf, size_t size) {
  int rel = abs - v->r->cons_row[v->r->piv_cons[q]];
  if (rel < 0 || rel >= v->r->cons_degree[v->r->piv_cons[q]]) abort();
  if (rel == 0)
    snprintf(buf, size, "X_%s", v->pid[q]);
  else
    snprintf(buf, size, "X_%s + %d", v->pid[q], rel);
}

/* Every pivot's identifier: its constraint's name, at most PID_MAX
 * characters of it, with each character outside [A-Za-z0-9_] made '_', and
 * "_2", "_3", ... after a name that an earlier constraint (in constraint
 * order, which the elimination order does not change) already took, or
 * that ends like a part's function name ("_part3"). */
#define PID_MAX 40
/* a constraint named EMIT_START_ID (emit.h) gets "_2" */
static int ends_like_part(const char *id) {
  const char *u = strrchr(id, '_');
  if (!u || strncmp(u, "_part", 5) != 0 || !u[5]) return 0;
  for (u += 5; *u; u++)
    if (*u < '0' || *u > '9') return 0;
  return 1;
}

/* name's first PID_MAX characters, each outside [A-Za-z0-9_] made '_', with
 * room for a suffix; *len its length. */
static char *id_of(arena *a, const char *name, size_t *len) {
  *len = strlen(name) < PID_MAX ? strlen(name) : PID_MAX;
  char *id = arena_alloc(a, *len + 16);
  for (size_t i = 0; i < *len; i++) id[i] = is_alnum(name[i]) ? name[i] : '_';
  id[*len] = '\0';
  return id;
}

static char **make_pivot_ids(arena *a, const rt_program *r) {
  char **byc = arena_alloc(a, sizeof *byc * (size_t)(r->ncons > 0 ? r->ncons : 1));
  for (int c = 0; c < r->ncons; c++) {
    size_t len;
    char *id = id_of(a, r->cons_name[c], &len);
    for (int k = 2;; k++) {
      int clash = ends_like_part(id) || strcmp(id, EMIT_START_ID) == 0;
      for (int e = 0; e < c && !clash; e++) clash = strcmp(byc[e], id) == 0;
      if (!clash) break;
      snprintf(id + len, 16, "_%d", k);
    }
    byc[c] = id;
  }
  char **byq = arena_alloc(a, sizeof *byq * (size_t)(r->ncons > 0 ? r->ncons : 1));
  for (int q = 0; q < r->ncons; q++) byq[q] = byc[r->piv_cons[q]];
  return byq;
}

/* Every solver body's identifier (the B_ indices of pivots.tpl): its name
 * made an identifier as a pivot's is, and "_2", "_3", ... after one that an
 * earlier body has. */
static char **make_sbody_ids(arena *a, int n, const char *const *name) {
  char **id = arena_alloc(a, sizeof *id * (size_t)(n > 0 ? n : 1));
  for (int b = 0; b < n; b++) {
    size_t len;
    id[b] = id_of(a, name[b], &len);
    for (int k = 2;; k++) {
      int clash = 0;
      for (int e = 0; e < b && !clash; e++) clash = strcmp(id[e], id[b]) == 0;
      if (!clash) break;
      snprintf(id[b] + len, 16, "_%d", k);
    }
  }
  return id;
}

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
  set_int(L, "deferred_pivots", p->deferred_pivots);
  set_int(L, "workspace", v->r->work_size);
  set_int(L, "temp", v->r->temp_size);
  set_int(L, "unshattered_dim", p->unshattered_dim);
  set_int(L, "unshattered_flops", (p->unshattered_flops3 + 1) / 3);
  set_int(L, "shatter_threshold", p->shatter_threshold);
}

/* The pivot whose region (node block and edge column) holds workspace
 * offset off: regions are packed in pivot order. */
static int region_of(const rt_program *r, long long off) {
  int lo = 0, hi = r->ncons - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (r->piv_node[mid] <= off)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* p.rsi: pivot q's RSI entries as "W_<id> + k, ..." (each relative to the
 * pivot whose region it targets), or "" when it has none. */
static void push_rsi_text(lua_State *L, const view *v, int q) {
  const rt_program *r = v->r;
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int64_t i = r->piv_rsi_adr[q]; i < r->piv_rsi_adr[q + 1]; i++) {
    char buf[EMIT_IDENT_MAX + 200];
    wref(v, region_of(r, r->rsi[i]), r->rsi[i], buf, sizeof buf);
    if (i > r->piv_rsi_adr[q]) luaL_addstring(&b, ", ");
    luaL_addstring(&b, buf);
  }
  luaL_pushresult(&b);
  lua_setfield(L, -2, "rsi");
}

/* pivots.tpl counts the bases on from the line before: a constraint's
 * first row after the one before's rows, a pivot's node block after the
 * one before's node block and edge column, its edge column after its node
 * block, a joint's index its own (equality joints counted alone). Aborts
 * (an emitter bug) if the program were laid out otherwise. */
static void check_counted_bases(const rt_program *r) {
  for (int c = 0; c < r->ncons; c++)
    if ((r->cons_joint[c] != c && r->cons_joint[c] != -1) ||
        r->cons_row[c] != (c ? r->cons_row[c - 1] + r->cons_degree[c - 1] : 0))
      abort();
  for (int q = 0; q < r->ncons; q++) {
    const int d = r->cons_degree[r->piv_cons[q]];
    const int dp = q ? r->cons_degree[r->piv_cons[q - 1]] : 0;
    if (r->piv_node[q] != (q ? r->piv_node[q - 1] + dp * (dp + r->piv_height[q - 1]) : 0) ||
        r->piv_edge[q] != r->piv_node[q] + d * d)
      abort();
  }
}

static void push_strings(lua_State *L, const char *const *v, int n) {
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushstring(L, v[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

/* "on": the shards of shattered bodies a mechanism constraint's ends are
 * on, "chassis#3" or "chassis#3, hull#1" ("" if none): --keep-order reads
 * them back (keep.h). */
static void push_on_shards(lua_State *L, const view *v, int c) {
  const rt_program *r = v->r;
  char buf[2 * EMIT_IDENT_MAX + 64] = "";
  const int ends[2] = {r->cons_a[c], r->cons_b[c]};
  for (int e = 0; e < 2 && r->cons_joint[c] >= 0; e++) {
    const int sb = ends[e];
    if (sb == RT_WORLD || r->shard_num[r->sbody_body[sb]] < 2) continue;
    const size_t n = strlen(buf);
    snprintf(buf + n, sizeof buf - n, "%s%s", n ? ", " : "", v->p->s.body_name[sb]);
  }
  set_str(L, "on", buf);
}

static void push_pivots(lua_State *L, const view *v) {
  const rt_program *r = v->r;
  lua_createtable(L, r->ncons, 0);
  for (int q = 0; q < r->ncons; q++) {
    int c = r->piv_cons[q], nfill = 0;
    for (int k = r->piv_blk_adr[q]; k < r->piv_blk_adr[q + 1]; k++) nfill += r->blk_fill[k];
    lua_createtable(L, 0, 9);
    set_str(L, "id", v->pid[q]);
    set_str(L, "name", r->cons_name[c]);
    set_str(L, "type", cons_type(v, c));
    set_int(L, "degree", r->cons_degree[c]);
    set_int(L, "height", r->piv_height[q]);
    set_int(L, "nblocks", r->piv_blk_adr[q + 1] - r->piv_blk_adr[q]);
    set_int(L, "nrsi", r->piv_rsi_adr[q + 1] - r->piv_rsi_adr[q]);
    if (v->pid) push_rsi_text(L, v, q);
    set_int(L, "nfill", nfill);
    push_on_shards(L, v, c);
    lua_createtable(L, r->piv_blk_adr[q + 1] - r->piv_blk_adr[q], 0);
    for (int k = r->piv_blk_adr[q]; k < r->piv_blk_adr[q + 1]; k++) {
      lua_createtable(L, 0, 4);
      set_int(L, "pivot", r->blk_piv[k]);
      set_str(L, "name", piv_name(v, r->blk_piv[k]));
      set_int(L, "degree", r->cons_degree[r->piv_cons[r->blk_piv[k]]]);
      set_bool(L, "fill", r->blk_fill[k]);
      if (v->pid) {
        char buf[EMIT_IDENT_MAX + 200];
        wref(v, q, r->blk_off[k], buf, sizeof buf);
        set_str(L, "off", buf);
      }
      append(L);
    }
    lua_setfield(L, -2, "blocks");
    append(L);
  }
}

/*---- the program's assembly (P.assembly, templates/assemble.tpl) -----------------
 * The runtime's plan of H~'s assembly from the rows' J and W J^T
 * (runtime/assemble.c, rt__assemble_plan) made here once, for the code to
 * run with every offset a constant: per block its workspace offset (a
 * pivot's base plus a literal), size, whether it is a node block, and the
 * at most two terms of the bodies its two constraints share (a body fixed
 * in the mechanism left out: its W J^T is zero), each as its constraints'
 * row bases (X_) and sides; and the runs of the workspace no block writes. */

/* Workspace offset abs as "W_<id> + rel", id the pivot whose region holds
 * it (or, past every region's end, the last one before it). */
static void wbase(const view *v, long long abs, char *buf, size_t size) {
  const int q = region_of(v->r, abs);
  const long long rel = abs - v->r->piv_node[q];
  if (rel == 0)
    snprintf(buf, size, "W_%s", v->pid[q]);
  else
    snprintf(buf, size, "W_%s + %lld", v->pid[q], rel);
}

/* Solver constraint c's row letters (rt_joint_type_def.rows): its joint
 * type's, or a weld's for a shard weld. */
static const char *cons_rows(const view *v, int c) {
  const int orig = v->p->s.cons_orig[c];
  return rt_joint_type_def_of(orig >= 0 ? v->p->m->cons[orig].type : RT_WELD)->rows;
}

/* The assembly kernel (rt_kernels.h, templates/asm_kernels.tpl) of a
 * node or edge block of nterm terms whose constraints have row letters
 * qrows and prows: "asm_n5x5_2_xyzaa", "asm_e5x6_1_xyzaa_xyzaaa". */
static void asm_kernel_name(int node, int nterm, const char *qrows, const char *prows, char *buf, size_t size) {
  if (node)
    snprintf(buf, size, "asm_n%zux%zu_%d_%s", strlen(qrows), strlen(qrows), nterm, qrows);
  else
    snprintf(buf, size, "asm_e%zux%zu_%d_%s_%s", strlen(qrows), strlen(prows), nterm, qrows, prows);
}

/* One block: {dst, dq, dp, node, pivot, part, kernel, terms = {{jq,
 * jside, wp, wside}...}}; cid: each solver constraint's C identifier (its
 * pivot's); part: the identifier of its function's first pivot. */
static void push_asm_block(lua_State *L, const view *v, const char *const *cid, const char *part, int q,
                           long long dst, int cq, int cp, int node) {
  const rt_program *r = v->r;
  char buf[EMIT_IDENT_MAX + 64];
  lua_createtable(L, 0, 6);
  wbase(v, dst, buf, sizeof buf);
  set_str(L, "dst", buf);
  set_int(L, "dq", r->cons_degree[cq]);
  set_int(L, "dp", r->cons_degree[cp]);
  set_bool(L, "node", node);
  set_str(L, "pivot", v->pid[q]);
  set_str(L, "part", part);
  int nterm = 0;
  lua_newtable(L);
  for (int sp = 0; sp < 2; sp++) {
    const int b = sp ? r->cons_b[cp] : r->cons_a[cp];
    if (b == RT_WORLD || v->p->s.body_fixed[b]) continue;
    for (int sq = 0; sq < 2; sq++) {
      if ((sq ? r->cons_b[cq] : r->cons_a[cq]) != b) continue;
      lua_createtable(L, 0, 4);
      set_str(L, "jq", cid[cq]);
      set_int(L, "jside", sq);
      set_str(L, "wp", cid[cp]);
      set_int(L, "wside", sp);
      append(L);
      nterm++;
    }
  }
  lua_setfield(L, -2, "terms");
  asm_kernel_name(node, nterm, cons_rows(v, cq), cons_rows(v, cp), buf, sizeof buf);
  set_str(L, "kernel", buf);
  append(L);
}

static void push_assembly(lua_State *L, const view *v) {
  const rt_program *r = v->r;
  lua_createtable(L, 0, 2);
  unsigned char *hit = calloc((size_t)r->work_size + 1, 1);
  const char **cid = malloc(sizeof *cid * (size_t)r->ncons);
  if (!hit || !cid) abort();
  for (int q = 0; q < r->ncons; q++) cid[r->piv_cons[q]] = v->pid[q];
  /* the blocks in functions of at most the statement budget, cut before
   * pivots whose names are anchors (one in 8): an edit seldom moves
   * another cut (chunk.h); or, with kept, where the previous program's
   * functions ended */
  const chunk_rule rule = {0, v->plan->budget, 3, CHUNK_SALT};
  int part = -1, size = 0, last = 0;
  lua_newtable(L); /* blocks, pivot by pivot */
  for (int q = 0; q < r->ncons; q++) {
    const int cp = r->piv_cons[q], d = r->cons_degree[cp];
    int nblk = 1;
    for (int k = r->piv_blk_adr[q]; k < r->piv_blk_adr[q + 1]; k++) nblk += !r->blk_fill[k];
    const int kept = v->kept[KEEP_CUT_ASSEMBLY] ? v->kept[KEEP_CUT_ASSEMBLY][cp] : -1;
    if (chunk_cut_kept(&rule, size, nblk, r->cons_name[cp], kept, &last) || part < 0) part = q, size = 0;
    size += nblk;
    const char *pname = part == 0 ? EMIT_START_ID : v->pid[part]; /* the first after none */
    push_asm_block(L, v, cid, pname, q, r->piv_node[q], cp, cp, 1);
    memset(hit + r->piv_node[q], 1, (size_t)(d * d));
    for (int k = r->piv_blk_adr[q]; k < r->piv_blk_adr[q + 1]; k++) {
      if (r->blk_fill[k]) continue;
      const int cq = r->piv_cons[r->blk_piv[k]];
      push_asm_block(L, v, cid, pname, q, r->blk_off[k], cq, cp, 0);
      memset(hit + r->blk_off[k], 1, (size_t)(r->cons_degree[cq] * d));
    }
  }
  lua_setfield(L, -2, "blocks");
  lua_newtable(L); /* the runs no block writes */
  for (int i = 0; i < r->work_size;) {
    if (hit[i]) {
      i++;
      continue;
    }
    int j = i;
    while (j < r->work_size && !hit[j]) j++;
    char buf[EMIT_IDENT_MAX + 64];
    lua_createtable(L, 0, 2);
    wbase(v, i, buf, sizeof buf);
    set_str(L, "dst", buf);
    set_int(L, "len", j - i);
    append(L);
    i = j;
  }
  lua_setfield(L, -2, "zero");
  free(hit);
  free(cid);
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

/* The operands of an op as C expressions relative to the pivots' bases
 * (see wref): A, B, C for the kernel's arguments a, b, c (emit.h), RINV for
 * a panel's reciprocals, FAIL for a node factor's pivot index. */
static void op_operands(lua_State *L, const view *v, const emit_op *op) {
  char A[160] = "", B[160] = "", C[160] = "", buf[160];
  const rt_program *r = v->r;
  switch (op->kind) {
  case EO_FACTOR_NODE:
    wref(v, op->pivot, op->a, A, sizeof A);
    if (op->b != rinv_slot_of(op->pivot)) abort();
    snprintf(B, sizeof B, "R_%s", v->pid[op->pivot]);
    snprintf(buf, sizeof buf, "P_%s", v->pid[op->pivot]);
    set_str(L, "FAIL", buf);
    break;
  case EO_PANEL:
    wref(v, op->pivot, op->a, A, sizeof A);
    wref(v, op->pivot, op->b, B, sizeof B);
    snprintf(C, sizeof C, "%d", op->c);
    if (op->rinv != rinv_slot_of(op->pivot)) abort();
    snprintf(buf, sizeof buf, "R_%s", v->pid[op->pivot]);
    set_str(L, "RINV", buf);
    break;
  case EO_REDUCE:
    wref(v, op->row == op->col ? op->row : op->col, op->a, A, sizeof A);
    wref(v, op->pivot, op->b, B, sizeof B);
    snprintf(C, sizeof C, "%d", op->c);
    break;
  case EO_FORWARD:
    wref(v, op->pivot, op->a, A, sizeof A);
    xref(v, op->pivot, op->b, B, sizeof B);
    xref(v, op->row, op->c, C, sizeof C);
    break;
  case EO_NODE:
    wref(v, op->pivot, op->a, A, sizeof A);
    xref(v, op->pivot, op->b, B, sizeof B);
    break;
  case EO_BACKWARD:
    wref(v, op->pivot, op->a, A, sizeof A);
    xref(v, op->row, op->c, C, sizeof C);
    break;
  case EO_SUBTRACT: xref(v, op->pivot, op->b, B, sizeof B); break;
  default: break;
  }
  (void)r;
  set_str(L, "A", A);
  set_str(L, "B", B);
  set_str(L, "C", C);
}

static void push_functions(lua_State *L, const view *v, int solve) {
  const emit_plan *pl = v->plan;
  lua_newtable(L);
  for (int i = 0; i < pl->nfn; i++) {
    const emit_fn *f = &pl->fns[i];
    if ((f->phase != EP_FACTOR) != solve) continue;
    /* a solve function is named after its first pivot, the phase's first
     * after none: a pivot put first renames no function */
    const int first = i == 0 || pl->fns[i - 1].phase != f->phase;
    char name[EMIT_IDENT_MAX + 200];
    if (f->phase == EP_FACTOR && f->part > 1)
      snprintf(name, sizeof name, "pivot_%s_part%d", v->pid[f->first_pivot], f->part);
    else if (f->phase == EP_FACTOR)
      snprintf(name, sizeof name, "pivot_%s", v->pid[f->first_pivot]);
    else
      snprintf(name, sizeof name, "solve_%s_%s", phase_name[f->phase], first ? EMIT_START_ID : v->pid[f->first_pivot]);
    lua_createtable(L, 0, 12);
    set_str(L, "name", name);
    set_str(L, "phase", phase_name[f->phase]);
    set_int(L, "first_pivot", f->first_pivot);
    set_int(L, "last_pivot", f->last_pivot);
    set_int(L, "part", f->part);
    set_int(L, "nparts", f->nparts);
    set_bool(L, "status", f->status);
    set_int(L, "fail_pivot", f->fail_pivot);
    if (f->fail_pivot >= 0) {
      char fail[EMIT_IDENT_MAX + 200];
      snprintf(fail, sizeof fail, "P_%s", v->pid[f->fail_pivot]);
      set_str(L, "FAIL", fail);
    }
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
      op_operands(L, v, op);
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
    set_str(L, "kind", emit_kernel_kind_name(k->kind));
    set_str(L, "name", name);
    set_int(L, "m", k->m);
    set_int(L, "n", k->n);
    set_int(L, "d", k->d);
    append(L);
  }
}

/* The target table (gen/target.h) for the program's precision: each row's
 * name, condition ("" for the last row, the #else), summary, vector bytes
 * (0: plain C) and lanes (1 for plain C). */
static void push_targets(lua_State *L, rt_precision precision) {
  lua_createtable(L, target_count, 0);
  for (int i = 0; i < target_count; i++) {
    const target_desc *t = &target_table[i];
    lua_createtable(L, 0, 5);
    set_str(L, "name", t->name);
    set_str(L, "condition", t->condition ? t->condition : "");
    set_str(L, "summary", t->summary);
    set_int(L, "bytes", t->vector_bytes);
    set_int(L, "lanes", target_row_lanes(t, precision));
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
  set_int(L, "batch", v->o->batch); /* lanes; 0: the scalar program */
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
  set_bool(L, "inline_kernels", v->plan->inline_kernels);
  set_int(L, "lanes", v->plan->lanes);
  push_targets(L, r->precision);
  lua_setfield(L, -2, "targets");
  set_int(L, "vector_align", TARGET_VECTOR_ALIGN);
  if (v->pid && r->ncons > 0)
    push_assembly(L, v);
  else
    lua_pushboolean(L, 0);
  lua_setfield(L, -2, "assembly");
  if (v->pid && r->ncons > 0) { /* unrolled: the constraints' identifiers are the pivots' */
    const char **cons_id = malloc(sizeof *cons_id * (size_t)r->ncons);
    if (!cons_id) abort();
    for (int q = 0; q < r->ncons; q++) cons_id[r->piv_cons[q]] = v->pid[q];
    check_counted_bases(r);
    emit_sweep_push(L, r, v->p->s.body_fixed, cons_id, v->kept[KEEP_CUT_SWEEP]);
    lua_setfield(L, -2, "sweep");
    push_strings(L, cons_id, r->ncons);
    lua_setfield(L, -2, "cons_id");
    free(cons_id);
    push_strings(L, (const char *const *)v->sbid, r->nsbody);
    lua_setfield(L, -2, "sbody_id");
  } else {
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "sweep");
  }
  set_str(L, "start_id", EMIT_START_ID);
  set_int(L, "rinv_stride", RTPROG_TEMP_RINV);
  emit_world_push(L, v->p->m, &v->names);
  lua_setfield(L, -2, "world");
  set_str(L, "mechanism_mark", EMIT_MECHANISM_MARK);
  if (v->o->mechanism_c) { /* P.mechanism: the mechanism part's own files */
    lua_createtable(L, 0, 3);
    set_str(L, "c", v->o->mechanism_c);
    set_str(L, "h", v->o->mechanism_h);
    snprintf(buf, sizeof buf, "LDLPGS_GENERATED_%s_MECHANISM_H", v->macro);
    set_str(L, "guard", buf);
  } else {
    lua_pushboolean(L, 0);
  }
  lua_setfield(L, -2, "mechanism");
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
  if (o->batch && (!EMIT_BATCH_LANES_OK(o->batch) || o->mode != EMIT_UNROLLED)) {
    diag_error(d, NULL, 0, "a batch program has 4, 8 or 16 lanes and unrolled code, not %d lanes in %s mode", o->batch,
               o->mode == EMIT_UNROLLED ? "unrolled" : "tables");
    return GEN_ERR_USAGE;
  }
  arena a;
  arena_init(&a);
  rt_program r;
  rtprog_build(&a, p, o->precision, &r);
  view v = {p, &r, NULL, o, "", "", {NULL, NULL}, make_pivot_ids(&a, &r),
            make_sbody_ids(&a, r.nsbody, p->s.body_name), {NULL}};
  for (int k = 0; k < KEEP_CUT_KINDS && p->keep_chunks; k++) { /* ldlgen --keep-order */
    int *kept = ARENA_ARRAY(&a, int, r.ncons + 1);
    for (int c = 0; c < r.ncons; c++) kept[c] = program_kept_chunk(p, (keep_cut_kind)k, c);
    v.kept[k] = kept;
  }
  emit_plan plan = {0};
  gen_status st = GEN_OK;
  if (o->mode == EMIT_UNROLLED) st = emit_plan_build(&a, &r, o->budget, v.kept, &plan, d);
  v.plan = &plan;
  if (o->prefix)
    snprintf(v.ident, sizeof v.ident, "%s", o->prefix);
  else
    make_ident(p->m->name, v.ident);
  for (size_t i = 0; v.ident[i]; i++)
    v.macro[i] = (char)(v.ident[i] >= 'a' && v.ident[i] <= 'z' ? v.ident[i] - 'a' + 'A' : v.ident[i]);
  if (st == GEN_OK) st = emit_world_names(&a, p->m, v.macro, &v.names, d);
  if (st == GEN_OK) {
    static const char *const names[] = {"program.c.tpl", "program.h.tpl", "mechanism.c.tpl", "mechanism.h.tpl"};
    tpl_text t[4];
    st = tpl_render(o->templates_dir, build_view, &v, o->mechanism_c ? 4 : 2, names, t, d);
    if (st == GEN_OK) {
      out->c = t[0].text;
      out->c_len = t[0].len;
      out->h = t[1].text;
      out->h_len = t[1].len;
      if (o->mechanism_c) {
        out->mc = t[2].text;
        out->mc_len = t[2].len;
        out->mh = t[3].text;
        out->mh_len = t[3].len;
      }
    }
  }
  arena_free(&a);
  return st;
}

/* The view of rt_kernels.h: every kernel of both precisions. */
typedef struct kernels_view {
  const emit_options *o;
} kernels_view;

static void push_kernel_list(lua_State *L, const emit_kernel *ks, int n) {
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    char name[64];
    emit_kernel_name(&ks[i], name, sizeof name);
    lua_createtable(L, 0, 5);
    set_str(L, "kind", emit_kernel_kind_name(ks[i].kind));
    set_str(L, "name", name);
    set_int(L, "m", ks[i].m);
    set_int(L, "n", ks[i].n);
    set_int(L, "d", ks[i].d);
    append(L);
  }
}

/* Every assembly kernel a program can call: for the row letters of each
 * equality joint type (a shard weld's are the weld's), node blocks of 0-2
 * terms and edge blocks of 0-2 terms between any two, in the order of the
 * letters. As P.asm_kernels: {name, node, nterm, qrows, prows}. */
static void push_asm_kernels(lua_State *L) {
  const char *rows[RT_JOINT_NTYPES];
  int n = 0;
  for (int t = 0; t < RT_JOINT_NTYPES; t++) {
    const char *r = rt_joint_type_def_of((rt_joint_type)t)->rows;
    int seen = r == NULL;
    for (int i = 0; i < n && !seen; i++) seen = strcmp(rows[i], r) == 0;
    if (seen) continue;
    int at = n++;
    for (; at > 0 && strcmp(rows[at - 1], r) > 0; at--) rows[at] = rows[at - 1];
    rows[at] = r;
  }
  lua_newtable(L);
  for (int node = 1; node >= 0; node--)
    for (int q = 0; q < n; q++)
      for (int p = 0; p < n; p++) {
        if (node && p != q) continue;
        for (int nterm = 0; nterm <= 2; nterm++) {
          char name[64];
          asm_kernel_name(node, nterm, rows[q], rows[p], name, sizeof name);
          lua_createtable(L, 0, 5);
          set_str(L, "name", name);
          set_bool(L, "node", node);
          set_int(L, "nterm", nterm);
          set_str(L, "qrows", rows[q]);
          set_str(L, "prows", rows[p]);
          append(L);
        }
      }
  lua_setfield(L, -2, "asm_kernels");
}

static void build_kernels_view(lua_State *L, void *ud) {
  const kernels_view *v = ud;
  char buf[256];
  lua_createtable(L, 0, 4);
  snprintf(buf, sizeof buf, "ldlgen %s", v->o->version);
  set_str(L, "generator", buf);
  set_int(L, "vector_align", TARGET_VECTOR_ALIGN);
  push_asm_kernels(L);
  lua_createtable(L, 2, 0);
  static const rt_precision prec[2] = {RT_FLOAT, RT_DOUBLE};
  static emit_kernel ks[EMIT_ALL_KERNELS_MAX];
  for (int i = 0; i < 2; i++) {
    int n = emit_all_kernels(prec[i], ks, EMIT_ALL_KERNELS_MAX);
    if (n > EMIT_ALL_KERNELS_MAX) abort(); /* EMIT_ALL_KERNELS_MAX too small */
    lua_createtable(L, 0, 4);
    set_str(L, "scalar", prec[i] == RT_DOUBLE ? "double" : "float");
    set_int(L, "double", prec[i] == RT_DOUBLE);
    push_kernel_list(L, ks, n);
    lua_setfield(L, -2, "kernels");
    push_targets(L, prec[i]);
    lua_setfield(L, -2, "targets");
    append(L);
  }
  lua_setfield(L, -2, "precisions");
}

gen_status emit_kernels_header(const emit_options *o, char **text, size_t *len, diag_list *d) {
  static const char *const names[] = {"kernels.h.tpl"};
  kernels_view v = {o};
  tpl_text t;
  *text = NULL;
  *len = 0;
  gen_status st = tpl_render(o->templates_dir, build_kernels_view, &v, 1, names, &t, d);
  if (st == GEN_OK) {
    *text = t.text;
    *len = t.len;
  }
  return st;
}

void emit_output_free(emit_output *out) {
  free(out->c);
  free(out->h);
  free(out->mc);
  free(out->mh);
  memset(out, 0, sizeof *out);
}
