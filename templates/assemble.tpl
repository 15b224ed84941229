--% -- assemble.tpl -- the program's assembly of H~ from the equality rows'
--% -- J and W J^T (rt_assemble_fn of rt.h), the plan of the runtime's
--% -- assembly (runtime/assemble.c) made by gen/emit.c (P.assembly): one
--% -- line per block, a call of its kernel (rt_kernels.h, written by
--% -- asm_kernels.tpl) with every offset a
--% -- constant (its pivot's W_ base plus a literal, its constraints' X_ row
--% -- bases), in functions of whole pivots that gen/emit.c cuts (b.part: the
--% -- function's first pivot) where an edit moves no other cut. (One inlined
--% -- block per line instead cost the scissor lift 52 KB of text and four
--% -- times the compile time for 15% fewer instructions.)
--% local function term(t, k)
--%   local x = t[k]
--%   if not x then return "0, 0" end
--%   return fmt("12 * X_%s%s, 12 * X_%s%s", x.jq, x.jside == 1 and " + 6" or "", x.wp, x.wside == 1 and " + 6" or "")
--% end
--% local parts = {}
--% for _, b in ipairs(P.assembly.blocks) do
--%   if #parts == 0 or parts[#parts].name ~= b.part then
--%     parts[#parts + 1] = { name = b.part, blocks = {} }
--%   end
--%   table.insert(parts[#parts].blocks, b)
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
 * products its kernels (rt_kernels.h) leave out are +-0 at every pose
 * (the joint types' row letters), and a sum from +0, never -0, keeps its
 * bits when +-0 is added (while W J^T is finite). */
--% for _, part in ipairs(parts) do

static void asm_part_$(part.name)(const double *restrict J, const double *restrict WJ, double epsilon, scalar *restrict w) {
--%   for _, b in ipairs(part.blocks) do
  $(b.kernel)(J, WJ, epsilon, w + $(b.dst), $(term(b.terms, 1)), $(term(b.terms, 2)));
--%   end
}
--% end

/* Assembles H~ from the equality rows (rt_assemble_fn). */
static void $(P.ident)_assemble(const double *J, const double *WJ, double epsilon, void *work) {
  scalar *w = work;
--% for _, z in ipairs(P.assembly.zero) do
  memset(w + $(z.dst), 0, $(z.len) * sizeof *w);
--% end
--% for _, part in ipairs(parts) do
  asm_part_$(part.name)(J, WJ, epsilon, w);
--% end
}
