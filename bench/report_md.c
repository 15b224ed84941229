/* report_md.c -- the Markdown report (see report.h). */
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "targets.h"

/* Main-table columns: method name and precision. */
static const struct {
  const char *name, *prec, *head;
} main_cols[] = {
    {"unrolled", "double", "unrolled d"},
    {"unrolled", "float", "unrolled f"},
    {"tables (interpreter)", "double", "tables d"},
    {"tables (interpreter)", "float", "tables f"},
    {"SuiteSparse LDL+AMD", "double", "LDL+AMD"},
    {"CHOLMOD simplicial", "double", "CHOLMOD simpl."},
    {"CHOLMOD supernodal", "double", "CHOLMOD supern."},
    {"LAPACK dpotrf (dense)", "double", "dpotrf"},
    {"LAPACK spotrf (dense)", "float", "spotrf"},
};
enum { NCOLS = (int)(sizeof main_cols / sizeof main_cols[0]) };

static void us(FILE *f, double s) {
  const double u = s * 1e6;
  if (u < 10)
    fprintf(f, "%.2f", u);
  else if (u < 100)
    fprintf(f, "%.1f", u);
  else
    fprintf(f, "%.0f", u);
}

static void us_range(FILE *f, bt_stat s) {
  us(f, s.med);
  fputs(" (", f);
  us(f, s.lo);
  fputs("-", f);
  us(f, s.hi);
  fputs(")", f);
}

static void ratio_range(FILE *f, bt_stat s) { fprintf(f, "%.2fx (%.2f-%.2f)", s.med, s.lo, s.hi); }

/* Peak GFLOP/s in double or single: the SSE2 scalar baseline (vector = 0)
 * or the best vector FMA available (vector = 1); the max over the samples. */
static double peak_of(const br_report *r, int vector, int single) {
  if (!vector) return r->peak[BP_SSE2_SCALAR].hi[single];
  double best = 0;
  for (int i = 0; i < BP_COUNT; i++)
    if (r->peak[i].available && r->peak[i].hi[single] > best) best = r->peak[i].hi[single];
  return best;
}

/* A sample's name; a mechanism file from elsewhere also gets its path. */
static void write_label(FILE *f, const br_mech *m) {
  char expected[160];
  snprintf(expected, sizeof expected, "mechanisms/%s.lua", m->name);
  if (m->series || strcmp(m->path, expected) == 0)
    fputs(m->name, f);
  else
    fprintf(f, "%s (`%s`)", m->name, m->path);
}

void br_write_main_table(FILE *f, const br_report *r) {
  fprintf(f, "Numeric factorization of H~ at the initial pose, µs per call (median over %d runs); "
             "%s, %s, 1 thread. Measured %s on sources %s.\n\n",
          r->runs, r->cpu, r->compiler, r->date, r->revision);
  fputs("| sample | dim |", f);
  for (int c = 0; c < NCOLS; c++) fprintf(f, " %s |", main_cols[c].head);
  fputs(" LDL / unrolled d | fastest library / unrolled d |\n|---|--:|", f);
  for (int c = 0; c < NCOLS + 2; c++) fputs("--:|", f);
  fputs("\n", f);
  for (int i = 0; i < r->nmech; i++) {
    const br_mech *m = &r->mech[i];
    if (m->error) continue;
    fputs("| ", f);
    write_label(f, m);
    fprintf(f, " | %d |", m->dim);
    for (int c = 0; c < NCOLS; c++) {
      const int k = br_find(m, main_cols[c].name, main_cols[c].prec);
      fputs(" ", f);
      if (k >= 0 && m->method[k].ok)
        us(f, m->method[k].factor.med);
      else
        fputs("--", f);
      fputs(" |", f);
    }
    const int ldl = br_find(m, "SuiteSparse LDL+AMD", "double");
    if (ldl >= 0 && m->ud >= 0 && m->method[ldl].ok)
      fprintf(f, " %.2fx |", m->method[ldl].vs_ud.med);
    else
      fputs(" -- |", f);
    if (m->fastest_lib >= 0 && m->ud >= 0)
      fprintf(f, " %.2fx (%s) |\n", m->lib_vs_ud.med, m->method[m->fastest_lib].name);
    else
      fputs(" -- |\n", f);
  }
}

static void write_header(FILE *f, const br_report *r) {
  fprintf(f, "# ldlpgs benchmark results\n\n");
  fprintf(f, "- date: %s\n- machine: %s, %d logical CPUs (all figures single-threaded)\n", r->date, r->cpu, r->ncpu);
  fprintf(f, "- sources: %s\n", r->revision);
  fprintf(f, "- compiler: %s; generated programs compiled with `%s`\n", r->compiler, r->cflags);
  if (r->avx2_flags[0] && r->avx2_cpu)
    fprintf(f, "- AVX2 build: the samples' generated programs also compiled with `%s` added (same "
               "-ffp-contract=off, no FMA: the generated code's 32-byte vector kernels, bitwise identical "
               "results), measured as the extra method \"unrolled (AVX2 build)\"; the baseline build stays "
               "the primary verdict\n",
            r->avx2_flags);
  else if (r->avx2_flags[0])
    fprintf(f, "- AVX2 build (`%s`): not measured, this CPU has no AVX2\n", r->avx2_flags);
  fprintf(f, "- libraries: %s; BLAS: %s (OPENBLAS_NUM_THREADS=1)\n", r->libs, r->blas);
  fprintf(f, "- protocol: warm-up, then per method and run the median of %d batches of about %.1f ms; "
             "%d runs; figures are the median over runs (min-max over runs in parentheses). Ratios are "
             "formed within each run, all methods in one process, method order rotated between runs. "
             "Factor times of in-place methods (the generated programs, LAPACK) have the copy of their "
             "input subtracted; solve times include copying b in.\n",
          r->batches, r->batch_s * 1e3, r->runs);
  fprintf(f, "- flops: *block* = the talk's convention (per pivot of degree d and column height h: "
             "d^3/6 + h d^2 + d h(h+1)/2 multiply-adds, x2); *CHOLMOD* = sum over columns of |L(:,j)|^2 "
             "on the factor pattern each method stores (our block pattern with dense blocks, LDL's and "
             "CHOLMOD's own L, the dense triangle for LAPACK).\n");
  fprintf(f, "- whole measurement: %.1f s\n\n", r->wall_s);
}

static void write_targets(FILE *f, const br_report *r) {
  br_target t[64];
  const int n = br_targets(r, t, 64);
  fputs("## Targets (issue 5)\n\n```\n", f);
  for (int i = 0; i < n; i++) fprintf(f, "%-12s %s\n", br_verdict_name(t[i].verdict), t[i].text);
  fputs("```\n\n", f);
}

/* The -mavx2 build against the baseline build and the libraries. */
static void write_avx2(FILE *f, const br_report *r) {
  if (!r->avx2_flags[0] || !r->avx2_cpu) return;
  fprintf(f, "## AVX2 build\n\nThe same generated files compiled with `%s` added (GCC vector extensions at "
             "32 bytes under __AVX__; still -ffp-contract=off, no FMA). Factor µs, median over runs; "
             "*baseline / AVX2* = ratio of those medians; *LDL / AVX2*, *fastest library / AVX2* = median "
             "(min-max) of the per-run ratios; *bitwise* = factor and solve bitwise identical to the "
             "baseline build's.\n\n",
          r->avx2_flags);
  fputs("| sample | prec | unrolled | unrolled (AVX2 build) | baseline / AVX2 | LDL / AVX2 | fastest library / "
        "AVX2 | bitwise |\n|---|---|--:|--:|--:|--:|--:|---|\n",
        f);
  for (int i = 0; i < r->nmech; i++) {
    const br_mech *m = &r->mech[i];
    if (m->error) continue;
    for (int p = 0; p < 2; p++) {
      const int b = p == 0 ? m->ud : m->uf, a = p == 0 ? m->ud_avx2 : m->uf_avx2;
      if (b < 0 || a < 0) continue;
      const br_method *mb = &m->method[b], *ma = &m->method[a];
      fputs("| ", f);
      write_label(f, m);
      fprintf(f, " | %s | ", ma->precision);
      if (!mb->ok || !ma->ok) {
        fputs("failed | | | | | |\n", f);
        continue;
      }
      us(f, mb->factor.med);
      fputs(" | ", f);
      us(f, ma->factor.med);
      fprintf(f, " | %.2fx | ", mb->factor.med / ma->factor.med);
      if (ma->ldl_vs.med > 0)
        ratio_range(f, ma->ldl_vs);
      else
        fputs("--", f);
      fputs(" | ", f);
      if (m->fastest_lib >= 0)
        ratio_range(f, ma->lib_vs);
      else
        fputs("--", f);
      fprintf(f, " | %s |\n", ma->bitwise ? "identical" : "**DIFFERS**");
    }
  }
  fputs("\n", f);
}

static void write_details(FILE *f, const br_report *r) {
  fputs("## Every method on every sample\n\n", f);
  fprintf(f, "GFLOP/s from each method's CHOLMOD-convention flops, and as %% of the single-core peak in "
             "the method's precision: *scalar* = SSE2 scalar mul+add (%.1f / %.1f GFLOP/s double / float, "
             "what baseline -O2 code without vectorization can reach), *machine* = best vector FMA "
             "(%.1f / %.1f); both the max over the peak samples. The generated programs also get GFLOP/s in the block convention.\n\n",
          peak_of(r, 0, 0), peak_of(r, 0, 1), peak_of(r, 1, 0), peak_of(r, 1, 1));
  for (int i = 0; i < r->nmech; i++) {
    const br_mech *m = &r->mech[i];
    if (m->error) {
      fprintf(f, "### %s\n\nnot measured: %s\n\n", m->path, m->error);
      continue;
    }
    fprintf(f, "### %s (`%s`)\n\n", m->name, m->path);
    fprintf(f, "dim %d, %d solver constraints (%d shards), density %.1f%%, %lld structural nonzeros; "
               "program: %.0f block flops (order best, %s)\n\n",
            m->dim, m->ncons, m->shards, 100 * m->density, m->nnz, m->flops_block, m->heuristic);
    fputs("| method | prec | factor µs | solve µs | factor / unrolled d | flops block | flops CHOLMOD | "
          "nnz(L) | GFLOP/s | GFLOP/s block | % scalar peak | % machine peak | residual |\n"
          "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
          f);
    for (int k = 0; k < m->nmethod; k++) {
      const br_method *o = &m->method[k];
      fprintf(f, "| %s | %s |", o->name, o->precision);
      if (!o->ok) {
        fputs(" failed | | | | | | | | | | |\n", f);
        continue;
      }
      const int single = strcmp(o->precision, "float") == 0;
      const double g = o->flops_chol / o->factor.med * 1e-9;
      fputs(" ", f);
      us_range(f, o->factor);
      fputs(" | ", f);
      us_range(f, o->solve);
      fputs(" | ", f);
      if (m->ud >= 0)
        ratio_range(f, o->vs_ud);
      else
        fputs("--", f);
      fputs(" | ", f);
      if (o->flops_block > 0)
        fprintf(f, "%.0f", o->flops_block);
      else
        fputs("--", f);
      fprintf(f, " | %.0f | %lld | %.2f | ", o->flops_chol, o->lnz, g);
      if (o->flops_block > 0)
        fprintf(f, "%.2f", o->flops_block / o->factor.med * 1e-9);
      else
        fputs("--", f);
      fprintf(f, " | %.1f%% | %.1f%% | %.1e |\n", 100 * g / peak_of(r, 0, single), 100 * g / peak_of(r, 1, single),
              o->residual);
    }
    fputs("\n", f);
  }
}

static void write_orders(FILE *f, const br_report *r) {
  fputs("## Orderings\n\nBlock flops (talk convention) and fill-in blocks of each ordering of the constraint "
        "graph (the block graph of H, after shattering), all evaluated with ldlgen's symbolic elimination. "
        "AMD = SuiteSparse amd_order, METIS = METIS_NodeND (vertex weights = block sizes), both applied to "
        "that same graph.\n\n",
        f);
  fputs("| sample | constraints | natural | mda | meca | best | AMD | METIS | best / AMD | best / METIS |\n"
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
        f);
  for (int i = 0; i < r->nmech; i++) {
    const br_mech *m = &r->mech[i];
    if (m->error || !m->has_orders) continue;
    fprintf(f, "| %s | %d |", m->name, m->ncons);
    for (int k = 0; k < BO_COUNT; k++) {
      const bo_row *o = &m->order[k];
      if (!o->ok)
        fputs(" -- |", f);
      else
        fprintf(f, " %.0f (%d fill)%s%s |", o->flops, o->fill, k == BO_BEST ? " " : "", k == BO_BEST ? o->detail : "");
    }
    for (int k = BO_AMD; k <= BO_METIS; k++)
      if (m->order[k].ok && m->order[BO_BEST].ok)
        fprintf(f, " %.3f |", m->order[BO_BEST].flops / m->order[k].flops);
      else
        fputs(" -- |", f);
    fputs("\n", f);
  }
  fputs("\n", f);
}

static void write_peak(FILE *f, const br_report *r) {
  fprintf(f, "## Single-core peak\n\nThroughput kernels (14 independent chains: a = a*m + c fused, 2 flops per lane, "
             "or for mul+add 8 chains a = a*m and 6 chains a = a + c, 1 flop per lane each), GFLOP/s: median (min-max) of %d samples, half taken before and half after the other "
             "measurements. The VM shares its host, so a sample can only come out low; the %% of peak figures "
             "above use the max.\n\n| kernel | double | float |\n|---|--:|--:|\n",
          2 * r->runs);
  for (int i = 0; i < BP_COUNT; i++) {
    const bp_result *p = &r->peak[i];
    if (!p->available) {
      fprintf(f, "| %s | not supported | not supported |\n", p->name);
      continue;
    }
    fprintf(f, "| %s | %.1f (%.1f-%.1f) | %.1f (%.1f-%.1f) |\n", p->name, p->gflops[0], p->lo[0], p->hi[0], p->gflops[1],
            p->lo[1], p->hi[1]);
  }
  fputs("\n", f);
}

static void write_ldlgen(FILE *f, const br_report *r) {
  fputs("## ldlgen\n\nLoad (sandboxed Lua) and symbolic phase (shattering, orderings, layout, RSI) medians; "
        "generated unrolled files, their gcc CPU time and object size.\n\n"
        "| sample | load ms | symbolic ms | file | lines | compile s | text KB | data KB | compile s AVX2 build | "
        "text KB AVX2 build |\n"
        "|---|--:|--:|---|--:|--:|--:|--:|--:|--:|\n",
        f);
  for (int i = 0; i < r->nmech; i++) {
    const br_mech *m = &r->mech[i];
    if (m->error) continue;
    if (m->ncompile == 0)
      fprintf(f, "| %s | %.2f | %.2f | (not compiled) | | | | | | |\n", m->name, m->load_s * 1e3, m->symbolic_s * 1e3);
    for (int c = 0; c < m->ncompile; c++) {
      const br_compile *x = &m->compile[c];
      fprintf(f, "| %s | %.2f | %.2f | `%s` | %ld | %.2f | %.1f | %.1f |", m->name, m->load_s * 1e3,
              m->symbolic_s * 1e3, x->source, x->lines, x->compile_s, x->text / 1024.0, x->data / 1024.0);
      if (x->text_avx2 > 0)
        fprintf(f, " %.2f | %.1f |\n", x->compile_avx2_s, x->text_avx2 / 1024.0);
      else
        fputs(" -- | -- |\n", f);
    }
  }
  fputs("\n", f);
}

static void write_series(FILE *f, const br_report *r) {
  fputs("## Scaling\n\nTracks of n plates and scissor lifts of n stages (the samples with PLATES / STAGES set). "
        "Factor times: unrolled double vs SuiteSparse LDL+AMD, µs, median (min-max) over runs.\n\n"
        "| series | n | constraints | dim | load ms | symbolic ms | lines | compile s | text KB | block flops "
        "| AMD flops | METIS flops | unrolled d µs | LDL+AMD µs | LDL / unrolled d |\n"
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
        f);
  for (int i = 0; i < r->nseries; i++) {
    const br_mech *m = &r->series[i];
    if (m->error) {
      fprintf(f, "| %s | %d | not measured: %s |\n", m->series, m->param, m->error);
      continue;
    }
    const br_compile *c = m->ncompile ? &m->compile[0] : NULL;
    fprintf(f, "| %s | %d | %d | %d | %.2f | %.2f | ", m->series, m->param, m->ncons, m->dim, m->load_s * 1e3,
            m->symbolic_s * 1e3);
    if (c)
      fprintf(f, "%ld | %.2f | %.1f | ", c->lines, c->compile_s, c->text / 1024.0);
    else
      fputs("-- | -- | -- | ", f);
    fprintf(f, "%.0f | %.0f | %.0f | ", m->flops_block, m->order[BO_AMD].flops, m->order[BO_METIS].flops);
    const int ldl = br_find(m, "SuiteSparse LDL+AMD", "double");
    if (m->ud >= 0 && m->method[m->ud].ok)
      us_range(f, m->method[m->ud].factor);
    else
      fputs("--", f);
    fputs(" | ", f);
    if (ldl >= 0 && m->method[ldl].ok)
      us_range(f, m->method[ldl].factor);
    else
      fputs("--", f);
    fputs(" | ", f);
    if (ldl >= 0 && m->ud >= 0 && m->method[ldl].ok)
      ratio_range(f, m->method[ldl].vs_ud);
    else
      fputs("--", f);
    fputs(" |\n", f);
  }
  fputs("\n", f);
}

/* The full-step table (fullstep.c). */
void br_write_full_step(FILE *f, const br_report *r) {
  fputs("## Full step\n\nAssembly + factor + N-1 PGS iterations + block Gauss-Seidel step, against N PGS "
        "iterations alone (N = 10), single-threaded and with the factorization on a second thread: the talk's "
        "step, without post-stabilization. A mechanism that asks for post-stabilization (its setting "
        "`stabilize`) also gets its step with it, on two threads: the second assembly and factorization run on "
        "the stepping thread after integration, and PGS has no such pass.\n\n"
        "| sample | N | LDL-PGS 1 thread µs | LDL-PGS 2 threads µs | PGS µs | 2 threads / PGS | "
        "2 threads + post-stabilization µs | / PGS |\n"
        "|---|--:|--:|--:|--:|--:|--:|--:|\n",
        f);
  for (int i = 0; i < r->nmech; i++) {
    const br_mech *m = &r->mech[i];
    if (m->error) continue;
    if (!m->step.measured) {
      fprintf(f, "| %s | %d | not measured (no world) | | | | | |\n", m->name, m->step.iterations);
      continue;
    }
    fprintf(f, "| %s | %d | ", m->name, m->step.iterations);
    us_range(f, m->step.ldlpgs_1thread);
    fputs(" | ", f);
    us_range(f, m->step.ldlpgs_2threads);
    fputs(" | ", f);
    us_range(f, m->step.pgs);
    fprintf(f, " | %.2fx | ", m->step.ldlpgs_2threads.med / m->step.pgs.med);
    if (m->step.stabilized) {
      us_range(f, m->step.ldlpgs_stab);
      fprintf(f, " | %.2fx |\n", m->step.ldlpgs_stab.med / m->step.pgs.med);
    } else {
      fputs("-- | -- |\n", f);
    }
  }
  if (r->corun.measured)
    fprintf(f,
            "\nA second busy thread on this machine slows the first by %.2fx (bench/corun.c: one fixed kernel, "
            "%.1f µs alone, %.1f µs while a copy runs on another thread). %s\n",
            r->corun.slowdown, r->corun.alone_us, r->corun.beside_us,
            r->corun.slowdown < 1.1
                ? "The CPUs do not share a core's throughput, so what the 2-thread column loses is the hand-off "
                  "and the data that moves between the cores (runtime/worker.c), not the second thread's work."
                : "They share a core's throughput: the factor thread's work slows the stages it runs beside.");
  fputs("\n", f);
}

/* The precision presets and the block solvers (precision.c). */
void br_write_precision(FILE *f, const br_report *r) {
  fputs("The block system H~ x = b at each sample's initial pose, for the random b every method of the factor "
        "tables solves: relative residual "
        "||H~ x - b|| / ||b|| in double. *float* and *accurate* solve once with the float and the double "
        "program; *fast* adds one refinement step (a residual in double from J and the masses, matrix-free, and "
        "a solve with the float factor: `rt_program_solve_refined`); *refined* goes on until the residual stops "
        "falling. PCR (`rt_program_solve_pcr`: matrix-free, Jacobi-preconditioned, from zero) runs to the double "
        "program's residual (at least 1e-12) and to 1e-6, the world's default.\n\n"
        "The block step's right-hand side R - J V is nearly consistent (in the range of J); the last three "
        "columns repeat float, fast and accurate for b = J v with v random on the moving bodies, which leaves "
        "H~'s near-null space alone.\n\n"
        "| sample | dim | float | fast | refined (steps) | steps to 1e-6 | accurate | PCR iterations to accurate's "
        "residual | to 1e-6 | float, b = J v | fast | accurate |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
        f);
  for (int i = 0; i < r->nmech; i++) {
    const br_mech *m = &r->mech[i];
    const br_prec *p = &m->prec;
    if (m->error || !p->measured) continue;
    fputs("| ", f);
    write_label(f, m);
    fprintf(f, " | %d | %.1e | %.1e | %.1e (%d) | ", m->dim, p->res_float, p->res_fast, p->res_refined,
            p->refine_steps);
    if (p->refine_to_1e6 >= 0)
      fprintf(f, "%d", p->refine_to_1e6);
    else
      fputs("never", f);
    fprintf(f, " | %.1e | %d%s | %d%s | %.1e | %.1e | %.1e |\n", p->res_double, p->pcr_iterations,
            p->pcr_iterations >= p->pcr_cap ? " (cap)" : "", p->pcr_iterations_1e6,
            p->pcr_iterations_1e6 >= p->pcr_cap ? " (cap)" : "", p->res_float_jv, p->res_fast_jv, p->res_double_jv);
  }
  fputs("\nTheir cost, µs per call (median and min-max over the runs): factor + solve; *fast*: factor + solve + one "
        "refinement step; PCR: the whole solve (no factor). The assembly of H~ (`rt_assemble`, float), which "
        "every LDL solve needs, apart.\n\n"
        "| sample | float | fast | fast / float | accurate | PCR to accurate's residual | PCR to 1e-6 | "
        "assembly | fast / float, assembly included |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|\n",
        f);
  for (int i = 0; i < r->nmech; i++) {
    const br_mech *m = &r->mech[i];
    const br_prec *p = &m->prec;
    if (m->error || !p->measured) continue;
    fputs("| ", f);
    write_label(f, m);
    fputs(" | ", f);
    us_range(f, p->float_s);
    fputs(" | ", f);
    us_range(f, p->fast_s);
    fputs(" | ", f);
    ratio_range(f, p->fast_vs_float);
    fputs(" | ", f);
    us_range(f, p->double_s);
    fputs(" | ", f);
    us_range(f, p->pcr_s);
    fputs(" | ", f);
    us_range(f, p->pcr_1e6_s);
    fputs(" | ", f);
    us_range(f, p->assemble_f);
    fputs(" | ", f);
    ratio_range(f, p->fast_vs_float_asm);
    fputs(" |\n", f);
  }
  int steps = 0;
  for (int i = 0; i < r->nmech && !steps; i++) steps = r->mech[i].prec.sim_steps;
  fprintf(f, "\nEach preset in a world, %d steps from the initial pose (ground and body contacts every step, "
             "10 iterations): the largest joint error over the run, m, and the time a step takes, µs (interleaved "
             "batches, each after an untimed step of its world, contacts of the initial pose, single-threaded). "
             "PCR: the block step by PCR on the "
             "program's solver view (its shards); *no program*: a world created without one (every body whole), "
             "which solves its block with PCR; their mean iterations a step in brackets.\n\n"
             "| sample | float | fast | accurate | PCR | no program | µs float | fast | accurate | PCR | no program "
             "| fast / float |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
          steps);
  for (int i = 0; i < r->nmech; i++) {
    const br_mech *m = &r->mech[i];
    const br_prec *p = &m->prec;
    if (m->error || !p->measured) continue;
    fputs("| ", f);
    write_label(f, m);
    for (int k = 0; k < BR_PREC_SIMS; k++) {
      if (p->sim_exploded[k])
        fprintf(f, " | exploded (%.2g)", p->sim_err[k]);
      else
        fprintf(f, " | %.2g", p->sim_err[k]);
    }
    for (int k = 0; k < BR_PREC_SIMS; k++) {
      fputs(" | ", f);
      us(f, p->step_s[k].med);
      if (k >= 3) fprintf(f, " (%.0f)", p->sim_pcr_iterations[k - 3]);
    }
    fputs(" | ", f);
    ratio_range(f, p->step_fast_vs_float);
    fputs(" |\n", f);
  }
  fputs("\n", f);
}

/* The whole step against ODE and MuJoCo (fullstep.c, stepper.h): one row
 * per mechanism and method. */
void br_write_peers(FILE *f, const br_report *r) {
  const char *cg = "";
  for (int i = 0; i < r->nmech && !cg[0]; i++) cg = r->mech[i].step.cg_revision;
  fprintf(f,
          "## Whole step against ODE and MuJoCo\n\n"
          "Every method steps the same loaded mechanism at its dt and gravity with N = 10 iterations, interleaved "
          "in one process (median over runs of the median of batches of 8 steps, each step timed alone; before "
          "every step ours and ODE's are given the contacts at their own poses, found outside the timing, and "
          "MuJoCo finds its own with its collision detection, which its time includes). ODE: `libode-dev`, "
          "ERP = the mechanism's beta, other parameters ODE's defaults; "
          "MuJoCo: `libmujoco-dev`, the mechanism in generalized coordinates (bench/peer_mujoco.h), solver "
          "defaults. *Instructions per step* come from `make bench-cg` (callgrind, %s). *Holds*: the same "
          "methods run %.0f s from the initial state with contacts found before every step; errors of the "
          "equality joints as `ldlsim` measures them (largest over the run), and the height of the probe body "
          "(final minus initial, and the lowest it went). *Left out*: what the method cannot model; a method "
          "that cannot model an equality constraint is not run.\n\n"
          "| sample | method | rows | µs/step | / QuickStep N | instructions/step | / QuickStep N | max error mm | "
          "max angle mrad | probe Δz mm | probe min Δz mm | left out |\n"
          "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n",
          cg[0] ? cg : "not run", r->nmech ? r->mech[0].step.hold_seconds : 0.0);
  for (int i = 0; i < r->nmech; i++) {
    const br_mech *m = &r->mech[i];
    if (m->error || !m->step.measured) continue;
    const br_peer *q = &m->step.peer[SP_ODE_QUICK];
    for (int k = 0; k < SP_COUNT; k++) {
      const br_peer *p = &m->step.peer[k];
      if (!p->measured) {
        fprintf(f, "| %s | %s | | not run: %s | | | | | | | | |\n", m->name, p->label, p->why);
        continue;
      }
      fprintf(f, "| %s | %s | %d | ", m->name, p->label, p->rows);
      us_range(f, p->time);
      fprintf(f, " | %.2fx | ", p->vs_quick.med);
      if (p->instructions > 0) {
        fprintf(f, "%.0f | ", p->instructions);
        if (q->instructions > 0)
          fprintf(f, "%.2fx | ", p->instructions / q->instructions);
        else
          fputs("-- | ", f);
      } else {
        fputs("-- | -- | ", f);
      }
      const sp_hold *h = &p->hold;
      if (!h->measured)
        fputs("-- | -- | -- | -- | ", f);
      else if (h->exploded)
        fprintf(f, "exploded at step %d | | | | ", h->steps + 1);
      else
        fprintf(f, "%.3g | %.3g | %.1f | %.1f | ", h->max_pos * 1e3, h->max_ang * 1e3,
                (h->probe_final - h->probe_start) * 1e3, (h->probe_min - h->probe_start) * 1e3);
      fprintf(f, "%s |\n", p->unmapped[0] ? p->unmapped : "");
    }
  }
  fputs("\n", f);
}

void br_write_md(FILE *f, const br_report *r) {
  write_header(f, r);
  write_targets(f, r);
  fputs("## Factorization\n\n", f);
  br_write_main_table(f, r);
  fputs("\n", f);
  write_avx2(f, r);
  write_details(f, r);
  write_orders(f, r);
  write_peak(f, r);
  write_ldlgen(f, r);
  write_series(f, r);
  br_write_full_step(f, r);
  fputs("## Precision presets and block solvers\n\n", f);
  br_write_precision(f, r);
  br_write_peers(f, r);
}
