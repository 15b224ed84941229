--% -- batch_kernels.tpl -- the kernels of a batch program (ldlgen --batch N):
--% -- those of P.kernels (the plan's, exactly those it calls), each the
--% -- reference arithmetic of rt.h written out for its sizes like
--% -- rt_kernels.h's, with every scalar in memory an rt_lane_entry (rt_lanes.h:
--% -- entry k of the N copies, one lane per copy, of which the kernel takes
--% -- one group's lanes, .v) and every scalar operation one lane
--% -- operation, one per line, in the reference's order: a sum starts from its
--% -- first product and adds the next ones one at a time (rt_lane_addmul),
--% -- y - a*b - c*d subtracts one product at a time (rt_lane_submul), and
--% -- x -= sum subtracts the finished sum. Unlike rt_kernels.h's, no kernel
--% -- vectorizes across rows or columns: the lanes are the copies, so a panel
--% -- has no idle rows and a reduction no column pieces.
--%
--% -- Y^T's row stride (program.c.tpl defines it)
--% local LD = "RT_BATCH_ET_LD"
--% local function etx(q, o)
--%   if q == 0 then return tostring(o) end
--%   if o == 0 then return fmt("%d * %s", q, LD) end
--%   return fmt("%d * %s + %d", q, LD, o)
--% end
--%
--% -- "dst = first product; dst += ..." for the pairs {a, b} of a list of
--% -- C lvalues; each line one lane operation
--% local function sum_into(dst, pairs_)
  $(dst) = rt_lane_mul($(pairs_[1][1]), $(pairs_[1][2]));
--%   for i = 2, #pairs_ do
  $(dst) = rt_lane_addmul($(dst), $(pairs_[i][1]), $(pairs_[i][2]));
--%   end
--% end
--% -- "x = x - a*b" for each pair, in order
--% local function subtract_products(x, pairs_)
--%   for _, ab in ipairs(pairs_) do
  $(x) = rt_lane_submul($(x), $(ab[1]), $(ab[2]));
--%   end
--% end
--%
--% -- a small factor's kernels static inline (gen/emit.h, EMIT_INLINE_CALLS)
--% local KSTATIC = P.inline_kernels and "static inline" or "static"
--%
--% local emit = {}
--%
--% function emit.factor_node(k)
--%   local d = k.d
/* Dense LDL^T of a $(d) x $(d) node block of every copy in place (rt.h factor
 * step 1, right-looking): unit lower l below the diagonal, D on it, and the
 * reciprocals 1/D in rinv. A copy whose block is not positive definite is
 * recorded in fail (its first failing pivot; the other copies go on). */
$(KSTATIC) void lane_$(k.name)(rt_lane_entry *restrict n, rt_lane_entry *restrict rinv, int *restrict fail, int pivot) {
--%   for j = 0, d - 1 do
--%     local jj = j * d + j
--%     if j == 0 then
  rt_lane_mask bad = rt_lane_not_positive(n[0].v);
--%     else
  /* column $(j) */
  bad = rt_lane_mask_or(bad, rt_lane_not_positive(n[$(jj)].v));
--%     end
  const rt_lane r$(j) = rt_lane_recip(n[$(jj)].v);
  rinv[$(j)].v = r$(j);
--%     for i = j + 1, d - 1 do
  const rt_lane u$(i)_$(j) = n[$(i * d + j)].v;
--%     end
--%     for i = j + 1, d - 1 do
  n[$(i * d + j)].v = rt_lane_mul(u$(i)_$(j), r$(j));
--%     end
--%     for i = j + 1, d - 1 do
  n[$(i * d + i)].v = rt_lane_submul(n[$(i * d + i)].v, rt_lane_mul(u$(i)_$(j), u$(i)_$(j)), r$(j));
--%       for q = j + 1, i - 1 do
  n[$(i * d + q)].v = rt_lane_submul(n[$(i * d + q)].v, n[$(i * d + j)].v, u$(q)_$(j));
--%       end
--%     end
--%   end
  rt_lane_record(fail, pivot, bad);
}
--% end
--%
--% function emit.node_forward(k)
--%   local d = k.d
/* x = l^-1 x for the unit lower l of a factored $(d) x $(d) node block (rt.h
 * solve, forward). */
$(KSTATIC) void lane_$(k.name)(const rt_lane_entry *restrict n, rt_lane_entry *restrict x) {
--%   for i = 1, d - 1 do
--%     local t = {}
--%     for q = 0, i - 1 do t[#t + 1] = { fmt("n[%d].v", i * d + q), fmt("x[%d].v", q) } end
--%     subtract_products(fmt("x[%d].v", i), t)
--%   end
}
--% end
--%
--% function emit.node_diag(k)
--%   local d = k.d
/* x = D^-1 x for the diagonal D of a factored $(d) x $(d) node block (rt.h
 * solve, forward). */
$(KSTATIC) void lane_$(k.name)(const rt_lane_entry *restrict n, rt_lane_entry *restrict x) {
--%   for i = 0, d - 1 do
  x[$(i)].v = rt_lane_div(x[$(i)].v, n[$(i * d + i)].v);
--%   end
}
--% end
--%
--% function emit.node_backward(k)
--%   local d = k.d
/* x = l^-T x for the unit lower l of a factored $(d) x $(d) node block (rt.h
 * solve, backward). */
$(KSTATIC) void lane_$(k.name)(const rt_lane_entry *restrict n, rt_lane_entry *restrict x) {
--%   for i = d - 2, 0, -1 do
--%     local t = {}
--%     for q = d - 1, i + 1, -1 do t[#t + 1] = { fmt("n[%d].v", q * d + i), fmt("x[%d].v", q) } end
--%     subtract_products(fmt("x[%d].v", i), t)
--%   end
}
--% end
--%
--% function emit.panel(k)
--%   local d, rows = k.d, k.n
/* $(rows) row$(rows == 1 and "" or "s") of an edge column (rt.h factor step 2), one after the
 * other: the forward substitutions Y with N's l, transposed, into et (row k
 * of et: column k of Y, stride $(LD)), and Y D^-1 over the rows, with the
 * reciprocals rinv of N's pivots. */
$(KSTATIC) void lane_$(k.name)(const rt_lane_entry *restrict n, const rt_lane_entry *restrict rinv, rt_lane_entry *restrict e, rt_lane_entry *restrict et) {
--%   if d == 1 then
  (void)n; /* a 1 x 1 block: only its reciprocal */
--%   end
  rt_lane y[$(d)];
--%   for r = 0, rows - 1 do
  /* row $(r) */
--%     for i = 0, d - 1 do
  y[$(i)] = e[$(r * d + i)].v;
--%       local t = {}
--%       for q = 0, i - 1 do t[#t + 1] = { fmt("n[%d].v", i * d + q), fmt("y[%d]", q) } end
--%       subtract_products(fmt("y[%d]", i), t)
  et[$(etx(i, r))].v = y[$(i)];
  e[$(r * d + i)].v = rt_lane_mul(y[$(i)], rinv[$(i)].v);
--%     end
--%   end
}
--% end
--%
--% -- C[r][j] -= sum(L[r][q] * Y^T[q][j], q = 0..d-1) for j < ncol in target
--% -- rows of width `width`
--% local function reduce_row(d, r, ncol, width)
--%   for j = 0, ncol - 1 do
--%     local t = {}
--%     for q = 0, d - 1 do t[#t + 1] = { fmt("l[%d].v", r * d + q), fmt("et[%s].v", etx(q, j)) } end
--%     sum_into("s", t)
  c[$(r * width + j)].v = rt_lane_sub(c[$(r * width + j)].v, s);
--%   end
--% end
--%
--% function emit.reduce_tri(k)
--%   local m, d = k.m, k.d
/* Lower triangle of a $(m) x $(m) node block C -= L Y^T, L and Y $(m) x $(d) (rt.h
 * factor step 3, a diagonal block pair), one entry after the other. */
$(KSTATIC) void lane_$(k.name)(rt_lane_entry *restrict c, const rt_lane_entry *restrict l, const rt_lane_entry *restrict et) {
  rt_lane s;
--%   for r = 0, m - 1 do
--%     reduce_row(d, r, r + 1, m)
--%   end
}
--% end
--%
--% function emit.reduce(k)
--%   local m, n, d = k.m, k.n, k.d
/* C -= L Y^T for a $(m) x $(n) block C, L $(m) x $(d), Y $(n) x $(d) (rt.h factor
 * step 3, one block pair), one entry after the other. */
$(KSTATIC) void lane_$(k.name)(rt_lane_entry *restrict c, const rt_lane_entry *restrict l, const rt_lane_entry *restrict et) {
  rt_lane s;
--%   for r = 0, m - 1 do
--%     reduce_row(d, r, n, n)
--%   end
}
--% end
--%
--% function emit.forward(k)
--%   local m, d = k.m, k.d
/* xq -= L xp for a $(m) x $(d) block L (rt.h solve, forward). */
$(KSTATIC) void lane_$(k.name)(const rt_lane_entry *restrict l, const rt_lane_entry *restrict xp, rt_lane_entry *restrict xq) {
  rt_lane s;
--%   for r = 0, m - 1 do
--%     local t = {}
--%     for q = 0, d - 1 do t[#t + 1] = { fmt("l[%d].v", r * d + q), fmt("xp[%d].v", q) } end
--%     sum_into("s", t)
  xq[$(r)].v = rt_lane_sub(xq[$(r)].v, s);
--%   end
}
--% end
--%
--% -- s[c] (=|+=) sum(L[r][c] * xq[r], r = m-1..0)
--% local function backward(k, first)
--%   local m, d = k.m, k.d
--%   for c = 0, d - 1 do
--%     local t = {}
--%     for r = m - 1, 0, -1 do t[#t + 1] = { fmt("l[%d].v", r * d + c), fmt("xq[%d].v", r) } end
--%     if first then
--%       sum_into(fmt("s[%d].v", c), t)
--%     else
--%       for _, ab in ipairs(t) do
  s[$(c)].v = rt_lane_addmul(s[$(c)].v, $(ab[1]), $(ab[2]));
--%       end
--%     end
--%   end
--% end
--%
--% function emit.backward_set(k)
/* s = L^T xq for a $(k.m) x $(k.d) block L, rows from the last: the first
 * block of a pivot's backward sum, which runs over the blocks from the
 * last (rt.h solve, backward). */
$(KSTATIC) void lane_$(k.name)(const rt_lane_entry *restrict l, const rt_lane_entry *restrict xq, rt_lane_entry *restrict s) {
--%   backward(k, true)
}
--% end
--%
--% function emit.backward_add(k)
/* s = s + L^T xq for a $(k.m) x $(k.d) block L, the sum continued in order. */
$(KSTATIC) void lane_$(k.name)(const rt_lane_entry *restrict l, const rt_lane_entry *restrict xq, rt_lane_entry *restrict s) {
--%   backward(k, false)
}
--% end
--%
--% function emit.subtract(k)
/* x -= s, $(k.d) rows: the end of a pivot's backward step. */
$(KSTATIC) void lane_$(k.name)(rt_lane_entry *restrict x, const rt_lane_entry *restrict s) {
--%   for c = 0, k.d - 1 do
  x[$(c)].v = rt_lane_sub(x[$(c)].v, s[$(c)].v);
--%   end
}
--% end

/*---- kernels: every lane a copy ----------------------------------------------*/
--% for _, k in ipairs(P.kernels) do

--%   emit[k.kind](k)
--% end
