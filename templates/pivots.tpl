--% -- pivots.tpl -- the tables of an unrolled program (P.arrays), laid out
--% -- so that an edit of the mechanism changes few lines: the per-pivot
--% -- arrays and the bases every offset of the code is written relative to
--% -- (gen/emit.c, wref) in one line per pivot (LDLPGS_PIVOTS), the
--% -- constraints' arrays in one line per constraint (LDLPGS_CONSTRAINTS), and
--% -- each pivot's blocks and RSI on lines of their own, their offsets
--% -- relative to the bases. Arrays are unsized (their initializers count
--% -- them: a count that changes is not one more changed line). Only for a
--% -- program with pivots.
--% local A = {}
--% for _, a in ipairs(P.arrays) do A[a.field] = a end
--% -- every line of a list ends in a backslash, so that appending a line
--% -- changes no other
--% local function xlines(list)
--%   for _, l in ipairs(list) do
    $(l) \
--%   end
    /* (the list ends here) */
--% end
--% -- a pivot-grouped array: one line per pivot that has entries
--% local function grouped(a, field)

/* $(a.comment) */
static const $(a.ctype) $(a.field)[] = {
--%   for _, p in ipairs(P.pivots) do
--%     local t = field(p)
--%     if t ~= "" then
    /* $(p.id) */ $(t),
--%     end
--%   end
};
--% end
--%

/* The solver bodies, one line each: its identifier (B_ its index: its
 * velocities at vel + 6 B_) and its mechanism body's (LDLPGS_BODY_ its
 * index, named after the body's first solver body), so that inserting a
 * body adds a line. */
#define LDLPGS_SBODIES(X) \
--% local sl = {}
--% for i, id in ipairs(P.sbody_id) do
--%   sl[i] = fmt("X(%s, %s)", id, P.sbody_id[A.shard_adr.values[A.sbody_body.values[i] + 1] + 1])
--% end
--% xlines(sl)
/* The mechanism bodies, one line each: the first of its solver bodies and
 * how many it has (1 = whole; more: shattered, docs/DESIGN.md). */
#define LDLPGS_BODIES(X) \
--% local bl = {}
--% for i, first in ipairs(A.shard_adr.values) do
--%   bl[i] = fmt("X(%s, %d)", P.sbody_id[first + 1], A.shard_num.values[i])
--% end
--% xlines(bl)
#define LDLPGS_B_INDEX(id, body) B_##id,
enum { LDLPGS_SBODIES(LDLPGS_B_INDEX) LDLPGS_NSBODY };
#define LDLPGS_M_INDEX(first, n) LDLPGS_BODY_##first,
enum { LDLPGS_BODIES(LDLPGS_M_INDEX) LDLPGS_NBODY };
#define LDLPGS_B_sbody_body(id, body) LDLPGS_BODY_##body,
static const int sbody_body[] = {LDLPGS_SBODIES(LDLPGS_B_sbody_body)};
#define LDLPGS_M_shard_adr(first, n) B_##first,
static const int shard_adr[] = {LDLPGS_BODIES(LDLPGS_M_shard_adr)};
#define LDLPGS_M_shard_num(first, n) n,
static const int shard_num[] = {LDLPGS_BODIES(LDLPGS_M_shard_num)};
--% local function sbody(i) return i < 0 and "RT_WORLD" or "B_" .. P.sbody_id[i + 1] end

/* The solver constraints in solver order, one line each: name, identifier
 * (its pivot's), the constraint before it ($(P.start_id) before the first),
 * mechanism joint (equality joints counted alone, so its own index C_;
 * -1 = shard weld), solver bodies a and b, and degree. Its index (C_) and
 * first row in vectors (X_) count on from the constraint before it, so that
 * inserting or removing a constraint changes its own line and the next
 * one's. */
#define LDLPGS_CONSTRAINTS(X) \
--% local cl = {}
--% for c = 1, #A.cons_name.values do
--%   local joint = A.cons_joint.values[c]
--%   cl[c] = fmt("X(%s, %s, %s, %s, %s, %s, %d)", cstr(A.cons_name.values[c]), P.cons_id[c], c > 1 and P.cons_id[c - 1] or P.start_id, joint >= 0 and "C_" .. P.cons_id[c] or "-1", sbody(A.cons_a.values[c]), sbody(A.cons_b.values[c]), A.cons_degree.values[c])
--% end
--% xlines(cl)
#define LDLPGS_C_SIZE(name, id, prev, joint, a, b, degree) LDLPGS_D_##id = degree,
enum { LDLPGS_D_$(P.start_id) = 0, LDLPGS_CONSTRAINTS(LDLPGS_C_SIZE) };
#define LDLPGS_C_BASES(name, id, prev, joint, a, b, degree) \
    C_##id = C_##prev + 1, X_##id = X_##prev + LDLPGS_D_##prev,
enum { C_$(P.start_id) = -1, X_$(P.start_id) = 0, LDLPGS_CONSTRAINTS(LDLPGS_C_BASES) };
/* the counts summed over the lists (the program object's sizes), so that
 * no count is one more changed line */
#define LDLPGS_C_COUNT(name, id, prev, joint, a, b, degree) +1
#define LDLPGS_C_ROWS(name, id, prev, joint, a, b, degree) +LDLPGS_D_##id
enum { LDLPGS_NCONS = 0 LDLPGS_CONSTRAINTS(LDLPGS_C_COUNT), LDLPGS_DIM = 0 LDLPGS_CONSTRAINTS(LDLPGS_C_ROWS) };
--% local ccol = { cons_name = "name", cons_joint = "joint", cons_a = "a", cons_b = "b", cons_degree = "LDLPGS_D_##id", cons_row = "X_##id" }
--% for _, f in ipairs({"cons_joint", "cons_a", "cons_b", "cons_degree", "cons_row", "cons_name"}) do
#define LDLPGS_C_$(f)(name, id, prev, joint, a, b, degree) $(ccol[f]),
static const $(A[f].ctype) $(f)[] = {LDLPGS_CONSTRAINTS(LDLPGS_C_$(f))};
--% end

/* The pivots in elimination order, one line each: the pivot's identifier
 * (its constraint's), the pivot before it ($(P.start_id) before the first),
 * its edge column's height, its edge blocks and its RSI entries. Its bases
 * count on from the pivot before it: its index (P_), its node block in the
 * workspace (W_; its edge column follows), its first edge block, its first
 * RSI entry; and its reciprocals' slot in the temporary (R_, by the index's
 * parity). Every offset of the code below is one of these bases plus a
 * literal, so inserting or removing a pivot changes the lines of the pivots
 * whose blocks change and the next one's line here. */
#define LDLPGS_PIVOTS(X) \
--% local pl = {}
--% for i, p in ipairs(P.pivots) do
--%   pl[i] = fmt("X(%s, %s, %d, %d, %d)", p.id, i > 1 and P.pivots[i - 1].id or P.start_id, p.height, p.nblocks, p.nrsi)
--% end
--% xlines(pl)
#define LDLPGS_P_SIZES(id, prev, h, nblk, nrsi) LDLPGS_H_##id = h, LDLPGS_NB_##id = nblk, LDLPGS_NR_##id = nrsi,
enum { LDLPGS_H_$(P.start_id) = 0, LDLPGS_NB_$(P.start_id) = 0, LDLPGS_NR_$(P.start_id) = 0, LDLPGS_PIVOTS(LDLPGS_P_SIZES) };
#define LDLPGS_P_BASES(id, prev, h, nblk, nrsi) \
    P_##id = P_##prev + 1, \
    W_##id = W_##prev + LDLPGS_D_##prev * (LDLPGS_D_##prev + LDLPGS_H_##prev), \
    LDLPGS_K_##id = LDLPGS_K_##prev + LDLPGS_NB_##prev, \
    LDLPGS_S_##id = LDLPGS_S_##prev + LDLPGS_NR_##prev, \
    R_##id = (P_##id & 1) * $(P.rinv_stride),
enum { P_$(P.start_id) = -1, W_$(P.start_id) = 0, LDLPGS_K_$(P.start_id) = 0, LDLPGS_S_$(P.start_id) = 0, LDLPGS_PIVOTS(LDLPGS_P_BASES) };
--% local pcol = { piv_cons = "C_##id", piv_node = "W_##id", piv_edge = "W_##id + LDLPGS_D_##id * LDLPGS_D_##id", piv_height = "LDLPGS_H_##id", piv_blk_adr = "LDLPGS_K_##id", piv_rsi_adr = "LDLPGS_S_##id" }
#define LDLPGS_P_BLOCKS(id, prev, h, nblk, nrsi) +nblk
#define LDLPGS_P_RSI(id, prev, h, nblk, nrsi) +nrsi
#define LDLPGS_P_WORK(id, prev, h, nblk, nrsi) +LDLPGS_D_##id * (LDLPGS_D_##id + h)
enum {
    LDLPGS_NBLK = 0 LDLPGS_PIVOTS(LDLPGS_P_BLOCKS),
    LDLPGS_NRSI = 0 LDLPGS_PIVOTS(LDLPGS_P_RSI),
    LDLPGS_WORK_SIZE = 0 LDLPGS_PIVOTS(LDLPGS_P_WORK)
};
--% local tail = { piv_blk_adr = " LDLPGS_NBLK", piv_rsi_adr = " LDLPGS_NRSI" }
--% for _, f in ipairs({"piv_cons", "piv_node", "piv_edge", "piv_height", "piv_blk_adr", "piv_rsi_adr"}) do
#define LDLPGS_P_$(f)(id, prev, h, nblk, nrsi) $(pcol[f]),
static const $(A[f].ctype) $(f)[] = {LDLPGS_PIVOTS(LDLPGS_P_$(f))$(tail[f] or "")};
--% end
--%
--% local function blocks(p, what)
--%   local t = {}
--%   for _, b in ipairs(p.blocks) do t[#t + 1] = what(b) end
--%   return table.concat(t, ", ")
--% end
--% if P.sizes.nblk > 0 then
--%   grouped(A.blk_piv, function(p) return blocks(p, function(b) return "P_" .. P.pivots[b.pivot + 1].id end) end)
--%   grouped(A.blk_off, function(p) return blocks(p, function(b) return b.off end) end)
--%   grouped(A.blk_fill, function(p) return blocks(p, function(b) return b.fill and "1" or "0" end) end)
--% else
--%   plain_array(A.blk_piv)
--%   plain_array(A.blk_off)
--%   plain_array(A.blk_fill)
--% end
--% if P.sizes.nrsi > 0 then
--%   grouped(A.rsi, function(p) return p.rsi end)
--% else
--%   plain_array(A.rsi)
--% end
