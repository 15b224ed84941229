/* sandbox.h -- the Lua state a mechanism file runs in.
 *
 * A fresh lua_State with only the basic functions, math, string and table
 * libraries, a bound on executed instructions and a bound on memory that the
 * script cannot catch, and the source line of every table it constructs.
 * Every failure -- syntax, runtime error, bound reached -- is handed to the
 * owner's report function as one message at a chunk line (0 = no line). */
#ifndef LDLPGS_GEN_SANDBOX_H
#define LDLPGS_GEN_SANDBOX_H

#include <stddef.h>

#include <lua.h>

#include "arena.h"
#include "diag.h"

/* Receives each error of the sandbox; user is sandbox_config.user. */
typedef void sandbox_report_fn(void *user, int line, const char *msg);

typedef struct sandbox_config {
  const char *file;            /* file name in messages, "@file" the chunk name; kept */
  long long max_instructions;  /* VM instructions, plus work done in C (> 0) */
  size_t max_memory;           /* bytes of Lua heap plus the line map (> 0) */
  arena *a;                    /* for the chunk name */
  sandbox_report_fn *report;
  void *user;                  /* for report, and returned by sandbox_user */
} sandbox_config;

/* Embedded by the owner; only L is for it to use, the rest is sandbox.c's. */
typedef struct sandbox {
  lua_State *L;                /* NULL until sandbox_open succeeds */
  sandbox_config cfg;
  size_t used;                 /* bytes of Lua heap plus the line map */
  long long count;             /* instructions charged so far */
  int interval;                /* count hook period */
  int instr_hit, instr_line;   /* instruction bound reached, and where */
  int running;                 /* the chunk runs: allocations are charged */
  int mem_hit;                 /* a memory error was caught by the script */
  int mem_line;                /* chunk line running when memory was first refused */
  int err_line;                /* innermost chunk line when an error was raised */
  int ret_line;                /* line where the chunk returned (its return statement) */
  int nresults;                /* values the chunk returned */
  const char *src;             /* the chunk's text, while sandbox_run runs and after */
  size_t len;
  /* table address -> line of construction, open addressing */
  const void **map_key;
  int *map_line;
  size_t map_cap, map_n;
} sandbox;

/* Creates the state in *sb and opens the restricted libraries. Returns GEN_OK,
 * or GEN_ERR_LIMIT after reporting. Call sandbox_close in either case. */
gen_status sandbox_open(sandbox *sb, const sandbox_config *cfg);

/* Compiles src (text only, never binary) and runs it under both bounds.
 * Returns GEN_OK with the chunk's first result on the stack top (nil if it
 * returned nothing: sb->nresults says how many it returned, sb->ret_line
 * where), or reports and returns GEN_ERR_INPUT (syntax or runtime error) or
 * GEN_ERR_LIMIT. src must stay valid while the sandbox is open
 * (sandbox_key_line reads it). */
gen_status sandbox_run(sandbox *sb, const char *src, size_t len);

/* Line of the last place in the chunk's text that assigns to a field named
 * key (`key =`, `.key =`, `["key"] =`, outside comments and strings), or 0:
 * where a top-level field that is not a table got its value. */
int sandbox_key_line(const sandbox *sb, const char *key);

/* Calls the C function f with the nargs values on the stack top, discarding
 * its results, under lua_pcall (the bounds are off: only memory errors can
 * occur). Returns GEN_OK, or reports like sandbox_run. */
gen_status sandbox_call(sandbox *sb, lua_CFunction f, int nargs);

/* The config's user pointer, from inside a function run by sandbox_call. */
void *sandbox_user(lua_State *L);

/* Source line where the table at stack index idx was constructed by the
 * chunk, or 0 (not a table, or not built by the chunk). */
int sandbox_table_line(const sandbox *sb, int idx);

/* Closes the state (if any) and frees the line map. */
void sandbox_close(sandbox *sb);

#endif
