/* report_json.c -- the JSON report (see report.h), written with gen's
 * deterministic JSON writer. Times in seconds; null where not measured. */
#include "json.h"
#include "stat_json.h"
#include "report.h"
#include "targets.h"

/* The whole step against ODE and MuJoCo: one object per method. */
static void peers_array(json_writer *w, const br_step *st) {
  json_key(w, "hold_seconds");
  json_double(w, st->hold_seconds);
  json_key(w, "instructions_revision");
  json_string(w, st->cg_revision);
  json_key(w, "methods");
  json_begin_array(w);
  for (int k = 0; k < SP_COUNT; k++) {
    const br_peer *p = &st->peer[k];
    json_begin_object(w);
    json_key(w, "key");
    json_string(w, sp_key((sp_kind)k));
    json_key(w, "method");
    json_string(w, p->label);
    json_key(w, "measured");
    json_bool(w, p->measured);
    if (!p->measured) {
      json_key(w, "why");
      json_string(w, p->why);
      json_end_object(w);
      continue;
    }
    json_key(w, "left_out");
    json_string(w, p->unmapped);
    json_key(w, "rows");
    json_int(w, p->rows);
    bt_stat_json(w, "step_s", p->time);
    bt_stat_json(w, "vs_ode_quickstep", p->vs_quick);
    json_key(w, "instructions_per_step");
    if (p->instructions > 0)
      json_double(w, p->instructions);
    else
      json_string(w, "not counted");
    const sp_hold *h = &p->hold;
    json_key(w, "holds");
    json_begin_object(w);
    json_key(w, "steps");
    json_int(w, h->steps);
    json_key(w, "exploded");
    json_bool(w, h->exploded);
    json_key(w, "max_pos_error_m");
    json_double(w, h->max_pos);
    json_key(w, "final_pos_error_m");
    json_double(w, h->final_pos);
    json_key(w, "max_ang_error_rad");
    json_double(w, h->max_ang);
    json_key(w, "probe_dz_m");
    json_double(w, h->probe_final - h->probe_start);
    json_key(w, "probe_min_dz_m");
    json_double(w, h->probe_min - h->probe_start);
    json_end_object(w);
    json_end_object(w);
  }
  json_end_array(w);
}

static void method_obj(json_writer *w, const br_mech *m, const br_method *o) {
  json_begin_object(w);
  json_key(w, "method");
  json_string(w, o->name);
  json_key(w, "precision");
  json_string(w, o->precision);
  json_key(w, "library");
  json_bool(w, o->library);
  json_key(w, "ok");
  json_bool(w, o->ok);
  if (o->ok) {
    bt_stat_json(w, "factor_s", o->factor);
    bt_stat_json(w, "solve_s", o->solve);
    if (m->ud >= 0) bt_stat_json(w, "factor_vs_unrolled_double", o->vs_ud);
    if (!o->library && o->ldl_vs.med > 0) bt_stat_json(w, "ldl_amd_vs_this", o->ldl_vs);
    if (!o->library && o->lib_vs.med > 0) bt_stat_json(w, "fastest_library_vs_this", o->lib_vs);
    json_key(w, "residual");
    json_double(w, o->residual);
  }
  if (o->avx2) {
    json_key(w, "avx2_build");
    json_bool(w, 1);
    json_key(w, "bitwise_identical_to_baseline_build");
    json_bool(w, o->bitwise);
  }
  json_key(w, "flops_block");
  if (o->flops_block > 0)
    json_double(w, o->flops_block);
  else
    json_string(w, "n/a");
  json_key(w, "flops_cholmod");
  json_double(w, o->flops_chol);
  json_key(w, "nnz_L");
  json_int(w, o->lnz);
  json_end_object(w);
}

static void mech_obj(json_writer *w, const br_mech *m) {
  json_begin_object(w);
  json_key(w, "path");
  json_string(w, m->path);
  json_key(w, "name");
  json_string(w, m->name);
  if (m->series) {
    json_key(w, "series");
    json_string(w, m->series);
    json_key(w, "n");
    json_int(w, m->param);
  }
  if (m->error) {
    json_key(w, "error");
    json_string(w, m->error);
    json_end_object(w);
    return;
  }
  json_key(w, "bodies");
  json_int(w, m->bodies);
  json_key(w, "constraints");
  json_int(w, m->ncons);
  json_key(w, "shards");
  json_int(w, m->shards);
  json_key(w, "dim");
  json_int(w, m->dim);
  json_key(w, "density");
  json_double(w, m->density);
  json_key(w, "nnz_H");
  json_int(w, m->nnz);
  json_key(w, "flops_block");
  json_double(w, m->flops_block);
  json_key(w, "heuristic");
  json_string(w, m->heuristic ? m->heuristic : "?");
  json_key(w, "load_s");
  json_double(w, m->load_s);
  json_key(w, "symbolic_s");
  json_double(w, m->symbolic_s);
  json_key(w, "methods");
  json_begin_array(w);
  for (int k = 0; k < m->nmethod; k++) method_obj(w, m, &m->method[k]);
  json_end_array(w);
  if (m->fastest_lib >= 0) {
    json_key(w, "fastest_library");
    json_string(w, m->method[m->fastest_lib].name);
    if (m->ud >= 0) bt_stat_json(w, "fastest_library_vs_unrolled_double", m->lib_vs_ud);
    if (m->uf >= 0) bt_stat_json(w, "fastest_library_vs_unrolled_float", m->lib_vs_uf);
  }
  if (m->has_orders) {
    json_key(w, "orderings");
    json_begin_array(w);
    for (int k = 0; k < BO_COUNT; k++) {
      const bo_row *o = &m->order[k];
      json_begin_object(w);
      json_key(w, "order");
      json_string(w, o->name);
      json_key(w, "detail");
      json_string(w, o->detail);
      json_key(w, "ok");
      json_bool(w, o->ok);
      json_key(w, "flops_block");
      json_double(w, o->flops);
      json_key(w, "fill_blocks");
      json_int(w, o->fill);
      json_key(w, "seconds");
      json_double(w, o->seconds);
      json_end_object(w);
    }
    json_end_array(w);
  }
  json_key(w, "generated");
  json_begin_array(w);
  for (int c = 0; c < m->ncompile; c++) {
    const br_compile *x = &m->compile[c];
    json_begin_object(w);
    json_key(w, "precision");
    json_string(w, x->precision);
    json_key(w, "source");
    json_string(w, x->source);
    json_key(w, "lines");
    json_int(w, x->lines);
    json_key(w, "compile_cpu_s");
    json_double(w, x->compile_s);
    json_key(w, "text_bytes");
    json_int(w, x->text);
    json_key(w, "data_bytes");
    json_int(w, x->data);
    if (x->text_avx2 > 0) {
      json_key(w, "avx2_compile_cpu_s");
      json_double(w, x->compile_avx2_s);
      json_key(w, "avx2_text_bytes");
      json_int(w, x->text_avx2);
    }
    json_end_object(w);
  }
  json_end_array(w);
  if (!m->series) {
    /* the full step (fullstep.c); "not measured" if no world could be made */
    json_key(w, "full_step");
    if (!m->step.measured) {
      json_string(w, "not measured");
    } else {
      json_begin_object(w);
      json_key(w, "iterations");
      json_int(w, m->step.iterations);
      bt_stat_json(w, "ldlpgs_1thread_s", m->step.ldlpgs_1thread);
      bt_stat_json(w, "ldlpgs_2threads_s", m->step.ldlpgs_2threads);
      bt_stat_json(w, "pgs_s", m->step.pgs);
      if (m->step.stabilized) bt_stat_json(w, "ldlpgs_2threads_stabilized_s", m->step.ldlpgs_stab);
      peers_array(w, &m->step);
      json_end_object(w);
    }
    /* the precision presets and the block solvers (precision.c) */
    const br_prec *p = &m->prec;
    json_key(w, "precision");
    if (!p->measured) {
      json_string(w, "not measured");
    } else {
      static const char *const sims[BR_PREC_SIMS] = {"float", "fast", "accurate", "pcr", "no_program"};
      json_begin_object(w);
      json_key(w, "residual_float");
      json_double(w, p->res_float);
      json_key(w, "residual_fast");
      json_double(w, p->res_fast);
      json_key(w, "residual_float_jv");
      json_double(w, p->res_float_jv);
      json_key(w, "residual_fast_jv");
      json_double(w, p->res_fast_jv);
      json_key(w, "residual_accurate_jv");
      json_double(w, p->res_double_jv);
      json_key(w, "residual_refined");
      json_double(w, p->res_refined);
      json_key(w, "refine_steps");
      json_int(w, p->refine_steps);
      json_key(w, "refine_steps_to_1e-6");
      json_int(w, p->refine_to_1e6);
      json_key(w, "residual_accurate");
      json_double(w, p->res_double);
      json_key(w, "pcr_tolerance");
      json_double(w, p->pcr_tol);
      json_key(w, "pcr_iterations");
      json_int(w, p->pcr_iterations);
      json_key(w, "pcr_residual");
      json_double(w, p->res_pcr);
      json_key(w, "pcr_iterations_to_1e-6");
      json_int(w, p->pcr_iterations_1e6);
      json_key(w, "pcr_residual_1e-6");
      json_double(w, p->res_pcr_1e6);
      json_key(w, "pcr_cap");
      json_int(w, p->pcr_cap);
      bt_stat_json(w, "float_s", p->float_s);
      bt_stat_json(w, "fast_s", p->fast_s);
      bt_stat_json(w, "fast_vs_float", p->fast_vs_float);
      bt_stat_json(w, "fast_vs_float_with_assembly", p->fast_vs_float_asm);
      bt_stat_json(w, "step_fast_vs_float", p->step_fast_vs_float);
      bt_stat_json(w, "accurate_s", p->double_s);
      bt_stat_json(w, "pcr_s", p->pcr_s);
      bt_stat_json(w, "pcr_1e-6_s", p->pcr_1e6_s);
      bt_stat_json(w, "assemble_float_s", p->assemble_f);
      json_key(w, "run_steps");
      json_int(w, p->sim_steps);
      json_key(w, "runs");
      json_begin_array(w);
      for (int k = 0; k < BR_PREC_SIMS; k++) {
        json_begin_object(w);
        json_key(w, "config");
        json_string(w, sims[k]);
        json_key(w, "max_pos_error");
        json_double(w, p->sim_err[k]);
        json_key(w, "exploded");
        json_bool(w, p->sim_exploded[k]);
        bt_stat_json(w, "step_s", p->step_s[k]);
        if (k >= 3) {
          json_key(w, "pcr_iterations_mean");
          json_double(w, p->sim_pcr_iterations[k - 3]);
        }
        json_end_object(w);
      }
      json_end_array(w);
      json_end_object(w);
    }
  }
  json_end_object(w);
}

void br_write_json(FILE *f, const br_report *r) {
  json_writer w;
  json_begin(&w, f);
  json_key(&w, "date");
  json_string(&w, r->date);
  json_key(&w, "revision");
  json_string(&w, r->revision);
  json_key(&w, "cpu");
  json_string(&w, r->cpu);
  json_key(&w, "logical_cpus");
  json_int(&w, r->ncpu);
  json_key(&w, "compiler");
  json_string(&w, r->compiler);
  json_key(&w, "generated_cflags");
  json_string(&w, r->cflags);
  json_key(&w, "avx2_build_flags");
  json_string(&w, r->avx2_flags);
  json_key(&w, "avx2_build_measured");
  json_bool(&w, r->avx2_flags[0] && r->avx2_cpu);
  json_key(&w, "libraries");
  json_string(&w, r->libs);
  json_key(&w, "blas");
  json_string(&w, r->blas);
  json_key(&w, "runs");
  json_int(&w, r->runs);
  json_key(&w, "batches");
  json_int(&w, r->batches);
  json_key(&w, "batch_s");
  json_double(&w, r->batch_s);
  json_key(&w, "wall_s");
  json_double(&w, r->wall_s);
  json_key(&w, "flop_conventions");
  json_string(&w, "flops_block: per pivot 2*(d^3/6 + h d^2 + d h(h+1)/2); "
                  "flops_cholmod: sum over columns of |L(:,j)|^2 (diagonal included) of the stored factor");
  json_key(&w, "corun");
  json_begin_object(&w);
  json_key(&w, "measured");
  json_bool(&w, r->corun.measured);
  if (r->corun.measured) {
    json_key(&w, "alone_us");
    json_double(&w, r->corun.alone_us);
    json_key(&w, "beside_us");
    json_double(&w, r->corun.beside_us);
    json_key(&w, "slowdown");
    json_double(&w, r->corun.slowdown);
  }
  json_end_object(&w);
  json_key(&w, "peak_gflops");
  json_begin_array(&w);
  for (int i = 0; i < BP_COUNT; i++) {
    const bp_result *p = &r->peak[i];
    json_begin_object(&w);
    json_key(&w, "kernel");
    json_string(&w, p->name);
    json_key(&w, "available");
    json_bool(&w, p->available);
    if (p->available) {
      bt_stat_json(&w, "double", (bt_stat){p->gflops[0], p->lo[0], p->hi[0]});
      bt_stat_json(&w, "float", (bt_stat){p->gflops[1], p->lo[1], p->hi[1]});
    }
    json_end_object(&w);
  }
  json_end_array(&w);
  json_key(&w, "targets");
  json_begin_array(&w);
  br_target t[64];
  const int nt = br_targets(r, t, 64);
  for (int i = 0; i < nt; i++) {
    json_begin_object(&w);
    json_key(&w, "verdict");
    json_string(&w, br_verdict_name(t[i].verdict));
    json_key(&w, "text");
    json_string(&w, t[i].text);
    json_end_object(&w);
  }
  json_end_array(&w);
  json_key(&w, "samples");
  json_begin_array(&w);
  for (int i = 0; i < r->nmech; i++) mech_obj(&w, &r->mech[i]);
  json_end_array(&w);
  json_key(&w, "scaling");
  json_begin_array(&w);
  for (int i = 0; i < r->nseries; i++) mech_obj(&w, &r->series[i]);
  json_end_array(&w);
  json_end(&w);
}
