--% -- sweep.tpl -- the program's sweep of its equality rows (rt_sweep_fn of
--% -- rt.h), as planned in gen/emit_sweep.c (P.sweep): groups of one
--% -- constraint, or two that share no body with their rows interleaved,
--% -- each constraint's rows, sides and velocity offsets as constants, its
--% -- sides' velocities in registers from its first row to its last.
--% -- Every line of the code names what it is about (a constraint by its
--% -- pivot's X_ base, a body by its B_ index, pivots.tpl), so that an edit of the
--% -- mechanism changes the lines of the constraints and bodies it touches
--% -- (tests/test_locality.c).
--% local function body(s)
--%   return s < 0 and "SWEEP_WORLD" or "B_" .. P.sbody_id[s + 1]
--% end
--% local function cons_args(c)
--%   return fmt("X_%s, %d, %s, %s", c.id, c.degree, body(c.a), body(c.b))
--% end
/*---- the sweep of the equality rows (rt_sweep_fn of rt.h) -------------------
 * One projected Gauss-Seidel sweep over rows [0, $(P.sizes.dim)): per row, J v from 0.0
 * (side a's six products, then side b's, added one by one), the impulse
 * l = lambda + (rhs - J v) inv_diag (the rows are unbounded), and
 * v += W J^T (l - lambda) -- the operations of the runtime's generic sweep,
 * so its bits, which the runtime relies on and checks the rows for every
 * step. The constraints come in an order that gives the same bits as
 * program order (each after every earlier one it shares a body with), two
 * at a time where they share no body: their rows interleaved, so that the
 * two chains of dependent operations overlap. The kernels are the
 * installed rt_sweep.h's. */
#include "rt_sweep.h"
--% -- each part: a run of constraints cut by their names, and its groups
--% -- (gen/emit_sweep.c), so that an edit regroups its own part only
--% for _, part in ipairs(P.sweep.parts) do

static void sweep_part_$(part.name)(sweep_rows r, double *restrict v) {
--%   for _, g in ipairs(part.groups) do
--%     local c1, c2 = g.cons[1], g.cons[2]
--%     if not c2 then
  sweep_one(r, v, $(cons_args(c1)));
--%     else
  sweep_two(r, v, $(cons_args(c1)), $(cons_args(c2)));
--%     end
--%   end
}
--% end

/* the sides the sweep assumes (rt_program.sweep_side), one line per
 * constraint: side a, side b (-1: the world, or a body fixed in the
 * mechanism) */
static const int sweep_side_of[] = {
--% for c = 1, #P.sweep.sides // 2 do
    $(body(P.sweep.sides[2 * c - 1])), $(body(P.sweep.sides[2 * c])), /* $(P.cons_id[c]) */
--% end
};

/* One sweep over the equality rows (rt_sweep_fn). */
static void $(P.ident)_sweep(const rt_sweep_rows *rows, double *vel) {
  const sweep_rows r = {rows->J, rows->WJ, rows->rhs, rows->inv_diag, rows->lambda};
--% if #P.sweep.parts == 0 then
  (void)r;
  (void)vel;
--% end
--% for _, part in ipairs(P.sweep.parts) do
  sweep_part_$(part.name)(r, vel);
--% end
}
