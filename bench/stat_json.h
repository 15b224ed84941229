/* stat_json.h -- a bench statistic (btime.h's bt_stat) as a JSON object
 * {median, min, max} under key, with gen's JSON writer; shared by the
 * bench's reports, header-only so the reports' tests link without the
 * bench's timing code. */
#ifndef LDLPGS_BENCH_STAT_JSON_H
#define LDLPGS_BENCH_STAT_JSON_H

#include "btime.h"
#include "json.h"

static inline void bt_stat_json(json_writer *w, const char *key, bt_stat s) {
  json_key(w, key);
  json_begin_object(w);
  json_key(w, "median");
  json_double(w, s.med);
  json_key(w, "min");
  json_double(w, s.lo);
  json_key(w, "max");
  json_double(w, s.hi);
  json_end_object(w);
}

#endif
