/* malloc_tuning.c - shape glibc's malloc for one large, short-lived job.
 *
 * Huge pages. Why: etprof builds a few hundred MB of short-lived tables
 * from a large ETDump. With 4 KiB pages every first touch is a page fault,
 * and on virtual machines a fault costs microseconds: on a 70 MB run they
 * were a quarter of the analysis time. glibc (2.35+) can madvise its heap
 * for transparent huge pages, but only reads that setting (the
 * glibc.malloc.hugetlb tunable) from the environment at start-up. So when
 * the kernel hands out huge pages on request only ("[madvise]" mode), the
 * data-heavy commands re-execute themselves once with the tunable added.
 * Nothing else changes: same binary, arguments, pid and environment plus
 * one variable. Set ETPROF_NO_HUGEPAGES=1 to turn it off; any failure just
 * continues with normal pages. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "cli/cli.h"

#define TUNABLE "glibc.malloc.hugetlb=1"

/* Sanitizer runtimes bring their own allocator: the tunable would do nothing. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ETP_SANITIZED_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || \
    __has_feature(thread_sanitizer)
#define ETP_SANITIZED_ALLOCATOR 1
#endif
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(ETP_SANITIZED_ALLOCATOR) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#define ETP_TRY_HUGE_PAGES 1
#endif

#ifdef ETP_TRY_HUGE_PAGES
static int thp_on_request(void)
{
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f)
        return 0;
    char line[128] = "";
    int ok = fgets(line, sizeof line, f) != NULL && strstr(line, "[madvise]") != NULL;
    fclose(f);
    return ok;
}
#endif

void cli_prefer_huge_pages(char **argv)
{
#ifdef ETP_TRY_HUGE_PAGES
    const char *off = getenv("ETPROF_NO_HUGEPAGES");
    if (off && *off && strcmp(off, "0"))
        return;
    const char *old = getenv("GLIBC_TUNABLES");
    if ((old && strstr(old, "glibc.malloc.hugetlb")) || !thp_on_request())
        return;
    size_t n = (old ? strlen(old) + 1 : 0) + sizeof TUNABLE;
    char *value = malloc(n);
    if (!value)
        return;
    snprintf(value, n, "%s%s%s", old ? old : "", old && *old ? ":" : "", TUNABLE);
    char *saved = old ? strdup(old) : NULL;
    if (setenv("GLIBC_TUNABLES", value, 1) == 0) {
        execv("/proc/self/exe", argv);
        /* Still here: restore the environment and go on with small pages. */
        if (saved)
            setenv("GLIBC_TUNABLES", saved, 1);
        else
            unsetenv("GLIBC_TUNABLES");
    }
    free(saved);
    free(value);
#else
    (void)argv;
#endif
}

/* Reuse instead of fresh memory. Why: on the virtual machines we measured,
 * a page touched for the first time costs far more than the work done on
 * it, and glibc by default gives big blocks back to the kernel on free()
 * (each gets its own mmap, and the heap top is trimmed) and gives each
 * thread its own heap. A run of etprof frees big temporaries (the ETRecord's
 * text, per-thread decode buffers) just before it needs as much again, so:
 * one heap shared by the threads, which, under the huge-page tunable, is
 * backed by huge pages; blocks up to glibc's 32 MiB limit carved from it
 * rather than mapped; and nothing handed back before exit. On the 70 MB
 * benchmark run: CPU time of `etprof analyze` 243 -> 183 ms, page faults
 * 5,300 -> 600. Call before any thread starts. Each setting that glibc
 * refuses just stays at its default. */
void cli_tune_malloc(void)
{
#if defined(__GLIBC__) && !defined(ETP_SANITIZED_ALLOCATOR)
    (void)mallopt(M_ARENA_MAX, 1);
    (void)mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    (void)mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

/* Freeing walks every block: on the 70 MB run, millions of them, about
 * 8 ms, just before the kernel takes the whole address space back anyway.
 * So the commands that build big structures skip it, the way compilers do.
 * Sanitizer builds, which check for leaks, free everything, as does
 * ETPROF_FREE_AT_EXIT=1; the library's free functions stay exercised by
 * the test suite either way. */
int cli_free_before_exit(void)
{
#ifdef ETP_SANITIZED_ALLOCATOR
    return 1;
#else
    const char *v = getenv("ETPROF_FREE_AT_EXIT");
    return v && *v && strcmp(v, "0");
#endif
}
