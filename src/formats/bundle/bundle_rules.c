/* bundle_rules.c - bundle path and name rules and symlink-proof directory walking. */
#include "formats/bundle/bundle_rules.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *etp_bundle_path_problem(const char *rel, size_t len)
{
    if (!rel || len == 0)
        return "empty path";
    if (len > ETP_BUNDLE_PATH_MAX)
        return "path longer than 1024 bytes";
    if (rel[0] == '/')
        return "absolute path (must be relative to the bundle directory)";
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        unsigned char c = i < len ? (unsigned char)rel[i] : '/';
        if (c == '\\')
            return "backslash in path (only '/' separates components)";
        if (c == 0)
            return "NUL byte in path";
        if (c < 0x20 || c == 0x7f)
            return "control character in path";
        if (c != '/')
            continue;
        size_t n = i - start;
        if (n == 0)
            return "empty path component";
        if (n == 1 && rel[start] == '.')
            return "'.' path component";
        if (n == 2 && rel[start] == '.' && rel[start + 1] == '.')
            return "'..' path component (escapes the bundle directory)";
        if (n > ETP_BUNDLE_NAME_MAX)
            return "path component longer than 255 bytes";
        start = i + 1;
    }
    return NULL;
}

etp_walk_result etp_bundle_walk_parent(int rootfd, const char *rel, int create, int *parent_fd,
                                       const char **leaf, char *bad, size_t bad_size)
{
    char name[ETP_BUNDLE_NAME_MAX + 1];
    int fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(bad, bad_size, ".");
        return ETP_WALK_ERRNO;
    }
    const char *p = rel;
    const char *slash;
    while ((slash = strchr(p, '/')) != NULL) {
        size_t n = (size_t)(slash - p);
        if (n > ETP_BUNDLE_NAME_MAX) {
            close(fd);
            errno = ENAMETOOLONG;
            snprintf(bad, bad_size, "%.*s", (int)(slash - rel), rel);
            return ETP_WALK_ERRNO;
        }
        memcpy(name, p, n);
        name[n] = '\0';
        snprintf(bad, bad_size, "%.*s", (int)(slash - rel), rel);
        /* Classify first for a precise message; the O_NOFOLLOW open below
         * is what actually guarantees no symlink is crossed. */
        struct stat st;
        etp_walk_result why = ETP_WALK_OK;
        if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno != ENOENT)
                why = ETP_WALK_ERRNO;
            else if (!create)
                why = ETP_WALK_MISSING;
            else if (mkdirat(fd, name, 0777) != 0 && errno != EEXIST)
                why = ETP_WALK_ERRNO;
        } else if (S_ISLNK(st.st_mode)) {
            why = ETP_WALK_SYMLINK;
        } else if (!S_ISDIR(st.st_mode)) {
            why = ETP_WALK_NOTDIR;
        }
        if (why != ETP_WALK_OK) {
            int saved = errno;
            close(fd);
            errno = saved;
            return why;
        }
        int next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int saved = errno;
        close(fd);
        if (next < 0) {
            errno = saved;
            return saved == ELOOP ? ETP_WALK_SYMLINK : saved == ENOTDIR ? ETP_WALK_NOTDIR
                                                                         : ETP_WALK_ERRNO;
        }
        fd = next;
        p = slash + 1;
    }
    *parent_fd = fd;
    *leaf = p;
    return ETP_WALK_OK;
}

/* Lowercase names for roles and types: [a-z0-9_.-], 1..64 bytes. */
int etp_bundle_is_token(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > 64)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
              c == '-'))
            return 0;
    }
    return 1;
}

int etp_bundle_is_uuid(const char *s)
{
    if (strlen(s) != 36)
        return 0;
    for (int i = 0; i < 36; i++) {
        char c = s[i];
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (c != '-')
                return 0;
        } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return 0;
        }
    }
    return 1;
}

/* "YYYY-MM-DDTHH:MM:SS[.frac]Z" with plausible field ranges. */
int etp_bundle_is_utc_timestamp(const char *s)
{
    size_t n = strlen(s);
    if (n < 20 || n >= 40)
        return 0;
    static const char shape[] = "dddd-dd-ddTdd:dd:dd";
    for (size_t i = 0; i < 19; i++) {
        if (shape[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != shape[i])
            return 0;
    }
    int mo = (s[5] - '0') * 10 + (s[6] - '0'), d = (s[8] - '0') * 10 + (s[9] - '0');
    int h = (s[11] - '0') * 10 + (s[12] - '0'), mi = (s[14] - '0') * 10 + (s[15] - '0');
    int se = (s[17] - '0') * 10 + (s[18] - '0');
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return 0;
    size_t i = 19;
    if (s[i] == '.') {
        i++;
        if (!(s[i] >= '0' && s[i] <= '9'))
            return 0;
        while (s[i] >= '0' && s[i] <= '9')
            i++;
    }
    return s[i] == 'Z' && s[i + 1] == '\0';
}

int etp_bundle_is_sha256(const char *s)
{
    for (int i = 0; i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return s[64] == '\0';
}

/* An issue is {code, severity, message[, context]}, extra members allowed. */
const char *etp_bundle_issue_problem(const json_t *issue)
{
    if (!json_is_object(issue))
        return "is not an object";
    const json_t *code = json_object_get(issue, "code");
    const json_t *sev = json_object_get(issue, "severity");
    const json_t *msg = json_object_get(issue, "message");
    const json_t *ctx = json_object_get(issue, "context");
    if (!json_is_string(code) || json_string_length(code) == 0)
        return "needs a non-empty string \"code\"";
    if (!json_is_string(sev) || json_string_length(sev) == 0)
        return "needs a non-empty string \"severity\"";
    if (!json_is_string(msg))
        return "needs a string \"message\"";
    if (ctx && !json_is_object(ctx))
        return "has a \"context\" that is not an object";
    return NULL;
}

int etp_write_all(int fd, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}
