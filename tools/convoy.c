/* convoy.c -- see convoy.h.
 *
 * Two sides step the same 8 tanks in lockstep: the batch (8 worlds in one
 * rt_batch) and the singles (8 worlds stepped one by one). Both sides are
 * made from the same description and program, placed and driven by the
 * same calls, and fed contacts found at their own poses; so by rt_batch's
 * contract each batch copy is bitwise its single, and this file checks it
 * after every step (poses, velocities, step status). Only the step calls
 * are timed; which side steps first alternates from step to step, so that
 * neither always runs with the caches the other left. */
#define _POSIX_C_SOURCE 200809L
#include "convoy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drive.h"
#include "load.h"
#include "mechworld.h"
#include "outfile.h"
#include "simrun.h"
#include "svgplot.h"
#include "tank_b8.h"

enum { TANKS = TANK_B8_BATCH_LANES };
_Static_assert((int)TANKS == (int)CONVOY_TANKS, "convoy.h's CONVOY_TANKS is the batch program's lanes");

/* Where tank j starts: an echelon heading +x, each tank 3 m behind and 5 m
 * to the left of the one before, so that the paths stay apart on the map. */
static const double SPACING_X = -3.0, SPACING_Y = 5.0;

static const char *const COLORS[TANKS] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                          "#9467bd", "#8c564b", "#e377c2", "#17becf"};

/* One tank: its script (a copy per side: drive_apply advances it), its
 * hull's path and what it measured. */
typedef struct tank {
  char title[80];                /* the script's first comment */
  drive_script script[2];        /* [0] the batch copy's, [1] the single's */
  double *x, *y;                 /* the hull after 0..steps steps */
  double distance, heading;      /* m; degrees at the end */
  double max_pos, max_ang;       /* largest joint error over the run */
  int max_contacts;
  int failed;                    /* steps that did not go through */
  const char *why;               /* the first failure's message */
  outfile csv;
} tank;

/* One side: its 8 worlds (and the batch stepping them, on the batch side). */
typedef struct side {
  rt_world *w[TANKS];
  rt_batch *b; /* the batch side's; NULL for the singles */
} side;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The first comment of a drive script without its "# tankK: " lead, for
 * the table ("" if it has none). */
static void script_title(const char *path, char *out, size_t n) {
  out[0] = '\0';
  FILE *f = fopen(path, "r");
  char line[256];
  if (f && fgets(line, sizeof line, f) && line[0] == '#') {
    const char *s = strchr(line, ':');
    s = s ? s + 1 : line + 1;
    while (*s == ' ') s++;
    size_t k = strcspn(s, "\r\n");
    if (k >= n) k = n - 1; /* cut to the column */
    memcpy(out, s, k);
    out[k] = '\0';
  }
  if (f) fclose(f);
}

/* Yaw of the hull (degrees, counter-clockwise from +x). */
static double heading_of(const rt_pose *p) {
  const double w = p->q[0], x = p->q[1], y = p->q[2], z = p->q[3];
  return atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)) * (180.0 / 3.14159265358979323846);
}

/* Moves every body of w by (dx, dy): the tank keeps its shape and
 * orientation, resting on the same ground. */
static gen_status place(rt_world *w, double dx, double dy, diag_list *d) {
  for (int i = 0; i < rt_world_body_count(w); i++) {
    rt_pose p;
    rt_world_body_pose(w, i, &p);
    p.p[0] += dx;
    p.p[1] += dy;
    if (rt_world_set_body_state(w, i, &p, NULL, NULL) != RT_OK) {
      diag_error(d, "convoy", 0, "cannot place body %d", i);
      return GEN_ERR_INPUT;
    }
  }
  return GEN_OK;
}

/* Copy j of the batch against its single after a step: the first
 * difference, or NULL. */
static const char *differs(const rt_world *a, const rt_world *b, int *body) {
  for (int i = 0; i < rt_world_body_count(a); i++) {
    rt_pose p, q;
    double v[6], u[6];
    rt_world_body_pose(a, i, &p);
    rt_world_body_pose(b, i, &q);
    *body = i;
    if (memcmp(&p, &q, sizeof p) != 0) return "pose";
    rt_world_body_velocity(a, i, v, v + 3);
    rt_world_body_velocity(b, i, u, u + 3);
    if (memcmp(v, u, sizeof v) != 0) return "velocity";
  }
  return NULL;
}

/* The hull's state after step s (s = 0: the start) into tank t and its CSV. */
static void record(tank *t, const rt_world *w, int hull, int s, double dt, int contacts, rt_status st) {
  rt_pose p;
  double v[3], av[3], pos, ang;
  rt_world_body_pose(w, hull, &p);
  rt_world_body_velocity(w, hull, v, av);
  rt_world_max_error(w, &pos, &ang);
  t->x[s] = p.p[0];
  t->y[s] = p.p[1];
  t->heading = heading_of(&p);
  if (s > 0) {
    t->distance += hypot(t->x[s] - t->x[s - 1], t->y[s] - t->y[s - 1]);
    t->max_pos = fmax(t->max_pos, pos);
    t->max_ang = fmax(t->max_ang, ang);
  }
  if (t->csv.f)
    fprintf(t->csv.f, "%d,%.6f,%.9g,%.9g,%.9g,%.6g,%.6g,%.9g,%.9g,%d,%s\n", s, s * dt, p.p[0], p.p[1], p.p[2],
            t->heading, hypot(v[0], v[1]), pos, ang, contacts, s == 0 ? "start" : rt_status_message(st));
}

static void print_table(const tank *t, const mech *m, const rt_settings *s, int steps, double t_batch,
                        double t_single, const char *mismatch) {
  printf("\nconvoy: %d tanks (%s, generated batch program: %d double lanes, dim %d), %d iterations per step, "
         "dt 1/%.0f s, %d steps, each tank driven by mechanisms/convoy/tankK.drive\n\n",
         TANKS, m->file, TANKS, tank_b8_program.dim, s->iterations, 1.0 / s->dt, steps);
  printf("%-4s %-36s %9s %14s %14s %9s %10s %12s %8s %6s\n", "tank", "script", "distance", "start (x, y)",
         "final (x, y)", "heading", "max error", "max angle", "contacts", "failed");
  for (int j = 0; j < TANKS; j++) {
    char a[40], b[40];
    snprintf(a, sizeof a, "(%.1f, %.1f)", t[j].x[0], t[j].y[0]);
    snprintf(b, sizeof b, "(%.1f, %.1f)", t[j].x[steps], t[j].y[steps]);
    printf("%-4d %-36.36s %7.2f m %14s %14s %5.1f deg %8.2g m %8.2g rad %8d %6d\n", j + 1, t[j].title,
           t[j].distance, a, b, t[j].heading, t[j].max_pos, t[j].max_ang, t[j].max_contacts, t[j].failed);
  }
  for (int j = 0; j < TANKS; j++)
    if (t[j].failed) printf("tank %d: %d steps failed (undone; the others went on), first: %s\n", j + 1, t[j].failed, t[j].why);
  /* what the build's vector registers are: the batch pays off with wide ones */
#if defined(__AVX512F__)
  const char *isa = "AVX-512 build";
#elif defined(__AVX2__)
  const char *isa = "AVX2 build";
#else
  const char *isa = "portable build (SSE2 on x86-64; try make demo ARCH=avx512 or avx2)";
#endif
  printf("\nwall time per step of all %d tanks, median over %d steps (%s):\n", TANKS, steps, isa);
  printf("  one rt_batch_step (8 lanes)         %9.1f us\n", t_batch * 1e6);
  printf("  8 x rt_world_step, one by one       %9.1f us\n", t_single * 1e6);
  printf("  batch speedup                       %9.2fx\n", t_single / t_batch);
  if (mismatch)
    printf("bitwise: DIFFERENT -- %s\n", mismatch);
  else
    printf("bitwise: every pose and velocity of every body, after every step, is the same in the batch as in the "
           "tanks stepped one by one (%d steps x %d tanks x %d bodies)\n",
           steps, TANKS, m->nbody);
}

static gen_status write_paths(const tank *t, int steps, const char *dir, arena *a, diag_list *d) {
  svgplot_path p[TANKS];
  char *labels = arena_alloc(a, TANKS * 16);
  for (int j = 0; j < TANKS; j++) {
    snprintf(labels + 16 * j, 16, "tank %d", j + 1);
    p[j] = (svgplot_path){labels + 16 * j, COLORS[j], t[j].x, t[j].y, steps + 1};
  }
  const size_t n = strlen(dir) + 32;
  char *path = arena_alloc(a, n);
  snprintf(path, n, "%s/convoy_paths.svg", dir);
  outfile f;
  memset(&f, 0, sizeof f);
  gen_status st = outfile_open(&f, path, d);
  if (st == GEN_OK) {
    char title[96];
    snprintf(title, sizeof title, "convoy: 8 tanks in one batch of 8 lanes, hull paths over %.0f s",
             steps * tank_b8_settings.dt);
    svgplot_paths(f.f, title, "x (m)", "y (m)", p, TANKS);
    st = outfile_commit(&f, d);
  }
  outfile_abort(&f);
  if (st == GEN_OK) printf("wrote %s and convoy_tank1..%d.csv\n", path, TANKS);
  return st;
}

/* The viewer's recordings of the batch copies, before the first step. */
static gen_status view_begin(convoy_view *v, const mech *m, double dt, int steps, diag_list *d) {
  memset(v, 0, sizeof *v);
  for (int j = 0; j < TANKS; j++)
    if (gltf_record_init(&v->rec[j], m, dt, CONVOY_GLTF_EVERY, steps) != 0) {
      diag_error(d, "convoy", 0, "out of memory for the viewer's recordings");
      return GEN_ERR_IO;
    }
  return GEN_OK;
}

/* The viewer's scene: a run per tank, labelled with its script. */
static void view_end(convoy_view *v, const tank *t, const side *batch, int steps, int iterations) {
  for (int j = 0; j < TANKS; j++) {
    gltf_record_finish(&v->rec[j], batch->w[j], steps);
    snprintf(v->label[j], sizeof v->label[j], "tank %d: %s", j + 1, t[j].title);
    v->run[j] = (viewer_run){v->label[j], &v->rec[j], steps, 0, ""};
  }
  snprintf(v->caption, sizeof v->caption,
           "%d tanks in one rt_batch of %d double lanes (ldlgen --batch %d), each driven by "
           "mechanisms/convoy/tankK.drive; %d iterations per step",
           TANKS, TANKS, TANKS, iterations);
  v->scene = (viewer_scene){"convoy", v->caption, v->run, TANKS, 1}; /* the tanks in one view */
}

void convoy_view_free(convoy_view *v) {
  for (int j = 0; j < TANKS; j++) gltf_record_free(&v->rec[j]);
  memset(v, 0, sizeof *v);
}

/* Both sides' worlds, placed; the batch made. */
static gen_status make_sides(side sd[2], const rt_world_desc *desc, const rt_settings *s, diag_list *d) {
  for (int k = 0; k < 2; k++)
    for (int j = 0; j < TANKS; j++) {
      char err[256];
      sd[k].w[j] = rt_world_create(desc, &tank_b8_program, s, NULL, err, sizeof err);
      if (sd[k].w[j] == NULL) {
        diag_error(d, "convoy", 0, "%s", err);
        return GEN_ERR_INPUT;
      }
      gen_status st = place(sd[k].w[j], SPACING_X * j, SPACING_Y * j, d);
      if (st != GEN_OK) return st;
    }
  rt_status st;
  sd[0].b = rt_batch_create(&tank_b8_batch, sd[0].w, TANKS, &st);
  if (sd[0].b == NULL) {
    diag_error(d, "convoy", 0, "rt_batch_create: %s", rt_status_message(st));
    return GEN_ERR_INPUT;
  }
  /* the demo times the lanes against the singles (a game keeps the
   * default, RT_BATCH_STEP_MEASURED: the faster of the two) */
  rt_batch_set_stepping(sd[0].b, RT_BATCH_STEP_LANES);
  return GEN_OK;
}

static void free_sides(side sd[2]) {
  rt_batch_destroy(sd[0].b);
  for (int k = 0; k < 2; k++)
    for (int j = 0; j < TANKS; j++) rt_world_destroy(sd[k].w[j]);
}

/* The tanks' scripts and CSV files. */
static gen_status open_tanks(tank *t, const mech *m, int steps, const convoy_options *o, arena *a, diag_list *d) {
  for (int j = 0; j < TANKS; j++) {
    char path[512];
    snprintf(path, sizeof path, "%s/mechanisms/convoy/tank%d.drive", o->src, j + 1);
    script_title(path, t[j].title, sizeof t[j].title);
    gen_status st = drive_load(a, path, m, &t[j].script[0], d);
    if (st != GEN_OK) return st;
    t[j].script[1] = t[j].script[0];
    t[j].x = ARENA_ARRAY(a, double, steps + 1);
    t[j].y = ARENA_ARRAY(a, double, steps + 1);
    t[j].why = "";
    snprintf(path, sizeof path, "%s/convoy_tank%d.csv", o->dir, j + 1);
    if ((st = outfile_open(&t[j].csv, path, d)) != GEN_OK) return st;
    fputs("step,time,x,y,z,heading_deg,speed,pos_error,ang_error,contacts,status\n", t[j].csv.f);
  }
  return GEN_OK;
}

gen_status convoy_run(const convoy_options *o, arena *a, diag_list *d) {
  char path[512];
  snprintf(path, sizeof path, "%s/mechanisms/tank.lua", o->src);
  mech *m = ARENA_ARRAY(a, mech, 1);
  gen_status st = load_mech(a, path, NULL, m, d);
  if (st != GEN_OK) return st;
  rt_world_desc desc;
  mechworld_desc(a, m, &desc);
  rt_settings s;
  mechworld_settings(m, &s);
  s.iterations = o->iterations;
  s.threaded = 0;
  const int steps = (int)ceil(o->seconds / s.dt - 1e-9), hull = simrun_default_probe(m);
  tank *t = ARENA_ARRAY(a, tank, TANKS);
  memset(t, 0, sizeof *t * TANKS);
  side sd[2];
  memset(sd, 0, sizeof sd);
  double *tb = ARENA_ARRAY(a, double, steps), *ts = ARENA_ARRAY(a, double, steps);
  rt_contact *buf = ARENA_ARRAY(a, rt_contact, (size_t)s.max_contacts + 1);
  char mismatch[160] = "";
  if ((st = open_tanks(t, m, steps, o, a, d)) == GEN_OK && (st = make_sides(sd, &desc, &s, d)) == GEN_OK &&
      (!o->view || (st = view_begin(o->view, m, s.dt, steps, d)) == GEN_OK)) {
    for (int j = 0; j < TANKS; j++) {
      record(&t[j], sd[0].w[j], hull, 0, s.dt, 0, RT_OK);
      if (o->view) gltf_record_observe(sd[0].w[j], 0, 0.0, &o->view->rec[j]);
    }
    for (int k = 0; k < steps; k++) {
      int contacts[TANKS];
      for (int side_k = 0; side_k < 2; side_k++)
        for (int j = 0; j < TANKS; j++) {
          drive_apply(sd[side_k].w[j], k, k * s.dt, &t[j].script[side_k]);
          contacts[j] = simrun_feed_contacts(sd[side_k].w[j], m, buf, s.max_contacts);
        }
      rt_status got[TANKS], want[TANKS];
      for (int turn = 0; turn < 2; turn++) {
        const double t0 = now_s();
        if ((turn + k) % 2 == 0) {
          rt_batch_step(sd[0].b, got);
          tb[k] = now_s() - t0;
        } else {
          for (int j = 0; j < TANKS; j++) want[j] = rt_world_step(sd[1].w[j]);
          ts[k] = now_s() - t0;
        }
      }
      for (int j = 0; j < TANKS; j++) {
        int body = 0;
        const char *what = got[j] != want[j] ? "step status" : differs(sd[0].w[j], sd[1].w[j], &body);
        if (what && !mismatch[0])
          snprintf(mismatch, sizeof mismatch, "tank %d, step %d: the %s of body %d differs", j + 1, k + 1, what,
                   body);
        if (got[j] != RT_OK && t[j].failed++ == 0) t[j].why = rt_status_message(got[j]);
        if (contacts[j] > t[j].max_contacts) t[j].max_contacts = contacts[j];
        record(&t[j], sd[0].w[j], hull, k + 1, s.dt, contacts[j], got[j]);
        if (o->view) gltf_record_observe(sd[0].w[j], k + 1, (k + 1) * s.dt, &o->view->rec[j]);
      }
    }
    if (o->view) view_end(o->view, t, &sd[0], steps, s.iterations);
  }
  free_sides(sd);
  for (int j = 0; j < TANKS; j++) {
    if (st == GEN_OK) st = outfile_commit(&t[j].csv, d);
    outfile_abort(&t[j].csv);
  }
  if (st != GEN_OK) return st;
  print_table(t, m, &s, steps, median(tb, steps), median(ts, steps), mismatch[0] ? mismatch : NULL);
  st = write_paths(t, steps, o->dir, a, d);
  if (st == GEN_OK && mismatch[0]) {
    diag_error(d, "convoy", 0, "the batch is not bitwise the tanks stepped alone: %s", mismatch);
    st = GEN_ERR_INPUT;
  }
  return st;
}
