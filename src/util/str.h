/* str.h - heap strings (copy, printf) and the "a, b, c" name lists of
 * messages. Every function is thread-safe (no shared state); a returned
 * string is the caller's, released with free(). */
#ifndef ETP_STR_H
#define ETP_STR_H

#include <stddef.h>
#include <stdint.h>

/* Copy of @p s; NULL when @p s is NULL or on allocation failure. */
char *etp_strdup(const char *s);

/* Copy of the @p n bytes at @p s (all readable; no terminator needed), with
 * a terminator added; NULL on allocation failure. */
char *etp_strndup(const char *s, size_t n);

/* printf into a new string; NULL on allocation failure or a format error. */
char *etp_strprintf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Name of item @p i of @p items, or NULL when it has none (written "?"). */
typedef const char *etp_name_at_fn(const void *items, size_t i);

/* The names of items [0, @p n) of @p items, as @p name_at reads them, joined
 * by ", " into @p buf ("a, b, c"; "" when n is 0). A list longer than
 * @p cap - 1 bytes is cut there, as snprintf cuts (messages quote these lists
 * from fixed buffers); @p buf is always terminated (cap > 0). Returns @p buf. */
char *etp_join_names(char *buf, size_t cap, const void *items, size_t n, etp_name_at_fn *name_at);

/* etp_name_at_fn of an array of strings (const char *const *). */
const char *etp_string_at(const void *strings, size_t i);

/* Append a copy of the @p len bytes at @p s to the owned list *@p v of *@p n
 * strings (it grows by one: for the short lists of names and cells).
 * 0, or -1 on allocation failure (the list is unchanged but may have moved). */
int etp_strs_push(char ***v, uint32_t *n, const char *s, size_t len);

#endif
