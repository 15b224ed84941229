/* corun.h -- how much a second busy thread slows the first on this machine.
 *
 * LDL-PGS with the factorization thread (rt_settings.threaded) can only be
 * faster than on one thread when the second thread's work comes on top of
 * the first's; where the machine's two CPUs share one core's execution
 * units (SMT siblings, or a VM's vCPUs placed so on the host), the step's
 * own stages slow down while the factorization runs beside them. This
 * measures that directly: one fixed kernel (dependent floating-point work
 * over an L1-resident array, like the step's stages) timed alone, and
 * again while a copy of it runs on another thread; the ratio of the
 * medians is the slowdown (1.0: the CPUs are independent; 2.0: one core's
 * throughput shared by two threads). On this project's 2-vCPU VM: 1.00x,
 * and so were two single-threaded LDL-PGS steps of the sample lift, one per
 * thread (stepcg --run twice at once: 55-59 us a step each, 60 alone); the
 * machine's step times drift by 30 % from hour to hour, so a slowdown
 * seen across two runs apart is not one. */
#ifndef LDLPGS_BENCH_CORUN_H
#define LDLPGS_BENCH_CORUN_H

typedef struct bc_result {
  int measured;    /* 0: no second thread could be started */
  double alone_us; /* the kernel alone: median over the samples */
  double beside_us; /* the kernel with a copy running on another thread */
  double slowdown; /* beside_us / alone_us */
} bc_result;

/* samples timings of each kind (at least 3), alternating. */
void bc_measure(int samples, bc_result *out);

#endif
