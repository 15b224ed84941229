--% -- kernels.tpl -- the degree-specialized kernels of ARG.kernels (for the
--% -- targets ARG.targets of one precision; kernels.h.tpl includes it once per
--% -- precision to write runtime/include/rt_kernels.h), each the
--% -- reference arithmetic of rt.h written out for its sizes. A sum
--% -- a0*b0 + a1*b1 + ... is one C expression, evaluated left to right like
--% -- the interpreter's s = a0*b0; s += a1*b1; ... (-ffp-contract=off: no
--% -- fused multiply-adds); `y - a*b - c*d` subtracts one product at a time. Vector
--% -- kernels (GCC/Clang vector extensions: v2, v4, ...) put independent
--% -- results in their lanes -- the rows of a panel, the columns of a target
--% -- row -- so each lane performs exactly the scalar operations of the
--% -- reference, in order, whatever the instruction set.
--%
--% -- "p[i] * q[j] + ..." for the index pairs (i, j) of a list
--% local function dot(p, q, pairs_)
--%   local t = {}
--%   for _, ij in ipairs(pairs_) do t[#t + 1] = fmt("%s[%d] * %s[%d]", p, ij[1], q, ij[2]) end
--%   return table.concat(t, " + ")
--% end
--% -- "x - t1 - t2 - ...": C subtracts the terms one at a time, in order
--% local function minus(x, terms)
--%   if #terms == 0 then return x end
--%   return x .. " - " .. table.concat(terms, " - ")
--% end
--%
--% -- the pieces [offset, offset + width) of a row of len elements: vectors
--% -- of wmax lanes, then of half as many, ..., then scalars
--% local function segments(len, wmax)
--%   local t, o, w = {}, 0, wmax
--%   while w >= 1 do
--%     while len - o >= w do
--%       t[#t + 1] = { o, w }
--%       o = o + w
--%     end
--%     w = w // 2
--%   end
--%   return t
--% end
--% -- the type, and a load or store location, of w lanes at p + o
--% local function vtype(w) return w == 1 and "scalar" or fmt("v%d", w) end
--% local function at(p, o, w, const)
--%   if w == 1 then return fmt("%s[%d]", p, o) end
--%   return fmt("*(%sv%d *)(%s + %d)", const and "const " or "", w, p, o)
--% end
--%
--% -- Y^T's row stride: the macro the including file defines (one header
--% -- serves every program; the compiler folds the constant)
--% local LD = "RT_KERNELS_ET_LD"
--% -- the index of element o of row q of Y^T: "q * LD + o"
--% local function etx(q, o)
--%   if q == 0 then return tostring(o) end
--%   if o == 0 then return fmt("%d * %s", q, LD) end
--%   return fmt("%d * %s + %d", q, LD, o)
--% end
--% local function et_at(q, o, w, const)
--%   if w == 1 then return fmt("et[%s]", etx(q, o)) end
--%   return fmt("*(%sv%d *)(et + %s)", const and "const " or "", w, etx(q, o))
--% end
--%
--% local emit = {}
--%
--% function emit.factor_node(k)
--%   local d = k.d
/* Dense LDL^T of a $(d) x $(d) node block in place (rt.h factor step 1,
 * right-looking): unit lower l below the diagonal, D on it, and the
 * reciprocals 1/D in rinv. Returns 1 if the block is not positive
 * definite. */
RT_KERNEL int $(k.name)(scalar *restrict n, scalar *restrict rinv) {
--%   for j = 0, d - 1 do
--%     local jj = j * d + j
--%     if j > 0 then
  /* column $(j) */
--%     end
  if (!(n[$(jj)] > 0)) return 1;
  const scalar r$(j) = 1 / n[$(jj)];
  rinv[$(j)] = r$(j);
--%     for i = j + 1, d - 1 do
  const scalar u$(i)_$(j) = n[$(i * d + j)];
--%     end
--%     for i = j + 1, d - 1 do
  n[$(i * d + j)] = u$(i)_$(j) * r$(j);
--%     end
--%     for i = j + 1, d - 1 do
  n[$(i * d + i)] = n[$(i * d + i)] - (u$(i)_$(j) * u$(i)_$(j)) * r$(j);
--%       for q = j + 1, i - 1 do
  n[$(i * d + q)] = n[$(i * d + q)] - n[$(i * d + j)] * u$(q)_$(j);
--%       end
--%     end
--%   end
  return 0;
}
--% end
--%
--% function emit.node_forward(k)
--%   local d = k.d
/* x = l^-1 x for the unit lower l of a factored $(d) x $(d) node block (rt.h
 * solve, forward). */
RT_KERNEL void $(k.name)(const scalar *restrict n, scalar *restrict x) {
--%   for i = 1, d - 1 do
--%     local t = {}
--%     for q = 0, i - 1 do t[#t + 1] = fmt("n[%d] * x[%d]", i * d + q, q) end
  x[$(i)] = $(minus(fmt("x[%d]", i), t));
--%   end
}
--% end
--%
--% function emit.node_diag(k)
--%   local d = k.d
/* x = D^-1 x for the diagonal D of a factored $(d) x $(d) node block (rt.h
 * solve, forward). */
RT_KERNEL void $(k.name)(const scalar *restrict n, scalar *restrict x) {
--%   for i = 0, d - 1 do
  x[$(i)] = x[$(i)] / n[$(i * d + i)];
--%   end
}
--% end
--%
--% function emit.node_backward(k)
--%   local d = k.d
/* x = l^-T x for the unit lower l of a factored $(d) x $(d) node block (rt.h
 * solve, backward). */
RT_KERNEL void $(k.name)(const scalar *restrict n, scalar *restrict x) {
--%   for i = d - 2, 0, -1 do
--%     local t = {}
--%     for q = d - 1, i + 1, -1 do t[#t + 1] = fmt("n[%d] * x[%d]", q * d + i, q) end
  x[$(i)] = $(minus(fmt("x[%d]", i), t));
--%   end
}
--% end
--%
--% -- W: the widest vector of the branch being written (lanes)
--% function emit.panel(k, W)
--%   local d, m, rows = k.d, k.m, k.n
--%   -- groups of g lanes each: one vector of m lanes, or m / W vectors of W;
--%   -- lanes from `rows` on are idle (zeros in, nothing out); so are
--%   -- whole groups, which are left out
--%   local g = math.min(m, W)
--%   local ng, ty = (rows + g - 1) // g, vtype(g)
--%   local function sfx(j) return ng > 1 and fmt("_%d", j) or "" end
--%   local function row(r) return r < rows end
--%   if m == 1 then
/* One row of an edge column (rt.h factor step 2): its forward substitution
 * Y with N's l into et (Y[k] at et[k * $(LD)]), and Y D^-1 over the row,
 * with the reciprocals rinv of N's pivots. */
--%   else
/* $(rows) rows of an edge column (rt.h factor step 2), one vector lane per row$(ng > 1 and fmt(" (%d vectors of %d)", ng, g) or "")$(rows < ng * g and fmt(", %d lane%s idle", ng * g - rows, ng * g - rows == 1 and "" or "s") or ""):
 * their forward substitutions Y with N's l, transposed, into et (row k of
 * et: column k of Y, stride $(LD)), and Y D^-1 over the rows, with the
 * reciprocals rinv of N's pivots. */
--%   end
RT_KERNEL void $(k.name)(const scalar *restrict n, const scalar *restrict rinv, scalar *restrict e, scalar *restrict et) {
--%   if d == 1 then
  (void)n; /* a 1 x 1 block: only its reciprocal */
--%   end
--%   for q = 0, d - 1 do
--%     for j = 0, ng - 1 do
--%       if g == 1 then
  const scalar e$(q)$(sfx(j)) = e[$(j * d + q)];
--%       else
--%         local t = {}
--%         for r = j * g, j * g + g - 1 do t[#t + 1] = row(r) and fmt("e[%d]", r * d + q) or "0" end
  const $(ty) e$(q)$(sfx(j)) = {$(table.concat(t, ", "))};
--%       end
--%     end
--%   end
--%   for i = 0, d - 1 do
--%     for j = 0, ng - 1 do
--%       local t = {}
--%       for q = 0, i - 1 do t[#t + 1] = fmt("n[%d] * y%d%s", i * d + q, q, sfx(j)) end
  const $(ty) y$(i)$(sfx(j)) = $(minus(fmt("e%d%s", i, sfx(j)), t));
--%     end
--%   end
--%   for q = 0, d - 1 do
--%     for j = 0, ng - 1 do
  $(et_at(q, j * g, g)) = y$(q)$(sfx(j));
--%     end
--%   end
--%   for i = 0, d - 1 do
--%     for j = 0, ng - 1 do
  const $(ty) z$(i)$(sfx(j)) = y$(i)$(sfx(j)) * rinv[$(i)];
--%     end
--%   end
--%   for j = 0, ng - 1 do
--%     for r = 0, g - 1 do
--%       for q = 0, d - 1 do
--%         if g == 1 then
  e[$((j * g + r) * d + q)] = z$(q)$(sfx(j));
--%         elseif row(j * g + r) then
  e[$((j * g + r) * d + q)] = z$(q)$(sfx(j))[$(r)];
--%         end
--%       end
--%     end
--%   end
}
--% end
--%
--% -- C[r][c..] -= sum(L[r][q] * Y^T[q][c..], q = 0..d-1) for the pieces of
--% -- row r: the columns [0, ncol) of a target row of width width
--% local function reduce_row(d, r, ncol, width, W)
--%   for _, sw in ipairs(segments(ncol, W)) do
--%     local o, w, t = sw[1], sw[2], {}
--%     for q = 0, d - 1 do t[#t + 1] = fmt("l[%d] * %s", r * d + q, et_at(q, o, w, true)) end
  $(at("c", r * width + o, w)) -= $(table.concat(t, " + "));
--%   end
--% end
--%
--% function emit.reduce_tri(k, W)
--%   local m, d = k.m, k.d
/* Lower triangle of a $(m) x $(m) node block C -= L Y^T, L and Y $(m) x $(d) (rt.h
 * factor step 3, a diagonal block pair), vectorized across each row. */
RT_KERNEL void $(k.name)(scalar *restrict c, const scalar *restrict l, const scalar *restrict et) {
--%   for r = 0, m - 1 do
--%     reduce_row(d, r, r + 1, m, W)
--%   end
}
--% end
--%
--% function emit.reduce(k, W)
--%   local m, n, d = k.m, k.n, k.d
/* C -= L Y^T for a $(m) x $(n) block C, L $(m) x $(d), Y $(n) x $(d) (rt.h factor
 * step 3, one block pair), vectorized across each row. */
RT_KERNEL void $(k.name)(scalar *restrict c, const scalar *restrict l, const scalar *restrict et) {
--%   for r = 0, m - 1 do
--%     reduce_row(d, r, n, n, W)
--%   end
}
--% end
--%
--% function emit.forward(k)
--%   local m, d = k.m, k.d
/* xq -= L xp for a $(m) x $(d) block L (rt.h solve, forward). */
RT_KERNEL void $(k.name)(const scalar *restrict l, const scalar *restrict xp, scalar *restrict xq) {
--%   for r = 0, m - 1 do
--%     local ij = {}
--%     for q = 0, d - 1 do ij[#ij + 1] = { r * d + q, q } end
  xq[$(r)] -= $(dot("l", "xp", ij));
--%   end
}
--% end
--%
--% local function backward(k, first)
--%   local m, d = k.m, k.d
--%   for c = 0, d - 1 do
--%     local ij = {}
--%     for r = m - 1, 0, -1 do ij[#ij + 1] = { r * d + c, r } end
--%     if first then
  s[$(c)] = $(dot("l", "xq", ij));
--%     else
  s[$(c)] = s[$(c)] + $(dot("l", "xq", ij));
--%     end
--%   end
--% end
--%
--% function emit.backward_set(k)
/* s = L^T xq for a $(k.m) x $(k.d) block L, rows from the last: the first
 * block of a pivot's backward sum, which runs over the blocks from the
 * last (rt.h solve, backward). */
RT_KERNEL void $(k.name)(const scalar *restrict l, const scalar *restrict xq, scalar *restrict s) {
--%   backward(k, true)
}
--% end
--%
--% function emit.backward_add(k)
/* s = s + L^T xq for a $(k.m) x $(k.d) block L, the sum continued in order. */
RT_KERNEL void $(k.name)(const scalar *restrict l, const scalar *restrict xq, scalar *restrict s) {
--%   backward(k, false)
}
--% end
--%
--% function emit.subtract(k)
/* x -= s, $(k.d) rows: the end of a pivot's backward step. */
RT_KERNEL void $(k.name)(scalar *restrict x, const scalar *restrict s) {
--%   for c = 0, k.d - 1 do
  x[$(c)] -= s[$(c)];
--%   end
}
--% end

--% -- The vector kinds once more for a plain-C row of the target table
--% -- (gen/target.h: no vector types): loops, one result at a time, with
--% -- the sizes as literals. Each result is computed with the same scalar
--% -- operations in the same order as a vector lane above: y - a*b - c*d
--% -- one product at a time, sums from the first term, x -= sum.
--% local plain = {}
--%
--% function plain.panel(k)
--%   local d, rows = k.d, k.n
/* $(rows) row$(rows == 1 and "" or "s") of an edge column (rt.h factor step 2), one at a time: the
 * forward substitutions Y with N's l, transposed, into et (row k of et:
 * column k of Y, stride $(LD)), and Y D^-1 over the rows, with the
 * reciprocals rinv of N's pivots. */
RT_KERNEL void $(k.name)(const scalar *restrict n, const scalar *restrict rinv, scalar *restrict e, scalar *restrict et) {
  for (int r = 0; r < $(rows); r++) {
    scalar y[$(d)];
    for (int i = 0; i < $(d); i++) {
      scalar s = e[r * $(d) + i];
      for (int q = 0; q < i; q++) s = s - n[i * $(d) + q] * y[q];
      y[i] = s;
      et[i * $(LD) + r] = s;
      e[r * $(d) + i] = s * rinv[i];
    }
  }
}
--% end
--%
--% -- C[r][j] -= sum(L[r][q] * Y^T[q][j], q = 0..d-1) for j < ncol (an
--% -- expression of r) in target rows of width `width`
--% local function plain_reduce(m, d, ncol, width)
  for (int r = 0; r < $(m); r++)
    for (int j = 0; j < $(ncol); j++) {
      scalar s = l[r * $(d)] * et[j];
      for (int q = 1; q < $(d); q++) s += l[r * $(d) + q] * et[q * $(LD) + j];
      c[r * $(width) + j] -= s;
    }
--% end
--%
--% function plain.reduce_tri(k)
/* Lower triangle of a $(k.m) x $(k.m) node block C -= L Y^T, L and Y $(k.m) x $(k.d) (rt.h
 * factor step 3, a diagonal block pair), one entry at a time. */
RT_KERNEL void $(k.name)(scalar *restrict c, const scalar *restrict l, const scalar *restrict et) {
--%   plain_reduce(k.m, k.d, "r + 1", k.m)
}
--% end
--%
--% function plain.reduce(k)
/* C -= L Y^T for a $(k.m) x $(k.n) block C, L $(k.m) x $(k.d), Y $(k.n) x $(k.d) (rt.h factor
 * step 3, one block pair), one entry at a time. */
RT_KERNEL void $(k.name)(scalar *restrict c, const scalar *restrict l, const scalar *restrict et) {
--%   plain_reduce(k.m, k.d, k.n, k.n)
}
--% end

--% local vector_kind = { panel = true, reduce_tri = true, reduce = true }

/*---- kernels -----------------------------------------------------------------*/
--% for _, k in ipairs(ARG.kernels) do
--%   if not vector_kind[k.kind] then

--%     emit[k.kind](k)
--%   end
--% end

--% -- One branch per row of the target table (gen/target.h, ARG.targets):
--% -- target_directive (program.c.tpl) writes #if for the first, #elif for
--% -- the next, #else for the last; a table of one row needs none. A
--% -- plain-C row (0 vector bytes) gets the loops of `plain`.
/*---- vector kernels: one body per vector width, the same results ------------*/
--% for i, t in ipairs(ARG.targets) do

$(#ARG.targets > 1 and target_directive(i, t) or "")
/* $(t.summary) */
--%   for _, k in ipairs(ARG.kernels) do
--%     if vector_kind[k.kind] then

--%       if t.bytes == 0 then
--%         plain[k.kind](k)
--%       else
--%         emit[k.kind](k, t.lanes)
--%       end
--%     end
--%   end
--% end
--% if #ARG.targets > 1 then

#endif
--% end
