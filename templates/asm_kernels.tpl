--% -- asm_kernels.tpl -- the kernels of the generated assemblies of H~
--% -- (assemble.tpl), one per block shape of every equality joint type:
--% -- node or edge block, its terms (0-2: the bodies its two constraints
--% -- share) and its constraints' row letters (rt_joint_type_def.rows);
--% -- ARG is the list gen/emit.c makes from the type table. kernels.h.tpl
--% -- includes it once per precision. Each kernel is straight-line, one
--% -- line per entry, holding only the products that can be nonzero.
--%
--% -- the entries of one side of a J row that can be nonzero, by its row
--% -- letter (rt_joint_type_def.rows): a ball row along axis x, y or z, an
--% -- angular row, a general one
--% local NONZERO = {x = {1, 5, 6}, y = {2, 4, 6}, z = {3, 4, 5}, a = {4, 5, 6}, g = {1, 2, 3, 4, 5, 6}}
--% local function can(l, k)
--%   for _, i in ipairs(NONZERO[l]) do
--%     if i == k then return true end
--%   end
--%   return false
--% end
--% -- the products (0-5) of J_q's row of letter ql against W J_p^T's row of
--% -- letter pl that are not +-0: W's linear part is m I, so a linear one
--% -- needs both rows' entry; its angular part I^-1 times the row's nonzero
--% -- angular part, so an angular one needs J_q's entry
--% local function products(ql, pl)
--%   local out = {}
--%   for k = 1, 6 do
--%     if can(ql, k) and (k > 3 or can(pl, k)) then out[#out + 1] = k - 1 end
--%   end
--%   return out
--% end
--% -- entry (r, c) of a block: from +0 the first term's products one by one,
--% -- then each further term's sum (a sum that starts at +0 is never -0, so
--% -- the +-0 products left out and the +0 a further term would start from
--% -- change no bit)
--% local function entry(kernel, r, c)
--%   local ks = products(kernel.qrows:sub(r + 1, r + 1), kernel.prows:sub(c + 1, c + 1))
--%   local e = "0"
--%   for t = 1, kernel.nterm do
--%     local p = {}
--%     for _, k in ipairs(ks) do p[#p + 1] = fmt("a%d[%d] * w%d[%d]", t - 1, 12 * r + k, t - 1, 12 * c + k) end
--%     if #p > 0 then e = t == 1 and "0 + " .. table.concat(p, " + ") or e .. "\0+ (" .. table.concat(p, " + ") .. ")" end
--%   end
--%   return e
--% end
--% -- a statement head .. expression .. tail, its further term on a line
--% -- of its own (under the expression) when it would pass 120 columns
--% local function stmt(head, e, tail)
--%   local one = head .. e:gsub("%z", " ") .. tail
--%   if #one <= 120 then return one end
--%   return head .. e:gsub("%z", "\n" .. string.rep(" ", #head - 2)) .. tail
--% end

/*---- assembly kernels (assemble.tpl): one per block shape ------------------
 * Block (q, p) of H~ = J W J^T + epsilon diag(J W J^T) at out: entry
 * (r, c) the sum over the terms (the bodies both constraints act on: a0,
 * w0 and a1, w1, the rows of J_q and W J_p^T on the first and second) of
 * J_q's row r against W J_p^T's row c, from +0, in the order of the
 * runtime's assembly (runtime/assemble.c); a node block's lower triangle
 * mirrored and its diagonal d made d + epsilon d. The name says node (n)
 * or edge (e), dq x dp, the terms and the row letters (x, y, z: a ball
 * row; a: angular; g: general); the products of entries that are +-0 at
 * every pose are left out, which changes no bit of a sum from +0. */
--% for _, k in ipairs(ARG) do
--%   local dq, dp = #k.qrows, #k.prows
RT_KERNEL void $(k.name)(const double *restrict J, const double *restrict WJ, double epsilon, scalar *restrict out,
$(string.rep(" ", #k.name + 11))int jq0, int wp0, int jq1, int wp1) {
  const double *a0 = J + jq0, *w0 = WJ + wp0, *a1 = J + jq1, *w1 = WJ + wp1;
  (void)epsilon, (void)a0, (void)w0, (void)a1, (void)w1;
--%   for r = 0, dq - 1 do
--%     if k.node then
--%       for c = 0, r - 1 do
  $(stmt(fmt("out[%d] = out[%d] = (scalar)(", r * dp + c, c * dp + r), entry(k, r, c), ");"))
--%       end
  {
    $(stmt("const double d = ", entry(k, r, r), ";"))
    out[$(r * dp + r)] = (scalar)(d + epsilon * d);
  }
--%     else
--%       for c = 0, dp - 1 do
  $(stmt(fmt("out[%d] = (scalar)(", r * dp + c), entry(k, r, c), ");"))
--%       end
--%     end
--%   end
}
--% end
