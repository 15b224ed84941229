/* gltf.c -- see gltf.h. The .glb is a 12-byte header, a JSON chunk (the
 * glTF document) and a BIN chunk (every accessor's data, one buffer view
 * each, 4-byte aligned, little-endian). */
#define _POSIX_C_SOURCE 200809L
#include "gltf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_mesh.h"
#include "json.h"
#include "outfile.h"

/*---- recording -----------------------------------------------------------------*/

int gltf_default_every(double dt) {
  const double k = floor(1.0 / (60.0 * dt) + 0.5);
  return k >= 1 ? (k < 1e6 ? (int)k : 1000000) : 1;
}

/* Room for cap samples. Returns 0 or -1. */
static int reserve(gltf_recording *r, int cap) {
  if (cap <= r->cap) return 0;
  float *t = realloc(r->time, sizeof *t * (size_t)cap);
  if (t) r->time = t;
  float *p = realloc(r->pose, sizeof *p * 7 * (size_t)cap * (size_t)r->nbody);
  if (p) r->pose = p;
  float *e = realloc(r->error, sizeof *e * (size_t)cap * (size_t)r->nbody);
  if (e) r->error = e;
  if (!t || !p || !e) return -1;
  r->cap = cap;
  return 0;
}

int gltf_record_init(gltf_recording *r, const mech *m, double dt, int every, int steps) {
  memset(r, 0, sizeof *r);
  r->m = m;
  r->dt = dt;
  r->every = every > 0 ? every : 1;
  r->nbody = m->nbody;
  r->last_steps = -1;
  r->eq = malloc(sizeof *r->eq * (size_t)(m->ncons + 1));
  if (!r->eq) return -1;
  for (int j = 0; j < m->ncons; j++)
    if (mech_is_equality(&m->cons[j])) r->eq[r->neq++] = j;
  if (reserve(r, (steps > 0 ? steps / r->every : 0) + 2) != 0) {
    gltf_record_free(r);
    return -1;
  }
  return 0;
}

void gltf_record_free(gltf_recording *r) {
  free(r->time);
  free(r->pose);
  free(r->error);
  free(r->eq);
  memset(r, 0, sizeof *r);
  r->last_steps = -1;
}

/* The rotation C (-90 degrees about x) as a quaternion w, x, y, z. */
#define GLTF_SQRT_HALF 0.70710678118654752440

/* A mechanism pose as a glTF node transform: translation C p, rotation
 * qC q written x, y, z, w. 0 if every component is finite. */
static int to_gltf(const rt_pose *ps, float out[7]) {
  const double *p = ps->p, *q = ps->q, h = GLTF_SQRT_HALF;
  /* qC q with qC = (h, -h, 0, 0): (h w + h x, h x - h w, h y + h z, h z - h y) */
  double r[4] = {h * (q[0] + q[1]), h * (q[1] - q[0]), h * (q[2] + q[3]), h * (q[3] - q[2])};
  const double n = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
  const double v[7] = {p[0], p[2], -p[1], r[1] / n, r[2] / n, r[3] / n, r[0] / n};
  int bad = 0;
  for (int k = 0; k < 7; k++) {
    out[k] = (float)v[k];
    bad |= !isfinite(out[k]);
  }
  return bad ? -1 : 0;
}

static void sample(gltf_recording *r, const rt_world *w, int steps) {
  if (r->n == r->cap && reserve(r, 2 * r->cap + 2) != 0) {
    r->nomem = 1;
    return;
  }
  float *pose = r->pose + (size_t)7 * r->nbody * r->n, *err = r->error + (size_t)r->nbody * r->n;
  for (int i = 0; i < r->nbody; i++) {
    rt_pose p;
    rt_world_body_pose(w, i, &p);
    if (to_gltf(&p, pose + 7 * i) != 0) {
      r->nonfinite = 1;
      return;
    }
    err[i] = 0.0f;
  }
  for (int k = 0; k < r->neq; k++) {
    const mech_constraint *c = &r->m->cons[r->eq[k]];
    double pos, ang;
    if (rt_world_joint_error(w, r->eq[k], &pos, &ang) != 0 || !(pos >= 0)) continue;
    const float e = (float)pos;
    if (c->a >= 0 && e > err[c->a]) err[c->a] = e;
    if (c->b >= 0 && e > err[c->b]) err[c->b] = e;
  }
  float t = (float)(steps * r->dt);
  if (r->n > 0 && !(t > r->time[r->n - 1])) t = nextafterf(r->time[r->n - 1], INFINITY);
  r->time[r->n++] = t;
  r->last_steps = steps;
}

void gltf_record_observe(const rt_world *w, int steps, double time, void *ctx) {
  (void)time;
  gltf_recording *r = ctx;
  if (steps % r->every == 0) sample(r, w, steps);
}

void gltf_record_finish(gltf_recording *r, const rt_world *w, int steps) {
  if (steps > r->last_steps) sample(r, w, steps);
}

double gltf_record_max_error(const gltf_recording *r) {
  double e = 0.0;
  for (size_t k = 0; k < (size_t)r->n * (size_t)r->nbody; k++)
    if (r->error[k] > e) e = r->error[k];
  return e;
}

/*---- binary chunk -----------------------------------------------------------------*/

enum { COMP_FLOAT = 5126, COMP_USHORT = 5123, COMP_UINT = 5125, TARGET_ARRAY = 34962, TARGET_INDEX = 34963 };

typedef struct accessor {
  size_t offset, length; /* its buffer view */
  int target;            /* 0: none */
  int comp, count, ncomp;
  int minmax;
  float min[4], max[4];
} accessor;

typedef struct writer {
  unsigned char *bin;
  size_t n, cap;
  accessor *acc;
  int nacc, capacc;
  int nomem;
} writer;

static void put(writer *w, const void *src, size_t len) {
  if (w->nomem) return;
  if (w->n + len > w->cap) {
    size_t cap = w->cap ? w->cap : 4096;
    while (cap < w->n + len) cap *= 2;
    unsigned char *p = realloc(w->bin, cap);
    if (!p) {
      w->nomem = 1;
      return;
    }
    w->bin = p;
    w->cap = cap;
  }
  memcpy(w->bin + w->n, src, len);
  w->n += len;
}

static void put_u32(writer *w, uint32_t v) {
  const unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                              (unsigned char)(v >> 24)};
  put(w, b, 4);
}

static void put_f32(writer *w, float f) {
  uint32_t v;
  memcpy(&v, &f, 4);
  put_u32(w, v);
}

static void pad4(writer *w) {
  static const unsigned char zero[4] = {0, 0, 0, 0};
  if (w->n % 4) put(w, zero, 4 - w->n % 4);
}

/* A new accessor whose view starts here; -1 out of memory. */
static int begin_accessor(writer *w, int comp, int count, int ncomp, int target) {
  if (w->nomem) return -1;
  if (w->nacc == w->capacc) {
    const int cap = w->capacc ? 2 * w->capacc : 64;
    accessor *a = realloc(w->acc, sizeof *a * (size_t)cap);
    if (!a) {
      w->nomem = 1;
      return -1;
    }
    w->acc = a;
    w->capacc = cap;
  }
  accessor *a = &w->acc[w->nacc];
  memset(a, 0, sizeof *a);
  a->offset = w->n;
  a->comp = comp;
  a->count = count;
  a->ncomp = ncomp;
  a->target = target;
  return w->nacc++;
}

static void end_accessor(writer *w, int k) {
  if (k < 0) return;
  w->acc[k].length = w->n - w->acc[k].offset;
  pad4(w);
}

/* count elements of ncomp floats, element i at data + i * stride; with
 * their bounds (POSITION and animation inputs need them). */
static int add_floats(writer *w, const float *data, int count, int ncomp, size_t stride, int target, int minmax) {
  const int k = begin_accessor(w, COMP_FLOAT, count, ncomp, target);
  if (k < 0) return -1;
  accessor *a = &w->acc[k];
  a->minmax = minmax;
  for (int c = 0; c < ncomp; c++) a->min[c] = INFINITY, a->max[c] = -INFINITY;
  for (int i = 0; i < count; i++)
    for (int c = 0; c < ncomp; c++) {
      const float v = data[(size_t)i * stride + (size_t)c];
      put_f32(w, v);
      if (v < a->min[c]) a->min[c] = v;
      if (v > a->max[c]) a->max[c] = v;
    }
  end_accessor(w, k);
  return w->nomem ? -1 : k;
}

static int add_indices(writer *w, const unsigned *idx, int count, int nv) {
  const int wide = nv > 65535;
  const int k = begin_accessor(w, wide ? COMP_UINT : COMP_USHORT, count, 1, TARGET_INDEX);
  for (int i = 0; i < count && k >= 0; i++) {
    if (wide) {
      put_u32(w, idx[i]);
    } else {
      const unsigned char b[2] = {(unsigned char)idx[i], (unsigned char)(idx[i] >> 8)};
      put(w, b, 2);
    }
  }
  end_accessor(w, k);
  return w->nomem ? -1 : k;
}

/*---- meshes ------------------------------------------------------------------------*/

/* What a body looks like: its collision shape, else the solid of its
 * inertia, else an axis cross (MECH_SHAPE_NONE, size[0] = arm). */
typedef struct look {
  mech_shape shape;
  double size[3];
  int fixed;
} look;

static look body_look(const mech_body *b) {
  look l = {b->shape, {b->shape_size[0], b->shape_size[1], b->shape_size[2]}, b->fixed != 0};
  if (l.shape == MECH_SHAPE_NONE) {
    l.shape = b->solid;
    memcpy(l.size, b->solid_size, sizeof l.size);
  }
  if (l.shape == MECH_SHAPE_NONE) {
    /* small: a third of the radius of a solid sphere with the body's mean
     * moment (I = 2/5 m r^2), within [3 cm, 15 cm] */
    const double i = (b->inertia[0] + b->inertia[1] + b->inertia[2]) / 3.0;
    double arm = !b->fixed && b->mass > 0 && i > 0 ? sqrt(2.5 * i / b->mass) / 3.0 : 0.1;
    arm = fmin(fmax(arm, 0.03), 0.15);
    l.size[0] = arm;
    l.size[1] = l.size[2] = 0.0;
  }
  return l;
}

static int same_look(const look *a, const look *b) {
  return a->shape == b->shape && a->fixed == b->fixed && a->size[0] == b->size[0] && a->size[1] == b->size[1] &&
         a->size[2] == b->size[2];
}

typedef struct mesh_ref {
  look look;
  int pos, attr, idx;    /* accessors */
} mesh_ref;

static const char *const shape_names[] = {"axis cross", "sphere", "box", "cylinder", "capsule"};

static void mesh_name(FILE *f, const look *l) {
  char s[160];
  const double *z = l->size;
  switch (l->shape) {
  case MECH_SHAPE_BOX:
    snprintf(s, sizeof s, "box %g x %g x %g", z[0], z[1], z[2]);
    break;
  case MECH_SHAPE_SPHERE:
    snprintf(s, sizeof s, "sphere r %g", z[0]);
    break;
  case MECH_SHAPE_CYLINDER:
  case MECH_SHAPE_CAPSULE:
    snprintf(s, sizeof s, "%s r %g length %g", shape_names[l->shape], z[0], z[1]);
    break;
  default:
    snprintf(s, sizeof s, "axis cross %g", z[0]);
    break;
  }
  if (l->fixed) strncat(s, " (fixed)", sizeof s - strlen(s) - 1);
  json_write_escaped(f, s);
}

/*---- the document -------------------------------------------------------------------*/

/* Floats as JSON numbers: %.9g reads back as the same float; exact (%.17g
 * of the float's double) reads back as the same double, for accessor
 * bounds, which must match the data whether a reader compares them as
 * floats or as doubles. */
static void num_list(FILE *f, const float *v, int n, int exact) {
  fputc('[', f);
  for (int i = 0; i < n; i++) fprintf(f, exact ? "%s%.17g" : "%s%.9g", i ? "," : "", (double)v[i]);
  fputc(']', f);
}

enum { MAT_BODY, MAT_FIXED, MAT_AXES, NMAT };

static void write_json(FILE *f, const gltf_recording *r, const char *name, const writer *w, const mesh_ref *mesh,
                       int nmesh, const int *body_mesh, const int *mat_index, int time_acc, const int *channel_acc) {
  const mech *m = r->m;
  fputs("{\"asset\":{\"version\":\"2.0\",\"generator\":\"ldlpgs (sim/gltf.c)\"},\"scene\":0,\"scenes\":[{\"name\":", f);
  json_write_escaped(f, m->name);
  fputs(",\"nodes\":[", f);
  for (int i = 0; i < m->nbody; i++) fprintf(f, "%s%d", i ? "," : "", i);
  fputs("]}],\n\"nodes\":[", f);
  for (int i = 0; i < m->nbody; i++) {
    float tr[7];
    if (r->n > 0) {
      memcpy(tr, r->pose + 7 * i, sizeof tr);
    } else {
      rt_pose p;
      mech_body_pose(m, i, &p);
      if (to_gltf(&p, tr) != 0) memcpy(tr, (const float[7]){0, 0, 0, 0, 0, 0, 1}, sizeof tr);
    }
    fprintf(f, "%s\n{\"name\":", i ? "," : "");
    json_write_escaped(f, m->bodies[i].name);
    fprintf(f, ",\"mesh\":%d,\"translation\":", body_mesh[i]);
    num_list(f, tr, 3, 0);
    fputs(",\"rotation\":", f);
    num_list(f, tr + 3, 4, 0);
    fputc('}', f);
  }
  fputs("],\n\"meshes\":[", f);
  for (int k = 0; k < nmesh; k++) {
    const mesh_ref *mr = &mesh[k];
    const int lines = mr->look.shape == MECH_SHAPE_NONE;
    fprintf(f, "%s\n{\"name\":", k ? "," : "");
    mesh_name(f, &mr->look);
    fprintf(f, ",\"primitives\":[{\"attributes\":{\"POSITION\":%d,\"%s\":%d},\"indices\":%d,\"material\":%d%s}]}",
            mr->pos, lines ? "COLOR_0" : "NORMAL", mr->attr, mr->idx,
            mat_index[lines ? MAT_AXES : mr->look.fixed ? MAT_FIXED : MAT_BODY], lines ? ",\"mode\":1" : "");
  }
  fputs("],\n\"materials\":[", f);
  static const char *const materials[NMAT] = {
      "{\"name\":\"body\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.7,0.72,0.76,1],\"metallicFactor\":0.1,"
      "\"roughnessFactor\":0.6}}",
      "{\"name\":\"fixed body\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.35,0.36,0.38,1],"
      "\"metallicFactor\":0,\"roughnessFactor\":0.9}}",
      "{\"name\":\"axes\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[1,1,1,1],\"metallicFactor\":0,"
      "\"roughnessFactor\":1}}",
  };
  for (int k = 0, first = 1; k < NMAT; k++)
    if (mat_index[k] >= 0) {
      fprintf(f, "%s\n%s", first ? "" : ",", materials[k]);
      first = 0;
    }
  fputs("]", f);
  if (time_acc >= 0) {
    fputs(",\n\"animations\":[{\"name\":", f);
    json_write_escaped(f, name ? name : m->name);
    fputs(",\"samplers\":[", f);
    for (int s = 0; s < 2 * m->nbody; s++)
      fprintf(f, "%s\n{\"input\":%d,\"output\":%d,\"interpolation\":\"LINEAR\"}", s ? "," : "", time_acc,
              channel_acc[s]);
    fputs("],\"channels\":[", f);
    for (int s = 0; s < 2 * m->nbody; s++)
      fprintf(f, "%s\n{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"%s\"}}", s ? "," : "", s, s / 2,
              s % 2 ? "rotation" : "translation");
    fputs("]}]", f);
  }
  fputs(",\n\"accessors\":[", f);
  static const char *const types[] = {"", "SCALAR", "", "VEC3", "VEC4"};
  for (int k = 0; k < w->nacc; k++) {
    const accessor *a = &w->acc[k];
    fprintf(f, "%s\n{\"bufferView\":%d,\"componentType\":%d,\"count\":%d,\"type\":\"%s\"", k ? "," : "", k, a->comp,
            a->count, types[a->ncomp]);
    if (a->minmax) {
      fputs(",\"min\":", f);
      num_list(f, a->min, a->ncomp, 1);
      fputs(",\"max\":", f);
      num_list(f, a->max, a->ncomp, 1);
    }
    fputc('}', f);
  }
  fputs("],\n\"bufferViews\":[", f);
  for (int k = 0; k < w->nacc; k++) {
    const accessor *a = &w->acc[k];
    fprintf(f, "%s\n{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu", k ? "," : "", a->offset, a->length);
    if (a->target) fprintf(f, ",\"target\":%d", a->target);
    fputc('}', f);
  }
  fprintf(f, "],\n\"buffers\":[{\"byteLength\":%zu}]}\n", w->n);
}

/* The meshes (one per distinct look) and the animation into w; body_mesh
 * gets each body's mesh. Returns the number of meshes, or -1. */
static int build_meshes(writer *w, const mech *m, mesh_ref *mesh, int *body_mesh) {
  int nmesh = 0;
  for (int i = 0; i < m->nbody; i++) {
    const look l = body_look(&m->bodies[i]);
    int k = 0;
    while (k < nmesh && !same_look(&mesh[k].look, &l)) k++;
    body_mesh[i] = k;
    if (k < nmesh) continue;
    gltf_mesh g;
    if (gltf_mesh_build(l.shape, l.size, &g) != 0) return -1;
    mesh[k].look = l;
    mesh[k].pos = add_floats(w, g.pos, g.nv, 3, 3, TARGET_ARRAY, 1);
    mesh[k].attr = add_floats(w, g.attr, g.nv, 3, 3, TARGET_ARRAY, 0);
    mesh[k].idx = add_indices(w, g.idx, g.ni, g.nv);
    gltf_mesh_free(&g);
    if (w->nomem) return -1;
    nmesh++;
  }
  return nmesh;
}

static void write_u32(FILE *f, uint32_t v) {
  const unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                              (unsigned char)(v >> 24)};
  fwrite(b, 1, 4, f);
}

gen_status gltf_write(FILE *out, const gltf_recording *r, const char *name) {
  const mech *m = r->m;
  writer w = {0};
  mesh_ref *mesh = calloc((size_t)m->nbody + 1, sizeof *mesh);
  int *body_mesh = calloc((size_t)m->nbody + 1, sizeof *body_mesh);
  int *channel = calloc(2 * (size_t)m->nbody + 1, sizeof *channel);
  char *json = NULL;
  size_t jlen = 0;
  gen_status st = GEN_ERR_IO;
  const int nmesh = mesh && body_mesh && channel ? build_meshes(&w, m, mesh, body_mesh) : -1;
  if (nmesh < 0) goto done;
  int mat_index[NMAT] = {-1, -1, -1}, nmat = 0;
  for (int k = 0; k < nmesh; k++) {
    const int mat = mesh[k].look.shape == MECH_SHAPE_NONE ? MAT_AXES : mesh[k].look.fixed ? MAT_FIXED : MAT_BODY;
    mat_index[mat] = 1;
  }
  for (int k = 0; k < NMAT; k++)
    if (mat_index[k] > 0) mat_index[k] = nmat++;
  /* the animation: one time accessor, a translation and a rotation per node */
  int time_acc = -1;
  if (r->n >= 2) {
    time_acc = add_floats(&w, r->time, r->n, 1, 1, 0, 1);
    for (int i = 0; i < m->nbody; i++) {
      channel[2 * i] = add_floats(&w, r->pose + 7 * i, r->n, 3, 7 * (size_t)r->nbody, 0, 0);
      channel[2 * i + 1] = add_floats(&w, r->pose + 7 * i + 3, r->n, 4, 7 * (size_t)r->nbody, 0, 0);
    }
    if (w.nomem) goto done;
  }
  FILE *jf = open_memstream(&json, &jlen);
  if (!jf) goto done;
  write_json(jf, r, name, &w, mesh, nmesh, body_mesh, mat_index, time_acc, channel);
  fflush(jf);
  for (size_t k = jlen; k % 4; k++) fputc(' ', jf); /* the JSON chunk is padded with spaces */
  if (fclose(jf) != 0) goto done;
  const size_t total = 12 + 8 + jlen + 8 + w.n;
  if (total > UINT32_MAX) goto done;
  write_u32(out, 0x46546C67u); /* "glTF" */
  write_u32(out, 2);
  write_u32(out, (uint32_t)total);
  write_u32(out, (uint32_t)jlen);
  write_u32(out, 0x4E4F534Au); /* "JSON" */
  fwrite(json, 1, jlen, out);
  write_u32(out, (uint32_t)w.n);
  write_u32(out, 0x004E4942u); /* "BIN\0" */
  if (w.n) fwrite(w.bin, 1, w.n, out);
  st = ferror(out) ? GEN_ERR_IO : GEN_OK;
done:
  free(json);
  free(w.bin);
  free(w.acc);
  free(mesh);
  free(body_mesh);
  free(channel);
  return st;
}

gen_status gltf_write_file(const char *path, const gltf_recording *r, const char *name, diag_list *d) {
  outfile o;
  gen_status st = outfile_open(&o, path, d);
  if (st != GEN_OK) return st;
  if ((st = gltf_write(o.f, r, name)) != GEN_OK) {
    diag_error(d, path, 0, "cannot write the glTF file (out of memory or write error)");
    outfile_abort(&o);
    return st;
  }
  return outfile_commit(&o, d);
}

unsigned char *gltf_write_memory(const gltf_recording *r, const char *name, size_t *len) {
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  if (!f) return NULL;
  const gen_status st = gltf_write(f, r, name);
  if (fclose(f) != 0 || st != GEN_OK) {
    free(buf);
    return NULL;
  }
  *len = n;
  return (unsigned char *)buf;
}
