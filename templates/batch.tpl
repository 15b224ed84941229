--% -- batch.tpl -- the entry points of a batch program (ldlgen --batch N,
--% -- included by unrolled.tpl after the factor and solve functions): the
--% -- scalar program's factor and solve for P.batch copies at once, every
--% -- value lane-interleaved (entry k of copy j at scalar k * N + j).
--% local N = P.batch

/*---- entry points: $(N) copies, one per lane (declared in $(P.header)) -----------*/
/* Each function runs once per group of RT_LANES_G lanes (rt_lanes.h: as
 * many as one register of the target holds), the group's first lane h as
 * the arrays' base; the groups of one function are independent. */

/* Factors the $(N) copies' assembled workspaces in place, lane-interleaved
 * ($(P.macro)_BATCH_WORK_SIZE scalars: entry k of copy j at k * $(N) + j); temp holds
 * $(P.macro)_BATCH_TEMP_SIZE scalars. lane_pivot, if not NULL, receives $(N) ints: -1
 * for a copy whose factorization succeeded, else the pivot whose node block
 * was not positive definite in that copy (its values are then not
 * meaningful; the other copies are factored all the same). Returns -1 if
 * every copy succeeded, else the first pivot at which one failed. */
int $(P.ident)_batch_factor(void *work, void *temp, int *lane_pivot) {
  int fail[$(N)];
  for (int j = 0; j < $(N); j++) fail[j] = -1;
--% if #P.factor == 0 then
  (void)work;
  (void)temp;
--% else
--%   for _, f in ipairs(P.factor) do
--%     if f.status then
  for (int h = 0; h < $(N); h += RT_LANES_G) lane_$(f.name)(rt_lane_group(work, h), rt_lane_group(temp, h), fail + h);
--%     else
  for (int h = 0; h < $(N); h += RT_LANES_G) lane_$(f.name)(rt_lane_group(work, h), rt_lane_group(temp, h));
--%     end
--%   end
--% end
  int first = -1;
  for (int j = 0; j < $(N); j++) {
    if (lane_pivot) lane_pivot[j] = fail[j];
    if (fail[j] >= 0 && (first < 0 || fail[j] < first)) first = fail[j];
  }
  return first;
}

/* Solves H x = b for the $(N) copies in place after the factorization (x
 * holds their b on entry, lane-interleaved: row i of copy j at i * $(N) + j,
 * $(P.macro)_BATCH_DIM scalars). */
void $(P.ident)_batch_solve(const void *work, void *x) {
  $(P.ident)_batch_solve_forward(work, x);
  $(P.ident)_batch_solve_backward(work, x);
}
--% for _, half in ipairs({"forward", "backward"}) do
--%   local fns = {}
--%   for _, f in ipairs(P.solve) do
--%     if f.phase == half then fns[#fns + 1] = f end
--%   end

/* The $(half) half of $(P.ident)_batch_solve (the scalar program's solve_$(half)). */
void $(P.ident)_batch_solve_$(half)(const void *work, void *x) {
--%   if #fns == 0 then
  (void)work;
  (void)x;
--%   else
--%     for _, f in ipairs(fns) do
  for (int h = 0; h < $(N); h += RT_LANES_G) lane_$(f.name)(rt_lane_group_const(work, h), rt_lane_group(x, h));
--%     end
--%   end
}
--% end
