// Linux's native AIO (io_setup(2), io_submit(2), io_getevents(2)), which Glibc wraps in no
// function: the record log submits its direct block write when an entry is logged, and the
// flush waits for it (docs/keystore.md, "The record log"). Swift cannot call the variadic
// syscall(2), hence these wrappers.
#pragma once
#include <errno.h>
#include <linux/aio_abi.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/// A context for `events` requests in flight; 0 when the kernel refuses one (errno set).
/// Never destroyed by passkeyd: io_destroy(2) waits for an RCU grace period (~30 ms here), so
/// contexts are kept for reuse (`SubmissionContext`).
static inline aio_context_t passkeyd_aio_setup(unsigned events) {
    aio_context_t context = 0;
    return syscall(SYS_io_setup, events, &context) == 0 ? context : 0;
}

/// Submits a write of `length` bytes from `buffer` to `descriptor` at `offset`, tagged `token`:
/// 0 once the kernel took it (the iocb is copied, the buffer must stay until the write
/// completes), else an errno.
static inline int passkeyd_aio_pwrite(aio_context_t context, int descriptor, const void *buffer,
                                      size_t length, long long offset, unsigned long long token) {
    struct iocb request;
    memset(&request, 0, sizeof request);
    request.aio_data = token;
    request.aio_fildes = (unsigned)descriptor;
    request.aio_lio_opcode = IOCB_CMD_PWRITE;
    request.aio_buf = (unsigned long)buffer;
    request.aio_nbytes = length;
    request.aio_offset = offset;
    struct iocb *requests[1] = { &request };
    long taken = syscall(SYS_io_submit, context, 1L, requests);
    return taken == 1 ? 0 : taken < 0 ? errno : EAGAIN;
}

/// Waits for the request tagged `token` to complete (any other completion found is passed
/// over): its result (bytes written, or -errno), or -errno when the wait itself failed.
static inline long long passkeyd_aio_wait(aio_context_t context, unsigned long long token) {
    struct io_event event;
    for (;;) {
        long got = syscall(SYS_io_getevents, context, 1L, 1L, &event, NULL);
        if (got == 1 && event.data == token) return event.res;
        if (got == 1 || (got < 0 && errno == EINTR)) continue;
        return got < 0 ? -errno : -EIO;
    }
}
