/* worker.c -- the world's factorization thread: rt_world_step hands it the
 * factorization of H~ and runs the PGS sweeps meanwhile (rt_world.h). One
 * thread per world, started once and parked on a condition variable between
 * steps, so a step creates no thread and allocates nothing. */
#include "world.h"

static void *worker_main(void *arg) {
  rt_world *w = arg;
  rt__worker *k = &w->worker;
  pthread_mutex_lock(&k->mu);
  for (;;) {
    while (!k->pending && !k->quit) pthread_cond_wait(&k->cv, &k->mu);
    if (k->quit) break;
    k->pending = 0;
    pthread_mutex_unlock(&k->mu);
    rt_world_factor(w);
    pthread_mutex_lock(&k->mu);
    k->done = 1;
    pthread_cond_broadcast(&k->cv);
  }
  pthread_mutex_unlock(&k->mu);
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
  k->pending = k->done = k->quit = 0;
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
  pthread_mutex_lock(&k->mu);
  k->quit = 1;
  pthread_cond_broadcast(&k->cv);
  pthread_mutex_unlock(&k->mu);
  pthread_join(k->thread, NULL);
  pthread_cond_destroy(&k->cv);
  pthread_mutex_destroy(&k->mu);
  k->running = 0;
}

void rt__worker_kick(rt_world *w) {
  rt__worker *k = &w->worker;
  pthread_mutex_lock(&k->mu);
  k->pending = 1;
  k->done = 0;
  pthread_cond_broadcast(&k->cv);
  pthread_mutex_unlock(&k->mu);
}

void rt__worker_wait(rt_world *w) {
  rt__worker *k = &w->worker;
  pthread_mutex_lock(&k->mu);
  while (!k->done) pthread_cond_wait(&k->cv, &k->mu);
  pthread_mutex_unlock(&k->mu);
}
