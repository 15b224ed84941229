/* worker.c -- the world's factorization thread: rt_world_step hands it the
 * factorization of H~ and runs the PGS sweeps meanwhile (rt_world.h). One
 * thread per world, started once, so a step creates no thread and
 * allocates nothing.
 *
 * The thread shares as little memory with the stepping thread as it can
 * (rt__factor_from_poses): it evaluates the equality rows' J and W J^T and
 * the solver bodies' masses itself, from the poses, into buffers of its
 * own, and assembles H~ from those, rather than reading the rows the
 * stepping thread builds. Reading those cost more than the factorization
 * saved (track, 2-vCPU VM, interleaved medians): every row the thread read
 * was in its core's cache when the next step's rt_world_step_begin rewrote
 * it, and the stepping thread's own phases slowed down by about the time
 * assembly and factorization take (rows +6..15 us, sweeps +6..10 us, block
 * step +3 us), so two threads were slower than one. Evaluating them twice costs
 * the thread a few microseconds it has to spare, and it needs only the
 * poses, so rt_world_step hands it the request before the rows are built
 * (rt_world_step), not after. Even the poses it takes from a compact copy
 * that rt__worker_kick makes (56 bytes a body) into its own copy of the
 * bodies: reading them in w->body, on the lines whose velocities and poses
 * the stepping thread writes every step, still cost that thread 1-4 us a
 * step (rows, and integration in rt_world_step_end). What is left shared:
 * that copy, the equality joints (only read, but for the lengths of driven
 * rods, written before the kick) and the factor itself (written by the
 * thread, read by the block step: see iterate_threaded in step.c).
 *
 * The hand-off spins before it parks. A factorization takes microseconds,
 * about as long as waking a thread parked on a condition variable (a futex
 * wake-up through the scheduler; more on a virtual machine), so:
 * - after a factorization the thread keeps watching for the next request
 *   for up to RT__SPIN_NS, then parks on the condition variable (steps back
 *   to back, or sub-steps of a frame, never wake it from the kernel; a
 *   game stepping once a frame costs at most that much of a core per step).
 *   Measured back to back, it parks only where a step outlasts its
 *   factorization by more than that: tank with post-stabilization (about
 *   220 us a step), before 5% of the steps;
 * - rt_world_step calls rt__worker_warm first, which wakes a parked
 *   thread; the kick follows a few microseconds later, but the thread then
 *   has the rows and all the sweeps to finish in: after 20
 *   single-threaded steps (thread parked), it still took the first
 *   request in 96-100% of the runs (track, scissor_lift);
 * - the request can be claimed by either thread: if the stepping thread
 *   finishes its sweeps before the factorization thread took the request
 *   (it was not scheduled: more busy threads than CPUs), it factors
 *   itself, from its own rows (rt_world_factor: the same bits), rather than
 *   wait; so a step is never much slower than the single-threaded one.
 *   Otherwise it waits for the result spinning, up to RT__SPIN_NS, then on
 *   the condition variable.
 * Every flag lives in an atomic; it changes under the mutex, so a thread
 * that parks cannot miss a change (it re-reads the flag under the mutex
 * before it waits). Signalling a condition variable nobody waits on costs
 * no system call. */
#define _POSIX_C_SOURCE 200809L
#include "world.h"

void rt__worker_poses(rt_world *w) {
  for (int i = 0; i < w->nbody; i++) w->worker.pose[i] = w->body[i].pose;
}

#ifdef LDLPGS_NO_THREADS
/* Built without threads (LDLPGS_NO_THREADS: no pthread, no atomics, for
 * compilers and platforms without them): the thread never starts, so
 * rt_world_create and rt_world_set_settings refuse `threaded` with
 * RT_ERR_THREAD and step.c never kicks, waits or warms it. */
int rt__worker_start(rt_world *w) {
  (void)w;
  return -1;
}
void rt__worker_stop(rt_world *w) { (void)w; }
void rt__worker_again(rt_world *w) { (void)w; }
void rt__worker_warm(rt_world *w) { (void)w; }
void rt__worker_kick(rt_world *w) { rt__worker_poses(w); }
int rt__worker_done(rt_world *w) {
  (void)w;
  return 0;
}
void rt__worker_wait(rt_world *w) { rt__factor_rows(w, w->rows.J, w->rows.WJ); }
int rt__worker_plan(rt_world *w, int *timed) {
  (void)w;
  *timed = 0;
  return 0;
}
void rt__worker_timed(rt_world *w, int handed, double seconds) {
  (void)w;
  (void)handed;
  (void)seconds;
}
#else

#include <sched.h>

#define RT__SPIN_NS 200000 /* 200 us */

static void cpu_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Whether one of the flags (NULL: none) is set. */
static int any(atomic_int *a, atomic_int *b, atomic_int *c) {
  return atomic_load(a) || (b && atomic_load(b)) || (c && atomic_load(c));
}

/* Waits until one of the flags is set: spinning for at most RT__SPIN_NS,
 * then parked on the condition variable, with *parked set meanwhile. */
static void wait_flag(rt__worker *k, atomic_int *parked, atomic_int *a, atomic_int *b, atomic_int *c) {
  double t0 = -1.0;
  for (unsigned i = 0;; i++) {
    if (any(a, b, c)) return;
    cpu_pause();
    if ((i & 63) == 63) { /* now and then: */
      sched_yield();        /* the other thread may need this CPU (more threads than CPUs) */
      const double t = rt__pick_now();
      if (t0 < 0.0)
        t0 = t;
      else if (t - t0 > 1e-9 * RT__SPIN_NS)
        break;
    }
  }
  pthread_mutex_lock(&k->mu);
  atomic_store(parked, 1);
  while (!any(a, b, c)) pthread_cond_wait(&k->cv, &k->mu);
  atomic_store(parked, 0);
  pthread_mutex_unlock(&k->mu);
}

/* Sets a flag under the mutex and wakes whoever is parked. */
static void set_flag(rt__worker *k, atomic_int *f) {
  pthread_mutex_lock(&k->mu);
  atomic_store(f, 1);
  pthread_cond_broadcast(&k->cv);
  pthread_mutex_unlock(&k->mu);
}

/* Takes the posted request, if nobody took it yet. */
static int claim(rt__worker *k) {
  int posted = 1;
  return atomic_compare_exchange_strong(&k->pending, &posted, 0);
}

/* Pushes the lines of [p, p + n) out of this core's caches into the shared
 * last level (CLDEMOTE, a hint: a no-op on processors without it), where
 * the stepping thread finds them sooner than in this core's. */
static void demote(const void *p, size_t n) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (n == 0) return;
  for (const char *c = p; c < (const char *)p + n; c += 64) __asm__ __volatile__("cldemote %0" : : "m"(*c));
  __asm__ __volatile__("cldemote %0" : : "m"(((const char *)p)[n - 1]));
#else
  (void)p;
  (void)n;
#endif
}

static void *worker_main(void *arg) {
  rt_world *w = arg;
  rt__worker *k = &w->worker;
  for (;;) {
    wait_flag(k, &k->parked, &k->pending, &k->quit, &k->warm);
    if (atomic_load(&k->quit)) break;
    atomic_store(&k->warm, 0); /* woken ahead of a request: spin for it */
    if (!claim(k)) continue;   /* none, or the stepping thread took it */
    rt__factor_from_poses(w);
    demote(w->work, w->work_bytes); /* the block step reads it on the other core */
    set_flag(k, &k->done);
  }
  return NULL;
}

int rt__worker_start(rt_world *w) {
  rt__worker *k = &w->worker;
  if (k->running) return 0;
  if (pthread_mutex_init(&k->mu, NULL) != 0) return -1;
  if (pthread_cond_init(&k->cv, NULL) != 0) {
    pthread_mutex_destroy(&k->mu);
    return -1;
  }
  atomic_init(&k->pending, 0);
  atomic_init(&k->done, 0);
  atomic_init(&k->quit, 0);
  atomic_init(&k->parked, 0);
  atomic_init(&k->warm, 0);
  atomic_init(&k->waiting, 0);
  rt__pick_init(&k->pays, 1); /* the hand-off until the first window has measured it */
  if (pthread_create(&k->thread, NULL, worker_main, w) != 0) {
    pthread_cond_destroy(&k->cv);
    pthread_mutex_destroy(&k->mu);
    return -1;
  }
  k->running = 1;
  return 0;
}

void rt__worker_stop(rt_world *w) {
  rt__worker *k = &w->worker;
  if (!k->running) return;
  set_flag(k, &k->quit);
  pthread_join(k->thread, NULL);
  pthread_cond_destroy(&k->cv);
  pthread_mutex_destroy(&k->mu);
  k->running = 0;
}

void rt__worker_again(rt_world *w) {
  if (w->worker.running) rt__pick_again(&w->worker.pays);
}

void rt__worker_warm(rt_world *w) {
  rt__worker *k = &w->worker;
  if (k->running && atomic_load(&k->parked)) set_flag(k, &k->warm);
}

void rt__worker_kick(rt_world *w) {
  rt__worker *k = &w->worker;
  rt__worker_poses(w);
  atomic_store(&k->done, 0); /* no factorization is under way: nobody else writes it now */
  set_flag(k, &k->pending);
}

int rt__worker_done(rt_world *w) { return atomic_load(&w->worker.done); }

void rt__worker_wait(rt_world *w) {
  rt__worker *k = &w->worker;
  if (claim(k)) { /* the thread has not started: factor here */
    rt__factor_rows(w, w->rows.J, w->rows.WJ);
    return;
  }
  wait_flag(k, &k->waiting, &k->done, NULL, NULL);
}

/*---- whether the hand-off pays ---------------------------------------------
 * What the hand-off costs the stepping thread (the kick, the wait for the
 * thread's path -- its own rows, assembly, factor -- and the factor read
 * from the other core) against what it takes off it (the assembly and
 * factorization) depends on the machine and on what else runs there, not
 * only on the mechanism: on this project's 2-vCPU VM the threaded step was
 * slower on every sample (bench --step-only, 2026-11-30: the lift 81
 * against 66 us, the track 26 against 17, the buggy 14.5 against 9.2),
 * where on others it paid. So with rt_settings.threaded 1 the step
 * measures it (pick.c). The kinds give the same bits (step.c), so only
 * the time depends on the choice. */
/* The thread must measure this much faster to be used: a hand-off that
 * saves less is within the machine's noise, and costs a second core. */
#define RT__PAYS_MARGIN 0.97

int rt__worker_plan(rt_world *w, int *timed) {
  if (w->set.threaded == RT_THREADED_ALWAYS) {
    *timed = 0;
    return 1;
  }
  return rt__pick_plan(&w->worker.pays, timed);
}

void rt__worker_timed(rt_world *w, int handed, double seconds) {
  rt__pick_timed(&w->worker.pays, handed, seconds, RT__PAYS_MARGIN);
}
#endif /* LDLPGS_NO_THREADS */
