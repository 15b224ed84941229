--% -- kernels.tpl -- the degree-specialized kernels of P.kernels, each the
--% -- reference arithmetic of rt.h written out for its sizes. A sum
--% -- a0*b0 + a1*b1 + ... is one C expression, evaluated left to right like
--% -- the interpreter's s = a0*b0; s += a1*b1; ... (-ffp-contract=off: no
--% -- fused multiply-adds); `y - (sum)` subtracts the finished sum.
--%
--% -- "p[i] * q[j] + ..." for the index pairs (i, j) of a list
--% local function dot(p, q, pairs_)
--%   local t = {}
--%   for _, ij in ipairs(pairs_) do t[#t + 1] = fmt("%s[%d] * %s[%d]", p, ij[1], q, ij[2]) end
--%   return table.concat(t, " + ")
--% end
--% -- "x - (sum)", or "x - term" for one term
--% local function minus(x, terms)
--%   if #terms == 1 then return x .. " - " .. terms[1] end
--%   return x .. " - (" .. table.concat(terms, " + ") .. ")"
--% end
--%
--% local emit = {}
--%
--% function emit.factor_node(k)
--%   local d = k.d
/* Dense LDL^T of a $(d) x $(d) node block in place (rt.h factor step 1): unit
 * lower l below the diagonal, D on it. Returns 1 if the block is not
 * positive definite. */
static int $(k.name)(scalar *n) {
--%   for j = 0, d - 1 do
--%     local jj = j * d + j
--%     if j == 0 then
  if (!(n[0] > 0)) return 1;
--%     else
--%       local t = {}
--%       for q = 0, j - 1 do t[#t + 1] = fmt("n[%d] * (n[%d] * n[%d])", j * d + q, j * d + q, q * d + q) end
  const scalar d$(j) = $(minus(fmt("n[%d]", jj), t));
  if (!(d$(j) > 0)) return 1;
  n[$(jj)] = d$(j);
--%     end
--%     for i = j + 1, d - 1 do
--%       local ij = i * d + j
--%       if j == 0 then
  n[$(ij)] = n[$(ij)] / n[$(jj)];
--%       else
--%         local t = {}
--%         for q = 0, j - 1 do t[#t + 1] = fmt("n[%d] * (n[%d] * n[%d])", i * d + q, j * d + q, q * d + q) end
  n[$(ij)] = ($(minus(fmt("n[%d]", ij), t))) / n[$(jj)];
--%       end
--%     end
--%   end
  return 0;
}
--% end
--%
--% function emit.node_solve(k)
--%   local d = k.d
/* x = N^-1 v for a factored $(d) x $(d) node block (rt.h node_solve); v and x
 * may be the same vector. */
static void $(k.name)(const scalar *n, const scalar *v, scalar *x) {
--%   for i = 0, d - 1 do
--%     local t = {}
--%     for q = 0, i - 1 do t[#t + 1] = fmt("n[%d] * y%d", i * d + q, q) end
--%     if i == 0 then
  const scalar y0 = v[0];
--%     else
  const scalar y$(i) = $(minus(fmt("v[%d]", i), t));
--%     end
--%   end
--%   for i = 0, d - 1 do
  const scalar z$(i) = y$(i) / n[$(i * d + i)];
--%   end
--%   for i = d - 1, 0, -1 do
--%     local t = {}
--%     for q = i + 1, d - 1 do t[#t + 1] = fmt("n[%d] * x%d", q * d + i, q) end
--%     if i == d - 1 then
  const scalar x$(i) = z$(i);
--%     else
  const scalar x$(i) = $(minus(fmt("z%d", i), t));
--%     end
--%   end
--%   for i = 0, d - 1 do
  x[$(i)] = x$(i);
--%   end
}
--% end
--%
--% function emit.solve_rows(k)
/* T[r] = N^-1 E[r] for the h rows of an edge column (rt.h factor step 2). */
static void $(k.name)(const scalar *restrict n, const scalar *restrict e, scalar *restrict t, int h) {
  for (int r = 0; r < h; r++) node_solve_$(k.d)(n, e + $(k.d) * r, t + $(k.d) * r);
}
--% end
--%
--% function emit.reduce_tri(k)
--%   local m, d = k.m, k.d
/* Lower triangle of a $(m) x $(m) node block C -= E T^T, E and T $(m) x $(d) (rt.h
 * factor step 3, a diagonal block pair). */
static void $(k.name)(scalar *restrict c, const scalar *restrict e, const scalar *restrict t) {
--%   for r = 0, m - 1 do
--%     for j = 0, r do
--%       local ij = {}
--%       for q = 0, d - 1 do ij[#ij + 1] = { r * d + q, j * d + q } end
  c[$(r * m + j)] -= $(dot("e", "t", ij));
--%     end
--%   end
}
--% end
--%
--% function emit.reduce(k)
--%   local m, n, d = k.m, k.n, k.d
/* C -= E T^T for a $(m) x $(n) block C, E $(m) x $(d), T $(n) x $(d) (rt.h factor
 * step 3, one block pair). */
static void $(k.name)(scalar *restrict c, const scalar *restrict e, const scalar *restrict t) {
--%   for r = 0, m - 1 do
--%     for j = 0, n - 1 do
--%       local ij = {}
--%       for q = 0, d - 1 do ij[#ij + 1] = { r * d + q, j * d + q } end
  c[$(r * n + j)] -= $(dot("e", "t", ij));
--%     end
--%   end
}
--% end
--%
--% function emit.forward(k)
--%   local m, d = k.m, k.d
/* xq -= L xp for a $(m) x $(d) block L (rt.h solve, forward). */
static void $(k.name)(const scalar *restrict l, const scalar *restrict xp, scalar *restrict xq) {
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
--%     for r = 0, m - 1 do ij[#ij + 1] = { r * d + c, r } end
--%     if first then
  s[$(c)] = $(dot("l", "xq", ij));
--%     else
  s[$(c)] = s[$(c)] + $(dot("l", "xq", ij));
--%     end
--%   end
--% end
--%
--% function emit.backward_set(k)
/* s = L^T xq for a $(k.m) x $(k.d) block L: the first block of a pivot's
 * backward sum (rt.h solve, backward). */
static void $(k.name)(const scalar *restrict l, const scalar *restrict xq, scalar *restrict s) {
--%   backward(k, true)
}
--% end
--%
--% function emit.backward_add(k)
/* s = s + L^T xq for a $(k.m) x $(k.d) block L, the sum continued in order. */
static void $(k.name)(const scalar *restrict l, const scalar *restrict xq, scalar *restrict s) {
--%   backward(k, false)
}
--% end
--%
--% function emit.subtract(k)
/* x -= s, $(k.d) rows: the end of a pivot's backward step. */
static void $(k.name)(scalar *restrict x, const scalar *restrict s) {
--%   for c = 0, k.d - 1 do
  x[$(c)] -= s[$(c)];
--%   end
}
--% end

/*---- kernels -----------------------------------------------------------------*/
--% for _, k in ipairs(P.kernels) do

--%   emit[k.kind](k)
--% end
