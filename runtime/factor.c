/* factor.c -- the assembly of H~ from the equality rows and its
 * factorization, on the stepping thread (from w->rows) or on the
 * factorization thread (from rows it evaluates itself from the poses), and
 * whether the thread pays. It calls assemble.c, the program, rows.c and
 * bodies.c, and nothing that calls it back. */
#include "world.h"

void rt__factor_rows(rt_world *w, const double *J, const double *WJ) {
  rt__assemble_rows(w->prog, &w->assembly, J, WJ, w->set.epsilon, w->work);
  w->info.factor_status = rt_program_factor(w->prog, w->work, w->temp);
}

void rt__factor_assemble(rt_world *w) {
  rt__assemble_rows(w->prog, &w->assembly, w->rows.J, w->rows.WJ, w->set.epsilon, w->work);
}

/* Asks for the cache line at p to be brought into this core's cache for
 * writing (PREFETCHW; a hint, with no effect on the values). */
static void own_line(const char *p) {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  __asm__ __volatile__("prefetchw %0" : : "m"(*p));
#elif defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p, 1, 3);
#else
  (void)p;
#endif
}

/* The thread's rows are the stepping thread's (rows.c), computed by the
 * same functions from the same poses.
 *
 * Meanwhile the workspace's lines are claimed for writing, a slice per
 * constraint. The stepping thread read the last factor from them, so each
 * line sits in its core's cache too, and the assembly's first write to it
 * must wait while that copy is invalidated: one write after another
 * through the store queue, that made the factorization on the thread take
 * twice its time on the stepping thread (the sample lift, 2-vCPU VM,
 * interleaved: assembly and factor 19.5 us against 10; the same call
 * again at once, the lines now the thread's, 9.9 us). Asked for during the
 * rows' evaluation, the invalidations overlap it: 12.7 us; the lift's
 * threaded step, back to back, went from 1.33x to 1.25x its
 * single-threaded one (three alternating rounds: 72 -> 68 us). The values
 * are the same bits: a prefetch only moves lines. */
void rt__factor_from_poses(rt_world *w) {
  const rt_program *p = w->prog;
  rt__worker *k = &w->worker;
  const char *line = (const char *)w->work, *end = line + w->work_bytes;
  const size_t slice = w->work_bytes / (size_t)(p->ncons > 0 ? p->ncons : 1) + 64;
  for (int i = 0; i < w->nbody; i++) k->body[i].pose = k->pose[i];
  rt__bodies_solver_masses(w, k->body, k->inv_mass, k->inv_inertia, NULL);
  for (int c = 0; c < p->ncons; c++) {
    for (const char *e = line + slice; line < e && line < end; line += 64) own_line(line);
    const int row = p->cons_row[c];
    const int a = rt__rows_dynamic(w, k->body, p->cons_a[c]), b = rt__rows_dynamic(w, k->body, p->cons_b[c]);
    double *J = k->J + 12 * (size_t)row, *WJ = k->WJ + 12 * (size_t)row;
    rt__rows_cons_eval(w, k->body, c, k->c + row, J);
    double diag[RT_MAX_DEGREE];
    rt__rows_cons_wj(J, a, b, w->row_letter + row, p->cons_degree[c], k->inv_mass, k->inv_inertia, WJ, diag);
  }
  rt__factor_rows(w, k->J, k->WJ);
}

/* Handing the assembly and factorization to the thread costs the stepping
 * thread about a microsecond however small they are: the kick (copying the
 * poses, signalling), waiting for the result, and what is still shared
 * (worker.c). Measured on the samples (2-vCPU VM, interleaved medians and
 * bench --step-only), the hand-off paid on buggy (7.3k multiply-adds,
 * 1.7-2.9 us single-threaded: a step 1 us shorter) and on every larger
 * sample, and lost on chain (1.8k, 0.7-0.9 us: 0.2-0.5 us longer) and
 * elimination_example (0.9k: 0.45 us longer). (Before the thread evaluated
 * its own rows, the hand-off cost several microseconds and the threshold
 * was 10k.) Work is counted in multiply-adds: the factorization's by the
 * flop convention of docs/DESIGN.md section 3, the assembly's 6 per entry
 * and shared body. */
#define RT__THREAD_MIN_MADDS 4000.0

int rt__factor_thread_pays(const rt_program *p, const rt__assembly *a) {
  double madds = 0;
  for (int piv = 0; piv < p->ncons; piv++) {
    const double d = p->cons_degree[p->piv_cons[piv]], h = p->piv_height[piv];
    madds += d * d * d / 6 + h * d * d + d * h * (h + 1) / 2;
  }
  for (int i = 0; i < a->nblock; i++) {
    const rt__asm_block *b = &a->block[i];
    madds += 6.0 * b->nterm * (b->node ? b->dq * (b->dq + 1) / 2 : b->dq * b->dp);
  }
  return madds >= RT__THREAD_MIN_MADDS;
}
