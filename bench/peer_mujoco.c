/* peer_mujoco.c -- see peer_mujoco.h. */
#define _POSIX_C_SOURCE 200809L
#include "peer_mujoco.h"

#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { HINGE_SPAN_CM = 25 }; /* the two connects of a hinge closing a loop */

struct pm_world {
  const mech *m;
  mjModel *model;
  mjData *data;
  int dirty;       /* stepped since the last mj_forward */
  int *id;         /* per body: MuJoCo's body id */
  int *eq_of;      /* driven rods: their tendon equality; -1 */
  double *length;  /* driven rods: current rest length */
  double *dist0;   /* rods: anchor distance at the initial pose */
  char *xml;
  char unmapped[1024];
};

/*---- the tree ------------------------------------------------------------------*/

/* Body graph nodes: mechanism bodies 0..nbody-1, the world nbody (fixed
 * bodies are joined to it before anything else). */
static int find(int *up, int i) {
  while (up[i] != i) i = up[i] = up[up[i]];
  return i;
}

static int node(const mech *m, int body) { return body == MECH_WORLD ? m->nbody : body; }

/* Which equality constraints may be tree joints, and in which order they
 * are taken: those with no loop form first. */
static int tree_rank(rt_joint_type t) {
  switch (t) {
  case RT_PRISMATIC:
  case RT_CYLINDRICAL:
  case RT_UNIVERSAL:
    return 0;
  case RT_HINGE:
    return 1;
  case RT_BALL:
    return 2;
  case RT_WELD:
    return 3;
  default:
    return -1;
  }
}

typedef struct tree {
  int *in_tree;   /* per constraint: a tree joint */
  int *parent;    /* per body: its parent body (MECH_WORLD), or -2 for a root with a free joint */
  int *joint;     /* per body: the tree constraint to its parent, -1 */
  int *order;     /* bodies, parents before children */
} tree;

/* Makes the tree constraints' other bodies children of body b. */
static void expand(const mech *m, tree *t, int b, int *tail) {
  for (int c = 0; c < m->ncons; c++) {
    if (!t->in_tree[c]) continue;
    const mech_constraint *k = &m->cons[c];
    const int other = k->a == b ? k->b : k->b == b ? k->a : -3;
    if (other == -3 || other == MECH_WORLD || t->parent[other] != -3) continue;
    t->parent[other] = b;
    t->joint[other] = c;
    t->order[(*tail)++] = other;
  }
}

static void build_tree(const mech *m, tree *t) {
  const int n = m->nbody;
  int *up = malloc(sizeof *up * (size_t)(n + 1));
  t->in_tree = calloc((size_t)m->ncons + 1, sizeof *t->in_tree);
  t->parent = malloc(sizeof *t->parent * (size_t)(n + 1));
  t->joint = malloc(sizeof *t->joint * (size_t)(n + 1));
  t->order = malloc(sizeof *t->order * (size_t)(n + 1));
  if (!up || !t->in_tree || !t->parent || !t->joint || !t->order) abort();
  for (int i = 0; i <= n; i++) up[i] = i;
  for (int i = 0; i < n; i++)
    if (m->bodies[i].fixed) up[find(up, i)] = find(up, n);
  for (int rank = 0; rank <= 3; rank++)
    for (int c = 0; c < m->ncons; c++) {
      const mech_constraint *k = &m->cons[c];
      if (!mech_is_equality(k) || tree_rank(k->type) != rank) continue;
      const int ra = find(up, node(m, k->a)), rb = find(up, node(m, k->b));
      if (ra == rb) continue;
      up[ra] = rb;
      t->in_tree[c] = 1;
    }
  /* parents: breadth first from the world and the fixed bodies, then from
   * the first body of every tree that does not reach them (a free joint) */
  int head = 0, tail = 0;
  for (int i = 0; i < n; i++) {
    t->parent[i] = -3; /* not reached */
    t->joint[i] = -1;
    if (m->bodies[i].fixed) {
      t->parent[i] = MECH_WORLD;
      t->order[tail++] = i;
    }
  }
  expand(m, t, MECH_WORLD, &tail);
  for (int root = -1; root < n; root++) {
    if (root >= 0) {
      if (t->parent[root] != -3) continue;
      t->parent[root] = -2;
      t->order[tail++] = root;
    }
    while (head < tail) expand(m, t, t->order[head++], &tail);
  }
  free(up);
}

static void free_tree(tree *t) {
  free(t->in_tree);
  free(t->parent);
  free(t->joint);
  free(t->order);
}

/*---- geometry ------------------------------------------------------------------*/

static void quat_conj(const double q[4], double out[4]) {
  out[0] = q[0];
  out[1] = -q[1];
  out[2] = -q[2];
  out[3] = -q[3];
}

static void quat_mul(const double a[4], const double b[4], double out[4]) {
  out[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  out[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  out[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  out[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

static void rotate(const double q[4], const double v[3], double out[3]) {
  const double p[4] = {0, v[0], v[1], v[2]};
  double c[4], t[4], r[4];
  quat_conj(q, c);
  quat_mul(q, p, t);
  quat_mul(t, c, r);
  for (int k = 0; k < 3; k++) out[k] = r[k + 1];
}

/* A world point (is_point) or direction in body i's frame (the world's: as is). */
static void local(const mech *m, int i, const double w[3], int is_point, double out[3]) {
  rt_pose p;
  mech_body_pose(m, i, &p);
  double d[3], c[4];
  for (int k = 0; k < 3; k++) d[k] = w[k] - (is_point ? p.p[k] : 0.0);
  quat_conj(p.q, c);
  rotate(c, d, out);
}

static void vec(FILE *f, const char *attr, const double *v, int n) {
  fprintf(f, " %s=\"", attr);
  for (int k = 0; k < n; k++) fprintf(f, "%s%.17g", k ? " " : "", v[k]);
  fputc('"', f);
}

/*---- the model --------------------------------------------------------------------*/

static void body_name(int body, char *buf, size_t n) {
  if (body == MECH_WORLD)
    snprintf(buf, n, "world");
  else
    snprintf(buf, n, "b%d", body);
}

static void geom(FILE *f, const mech *m, int i) {
  const mech_body *b = &m->bodies[i];
  const double *s = b->shape_size;
  const double mu = b->friction >= 0 ? b->friction : m->settings.friction;
  const int ct = m->settings.collide ? 1 : 0;
  switch (b->shape) {
  case MECH_SHAPE_SPHERE:
    fprintf(f, "<geom type=\"sphere\" size=\"%.17g\"", s[0]);
    break;
  case MECH_SHAPE_BOX:
    fprintf(f, "<geom type=\"box\" size=\"%.17g %.17g %.17g\"", s[0] / 2, s[1] / 2, s[2] / 2);
    break;
  case MECH_SHAPE_CYLINDER:
    fprintf(f, "<geom type=\"cylinder\" size=\"%.17g %.17g\"", s[0], s[1] / 2);
    break;
  case MECH_SHAPE_CAPSULE:
    fprintf(f, "<geom type=\"capsule\" size=\"%.17g %.17g\"", s[0], s[1] / 2);
    break;
  default:
    return;
  }
  fprintf(f, " contype=\"1\" conaffinity=\"%d\" friction=\"%.17g 0.005 0.0001\"/>\n", ct, mu);
}

/* The joints of body i to its parent through tree constraint c. */
static void tree_joints(FILE *f, const mech *m, int i, int c) {
  const mech_constraint *k = &m->cons[c];
  const int child_is_b = k->b == i;
  double pos[3], ax[3], ax2[3];
  local(m, i, child_is_b ? k->anchor_b : k->anchor_a, 1, pos);
  local(m, i, k->axis_a, 0, ax);
  /* ranges from limits on this joint, in the child's sense */
  double lo[2] = {0, 0}, hi[2] = {0, 0};
  int lim[2] = {0, 0}; /* [0] angular, [1] positional */
  for (int l = 0; l < m->ncons; l++) {
    const mech_constraint *q = &m->cons[l];
    if (q->target != c || (q->type != RT_ANGULAR_LIMIT && q->type != RT_POSITIONAL_LIMIT)) continue;
    const int s = q->type == RT_POSITIONAL_LIMIT;
    lim[s] = 1;
    lo[s] = child_is_b ? q->lower : -q->upper;
    hi[s] = child_is_b ? q->upper : -q->lower;
  }
  char range[2][96];
  for (int s = 0; s < 2; s++)
    snprintf(range[s], sizeof range[s], lim[s] ? " limited=\"true\" range=\"%.17g %.17g\"" : "", lo[s], hi[s]);
  switch (k->type) {
  case RT_HINGE:
    fprintf(f, "<joint type=\"hinge\"");
    vec(f, "pos", pos, 3);
    vec(f, "axis", ax, 3);
    fprintf(f, "%s/>\n", range[0]);
    break;
  case RT_PRISMATIC:
    fprintf(f, "<joint type=\"slide\"");
    vec(f, "pos", pos, 3);
    vec(f, "axis", ax, 3);
    fprintf(f, "%s/>\n", range[1]);
    break;
  case RT_CYLINDRICAL:
    fprintf(f, "<joint type=\"slide\"");
    vec(f, "pos", pos, 3);
    vec(f, "axis", ax, 3);
    fprintf(f, "%s/>\n<joint type=\"hinge\"", range[1]);
    vec(f, "pos", pos, 3);
    vec(f, "axis", ax, 3);
    fprintf(f, "%s/>\n", range[0]);
    break;
  case RT_UNIVERSAL: /* the parent's axis first, then the child's */
    local(m, i, child_is_b ? k->axis_a : k->axis_b, 0, ax);
    local(m, i, child_is_b ? k->axis_b : k->axis_a, 0, ax2);
    fprintf(f, "<joint type=\"hinge\"");
    vec(f, "pos", pos, 3);
    vec(f, "axis", ax, 3);
    fprintf(f, "/>\n<joint type=\"hinge\"");
    vec(f, "pos", pos, 3);
    vec(f, "axis", ax2, 3);
    fprintf(f, "/>\n");
    break;
  case RT_BALL:
    fprintf(f, "<joint type=\"ball\"");
    vec(f, "pos", pos, 3);
    fprintf(f, "/>\n");
    break;
  default: /* a weld: rigidly attached */
    break;
  }
}

static void write_body(FILE *f, const mech *m, const tree *t, int i) {
  const mech_body *b = &m->bodies[i];
  rt_pose p, pp;
  mech_body_pose(m, i, &p);
  mech_body_pose(m, t->parent[i] >= 0 ? t->parent[i] : MECH_WORLD, &pp);
  double rel[3], d[3], c[4], q[4];
  for (int k = 0; k < 3; k++) d[k] = p.p[k] - pp.p[k];
  quat_conj(pp.q, c);
  rotate(c, d, rel);
  quat_mul(c, p.q, q);
  fprintf(f, "<body name=\"b%d\"", i);
  vec(f, "pos", rel, 3);
  vec(f, "quat", q, 4);
  fprintf(f, ">\n");
  if (!b->fixed) {
    fprintf(f, "<inertial pos=\"0 0 0\" mass=\"%.17g\"", b->mass);
    vec(f, "diaginertia", b->inertia, 3);
    fprintf(f, "/>\n");
    if (t->parent[i] == -2)
      fprintf(f, "<freejoint/>\n");
    else if (t->joint[i] >= 0)
      tree_joints(f, m, i, t->joint[i]);
  }
  geom(f, m, i);
  /* sites of rods closing loops */
  for (int c2 = 0; c2 < m->ncons; c2++) {
    const mech_constraint *k = &m->cons[c2];
    if (k->type != RT_ROD) continue;
    double s[3];
    if (k->a == i) {
      local(m, i, k->anchor_a, 1, s);
      fprintf(f, "<site name=\"r%da\"", c2);
      vec(f, "pos", s, 3);
      fprintf(f, "/>\n");
    }
    if (k->b == i) {
      local(m, i, k->anchor_b, 1, s);
      fprintf(f, "<site name=\"r%db\"", c2);
      vec(f, "pos", s, 3);
      fprintf(f, "/>\n");
    }
  }
  for (int j = 0; j < m->nbody; j++)
    if (t->parent[j] == i) write_body(f, m, t, j);
  fprintf(f, "</body>\n");
}

static void add_unmapped(pm_world *w, const mech_constraint *k, const char *why) {
  const size_t used = strlen(w->unmapped);
  snprintf(w->unmapped + used, sizeof w->unmapped - used, "%s%s (%s%s%s)", used ? ", " : "", k->name,
           rt_joint_type_name(k->type), why ? ": " : "", why ? why : "");
}

/* The MJCF text; 0, or -1 with why if an equality constraint has no form. */
static int write_model(pm_world *w, FILE *f, int newton, int iterations, char *why, size_t n) {
  const mech *m = w->m;
  const mech_settings *s = &m->settings;
  tree t;
  build_tree(m, &t);
  int rc = 0;
  for (int c = 0; c < m->ncons && rc == 0; c++) {
    const mech_constraint *k = &m->cons[c];
    if (!mech_is_equality(k) || t.in_tree[c]) continue;
    if (k->type != RT_BALL && k->type != RT_WELD && k->type != RT_HINGE && k->type != RT_ROD) {
      snprintf(why, n, "%s (%s) closes a loop, which MuJoCo's equalities cannot express", k->name,
               rt_joint_type_name(k->type));
      rc = -1;
    }
  }
  for (int c = 0; c < m->ncons && rc == 0; c++) {
    const mech_constraint *k = &m->cons[c];
    if (k->type == RT_MOTOR) add_unmapped(w, k, "an actuator is a force");
    if (k->type == RT_ROPE) add_unmapped(w, k, NULL);
    if ((k->type == RT_ANGULAR_LIMIT || k->type == RT_POSITIONAL_LIMIT) && !t.in_tree[k->target])
      add_unmapped(w, k, "its joint closes a loop");
  }
  if (rc == 0) {
    fprintf(f, "<mujoco model=\"%s\">\n<compiler angle=\"radian\" inertiafromgeom=\"false\"/>\n", m->name);
    fprintf(f, "<size njmax=\"3000\" nconmax=\"600\"/>\n");
    fprintf(f, "<option timestep=\"%.17g\" solver=\"%s\"", s->dt, newton ? "Newton" : "PGS");
    vec(f, "gravity", s->gravity, 3);
    if (!newton) fprintf(f, " iterations=\"%d\"", iterations);
    fprintf(f, "/>\n<worldbody>\n");
    if (s->has_ground)
      fprintf(f, "<geom type=\"plane\" size=\"0 0 1\" pos=\"0 0 %.17g\" contype=\"0\" conaffinity=\"1\" friction=\"%.17g 0.005 0.0001\"/>\n",
              s->ground_height, s->ground_friction >= 0 ? s->ground_friction : s->friction);
    for (int c = 0; c < m->ncons; c++) { /* sites of rods on the world */
      const mech_constraint *k = &m->cons[c];
      if (k->type != RT_ROD) continue;
      if (k->a == MECH_WORLD) fprintf(f, "<site name=\"r%da\" pos=\"%.17g %.17g %.17g\"/>\n", c, k->anchor_a[0], k->anchor_a[1], k->anchor_a[2]);
      if (k->b == MECH_WORLD) fprintf(f, "<site name=\"r%db\" pos=\"%.17g %.17g %.17g\"/>\n", c, k->anchor_b[0], k->anchor_b[1], k->anchor_b[2]);
    }
    for (int i = 0; i < m->nbody; i++)
      if (t.parent[i] == MECH_WORLD || t.parent[i] == -2) write_body(f, m, &t, i);
    fprintf(f, "</worldbody>\n<tendon>\n");
    for (int c = 0; c < m->ncons; c++)
      if (m->cons[c].type == RT_ROD)
        fprintf(f, "<spatial name=\"t%d\"><site site=\"r%da\"/><site site=\"r%db\"/></spatial>\n", c, c, c);
    fprintf(f, "</tendon>\n<equality>\n");
    for (int c = 0; c < m->ncons; c++) {
      const mech_constraint *k = &m->cons[c];
      if (!mech_is_equality(k) || t.in_tree[c]) continue;
      char b1[32], b2[32];
      body_name(k->a, b1, sizeof b1);
      body_name(k->b, b2, sizeof b2);
      double p[3], q[3], e[3];
      switch (k->type) {
      case RT_BALL:
        local(m, k->a, k->anchor_a, 1, p);
        fprintf(f, "<connect body1=\"%s\" body2=\"%s\"", b1, b2);
        vec(f, "anchor", p, 3);
        fprintf(f, "/>\n");
        break;
      case RT_WELD:
        fprintf(f, "<weld body1=\"%s\" body2=\"%s\"/>\n", b1, b2);
        break;
      case RT_HINGE:
        for (int j = 0; j < 3; j++) e[j] = k->anchor_a[j] + HINGE_SPAN_CM * 0.01 * k->axis_a[j];
        local(m, k->a, k->anchor_a, 1, p);
        local(m, k->a, e, 1, q);
        fprintf(f, "<connect body1=\"%s\" body2=\"%s\"", b1, b2);
        vec(f, "anchor", p, 3);
        fprintf(f, "/>\n<connect body1=\"%s\" body2=\"%s\"", b1, b2);
        vec(f, "anchor", q, 3);
        fprintf(f, "/>\n");
        break;
      case RT_ROD:
        fprintf(f, "<tendon tendon1=\"t%d\"/>\n", c);
        break;
      default:
        break;
      }
    }
    fprintf(f, "</equality>\n</mujoco>\n");
  }
  free_tree(&t);
  return rc;
}

pm_world *pm_create(const mech *m, int newton, int iterations, char *why, size_t n) {
  pm_world *w = calloc(1, sizeof *w);
  if (!w) abort();
  w->m = m;
  size_t len = 0;
  FILE *f = open_memstream(&w->xml, &len);
  if (!f) abort();
  const int rc = write_model(w, f, newton, iterations, why, n);
  fclose(f);
  if (rc != 0) {
    pm_destroy(w);
    return NULL;
  }
  mjVFS *vfs = malloc(sizeof *vfs);
  if (!vfs) abort();
  mj_defaultVFS(vfs);
  const char *file = "model.xml";
  if (mj_makeEmptyFileVFS(vfs, file, (int)len) == 0) {
    memcpy(vfs->filedata[vfs->nfile - 1], w->xml, len);
    char err[512] = "";
    w->model = mj_loadXML(file, vfs, err, sizeof err);
    if (!w->model) snprintf(why, n, "MuJoCo refused the model: %s", err);
  }
  mj_deleteVFS(vfs);
  free(vfs);
  if (!w->model) {
    pm_destroy(w);
    return NULL;
  }
  w->data = mj_makeData(w->model);
  w->eq_of = malloc(sizeof *w->eq_of * ((size_t)m->ncons + 1));
  w->length = calloc((size_t)m->ncons + 1, sizeof *w->length);
  w->dist0 = calloc((size_t)m->ncons + 1, sizeof *w->dist0);
  w->id = malloc(sizeof *w->id * ((size_t)m->nbody + 1));
  if (!w->data || !w->eq_of || !w->length || !w->dist0 || !w->id) abort();
  for (int i = 0; i < m->nbody; i++) {
    char name[32];
    snprintf(name, sizeof name, "b%d", i);
    w->id[i] = mj_name2id(w->model, mjOBJ_BODY, name);
  }
  /* equalities are numbered in the order write_model wrote them */
  int eq = 0;
  tree t;
  build_tree(m, &t);
  for (int c = 0; c < m->ncons; c++) {
    const mech_constraint *k = &m->cons[c];
    w->eq_of[c] = -1;
    if (!mech_is_equality(k) || t.in_tree[c]) continue;
    if (k->type == RT_ROD) {
      double d2 = 0;
      for (int j = 0; j < 3; j++) d2 += (k->anchor_b[j] - k->anchor_a[j]) * (k->anchor_b[j] - k->anchor_a[j]);
      w->dist0[c] = sqrt(d2);
      w->length[c] = k->length;
      w->eq_of[c] = eq;
      w->model->eq_data[mjNEQDATA * eq] = k->length - w->dist0[c];
    }
    eq += k->type == RT_HINGE ? 2 : 1;
  }
  free_tree(&t);
  mj_forward(w->model, w->data);
  return w;
}

void pm_destroy(pm_world *w) {
  if (!w) return;
  if (w->data) mj_deleteData(w->data);
  if (w->model) mj_deleteModel(w->model);
  free(w->id);
  free(w->eq_of);
  free(w->length);
  free(w->dist0);
  free(w->xml);
  free(w);
}

const char *pm_unmapped(const pm_world *w) { return w->unmapped; }
const char *pm_xml(const pm_world *w) { return w->xml; }

void pm_step(pm_world *w) {
  const mech *m = w->m;
  for (int c = 0; c < m->ncons; c++) { /* driven rods, as rows.c drives ours */
    const mech_constraint *k = &m->cons[c];
    if (w->eq_of[c] < 0 || k->speed == 0.0) continue;
    double len = w->length[c] + k->speed * m->settings.dt;
    len = len < k->lower ? k->lower : len > k->upper ? k->upper : len;
    w->length[c] = len;
    w->model->eq_data[mjNEQDATA * w->eq_of[c]] = len - w->dist0[c];
  }
  mj_step(w->model, w->data);
  w->dirty = 1;
}

void pm_body(const pm_world *cw, int i, rt_pose *pose, double vel[3], double angvel[3]) {
  pm_world *w = (pm_world *)cw;
  if (w->dirty) { /* poses and velocities of the current state */
    mj_forward(w->model, w->data);
    w->dirty = 0;
  }
  const int id = w->id[i];
  const mjtNum *p = w->data->xpos + 3 * id, *q = w->data->xquat + 4 * id;
  mjtNum v[6];
  mj_objectVelocity(w->model, w->data, mjOBJ_BODY, id, v, 0);
  for (int k = 0; k < 3; k++) {
    pose->p[k] = p[k];
    angvel[k] = v[k];
    vel[k] = v[3 + k];
  }
  for (int k = 0; k < 4; k++) pose->q[k] = q[k];
}

int pm_rows(const pm_world *w) { return w->data->nefc; }
