// prctl(2), which Swift cannot call: it is variadic.
#pragma once
#include <sys/prctl.h>

/// PR_SET_DUMPABLE: 0 keeps the process out of core files and away from ptrace and
/// /proc/PID/mem of the same uid. 0 on success, else -1 with errno set.
static inline int passkeyd_set_dumpable(int dumpable) {
    return prctl(PR_SET_DUMPABLE, (unsigned long)dumpable, 0UL, 0UL, 0UL);
}

