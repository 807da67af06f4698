/* cli_progress.c - one progress line on stderr for the steps that take a
 * while (see cli.h). It is for a person watching a terminal: when stderr is
 * not a terminal (a log, a pipe, a test capturing it) or with --quiet,
 * nothing is ever printed, so captured stderr holds only messages. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

/* At most this many redraws per second: a terminal is slow to redraw and
 * the writer may report a fraction thousands of times. */
#define REDRAWS_PER_SECOND 10

static struct {
    int on;            /* stderr is a terminal and not --quiet */
    int shown;         /* a line is on the screen */
    const char *label;
    double last;       /* time of the last redraw */
    int percent;       /* last percentage drawn, -1: none */
} progress;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cli_progress_init(int quiet)
{
    progress.on = !quiet && isatty(STDERR_FILENO);
    progress.shown = 0;
}

static void draw(void)
{
    if (progress.percent >= 0)
        fprintf(stderr, "\r\033[Ketprof: %s... %d%%", progress.label, progress.percent);
    else
        fprintf(stderr, "\r\033[Ketprof: %s...", progress.label);
    fflush(stderr);
    progress.shown = 1;
    progress.last = now_seconds();
}

void cli_progress_start(const char *label)
{
    if (!progress.on)
        return;
    progress.label = label;
    progress.percent = -1;
    draw();
}

void cli_progress_update(double fraction)
{
    if (!progress.on || !progress.label)
        return;
    int percent = fraction <= 0 ? 0 : fraction >= 1 ? 100 : (int)(fraction * 100);
    if (percent == progress.percent || now_seconds() - progress.last < 1.0 / REDRAWS_PER_SECOND)
        return;
    progress.percent = percent;
    draw();
}

void cli_progress_done(void)
{
    if (!progress.shown)
        return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    progress.shown = 0;
    progress.label = NULL;
}
