/* batch.c -- N worlds of one mechanism stepped together (rt_batch.h). A
 * batch step is the world's step (step.c) in its four parts, with the
 * parts the copies share done in lanes:
 *
 *   1-3. begin      copy by copy      rt_world_step_begin: forces, rows,
 *                                     warm start
 *   4.   factor     lanes             each copy's H~ assembled (factor.c)
 *                                     into its workspace, the workspaces
 *                                     interleaved, the batch program's
 *                                     factor, and back
 *   5.   sweeps     lanes             batch_pgs.c: the sweeps before the
 *                                     block step over all copies' rows
 *                                     (5 and 6b in groups of lanes,
 *                                     RT__GROUP)
 *   6a.  block      lanes, S copy     the first block step's solve in
 *                   by copy           lanes (residual and correction
 *                                     per copy), then S, then the block
 *                                     step after it (or the refinement)
 *                                     in lanes
 *   6b.  contacts   lanes             the contact passes (batch_pgs.c),
 *                                     S again and its block step
 *   6c-9. end       copy by copy      rt__step_end_finish: position
 *                                     pass, integration, projection
 *
 * so each copy's step is the bits of rt_world_step on it alone. Or the
 * copies step one by one, rt_world_step each, where that measures faster
 * (rt_batch_step: RT_BATCH_STEP_MEASURED). A copy whose begin fails (a
 * non-finite state: nothing changed) takes no part in 4-9, a copy left
 * out (rt_batch_set_active) in none; stage 5 runs
 * copy by copy when the copies' sweep counts differ (their settings do),
 * and 5 and 6b do when lane_stages is off (or auto and the step's rows in
 * lanes exceed the budget). It calls step.c, block.c, factor.c,
 * batch_pgs.c and pick.c, and nothing calls back. */
#include <stdlib.h>
#include <string.h>

#include "lanes.h"
#include "rt_batch.h"

/* Stages 5 and 6b in lanes by default only with AVX: with SSE2's two
 * doubles a register, 8 tanks stepped 1.7x slower in lanes than copy by
 * copy (make bench-batch, portable build); with AVX-512 1.1x faster.
 * (Measured again once the portable build's copies into the lanes no
 * longer stalled, fcbeec8: 8 tanks in lanes 0.89-0.90x their scalar steps,
 * copy by copy 0.99-1.00x; 4 tanks 0.97-0.98x and 1.01x.) */
#if defined(__AVX__)
#define RT__LANE_STAGES_DEFAULT RT_BATCH_LANES_AUTO
#else
#define RT__LANE_STAGES_DEFAULT 0
#endif

/* The lanes' stages (5 and 6b) take the copies in groups of at most as
 * many as one vector register holds doubles, one rt__lanes each, group
 * after group, the factor's solves for all N at once. A wider lane vector
 * is two or more registers: a run of rows on two bodies holds 12 vectors
 * of velocities, 24 registers in lanes of 16 with AVX-512 (of 32). 16
 * float tanks in lanes of 16 stepped 1.34x as fast as their scalar steps
 * over steps 10-110 and 1.03x over 300-400 (so the lane budget stepped
 * them copy by copy), in two groups of 8, 2.00x and 1.38x (make
 * bench-batch); 8 double tanks with AVX2 (make ARCH=avx2) 0.94-1.02x in
 * lanes of 8, 1.37-1.40x in two groups of 4, and with AVX-512 1.80-1.87x
 * in lanes of 8, 1.51-1.54x in groups of 4. */
#if defined(__AVX512F__)
#define RT__GROUP 8
#else
#define RT__GROUP 4
#endif

/* Stage 5 in lanes only from this many sweeps on: the lanes' gather and
 * scatter of every row cost more than a few sweeps save (8 copies of the
 * sample lift, whose step sweeps twice before a block step that S couples
 * to its contacts: 48k instructions a copy-step more in lanes, no faster
 * with AVX-512; none, the chain's, only gathered). */
#define RT__LANE_SWEEPS_MIN 4

struct rt_batch {
  const rt_batch_program *bp;
  int N;
  rt_world **w;
  size_t scalar;           /* bytes of the program's scalar */
  void *work, *temp;       /* the copies' workspaces and temporaries, lane-interleaved (rt__alloc_lines) */
  void *spare;             /* one workspace: deinterleave's lanes of copies that factor nothing */
  int *lane_pivot;         /* N: each copy's factor status */
  rt_status *st;           /* N: each copy's step so far (RT__LEFT_OUT for a copy left out) */
  unsigned char *out;      /* N: the copy is left out of the steps (rt_batch_set_active) */
  unsigned char *factors;  /* N: the copy's step factors H~ this step */
  unsigned char *sweeps;   /* N: the copy takes part in the lanes' sweeps */
  unsigned char *passes;   /* N: the copy's contact passes run in lanes */
  int first_in_lanes;      /* the contact passes' first sweep in lanes (contacts) */
  int gathered;            /* the lanes hold this step's rows (stage 5) */
  int lane_stages;         /* stages 5 and 6b in lanes: 1, 0 or RT_BATCH_LANES_AUTO (rt_batch_set_lane_stages) */
  size_t lane_budget;      /* RT_BATCH_LANES_AUTO's, bytes (rt_batch_set_lane_budget) */
  int in_lanes;            /* the last step's: lane_stages, the budget decided */
  int stepping;            /* RT_BATCH_STEP_*: in lanes, copy by copy, or measured (rt_batch_set_stepping) */
  rt__pick pick;           /* RT_BATCH_STEP_MEASURED's: kind 1 in lanes, 0 copy by copy */
  int stepped;             /* the copies the last step stepped (not left out) */
  long long settings_set;  /* the sum of the copies' settings_set at the last step */
  int stepped_lanes;       /* the last step ran in lanes */
  double *res;             /* dim N: the block step's residual and delta, lane-interleaved */
  double *zeros, *sink;    /* dim each: lanes_in's lanes without a residual, lanes_out's without a copy to go to */
  float *xres;             /* dim N: the same in float, for a float program */
  int G, gn;               /* the lanes' stages' groups, and the lanes of each (RT__GROUP) */
  rt__lanes lanes[RT__LANES_MAX / RT__GROUP];
};

static int lanes_ok(int n) { return n == 4 || n == 8 || n == 16; }

/* Whether w was made with a program of bp's mechanism and precision. */
static int same_mechanism(const rt_program *p, const rt_world *w) {
  const rt_program *q = w->prog;
  return q->structure_hash == p->structure_hash && q->precision == p->precision && q->nbody == p->nbody &&
         q->nsbody == p->nsbody && q->ncons == p->ncons && q->dim == p->dim && q->work_size == p->work_size &&
         q->temp_size == p->temp_size;
}

void rt_batch_destroy(rt_batch *b) {
  if (b == NULL) return;
  free(b->w);
  rt__free_lines(b->work);
  rt__free_lines(b->temp);
  free(b->spare);
  free(b->lane_pivot);
  free(b->st);
  free(b->out);
  free(b->factors);
  free(b->sweeps);
  free(b->passes);
  rt__free_lines(b->res);
  free(b->zeros);
  free(b->sink);
  rt__free_lines(b->xres);
  for (int g = 0; g < b->G; g++) rt__lanes_free(&b->lanes[g]);
  free(b);
}

static rt_batch *refuse(rt_status *status, rt_status s) {
  if (status) *status = s;
  return NULL;
}

/* The copies' settings changes so far (world.h's settings_set). */
static long long settings_set(const rt_batch *b) {
  long long n = 0;
  for (int j = 0; j < b->N; j++) n += b->w[j]->settings_set;
  return n;
}

rt_batch *rt_batch_create(const rt_batch_program *bp, rt_world *const worlds[], int n, rt_status *status) {
  if (bp == NULL || worlds == NULL || bp->program == NULL || bp->factor == NULL || bp->solve == NULL ||
      !lanes_ok(bp->lanes) || n != bp->lanes)
    return refuse(status, RT_ERR_INPUT);
  const rt_program *p = bp->program;
  int cap = 0;
  for (int j = 0; j < n; j++) {
    if (worlds[j] == NULL) return refuse(status, RT_ERR_INPUT);
    for (int i = 0; i < j; i++)
      if (worlds[i] == worlds[j]) return refuse(status, RT_ERR_INPUT);
    if (!same_mechanism(p, worlds[j])) return refuse(status, RT_ERR_HASH);
    const int rows = worlds[j]->nfixed_rows + 3 * worlds[j]->set.max_contacts;
    if (rows > cap) cap = rows;
  }
  int fail = 0;
  rt_batch *b = rt__alloc(1, sizeof *b, &fail);
  if (b == NULL) return refuse(status, RT_ERR_NOMEM);
  b->bp = bp;
  b->N = n;
  b->scalar = p->precision == RT_FLOAT ? sizeof(float) : sizeof(double);
  b->w = rt__alloc((size_t)n, sizeof *b->w, &fail);
  b->work = rt__alloc_lines((size_t)n * (size_t)p->work_size, b->scalar, &fail);
  b->spare = rt__alloc((size_t)p->work_size, b->scalar, &fail);
  b->temp = rt__alloc_lines((size_t)n * (size_t)p->temp_size, b->scalar, &fail);
  b->lane_pivot = rt__alloc((size_t)n, sizeof(int), &fail);
  b->st = rt__alloc((size_t)n, sizeof(rt_status), &fail);
  b->out = rt__alloc((size_t)n, 1, &fail);
  b->factors = rt__alloc((size_t)n, 1, &fail);
  b->sweeps = rt__alloc((size_t)n, 1, &fail);
  b->passes = rt__alloc((size_t)n, 1, &fail);
  b->res = rt__alloc_lines((size_t)n * (size_t)p->dim, sizeof(double), &fail);
  b->zeros = rt__alloc((size_t)p->dim, sizeof(double), &fail);
  b->sink = rt__alloc((size_t)p->dim, sizeof(double), &fail);
  b->xres = rt__alloc_lines((size_t)n * (size_t)p->dim, sizeof(float), &fail);
  /* the equality rows' letters (world.h), 'g' where the copies differ */
  unsigned char *letter = rt__alloc((size_t)p->dim, 1, &fail);
  if (letter != NULL) {
    memcpy(letter, worlds[0]->row_letter, (size_t)p->dim);
    for (int j = 1; j < n; j++)
      for (int i = 0; i < p->dim; i++)
        if (worlds[j]->row_letter[i] != letter[i]) letter[i] = 'g';
    b->gn = n < RT__GROUP ? n : RT__GROUP;
    for (; b->G < n / b->gn; b->G++)
      if (rt__lanes_alloc(&b->lanes[b->G], b->gn, cap, p->nsbody, p->dim, letter) != 0) fail = 1;
    free(letter);
  }
  if (fail) {
    rt_batch_destroy(b);
    return refuse(status, RT_ERR_NOMEM);
  }
  for (int j = 0; j < n; j++) b->w[j] = worlds[j];
  b->lane_stages = RT__LANE_STAGES_DEFAULT;
  b->lane_budget = RT_BATCH_LANES_BUDGET;
  b->stepping = RT_BATCH_STEP_MEASURED;
  rt__pick_init(&b->pick, 1); /* in lanes until the first window has measured */
  b->stepped = n;
  b->settings_set = settings_set(b);
  if (status) *status = RT_OK;
  return b;
}

int rt_batch_lanes(const rt_batch *b) { return b ? b->N : 0; }

rt_world *rt_batch_world(const rt_batch *b, int j) { return b && j >= 0 && j < b->N ? b->w[j] : NULL; }

rt_status rt_batch_set_active(rt_batch *b, int j, int on) {
  if (b == NULL || j < 0 || j >= b->N) return RT_ERR_INPUT;
  b->out[j] = on == 0;
  return RT_OK;
}

int rt_batch_active(const rt_batch *b, int j) { return b && j >= 0 && j < b->N && !b->out[j]; }

rt_status rt_batch_set_lane_stages(rt_batch *b, int on) {
  if (b == NULL) return RT_ERR_INPUT;
  const int stages = on == RT_BATCH_LANES_AUTO ? on : on != 0;
  if (stages != b->lane_stages) rt__pick_again(&b->pick); /* the lanes' work changed */
  b->lane_stages = stages;
  return RT_OK;
}

rt_status rt_batch_set_lane_budget(rt_batch *b, size_t bytes) {
  if (b == NULL) return RT_ERR_INPUT;
  if (bytes != b->lane_budget) rt__pick_again(&b->pick);
  b->lane_budget = bytes;
  return RT_OK;
}

int rt_batch_lanes_used(const rt_batch *b) { return b ? b->in_lanes : 0; }

rt_status rt_batch_set_stepping(rt_batch *b, int how) {
  if (b == NULL || (how != RT_BATCH_STEP_COPIES && how != RT_BATCH_STEP_LANES && how != RT_BATCH_STEP_MEASURED))
    return RT_ERR_INPUT;
  b->stepping = how;
  return RT_OK;
}

int rt_batch_stepped_in_lanes(const rt_batch *b) { return b ? b->stepped_lanes : 0; }

rt_status rt_batch_set_settings(rt_batch *b, const rt_settings *s) {
  if (b == NULL || s == NULL) return RT_ERR_INPUT;
  rt_settings old[RT__LANES_MAX];
  long long set[RT__LANES_MAX];
  rt__pick pays[RT__LANES_MAX];
  for (int j = 0; j < b->N; j++) {
    old[j] = *rt_world_settings(b->w[j]);
    set[j] = b->w[j]->settings_set;
    pays[j] = b->w[j]->worker.pays;
  }
  for (int j = 0; j < b->N; j++) {
    const rt_status st = rt_world_set_settings(b->w[j], s);
    if (st != RT_OK) {
      for (int i = 0; i < j; i++) { /* accepted before: accepted again, and no change counted */
        rt_world_set_settings(b->w[i], &old[i]);
        b->w[i]->settings_set = set[i];
        b->w[i]->worker.pays = pays[i];
      }
      return st;
    }
  }
  return RT_OK;
}

/*---- stage 4: the factorization in lanes ----------------------------------*/

#if defined(__GNUC__) || defined(__clang__)
#define BATCH_INLINE static inline __attribute__((always_inline))
#define BATCH_UNROLL _Pragma("GCC unroll 16")
#else
#define BATCH_INLINE static inline
#define BATCH_UNROLL
#endif

/* Entry k of the N arrays a[j] to and from the lanes' d[k N + j], for
 * k < n: 4 entries of 4 copies at a time, a 4 x 4 transpose
 * (rt__transpose4_*, lanes.h), N a constant at each call (lanes_copy), so
 * that the loop over the copies unrolls. Written once per precision.
 * (Entry by entry, each a load and a store of its own, the copy back took
 * the sample lift's batch step of 8 copies 38k cycles, now 25k, AVX-512
 * build; the copy in is bound by the memory it moves, 34k either way.
 * With N a variable, earlier, these copies were 7 % of its instructions.) */
#define BATCH_LANES_COPY(T)                                                                                            \
  BATCH_INLINE void to_lanes_##T(T *restrict d, T *const *a, size_t n, const int N) {                                  \
    const T *src[RT__LANES_MAX];                                                                                       \
    for (int j = 0; j < N; j++) src[j] = a[j];                                                                         \
    size_t k = 0;                                                                                                      \
    for (; k + 4 <= n; k += 4) {                                                                                       \
      T *e = d + k * (size_t)N;                                                                                        \
      BATCH_UNROLL for (int j = 0; j < N; j += 4)                                                                      \
          rt__transpose4_##T(src[j] + k, src[j + 1] + k, src[j + 2] + k, src[j + 3] + k, e + j, e + N + j,             \
                             e + 2 * N + j, e + 3 * N + j);                                                            \
    }                                                                                                                  \
    for (; k < n; k++) {                                                                                               \
      BATCH_UNROLL for (int j = 0; j < N; j++) d[k * (size_t)N + (size_t)j] = src[j][k];                               \
    }                                                                                                                  \
  }                                                                                                                    \
  BATCH_INLINE void from_lanes_##T(const T *restrict d, T *const *a, size_t n, const int N) {                          \
    T *dst[RT__LANES_MAX];                                                                                             \
    for (int j = 0; j < N; j++) dst[j] = a[j];                                                                         \
    size_t k = 0;                                                                                                      \
    for (; k + 4 <= n; k += 4) {                                                                                       \
      const T *e = d + k * (size_t)N;                                                                                  \
      BATCH_UNROLL for (int j = 0; j < N; j += 4)                                                                      \
          rt__transpose4_##T(e + j, e + N + j, e + 2 * N + j, e + 3 * N + j, dst[j] + k, dst[j + 1] + k,               \
                             dst[j + 2] + k, dst[j + 3] + k);                                                          \
    }                                                                                                                  \
    for (; k < n; k++) {                                                                                               \
      T row[RT__LANES_MAX];                                                                                            \
      memcpy(row, d + k * (size_t)N, sizeof *row * (size_t)N);                                                         \
      BATCH_UNROLL for (int j = 0; j < N; j++) dst[j][k] = row[j];                                                     \
    }                                                                                                                  \
  }
BATCH_LANES_COPY(double)
BATCH_LANES_COPY(float)
#undef BATCH_LANES_COPY

/* The lanes' d (n entries of `scalar` bytes a lane) from (back) or to
 * (!back) the N arrays a: every lane's entries, lanes_ok's N. */
static void lanes_copy(const rt_batch *b, void *d, size_t n, size_t scalar, void *const *a, int back) {
#define BATCH_LANES_CASE(NN)                                                                                           \
  case NN:                                                                                                             \
    if (scalar == sizeof(double)) {                                                                                    \
      if (back)                                                                                                        \
        from_lanes_double(d, (double *const *)a, n, NN);                                                               \
      else                                                                                                             \
        to_lanes_double(d, (double *const *)a, n, NN);                                                                 \
    } else if (back) {                                                                                                 \
      from_lanes_float(d, (float *const *)a, n, NN);                                                                   \
    } else {                                                                                                           \
      to_lanes_float(d, (float *const *)a, n, NN);                                                                     \
    }                                                                                                                  \
    break;
  switch (b->N) {
    BATCH_LANES_CASE(4)
    BATCH_LANES_CASE(8)
    default: BATCH_LANES_CASE(16)
  }
#undef BATCH_LANES_CASE
}

/* The N workspaces into the lanes: lane j from copy j's if it factors
 * (take[j]), else from copy fill's. Entry by entry across the copies, so
 * that the writes run through the lanes' workspace once, in order (lane by
 * lane, each write a line of its own, 8 passes over the sample lift's
 * 294 KiB took 3 % of its batch step). */
static void interleave(rt_batch *b, const unsigned char *take, int fill) {
  void *src[RT__LANES_MAX] = {0};
  for (int j = 0; j < b->N; j++) src[j] = b->w[take[j] ? j : fill]->work;
  lanes_copy(b, b->work, (size_t)b->bp->program->work_size, b->scalar, src, 0);
}

/* The lanes back into the workspaces of the copies that factor (take); a
 * lane of a copy that factors nothing goes to a scratch array instead (the
 * copy's workspace holds what its step still reads). */
static void deinterleave(rt_batch *b, const unsigned char *take) {
  void *dst[RT__LANES_MAX] = {0};
  for (int j = 0; j < b->N; j++) dst[j] = take[j] ? b->w[j]->work : b->spare;
  lanes_copy(b, b->work, (size_t)b->bp->program->work_size, b->scalar, dst, 1);
}

/* Every copy whose step factors H~ gets its factor and factor_status as
 * rt_world_factor gives them (a copy whose factorization fails keeps the
 * status; its workspace, which nothing reads then, differs from the scalar
 * program's partial one). Lanes of copies that factor nothing factor a
 * copy of another lane's H~, so that every lane computes on sane values. */
static void factor(rt_batch *b) {
  int fill = -1;
  for (int j = 0; j < b->N; j++) {
    b->factors[j] = b->st[j] == RT_OK && rt__step_factors(b->w[j]);
    if (!b->factors[j]) continue;
    rt__factor_assemble(b->w[j]);
    if (fill < 0) fill = j;
  }
  if (fill < 0) return;
  interleave(b, b->factors, fill);
  b->bp->factor(b->work, b->temp, b->lane_pivot);
  deinterleave(b, b->factors);
  for (int j = 0; j < b->N; j++)
    if (b->factors[j]) b->w[j]->info.factor_status = b->lane_pivot[j];
}

/*---- stage 5: the sweeps in lanes -----------------------------------------*/

static void iterate(rt_batch *b) {
  int sweeps = -1, same = 1;
  b->gathered = 0;
  for (int j = 0; j < b->N; j++) {
    b->sweeps[j] = b->st[j] == RT_OK;
    if (!b->sweeps[j]) continue;
    const int k = rt__step_sweeps(b->w[j]);
    /* sweeps over part of the rows (the friction start's) run copy by copy */
    if ((sweeps >= 0 && k != sweeps) || rt__step_sweep_from(b->w[j]) != 0) same = 0;
    sweeps = k;
  }
  if (sweeps < 0) return;
  if (!same || !b->in_lanes || sweeps < RT__LANE_SWEEPS_MIN) {
    for (int j = 0; j < b->N; j++)
      if (b->sweeps[j]) rt_world_iterate(b->w[j]);
    return;
  }
  long long all[RT__LANES_MAX];
  for (int j = 0; j < b->N; j++) all[j] = b->sweeps[j] ? -1 : 0;
  for (int g = 0, o = 0; g < b->G; g++, o += b->gn) {
    rt__lanes *l = &b->lanes[g];
    rt__lanes_gather(l, b->w + o, b->sweeps + o, 0);
    for (int k = 0; k < sweeps; k++) rt__lanes_sweep(l, 0, all + o, NULL);
    rt__lanes_scatter(l, b->w + o, b->sweeps + o);
  }
  b->gathered = 1;
  for (int j = 0; j < b->N; j++)
    if (b->sweeps[j]) b->w[j]->info.sweeps = sweeps;
}

/*---- stage 6: the block step, its solve in lanes --------------------------*/

/* res = H~^-1 res in the lanes (solve: the batch program's solve, or one
 * of its halves), with the lanes' factor (b->work still holds it), in the
 * program's precision as block.c's factor_run does. */
static void lanes_run(rt_batch *b, rt_batch_solve_fn solve) {
  const size_t n = (size_t)b->N * (size_t)b->bp->program->dim;
  if (b->scalar == sizeof(double)) {
    solve(b->work, b->res);
    return;
  }
  for (size_t k = 0; k < n; k++) b->xres[k] = (float)b->res[k];
  solve(b->work, b->xres);
  for (size_t k = 0; k < n; k++) b->res[k] = b->xres[k];
}

static void lanes_solve(rt_batch *b) { lanes_run(b, b->bp->solve); }

/* Each copy j's w->r into its lane of b->res where in[j], zeros in the
 * others' (a lane without a residual solves zeros); transposed as the
 * workspaces are (entry by entry, these copies and lanes_out's took 2 % of
 * the sample lift's batch step). */
static void lanes_in(rt_batch *b, const unsigned char *in) {
  void *src[RT__LANES_MAX] = {0};
  for (int j = 0; j < b->N; j++) src[j] = in[j] ? b->w[j]->r : b->zeros;
  lanes_copy(b, b->res, (size_t)b->bp->program->dim, sizeof(double), src, 0);
}

/* Lane j of b->res into copy j's w->r where out[j] (the others' into a
 * scratch array). */
static void lanes_out(rt_batch *b, const unsigned char *out) {
  void *dst[RT__LANES_MAX] = {0};
  for (int j = 0; j < b->N; j++) dst[j] = out[j] ? b->w[j]->r : b->sink;
  lanes_copy(b, b->res, (size_t)b->bp->program->dim, sizeof(double), dst, 1);
}

/* block.c's rt__block_step(w, &w->rows, w->vel, refine[j]) of every copy
 * j with refine[j] >= 0, its factor in the lanes, all at once: each pass,
 * each copy's residual into its lane of b->res, one solve in lanes for all
 * of them, each copy's impulses and velocities corrected by its lane. A
 * copy with nothing left to solve for (block.c's tolerance) is done, and
 * solves zeros in its lane from then on. Its passes into passes[j]
 * (rt__block_step's return). (The residual and the correction in lanes
 * too, on the equality rows gathered once a step, cost more than they
 * saved: the gather alone took 122 instructions a row and copy, a pass's
 * residual and correction copy by copy about 80 a row; the sample lift's
 * batch of 8, 537k -> 647k instructions a copy-step, make bench-batch.) */
static void lanes_block_step(rt_batch *b, const int *refine, int *passes) {
  const int N = b->N;
  unsigned char solve[RT__LANES_MAX];
  for (int pass = 0;; pass++) {
    int any = 0;
    for (int j = 0; j < N; j++) {
      solve[j] = 0;
      if (refine[j] < pass || passes[j] < pass) continue; /* not stepped, or done */
      rt_world *w = b->w[j];
      solve[j] = rt__block_residual(w, &w->rows, w->vel) > RT__BLOCK_TOLERANCE;
      passes[j] = pass + solve[j];
      any |= solve[j];
    }
    if (!any) return;
    lanes_in(b, solve);
    lanes_solve(b);
    lanes_out(b, solve);
    for (int j = 0; j < N; j++) {
      if (!solve[j]) continue;
      rt_world *w = b->w[j];
      rt__block_correct(w, &w->rows, w->r, w->vel);
    }
  }
}

/* The first block step of the copies with first[j] (rt__block_step(w,
 * &w->rows, w->vel, 0)), its solve in lanes: solved[j] whether it solved
 * (its residual above the tolerance). Of the copies that split it around S
 * (split[j]: rt__step_split_block) the forward half only, left in w->r;
 * the others' whole solve, the backward half after the forward, and their
 * correction. */
static void first_block(rt_batch *b, const unsigned char *first, const unsigned char *split, unsigned char *solved) {
  int any = 0, forward_only = 0, whole = 0;
  for (int j = 0; j < b->N; j++) {
    rt_world *w = b->w[j];
    solved[j] = first[j] && rt__block_residual(w, &w->rows, w->vel) > RT__BLOCK_TOLERANCE;
    any |= solved[j];
    forward_only |= solved[j] && split[j];
    whole |= solved[j] && !split[j];
  }
  if (!any) return;
  lanes_in(b, solved);
  unsigned char out[RT__LANES_MAX];
  if (!forward_only) {
    lanes_solve(b);
  } else {
    lanes_run(b, b->bp->solve_forward);
    for (int j = 0; j < b->N; j++) out[j] = solved[j] && split[j];
    lanes_out(b, out);
    if (whole) lanes_run(b, b->bp->solve_backward);
  }
  if (!whole) return;
  for (int j = 0; j < b->N; j++) out[j] = solved[j] && !split[j];
  lanes_out(b, out);
  for (int j = 0; j < b->N; j++) {
    if (!out[j]) continue;
    rt_world *w = b->w[j];
    rt__block_correct(w, &w->rows, w->r, w->vel);
  }
}

/* step.c's rt__step_end_block of every copy whose factor is in the lanes
 * and whose step starts it with the factor's unrefined block step: that
 * block step's solve in lanes (first_block), then each copy's coupled
 * rows (S), then, for the copies that split that solve around S
 * (rt__step_split_block), its backward half in lanes, and the block step
 * that follows in lanes (rt__step_end_block_after's or the split's
 * refinement); the others' copy by copy (the split ones too if the batch
 * program has no halves). */
static void block_step(rt_batch *b) {
  const int N = b->N;
  int refine[RT__LANES_MAX] = {0}, passes[RT__LANES_MAX] = {0}, coupled[RT__LANES_MAX] = {0};
  unsigned char first[RT__LANES_MAX] = {0}, split[RT__LANES_MAX] = {0}, solved[RT__LANES_MAX] = {0};
  const int halves = b->bp->solve_forward != NULL && b->bp->solve_backward != NULL;
  int any_split = 0;
  for (int j = 0; j < N; j++) {
    rt_world *w = b->w[j];
    refine[j] = -1;
    if (b->st[j] != RT_OK) continue;
    split[j] = rt__step_split_block(w);
    first[j] = b->factors[j] && b->lane_pivot[j] == -1 && rt__step_first_block(w) && (halves || !split[j]);
    if (!first[j]) rt__step_end_block(w);
  }
  first_block(b, first, split, solved);
  for (int j = 0; j < N; j++) {
    if (!first[j]) continue;
    rt_world *w = b->w[j];
    if (split[j] && solved[j]) {
      rt__step_split_s(w, w->r);
      refine[j] = w->set.refine - 1;
      any_split = 1;
    } else {
      split[j] = 0;
      refine[j] = rt__step_second_block(w, solved[j], &coupled[j]);
    }
  }
  if (any_split) { /* the split solves' backward halves */
    lanes_in(b, split);
    lanes_run(b, b->bp->solve_backward);
    lanes_out(b, split);
    for (int j = 0; j < N; j++) {
      if (!split[j]) continue;
      rt_world *w = b->w[j];
      rt__block_correct(w, &w->rows, w->r, w->vel);
    }
  }
  lanes_block_step(b, refine, passes);
  for (int j = 0; j < N; j++)
    if (refine[j] >= 0) rt__step_refined(b->w[j], coupled[j], passes[j]);
}

/*---- stage 6's contact passes in lanes -------------------------------------*/

/* Whether a lane of a group (act: its gn lanes) takes part. */
static int group_acts(const long long *act, int gn) {
  for (int j = 0; j < gn; j++)
    if (act[j]) return 1;
  return 0;
}

/* step.c's contact passes (rt__step_contacts) of the copies whose factor
 * is in the lanes, all at once: each lane sweeps the rows outside the
 * block and, until its sweep changes no row's velocity by more than the
 * tolerance or it has run its passes, takes a block step (from its
 * second sweep on without the rows coupled through S, which S solves again
 * after the passes, copy by copy); a lane that is done drops out. The
 * first pass's sweep (rt__step_contacts_first) runs in lanes too
 * (rt__lanes_first_pass) when at least half of the last step's copies
 * went on after theirs; else copy by copy, before the lanes gather
 * anything, and only the copies that go on reach the lanes (where most
 * copies' passes end with the first, the lanes' refresh and scatter of
 * every copy cost more than its sweep in lanes saves: 8 buggies' batch
 * step 83 -> 88 us with it always in lanes; 8 tanks' contact passes 5 %
 * faster with it in lanes). The others pass copy by copy: PCR, and the
 * copies whose contacts S solved this step (schur.c), whose passes end
 * there too. When stage 5 ran copy by copy, the lanes gather only the rows
 * the passes sweep, and the block's rows when a pass first needs a block
 * step. */
static void contacts(rt_batch *b) {
  int limit[RT__LANES_MAX], any = 0, nin = 0, on = 0;
  double change[RT__LANES_MAX], most[RT__LANES_MAX], ctol[RT__LANES_MAX];
  unsigned char in[RT__LANES_MAX]; /* the copies whose passes (or later passes) run in the lanes */
  long long act[RT__LANES_MAX];
  const int first_in_lanes = b->first_in_lanes;
  for (int j = 0; j < b->N; j++) {
    limit[j] = b->st[j] == RT_OK ? rt__step_contact_passes(b->w[j]) : 0;
    in[j] = b->in_lanes && limit[j] > 0 && b->factors[j] && b->lane_pivot[j] == -1 && !rt__schur_has_contacts(b->w[j]);
    if (limit[j] > 0 && !in[j]) rt__step_contacts(b->w[j]);
    nin += in[j];
    ctol[j] = in[j] ? rt__step_contacts_tolerance(b->w[j]) : RT__CONTACT_TOLERANCE;
    if (in[j] && !first_in_lanes) { /* the first pass's sweep copy by copy; a copy it leaves settled is done */
      change[j] = rt__step_contacts_first(b->w[j]);
      in[j] = !(change[j] <= RT__CONTACT_TOLERANCE);
    }
    act[j] = in[j] ? -1 : 0;
    any |= in[j];
  }
  if (!any) {
    b->first_in_lanes = 0;
    return;
  }
  const int dim = b->bp->program->dim, gn = b->gn;
  unsigned char group[RT__LANES_MAX / RT__GROUP]; /* group g has copies in the lanes */
  for (int g = 0, o = 0; g < b->G; g++, o += gn) {
    group[g] = memchr(in + o, 1, (size_t)gn) != NULL;
    if (!group[g]) continue;
    rt__lanes *l = &b->lanes[g];
    if (b->gathered)
      rt__lanes_refresh(l, b->w + o, in + o);
    else /* the rows the passes sweep; the block's rows once a block step needs them */
      rt__lanes_gather(l, b->w + o, in + o, dim);
    if (first_in_lanes)
      rt__lanes_first_pass(l, dim, b->w[0]->nfixed_rows, act + o, RT__CONTACT_TOLERANCE, ctol + o, change + o);
  }
  for (int j = 0; j < b->N; j++) {
    b->passes[j] = in[j] && !(change[j] <= RT__CONTACT_TOLERANCE);
    on += b->passes[j];
  }
  /* the next step's first pass in lanes if at least half of this step's
   * copies went on after theirs */
  b->first_in_lanes = 2 * on >= nin;
  unsigned char block[RT__LANES_MAX];
  for (int k = 0;; k++) {
    any = 0;
    for (int j = 0; j < b->N; j++) {
      act[j] = b->passes[j] && k < limit[j] && (k == 0 || block[j]) ? -1 : 0;
      any |= act[j] != 0;
    }
    if (!any) break;
    for (int g = 0, o = 0; g < b->G; g++, o += gn) /* the first pass's: above */
      if (k > 0 && group_acts(act + o, gn)) rt__lanes_sweep(&b->lanes[g], dim, act + o, change + o);
    int nblock = 0;
    unsigned char busy[RT__LANES_MAX / RT__GROUP] = {0}; /* group g has a lane taking this block step */
    for (int j = 0; j < b->N; j++) {
      nblock += block[j] = act[j] && !(change[j] <= RT__CONTACT_TOLERANCE);
      busy[j / gn] |= block[j];
    }
    if (nblock == 0) break; /* every lane settled: no block step */
    if (k == 0) /* the rows coupled through S leave the passes (rt__step_contacts) */
      for (int j = 0; j < b->N; j++)
        if (block[j]) rt__lanes_mask(&b->lanes[j / gn], j % gn, b->w[j]->schur.row, b->w[j]->schur.k);
    for (int g = 0, o = 0; g < b->G; g++, o += gn) {
      rt__lanes *l = &b->lanes[g];
      if (!busy[g]) continue;
      if (l->from > 0) rt__lanes_gather_before(l, b->w + o);
      rt__lanes_residual(l, dim, b->res + o, b->N, most + o); /* into the group's lanes of b->res */
    }
    unsigned char solve[RT__LANES_MAX];
    int nsolve = 0;
    for (int j = 0; j < b->N; j++) {
      solve[j] = block[j] && most[j] > RT__BLOCK_TOLERANCE;
      nsolve += solve[j];
      if (block[j]) { /* block.c's rt__block_step, refine 0 */
        b->w[j]->info.contact_passes++;
        b->w[j]->info.refine_steps = 0;
      }
    }
    if (nsolve == 0) continue;
    lanes_solve(b);
    for (int g = 0, o = 0; g < b->G; g++, o += gn)
      if (busy[g]) rt__lanes_correct(&b->lanes[g], dim, b->res + o, b->N, solve + o);
  }
  for (int g = 0, o = 0; g < b->G; g++, o += gn)
    if (group[g]) rt__lanes_scatter(&b->lanes[g], b->w + o, in + o);
  /* rt__step_contacts_done of the copies whose passes took a block step:
   * S's solve copy by copy, the block step after it in lanes */
  int refine[RT__LANES_MAX] = {0}, passes[RT__LANES_MAX] = {0};
  for (int j = 0; j < b->N; j++)
    refine[j] = b->passes[j] && b->w[j]->info.contact_passes > 0 ? rt__step_contacts_coupled(b->w[j]) : -1;
  lanes_block_step(b, refine, passes);
  for (int j = 0; j < b->N; j++)
    if (refine[j] >= 0) rt__step_refined(b->w[j], 1, passes[j]);
}

/*---- the rest of the step: the projection's and post-stabilization's solves in lanes */

/* The projection's passes (rt__stabilize_project) of the copies with
 * solve[j], their factor in the lanes, in step: each copy's work up to its
 * next solve (rt__project_next), then one solve in lanes for all of them,
 * until every copy's projection is done. */
static void project(rt_batch *b, const double *error, unsigned char *solve) {
  rt__project pr[RT__LANES_MAX];
  for (int j = 0; j < b->N; j++)
    if (solve[j]) rt__project_begin(&pr[j], b->w[j]->set.project, error[j]);
  for (;;) {
    int any = 0;
    for (int j = 0; j < b->N; j++) {
      if (solve[j]) solve[j] = (unsigned char)rt__project_next(b->w[j], &pr[j]);
      any |= solve[j];
    }
    if (!any) return;
    lanes_in(b, solve);
    lanes_solve(b);
    lanes_out(b, solve);
  }
}

/* Post-stabilization (rt__stabilize) of the copies with stab[j], whose
 * step's factor is in the lanes (so LDL): each copy's H~ assembled at its
 * new poses (rt__stabilize_assemble), factored in lanes and back into its
 * workspace, as rt_program_factor leaves it, -c solved in lanes, each copy
 * moved (rt__stabilize_move) unless its H~ was not positive definite. The
 * step's factor in the lanes is spent then. */
static void stabilize(rt_batch *b, const unsigned char *stab) {
  unsigned char solve[RT__LANES_MAX] = {0};
  double before[RT__LANES_MAX];
  int fill = -1, pivot[RT__LANES_MAX];
  for (int j = 0; j < b->N; j++) {
    if (!stab[j]) continue;
    (void)rt__stabilize_assemble(b->w[j], &before[j]); /* 1: LDL */
    if (fill < 0) fill = j;
  }
  if (fill < 0) return;
  interleave(b, stab, fill);
  b->bp->factor(b->work, b->temp, pivot);
  deinterleave(b, stab);
  for (int j = 0; j < b->N; j++) solve[j] = stab[j] && pivot[j] == -1;
  lanes_in(b, solve);
  lanes_solve(b);
  lanes_out(b, solve);
  for (int j = 0; j < b->N; j++)
    if (solve[j]) rt__stabilize_move(b->w[j], before[j]);
}

/* step.c's rt__step_end_finish of every copy: the projection's and
 * post-stabilization's solves and factor in lanes for the copies whose
 * step's factor is in them (project, stabilize), the rest copy by copy. */
static void finish(rt_batch *b) {
  int post[RT__LANES_MAX] = {0};
  double error[RT__LANES_MAX];
  unsigned char lanes[RT__LANES_MAX] = {0}, in[RT__LANES_MAX] = {0};
  for (int j = 0; j < b->N; j++) {
    if (b->st[j] != RT_OK) continue;
    post[j] = rt__step_finish_move(b->w[j], &error[j]);
    lanes[j] = post[j] && b->factors[j] && b->lane_pivot[j] == -1;
  }
  for (int j = 0; j < b->N; j++) {
    rt_world *w = b->w[j];
    in[j] = lanes[j] && w->set.project > 0;
    if (post[j] && !lanes[j] && w->set.project > 0) rt__stabilize_project(w, w->set.project, error[j]);
  }
  project(b, error, in);
  for (int j = 0; j < b->N; j++) {
    rt_world *w = b->w[j];
    in[j] = lanes[j] && w->set.stabilize;
    if (post[j] && !lanes[j] && w->set.stabilize) rt__stabilize(w);
  }
  stabilize(b, in);
  for (int j = 0; j < b->N; j++)
    if (b->st[j] == RT_OK) b->st[j] = rt__step_finish_after(b->w[j]);
}

/*---- the step -------------------------------------------------------------*/

/* Whether this step's stages 5 and 6b run in lanes: lane_stages, or with
 * RT_BATCH_LANES_AUTO whether the rows of the copies that step (their
 * rows and contacts as stage 1-3 built them), padded to the most rows of
 * any, fit the budget in lanes. */
static int lanes_this_step(const rt_batch *b) {
  if (b->lane_stages != RT_BATCH_LANES_AUTO) return b->lane_stages;
  int rows = 0;
  for (int j = 0; j < b->N; j++)
    if (b->st[j] == RT_OK && b->w[j]->rows.n > rows) rows = b->w[j]->rows.n;
  return rt__lanes_bytes(b->gn, rows, b->bp->program->nsbody) <= b->lane_budget;
}

/* A copy left out (rt_batch_set_active) takes no part in a step: as for a
 * copy whose begin failed, any status but RT_OK keeps it out of every
 * stage, its lanes inert or computing another copy's values, nothing
 * written back to it; rt_batch_step reports RT_OK for it. */
#define RT__LEFT_OUT RT_ERR_INPUT

/* Every copy stepped in lanes, into b->st. */
static void step_lanes(rt_batch *b) {
  for (int j = 0; j < b->N; j++) b->st[j] = b->out[j] ? RT__LEFT_OUT : rt_world_step_begin(b->w[j]);
  b->in_lanes = lanes_this_step(b);
  factor(b);
  iterate(b);
  block_step(b);
  contacts(b);
  finish(b);
}

/* A batch step stages every copy's step through each stage before the
 * next (the lanes' stages need them all), where a copy stepped alone runs
 * its whole step while its rows and velocities stay in the core's first
 * cache. Where the lanes save less than that costs (small mechanisms: 8
 * buggies stepped in lanes took 5.4 times the first-level cache read
 * misses of 8 stepped one by one, callgrind's cache model, and 0.92-0.97x
 * their time; 8 chains 0.96x; 8 lifts 0.97-1.00x) the copies step one by
 * one, rt_world_step each; RT_BATCH_STEP_MEASURED times both (pick.c) and
 * keeps the faster. Either way each copy's bits are the same. */
#define RT__STEP_MARGIN 1.0

rt_status rt_batch_step(rt_batch *b, rt_status *status) {
  if (b == NULL) return RT_ERR_INPUT;
  /* fewer copies or more: the lanes' cost does not follow them, the
   * copies' does (6 tanks of 8 stepped 1.47-1.50x as fast as 6 scalar
   * steps in lanes, 2 of 8 0.78-0.80x), so the choice is measured again */
  int stepped = 0;
  for (int j = 0; j < b->N; j++) stepped += !b->out[j];
  /* so is it when a copy's settings change (rt_batch_set_settings, or
   * rt_world_set_settings on a copy: iterations, contact passes, the
   * coupled rows change what each kind costs) */
  const long long set = settings_set(b);
  if (stepped != b->stepped || set != b->settings_set) rt__pick_again(&b->pick);
  b->stepped = stepped;
  b->settings_set = set;
  int timed = 0;
  const int lanes =
      b->stepping == RT_BATCH_STEP_MEASURED ? rt__pick_plan(&b->pick, &timed) : b->stepping == RT_BATCH_STEP_LANES;
  const double t0 = timed ? rt__pick_now() : 0.0;
  if (lanes) {
    step_lanes(b);
  } else {
    b->in_lanes = 0;
    for (int j = 0; j < b->N; j++) b->st[j] = b->out[j] ? RT__LEFT_OUT : rt_world_step(b->w[j]);
  }
  b->stepped_lanes = lanes;
  rt_status first = RT_OK;
  for (int j = 0; j < b->N; j++) {
    const rt_status st = b->out[j] ? RT_OK : b->st[j];
    if (first == RT_OK) first = st;
    if (status) status[j] = st;
  }
  if (timed && first == RT_OK) rt__pick_timed(&b->pick, lanes, rt__pick_now() - t0, RT__STEP_MARGIN);
  return first;
}
