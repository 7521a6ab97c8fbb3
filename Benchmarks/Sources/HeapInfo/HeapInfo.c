// What glibc's allocator says about the heap, for the soak. Kept apart from MallocCounter,
// which replaces the malloc family: an executable that links this one keeps glibc's malloc,
// so heaptrack and other LD_PRELOAD tools still see its allocations.

#include "HeapInfo.h"

#if defined(__linux__) && defined(__GLIBC__)

#include <malloc.h>

uint64_t heap_info_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (uint64_t)(info.uordblks + info.hblkhd);
}

bool heap_info_set_mmap_threshold_and_arenas(int threshold, int arenas) {
    return mallopt(M_MMAP_THRESHOLD, threshold) == 1 && mallopt(M_ARENA_MAX, arenas) == 1;
}

#else

uint64_t heap_info_in_use(void) { return 0; }
bool heap_info_set_mmap_threshold_and_arenas(int threshold, int arenas) { return false; }

#endif
