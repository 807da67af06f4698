/* exit_status.c - the command's exit statuses and their meaning (etprof/exit_status.h). */
#include "etprof/exit_status.h"

static const char *const meanings[] = {
    [ETP_EXIT_OK] = "success",
    [ETP_EXIT_INPUT] = "bad or inconsistent input",
    [ETP_EXIT_USAGE] = "usage error",
    [ETP_EXIT_GATE] = "a CI gate failed",
};

const char *etp_exit_status_meaning(int status)
{
    return status >= 0 && status < (int)(sizeof meanings / sizeof meanings[0]) ? meanings[status] : NULL;
}

etp_exit_status etp_exit_status_of(etp_status s)
{
    return s == ETP_OK ? ETP_EXIT_OK : s == ETP_E_USAGE ? ETP_EXIT_USAGE : ETP_EXIT_INPUT;
}
