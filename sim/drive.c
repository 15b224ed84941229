/* drive.c -- see drive.h. */
#include "drive.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A number from token tok; 1 if it is one and finite. */
static int number(const char *tok, double *out) {
  char *end;
  errno = 0;
  *out = strtod(tok, &end);
  return tok[0] != '\0' && *end == '\0' && errno == 0 && isfinite(*out);
}

gen_status drive_load(arena *a, const char *path, const mech *m, drive_script *out, diag_list *d) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    diag_error(d, path, 0, "cannot open drive script: %s", strerror(errno));
    return GEN_ERR_IO;
  }
  gen_status st = drive_read(a, path, f, m, out, d);
  fclose(f);
  return st;
}

gen_status drive_read(arena *a, const char *path, FILE *f, const mech *m, drive_script *out, diag_list *d) {
  memset(out, 0, sizeof *out);
  int cap = 16, errors = 0, line = 0;
  out->ev = ARENA_ARRAY(a, drive_event, cap);
  char buf[512];
  double last = 0.0;
  while (fgets(buf, sizeof buf, f)) {
    line++;
    if (strchr(buf, '\n') == NULL && !feof(f)) {
      diag_error(d, path, line, "line longer than %d characters", (int)sizeof buf - 2);
      errors++;
      int c;
      while ((c = fgetc(f)) != EOF && c != '\n') {
      }
      continue;
    }
    char *hash = strchr(buf, '#');
    if (hash) *hash = '\0';
    char *tok[5];
    int nt = 0;
    for (char *s = strtok(buf, " \t\r\n"); s; s = strtok(NULL, " \t\r\n")) {
      if (nt < 5) tok[nt] = s;
      nt++;
    }
    if (nt == 0) continue;
    if (nt < 3 || nt > 4) {
      diag_error(d, path, line, "expected 'TIME JOINT SPEED [MAX_FORCE]' (got %d fields)", nt);
      errors++;
      continue;
    }
    drive_event e = {0, -1, 0, 0, -1};
    const int j = mech_find_constraint(m, tok[1]);
    if (!number(tok[0], &e.time) || e.time < 0) {
      diag_error(d, path, line, "time '%s' must be a number >= 0", tok[0]);
      errors++;
    } else if (e.time < last) {
      diag_error(d, path, line, "time %g is earlier than the line before (%g): times must not decrease", e.time,
                 last);
      errors++;
    } else if (j < 0) {
      diag_error(d, path, line, "unknown constraint '%s' in mechanism '%s'", tok[1], m->name);
      errors++;
    } else if (m->cons[j].type != RT_MOTOR && m->cons[j].type != RT_ROD) {
      diag_error(d, path, line, "constraint '%s' is a %s: only motors and rods can be driven", tok[1],
                 rt_joint_type_name(m->cons[j].type));
      errors++;
    } else if (!number(tok[2], &e.speed)) {
      diag_error(d, path, line, "speed '%s' must be a finite number", tok[2]);
      errors++;
    } else if (nt == 4 && (m->cons[j].type != RT_MOTOR || !number(tok[3], &e.max_force) || e.max_force < 0)) {
      diag_error(d, path, line, "max force '%s' must be a number >= 0, and only motors take one", tok[3]);
      errors++;
    } else {
      e.joint = j;
      e.motor = m->cons[j].type == RT_MOTOR;
      last = e.time;
      if (out->n == cap) {
        drive_event *grown = ARENA_ARRAY(a, drive_event, 2 * cap);
        memcpy(grown, out->ev, sizeof *grown * (size_t)cap);
        out->ev = grown;
        cap *= 2;
      }
      out->ev[out->n++] = e;
    }
  }
  if (ferror(f)) {
    diag_error(d, path, 0, "read error");
    return GEN_ERR_IO;
  }
  return errors ? GEN_ERR_INPUT : GEN_OK;
}

void drive_apply(rt_world *w, int step, double t, void *ctx) {
  (void)step;
  drive_script *s = ctx;
  /* half a microsecond of slack: step times are sums of dt */
  while (s->next < s->n && s->ev[s->next].time <= t + 5e-7) {
    const drive_event *e = &s->ev[s->next++];
    if (e->motor)
      rt_world_set_motor(w, e->joint, e->speed, e->max_force >= 0 ? e->max_force : rt_world_motor_max_force(w, e->joint));
    else
      rt_world_set_drive(w, e->joint, e->speed);
  }
}
