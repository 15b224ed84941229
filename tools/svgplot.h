/* svgplot.h -- a line chart of a few series over time as a standalone SVG
 * file, with a logarithmic y axis (constraint errors span decades).
 *
 * Axes: x ticks at round values (steps of 1, 2 or 5 times a power of ten)
 * no closer than their labels are wide, so labels never overlap; y ticks at
 * decades labelled 10^k (every decade, or every 2nd, 5th, 10th... when the
 * plot is too short for all), with minor ticks at 2..9 times a decade when
 * there is room. Axis labels carry the units ("time (s)", "error (m)"). */
#ifndef LDLPGS_TOOLS_SVGPLOT_H
#define LDLPGS_TOOLS_SVGPLOT_H

#include <stdio.h>

typedef struct svgplot_series {
  const char *label;
  const char *color;   /* CSS colour */
  const double *y;     /* n values; values <= 0 or non-finite are clipped to the bottom */
  int n;
} svgplot_series;

/* Writes the chart to out: value i at x = (i + 1) dx (value i of a run is
 * its state after step i + 1), the x axis from 0 to the longest series' end,
 * y on a log scale between the smallest and largest positive finite values
 * (whole decades). */
void svgplot_write(FILE *out, const char *title, const char *xlabel, const char *ylabel, double dx,
                   const svgplot_series *s, int ns);

/* A path in the plane: n points (x[i], y[i]). */
typedef struct svgplot_path {
  const char *label;
  const char *color;   /* CSS colour */
  const double *x, *y; /* n values each; a point with a non-finite coordinate is skipped */
  int n;
} svgplot_path;

/* Writes a map of the paths to out: x right, y up, one scale for both axes
 * (metres stay square), ticks at round values on both. Each path is a line
 * from a hollow circle (its start) to a filled one (its end), where its
 * label is written; a legend lists them. */
void svgplot_paths(FILE *out, const char *title, const char *xlabel, const char *ylabel, const svgplot_path *p,
                   int np);

/* Ticks of a linear axis over [lo, hi] (hi > lo) drawn `pixels` long: the
 * multiples of the smallest step 1, 2 or 5 x 10^k in [lo, hi] whose labels
 * (svgplot_label_width each, plus a gap) fit between neighbours. Writes at
 * most cap ticks; returns how many, and *decimals, the digits after the
 * point their labels need. */
int svgplot_ticks(double lo, double hi, double pixels, double *ticks, int cap, int *decimals);

/* Width in pixels that a label of these characters takes (12 px sans-serif,
 * an upper bound). */
double svgplot_label_width(const char *label);

/* Decades are labelled every *this* many (1, 2, 5, 10, 20, ...) so that
 * labels `per_decade` pixels apart do not overlap. */
int svgplot_decade_every(double per_decade);

#endif
