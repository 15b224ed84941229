/* load_settings.c -- the mechanism file's optional `settings` table. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "load_internal.h"

//---- settings -------------------------------------------------------------------

static const char *const settings_fields[] = {"gravity", "dt",       "iterations", "epsilon", "beta",         "shatter",
                                              "ground",  "friction", "probe",      "collide", "max_contacts", "stabilize", NULL};
static const char *const ground_fields[] = {"height", "friction", NULL};

static void read_ground(const tbl *t, mech_settings *s) {
  loader *ld = t->ld;
  lua_State *L = ld->L;
  int ty = load_field(t, "ground");
  if (ty == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
    s->has_ground = 0;
  } else if (ty == LUA_TTABLE) {
    tbl g = load_sub_table(ld, -1, t->line, "settings.ground");
    load_check_fields(&g, ground_fields);
    s->has_ground = 1;
    load_get_number(&g, "height", &s->ground_height);
    if (load_get_number(&g, "friction", &s->ground_friction) > 0 && !(s->ground_friction >= 0))
      load_range_error(&g, "friction", ">= 0", s->ground_friction);
  } else if (ty != LUA_TNIL) {
    load_err(ld, t->line, "%s: field 'ground' must be false or a table { height = h, friction = f } (got %s)", t->what,
        ty == LUA_TBOOLEAN ? "true" : load_type_of(L, -1));
  }
  lua_pop(L, 1);
}

void load_read_settings(const tbl *top) {
  loader *ld = top->ld;
  lua_State *L = ld->L;
  mech_settings *s = &ld->m.settings;
  mech_default_settings(s);
  int ty = load_field(top, "settings");
  if (ty == LUA_TNIL) {
    lua_pop(L, 1);
    return;
  }
  if (ty != LUA_TTABLE) {
    load_err(ld, top->line, "%s: field 'settings' must be a table (got %s)", top->what, load_type_of(L, -1));
    lua_pop(L, 1);
    return;
  }
  tbl t = load_sub_table(ld, -1, top->line, "settings");
  load_check_fields(&t, settings_fields);
  load_get_vec(&t, "gravity", 3, s->gravity);
  if (load_get_number(&t, "dt", &s->dt) > 0 && !(s->dt > 0)) load_range_error(&t, "dt", "> 0", s->dt);
  load_get_int(&t, "iterations", 1, &s->iterations);
  if (load_get_number(&t, "epsilon", &s->epsilon) > 0 && !(s->epsilon >= 0 && s->epsilon < 1))
    load_range_error(&t, "epsilon", "in [0, 1)", s->epsilon);
  if (load_get_number(&t, "beta", &s->beta) > 0 && !(s->beta >= 0 && s->beta <= 1))
    load_range_error(&t, "beta", "in [0, 1]", s->beta);
  if (load_field(&t, "shatter") == LUA_TBOOLEAN) {
    if (lua_toboolean(L, -1))
      load_err(ld, t.line, "%s: field 'shatter' must be an integer >= 1 or false (got true)", t.what);
    else
      s->shatter = 0;
  } else {
    load_get_int(&t, "shatter", 1, &s->shatter);
  }
  lua_pop(L, 1);
  read_ground(&t, s);
  if (load_get_number(&t, "friction", &s->friction) > 0 && !(s->friction >= 0))
    load_range_error(&t, "friction", ">= 0", s->friction);
  load_get_bool(&t, "collide", &s->collide);
  load_get_bool(&t, "stabilize", &s->stabilize);
  if (load_get_int(&t, "max_contacts", 1, &s->max_contacts) > 0 && s->max_contacts > RT_MAX_CONTACTS)
    load_err(ld, t.line, "%s: field 'max_contacts' must be at most %d (got %s)", t.what, RT_MAX_CONTACTS,
        load_num(ld, s->max_contacts));
  load_get_string(&t, "probe", &ld->probe);
  ld->probe_line = t.line;
  lua_pop(L, 1);
}

