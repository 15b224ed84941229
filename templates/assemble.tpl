--% -- assemble.tpl -- the program's assembly of H~ from the equality rows'
--% -- J and W J^T (rt_assemble_fn of rt.h), the plan of the runtime's
--% -- assembly (runtime/assemble.c) made by gen/emit.c (P.assembly): one
--% -- line per block, a call of its shape's kernel with every offset a
--% -- constant (its pivot's W_ base plus a literal, its constraints' X_ row
--% -- bases), in functions of the blocks of 32 pivots each. (One inlined
--% -- block per line instead cost the scissor lift 52 KB of text and four
--% -- times the compile time for 15% fewer instructions.)
--% local function term(t, k)
--%   local x = t[k]
--%   if not x then return "0, 0" end
--%   return fmt("12 * X_%s%s, 12 * X_%s%s", x.jq, x.jside == 1 and " + 6" or "", x.wp, x.wside == 1 and " + 6" or "")
--% end
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
--% local function entry(b, r, c)
--%   local ks = products(b.qrows:sub(r + 1, r + 1), b.prows:sub(c + 1, c + 1))
--%   local e = "0"
--%   for t = 1, #b.terms do
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
--% -- each block shape (node or edge, dq x dp, terms, its rows' letters) is
--% -- one kernel function, straight-line; a block is a call of its shape's
--% -- kernel with its constant offsets
--% local function shape(b)
--%   if b.node then return fmt("asm_n%dx%d_%d_%s", b.dq, b.dp, #b.terms, b.qrows) end
--%   return fmt("asm_e%dx%d_%d_%s_%s", b.dq, b.dp, #b.terms, b.qrows, b.prows)
--% end
--% local shapes, shape_list = {}, {}
--% for _, b in ipairs(P.assembly.blocks) do
--%   local k = shape(b)
--%   if not shapes[k] then
--%     shapes[k] = b
--%     shape_list[#shape_list + 1] = k
--%   end
--% end
--% table.sort(shape_list)
--% local PART = 32
--% local parts, pivots_seen, order = {}, {}, {}
--% for _, b in ipairs(P.assembly.blocks) do
--%   if not pivots_seen[b.pivot] then
--%     order[#order + 1] = b.pivot
--%     pivots_seen[b.pivot] = #order
--%   end
--%   local k = (pivots_seen[b.pivot] - 1) // PART
--%   parts[k + 1] = parts[k + 1] or {}
--%   table.insert(parts[k + 1], b)
--% end

/*---- the assembly of H~ (rt_assemble_fn of rt.h) ----------------------------
 * H~ = J W J^T + epsilon diag(J W J^T) of the equality rows into the
 * workspace, from the rows' J and W J^T: each block (q, p) the sum, over
 * the at most two bodies its constraints share, of J_q's rows against
 * W J_p^T's, each entry from +0 term after term, each term's six products
 * added one by one; a node block's lower triangle mirrored and its
 * diagonal d made d + epsilon d; rounded once when stored; the entries no
 * block writes zeroed -- the runtime's assembly (runtime/assemble.c),
 * whose plan this is with every offset a constant, so its bits: the
 * products left out below are +-0 at every pose (the joint types' row
 * letters), and a sum from +0, never -0, keeps its bits when +-0 is added
 * (while W J^T is finite). */

/* The block shapes of this program: node (n) or edge (e) block, dq x dp,
 * the number of terms, and the row letters of its two constraints (x, y,
 * z: a ball row; a: angular; g: general); a product of entries that are
 * +-0 at every pose is left out. a0, w0 (a1, w1): the first (second)
 * term's rows of J and W J^T. */
--% for _, k in ipairs(shape_list) do
--%   local b = shapes[k]
static void $(k)(const double *restrict J, const double *restrict WJ, double epsilon, scalar *restrict out,
$(string.rep(" ", #k + 13))int jq0, int wp0, int jq1, int wp1) {
  const double *a0 = J + jq0, *w0 = WJ + wp0, *a1 = J + jq1, *w1 = WJ + wp1;
  (void)epsilon, (void)a1, (void)w1;
--%   for r = 0, b.dq - 1 do
--%     if b.node then
--%       for c = 0, r - 1 do
  $(stmt(fmt("out[%d] = out[%d] = (scalar)(", r * b.dp + c, c * b.dp + r), entry(b, r, c), ");"))
--%       end
  {
    $(stmt("const double d = ", entry(b, r, r), ";"))
    out[$(r * b.dp + r)] = (scalar)(d + epsilon * d);
  }
--%     else
--%       for c = 0, b.dp - 1 do
  $(stmt(fmt("out[%d] = (scalar)(", r * b.dp + c), entry(b, r, c), ");"))
--%       end
--%     end
--%   end
}
--% end
--% for k, part in ipairs(parts) do

static void asm_part$(k - 1)(const double *restrict J, const double *restrict WJ, double epsilon, scalar *restrict w) {
--%   for _, b in ipairs(part) do
  $(shape(b))(J, WJ, epsilon, w + $(b.dst), $(term(b.terms, 1)), $(term(b.terms, 2)));
--%   end
}
--% end

/* Assembles H~ from the equality rows (rt_assemble_fn). */
static void $(P.ident)_assemble(const double *J, const double *WJ, double epsilon, void *work) {
  scalar *w = work;
--% for _, z in ipairs(P.assembly.zero) do
  memset(w + $(z.dst), 0, $(z.len) * sizeof *w);
--% end
--% for k = 1, #parts do
  asm_part$(k - 1)(J, WJ, epsilon, w);
--% end
}
