#ifndef LEASH_BENCHMARKS_HEAP_INFO_H
#define LEASH_BENCHMARKS_HEAP_INFO_H

#include <stdbool.h>
#include <stdint.h>

/// Bytes of the heap's chunks in use (glibc's `mallinfo2`, over every arena, plus the chunks
/// mmapped on their own), headers included: what the process's code holds, whatever the
/// allocator keeps cached besides. 0 where there is no glibc.
uint64_t heap_info_in_use(void);

/// Sets glibc's mmap threshold (fixed from then on) and its number of arenas (`mallopt`);
/// false where that failed or there is no glibc.
bool heap_info_set_mmap_threshold_and_arenas(int threshold, int arenas);

#endif
