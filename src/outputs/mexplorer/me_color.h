/* me_color.h - etp_me_color() with the gradient prepared once: for writers
 * that colour every node of a graph against one scale (the report page's
 * metrics, the overlays), where parsing the stops' colours per node cost
 * more than the colouring. Same results as etp_me_color(), bit for bit. */
#ifndef ETP_ME_COLOR_H
#define ETP_ME_COLOR_H

#include <stddef.h>

#include "etprof/mexplorer.h"

/* Gradients of more stops take etp_me_color() (etp_me_scale_init says so). */
#define ETP_ME_SCALE_STOPS 16

typedef struct etp_me_scale {
    size_t n;
    double stop[ETP_ME_SCALE_STOPS];
    int rgb[ETP_ME_SCALE_STOPS][3]; /* 0,0,0 for a malformed colour, as etp_me_color */
    double min, max;
} etp_me_scale;

/* The default gradient (green, yellow, red): *@p n receives its stop count.
 * Static; the page's legend draws it as the overlays colour with it. */
const etp_me_stop *etp_me_default_stops(size_t *n);

/* Prepare @p s for etp_me_color(@p stops, @p n, @p min, @p max, ...) (NULL
 * or fewer than 2 stops: the default gradient). 0 on success, -1 when the
 * gradient has more than ETP_ME_SCALE_STOPS stops. */
int etp_me_scale_init(etp_me_scale *s, const etp_me_stop *stops, size_t n, double min, double max);

/* The colours etp_me_color() gives @p v: "#rrggbb" into @p bg and the text
 * colour into @p text (8 bytes each). Thread-safe; @p s is not changed. */
void etp_me_scale_color(const etp_me_scale *s, double v, char *bg, char *text);

#endif
