/* emit_sweep.c -- the plan of a program's generated sweep over its
 * equality rows (rt_sweep_fn, rt.h), as the view templates/sweep.tpl
 * formats (P.sweep): which constraints run together, in which order, on
 * which sides.
 *
 * The sweep visits the constraints in an order the runtime's generic sweep
 * gives the same bits for. Two constraints that share no body touch
 * disjoint velocities and impulses, so their rows commute exactly: any
 * order in which each constraint comes after every earlier constraint
 * that shares a body with it (a topological order of "shares a body,
 * comes first") gives the bits of program order. The plan walks such an
 * order two constraints at a time: the first constraint not yet swept
 * (always ready: everything before it is done) and the first ready one
 * after it, within its part (below), that shares no body with it; their rows are
 * interleaved row by row (sweep.tpl), so that the two dependency chains
 * (J v, the impulse, the velocities' update, the next row's J v) overlap.
 * A constraint with no ready partner runs alone.
 *
 * The pairs are made within parts of the constraints, each a generated
 * function of its own, that chunk.h cuts by the constraints' names: an edit
 * of the mechanism regroups the constraints of its own part only (pairing
 * all the constraints in one walk moved every pair after the edit). */
#include "emit.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunk.h"

/* The parts: a part ends before a constraint whose name is an anchor (one
 * in 8), and it holds at most 32 (a generated function is bounded:
 * PERF-NOTES). A part of odd length leaves one constraint unpaired. */
static const chunk_rule sweep_part_rule = {0, 32, 3, CHUNK_SALT};

static void set_int(lua_State *L, const char *k, long long v) {
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, -2, k);
}

static void append(lua_State *L) { lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1); }

/* The side the sweep assumes for solver body sb: the world for the world
 * and for a body fixed in the mechanism (the runtime's rows have RT_WORLD
 * there, rows.c). */
static int side_of(int sb, const unsigned char *sbody_fixed) {
  return sb == RT_WORLD || sbody_fixed[sb] ? RT_WORLD : sb;
}

static int shares(const int *side, int c, int k) {
  const int a0 = side[2 * c], b0 = side[2 * c + 1], a1 = side[2 * k], b1 = side[2 * k + 1];
  return (a0 != RT_WORLD && (a0 == a1 || a0 == b1)) || (b0 != RT_WORLD && (b0 == a1 || b0 == b1));
}

static void push_cons(lua_State *L, const rt_program *r, const char *const *cons_id, const int *side, int c) {
  lua_createtable(L, 0, 7);
  set_int(L, "index", c);
  lua_pushstring(L, r->cons_name[c]);
  lua_setfield(L, -2, "name");
  lua_pushstring(L, cons_id[c]);
  lua_setfield(L, -2, "id");
  set_int(L, "row", r->cons_row[c]);
  set_int(L, "degree", r->cons_degree[c]);
  set_int(L, "a", side[2 * c]);
  set_int(L, "b", side[2 * c + 1]);
  append(L);
}

/* Whether constraint c is ready: for each of its bodies, it is the first
 * constraint not yet swept on that body. first[sb]: index into the body's
 * list (adr/list) of its first constraint not yet swept. */
static int ready(const int *side, const int *adr, const int *list, const int *first, int c) {
  for (int s = 0; s < 2; s++) {
    const int sb = side[2 * c + s];
    if (sb != RT_WORLD && list[adr[sb] + first[sb]] != c) return 0;
  }
  return 1;
}

static void mark_done(const int *side, int *first, int c) {
  for (int s = 0; s < 2; s++) {
    const int sb = side[2 * c + s];
    if (sb != RT_WORLD) first[sb]++;
  }
}

int emit_sweep_push(lua_State *L, const rt_program *r, const unsigned char *sbody_fixed, const char *const *cons_id,
                    const int *kept) {
  const int n = r->ncons, nb = r->nsbody;
  int *side = malloc(sizeof *side * (2 * (size_t)n + 1));
  int *adr = calloc((size_t)nb + 1, sizeof *adr);
  int *list = malloc(sizeof *list * (2 * (size_t)n + 1));
  int *first = calloc((size_t)nb + 1, sizeof *first);
  unsigned char *done = calloc((size_t)n + 1, 1);
  if (!side || !adr || !list || !first || !done) abort();
  int ok = 1;
  for (int c = 0; c < n; c++) {
    side[2 * c] = side_of(r->cons_a[c], sbody_fixed);
    side[2 * c + 1] = side_of(r->cons_b[c], sbody_fixed);
    /* a constraint on one body twice: the generic sweep runs it through
     * memory, not in registers; no generated sweep then */
    if (side[2 * c] != RT_WORLD && side[2 * c] == side[2 * c + 1]) ok = 0;
  }
  if (!ok) {
    lua_pushboolean(L, 0);
    free(side), free(adr), free(list), free(first), free(done);
    return 0;
  }
  /* each body's constraints in program order (CSR) */
  for (int k = 0; k < 2 * n; k++)
    if (side[k] != RT_WORLD) adr[side[k] + 1]++;
  for (int b = 0; b < nb; b++) adr[b + 1] += adr[b];
  int *fill = calloc((size_t)nb + 1, sizeof *fill);
  if (!fill) abort();
  for (int k = 0; k < 2 * n; k++)
    if (side[k] != RT_WORLD) list[adr[side[k]] + fill[side[k]]++] = k / 2;
  free(fill);

  lua_createtable(L, 0, 2);
  lua_createtable(L, 2 * n, 0);
  for (int k = 0; k < 2 * n; k++) {
    lua_pushinteger(L, side[k]);
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "sides");
  /* the parts, and in each its groups: the first constraint not yet swept
   * (ready: everything before it is done) and its partner, if any */
  lua_newtable(L);
  int last = kept && n > 0 && kept[0] >= 0 ? kept[0] : 0; /* the previous program's part of the last constraint */
  for (int start = 0; start < n;) {
    int end = start + 1;
    while (end < n && !chunk_cut_kept(&sweep_part_rule, end - start, 1, r->cons_name[end], kept ? kept[end] : -1, &last))
      end++;
    lua_createtable(L, 0, 2);
    lua_pushstring(L, start == 0 ? EMIT_START_ID : cons_id[start]); /* the first after none */
    lua_setfield(L, -2, "name");
    lua_newtable(L);
    for (int u = start; u < end; u++) {
      if (done[u]) continue;
      int w = -1;
      for (int k = u + 1; k < end && w < 0; k++)
        if (!done[k] && !shares(side, u, k) && ready(side, adr, list, first, k)) w = k;
      lua_createtable(L, 0, 1);
      lua_createtable(L, 2, 0);
      push_cons(L, r, cons_id, side, u);
      done[u] = 1;
      mark_done(side, first, u);
      if (w >= 0) {
        push_cons(L, r, cons_id, side, w);
        done[w] = 1;
        mark_done(side, first, w);
      }
      lua_setfield(L, -2, "cons");
      append(L);
    }
    lua_setfield(L, -2, "groups");
    append(L);
    start = end;
  }
  lua_setfield(L, -2, "parts");
  free(side), free(adr), free(list), free(first), free(done);
  return 1;
}
