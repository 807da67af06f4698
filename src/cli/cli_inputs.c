/* cli_inputs.c - one convention for a command's input files: given
 * positionally in any order, each is sorted by its bytes (etprof/detect.h);
 * given with --etdump/--pte/--etrecord/--log, it must be of that kind. A file
 * of the wrong kind is named for what it is ("run.pte is a program (.pte),
 * not an ETDump"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "etprof/detect.h"

static const char *const role_names[CLI_IN_COUNT] = {"an ETDump", "a program (.pte/.bpte)",
                                                     "an ETRecord", "a runner log"};
/* What a file of each role was found to be, by its bytes. */
static const char *const found_names[CLI_IN_COUNT] = {"an ETDump", "a program (.pte/.bpte)",
                                                      "a zip archive (an ETRecord?)", "a text file"};
static const char *const role_plural[CLI_IN_COUNT] = {"ETDumps", "programs", "ETRecords",
                                                      "runner logs"};
static const char *const role_options[CLI_IN_COUNT] = {"--etdump", "--pte", "--etrecord", "--log"};

/* The kind of @p path from its first bytes: a cli_input_role, or -1 for a
 * binary file of no known kind; -2 when it cannot be read (after printing). */
static int sniff(const char *path, char *what, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        cli_error("%s: cannot open: %s", path, strerror(errno));
        return -2;
    }
    unsigned char head[512];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    etp_file_kind k = etp_detect_kind(head, n);
    snprintf(what, cap, "%s", etp_file_kind_name(k));
    switch (k) {
    case ETP_KIND_ETDUMP: return CLI_IN_ETDUMP;
    case ETP_KIND_PTE:
    case ETP_KIND_BPTE: return CLI_IN_PTE;
    case ETP_KIND_ZIP: return CLI_IN_ETRECORD;
    default: break;
    }
    /* Text (no NUL and hardly a control byte in the first bytes) is a log
     * candidate; the log reader decides whether it is one. Tensor bytes
     * (a debug buffer) are not text even without a zero byte. */
    size_t control = 0;
    for (size_t i = 0; i < n; i++)
        control += head[i] < 0x20 && head[i] != '\n' && head[i] != '\r' && head[i] != '\t' && head[i] != 0x1b;
    if (!memchr(head, '\0', n) && control * 20 <= n) {
        snprintf(what, cap, "a text file");
        return CLI_IN_LOG;
    }
    snprintf(what, cap, "not an ExecuTorch file (no known identifier)");
    return -1;
}

int cli_inputs_add(const char *cmd, cli_inputs *in, const char *path, unsigned accept)
{
    if (!strcmp(path, "-"))
        return cli_usage(cmd, "'-' is only read as --log -");
    char what[96];
    int role = sniff(path, what, sizeof what);
    if (role == -2)
        return ETP_EXIT_INPUT;
    if (role < 0 || !(accept & (1u << role))) {
        char list[160] = "";
        size_t len = 0;
        for (int r = 0; r < CLI_IN_COUNT; r++)
            if (accept & (1u << r))
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", role_names[r]);
        /* Raw bytes: a runner's debug buffer (tensor data, no identifier) is
         * the usual one, and it only goes with its option. */
        if (role < 0 && !strcmp(cmd, "analyze"))
            return cli_error("%s: %s; analyze takes %s in any order, and raw bytes such as the runner's debug "
                             "buffer (--debug_output_path) with --debug-buffer FILE",
                             path, what, list);
        if (role < 0)
            return cli_error("%s: %s; %s takes %s", path, what, cmd, list);
        return cli_error("%s is %s, which %s does not take (it takes %s)", path, found_names[role], cmd,
                         list);
    }
    if (in->path[role])
        return cli_usage(cmd, "two %s given: %s and %s", role_plural[role], in->path[role], path);
    in->path[role] = path;
    return ETP_EXIT_OK;
}

int cli_inputs_set(const char *cmd, cli_inputs *in, cli_input_role role, const char *path)
{
    if (in->path[role] && strcmp(in->path[role], path))
        return cli_usage(cmd, "two %s given: %s and %s", role_plural[role], in->path[role], path);
    in->path[role] = path;
    in->explicit_mask |= 1u << role;
    return ETP_EXIT_OK;
}

int cli_inputs_check(const cli_inputs *in)
{
    for (int r = 0; r < CLI_IN_COUNT; r++) {
        if (!in->path[r] || !(in->explicit_mask & (1u << r)))
            continue;
        if (r == CLI_IN_LOG && !strcmp(in->path[r], "-"))
            continue;
        char what[96];
        int got = sniff(in->path[r], what, sizeof what);
        if (got == -2)
            return ETP_EXIT_INPUT;
        if (got == r)
            continue;
        if (got < 0)
            return cli_error("%s: %s, not %s (%s)", in->path[r], what, role_names[r], role_options[r]);
        return cli_error("%s is %s, not %s (%s)", in->path[r], found_names[got], role_names[r],
                         role_options[r]);
    }
    return ETP_EXIT_OK;
}

int cli_inputs_require(const char *cmd, const cli_inputs *in, cli_input_role role, const char *usage)
{
    if (in->path[role])
        return ETP_EXIT_OK;
    /* Only files of other kinds: say what the first one is. */
    for (int r = 0; r < CLI_IN_COUNT; r++)
        if (in->path[r])
            return cli_error("%s is %s, not %s: %s needs %s", in->path[r], found_names[r],
                             role_names[role], cmd, role_names[role]);
    return cli_usage(cmd, "no %s given (%s)", role_names[role] + (role_names[role][1] == 'n' ? 3 : 2),
                     usage);
}

int cli_input_not_executorch(const char *path, const char *what_it_is, const char *option)
{
    char what[96];
    int got = sniff(path, what, sizeof what);
    if (got == -2)
        return ETP_EXIT_INPUT;
    /* Raw bytes have no identifier: anything but an ExecuTorch file may be one. */
    if (got == CLI_IN_ETDUMP || got == CLI_IN_PTE || got == CLI_IN_ETRECORD)
        return cli_error("%s is %s, not %s (%s)", path, found_names[got], what_it_is, option);
    return ETP_EXIT_OK;
}
