/* test_gltf.c -- the glTF writer and recorder (sim/gltf.h), the viewer's page
 * writer (sim/viewer.h) and ldlsim's --gltf / --html options.
 *
 * What is checked:
 * - the .glb's structure: header magic, version and length, a JSON chunk
 *   then a BIN chunk, both 4-byte aligned; the JSON (parsed here by a small
 *   reader) names one node per body in mechanism order with a mesh of the
 *   body's shape (collision shape first, else the inertia's solid, else an
 *   axis cross drawn as lines), one animation with a translation and a
 *   rotation channel per node whose accessors count the recorded samples,
 *   and buffer views inside the BIN chunk;
 * - the recording: samples at 0, every K steps and the last step, strictly
 *   increasing times, the per-body error as the largest
 *   rt_world_joint_error of the joints at the body, no reallocation while
 *   stepping;
 * - the z-up to +Y-up conversion of positions and rotations;
 * - the page: the template's marker replaced by the data, whose glb is the
 *   base64 of gltf_write's bytes; a template without the marker refused;
 * - ldlsim: --gltf and --html files, usage errors (exit 2), a bad output
 *   path (exit 1, nothing left behind). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "diag.h"
#include "gltf.h"
#include "load.h"
#include "mechworld.h"
#include "program.h"
#include "rtprog.h"
#include "simrun.h"
#include "test_proc.h"
#include "viewer.h"

/*---- a small JSON reader (enough for the glTF document) ----------------------------*/

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jv {
  jtype type;
  double num;
  char *str;        /* J_STR */
  int n;            /* J_ARR, J_OBJ: items */
  char **keys;      /* J_OBJ */
  struct jv *items;
} jv;

typedef struct jreader {
  const char *p, *end;
  int bad;
} jreader;

static void skip_ws(jreader *r) {
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t')) r->p++;
}

static char *read_string(jreader *r) {
  if (r->p >= r->end || *r->p != '"') {
    r->bad = 1;
    return NULL;
  }
  r->p++;
  char *s = malloc((size_t)(r->end - r->p) + 1);
  assert_non_null(s);
  size_t n = 0;
  while (r->p < r->end && *r->p != '"') {
    char c = *r->p++;
    if (c == '\\' && r->p < r->end) {
      c = *r->p++;
      if (c == 'u' && r->end - r->p >= 4) {
        char hex[5] = {r->p[0], r->p[1], r->p[2], r->p[3], 0};
        c = (char)strtol(hex, NULL, 16);
        r->p += 4;
      } else if (c == 'n') {
        c = '\n';
      }
    }
    s[n++] = c;
  }
  s[n] = '\0';
  if (r->p >= r->end) r->bad = 1;
  r->p++;
  return s;
}

static void read_value(jreader *r, jv *v);

static void push(jv *v, jv *item, char *key) {
  v->items = realloc(v->items, sizeof *v->items * (size_t)(v->n + 1));
  assert_non_null(v->items);
  if (v->type == J_OBJ) {
    v->keys = realloc(v->keys, sizeof *v->keys * (size_t)(v->n + 1));
    assert_non_null(v->keys);
    v->keys[v->n] = key;
  }
  v->items[v->n++] = *item;
}

static void read_value(jreader *r, jv *v) {
  memset(v, 0, sizeof *v);
  skip_ws(r);
  if (r->p >= r->end) {
    r->bad = 1;
    return;
  }
  const char c = *r->p;
  if (c == '{' || c == '[') {
    v->type = c == '{' ? J_OBJ : J_ARR;
    r->p++;
    skip_ws(r);
    if (r->p < r->end && *r->p == (c == '{' ? '}' : ']')) {
      r->p++;
      return;
    }
    while (!r->bad) {
      char *key = NULL;
      skip_ws(r);
      if (v->type == J_OBJ) {
        key = read_string(r);
        skip_ws(r);
        if (r->p >= r->end || *r->p++ != ':') r->bad = 1;
      }
      jv item;
      read_value(r, &item);
      push(v, &item, key);
      skip_ws(r);
      if (r->p < r->end && *r->p == ',') {
        r->p++;
      } else if (r->p < r->end && *r->p == (c == '{' ? '}' : ']')) {
        r->p++;
        return;
      } else {
        r->bad = 1;
      }
    }
  } else if (c == '"') {
    v->type = J_STR;
    v->str = read_string(r);
  } else if (c == 't' || c == 'f' || c == 'n') {
    v->type = c == 'n' ? J_NULL : J_BOOL;
    v->num = c == 't';
    r->p += c == 'f' ? 5 : 4;
  } else {
    char *e;
    v->type = J_NUM;
    v->num = strtod(r->p, &e);
    if (e == r->p) r->bad = 1;
    r->p = e;
  }
}

static void jfree(jv *v) {
  for (int i = 0; i < v->n; i++) {
    jfree(&v->items[i]);
    if (v->keys) free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  free(v->str);
}

static const jv *jget(const jv *o, const char *key) {
  assert_int_equal(o->type, J_OBJ);
  for (int i = 0; i < o->n; i++)
    if (strcmp(o->keys[i], key) == 0) return &o->items[i];
  fail_msg("no member '%s'", key);
  return NULL;
}

static int jhas(const jv *o, const char *key) {
  for (int i = 0; i < o->n; i++)
    if (strcmp(o->keys[i], key) == 0) return 1;
  return 0;
}

static const jv *jat(const jv *a, int i) {
  assert_int_equal(a->type, J_ARR);
  assert_true(i >= 0 && i < a->n);
  return &a->items[i];
}

static int jint(const jv *v) {
  assert_int_equal(v->type, J_NUM);
  return (int)v->num;
}

/*---- .glb structure ----------------------------------------------------------------*/

static uint32_t u32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Checks the container and parses the JSON chunk into *doc; returns the
 * BIN chunk's length. */
static uint32_t parse_glb(const unsigned char *b, size_t len, jv *doc) {
  assert_true(len >= 28);
  assert_int_equal(u32(b), 0x46546C67u); /* "glTF" */
  assert_int_equal(u32(b + 4), 2);
  assert_int_equal(u32(b + 8), len);
  const uint32_t jlen = u32(b + 12);
  assert_int_equal(u32(b + 16), 0x4E4F534Au); /* "JSON" */
  assert_int_equal(jlen % 4, 0);
  assert_true(20 + (size_t)jlen + 8 <= len);
  const unsigned char *bin = b + 20 + jlen;
  const uint32_t blen = u32(bin);
  assert_int_equal(u32(bin + 4), 0x004E4942u); /* "BIN\0" */
  assert_int_equal(blen % 4, 0);
  assert_int_equal(20 + (size_t)jlen + 8 + blen, len);
  jreader r = {(const char *)b + 20, (const char *)b + 20 + jlen, 0};
  read_value(&r, doc);
  assert_false(r.bad);
  skip_ws(&r);
  assert_true(r.p == r.end); /* padding is spaces */
  return blen;
}

/*---- a recorded run of tests/data/shapes.lua -------------------------------------------*/

typedef struct recorded {
  arena a;
  mech m;
  program prog;
  rt_program rp;
  rt_world *w;
  gltf_recording rec;
  simrun_result res;
} recorded;

/* Loads src (or the file path when src is NULL) and steps it `steps`
 * times with a sample every `every`; the world stays alive. */
static void record(recorded *r, const char *path, const char *src, int steps, int every) {
  memset(r, 0, sizeof *r);
  arena_init(&r->a);
  diag_list d;
  diag_init(&d);
  const gen_status st = src ? load_mech_string(&r->a, path, src, NULL, &r->m, &d) : load_mech(&r->a, path, NULL, &r->m, &d);
  if (st != GEN_OK) diag_print(&d, stderr);
  assert_int_equal(st, GEN_OK);
  program_options po;
  program_default_options(&po);
  assert_int_equal(program_build(&r->a, &r->m, &po, &r->prog, &d), GEN_OK);
  diag_free(&d);
  rtprog_build(&r->a, &r->prog, RT_DOUBLE, &r->rp);
  rt_world_desc desc;
  mechworld_desc(&r->a, &r->m, &desc);
  rt_settings s;
  mechworld_settings(&r->m, &s);
  r->w = rt_world_create(&desc, &r->rp, &s, NULL, NULL, 0);
  assert_non_null(r->w);
  assert_int_equal(gltf_record_init(&r->rec, &r->m, s.dt, every, steps), 0);
  simrun_options o = {0};
  o.steps = steps;
  o.probe = -1;
  o.observe = gltf_record_observe;
  o.observe_ctx = &r->rec;
  simrun_run(r->w, &r->m, &o, &r->res);
  gltf_record_finish(&r->rec, r->w, r->res.steps);
}

static void release(recorded *r) {
  gltf_record_free(&r->rec);
  rt_world_destroy(r->w);
  arena_free(&r->a);
}

static char *shapes_path(void) {
  static char path[1024];
  snprintf(path, sizeof path, "%s/tests/data/shapes.lua", SRC_DIR);
  return path;
}

/* Samples at 0, 4, ..., 28 and the last step, 30; no reallocation. */
static void test_recording(void **state) {
  (void)state;
  recorded r;
  record(&r, shapes_path(), NULL, 30, 4);
  const int cap = r.rec.cap;
  assert_int_equal(r.res.steps, 30);
  assert_int_equal(r.rec.n, 9);
  assert_int_equal(r.rec.cap, cap);
  assert_int_equal(cap, 30 / 4 + 2); /* reserved at init: stepping appended only */
  assert_int_equal(r.rec.last_steps, 30);
  const double dt = rt_world_settings(r.w)->dt;
  for (int k = 0; k < 8; k++) assert_float_equal(r.rec.time[k], (float)(4 * k * dt), 1e-6);
  assert_float_equal(r.rec.time[8], (float)(30 * dt), 1e-6);
  for (int k = 1; k < r.rec.n; k++) assert_true(r.rec.time[k] > r.rec.time[k - 1]);
  /* finishing again at the same step adds nothing */
  gltf_record_finish(&r.rec, r.w, 30);
  assert_int_equal(r.rec.n, 9);
  /* the last sample's errors: per body, the largest joint error at it */
  const float *err = r.rec.error + (size_t)8 * r.rec.nbody;
  double want[16] = {0};
  for (int j = 0; j < r.m.ncons; j++) {
    double pos, ang;
    if (rt_world_joint_error(r.w, j, &pos, &ang) != 0) continue;
    const mech_constraint *c = &r.m.cons[j];
    if (c->a >= 0) want[c->a] = fmax(want[c->a], pos);
    if (c->b >= 0) want[c->b] = fmax(want[c->b], pos);
  }
  int nonzero = 0;
  for (int i = 0; i < r.m.nbody; i++) {
    assert_float_equal(err[i], (float)want[i], 1e-12);
    nonzero += err[i] > 0;
  }
  assert_true(nonzero >= 3);
  assert_true(gltf_record_max_error(&r.rec) > 0);
  release(&r);
}

static const char *mesh_of(const jv *doc, int node) {
  const int mesh = jint(jget(jat(jget(doc, "nodes"), node), "mesh"));
  return jget(jat(jget(doc, "meshes"), mesh), "name")->str;
}

static void test_glb_structure(void **state) {
  (void)state;
  recorded r;
  record(&r, shapes_path(), NULL, 30, 4);
  size_t len = 0;
  unsigned char *b = gltf_write_memory(&r.rec, "shapes run", &len);
  assert_non_null(b);
  jv doc;
  const uint32_t blen = parse_glb(b, len, &doc);
  assert_string_equal(jget(jget(&doc, "asset"), "version")->str, "2.0");
  /* nodes: one per body, in order, named as in the file */
  const jv *nodes = jget(&doc, "nodes");
  assert_int_equal(nodes->n, r.m.nbody);
  for (int i = 0; i < r.m.nbody; i++) assert_string_equal(jget(jat(nodes, i), "name")->str, r.m.bodies[i].name);
  assert_int_equal(jget(jat(jget(&doc, "scenes"), 0), "nodes")->n, r.m.nbody);
  /* shapes: collision shape, else the solid, else an axis cross (lines) */
  assert_non_null(strstr(mesh_of(&doc, 0), "box 1 x 0.4 x 0.1 (fixed)"));
  assert_non_null(strstr(mesh_of(&doc, 1), "capsule r 0.05 length 0.5"));
  assert_non_null(strstr(mesh_of(&doc, 2), "sphere r 0.12"));
  assert_non_null(strstr(mesh_of(&doc, 3), "cylinder r 0.2 length 0.05"));
  assert_non_null(strstr(mesh_of(&doc, 4), "axis cross"));
  assert_non_null(strstr(mesh_of(&doc, 5), "sphere r 0.1")); /* shape = { sphere }, solid box */
  const jv *meshes = jget(&doc, "meshes"), *acc = jget(&doc, "accessors"), *views = jget(&doc, "bufferViews");
  for (int k = 0; k < meshes->n; k++) {
    const jv *prim = jat(jget(jat(meshes, k), "primitives"), 0);
    const int lines = strstr(jget(jat(meshes, k), "name")->str, "axis cross") != NULL;
    assert_int_equal(jhas(prim, "mode") ? jint(jget(prim, "mode")) : 4, lines ? 1 : 4);
    const jv *attrs = jget(prim, "attributes");
    const int pos = jint(jget(attrs, "POSITION"));
    const int nv = jint(jget(jat(acc, pos), "count"));
    assert_int_equal(jint(jget(jat(acc, jint(jget(attrs, lines ? "COLOR_0" : "NORMAL"))), "count")), nv);
    assert_int_equal(jint(jget(jat(acc, jint(jget(prim, "indices"))), "count")) % (lines ? 2 : 3), 0);
    assert_true(jhas(jat(acc, pos), "min") && jhas(jat(acc, pos), "max"));
  }
  /* the animation: 2 channels per node, every accessor counts the samples */
  const jv *anims = jget(&doc, "animations");
  assert_int_equal(anims->n, 1);
  assert_string_equal(jget(jat(anims, 0), "name")->str, "shapes run");
  const jv *channels = jget(jat(anims, 0), "channels"), *samplers = jget(jat(anims, 0), "samplers");
  assert_int_equal(channels->n, 2 * r.m.nbody);
  for (int c = 0; c < channels->n; c++) {
    const jv *target = jget(jat(channels, c), "target");
    const jv *smp = jat(samplers, jint(jget(jat(channels, c), "sampler")));
    const int node = jint(jget(target, "node"));
    const int rot = strcmp(jget(target, "path")->str, "rotation") == 0;
    assert_int_equal(node, c / 2);
    assert_int_equal(rot, c % 2);
    assert_int_equal(jint(jget(jat(acc, jint(jget(smp, "input"))), "count")), r.rec.n);
    const jv *out = jat(acc, jint(jget(smp, "output")));
    assert_int_equal(jint(jget(out, "count")), r.rec.n);
    assert_string_equal(jget(out, "type")->str, rot ? "VEC4" : "VEC3");
  }
  const jv *input = jat(acc, jint(jget(jat(samplers, 0), "input")));
  assert_float_equal(jget(input, "max")->items[0].num, r.rec.time[r.rec.n - 1], 0);
  /* buffer views inside the BIN chunk, 4-byte aligned */
  assert_int_equal(jint(jget(jat(jget(&doc, "buffers"), 0), "byteLength")), blen);
  for (int k = 0; k < views->n; k++) {
    const int off = jint(jget(jat(views, k), "byteOffset")), n = jint(jget(jat(views, k), "byteLength"));
    assert_int_equal(off % 4, 0);
    assert_true(off + n <= (int)blen);
  }
  jfree(&doc);
  free(b);
  release(&r);
}

/* A body at (1, 2, 3) turned 90 degrees about z: glTF translation (1, 3, -2),
 * and the node rotation maps body x (world y) to glTF (0, 0, -1). */
static void test_y_up(void **state) {
  (void)state;
  static const char *src =
      "return { name = 'one', bodies = { { name = 'b', mass = 1, box = { 1, 1, 1 }, pos = { 1, 2, 3 },\n"
      "  rot = { 0.7071067811865476, 0, 0, 0.7071067811865476 } } }, constraints = {} }\n";
  arena a;
  arena_init(&a);
  diag_list d;
  diag_init(&d);
  mech m;
  assert_int_equal(load_mech_string(&a, "one.lua", src, NULL, &m, &d), GEN_OK);
  gltf_recording rec;
  assert_int_equal(gltf_record_init(&rec, &m, 1.0 / 60, 1, 0), 0); /* no samples: the initial pose */
  size_t len;
  unsigned char *b = gltf_write_memory(&rec, NULL, &len);
  assert_non_null(b);
  jv doc;
  parse_glb(b, len, &doc);
  assert_false(jhas(&doc, "animations"));
  const jv *node = jat(jget(&doc, "nodes"), 0), *t = jget(node, "translation"), *q = jget(node, "rotation");
  assert_float_equal(t->items[0].num, 1, 1e-6);
  assert_float_equal(t->items[1].num, 3, 1e-6);
  assert_float_equal(t->items[2].num, -2, 1e-6);
  const double x = q->items[0].num, y = q->items[1].num, z = q->items[2].num, w = q->items[3].num;
  /* R(q) (1, 0, 0) = (1 - 2(y^2 + z^2), 2(xy + wz), 2(xz - wy)) */
  assert_float_equal(1 - 2 * (y * y + z * z), 0, 1e-6);
  assert_float_equal(2 * (x * y + w * z), 0, 1e-6);
  assert_float_equal(2 * (x * z - w * y), -1, 1e-6);
  /* and body z (world z, up) to glTF +y */
  assert_float_equal(2 * (y * z - w * x), 1, 1e-6); /* y of R(q) (0, 0, 1) */
  jfree(&doc);
  free(b);
  gltf_record_free(&rec);
  diag_free(&d);
  arena_free(&a);
}

/*---- the page --------------------------------------------------------------------------*/

static unsigned char *unbase64(const char *s, size_t n, size_t *len) {
  unsigned char *out = malloc(n);
  assert_non_null(out);
  size_t k = 0;
  uint32_t v = 0;
  int bits = 0;
  for (size_t i = 0; i < n && s[i] != '='; i++) {
    const char *digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = strchr(digits, s[i]);
    assert_non_null(p);
    v = v << 6 | (uint32_t)(p - digits);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[k++] = (unsigned char)(v >> bits);
    }
  }
  *len = k;
  return out;
}

static void test_page(void **state) {
  (void)state;
  recorded r;
  record(&r, shapes_path(), NULL, 12, 1);
  static const unsigned char tpl[] = "<p>before</p><script>@LDLPGS_DATA@</script><p>after</p>";
  const viewer_run vr = {"LDL-PGS", &r.rec, r.res.steps, 0, ""};
  const viewer_scene sc = {"shapes", "a caption with </script>", &vr, 1, 0},
                     convoy = {"together", NULL, &vr, 1, 1};
  const viewer_scene both[2] = {sc, convoy};
  char *page = NULL;
  size_t plen = 0;
  FILE *f = open_memstream(&page, &plen);
  assert_int_equal(viewer_write(f, tpl, sizeof tpl - 1, "title", both, 2), GEN_OK);
  fclose(f);
  assert_true(strncmp(page, "<p>before</p><script>{", 22) == 0);
  assert_non_null(strstr(page, "}</script><p>after</p>"));
  assert_null(strstr(page, "@LDLPGS_DATA@"));
  assert_null(strstr(page, "with </script>")); /* '<' escaped inside the data */
  /* the data: one scene, one run, whose glb is gltf_write's bytes */
  const char *data = page + 21, *end = strstr(page, "</script><p>after");
  jreader jr = {data, end, 0};
  jv doc;
  read_value(&jr, &doc);
  assert_false(jr.bad);
  const jv *run0 = jat(jget(jat(jget(&doc, "scenes"), 0), "runs"), 0);
  /* each scene says whether its runs start together in one view */
  const jv *t0 = jget(jat(jget(&doc, "scenes"), 0), "together"), *t1 = jget(jat(jget(&doc, "scenes"), 1), "together");
  assert_int_equal(t0->type, J_BOOL);
  assert_int_equal(t1->type, J_BOOL);
  assert_true(t0->num == 0 && t1->num == 1);
  assert_string_equal(jget(run0, "label")->str, "LDL-PGS");
  assert_int_equal(jint(jget(run0, "samples")), r.rec.n);
  assert_int_equal(jint(jget(run0, "steps")), 12);
  size_t glen, want_len, elen;
  const char *g = jget(run0, "glb")->str, *e = jget(run0, "error")->str;
  unsigned char *glb = unbase64(g, strlen(g), &glen), *want = gltf_write_memory(&r.rec, "LDL-PGS", &want_len);
  assert_int_equal(glen, want_len);
  assert_memory_equal(glb, want, glen);
  unsigned char *err = unbase64(e, strlen(e), &elen);
  assert_int_equal(elen, 4 * (size_t)r.rec.n * (size_t)r.rec.nbody);
  float e0;
  memcpy(&e0, err + 4 * ((size_t)r.rec.n * (size_t)r.rec.nbody - 1), 4); /* little-endian host */
  assert_float_equal(e0, r.rec.error[(size_t)r.rec.n * (size_t)r.rec.nbody - 1], 0);
  free(err);
  free(glb);
  free(want);
  jfree(&doc);
  free(page);
  /* a template without the marker */
  f = open_memstream(&page, &plen);
  assert_int_equal(viewer_write(f, (const unsigned char *)"<html></html>", 13, "t", &sc, 1), GEN_ERR_INPUT);
  fclose(f);
  free(page);
  release(&r);
}

/*---- ldlsim --------------------------------------------------------------------------*/

static const char *ldlsim_path(void) {
  static char path[1024];
  const char *slash = strrchr(LDLGEN_PATH, '/');
  snprintf(path, sizeof path, "%.*s/ldlsim", (int)(slash - LDLGEN_PATH), LDLGEN_PATH);
  return path;
}

static void test_ldlsim_outputs(void **state) {
  (void)state;
  char dir[] = "/tmp/ldlsim-gltf-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char cmd[4096], out[16384], glb[1200], html[1200];
  snprintf(glb, sizeof glb, "%s/run.glb", dir);
  snprintf(html, sizeof html, "%s/run.html", dir);
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --steps 20 --gltf %s --gltf-every 3 2>&1", ldlsim_path(),
           SRC_DIR, glb);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  size_t len;
  char *b = slurp(glb, &len);
  assert_non_null(b);
  jv doc;
  parse_glb((const unsigned char *)b, len, &doc);
  const jv *acc = jget(&doc, "accessors");
  const jv *smp = jat(jget(jat(jget(&doc, "animations"), 0), "samplers"), 0);
  assert_int_equal(jint(jget(jat(acc, jint(jget(smp, "input"))), "count")), 20 / 3 + 2); /* 0, 3, ..., 18, 20 */
  jfree(&doc);
  free(b);
  /* both solvers into one page: two summaries, a page with its data */
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --steps 20 --solver both --html %s 2>&1", ldlsim_path(),
           SRC_DIR, html);
  assert_int_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "chain: ldlpgs"));
  assert_non_null(strstr(out, "chain: pgs"));
  b = slurp(html, &len);
  assert_non_null(b);
  assert_true(strncmp(b, "<!DOCTYPE html>", 15) == 0);
  assert_null(strstr(b, "@LDLPGS_DATA@"));
  assert_non_null(strstr(b, "\"label\":\"LDL-PGS\""));
  assert_non_null(strstr(b, "\"label\":\"PGS\""));
  free(b);
  unlink(glb);
  unlink(html);
  /* an output that cannot be written: exit 1, naming it; nothing left */
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/chain.lua --steps 3 --gltf %s/no/such/dir/run.glb 2>&1", ldlsim_path(),
           SRC_DIR, dir);
  assert_int_equal(run(cmd, out, sizeof out), 1);
  assert_non_null(strstr(out, "no/such/dir/run.glb"));
  assert_int_equal(rmdir(dir), 0); /* empty */
}

static void test_ldlsim_usage(void **state) {
  (void)state;
  static const char *const bad[] = {
      "--gltf-every 0 --gltf x.glb",     "--gltf-every x --gltf x.glb", "--gltf-every 4",
      "--solver both --gltf x.glb",      "--solver both --json",        "--solver both --csv x.csv",
      "--solver all",                    "--gltf",                      "--html",
      "--check --gltf x.glb",            "--check --html x.html",
  };
  char cmd[2048], out[8192];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(cmd, sizeof cmd, "cd /tmp && %s %s/mechanisms/chain.lua %s 2>&1 >/dev/null", ldlsim_path(), SRC_DIR,
             bad[i]);
    const int rc = run(cmd, out, sizeof out);
    if (rc != 2) fail_msg("ldlsim '%s' exited %d, not 2:\n%s", bad[i], rc, out);
    if (strncmp(out, "ldlsim: ", 8) != 0 && strncmp(out, "usage: ", 7) != 0)
      fail_msg("ldlsim '%s': no message:\n%s", bad[i], out);
  }
  assert_int_equal(access("/tmp/x.glb", F_OK), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_recording),  cmocka_unit_test(test_glb_structure), cmocka_unit_test(test_y_up),
      cmocka_unit_test(test_page),       cmocka_unit_test(test_ldlsim_outputs), cmocka_unit_test(test_ldlsim_usage),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
