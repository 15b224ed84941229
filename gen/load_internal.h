/* load_internal.h -- what the loader's files share (load.c: the top level;
 * load_fields.c: diagnostics, names and typed access to table fields;
 * load_settings.c, load_body.c, load_cons.c: the schema of each part).
 * Internal to gen/: load.h is the interface. */
#ifndef LDLPGS_GEN_LOAD_INTERNAL_H
#define LDLPGS_GEN_LOAD_INTERNAL_H

#include <stdarg.h>

#include <lua.h>

#include "load.h"
#include "rt_world.h"
#include "sandbox.h"

#define NAME_MAX_LEN 64
#define RANK_TOL 1e-9
#define MAX_ERRORS 100     /* diagnostics kept per load */
#define MAX_ENTRIES 1000000 /* bodies or constraints */

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* Name -> index, open addressing (bodies and constraints can be many). */
typedef struct name_index {
  const char **key;
  int *val;
  size_t cap;
} name_index;

typedef struct loader {
  sandbox sb;                      /* the Lua state the chunk ran in */
  lua_State *L;                    /* sb.L */
  arena *a;
  diag_list *d;
  const char *file;                /* name in diagnostics */
  int nerr;
  int top_line;                    /* line of the returned table */
  mech m;
  int bodies_listed;               /* 'bodies' was a valid list: body names resolve */
  name_index body_names, cons_names;
  unsigned char *body_ok;          /* body read without error */
  const char **ref;                /* limits, motors: referenced constraint name */
  unsigned char *cons_ok;          /* constraint read without error */
  const char *probe;               /* settings.probe, resolved after the bodies */
  int probe_line;
} loader;

/* A table being validated: its stack slot, the line for errors about it, and
 * the prefix naming it in messages ("body 'link1'"). */
typedef struct tbl {
  loader *ld;
  int idx;
  int line;
  const char *what;
} tbl;

/*---- load_fields.c -------------------------------------------------------------*/

char *load_fmt(arena *a, const char *f, ...) PRINTF_LIKE(2, 3);
/* Appends an input error at file:line (line 0 = no line); after MAX_ERRORS
 * errors only counts them. */
void load_err(loader *ld, int line, const char *f, ...) PRINTF_LIKE(3, 4);
/* Shortest "%g" form of v that reads back exactly, in the arena. */
const char *load_num(loader *ld, double v);
void load_index_init(arena *a, name_index *ix, int n);
/* Value of s, or -1. */
int load_index_find(const name_index *ix, const char *s);
void load_index_add(name_index *ix, const char *s, int v);
tbl load_sub_table(loader *ld, int idx, int parent_line, const char *what);
/* Pushes t[key] (raw: no metamethods run) and returns its type. */
int load_field(const tbl *t, const char *key);
int load_has_field(const tbl *t, const char *key);
const char *load_type_of(lua_State *L, int idx);
/* Each get_* returns 1 if the field is present and valid, 0 if absent, -1 if
 * present and invalid (already reported). need_* also reports absence. */
int load_get_number(const tbl *t, const char *key, double *out);
int load_need_number(const tbl *t, const char *key, double *out);
void load_missing(const tbl *t, const char *key);
/* A number with an integral value in [lo, INT_MAX]. */
int load_get_int(const tbl *t, const char *key, int lo, int *out);
int load_get_bool(const tbl *t, const char *key, int *out);
/* A string, copied into the arena. */
int load_get_string(const tbl *t, const char *key, const char **out);
int load_need_string(const tbl *t, const char *key, const char **out);
/* Number of keys of the table at idx; *list = 1 if they are exactly 1..n. */
int load_count_keys(lua_State *L, int idx, int *list);
/* A list of n finite numbers; errors about its content name the line of the
 * vector's own table. */
int load_get_vec(const tbl *t, const char *key, int n, double *out);
int load_need_vec(const tbl *t, const char *key, int n, double *out);
/* Line of the vector t[key] (for semantic errors about its value). */
int load_vec_line(const tbl *t, const char *key);
/* Reports every key of t that is not in allowed (NULL-terminated), sorted. */
void load_check_fields(const tbl *t, const char *const *allowed);
/* 1..64 characters of [A-Za-z0-9_.-]. */
int load_valid_name(const char *s);
void load_bad_name(const tbl *t, const char *kind, const char *name);
/* "field 'key' must be RULE (got V)". */
void load_range_error(const tbl *t, const char *key, const char *rule, double v);

/*---- the parts of a mechanism ----------------------------------------------------*/

/* load_settings.c: top.settings into ld->m.settings. */
void load_read_settings(const tbl *top);
/* load_body.c: body i from the table on the stack top. */
void load_read_body(loader *ld, int i, int list_line);
int load_find_body(const loader *ld, const char *name);
/* load_cons.c: constraint i from the table on the stack top; then the checks
 * that need every body and constraint (references, pairs, rank). */
void load_read_constraint(loader *ld, int i, int list_line);
void load_check_constraints(loader *ld);

#endif
