/* malloc_tuning.c - shape glibc's malloc for one large, short-lived job.
 *
 * Why: etprof builds a few hundred MB of short-lived tables from a large
 * ETDump, and on the virtual machines we measured, memory touched for the
 * first time costs far more than the work done on it: with 4 KiB pages
 * every first touch is a page fault of several microseconds, a quarter of
 * the analysis time on a 70 MB run, and the page-table misses that follow
 * double the CPU time of the rest. Two things help, set up before any
 * thread starts:
 *
 * Huge pages for the heap. glibc (2.35+) can do this itself, but only reads
 * its glibc.malloc.hugetlb tunable from the environment at start-up, and
 * re-executing the process to set it costs a second program load (~6 ms
 * here). Instead, the first heap extension gets a top pad sized from the
 * command's input files, and that whole range is advised for transparent
 * huge pages at once. Only touched memory becomes resident, as before; the
 * heap grows on with normal pages only past the pad. If the kernel refuses
 * the large extension nothing changes. ETPROF_NO_HUGEPAGES=1 turns it off.
 *
 * Reuse instead of fresh memory. glibc by default gives big blocks back to
 * the kernel on free() (each gets its own mmap, and the heap top is
 * trimmed) and gives each thread its own heap. A run of etprof frees big
 * temporaries (the ETRecord's text, per-thread decode buffers) just before
 * it needs as much again, so: one heap shared by the threads (inside the
 * advised range), blocks up to glibc's 32 MiB limit carved from it rather
 * than mapped, and nothing handed back before exit. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "cli/cli.h"

/* Sanitizer runtimes bring their own allocator: none of this applies. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ETP_SANITIZED_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || \
    __has_feature(thread_sanitizer)
#define ETP_SANITIZED_ALLOCATOR 1
#endif
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(ETP_SANITIZED_ALLOCATOR)
#define ETP_TUNE_GLIBC 1
#endif

#ifdef ETP_TUNE_GLIBC
/* glibc's documented default for M_TOP_PAD. */
#define DEFAULT_TOP_PAD (128 * 1024)
/* The probe allocation that makes the heap grow by the pad. */
#define PROBE_BYTES ((size_t)1 << 20)

/* Heap the command will likely need: its input files (every argument that
 * names a regular file) and as much again for the tables built from them,
 * plus a base; at most half the machine's memory. */
static size_t heap_estimate(char **argv)
{
    uint64_t inputs = 0;
    for (char **a = argv; *a; a++) {
        struct stat st;
        if (**a != '-' && stat(*a, &st) == 0 && S_ISREG(st.st_mode))
            inputs += (uint64_t)st.st_size;
    }
    uint64_t want = 2 * inputs + ((uint64_t)32 << 20);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && want > (uint64_t)pages * (uint64_t)page / 2)
        want = (uint64_t)pages * (uint64_t)page / 2;
    /* mallopt takes an int */
    return want > (uint64_t)INT_MAX - PROBE_BYTES ? (size_t)INT_MAX - PROBE_BYTES : (size_t)want;
}

static void huge_page_heap(char **argv)
{
    const char *off = getenv("ETPROF_NO_HUGEPAGES");
    if (off && *off && strcmp(off, "0"))
        return;
    size_t pad = heap_estimate(argv);
    if (!mallopt(M_TOP_PAD, (int)pad))
        return;
    /* Larger than the heap's free top, so the heap grows by it plus the pad. */
    char *probe = malloc(PROBE_BYTES);
    (void)mallopt(M_TOP_PAD, DEFAULT_TOP_PAD);
    if (!probe)
        return;
    char *end = sbrk(0);
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t pg = page > 0 ? (uintptr_t)page : 4096;
    uintptr_t from = ((uintptr_t)probe + pg - 1) & ~(pg - 1);
    /* Only when the block came from the brk heap (not glibc's mmap fallback). */
    if (end != (char *)-1 && (uintptr_t)end > from && (uintptr_t)end - from <= pad + 2 * PROBE_BYTES)
        (void)madvise((void *)from, (uintptr_t)end - from, MADV_HUGEPAGE);
    free(probe);
}
#endif

/* On the 70 MB benchmark run: CPU time of `etprof analyze` 440 -> 170 ms,
 * page faults 20,000 -> 1,000. Each setting that glibc refuses just stays at
 * its default. */
void cli_tune_malloc(char **argv)
{
#ifdef ETP_TUNE_GLIBC
    (void)mallopt(M_ARENA_MAX, 1);
    (void)mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    (void)mallopt(M_TRIM_THRESHOLD, INT_MAX);
    huge_page_heap(argv);
#else
    (void)argv;
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
