/* test_ineq_report.c -- the inequality bench's reports
 * (bench/inequality/report.c) on made-up results: the goal's verdict at
 * the 1.3x line on time and on instructions, and the Markdown, the JSON and
 * the README table naming every sample with the same numbers. No timing:
 * make bench-inequality measures; this checks what it writes. Needs none of
 * the benchmark's libraries. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/inequality/ineq.h"

/* A sample costing `time` and `instr` times the equality-only step (0: not
 * measured that way), with a limit, a motor and three held runs. */
static iq_sample sample(const char *name, double time, double instr) {
  iq_sample s;
  memset(&s, 0, sizeof s);
  snprintf(s.name, sizeof s.name, "%s", name);
  s.nlimit = s.nmotor = 1;
  s.unrolled = 1;
  iq_cost *c = &s.cost;
  snprintf(c->why, sizeof c->why, "made up");
  if (time > 0) {
    c->timed = 1;
    c->us[IQ_EQ_ONLY] = (bt_stat){10.0, 9.0, 11.0};
    c->us[IQ_NEW] = (bt_stat){10.0 * time, 9.0 * time, 11.0 * time};
    c->ratio = (bt_stat){time, time, time};
  }
  if (instr > 0) {
    c->counted = 1;
    c->instr[IQ_EQ_ONLY] = 1000.0;
    c->instr[IQ_NEW] = 1000.0 * instr;
  }
  for (int v = 0; v < IQ_VARIANTS; v++) {
    iq_hold *h = &s.hold[v];
    h->ran = 1;
    h->steps = 600;
    h->limit = 0.001 * (v + 1);
    h->slip = 0.25 / (v + 1);
    h->pos = 1e-7;
  }
  return s;
}

/* What writer puts out for r, as a string (free it). */
static char *written(void (*writer)(FILE *, const iq_report *), const iq_report *r) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  writer(f, r);
  assert_int_equal(fclose(f), 0);
  return text;
}

static void test_verdict_at_the_goal(void **state) {
  (void)state;
  iq_sample s = sample("a", 1.2, 1.3);
  assert_int_equal(iq_verdict(&s), 1);
  s = sample("a", 1.31, 1.0);
  assert_int_equal(iq_verdict(&s), 0);
  s = sample("a", 1.0, 1.31);
  assert_int_equal(iq_verdict(&s), 0);
  s = sample("a", 0, 1.1); /* instructions alone */
  assert_int_equal(iq_verdict(&s), 1);
  s = sample("a", 0, 0);
  assert_int_equal(iq_verdict(&s), -1);
}

/* Opening and closing brackets and braces balance outside strings. */
static void assert_balanced(const char *json) {
  int depth = 0, in_string = 0;
  for (const char *p = json; *p; p++) {
    if (in_string) {
      if (*p == '\\' && p[1]) p++;
      else if (*p == '"') in_string = 0;
      continue;
    }
    if (*p == '"') in_string = 1;
    depth += (*p == '{' || *p == '[') - (*p == '}' || *p == ']');
    assert_true(depth >= 0);
  }
  assert_int_equal(depth, 0);
  assert_false(in_string);
}

static void test_reports_name_every_sample(void **state) {
  (void)state;
  iq_sample s[3] = {sample("alpha", 1.1, 1.2), sample("beta", 1.4, 1.1), sample("gamma", 0, 0)};
  const iq_report r = {"abc1234", 5, s, 3};
  char *md = written(iq_write_md, &r), *json = written(iq_write_json, &r), *readme = written(iq_write_readme, &r);
  assert_balanced(json);
  assert_non_null(strstr(json, "\"revision\": \"abc1234\""));
  assert_null(strstr(json, "nan"));
  const char *names[3] = {"alpha", "beta", "gamma"}, *verdicts[3] = {"PASS", "MISS", "NOT MEASURED"};
  for (int i = 0; i < 3; i++) {
    char want[128];
    snprintf(want, sizeof want, "\"sample\": \"%s\"", names[i]);
    assert_non_null(strstr(json, want));
    snprintf(want, sizeof want, "%-12s %s: ", verdicts[i], names[i]);
    assert_non_null(strstr(md, want));
    snprintf(want, sizeof want, "| %s | PGS |", names[i]);
    assert_non_null(strstr(md, want));
    assert_non_null(strstr(readme, want));
  }
  /* the same ratio in both */
  assert_non_null(strstr(md, "| 1.40x (1.40-1.40) |"));
  assert_non_null(strstr(json, "\"time_ratio\""));
  assert_non_null(strstr(json, "\"instruction_ratio\": 1.2"));
  free(md);
  free(json);
  free(readme);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_verdict_at_the_goal),
      cmocka_unit_test(test_reports_name_every_sample),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
