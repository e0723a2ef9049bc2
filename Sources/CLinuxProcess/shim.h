// prctl(2), which Swift cannot call (it is variadic), and setrlimit(2), whose resource type
// Glibc declares differently by feature macro: passkeyd keeps its memory out of core files.
#pragma once
#include <sys/prctl.h>
#include <sys/resource.h>

/// RLIMIT_CORE 0 (no core file) and PR_SET_DUMPABLE 0 (no core file either, and ptrace and
/// /proc/PID/mem refused to the same uid without CAP_SYS_PTRACE). 0 on success, else 1 when
/// setrlimit failed and 2 when prctl did, with errno set.
static inline int passkeyd_disable_core_dumps(void) {
    struct rlimit none = { 0, 0 };
    if (setrlimit(RLIMIT_CORE, &none) != 0) return 1;
    if (prctl(PR_SET_DUMPABLE, 0UL, 0UL, 0UL, 0UL) != 0) return 2;
    return 0;
}
