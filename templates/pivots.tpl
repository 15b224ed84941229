--% -- pivots.tpl -- the table of pivots of unrolled code: per pivot, in
--% -- elimination order, the constants every offset of its code is written
--% -- relative to (gen/emit.c, wref), one line each, so that inserting or
--% -- removing a pivot changes this table and the pivots whose blocks change.
--% if #P.pivots > 0 then

/*---- pivots: P_ its index (what factor returns when its node block is not
 * positive definite), W_ its node block in the workspace (its edge column
 * follows), R_ its reciprocals 1/D in the temporary, X_ its first row of x */
enum {
--% for _, p in ipairs(P.pivots) do
    P_$(p.id) = $(p.index), W_$(p.id) = $(p.node), R_$(p.id) = $(p.rinv), X_$(p.id) = $(p.row),
--% end
};
--% end
