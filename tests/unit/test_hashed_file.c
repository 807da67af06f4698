/* test_hashed_file.c - util/hashed_file: the digest is that of the bytes on
 * disk, and a failing write is reported as one, however stdio buffers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "util/hashed_file.h"
#include "util/sha256.h"

static void digest_of_what_was_written(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char path[600];
    snprintf(path, sizeof path, "%s/out.bin", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    etp_hashed_file *hf;
    FILE *fp = etp_hashed_file_open(fd, &hf);
    assert_non_null(fp);
    /* 9 MiB in uneven pieces: crosses stdio's buffer and the writeback step */
    size_t total = 0;
    for (int i = 0; total < (9u << 20); i++) {
        char chunk[1237];
        for (size_t k = 0; k < sizeof chunk; k++)
            chunk[k] = (char)(i * 31 + k);
        assert_int_equal(fwrite(chunk, 1, sizeof chunk, fp), sizeof chunk);
        total += sizeof chunk;
    }
    uint64_t size = 0;
    char hex[ETP_SHA256_HEX];
    const char *what = "unset";
    assert_int_equal(etp_hashed_file_finish(hf, 1, &size, hex, &what), 0);
    assert_null(what);
    assert_int_equal(size, total);
    /* the file read back hashes the same */
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    char again[ETP_SHA256_HEX];
    uint64_t n = 0;
    assert_int_equal(etp_sha256_fd(fd, again, &n), 0);
    assert_int_equal(n, total);
    assert_string_equal(hex, again);
    close(fd);
    remove(path);
    tu_rmrf(dir);
    free(dir);
}

static void a_full_disk_is_a_write_error(void **state)
{
    (void)state;
    int fd = open("/dev/full", O_WRONLY);
    if (fd < 0)
        skip(); /* no /dev/full here */
    etp_hashed_file *hf;
    FILE *fp = etp_hashed_file_open(fd, &hf);
    assert_non_null(fp);
    for (int i = 0; i < 2000; i++)
        fputs("some text that fills stdio's buffer more than once\n", fp);
    uint64_t size = 99;
    char hex[ETP_SHA256_HEX];
    const char *what = NULL;
    assert_int_equal(etp_hashed_file_finish(hf, 0, &size, hex, &what), -1);
    assert_non_null(what);
    assert_string_equal(what, "write");
    assert_int_equal(errno, ENOSPC);
    assert_int_equal(size, 0);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(digest_of_what_was_written),
        cmocka_unit_test(a_full_disk_is_a_write_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
