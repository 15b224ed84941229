/* svgplot.h -- a line chart of a few series over time as a standalone SVG
 * file, with a logarithmic y axis (constraint errors span decades). */
#ifndef LDLPGS_TOOLS_SVGPLOT_H
#define LDLPGS_TOOLS_SVGPLOT_H

#include <stdio.h>

typedef struct svgplot_series {
  const char *label;
  const char *color;   /* CSS colour */
  const double *y;     /* n values; values <= 0 or non-finite are clipped to the bottom */
  int n;
} svgplot_series;

/* Writes the chart to out: x = i * dx for i in [0, n), y on a log scale
 * between the smallest and largest positive finite values (whole decades). */
void svgplot_write(FILE *out, const char *title, const char *xlabel, const char *ylabel, double dx,
                   const svgplot_series *s, int ns);

#endif
