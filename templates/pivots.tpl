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
--% local function xlines(list)
--%   for i, l in ipairs(list) do
    $(l)$(i < #list and " \\" or "")
--%   end
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
--% for _, f in ipairs({"sbody_body", "shard_adr", "shard_num"}) do
--%   plain_array(A[f], true)
--% end

/* The solver constraints in solver order, one line each: name, mechanism
 * constraint (-1 = shard weld), solver bodies a and b (RT_WORLD = -1),
 * degree, first row in vectors. */
#define LDLPGS_CONSTRAINTS(X) \
--% local cl = {}
--% for c = 1, #A.cons_name.values do
--%   cl[c] = fmt("X(%s, %d, %d, %d, %d, %d)", cstr(A.cons_name.values[c]), A.cons_joint.values[c], A.cons_a.values[c], A.cons_b.values[c], A.cons_degree.values[c], A.cons_row.values[c])
--% end
--% xlines(cl)
--% local ccol = { cons_name = "name", cons_joint = "joint", cons_a = "a", cons_b = "b", cons_degree = "degree", cons_row = "row" }
--% for _, f in ipairs({"cons_joint", "cons_a", "cons_b", "cons_degree", "cons_row", "cons_name"}) do
#define LDLPGS_C_$(ccol[f])(name, joint, a, b, degree, row) $(ccol[f]),
static const $(A[f].ctype) $(f)[] = {LDLPGS_CONSTRAINTS(LDLPGS_C_$(ccol[f]))};
--% end

/* The pivots in elimination order, one line each: the pivot's identifier
 * (its constraint's name), its index (P_), its solver constraint, its node
 * block in the workspace (W_), its edge column, the column's height, its
 * first edge block, its first RSI entry, its reciprocals' slot in the
 * temporary (R_) and its constraint's first row of x (X_). Every offset of
 * the code below is one of these bases plus a literal. */
#define LDLPGS_PIVOTS(X) \
--% local pl = {}
--% for i, p in ipairs(P.pivots) do
--%   pl[i] = fmt("X(%s, %d, %d, %d, %d, %d, %d, %d, %d, %d)", p.id, p.index, p.cons, p.node, p.edge, p.height, p.blk_adr, p.rsi_adr, p.rinv, p.row)
--% end
--% xlines(pl)
#define LDLPGS_P_BASES(id, p, cons, node, edge, h, blk, rsi, rinv, row) \
    P_##id = p, W_##id = node, R_##id = rinv, X_##id = row,
enum { LDLPGS_PIVOTS(LDLPGS_P_BASES) };
--% local pcol = { piv_cons = "cons", piv_node = "node", piv_edge = "edge", piv_height = "h", piv_blk_adr = "blk", piv_rsi_adr = "rsi" }
--% local tail = { piv_blk_adr = P.sizes.nblk, piv_rsi_adr = P.sizes.nrsi }
--% for _, f in ipairs({"piv_cons", "piv_node", "piv_edge", "piv_height", "piv_blk_adr", "piv_rsi_adr"}) do
#define LDLPGS_P_$(pcol[f])(id, p, cons, node, edge, h, blk, rsi, rinv, row) $(pcol[f]),
static const $(A[f].ctype) $(f)[] = {LDLPGS_PIVOTS(LDLPGS_P_$(pcol[f]))$(tail[f] and fmt(" %d", tail[f]) or "")};
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
