/* test_svgplot.c -- the SVG plot's axes (tools/svgplot.h): x ticks at round
 * values (1, 2 or 5 times a power of ten) whose labels never overlap, for
 * runs from a fraction of a second to hours and plots of any width; decade
 * labels on the log axis thinned out only when they would collide; and a
 * written plot carrying its axis labels with units and every tick label
 * inside the frame, left to right, with room between them. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tools/svgplot.h"

/* v is k * {1, 2, 5} * 10^e for an integer k. */
static int round_step(double step) {
  const double e = floor(log10(step) + 1e-9), m = step / pow(10.0, e);
  return fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9;
}

static void test_ticks_never_overlap(void **state) {
  (void)state;
  static const double spans[] = {0.05, 0.3, 1.0, 1.13, 2.5, 9.98, 10.0, 37.0, 60.0, 599.0, 3600.0, 12345.0};
  static const double widths[] = {120, 300, 660, 1200};
  for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++)
    for (size_t j = 0; j < sizeof widths / sizeof widths[0]; j++) {
      double t[64];
      int decimals;
      const int n = svgplot_ticks(0.0, spans[i], widths[j], t, 64, &decimals);
      assert_true(n >= 2);
      assert_true(t[0] == 0.0);
      const double step = t[1] - t[0];
      if (!round_step(step)) fail_msg("span %g, %g px: step %g is not 1, 2 or 5 x 10^k", spans[i], widths[j], step);
      for (int k = 0; k < n; k++) {
        assert_true(t[k] <= spans[i] * (1 + 1e-9));
        if (k) assert_true(fabs(t[k] - t[k - 1] - step) <= 1e-9 * spans[i]);
      }
      /* neighbouring labels do not touch */
      for (int k = 1; k < n; k++) {
        char a[64], b[64];
        snprintf(a, sizeof a, "%.*f", decimals, t[k - 1]);
        snprintf(b, sizeof b, "%.*f", decimals, t[k]);
        const double gap = step / spans[i] * widths[j];
        if (gap < (svgplot_label_width(a) + svgplot_label_width(b)) / 2 + 4)
          fail_msg("span %g, %g px: labels %s and %s overlap (%g px apart)", spans[i], widths[j], a, b, gap);
      }
      /* labels name distinct values: enough decimals */
      char last[64], prev[64];
      snprintf(last, sizeof last, "%.*f", decimals, t[n - 1]);
      snprintf(prev, sizeof prev, "%.*f", decimals, t[n - 2]);
      assert_string_not_equal(last, prev);
      /* and as many ticks as fit: the next finer round step would collide */
      assert_true(n <= widths[j] / 10.0 + 1);
    }
  /* 10 s over 660 px: every second */
  double t[64];
  int d;
  assert_int_equal(svgplot_ticks(0.0, 10.0, 660.0, t, 64, &d), 11);
  assert_int_equal(d, 0);
  /* 1.13 s: steps of 0.1 s, labels with one decimal */
  assert_int_equal(svgplot_ticks(0.0, 1.13, 660.0, t, 64, &d), 12);
  assert_int_equal(d, 1);
}

static void test_decades(void **state) {
  (void)state;
  assert_int_equal(svgplot_decade_every(53.0), 1); /* 6 decades over 320 px */
  assert_int_equal(svgplot_decade_every(16.0), 1);
  assert_int_equal(svgplot_decade_every(12.0), 2);
  assert_int_equal(svgplot_decade_every(4.0), 5);
  assert_int_equal(svgplot_decade_every(1.0), 20);
}

/* The x-positions of the tick labels under the frame: "x" of every
 * <text ... y="YB"> with YB the baseline of the x labels. */
static int x_labels(const char *svg, double *x, char labels[][32], int cap) {
  int n = 0;
  for (const char *p = svg; (p = strstr(p, "<text x=\"")) != NULL && n < cap; p++) {
    double px, py;
    char text[32];
    if (sscanf(p, "<text x=\"%lf\" y=\"%lf\" text-anchor=\"middle\">%31[^<]", &px, &py, text) == 3 && py == 379) {
      x[n] = px;
      strcpy(labels[n], text);
      n++;
    }
  }
  return n;
}

static void test_written_plot(void **state) {
  (void)state;
  enum { N = 600 };
  static double a[N], b[N];
  for (int i = 0; i < N; i++) {
    a[i] = 1e-5 * (1 + 0.5 * sin(i * 0.1));
    b[i] = i < 68 ? 1e-3 * exp(i * 0.1) : NAN; /* explodes */
  }
  const svgplot_series s[2] = {{"LDL-PGS", "#1f77b4", a, N}, {"PGS", "#d62728", b, 68}};
  char *svg = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&svg, &len);
  svgplot_write(f, "a & b", "time (s)", "error (m)", 1.0 / 60, s, 2);
  fclose(f);
  assert_non_null(strstr(svg, ">time (s)</text>"));
  assert_non_null(strstr(svg, ">error (m)</text>"));
  assert_non_null(strstr(svg, "a &amp; b"));
  assert_non_null(strstr(svg, "10<tspan dy=\"-6\" font-size=\"9\">-5</tspan>"));
  double x[64];
  char labels[64][32];
  const int n = x_labels(svg, x, labels, 64);
  assert_int_equal(n, 11); /* 0 .. 10 s */
  for (int i = 0; i < n; i++) {
    assert_true(x[i] >= 80 && x[i] <= 740);
    if (i) assert_true(x[i] - x[i - 1] >= (svgplot_label_width(labels[i]) + svgplot_label_width(labels[i - 1])) / 2);
    char want[32];
    snprintf(want, sizeof want, "%d", i);
    assert_string_equal(labels[i], want);
  }
  free(svg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ticks_never_overlap),
      cmocka_unit_test(test_decades),
      cmocka_unit_test(test_written_plot),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
