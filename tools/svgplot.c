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

/* The SVG element, its white background and the title centred on top. */
static void open_svg(FILE *out, int width, int height, const char *title) {
  fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n", width, height);
  fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
  fprintf(out, "<text x=\"%d\" y=\"22\" font-size=\"15\" text-anchor=\"middle\">", width / 2);
  escaped(out, title);
  fputs("</text>\n", out);
}

/* Round ticks on the x axis from lo to hi (pw x ph plot area at LEFT,
 * TOP), with their grid lines and labels; x is drawn at
 * LEFT + (x - lo) * num / den. */
static void x_ticks(FILE *out, double lo, double hi, double pw, double ph, double num, double den) {
  double ticks[64];
  int decimals;
  const int nt = svgplot_ticks(lo, hi, pw, ticks, 64, &decimals);
  for (int i = 0; i < nt; i++) {
    char label[64];
    const double x = LEFT + (ticks[i] - lo) * num / den;
    format_tick(label, sizeof label, ticks[i], decimals);
    fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.0f\" stroke=\"#eeeeee\"/>\n", x, x, TOP, TOP + ph);
    fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", x, x, TOP + ph,
            TOP + ph + TICK);
    fprintf(out, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n", x, TOP + ph + TICK + 14, label);
  }
}

/* The plot area's frame (pw x ph at LEFT, TOP) and the axis labels of a
 * picture `height` pixels high. */
static void frame(FILE *out, double pw, double ph, int height, const char *xlabel, const char *ylabel) {
  fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"black\"/>\n", LEFT, TOP,
          pw, ph);
  fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", LEFT + pw / 2, height - 18);
  escaped(out, xlabel);
  fprintf(out, "</text>\n<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">", TOP + ph / 2);
  escaped(out, ylabel);
  fputs("</text>\n", out);
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
  open_svg(out, W, H, title);
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
  x_ticks(out, 0.0, xmax, pw, ph, pw, xmax);
  frame(out, pw, ph, H, xlabel, ylabel);
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

/*---- paths in the plane ------------------------------------------------------*/

/* The map's plot area (px); the legend is a column right of it, as wide as
 * its labels, outside the plot, so that it never hides a path. */
enum { MAP_W = 660, MAP_H = 500 };

/* [lo, hi] widened about its centre to span `span`. */
static void widen(double *lo, double *hi, double span) {
  const double c = (*lo + *hi) / 2;
  *lo = c - span / 2;
  *hi = c + span / 2;
}

void svgplot_paths(FILE *out, const char *title, const char *xlabel, const char *ylabel, const svgplot_path *p,
                   int np) {
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (int k = 0; k < np; k++)
    for (int i = 0; i < p[k].n; i++)
      if (isfinite(p[k].x[i]) && isfinite(p[k].y[i])) {
        xlo = fmin(xlo, p[k].x[i]);
        xhi = fmax(xhi, p[k].x[i]);
        ylo = fmin(ylo, p[k].y[i]);
        yhi = fmax(yhi, p[k].y[i]);
      }
  if (!(xlo <= xhi)) xlo = 0, xhi = 1, ylo = 0, yhi = 1;
  double lw = 0.0;
  for (int k = 0; k < np; k++) lw = fmax(lw, svgplot_label_width(p[k].label));
  const double pw = MAP_W, ph = MAP_H;
  const int width = LEFT + MAP_W + (int)ceil(fmax(lw, 30.0)) + 56, height = TOP + MAP_H + BOTTOM;
  /* a margin of 5 % (at least 1 unit), then one scale for both axes: the
   * axis with room to spare is widened about its centre */
  const double mx = fmax(0.05 * (xhi - xlo), 1.0), my = fmax(0.05 * (yhi - ylo), 1.0);
  xlo -= mx, xhi += mx, ylo -= my, yhi += my;
  const double scale = fmin(pw / (xhi - xlo), ph / (yhi - ylo));
  widen(&xlo, &xhi, pw / scale);
  widen(&ylo, &yhi, ph / scale);
#define PX(x) (LEFT + ((x) - xlo) * scale)
#define PY(y) (TOP + ph - ((y) - ylo) * scale)
  open_svg(out, width, height, title);
  x_ticks(out, xlo, xhi, pw, ph, scale, 1.0);
  /* y ticks spaced as x ticks are (by their labels' width): more room than
   * a label's height needs, and the same steps on both axes */
  double ticks[64];
  int decimals;
  const int nt = svgplot_ticks(ylo, yhi, ph, ticks, 64, &decimals);
  for (int i = 0; i < nt; i++) {
    char label[64];
    format_tick(label, sizeof label, ticks[i], decimals);
    fprintf(out, "<line x1=\"%d\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eeeeee\"/>\n", LEFT, LEFT + pw,
            PY(ticks[i]), PY(ticks[i]));
    fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", LEFT - TICK, LEFT,
            PY(ticks[i]), PY(ticks[i]));
    fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", LEFT - TICK - 3, PY(ticks[i]) + 4,
            label);
  }
  frame(out, pw, ph, height, xlabel, ylabel);
  for (int k = 0; k < np; k++) {
    int first = -1, last = -1;
    fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" stroke-linejoin=\"round\" points=\"",
            p[k].color);
    for (int i = 0; i < p[k].n; i++) {
      if (!isfinite(p[k].x[i]) || !isfinite(p[k].y[i])) continue;
      if (first < 0) first = i;
      last = i;
      fprintf(out, "%.1f,%.1f ", PX(p[k].x[i]), PY(p[k].y[i]));
    }
    fputs("\"/>\n", out);
    if (first < 0) continue;
    fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"white\" stroke=\"%s\" stroke-width=\"2\"/>\n",
            PX(p[k].x[first]), PY(p[k].y[first]), p[k].color);
    fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", PX(p[k].x[last]), PY(p[k].y[last]),
            p[k].color);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", PX(p[k].x[last]) + 7, PY(p[k].y[last]) - 6, p[k].color);
    escaped(out, p[k].label);
    fputs("</text>\n", out);
  }
  for (int k = 0; k < np; k++) {
    const int y = TOP + 12 + 18 * k;
    fprintf(out, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>\n",
            LEFT + pw + 12, LEFT + pw + 34, y, y, p[k].color);
    fprintf(out, "<text x=\"%.0f\" y=\"%d\">", LEFT + pw + 40, y + 4);
    escaped(out, p[k].label);
    fputs("</text>\n", out);
  }
  fprintf(out, "<circle cx=\"%.0f\" cy=\"%d\" r=\"4\" fill=\"white\" stroke=\"black\" stroke-width=\"2\"/>\n",
          LEFT + pw + 23, TOP + 12 + 18 * np + 10);
  fprintf(out, "<text x=\"%.0f\" y=\"%d\">start</text>\n", LEFT + pw + 40, TOP + 12 + 18 * np + 14);
  fprintf(out, "<circle cx=\"%.0f\" cy=\"%d\" r=\"4\" fill=\"black\"/>\n", LEFT + pw + 23, TOP + 12 + 18 * np + 28);
  fprintf(out, "<text x=\"%.0f\" y=\"%d\">end</text>\n", LEFT + pw + 40, TOP + 12 + 18 * np + 32);
  fputs("</svg>\n", out);
#undef PX
#undef PY
}
