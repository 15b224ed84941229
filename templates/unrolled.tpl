--% -- unrolled.tpl -- the factor and solve functions of P.factor and
--% -- P.solve, statement by statement as planned in gen/emit.c, and the two
--% -- entry points. Offsets are written relative to the pivots' bases
--% -- (op.A, op.B, op.C, op.RINV: gen/emit.c, wref), which pivots.tpl
--% -- declares once, so that an edit touches only the pivots it changes.
--% -- A batch program (P.batch lanes) has the scalar program's functions and
--% -- entry points, so that each copy can also be stepped alone, and after
--% -- them the same text again on rt_lane_entry pointers (rt_lanes.h: offsets
--% -- count entries, each one lane per copy), every function and kernel name
--% -- prefixed lane_: its node factors record each copy's first failure in
--% -- fail instead of returning, and its entry points are batch.tpl's.
--%
--% local batch, T, K -- lanes or not; the scalar type; the name prefix
--% local function pivot_title(i)
--%   local p = P.pivots[i + 1]
--%   return fmt("%s (%s, d = %d, h = %d)", ctext(p.name), p.type, p.degree, p.height)
--% end
--% local function column(i)
--%   local p, t = P.pivots[i + 1], {}
--%   for _, b in ipairs(p.blocks) do
--%     t[#t + 1] = fmt("%s (d %d%s)", ctext(b.name), b.degree, b.fill and ", fill" or "")
--%   end
--%   -- one line, however long: wrapped, a renamed or added neighbour moved
--%   -- the breaks, and the lines after them lost the name that changed
--%   return table.concat(t, ", ")
--% end
--%
--% -- one statement of a function
--% local stmt = {}
--% function stmt.factor_node(op)
--%   if batch then
  $(K)$(op.kernel)(w + $(op.A), t + $(op.B), fail, $(op.FAIL));$(origin(op.n == 1 and op.comment .. ", the next pivot's: final now" or op.comment))
--%   elseif op.n == 1 then
  const int failed = $(K)$(op.kernel)(w + $(op.A), t + $(op.B));$(origin(op.comment .. ", the next pivot's: final now"))
--%   else
  if ($(K)$(op.kernel)(w + $(op.A), t + $(op.B))) return $(op.FAIL);$(origin(op.comment))
--%   end
--% end
--% function stmt.panel(op)
  $(K)$(op.kernel)(w + $(op.A), t + $(op.RINV), w + $(op.B), t + $(op.C));$(origin(op.comment))
--% end
--% function stmt.reduce(op)
  $(K)$(op.kernel)(w + $(op.A), w + $(op.B), t + $(op.C));$(origin(op.comment))
--% end
--% function stmt.forward(op)
  $(K)$(op.kernel)(w + $(op.A), x + $(op.B), x + $(op.C));$(origin(op.comment))
--% end
--% function stmt.node(op)
  $(K)$(op.kernel)(w + $(op.A), x + $(op.B));$(origin(op.comment))
--% end
--% function stmt.backward(op)
  $(K)$(op.kernel)(w + $(op.A), x + $(op.C), s);$(origin(op.comment))
--% end
--% function stmt.subtract(op)
  $(K)$(op.kernel)(x + $(op.B), s);$(origin(op.comment))
--% end
--% local function functions()
--%   if batch then

/*---- the batch program: the functions above on $(P.batch) copies in vector lanes --*/
--%   end

/*---- factor: one function per pivot ------------------------------------------*/
--% for _, f in ipairs(P.factor) do

--%   for _, op in ipairs(f.ops) do
--%     if op.kind == "section" then
--%       local part = f.nparts > 1 and fmt(", part %d of %d", f.part, f.nparts) or ""
--%       if P.pivots[op.pivot + 1].nblocks > 0 and f.part == 1 then
/*---- $(pivot_title(op.pivot))$(part)
 * column: $(column(op.pivot)) */
--%       else
/*---- $(pivot_title(op.pivot))$(part) */
--%       end
--%       if f.status and batch then
static void $(K)$(f.name)(rt_lane_entry *restrict w, rt_lane_entry *restrict t, int *restrict fail) {
--%       elseif f.status then
static int $(K)$(f.name)(scalar *restrict w, scalar *restrict t) {
--%       else
static void $(K)$(f.name)($(T) *restrict w, $(T) *restrict t) {
--%       end
--%     else
--%       stmt[op.kind](op)
--%     end
--%   end
--%   if batch then
--%   elseif f.fail_pivot >= 0 then
  return failed ? $(f.FAIL) : -1;
--%   elseif f.status then
  return -1;
--%   end
}
--% end
--%
--% local titles = {
--%   forward = "forward substitution with L (node blocks' l, then the L blocks) and D^-1, pivots in order",
--%   backward = "backward substitution with L^T (the L blocks, then node blocks' l), pivots in reverse order",
--% }
--% local phase = nil
--% for _, f in ipairs(P.solve) do
--%   if f.phase ~= phase then
--%     phase = f.phase

/*---- solve: $(titles[f.phase]) */
--%   end

static void $(K)$(f.name)(const $(T) *restrict w, $(T) *restrict x) {
--%   local sums = false -- s holds the backward sums; a part with only node blocks has none
--%   for _, op in ipairs(f.ops) do sums = sums or op.kind == "backward" or op.kind == "subtract" end
--%   if sums then
  $(T) s[RT_MAX_DEGREE];
--%   end
--%   for _, op in ipairs(f.ops) do
--%     if op.kind == "section" then
  /* $(pivot_title(op.pivot)) */
--%     else
--%       stmt[op.kind](op)
--%     end
--%   end
}
--% end
--% end
--% batch, T, K = false, "scalar", ""
--% functions()

/*---- entry points (rt_factor_fn, rt_solve_fn of rt.h) ------------------------*/

/* Factors the assembled workspace in place; temp holds $(P.sizes.temp_size) scalars.
 * Returns -1, or the pivot whose node block is not positive definite. */
static int $(P.ident)_factor(void *work, void *temp) {
--% if #P.factor == 0 then
  (void)work;
  (void)temp;
--% else
  scalar *w = work;
  scalar *t = temp;
  int s;
--% end
--% for _, f in ipairs(P.factor) do
--%   if f.status then
  if ((s = $(f.name)(w, t)) >= 0) return s;
--%   else
  $(f.name)(w, t);
--%   end
--% end
  return -1;
}

--% for _, half in ipairs({"forward", "backward"}) do
--%   local fns = {}
--%   for _, f in ipairs(P.solve) do
--%     if f.phase == half then fns[#fns + 1] = f end
--%   end

--%   if half == "forward" then
/* The forward half of the solve after the factorization: x = D^-1 L^-1 x. */
--%   else
/* The backward half: x = L^-T x. */
--%   end
static void $(P.ident)_solve_$(half)(const void *work, void *x) {
--%   if #fns == 0 then
  (void)work;
  (void)x;
--%   else
  const scalar *w = work;
  scalar *v = x;
--%   end
--%   for _, f in ipairs(fns) do
  $(f.name)(w, v);
--%   end
}
--% end

/* Solves H x = b in place (x holds b on entry) after the factorization. */
static void $(P.ident)_solve(const void *work, void *x) {
  $(P.ident)_solve_forward(work, x);
  $(P.ident)_solve_backward(work, x);
}
--% if P.batch > 0 then
--%   batch, T, K = true, "rt_lane_entry", "lane_"
--%   functions()
--%   include("batch.tpl")
--% end
