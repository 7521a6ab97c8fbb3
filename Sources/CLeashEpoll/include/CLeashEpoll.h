// Linux's epoll, for Leash's socket event loop, behind four plain functions: Swift's Glibc
// module does not export <sys/epoll.h>, and `struct epoll_event` is packed on x86-64, which
// is easier to fill in C. On other platforms the target compiles to nothing.

#ifndef CLEASHEPOLL_H
#define CLEASHEPOLL_H

#include <stdint.h>

#if defined(__linux__)

/// What `leash_epoll_wait` reports a descriptor ready for (bits of its `readiness`).
enum {
    LEASH_EPOLL_READABLE = 1,
    LEASH_EPOLL_WRITABLE = 2,
};

/// A new close-on-exec epoll instance, or -1 with `errno` set.
int leash_epoll_create(void);

/// Watches `fd` on `epoll`, edge-triggered, for input, room to write and the peer's
/// half-close (errors and hang-ups come unasked), reporting it as `id`; 0, or -1 with `errno`.
int leash_epoll_add(int epoll, int fd, uint64_t id);

/// Stops watching `fd`; 0, or -1 with `errno` (when it was not watched).
int leash_epoll_remove(int epoll, int fd);

/// Waits (without a time limit) for at most `capacity` reports and writes each one's id and
/// readiness; the number written, or -1 with `errno` (`EINTR` on a signal).
int leash_epoll_wait(int epoll, uint64_t *ids, uint8_t *readiness, int capacity);

#endif

#endif
