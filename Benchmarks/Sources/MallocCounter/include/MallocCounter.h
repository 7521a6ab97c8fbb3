#ifndef LEASH_BENCHMARKS_MALLOC_COUNTER_H
#define LEASH_BENCHMARKS_MALLOC_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

/// Whether this process's `malloc` family is the counting one below (glibc only): false
/// where symbol interposition is not available, so callers report "not measured".
bool malloc_counter_is_available(void);

/// Starts counting, from zero. Counting covers every thread of the process.
void malloc_counter_start(void);

/// Stops counting; the totals stay readable.
void malloc_counter_stop(void);

/// Calls to malloc, calloc, realloc, memalign, posix_memalign and aligned_alloc while
/// counting was on.
uint64_t malloc_counter_calls(void);

/// Bytes those calls asked for.
uint64_t malloc_counter_bytes(void);

/// Returns the heap's free pages to the system (glibc's `malloc_trim(0)`; nothing
/// elsewhere), so that the resident set holds only memory in use.
void malloc_counter_trim(void);

#endif
