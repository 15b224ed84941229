/* svgplot.c -- see svgplot.h. */
#include "svgplot.h"

#include <math.h>

enum { W = 760, H = 420, LEFT = 80, RIGHT = 20, TOP = 40, BOTTOM = 60 };

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
  const double pw = W - LEFT - RIGHT, ph = H - TOP - BOTTOM, xmax = (n - 1) * dx > 0 ? (n - 1) * dx : 1.0;
#define PX(x) (LEFT + pw * (x) / xmax)
#define PY(d) (TOP + ph * (1.0 - ((d) - dlo) / (double)(dhi - dlo)))
  fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n", W, H);
  fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
  fprintf(out, "<text x=\"%d\" y=\"22\" font-size=\"15\" text-anchor=\"middle\">", W / 2);
  escaped(out, title);
  fputs("</text>\n", out);
  /* decades */
  for (int d = dlo; d <= dhi; d++) {
    fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", LEFT, W - RIGHT, PY(d),
            PY(d));
    fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>\n", LEFT - 6, PY(d) + 4, d);
  }
  /* time ticks: about 10 */
  const double step = pow(10.0, floor(log10(xmax / 10.0 > 0 ? xmax / 10.0 : 1.0)));
  for (double x = 0.0; x <= xmax + 1e-9; x += step * (xmax / step > 20 ? 2 : 1))
    fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", PX(x), H - BOTTOM + 18, x);
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
      fprintf(out, "%.1f,%.1f ", PX(i * dx), PY(fmin(d, (double)dhi)));
    }
    fputs("\"/>\n", out);
    fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>\n", LEFT + 12,
            LEFT + 36, TOP + 16 + 18 * k, TOP + 16 + 18 * k, s[k].color);
    fprintf(out, "<text x=\"%d\" y=\"%d\">", LEFT + 42, TOP + 20 + 18 * k);
    escaped(out, s[k].label);
    fputs("</text>\n", out);
  }
  fputs("</svg>\n", out);
#undef PX
#undef PY
}
