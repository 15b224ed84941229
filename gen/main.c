/* main.c -- the ldlgen command line. The only place that prints diagnostics
 * and chooses the exit code. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "dot.h"
#include "emit.h"
#include "gdiff.h"
#include "json.h"
#include "load.h"
#include "outfile.h"
#include "program.h"
#include "redundant.h"
#include "subcmd.h"
#include "typedoc.h"

#define LDLGEN_VERSION "0.1"

static void usage(FILE *out) {
  fputs("usage: ldlgen MECH.lua [-o OUT.c [--mechanism-out M.c]] [--mode unrolled|tables]\n"
        "                       [--precision float|double]\n"
        "                       [--batch 4|8|16]\n"
        "                       [--order natural|mda|meca|best|balanced] [--keep-order OLD.c]\n"
        "                       [--keep-tolerance PCT]\n"
        "                       [--shatter N|off]\n"
        "                       [--stats] [--dot FILE] [--report FILE]\n"
        "                       [--max-rows N] [--max-memory MIB]\n"
        "       ldlgen --table MECH.lua...\n"
        "       ldlgen --types\n"
        "       ldlgen --kernels-header FILE  (rt_kernels.h, the kernels programs share)\n"
        "       ldlgen --diff OLD NEW [--json]  (mechanisms or generated .c files)\n"
        "       ldlgen --textconv FILE.c  (summary, then the file: git diff's textconv)\n"
        "\n"
        "  -o OUT.c       write the program and the mechanism as C: OUT.c and its\n"
        "                 header OUT.h (ID_program, ID_desc, ID_settings, ID_create,\n"
        "                 the enums ID_BODY_<NAME> and ID_JOINT_<NAME>)\n"
        "  --mechanism-out M.c  write the mechanism part (ID_desc, ID_settings,\n"
        "                 ID_create, the enums) to M.c and M.h instead, with -o: the\n"
        "                 program's files then depend only on the structure, so that\n"
        "                 editing masses, anchors, limits or motors leaves them (and\n"
        "                 their object file) untouched\n"
        "  --mode M       unrolled (specialized code, default) or tables (const\n"
        "                 tables run by the runtime's interpreter)\n"
        "  --precision P  float (default) or double\n"
        "  --batch N      the batch program instead: N copies (4, 8 or 16) factored\n"
        "                 together in vector lanes (rt_lanes.h), ID_batch_factor and\n"
        "                 ID_batch_solve; unrolled mode only\n"
        "  --prefix ID    C identifier prefix of what -o writes (default: the\n"
        "                 mechanism name)\n"
        "  --templates D  read the templates from directory D instead of the\n"
        "                 copies built into ldlgen\n"
        "  --budget N     statements per generated function (default 200)\n"
        "  --order K      elimination ordering (default best); balanced: as few\n"
        "                 flops, and of those orders the shortest critical path\n"
        "                 (independent pivots the processor overlaps; for batch\n"
        "                 and small programs, at the cost of more lines changed\n"
        "                 when a part is added to a chain or ring)\n"
        "  --keep-order OLD.c  keep the pivot order and the shattering of OLD.c, a\n"
        "                 program ldlgen wrote before (each new pivot just before its\n"
        "                 first neighbour there, each constraint on the shard it had),\n"
        "                 when that costs at most --keep-tolerance more flops than the\n"
        "                 fresh program: an edit then changes only the lines of the\n"
        "                 pivots it touches\n"
        "  --keep-tolerance PCT  the flops (percent, default 3; 100 flops at least)\n"
        "                 what --keep-order keeps may cost more than the fresh\n"
        "                 program; 0: never more\n"
        "  --shatter N    shatter bodies whose attached degrees sum above N\n"
        "                 (default: the mechanism's settings.shatter, 20); off disables\n"
        "  --stats        print the program's statistics as one JSON object\n"
        "  --dot FILE     write the body graph and constraint graph (Graphviz)\n"
        "  --report FILE  write the statistics and the pivot/block layout (JSON)\n"
        "  --table        print one statistics row per mechanism\n"
        "  --max-rows N   refuse mechanisms with more than N rows of H (default 100000)\n"
        "  --max-memory M refuse mechanisms whose symbolic phase and program would need\n"
        "                 more than M MiB (default 2048)\n"
        "  --types        print the constraint types, their fields and degrees\n"
        "                 (the table in README.md)\n"
        "  --version, --help\n",
        out);
}

/* What --keep-order kept, when it costs flops: a note on out naming the
 * previous program (none when it costs nothing). */
static void note_kept(const mech *m, const program *p, const char *old, double tolerance, FILE *out) {
  const long long kept = (long long)((p->keep_flops3 + 1) / 3), fresh = (long long)((p->fresh_flops3 + 1) / 3);
  const double more = 100.0 * (double)(p->keep_flops3 - p->fresh_flops3) / (double)p->fresh_flops3;
  const char *what = p->keep_shards_taken ? "the order and shattering" : "the order";
  const char *with_s = p->schur_flops3 > 0 ? " (the factor's and S's estimated build)" : "";
  if (!p->keep_taken)
    fprintf(out,
            "%s:%d: note: the order kept from %s would cost %lld flops%s, %.1f %% more than the fresh order's %lld "
            "(--keep-tolerance %g %%, %d flops at least): the fresh order is used\n",
            m->file, m->line, old, kept, with_s, more, fresh, tolerance, tolerance > 0.0 ? PROGRAM_KEEP_FLOOR_FLOPS : 0);
  else if (p->keep_flops3 > p->fresh_flops3)
    fprintf(out, "%s:%d: note: %s kept from %s cost %lld flops%s, %.1f %% more than the fresh order's %lld\n",
            m->file, m->line, what, old, kept, with_s, more, fresh);
}

typedef struct options {
  const char *input;
  const char **inputs;
  int ninputs;
  program_options prog;
  int stats, table;
  const char *dot, *report;
  const char *keep;      /* --keep-order */
  int keep_tolerance_given;
  const char *out_c;     /* -o */
  const char *mech_c;    /* --mechanism-out */
  emit_options emit;
} options;

/* A positive integer up to max (64-bit). */
static int parse_int64(const char *s, long long max, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (*s == '\0' || *end != '\0' || errno || v < 1 || v > max) return 0;
  *out = v;
  return 1;
}

static int parse_int(const char *s, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < 0 || v > 1000000) return 0;
  *out = (int)v;
  return 1;
}

/* The options of the C output (-o and its companions): 0, or 2 after
 * printing the usage error. Other options are left to the caller. */
static int parse_emit_option(const char *a, const char *val, options *o) {
  size_t n = strlen(val);
  int k;
  if (strcmp(a, "-o") == 0) {
    if (n < 3 || strcmp(val + n - 2, ".c") != 0) {
      fprintf(stderr, "ldlgen: -o needs a file name ending in .c (the header is written next to it), not '%s'\n", val);
      return 2;
    }
    o->out_c = val;
  } else if (strcmp(a, "--mechanism-out") == 0) {
    if (n < 3 || strcmp(val + n - 2, ".c") != 0) {
      fprintf(stderr, "ldlgen: --mechanism-out needs a file name ending in .c (the header is written next to it), not '%s'\n", val);
      return 2;
    }
    o->mech_c = val;
  } else if (strcmp(a, "--mode") == 0) {
    if ((k = emit_parse_mode(val)) < 0) {
      fprintf(stderr, "ldlgen: unknown mode '%s' (unrolled, tables)\n", val);
      return 2;
    }
    o->emit.mode = (emit_mode)k;
  } else if (strcmp(a, "--precision") == 0) {
    if ((k = emit_parse_precision(val)) < 0) {
      fprintf(stderr, "ldlgen: unknown precision '%s' (float, double)\n", val);
      return 2;
    }
    o->emit.precision = (rt_precision)k;
  } else if (strcmp(a, "--prefix") == 0) {
    if (!emit_valid_ident(val)) {
      fprintf(stderr, "ldlgen: --prefix needs a C identifier, not '%s'\n", val);
      return 2;
    }
    o->emit.prefix = val;
  } else if (strcmp(a, "--templates") == 0) {
    o->emit.templates_dir = val;
  } else if (strcmp(a, "--budget") == 0) {
    if (!parse_int(val, &k) || k < 1) {
      fprintf(stderr, "ldlgen: --budget needs a positive integer, not '%s'\n", val);
      return 2;
    }
    o->emit.budget = k;
  } else if (strcmp(a, "--batch") == 0) {
    if (!parse_int(val, &k) || !EMIT_BATCH_LANES_OK(k)) {
      fprintf(stderr, "ldlgen: --batch needs the number of lanes, 4, 8 or 16, not '%s'\n", val);
      return 2;
    }
    o->emit.batch = k;
  }
  return 0;
}

/* The file name of a path, after its last '/'. */
static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* path with its last character (the c of .c) made h, malloc'ed. */
static char *header_of(const char *path) {
  size_t n = strlen(path);
  char *h = malloc(n + 1);
  if (!h) abort();
  memcpy(h, path, n + 1);
  h[n - 1] = 'h';
  return h;
}

/* Returns 0 on success, 2 on a usage error (message printed). */
static int parse_args(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  program_default_options(&o->prog);
  emit_default_options(&o->emit);
  o->emit.version = LDLGEN_VERSION;
  o->inputs = calloc((size_t)argc, sizeof *o->inputs);
  if (!o->inputs) return 2;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      exit(0);
    } else if (strcmp(a, "--version") == 0) {
      printf("ldlgen %s\n", LDLGEN_VERSION);
      exit(0);
    } else if (strcmp(a, "--types") == 0) {
      typedoc_write(stdout);
      exit(ferror(stdout) ? 1 : 0);
    } else if (strcmp(a, "--stats") == 0) {
      o->stats = 1;
    } else if (strcmp(a, "--table") == 0) {
      o->table = 1;
    } else if (strcmp(a, "--order") == 0 || strcmp(a, "--shatter") == 0 || strcmp(a, "--dot") == 0 ||
               strcmp(a, "--report") == 0 || strcmp(a, "-o") == 0 || strcmp(a, "--mechanism-out") == 0 ||
               strcmp(a, "--mode") == 0 ||
               strcmp(a, "--precision") == 0 || strcmp(a, "--prefix") == 0 || strcmp(a, "--templates") == 0 ||
               strcmp(a, "--budget") == 0 || strcmp(a, "--batch") == 0 || strcmp(a, "--max-rows") == 0 || strcmp(a, "--max-memory") == 0 ||
               strcmp(a, "--keep-order") == 0 || strcmp(a, "--keep-tolerance") == 0) {
      if (!val) {
        fprintf(stderr, "ldlgen: %s needs a value\n", a);
        return 2;
      }
      i++;
      if (parse_emit_option(a, val, o) != 0) return 2;
      if (strcmp(a, "--order") == 0) {
        int k = order_parse(val);
        if (k < 0) {
          fprintf(stderr, "ldlgen: unknown ordering '%s' (natural, mda, meca, best, balanced)\n", val);
          return 2;
        }
        o->prog.order = (order_kind)k;
      } else if (strcmp(a, "--shatter") == 0) {
        int n;
        if (strcmp(val, "off") == 0)
          o->prog.shatter = 0;
        else if (parse_int(val, &n) && n > 0)
          o->prog.shatter = n;
        else {
          fprintf(stderr, "ldlgen: --shatter needs a positive integer or 'off', not '%s'\n", val);
          return 2;
        }
      } else if (strcmp(a, "--max-rows") == 0) {
        long long n;
        if (!parse_int64(val, 1000000000LL, &n)) {
          fprintf(stderr, "ldlgen: --max-rows needs a positive integer, not '%s'\n", val);
          return 2;
        }
        o->prog.max_rows = n;
      } else if (strcmp(a, "--max-memory") == 0) {
        long long n;
        if (!parse_int64(val, 1LL << 30, &n)) {
          fprintf(stderr, "ldlgen: --max-memory needs a positive number of MiB, not '%s'\n", val);
          return 2;
        }
        o->prog.max_memory = (int64_t)n << 20;
      } else if (strcmp(a, "--keep-order") == 0) {
        o->keep = val;
      } else if (strcmp(a, "--keep-tolerance") == 0) {
        char *end;
        errno = 0;
        const double t = strtod(val, &end);
        if (*val == '\0' || *end != '\0' || errno || !(t >= 0.0 && t <= 1000.0)) {
          fprintf(stderr, "ldlgen: --keep-tolerance needs a percentage from 0 to 1000, not '%s'\n", val);
          return 2;
        }
        o->prog.keep_tolerance = t;
        o->keep_tolerance_given = 1;
      } else if (strcmp(a, "--dot") == 0) {
        o->dot = val;
      } else if (strcmp(a, "--report") == 0) {
        o->report = val;
      }
    } else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, "ldlgen: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    } else {
      o->inputs[o->ninputs++] = a;
    }
  }
  if (o->ninputs == 0) {
    usage(stderr);
    return 2;
  }
  if (o->keep_tolerance_given && !o->keep) {
    fprintf(stderr, "ldlgen: --keep-tolerance goes with --keep-order\n");
    return 2;
  }
  if (o->table && o->keep) {
    fprintf(stderr, "ldlgen: --keep-order keeps one program's order; not with --table\n");
    return 2;
  }
  if (o->table && o->out_c) {
    fprintf(stderr, "ldlgen: -o writes one mechanism's program; not with --table\n");
    return 2;
  }
  if (o->mech_c && !o->out_c) {
    fprintf(stderr, "ldlgen: --mechanism-out goes with -o (the program's files)\n");
    return 2;
  }
  if (o->mech_c && strcmp(base_name(o->mech_c), base_name(o->out_c)) == 0) {
    fprintf(stderr, "ldlgen: --mechanism-out needs a file name other than -o's ('%s'): its header includes -o's by name\n",
            base_name(o->mech_c));
    return 2;
  }
  if (o->emit.batch && o->emit.mode == EMIT_TABLES) {
    fprintf(stderr, "ldlgen: --batch needs unrolled code: tables mode has no batch form\n");
    return 2;
  }
  if (o->emit.batch && o->table) {
    fprintf(stderr, "ldlgen: --batch writes one mechanism's batch program; not with --table\n");
    return 2;
  }
  if (!o->table && o->ninputs > 1) {
    fprintf(stderr, "ldlgen: one mechanism file at a time (or --table)\n");
    return 2;
  }
  o->input = o->inputs[0];
  return 0;
}

/* Layout of every pivot and block, for tools and reviewers. */
static void write_report(const program *p, FILE *out) {
  const symbolic *s = &p->sym;
  json_writer w;
  json_begin(&w, out);
  json_key(&w, "name");
  json_string(&w, p->m->name);
  json_key(&w, "dim");
  json_int(&w, s->dim);
  json_key(&w, "workspace");
  json_int(&w, s->work_size);
  json_key(&w, "pivots");
  json_begin_array(&w);
  for (int q = 0; q < s->n; q++) {
    json_begin_object(&w);
    json_key(&w, "constraint");
    json_string(&w, p->g.name[s->perm[q]]);
    json_key(&w, "degree");
    json_int(&w, s->degree[q]);
    json_key(&w, "height");
    json_int(&w, s->height[q]);
    json_key(&w, "row");
    json_int(&w, s->row_off[q]);
    json_key(&w, "node_offset");
    json_int(&w, s->node_off[q]);
    json_key(&w, "edge_offset");
    json_int(&w, s->edge_off[q]);
    json_key(&w, "rsi_offset");
    json_int(&w, s->rsi_adr[q]);
    json_key(&w, "blocks");
    json_begin_array(&w);
    for (int k = s->col_adr[q]; k < s->col_adr[q + 1]; k++) {
      json_begin_object(&w);
      json_key(&w, "row_pivot");
      json_int(&w, s->col_piv[k]);
      json_key(&w, "row_constraint");
      json_string(&w, p->g.name[s->perm[s->col_piv[k]]]);
      json_key(&w, "offset");
      json_int(&w, s->col_off[k]);
      json_key(&w, "fill");
      json_bool(&w, s->col_fill[k]);
      json_end_object(&w);
    }
    json_end_array(&w);
    json_end_object(&w);
  }
  json_end_array(&w);
  json_end(&w);
}

/* The note on redundant equality rows (redundant.h): how many, and the
 * constraints that have them, with a joint type that would drop them.
 * Notes only: the program and the solver's results do not change. */
static void note_redundant(const program *p, const redundant *red, FILE *out) {
  enum { MAX_LINES = 12 };
  const mech *m = p->m;
  if (!red || red->rank == red->dim) return;
  const redundant r = *red;
  fprintf(out,
          "%s:%d: note: %d of the %d equality rows are redundant at the initial pose (rank %d): other "
          "constraints already impose them (H is regularized, so the results are the same either way)\n",
          m->file, m->line, r.dim - r.rank, r.dim, r.rank);
  for (int i = 0; i < r.ncons && i < MAX_LINES; i++) {
    const int c = r.cons[i], orig = p->s.cons_orig[c];
    const int n = redundant_count(r.rows[i]);
    const rt_joint_type type = orig >= 0 ? m->cons[orig].type : RT_WELD;
    const int line = orig >= 0 ? m->cons[orig].line : m->bodies[p->s.body_orig[p->s.cons_a[c]]].line;
    int drops = 0;
    const char *hint = orig >= 0 ? redundant_suggestion(type, r.rows[i], p->s.cons_degree[c], &drops) : NULL;
    char rest[64] = "";
    if (hint && n > drops)
      snprintf(rest, sizeof rest, "; %d of its redundant rows would remain", n - drops);
    fprintf(out, "%s:%d: note: '%s' (%s): %d of its %d rows %s redundant%s%s%s\n", m->file, line,
            p->s.cons_name[c], orig >= 0 ? rt_joint_type_name(type) : "shard weld", n, p->s.cons_degree[c],
            n == 1 ? "is" : "are", hint ? "; " : "", hint ? hint : "", rest);
  }
  if (r.ncons > MAX_LINES)
    fprintf(out, "%s:%d: note: ... and %d more constraints with redundant rows (--stats lists them all)\n", m->file,
            m->line, r.ncons - MAX_LINES);
}

static void print_table(FILE *out, const program *p) {
  const symbolic *s = &p->sym;
  fprintf(out, "%-22s %6d %6d %6d %5d %8.1f%% %6d %9lld %9lld %10lld  %s\n", p->m->name, p->m->nbody, p->s.ncons,
          p->s.nshards, s->dim, 100.0 * p->density, s->nfill, (long long)s->nrsi, symbolic_flops(s),
          (long long)((p->unshattered_flops3 + 1) / 3), p->heuristic);
}

int main(int argc, char **argv) {
  int rc = subcmd_main(argc, argv, LDLGEN_VERSION);
  if (rc >= 0) return rc;
  options o;
  rc = parse_args(argc, argv, &o);
  if (rc) {
    free(o.inputs);
    return rc;
  }
  diag_list d;
  diag_init(&d);
  gen_status st = GEN_OK;
  outfile_catch_signals();

  char **keep = NULL;
  keep_end *ends = NULL;
  int *chunks = NULL;
  int nkeep = 0, nends = 0;
  if (o.keep && (st = gdiff_pivot_order(o.keep, &keep, &nkeep, &ends, &nends, &chunks, &d)) == GEN_OK) {
    o.prog.keep = (const char *const *)keep;
    o.prog.nkeep = nkeep;
    o.prog.keep_ends = ends;
    o.prog.nkeep_ends = nends;
    o.prog.keep_chunks = chunks;
  }
  if (o.table)
    printf("%-22s %6s %6s %6s %5s %9s %6s %9s %9s %10s  %s\n", "mechanism", "bodies", "cons", "shards", "dim",
           "density", "fill", "rsi", "flops", "unshat.", "order");
  for (int f = 0; f < o.ninputs && st == GEN_OK; f++) {
    arena a;
    arena_init(&a);
    mech m;
    program p;
    st = load_mech(&a, o.inputs[f], NULL, &m, &d);
    if (st == GEN_OK) st = program_build(&a, &m, &o.prog, &p, &d);
    if (st == GEN_OK && o.table) print_table(stdout, &p);
    if (st == GEN_OK && !o.table) {
      /* every output file is complete before any is renamed into place */
      outfile dot = {0}, rep = {0}, oc = {0}, oh = {0}, mc = {0}, mh = {0};
      emit_output code = {0};
      char *out_h = NULL, *mech_h = NULL;
      if (o.out_c) {
        out_h = header_of(o.out_c);
        o.emit.header = base_name(out_h);
        if (o.mech_c) {
          mech_h = header_of(o.mech_c);
          o.emit.mechanism_c = base_name(o.mech_c);
          o.emit.mechanism_h = base_name(mech_h);
        }
        st = program_check_emit(&p, &o.prog, o.emit.mode == EMIT_TABLES, &d);
        if (st == GEN_OK) st = emit_program(&p, &o.emit, &code, &d);
      }
      if (st == GEN_OK && o.dot && (st = outfile_open(&dot, o.dot, &d)) == GEN_OK) dot_write(&p, dot.f);
      if (st == GEN_OK && o.report && (st = outfile_open(&rep, o.report, &d)) == GEN_OK) write_report(&p, rep.f);
      if (st == GEN_OK && o.out_c && (st = outfile_open(&oc, o.out_c, &d)) == GEN_OK)
        fwrite(code.c, 1, code.c_len, oc.f);
      if (st == GEN_OK && o.out_c && (st = outfile_open(&oh, out_h, &d)) == GEN_OK)
        fwrite(code.h, 1, code.h_len, oh.f);
      if (st == GEN_OK && o.mech_c && (st = outfile_open(&mc, o.mech_c, &d)) == GEN_OK)
        fwrite(code.mc, 1, code.mc_len, mc.f);
      if (st == GEN_OK && o.mech_c && (st = outfile_open(&mh, mech_h, &d)) == GEN_OK)
        fwrite(code.mh, 1, code.mh_len, mh.f);
      if (st == GEN_OK && o.dot) st = outfile_commit(&dot, &d);
      if (st == GEN_OK && o.report) st = outfile_commit(&rep, &d);
      if (st == GEN_OK && o.out_c) st = outfile_commit(&oc, &d);
      if (st == GEN_OK && o.out_c) st = outfile_commit(&oh, &d);
      if (st == GEN_OK && o.mech_c) st = outfile_commit(&mc, &d);
      if (st == GEN_OK && o.mech_c) st = outfile_commit(&mh, &d);
      outfile_abort(&dot);
      outfile_abort(&rep);
      outfile_abort(&oc);
      outfile_abort(&oh);
      outfile_abort(&mc);
      outfile_abort(&mh);
      emit_output_free(&code);
      free(out_h);
      free(mech_h);
      if (st == GEN_OK) { /* the rank test, once for both */
        arena t;
        arena_init(&t);
        redundant r;
        const redundant *red = redundant_analyze(&t, &p, &r) == 0 ? &r : NULL;
        if (o.stats) program_write_stats(&p, red, o.emit.batch, stdout);
        note_redundant(&p, red, stderr);
        arena_free(&t);
      }
      if (st == GEN_OK && p.keep_asked) note_kept(&m, &p, o.keep, o.prog.keep_tolerance, stderr);
    }
    arena_free(&a);
  }
  diag_print(&d, stderr);
  diag_free(&d);
  gdiff_pivot_order_free(keep, nkeep, ends, nends, chunks);
  free(o.inputs);
  if (fflush(stdout) != 0 && st == GEN_OK) st = GEN_ERR_IO;
  return st == GEN_OK ? 0 : 1;
}
