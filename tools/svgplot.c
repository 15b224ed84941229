/* svgplot.c -- see svgplot.h. */
#include "svgplot.h"

#include <math.h>
#include <string.h>

enum { W = 760, H = 420, LEFT = 80, RIGHT = 20, TOP = 40, BOTTOM = 60, TICK = 5 };

/* Horizontal room between two x labels, and the height of a y label (px). */
#define LABEL_GAP 12.0
#define LABEL_HEIGHT 16.0

static void escaped(FILE *out, const char *s) {
  for (; *s; s++) {
    if (*s == '<')
      fputs("&lt;", out);
    else if (*s == '>')
      fputs("&gt;", out);
    else if (*s == '&')
      fputs("&amp;", out);
    else
      fputc(*s, out);
  }
}

double svgplot_label_width(const char *label) {
  double w = 0.0;
  for (const char *c = label; *c; c++) w += *c == '.' || *c == ',' ? 3.5 : 7.5; /* digits, '-' */
  return w;
}

/* Digits after the point that multiples of step need. */
static int decimals_of(double step) {
  const int d = (int)-floor(log10(step) + 1e-9);
  return d > 0 ? d : 0;
}

static void format_tick(char *buf, size_t n, double v, int decimals) {
  snprintf(buf, n, "%.*f", decimals, fabs(v) < 1e-12 ? 0.0 : v);
}

int svgplot_ticks(double lo, double hi, double pixels, double *ticks, int cap, int *decimals) {
  static const double mult[3] = {1, 2, 5};
  const double span = hi - lo;
  *decimals = 0;
  if (!(span > 0) || !(pixels > 0) || cap <= 0) return 0;
  for (int e = (int)floor(log10(span)) - 3;; e++)
    for (int k = 0; k < 3; k++) {
      const double step = mult[k] * pow(10.0, e);
      const int d = decimals_of(step);
      const double first = ceil(lo / step - 1e-9), last = floor(hi / step + 1e-9);
      const int n = (int)(last - first) + 1;
      if (n > cap) continue;
      double widest = 0.0;
      for (int i = 0; i < n; i++) {
        char s[64];
        format_tick(s, sizeof s, (first + i) * step, d);
        widest = fmax(widest, svgplot_label_width(s));
      }
      if (n > 1 && step / span * pixels < widest + LABEL_GAP) continue;
      for (int i = 0; i < n; i++) ticks[i] = (first + i) * step;
      *decimals = d;
      return n;
    }
}

int svgplot_decade_every(double per_decade) {
  static const int mult[3] = {1, 2, 5};
  for (int scale = 1;; scale *= 10)
    for (int k = 0; k < 3; k++)
      if (per_decade * mult[k] * scale >= LABEL_HEIGHT || scale > 100000) return mult[k] * scale;
}

/* The decade's label 10^d, the exponent raised. */
static void decade_label(FILE *out, double x, double y, int d) {
  fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">10<tspan dy=\"-6\" font-size=\"9\">%d</tspan></text>\n",
          x, y, d);
}

void svgplot_write(FILE *out, const char *title, const char *xlabel, const char *ylabel, double dx,
                   const svgplot_series *s, int ns) {
  double lo = INFINITY, hi = 0.0;
  int n = 1;
  for (int k = 0; k < ns; k++) {
    if (s[k].n > n) n = s[k].n;
    for (int i = 0; i < s[k].n; i++) {
      const double v = s[k].y[i];
      if (isfinite(v) && v > 0) {
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
    }
  }
  if (!(hi > 0)) lo = 1e-3, hi = 1.0;
  int dlo = (int)floor(log10(lo)), dhi = (int)ceil(log10(hi));
  if (dhi <= dlo) dhi = dlo + 1;
  const double pw = W - LEFT - RIGHT, ph = H - TOP - BOTTOM, xmax = n * dx > 0 ? n * dx : 1.0;
#define PX(x) (LEFT + pw * (x) / xmax)
#define PY(d) (TOP + ph * (1.0 - ((d) - dlo) / (double)(dhi - dlo)))
  fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n", W, H);
  fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
  fprintf(out, "<text x=\"%d\" y=\"22\" font-size=\"15\" text-anchor=\"middle\">", W / 2);
  escaped(out, title);
  fputs("</text>\n", out);
  /* y: decades (grid line, tick, label where it fits), minor ticks 2..9 */
  const double per_decade = ph / (dhi - dlo);
  const int every = svgplot_decade_every(per_decade);
  for (int d = dlo; d <= dhi; d++) {
    const int labelled = ((d % every) + every) % every == 0;
    fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", LEFT, W - RIGHT, PY(d), PY(d),
            labelled ? "#d8d8d8" : "#eeeeee");
    fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", LEFT - (labelled ? TICK : 3),
            LEFT, PY(d), PY(d));
    if (labelled) decade_label(out, LEFT - TICK - 3, PY(d) + 4, d);
    if (per_decade >= 40 && d < dhi)
      for (int m = 2; m <= 9; m++)
        fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", LEFT - 2, LEFT,
                PY(d + log10(m)), PY(d + log10(m)));
  }
  /* x: round ticks that leave room for their labels */
  double ticks[64];
  int decimals;
  const int nt = svgplot_ticks(0.0, xmax, pw, ticks, 64, &decimals);
  for (int i = 0; i < nt; i++) {
    char label[64];
    format_tick(label, sizeof label, ticks[i], decimals);
    fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.0f\" stroke=\"#eeeeee\"/>\n", PX(ticks[i]),
            PX(ticks[i]), TOP, TOP + ph);
    fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", PX(ticks[i]),
            PX(ticks[i]), TOP + ph, TOP + ph + TICK);
    fprintf(out, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n", PX(ticks[i]), TOP + ph + TICK + 14,
            label);
  }
  fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"black\"/>\n", LEFT, TOP,
          pw, ph);
  fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", LEFT + pw / 2, H - 18);
  escaped(out, xlabel);
  fprintf(out, "</text>\n<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">", TOP + ph / 2);
  escaped(out, ylabel);
  fputs("</text>\n", out);
  for (int k = 0; k < ns; k++) {
    fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", s[k].color);
    for (int i = 0; i < s[k].n; i++) {
      const double v = s[k].y[i];
      const double d = !isfinite(v) ? dhi : v > 0 ? fmax(log10(v), (double)dlo) : dlo; /* NaN: exploded */
      fprintf(out, "%.1f,%.1f ", PX((i + 1) * dx), PY(fmin(d, (double)dhi)));
    }
    fputs("\"/>\n", out);
  }
  /* the legend, on a white box so lines do not cross its text */
  double lw = 0.0;
  for (int k = 0; k < ns; k++) lw = fmax(lw, svgplot_label_width(s[k].label));
  fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%d\" fill=\"white\" fill-opacity=\"0.9\" "
               "stroke=\"#cccccc\"/>\n", LEFT + 6, TOP + 6, lw + 50, 18 * ns + 8);
  for (int k = 0; k < ns; k++) {
    fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>\n", LEFT + 12,
            LEFT + 36, TOP + 18 + 18 * k, TOP + 18 + 18 * k, s[k].color);
    fprintf(out, "<text x=\"%d\" y=\"%d\">", LEFT + 42, TOP + 22 + 18 * k);
    escaped(out, s[k].label);
    fputs("</text>\n", out);
  }
  fputs("</svg>\n", out);
#undef PX
#undef PY
}
