/* gltf_mesh.c -- see gltf_mesh.h. */
#include "gltf_mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rings of a lathe about z, from the top down: a ring is a circle of
 * radius r at height z whose vertices have the normal (nr cos t, nr sin t,
 * nz). A rim shared by a flat cap and a curved side is two rings at the same
 * place with different normals. */
typedef struct ring {
  double z, r, nz, nr;
} ring;

enum { MAX_RINGS = 32, SPHERE_RINGS = 12, CAP_RINGS = 6 };

#define GLTF_PI 3.14159265358979323846

static int alloc_mesh(gltf_mesh *g, int nv, int ni) {
  g->pos = malloc(sizeof *g->pos * 3 * (size_t)nv);
  g->attr = malloc(sizeof *g->attr * 3 * (size_t)nv);
  g->idx = malloc(sizeof *g->idx * (size_t)ni);
  g->nv = g->ni = 0;
  if (g->pos && g->attr && g->idx) return 0;
  gltf_mesh_free(g);
  return -1;
}

static void vertex(gltf_mesh *g, double x, double y, double z, double a, double b, double c) {
  float *p = g->pos + 3 * g->nv, *n = g->attr + 3 * g->nv;
  p[0] = (float)x, p[1] = (float)y, p[2] = (float)z;
  n[0] = (float)a, n[1] = (float)b, n[2] = (float)c;
  g->nv++;
}

static void tri(gltf_mesh *g, int a, int b, int c) {
  g->idx[g->ni++] = (unsigned)a;
  g->idx[g->ni++] = (unsigned)b;
  g->idx[g->ni++] = (unsigned)c;
}

/* Quad strips between consecutive rings; a strip between two rings at the
 * same place (a rim's two normals) is skipped, and a ring of radius 0 (a
 * pole or a cap's centre) gets one triangle per segment, not two. */
static int lathe(const ring *rg, int nr, gltf_mesh *g) {
  const int seg = GLTF_MESH_SEGMENTS, per = seg + 1; /* the seam vertex is repeated */
  if (alloc_mesh(g, nr * per, (nr - 1) * seg * 6) != 0) return -1;
  for (int i = 0; i < nr; i++)
    for (int k = 0; k <= seg; k++) {
      const double t = 2.0 * GLTF_PI * (k % seg) / seg, c = cos(t), s = sin(t);
      vertex(g, rg[i].r * c, rg[i].r * s, rg[i].z, rg[i].nr * c, rg[i].nr * s, rg[i].nz);
    }
  for (int i = 0; i + 1 < nr; i++) {
    if (rg[i].z == rg[i + 1].z && rg[i].r == rg[i + 1].r) continue;
    for (int k = 0; k < seg; k++) {
      const int a0 = i * per + k, a1 = a0 + 1, b0 = a0 + per, b1 = b0 + 1;
      if (rg[i + 1].r > 0) tri(g, a0, b0, b1);
      if (rg[i].r > 0) tri(g, a0, b1, a1);
    }
  }
  return 0;
}

/* A capsule: two hemispheres of radius r centred at z = +-half joined by
 * their equators (half = 0: a sphere). */
static int round_solid(double r, double half, gltf_mesh *g) {
  ring rg[MAX_RINGS];
  int n = 0;
  const int quarter = half > 0 ? CAP_RINGS : SPHERE_RINGS / 2;
  for (int i = 0; i <= quarter; i++) { /* top: pole to equator */
    const double a = 0.5 * GLTF_PI * i / quarter;
    rg[n++] = (ring){half + r * cos(a), r * sin(a), cos(a), sin(a)};
  }
  for (int i = half > 0 ? 0 : 1; i <= quarter; i++) { /* bottom: equator to pole */
    const double a = 0.5 * GLTF_PI * (quarter + i) / quarter;
    rg[n++] = (ring){-half + r * cos(a), r * sin(a), cos(a), sin(a)};
  }
  rg[0].r = rg[n - 1].r = 0.0; /* exact poles */
  rg[0].nr = rg[n - 1].nr = 0.0;
  return lathe(rg, n, g);
}

static int cylinder(double r, double half, gltf_mesh *g) {
  const ring rg[] = {
      {half, 0, 1, 0},  {half, r, 1, 0},  {half, r, 0, 1},
      {-half, r, 0, 1}, {-half, r, -1, 0}, {-half, 0, -1, 0},
  };
  return lathe(rg, (int)(sizeof rg / sizeof rg[0]), g);
}

static int box(const double size[3], gltf_mesh *g) {
  if (alloc_mesh(g, 24, 36) != 0) return -1;
  const double h[3] = {0.5 * size[0], 0.5 * size[1], 0.5 * size[2]};
  for (int f = 0; f < 6; f++) {
    /* face normal along axis a, sign s; u, v span the face with u x v = n */
    const int a = f / 2, s = f % 2 ? -1 : 1;
    int u = (a + 1) % 3, v = (a + 2) % 3;
    if (s < 0) {
      const int t = u;
      u = v;
      v = t;
    }
    const int base = g->nv;
    static const int corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int c = 0; c < 4; c++) {
      double p[3] = {0, 0, 0}, n[3] = {0, 0, 0};
      p[a] = s * h[a];
      p[u] = corner[c][0] * h[u];
      p[v] = corner[c][1] * h[v];
      n[a] = s;
      vertex(g, p[0], p[1], p[2], n[0], n[1], n[2]);
    }
    tri(g, base, base + 1, base + 2);
    tri(g, base, base + 2, base + 3);
  }
  return 0;
}

/* Three segments through the origin, coloured by axis. */
static int cross(double arm, gltf_mesh *g) {
  if (alloc_mesh(g, 6, 6) != 0) return -1;
  g->lines = 1;
  for (int a = 0; a < 3; a++) {
    double p[3] = {0, 0, 0}, c[3] = {0, 0, 0};
    c[a] = 1.0;
    p[a] = -arm;
    vertex(g, p[0], p[1], p[2], c[0], c[1], c[2]);
    p[a] = arm;
    vertex(g, p[0], p[1], p[2], c[0], c[1], c[2]);
    g->idx[g->ni] = (unsigned)g->ni;
    g->idx[g->ni + 1] = (unsigned)g->ni + 1;
    g->ni += 2;
  }
  return 0;
}

int gltf_mesh_build(mech_shape shape, const double size[3], gltf_mesh *out) {
  memset(out, 0, sizeof *out);
  switch (shape) {
  case MECH_SHAPE_BOX:
    return box(size, out);
  case MECH_SHAPE_SPHERE:
    return round_solid(size[0], 0.0, out);
  case MECH_SHAPE_CYLINDER:
    return cylinder(size[0], 0.5 * size[1], out);
  case MECH_SHAPE_CAPSULE:
    return round_solid(size[0], 0.5 * size[1], out);
  case MECH_SHAPE_NONE:
  default:
    return cross(size[0], out);
  }
}

void gltf_mesh_free(gltf_mesh *g) {
  free(g->pos);
  free(g->attr);
  free(g->idx);
  memset(g, 0, sizeof *g);
}
