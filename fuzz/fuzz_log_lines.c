/* fuzz_log_lines.c - libFuzzer target: one per-format line reader at a time
 * (GNU time -v, Arm runner, RTT, VGF, etprof-run), chosen by the first byte,
 * fed every line of the rest, so each parser is fuzzed on its own. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/logs/device_log_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int (*const readers[])(etp_device_log *, const char *, uint32_t, etp_error *) = {
        etp_dl_gnu_time_line, etp_dl_arm_line, etp_dl_rtt_line, etp_dl_vgf_line, etp_dl_run_line};
    if (!size)
        return 0;
    int (*reader)(etp_device_log *, const char *, uint32_t, etp_error *) = readers[data[0] % 5];
    char *text = malloc(size);
    etp_device_log *l = calloc(1, sizeof *l);
    if (!text || !l) {
        free(text);
        free(l);
        return 0;
    }
    l->path = calloc(1, 1);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    etp_error err;
    uint32_t no = 0;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (reader(l, line, ++no, &err) < 0)
            break;
        line = nl ? nl + 1 : NULL;
    }
    etp_device_log_free(l);
    free(text);
    return 0;
}
