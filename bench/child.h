/* child.h - run a command as its own process and measure it (benchmarks).
 *
 * Each measured run is a fork + exec + wait4(), so its CPU time and peak
 * RSS are the child's own, not the benchmark's. Single-threaded use. */
#ifndef ETP_BENCH_CHILD_H
#define ETP_BENCH_CHILD_H

/* One run: wall seconds, CPU seconds (user + system), peak RSS in KiB. */
typedef struct bench_sample {
    double wall, cpu;
    long rss_kb;
} bench_sample;

/* Summary of n samples: best (minimum) and median wall and CPU, largest RSS. */
typedef struct bench_summary {
    double wall_best, wall_median, cpu_best, cpu_median;
    long rss_kb;
} bench_summary;

/* Monotonic seconds. */
double bench_now(void);

/* Run argv[0] (a path) with stdout to /dev/null (and stderr too when
 * @p quiet_stderr); fill @p s when not NULL. Returns 0 when the child
 * exited with 0 or with @p also_ok (-1: none), else -1. */
int bench_run(char *const argv[], bench_sample *s, int quiet_stderr, int also_ok);

/* Summarise @p n (1..64) samples. */
bench_summary bench_summarise(const bench_sample *s, int n);

/* One line: "LABEL wall best .. median .. | cpu best .. median .. | peak RSS .. MB",
 * the label padded to @p width. */
void bench_print(const char *label, int width, const bench_summary *m);

#endif
