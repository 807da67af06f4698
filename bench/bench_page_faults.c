/* bench_page_faults.c - what memory touched for the first time costs on this
 * machine: the number that decides whether a PostgreSQL server answers a
 * series over 100,000 runs within 100 ms (docs/history.md, Speed).
 *
 *   bench_page_faults [MIB]   (default 25: what that series reads)
 *
 * A new server process (a new connection) maps shared buffers that are
 * already in memory; each page it touches for the first time is a page
 * fault in that process. So: a region of MIB MiB of shared memory is filled
 * by this process, then a forked child reads one byte per 4 KiB page (then
 * another child writes one), as a fresh backend would. The same with the
 * region in 2 MiB pages (MAP_HUGETLB) when the system has huge pages
 * reserved (vm.nr_hugepages; PostgreSQL's huge_pages), and for fresh
 * private memory (what a client's heap costs) with 4 KiB pages and with
 * transparent huge pages. Prints one JSON line per case: ms and us/4 KiB. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void report(const char *what, double ms, size_t bytes)
{
    printf("{\"case\": \"%s\", \"mib\": %zu, \"ms\": %.1f, \"us_per_4k\": %.2f}\n", what, bytes >> 20, ms,
           ms * 1e3 / (double)(bytes / 4096));
    fflush(stdout);
}

/* A child touches every 4 KiB of @p p (read, or write when @p write) and
 * reports; the best of three children. */
static void touch_in_child(const char *what, volatile char *p, size_t n, int do_write)
{
    double best = -1;
    for (int r = 0; r < 3; r++) {
        int fd[2];
        if (pipe(fd))
            return;
        pid_t c = fork();
        if (c == 0) {
            double t = now_ms();
            unsigned sum = 0;
            for (size_t i = 0; i < n; i += 4096) {
                if (do_write)
                    p[i] = (char)i;
                else
                    sum += (unsigned char)p[i];
            }
            double ms = now_ms() - t + (sum == 0xFFFFFFFFu); /* keep the reads */
            ssize_t w = write(fd[1], &ms, sizeof ms);
            _exit(w == (ssize_t)sizeof ms ? 0 : 1);
        }
        double ms = -1;
        if (c > 0 && read(fd[0], &ms, sizeof ms) == (ssize_t)sizeof ms && (best < 0 || ms < best))
            best = ms;
        if (c > 0)
            waitpid(c, NULL, 0);
        close(fd[0]);
        close(fd[1]);
    }
    if (best >= 0)
        report(what, best, n);
}

static void shared_case(const char *read_name, const char *write_name, size_t n, int huge)
{
    int flags = MAP_SHARED | MAP_ANONYMOUS | (huge ? MAP_HUGETLB : 0);
    volatile char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (p == MAP_FAILED) {
        printf("{\"case\": \"%s\", \"skipped\": \"no huge pages reserved (vm.nr_hugepages)\"}\n", read_name);
        return;
    }
    for (size_t i = 0; i < n; i += 4096)
        p[i] = 1; /* in memory, as the server's buffers are */
    touch_in_child(read_name, p, n, 0);
    touch_in_child(write_name, p, n, 1);
    munmap((void *)p, n);
}

static void private_case(const char *what, size_t n, int thp)
{
    double best = -1;
    for (int r = 0; r < 3; r++) {
        char *p = mmap(NULL, n + (2u << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return;
        char *a = (char *)(((uintptr_t)p + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
        (void)madvise(a, n, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
        double t = now_ms();
        for (size_t i = 0; i < n; i += 4096)
            ((volatile char *)a)[i] = 1;
        double ms = now_ms() - t;
        if (best < 0 || ms < best)
            best = ms;
        munmap(p, n + (2u << 20));
    }
    report(what, best, n);
}

int main(int argc, char **argv)
{
    long mib = argc > 1 ? atol(argv[1]) : 25;
    if (mib < 2 || mib > 4096) {
        fprintf(stderr, "usage: bench_page_faults [MIB]   (2..4096, default 25)\n");
        return 2;
    }
    size_t n = (size_t)mib << 20;
    n &= ~(size_t)((2u << 20) - 1);
    shared_case("shared_read_4k", "shared_write_4k", n, 0);
    shared_case("shared_read_2m", "shared_write_2m", n, 1);
    private_case("private_fresh_4k", n, 0);
    private_case("private_fresh_thp", n, 1);
    return 0;
}
