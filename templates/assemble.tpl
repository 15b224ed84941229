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
--% -- each block shape (node or edge, dq x dp, terms) is one kernel
--% -- function, its operations specialized on the shape; a block is a call
--% -- of its shape's kernel with its constant offsets
--% local function shape(b)
--%   return fmt("asm_%s%dx%d_%d", b.node and "n" or "e", b.dq, b.dp, #b.terms)
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
 * whose plan this is with every offset a constant, so its bits. */
#define ASM_INLINE SWEEP_INLINE

/* a_0 b_0 + ... + a_5 b_5 from +0, one by one in that order */
ASM_INLINE double asm_dot6(const double *a, const double *b) {
  double s = 0;
  s += a[0] * b[0];
  s += a[1] * b[1];
  s += a[2] * b[2];
  s += a[3] * b[3];
  s += a[4] * b[4];
  s += a[5] * b[5];
  return s;
}

/* Entry (r, c) of a block of nterm terms (J rows from jq0, jq1, W J^T
 * rows from wp0, wp1). */
ASM_INLINE double asm_entry(const double *restrict J, const double *restrict WJ, int nterm, int jq0, int wp0, int jq1,
                            int wp1, int r, int c) {
  double v = 0;
  if (nterm > 0) v += asm_dot6(J + jq0 + 12 * r, WJ + wp0 + 12 * c);
  if (nterm > 1) v += asm_dot6(J + jq1 + 12 * r, WJ + wp1 + 12 * c);
  return v;
}

/* A dq x dp block at out (node: a node block); the callers' arguments are
 * constants. */
ASM_INLINE void asm_block(const double *restrict J, const double *restrict WJ, double epsilon, scalar *restrict out,
                          int dq, int dp, int node, int nterm, int jq0, int wp0, int jq1, int wp1) {
  for (int r = 0; r < dq; r++) {
    if (node) {
      for (int c = 0; c < r; c++) out[r * dp + c] = out[c * dp + r] = (scalar)asm_entry(J, WJ, nterm, jq0, wp0, jq1, wp1, r, c);
      const double d = asm_entry(J, WJ, nterm, jq0, wp0, jq1, wp1, r, r);
      out[r * dp + r] = (scalar)(d + epsilon * d);
    } else {
      for (int c = 0; c < dp; c++) out[r * dp + c] = (scalar)asm_entry(J, WJ, nterm, jq0, wp0, jq1, wp1, r, c);
    }
  }
}

/* The block shapes of this program: node (n) or edge (e) block, dq x dp,
 * and the number of terms. */
--% for _, k in ipairs(shape_list) do
--%   local b = shapes[k]
static void $(k)(const double *restrict J, const double *restrict WJ, double epsilon, scalar *restrict out, int jq0,
$(string.rep(" ", #k + 13))int wp0, int jq1, int wp1) {
  (void)epsilon, (void)jq1, (void)wp1;
  asm_block(J, WJ, epsilon, out, $(b.dq), $(b.dp), $(b.node and 1 or 0), $(#b.terms), jq0, wp0, jq1, wp1);
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
