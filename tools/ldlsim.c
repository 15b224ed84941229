/* ldlsim.c -- simulate or inspect a mechanism through the runtime's
 * interpreter path (docs/DESIGN.md section 4).
 *
 *   ldlsim MECH.lua [--solver pgs|ldlpgs] [--iterations N] [--steps N] [--dt S]
 *                   [--csv FILE] [--poses FILE] [--json] [options]
 *   ldlsim MECH.lua --check [--seed S] [--export DIR] [--precision float|double]
 *   both: [--preset fast|accurate|float] [--refine N] [--block-solver ldl|pcr]
 *         [--pcr-tolerance T] [--pcr-iterations N]
 *
 * Simulation: load the mechanism, run the symbolic phase, make a world from
 * the program (interpreted, no C compiled) and step it; print a summary
 * (--json: one JSON object). --gltf writes the run as an animated .glb
 * (sim/gltf.h), --html as the browser viewer's page (sim/viewer.h);
 * --solver both runs LDL-PGS and PGS from the same start, for the page.
 * --check: see ldlsim_check.h.
 *
 * Exit codes: 0 ok (also when the run exploded: that is a result, reported
 * as "exploded"), 1 error (diagnostics "file:line: error: ..." on stderr),
 * 2 bad usage. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "drive.h"
#include "gltf.h"
#include "json.h"
#include "ldlsim_check.h"
#include "load.h"
#include "mechworld.h"
#include "outfile.h"
#include "preset.h"
#include "program.h"
#include "rtprog.h"
#include "simrun.h"
#include "viewer.h"

static void usage(FILE *out) {
  fputs("usage: ldlsim MECH.lua [--solver pgs|ldlpgs|both] [--iterations N] [--steps N] [--dt S]\n"
        "                       [--csv FILE] [--poses FILE] [--json] [--drive SCRIPT] [--gltf OUT.glb]\n"
        "                       [--html OUT.html] [options]\n"
        "       ldlsim MECH.lua --check [--seed S] [--export DIR] [--precision float|double]\n"
        "\n"
        "simulation (the mechanism's settings are the defaults):\n"
        "  --solver S        ldlpgs (default), pgs, or both (two runs from the same start;\n"
        "                    with --html only, besides the text summaries)\n"
        "  --iterations N    solver iterations per step\n"
        "  --steps N         steps to run (default: 10 s of simulated time)\n"
        "  --dt S            time step in seconds\n"
        "  --csv FILE        per-step error, energy and probe height\n"
        "  --poses FILE      every body's pose at the start and after every step (CSV:\n"
        "                    step,time,body,x,y,z,qw,qx,qy,qz)\n"
        "  --json            print the summary as one JSON object (with max_limit_violation,\n"
        "                    max_motor_slip and max_hold_slip: README, ldlsim)\n"
        "  --drive SCRIPT    timed motor and drive commands (README: drive scripts)\n"
        "  --precision P     float or double factorization (default double)\n"
        "  --block WHERE     last (default) or before-last: where LDL-PGS puts its block step\n"
        "  --threads         factor on a second thread while PGS iterates, where that\n"
        "                    measures faster than one thread (settings.threaded 1)\n"
        "  --shatter N|off   shattering threshold (default: the mechanism's)\n",
        out);
  fputs("  --beta B          position drift correction\n"
        "  --epsilon E       regularization of H\n"
        "  --stabilize on|off  post-stabilization of the joints (default: the mechanism's)\n"
        "  --gltf FILE       write the run as binary glTF 2.0: a node per body, its shape\n"
        "                    as a mesh, one animation (metres, +Y up)\n"
        "  --gltf-every K    a glTF or page sample every K steps (default: ~60 per second)\n"
        "  --html FILE       write the browser viewer's page (self-contained) for the run(s)\n"
        "  --correction C    split (default: position correction in a pass of its own) or\n"
        "                    baumgarte (a velocity bias in the one solve)\n"
        "  --max-bias V      split: the largest correction the velocity solve makes (m/s)\n"
        "  --project N       LDL-PGS: passes of projection of the joints after integrating, with the\n"
        "                    step's own factor (default 8)\n"
        "  --stiffness on|off  geometric stiffness of loaded joints (default on)\n"
        "  --contact-passes N  LDL-PGS: most passes of contacts and block step after the block step\n"
        "                    (default 24)\n"
        "  --coupled-rows N  LDL-PGS: most joint rows outside the block (motors, springs, ropes,\n"
        "                    limits near their bound) solved against it through the Schur\n"
        "                    complement (default 16)\n"
        "  --coupled-contacts N  LDL-PGS: up to N contacts a step solved the same way, all\n"
        "                    or none (default 16)\n"
        "\n"
        "precision and block solver (simulation and check):\n"
        "  --preset P        fast (float program, one refinement step), accurate (double\n"
        "                    program) or float (float program alone); --precision and\n"
        "                    --refine override its parts\n"
        "  --refine N        LDL-PGS: passes of iterative refinement of the block step, each a\n"
        "                    residual in double and a solve with the factor (default 1)\n"
        "  --block-solver S  ldl (default: the program's factor) or pcr (preconditioned\n"
        "                    conjugate residual, no factor); --check also runs PCR\n"
        "  --pcr-tolerance T relative residual PCR stops at (default 1e-6)\n"
        "  --pcr-iterations N  PCR's iteration cap (default 1000; 0: the number of rows)\n"
        "\n"
        "limits (both modes):\n"
        "  --max-rows N      refuse mechanisms with more than N rows of H (default 100000)\n"
        "  --max-memory M    refuse mechanisms whose symbolic phase, program and world would\n"
        "                    need more than M MiB (default 2048)\n"
        "\n"
        "check:\n"
        "  --check           assemble H~ at the initial pose, factor and solve it with the\n"
        "                    interpreter, compare with a dense solve; print one JSON object\n"
        "  --seed S          seed of the random right-hand side (default 1)\n"
        "  --export DIR      write DIR/H.mtx, DIR/b.mtx, DIR/x.mtx (Matrix Market)\n"
        "  --help\n",
        out);
}

typedef struct options {
  const char *input;
  int check;
  ldlsim_check_options chk;
  /* simulation; < 0 (or NULL) = the mechanism's setting */
  int solver, iterations, steps, block, threads, shatter, stabilize, correction, project, stiffness, contact_passes, coupled_rows,
      coupled_contacts;
  double dt, beta, epsilon, max_bias;
  const char *csv, *poses, *drive;
  int json;
  const char *gltf, *html;  /* recordings written, or NULL */
  int gltf_every;           /* 0: gltf_default_every */
  int both;                 /* --solver both: LDL-PGS, then PGS */
  int precision_set, refine_set, block_solver; /* block_solver: rt_block_solver */
  double pcr_tolerance;                        /* < 0: the default */
  int pcr_iterations;                          /* < 0: the default */
} options;

static int bad_value(const char *opt, const char *what, const char *val) {
  fprintf(stderr, "ldlsim: %s needs %s, not '%s'\n", opt, what, val);
  return 2;
}

static int parse_int(const char *opt, const char *val, int min, int *out) {
  char *end;
  errno = 0;
  long v = strtol(val, &end, 10);
  if (*val == '\0' || *end != '\0' || errno || v < min || v > 100000000) {
    char what[64];
    snprintf(what, sizeof what, "an integer >= %d", min);
    return bad_value(opt, what, val);
  }
  *out = (int)v;
  return 0;
}

static int parse_double(const char *opt, const char *val, double min, int open, double *out) {
  char *end;
  errno = 0;
  double v = strtod(val, &end);
  if (*val == '\0' || *end != '\0' || errno || !isfinite(v) || v < min || (open && v == min)) {
    char what[64];
    snprintf(what, sizeof what, "a number %s %g", open ? ">" : ">=", min);
    return bad_value(opt, what, val);
  }
  *out = v;
  return 0;
}

/* Returns 0 on success, 2 on a usage error (message printed). */
static int parse_args(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  o->chk.seed = 1;
  o->chk.precision = RT_DOUBLE;
  o->solver = RT_SOLVER_LDLPGS;
  o->iterations = o->steps = o->shatter = o->stabilize = o->correction = o->project = o->stiffness = o->contact_passes = o->coupled_rows =
      o->coupled_contacts = -1;
  o->block = RT_BLOCK_LAST;
  o->dt = o->beta = o->epsilon = o->max_bias = -1;
  o->block_solver = RT_BLOCK_LDL;
  o->pcr_tolerance = -1;
  o->pcr_iterations = -1;
  int sim_opt = 0, check_opt = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    static const char *const with_value[] = {"--seed",  "--export", "--precision", "--solver", "--iterations",
                                             "--steps", "--dt",     "--csv",       "--block",  "--shatter", "--poses",
                                             "--beta",  "--epsilon", "--drive", "--stabilize", "--gltf",
                                             "--gltf-every", "--html", "--preset", "--refine", "--block-solver",
                                             "--pcr-tolerance", "--pcr-iterations", "--correction", "--max-bias",
                                             "--project", "--stiffness", "--contact-passes", "--coupled-rows", "--coupled-contacts", "--max-rows", "--max-memory", NULL};
    int takes = 0;
    for (int k = 0; with_value[k]; k++) takes |= strcmp(a, with_value[k]) == 0;
    if (takes && !val) {
      fprintf(stderr, "ldlsim: %s needs a value\n", a);
      return 2;
    }
    int rc = 0;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      exit(0);
    } else if (strcmp(a, "--check") == 0) {
      o->check = 1;
    } else if (strcmp(a, "--seed") == 0) {
      char *end;
      errno = 0;
      unsigned long long s = strtoull(val, &end, 10);
      if (*val == '\0' || *val == '-' || *end != '\0' || errno || s > (unsigned long long)INT64_MAX)
        return bad_value(a, "a non-negative integer", val);
      o->chk.seed = (uint64_t)s;
      check_opt = 1;
    } else if (strcmp(a, "--export") == 0) {
      o->chk.export_dir = val;
      check_opt = 1;
    } else if (strcmp(a, "--precision") == 0) {
      if (strcmp(val, "float") == 0)
        o->chk.precision = RT_FLOAT;
      else if (strcmp(val, "double") == 0)
        o->chk.precision = RT_DOUBLE;
      else
        return bad_value(a, "float or double", val);
      o->precision_set = 1;
    } else if (strcmp(a, "--preset") == 0) {
      if (preset_find(val) == NULL) return bad_value(a, preset_names(), val);
      o->chk.preset = val;
    } else if (strcmp(a, "--refine") == 0) {
      rc = parse_int(a, val, 0, &o->chk.refine);
      if (!rc && o->chk.refine > RT_MAX_REFINE) {
        char what[64];
        snprintf(what, sizeof what, "an integer in [0, %d]", RT_MAX_REFINE);
        rc = bad_value(a, what, val);
      }
      o->refine_set = 1;
    } else if (strcmp(a, "--block-solver") == 0) {
      if (strcmp(val, "ldl") == 0)
        o->block_solver = RT_BLOCK_LDL;
      else if (strcmp(val, "pcr") == 0)
        o->block_solver = RT_BLOCK_PCR;
      else
        return bad_value(a, "ldl or pcr", val);
    } else if (strcmp(a, "--pcr-tolerance") == 0) {
      rc = parse_double(a, val, 0.0, 0, &o->pcr_tolerance);
    } else if (strcmp(a, "--pcr-iterations") == 0) {
      rc = parse_int(a, val, 0, &o->pcr_iterations);
    } else if (strcmp(a, "--solver") == 0) {
      if (strcmp(val, "pgs") == 0)
        o->solver = RT_SOLVER_PGS;
      else if (strcmp(val, "ldlpgs") == 0)
        o->solver = RT_SOLVER_LDLPGS;
      else if (strcmp(val, "both") == 0)
        o->both = 1;
      else
        return bad_value(a, "pgs, ldlpgs or both", val);
      if (strcmp(val, "both") != 0) o->both = 0;
      sim_opt = 1;
    } else if (strcmp(a, "--block") == 0) {
      if (strcmp(val, "last") == 0)
        o->block = RT_BLOCK_LAST;
      else if (strcmp(val, "before-last") == 0)
        o->block = RT_BLOCK_BEFORE_LAST;
      else
        return bad_value(a, "last or before-last", val);
      sim_opt = 1;
    } else if (strcmp(a, "--iterations") == 0) {
      rc = parse_int(a, val, 1, &o->iterations);
      sim_opt = 1;
    } else if (strcmp(a, "--steps") == 0) {
      rc = parse_int(a, val, 1, &o->steps);
      sim_opt = 1;
    } else if (strcmp(a, "--shatter") == 0) {
      if (strcmp(val, "off") == 0)
        o->shatter = 0;
      else
        rc = parse_int(a, val, 1, &o->shatter);
      sim_opt = 1;
    } else if (strcmp(a, "--dt") == 0) {
      rc = parse_double(a, val, 0.0, 1, &o->dt);
      sim_opt = 1;
    } else if (strcmp(a, "--beta") == 0) {
      rc = parse_double(a, val, 0.0, 0, &o->beta);
      if (!rc && o->beta > 1) rc = bad_value(a, "a number in [0, 1]", val);
      sim_opt = 1;
    } else if (strcmp(a, "--epsilon") == 0) {
      rc = parse_double(a, val, 0.0, 0, &o->epsilon);
      sim_opt = 1;
    } else if (strcmp(a, "--stabilize") == 0) {
      if (strcmp(val, "on") == 0)
        o->stabilize = 1;
      else if (strcmp(val, "off") == 0)
        o->stabilize = 0;
      else
        return bad_value(a, "on or off", val);
      sim_opt = 1;
    } else if (strcmp(a, "--coupled-rows") == 0) {
      rc = parse_int(a, val, 0, &o->coupled_rows);
      if (!rc && o->coupled_rows > RT_MAX_COUPLED_ROWS) rc = bad_value(a, "an integer in [0, 128]", val);
      sim_opt = 1;
    } else if (strcmp(a, "--coupled-contacts") == 0) {
      rc = parse_int(a, val, 0, &o->coupled_contacts);
      if (!rc && o->coupled_contacts > RT_MAX_COUPLED_CONTACTS) rc = bad_value(a, "an integer in [0, 64]", val);
      sim_opt = 1;
    } else if (strcmp(a, "--contact-passes") == 0) {
      rc = parse_int(a, val, 0, &o->contact_passes);
      if (!rc && o->contact_passes > RT_MAX_CONTACT_PASSES) rc = bad_value(a, "an integer in [0, 64]", val);
      sim_opt = 1;
    } else if (strcmp(a, "--stiffness") == 0) {
      if (strcmp(val, "on") == 0)
        o->stiffness = 1;
      else if (strcmp(val, "off") == 0)
        o->stiffness = 0;
      else
        return bad_value(a, "on or off", val);
      sim_opt = 1;
    } else if (strcmp(a, "--project") == 0) {
      rc = parse_int(a, val, 0, &o->project);
      if (!rc && o->project > RT_MAX_REFINE) {
        char what[64];
        snprintf(what, sizeof what, "an integer in [0, %d]", RT_MAX_REFINE);
        rc = bad_value(a, what, val);
      }
      sim_opt = 1;
    } else if (strcmp(a, "--max-bias") == 0) {
      rc = parse_double(a, val, 0.0, 0, &o->max_bias);
      sim_opt = 1;
    } else if (strcmp(a, "--correction") == 0) {
      if (strcmp(val, "split") == 0)
        o->correction = RT_CORRECT_SPLIT;
      else if (strcmp(val, "baumgarte") == 0)
        o->correction = RT_CORRECT_BAUMGARTE;
      else
        return bad_value(a, "split or baumgarte", val);
      sim_opt = 1;
    } else if (strcmp(a, "--max-rows") == 0 || strcmp(a, "--max-memory") == 0) {
      char *end;
      errno = 0;
      long long v = strtoll(val, &end, 10);
      int rows = strcmp(a, "--max-rows") == 0;
      if (*val == '\0' || *end != '\0' || errno || v < 1 || v > (rows ? 1000000000LL : 1LL << 30))
        return bad_value(a, rows ? "a positive integer" : "a positive number of MiB", val);
      if (rows)
        o->chk.max_rows = v;
      else
        o->chk.max_memory = (int64_t)v << 20;
    } else if (strcmp(a, "--csv") == 0) {
      o->csv = val;
      sim_opt = 1;
    } else if (strcmp(a, "--poses") == 0) {
      o->poses = val;
      sim_opt = 1;
    } else if (strcmp(a, "--drive") == 0) {
      o->drive = val;
      sim_opt = 1;
    } else if (strcmp(a, "--gltf") == 0) {
      o->gltf = val;
      sim_opt = 1;
    } else if (strcmp(a, "--gltf-every") == 0) {
      rc = parse_int(a, val, 1, &o->gltf_every);
      sim_opt = 1;
    } else if (strcmp(a, "--html") == 0) {
      o->html = val;
      sim_opt = 1;
    } else if (strcmp(a, "--json") == 0) {
      o->json = 1;
    } else if (strcmp(a, "--threads") == 0) {
      o->threads = 1;
      sim_opt = 1;
    } else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, "ldlsim: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    } else if (o->input) {
      fprintf(stderr, "ldlsim: one mechanism file at a time\n");
      return 2;
    } else {
      o->input = a;
    }
    if (rc) return rc;
    if (takes) i++;
  }
  if (!o->input) {
    usage(stderr);
    return 2;
  }
  if (o->check && sim_opt) {
    fprintf(stderr, "ldlsim: --check takes only --seed, --export, --precision, --preset, --refine, --block-solver, "
                    "--pcr-tolerance and --pcr-iterations\n");
    return 2;
  }
  if (!o->check && check_opt) {
    fprintf(stderr, "ldlsim: --seed and --export go with --check\n");
    return 2;
  }
  if (o->gltf_every && !o->gltf && !o->html) {
    fprintf(stderr, "ldlsim: --gltf-every goes with --gltf or --html\n");
    return 2;
  }
  if (o->both && (o->json || o->csv || o->poses || o->gltf)) {
    fprintf(stderr, "ldlsim: --solver both makes two runs: it goes with --html, not --json, --csv, --poses or --gltf\n");
    return 2;
  }
  /* a preset's parts, unless given one by one (in any order) */
  const preset *ps = o->chk.preset ? preset_find(o->chk.preset) : NULL;
  if (ps && !o->precision_set) o->chk.precision = ps->precision;
  if (ps && !o->refine_set) o->chk.refine = ps->refine;
  rt_settings def;
  rt_settings_default(&def);
  o->chk.pcr = o->block_solver == RT_BLOCK_PCR;
  o->chk.pcr_tolerance = o->pcr_tolerance >= 0 ? o->pcr_tolerance : def.pcr_tolerance;
  o->chk.pcr_max_iterations = o->pcr_iterations >= 0 ? o->pcr_iterations : def.pcr_max_iterations;
  o->chk.input = o->input;
  return 0;
}

/*---- simulation -------------------------------------------------------------*/

static void print_json(const mech *m, const rt_settings *s, const program *p, const simrun_result *r) {
  json_writer w;
  json_begin(&w, stdout);
  json_key(&w, "name");
  json_string(&w, m->name);
  json_key(&w, "solver");
  json_string(&w, s->solver == RT_SOLVER_PGS ? "pgs" : "ldlpgs");
  json_key(&w, "iterations");
  json_int(&w, s->iterations);
  json_key(&w, "dt");
  json_double(&w, s->dt);
  json_key(&w, "block");
  json_string(&w, s->block_at == RT_BLOCK_LAST ? "last" : "before-last");
  json_key(&w, "threaded");
  json_bool(&w, s->threaded);
  json_key(&w, "stabilize");
  json_bool(&w, s->stabilize);
  json_key(&w, "correction");
  json_string(&w, s->correction == RT_CORRECT_SPLIT ? "split" : "baumgarte");
  json_key(&w, "max_bias");
  json_double(&w, s->max_bias);
  json_key(&w, "refine");
  json_int(&w, s->refine);
  json_key(&w, "project");
  json_int(&w, s->project);
  json_key(&w, "geometric_stiffness");
  json_bool(&w, s->geometric_stiffness);
  json_key(&w, "contact_passes");
  json_int(&w, s->contact_passes);
  json_key(&w, "coupled_rows");
  json_int(&w, s->coupled_rows);
  json_key(&w, "coupled_contacts");
  json_int(&w, s->coupled_contacts);
  json_key(&w, "dim");
  json_int(&w, p->s.dim);
  json_key(&w, "steps");
  json_int(&w, r->steps);
  json_key(&w, "time");
  json_double(&w, r->steps * s->dt);
  json_key(&w, "max_pos_error");
  json_double(&w, r->max_pos_error);
  json_key(&w, "final_pos_error");
  json_double(&w, r->final_pos_error);
  json_key(&w, "max_ang_error");
  json_double(&w, r->max_ang_error);
  json_key(&w, "final_ang_error");
  json_double(&w, r->final_ang_error);
  json_key(&w, "exploded");
  json_bool(&w, r->exploded);
  if (r->exploded) {
    json_key(&w, "exploded_because");
    json_string(&w, r->why);
  }
  json_key(&w, "energy_start");
  json_double(&w, r->energy_start);
  json_key(&w, "energy_final");
  json_double(&w, r->energy_final);
  json_key(&w, "max_energy_drift");
  json_double(&w, r->max_energy_drift);
  json_key(&w, "max_energy_gain");
  json_double(&w, r->max_energy_gain);
  json_key(&w, "probe");
  json_string(&w, m->bodies[simrun_default_probe(m)].name);
  json_key(&w, "probe_z_start");
  json_double(&w, r->probe_start);
  json_key(&w, "probe_z_final");
  json_double(&w, r->probe_final);
  json_key(&w, "factor_failures");
  json_int(&w, r->factor_failures);
  json_key(&w, "max_contacts");
  json_int(&w, r->max_contacts);
  json_key(&w, "contact_overflows");
  json_int(&w, r->contact_overflows);
  json_key(&w, "max_limit_violation");
  json_double(&w, r->max_limit_violation);
  json_key(&w, "max_motor_slip");
  json_double(&w, r->max_motor_slip);
  json_key(&w, "max_hold_slip");
  json_double(&w, r->max_hold_slip);
  json_key(&w, "motor_work");
  json_double(&w, r->motor_work);
  json_key(&w, "drive_work");
  json_double(&w, r->drive_work);
  json_key(&w, "max_gain_beyond_motor_work");
  json_double(&w, r->max_gain_beyond_motor_work);
  json_key(&w, "us_per_step");
  json_double(&w, r->us_per_step);
  json_key(&w, "refine_steps");
  json_int(&w, r->refine_steps);
  json_key(&w, "thread_steps");
  json_int(&w, r->thread_steps);
  json_key(&w, "mean_contact_passes");
  json_double(&w, r->steps ? (double)r->contact_passes / r->steps : 0.0);
  json_key(&w, "capped_contact_passes");
  json_int(&w, r->capped_passes);
  json_key(&w, "block_solver");
  json_string(&w, s->block_solver == RT_BLOCK_PCR ? "pcr" : "ldl");
  if (s->block_solver == RT_BLOCK_PCR) {
    json_key(&w, "pcr_tolerance");
    json_double(&w, s->pcr_tolerance);
    json_key(&w, "pcr_iterations_mean");
    json_double(&w, r->steps ? (double)r->pcr_iterations / r->steps : 0.0);
    json_key(&w, "pcr_iterations_max");
    json_int(&w, r->pcr_max_iterations);
    json_key(&w, "pcr_capped_steps");
    json_int(&w, r->pcr_capped);
    json_key(&w, "pcr_max_residual");
    json_double(&w, r->pcr_max_residual);
  }
  json_end(&w);
}

static void print_text(const mech *m, const rt_settings *s, const program *p, const simrun_result *r) {
  printf("%s: %s, %d iterations, dt %g s, dim %d\n", m->name, s->solver == RT_SOLVER_PGS ? "pgs" : "ldlpgs",
         s->iterations, s->dt, p->s.dim);
  printf("  steps            %d (%.3g s)%s%s\n", r->steps, r->steps * s->dt, r->exploded ? ", EXPLODED: " : "",
         r->why);
  printf("  position error   max %.3g m, final %.3g m\n", r->max_pos_error, r->final_pos_error);
  printf("  angular error    max %.3g rad, final %.3g rad\n", r->max_ang_error, r->final_ang_error);
  printf("  energy           %.6g J -> %.6g J (max drift %.3g J)\n", r->energy_start, r->energy_final,
         r->max_energy_drift);
  printf("  %-16s z %.4g m -> %.4g m\n", m->bodies[simrun_default_probe(m)].name, r->probe_start, r->probe_final);
  if (r->worst_limit >= 0)
    printf("  limits           overrun by at most %.3g (m or rad, %s)\n", r->max_limit_violation,
           m->cons[r->worst_limit].name);
  if (r->worst_motor >= 0)
    printf("  motors           slip by at most %.3g (m or rad, %s) below their max_force\n", r->max_motor_slip,
           m->cons[r->worst_motor].name);
  if (r->factor_failures) printf("  factorization failed in %d steps (a PGS sweep replaced the block step)\n", r->factor_failures);
  if (r->max_contacts) printf("  contacts         at most %d in a step\n", r->max_contacts);
  if (r->contact_overflows)
    printf("  contacts dropped in %d steps: more than settings.max_contacts\n", r->contact_overflows);
  if (s->refine) printf("  refinement       %lld steps kept (%d asked per step)\n", r->refine_steps, s->refine);
  if (s->threaded)
    printf("  thread           %lld of %d steps factored on it (the others measured faster without it, or\n"
           "                   the mechanism is too small for the hand-off)\n",
           r->thread_steps, r->steps);
  if (s->block_solver == RT_BLOCK_PCR)
    printf("  PCR              %.1f iterations per step (max %d), %d steps stopped at the cap, "
           "largest residual %.3g\n",
           r->steps ? (double)r->pcr_iterations / r->steps : 0.0, r->pcr_max_iterations, r->pcr_capped,
           r->pcr_max_residual);
  printf("  time per step    %.1f us\n", r->us_per_step);
}

/* One run of the world from the mechanism's start with solver `solver`;
 * recorded into rec if it is not NULL. */
static gen_status run_once(const options *o, const mech *m, const rt_world_desc *desc, const rt_program *rp,
                           const rt_settings *s, const drive_script *script, gltf_recording *rec, simrun_result *r,
                           diag_list *d) {
  char err[256];
  rt_status rs;
  rt_world *w = rt_world_create(desc, rp, s, &rs, err, sizeof err);
  if (w == NULL) {
    diag_error(d, m->file, 0, "%s", err);
    return GEN_ERR_INPUT;
  }
  outfile csv, poses;
  memset(&csv, 0, sizeof csv);
  memset(&poses, 0, sizeof poses);
  gen_status st;
  if (o->csv && (st = outfile_open(&csv, o->csv, d)) != GEN_OK) {
    rt_world_destroy(w);
    return st;
  }
  if (o->poses && (st = outfile_open(&poses, o->poses, d)) != GEN_OK) {
    outfile_abort(&csv);
    rt_world_destroy(w);
    return st;
  }
  simrun_options so = {0};
  so.steps = o->steps > 0 ? o->steps : (int)ceil(10.0 / s->dt - 1e-9);
  so.probe = simrun_default_probe(m);
  so.csv = csv.f;
  so.poses = poses.f;
  so.desc = desc;
  drive_script run_script; /* every run from the script's start */
  if (o->drive) {
    run_script = *script;
    so.control = drive_apply;
    so.control_ctx = &run_script;
  }
  if (rec) {
    if (gltf_record_init(rec, m, s->dt, o->gltf_every ? o->gltf_every : gltf_default_every(s->dt), so.steps) != 0) {
      diag_error(d, m->file, 0, "out of memory for the recording");
      outfile_abort(&csv);
      outfile_abort(&poses);
      rt_world_destroy(w);
      return GEN_ERR_IO;
    }
    so.observe = gltf_record_observe;
    so.observe_ctx = rec;
  }
  *r = (simrun_result){0};
  simrun_run(w, m, &so, r);
  if (rec) gltf_record_finish(rec, w, r->steps);
  rt_world_destroy(w);
  if (rec && rec->nomem) {
    diag_error(d, m->file, 0, "out of memory for the recording");
    outfile_abort(&csv);
    outfile_abort(&poses);
    return GEN_ERR_IO;
  }
  if (o->csv && (st = outfile_commit(&csv, d)) != GEN_OK) {
    outfile_abort(&csv);
    outfile_abort(&poses);
    return st;
  }
  if (o->poses && (st = outfile_commit(&poses, d)) != GEN_OK) {
    outfile_abort(&poses);
    return st;
  }
  return GEN_OK;
}

static const char *solver_label(rt_solver s) { return s == RT_SOLVER_PGS ? "PGS" : "LDL-PGS"; }

static gen_status simulate(const options *o, arena *a, diag_list *d) {
  mech m;
  gen_status st = load_mech(a, o->input, NULL, &m, d);
  if (st != GEN_OK) return st;
  program_options po;
  program_default_options(&po);
  if (o->shatter >= 0) po.shatter = o->shatter;
  if (o->chk.max_rows > 0) po.max_rows = o->chk.max_rows;
  if (o->chk.max_memory > 0) po.max_memory = o->chk.max_memory;
  program prog;
  if ((st = program_build(a, &m, &po, &prog, d)) != GEN_OK) return st;
  rt_program rp;
  rtprog_build(a, &prog, o->chk.precision, &rp);
  drive_script script;
  if (o->drive && (st = drive_load(a, o->drive, &m, &script, d)) != GEN_OK) return st;
  rt_world_desc desc;
  mechworld_desc(a, &m, &desc);
  rt_settings s;
  mechworld_settings(&m, &s);
  s.block_at = (rt_block_at)o->block;
  s.threaded = o->threads;
  if (o->iterations > 0) s.iterations = o->iterations;
  if (o->dt > 0) s.dt = o->dt;
  if (o->beta >= 0) s.beta = o->beta;
  if (o->epsilon >= 0) s.epsilon = o->epsilon;
  if (o->stabilize >= 0) s.stabilize = o->stabilize;
  if (o->refine_set || o->chk.preset) s.refine = o->chk.refine; /* else the default pass */
  if (o->correction >= 0) s.correction = (rt_correction)o->correction;
  if (o->max_bias >= 0) s.max_bias = o->max_bias;
  if (o->project >= 0) s.project = o->project;
  if (o->stiffness >= 0) s.geometric_stiffness = o->stiffness;
  if (o->contact_passes >= 0) s.contact_passes = o->contact_passes;
  if (o->coupled_rows >= 0) s.coupled_rows = o->coupled_rows;
  if (o->coupled_contacts >= 0) s.coupled_contacts = o->coupled_contacts;
  s.block_solver = (rt_block_solver)o->block_solver;
  s.pcr_tolerance = o->chk.pcr_tolerance;
  s.pcr_max_iterations = o->chk.pcr_max_iterations;
  /* --solver both: LDL-PGS (shown left), then PGS */
  const rt_solver solvers[2] = {o->both ? RT_SOLVER_LDLPGS : (rt_solver)o->solver, RT_SOLVER_PGS};
  const int nrun = o->both ? 2 : 1, record = o->gltf || o->html;
  gltf_recording rec[2];
  memset(rec, 0, sizeof rec);
  simrun_result res[2];
  rt_settings used[2];
  for (int k = 0; k < nrun && st == GEN_OK; k++) {
    used[k] = s;
    used[k].solver = solvers[k];
    st = run_once(o, &m, &desc, &rp, &used[k], &script, record ? &rec[k] : NULL, &res[k], d);
  }
  if (st == GEN_OK && o->gltf) {
    char name[160];
    snprintf(name, sizeof name, "%s, %s", m.name, solver_label(solvers[0]));
    st = gltf_write_file(o->gltf, &rec[0], name, d);
  }
  if (st == GEN_OK && o->html) {
    viewer_run runs[2];
    for (int k = 0; k < nrun; k++)
      runs[k] = (viewer_run){solver_label(solvers[k]), &rec[k], res[k].steps, res[k].exploded, res[k].why};
    char caption[160], title[160];
    snprintf(caption, sizeof caption, "%d iterations per step, dt %.4g s%s", s.iterations, s.dt,
             o->drive ? ", driven" : "");
    snprintf(title, sizeof title, "%s: ldlsim", m.name);
    const viewer_scene scene = {m.name, caption, runs, nrun, 0};
    st = viewer_write_file(o->html, viewer_page, viewer_page_size, title, &scene, 1, d);
  }
  for (int k = 0; k < 2; k++) gltf_record_free(&rec[k]);
  if (st != GEN_OK) return st;
  for (int k = 0; k < nrun; k++) {
    if (o->json)
      print_json(&m, &used[k], &prog, &res[k]);
    else
      print_text(&m, &used[k], &prog, &res[k]);
  }
  return GEN_OK;
}

int main(int argc, char **argv) {
  options o;
  int rc = parse_args(argc, argv, &o);
  if (rc) return rc;
  diag_list d;
  diag_init(&d);
  outfile_catch_signals();
  arena a;
  arena_init(&a);
  gen_status st = o.check ? ldlsim_check(&o.chk, &a, &d) : simulate(&o, &a, &d);
  arena_free(&a);
  diag_print(&d, stderr);
  diag_free(&d);
  if (fflush(stdout) != 0 && st == GEN_OK) st = GEN_ERR_IO;
  return st == GEN_OK ? 0 : 1;
}
