#include "CLeashEpoll.h"

#if defined(__linux__)

#include <sys/epoll.h>

int leash_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int leash_epoll_add(int epoll, int fd, uint64_t id) {
    struct epoll_event event;
    event.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
    event.data.u64 = id;
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}

int leash_epoll_remove(int epoll, int fd) {
    // Linux before 2.6.9 wanted a non-null event even for a removal.
    struct epoll_event unused = {0};
    return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, &unused);
}

int leash_epoll_wait(int epoll, uint64_t *ids, uint8_t *readiness, int capacity) {
    enum { batch = 64 };
    struct epoll_event events[batch];
    int count = epoll_wait(epoll, events, capacity < batch ? capacity : batch, -1);
    for (int index = 0; index < count; index++) {
        uint32_t flags = events[index].events;
        uint8_t ready = 0;
        // A hang-up or an error answers a read and a write alike: each then fails or ends.
        if (flags & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) ready |= LEASH_EPOLL_READABLE;
        if (flags & (EPOLLOUT | EPOLLHUP | EPOLLERR)) ready |= LEASH_EPOLL_WRITABLE;
        ids[index] = events[index].data.u64;
        readiness[index] = ready;
    }
    return count;
}

#endif
