/* emit.h -- emitting a program as C: OUT.c (the program object, and in
 * unrolled mode the specialized factor/solve) and OUT.h (its declaration).
 *
 * C decides everything here -- the statements of the unrolled code, their
 * order, every offset, the degree-specialized kernels needed, where
 * functions begin and end -- and hands it to the templates (templates/NAME.tpl,
 * expanded by templates/expand.lua) as read-only tables; the templates only
 * format it (STYLE.md anti-pattern 18).
 *
 * Shape of the unrolled code (PERF-NOTES.md, "Cost of element-level
 * straight-line code" and "Code shapes"): one static function per pivot
 * (split into parts above a statement budget) calls degree-specialized
 * straight-line kernels with literal workspace offsets:
 *   - the node factor, which also leaves the reciprocals 1/D in the
 *     temporary;
 *   - panels of the edge column, TARGET_PANEL_BYTES of rows high (gen/target.h;
 *     narrower at the end of a column), vectorized across the rows, one
 *     lane per row: each forward-substitutes its rows of E with the node
 *     block's l, keeps the result Y, transposed, in the temporary (Y^T),
 *     and overwrites the rows with L = Y D^-1;
 *   - one reduction kernel per block pair (the RSI grouped by target block:
 *     the target's offset is a literal, the element offsets inside the
 *     kernel are constants), vectorized across the columns of each target
 *     row: C[r][c..] -= sum_k L[r][k] * Y^T[k][c..].
 * The solve is grouped the same way (forward with the node blocks' l^-1
 * and D^-1, backward with their l^-T).
 * Vector lanes only ever hold independent results, each computed with the
 * scalar operations of rt.h's reference arithmetic in their order, and each
 * workspace element receives at most one update per pivot, so neither the
 * lanes nor the grouping change a result bit. The vector kernels are
 * written once per row of the target table (gen/target.h), under its
 * preprocessor condition; the plan is the same for all of them.
 *
 * Pipelining: the node factor of pivot p + 1 is part of pivot p's function,
 * as early as its node block is final (see plan_factor in emit.c).
 *
 * The temporary of unrolled code is laid out as rtprog.h describes: two
 * slots for the reciprocals 1/D of even and odd pivots, then Y^T.  */
#ifndef LDLPGS_GEN_EMIT_H
#define LDLPGS_GEN_EMIT_H

#include <stddef.h>

#include "arena.h"
#include "diag.h"
#include "program.h"
#include "rtprog.h"
#include "target.h"

typedef enum emit_mode { EMIT_UNROLLED = 0, EMIT_TABLES } emit_mode;

#define EMIT_DEFAULT_BUDGET 200 /* statements per generated function */
/* widest panel the plan may use (rows): a panel of floats */
#define EMIT_MAX_LANES (TARGET_PANEL_BYTES / (int)sizeof(float))
#define EMIT_IDENT_MAX 80
/* The identifier no constraint's takes (pivots.tpl): the tables' base
 * before the first pivot and constraint, and the name of a program's first
 * solve, assembly and sweep function. */
#define EMIT_START_ID "ldlpgs_start"

typedef struct emit_options {
  emit_mode mode;            /* default EMIT_UNROLLED */
  rt_precision precision;    /* default RT_FLOAT */
  const char *prefix;        /* C identifier prefix; NULL = from the mechanism name */
  const char *header;        /* file name the .c includes, e.g. "track.h" */
  const char *templates_dir; /* NULL = the templates built into ldlgen */
  const char *version;       /* generator version in the banner */
  int budget;                /* statements per function; <= 0 = EMIT_DEFAULT_BUDGET */
  int batch;                 /* unrolled only: lanes of a batch program
                                (EMIT_BATCH_LANES_OK), 0 = the scalar program */
  const char *mechanism_c;   /* the mechanism part in files of its own (ldlgen
                                --mechanism-out): their names, e.g. "track_mech.c" */
  const char *mechanism_h;   /*   and "track_mech.h"; NULL = in the program's files */
} emit_options;

/* The lane counts of a batch program (ldlgen --batch N, rt_lanes.h). */
#define EMIT_BATCH_LANES_OK(n) ((n) == 4 || (n) == 8 || (n) == 16)

void emit_default_options(emit_options *o);
/* "unrolled"/"tables" and "float"/"double"; -1 if unknown. */
int emit_parse_mode(const char *s);
int emit_parse_precision(const char *s);
/* 1 if s is a C identifier of at most EMIT_IDENT_MAX characters. */
int emit_valid_ident(const char *s);

/*---- the plan: what the unrolled code does -----------------------------------*/

typedef enum emit_kernel_kind {
  EK_FACTOR_NODE,  /* dense LDL^T of a d x d node block, 1/D (rt.h step 1)     (d) */
  EK_NODE_FORWARD, /* x = l^-1 x with a factored d x d node block (solve)        (d) */
  EK_NODE_DIAG,    /* x = D^-1 x with a factored d x d node block (solve)        (d) */
  EK_NODE_BACKWARD,/* x = l^-T x with a factored d x d node block (solve)        (d) */
  EK_PANEL,        /* n rows of E: Y^T out, E = Y D^-1 in place (step 2)        (m = lanes >= n, n, d) */
  EK_REDUCE_TRI,   /* lower triangle of C (m x m) -= L Y^T, L, Y m x d (step 3) (m, d) */
  EK_REDUCE,       /* C (m x n) -= L Y^T, L m x d, Y n x d (step 3)             (m, n, d) */
  EK_FORWARD,      /* xq (m) -= L xp, L m x d                                   (m, d) */
  EK_BACKWARD_SET, /* s (d) = L^T xq, L m x d, summed over r in order           (m, d) */
  EK_BACKWARD_ADD, /* s (d) = s + L^T xq, in order                              (m, d) */
  EK_SUBTRACT,     /* x (d) -= s                                                (d) */
  EK_NKINDS
} emit_kernel_kind;

typedef struct emit_kernel {
  emit_kernel_kind kind;
  int m, n, d; /* unused dimensions are 0 */
} emit_kernel;

typedef enum emit_op_kind {
  EO_SECTION,     /* a pivot (or a part of it) begins: comment only */
  EO_FACTOR_NODE, /* kernel(w + a, t + b): N at a, its reciprocals at
                     temporary offset b; n = 1: deferred (failure reported at
                     the end of the function), else immediate */
  EO_PANEL,       /* kernel(w + a, t + rinv, w + b, t + c): N at a, its
                     reciprocals at temporary offset rinv, the panel's n rows of E at b
                     (the kernel's lanes may be more: idle),
                     their columns of Y^T at temporary offset c */
  EO_REDUCE,      /* kernel(w + a, w + b, t + c): target block at a, rows of L
                     (the target's block row) at b, columns of Y^T at c */
  EO_FORWARD,     /* kernel(w + a, x + b, x + c): L at a, x of the pivot at b, row block at c */
  EO_NODE,        /* kernel(w + a, x + b): a node kernel (forward, diagonal,
                     backward) of the pivot's node block at a, its x at b */
  EO_BACKWARD,    /* kernel(w + a, x + c, s) (set for the first block, add after) */
  EO_SUBTRACT,    /* kernel(x + b, s) */
  EO_NKINDS
} emit_op_kind;

typedef struct emit_op {
  emit_op_kind kind;
  int kernel;      /* index in plan kernels, or -1 */
  int pivot;       /* the pivot eliminated or solved */
  int a, b, c, n;  /* offsets and counts, per kind (above) */
  int rinv;        /* panels: temporary offset of the reciprocals */
  int row, col;    /* pivots of the block touched: reductions: target block
                      (row, col), col == row for a node block; forward and
                      backward: row = the block's row pivot; else -1 */
  int fill;        /* reductions: the target block is fill-in */
} emit_op;

typedef enum emit_phase { EP_FACTOR, EP_FORWARD, EP_BACKWARD, EP_NPHASES } emit_phase;

typedef struct emit_fn {
  emit_phase phase;
  int op_adr, op_num; /* its ops: plan ops[op_adr .. op_adr + op_num) */
  int statements;     /* ops other than sections */
  int first_pivot, last_pivot; /* in processing order */
  int part, nparts;   /* factor: part (1-based) of a pivot split over functions */
  int status;         /* 1 if it factors a node block: it returns -1, or the
                         pivot whose node block is not positive definite */
  int fail_pivot;     /* the pivot of a deferred node factor (reported at
                         the end of the function), or -1 */
} emit_fn;

typedef struct emit_plan {
  emit_kernel *kernels; /* sorted by kind, m, n, d; exactly those used */
  int nkernel;
  emit_op *ops;
  int nop;
  emit_fn *fns;         /* factor functions in call order, then forward,
                           diagonal, backward */
  int nfn;
  int budget;
  int lanes;            /* panel height (rows): TARGET_PANEL_BYTES of scalars */
  int et_ld;            /* row stride of Y^T in the temporary */
  int inline_kernels;   /* 1: the factor makes at most EMIT_INLINE_CALLS
                           kernel calls, and its kernels are static inline */
} emit_plan;

/* A factor of at most this many kernel calls has its kernels declared
 * `static inline` (a hint; rt_kernels.h's RT_KERNELS_INLINE, a batch
 * program's own kernels): the compiler then inlines the short ones, and a
 * block one kernel stores and the next loads -- a node block reduced, then
 * factored -- stays in a register. That shortens a small factor whose
 * pivots form a chain of dependent divisions (make bench-batch's factor
 * times, this repository's Intel host: the sample chain's scalar double
 * factor -14 % at the baseline flags, -4 to -10 % with ARCH=avx512's, its
 * double x8 batch -12 %; at the baseline flags the car's -3 %, the
 * stewart platform's -6 % (101 calls), the buggy's -1.5 % (67), for about
 * 15 % more code). A large factor hides that latency with other work, and
 * the hint only grew its code (the lift's scalar object by 37 %, 489
 * calls, at the same speed; multi_wheel's, 205, -1 %). */
#define EMIT_INLINE_CALLS 128

/* Plans the unrolled code of a program (arrays from rtprog_build): the ops
 * of every pivot, the reductions decoded from the RSI -- each pivot's RSI
 * must be the concatenation, in its order, of the block-pair patterns the
 * layout implies; anything else is an internal error -- the kernels, and
 * the functions: the solve's cut before pivots whose names are anchors
 * (chunk.h), or, where kept (KEEP_CUT_KINDS arrays over the constraints,
 * program_kept_chunk; NULL or a NULL entry: none) knows a previous
 * program's functions, where that program's were. */
gen_status emit_plan_build(arena *a, const rt_program *prog, int budget, const int *const *kept, emit_plan *out,
                           diag_list *d);

/* Every kernel a plan of the given precision can use, sorted like a plan's
 * (kind, m, n, d): what rt_kernels.h holds. Writes at most cap and returns
 * the count (EMIT_ALL_KERNELS_MAX is enough). */
#define EMIT_ALL_KERNELS_MAX 1024
int emit_all_kernels(rt_precision precision, emit_kernel *out, int cap);

/* The C name of a kernel ("reduce_3x5_d6"). */
void emit_kernel_name(const emit_kernel *k, char *buf, size_t size);
/* The kind part of a kernel's name ("panel", "reduce", ...). */
const char *emit_kernel_kind_name(emit_kernel_kind kind);

/*---- output -------------------------------------------------------------------*/

typedef struct emit_output {
  char *c, *h;   /* malloc'ed texts */
  char *mc, *mh; /* the mechanism part's files, with o->mechanism_c (else NULL) */
  size_t c_len, h_len, mc_len, mh_len;
} emit_output;

/* Renders OUT.c and OUT.h for a built program: the program, then the
 * mechanism (below), after the line EMIT_MECHANISM_MARK in both files;
 * with o->mechanism_c, the mechanism in files of its own instead (mc, mh:
 * the same part after the same mark, mh including OUT.h), and OUT.c and
 * OUT.h the program alone, which masses, anchors and inequality
 * constraints then leave byte for byte the same.
 * With o->batch = N (unrolled mode only; GEN_ERR_USAGE otherwise) the
 * program part is the batch program of N copies in vector lanes: the same
 * plan, every operation on rt_lanes.h's lanes, its kernels in the file, the
 * entry points ID_batch_factor and ID_batch_solve; ID_program keeps the
 * tables, its scalar entry points NULL (the interpreter). */
gen_status emit_program(const program *p, const emit_options *o, emit_output *out, diag_list *d);
void emit_output_free(emit_output *out);

/* Renders rt_kernels.h (templates/kernels.h.tpl): every kernel of
 * emit_all_kernels for both precisions, which unrolled programs include.
 * Only o->templates_dir and o->version are read. *text is malloc'ed. */
gen_status emit_kernels_header(const emit_options *o, char **text, size_t *len, diag_list *d);

/*---- the mechanism (emit_world.c) ------------------------------------------------
 *
 * Generated files also hold the mechanism the program was built for, so that
 * a game needs nothing else: in OUT.h the enums ID_BODY_<NAME> and
 * ID_JOINT_<NAME> (ID the prefix and NAME the body's or constraint's name,
 * upper-cased, every character outside [A-Z0-9_] made '_'), ID_BODY_COUNT
 * and ID_JOINT_COUNT, the ground plane's macros, and declarations of
 * ID_desc (rt_world_desc: gen/mechdesc.c's description, what ldlsim
 * steps), ID_settings (the file's settings) and ID_create; in OUT.c their
 * definitions, every number written so that it reads back exactly. The
 * program part before the mark does not depend on this part: inequality
 * constraints still leave it byte for byte the same. */

#define EMIT_MECHANISM_MARK "/*---- the mechanism "

typedef struct emit_names {
  char **body;  /* MACRO_BODY_<NAME> of each body          (nbody) */
  char **joint; /* MACRO_JOINT_<NAME> of each constraint   (ncons) */
} emit_names;

/* The C names of m's bodies and constraints under the upper-case prefix
 * macro, in a. Two names that coincide, or a name that would be a
 * MACRO_BODY_COUNT or MACRO_JOINT_COUNT, are errors at the later one's line
 * naming both (GEN_ERR_INPUT). */
gen_status emit_world_names(arena *a, const mech *m, const char *macro, emit_names *out, diag_list *d);

struct lua_State;
/* Pushes the view of the mechanism part (P.world) for the templates. */
void emit_world_push(struct lua_State *L, const mech *m, const emit_names *names);

/* Pushes the plan of program r's generated sweep (P.sweep, emit_sweep.c)
 * for the templates -- sbody_fixed: each solver body's fixed flag;
 * cons_id: each constraint's C identifier (its pivot's, the X_ bases of
 * pivots.tpl); kept: where a previous program's parts began (per
 * constraint, as emit_plan_build's; NULL: not known) -- or false when the
 * program gets none (a constraint on one body twice). Returns whether it
 * pushed a plan. */
int emit_sweep_push(struct lua_State *L, const rt_program *r, const unsigned char *sbody_fixed,
                    const char *const *cons_id, const int *kept);

/* The shortest C floating constant that reads back as v ("0.1", "-0.0",
 * "1e+300"); HUGE_VAL and -HUGE_VAL (math.h) for infinities. */
void emit_number(double v, char *buf, size_t size);

#endif
