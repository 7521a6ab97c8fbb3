// Counts heap allocations by replacing the malloc family with thin wrappers around glibc's
// own allocator, which glibc documents as supported ("Replacing malloc" in its manual):
// symbols defined in the executable interpose on libc's for every shared library, so
// libswiftCore, Foundation, Dispatch and libcurl all allocate through these. The wrappers
// forward to `__libc_malloc` & co. (exported by glibc for exactly this), so the allocator,
// its speed and its chunks are unchanged; `free` and `malloc_usable_size` need no wrapper.
// When counting is off, the only cost is one relaxed load of a flag that is never written
// during the timed runs. `malloc_counter_is_available` checks that interposition really
// happened (an allocation inside libswiftCore must be counted) before any number is shown.

#include "MallocCounter.h"

// Sanitizers bring their own malloc; replacing it would blind them, so under a sanitizer
// the counter reports itself unavailable.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define MALLOC_COUNTER_DISABLED 1
#endif
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(MALLOC_COUNTER_DISABLED)

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static atomic_bool counting = false;
static atomic_uint_fast64_t calls = 0;
static atomic_uint_fast64_t bytes = 0;

static inline void count(size_t size) {
    if (atomic_load_explicit(&counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&bytes, size, memory_order_relaxed);
    }
}

__attribute__((visibility("default"), used)) void *malloc(size_t size) {
    count(size);
    return __libc_malloc(size);
}

__attribute__((visibility("default"), used)) void *calloc(size_t count_, size_t size) {
    count(count_ * size);
    return __libc_calloc(count_, size);
}

__attribute__((visibility("default"), used)) void *realloc(void *pointer, size_t size) {
    count(size);
    return __libc_realloc(pointer, size);
}

__attribute__((visibility("default"), used)) void *memalign(size_t alignment, size_t size) {
    count(size);
    return __libc_memalign(alignment, size);
}

__attribute__((visibility("default"), used)) void *aligned_alloc(size_t alignment, size_t size) {
    count(size);
    return __libc_memalign(alignment, size);
}

__attribute__((visibility("default"), used)) int posix_memalign(void **result, size_t alignment, size_t size) {
    // POSIX: the alignment must be a power of two and a multiple of sizeof(void *).
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    count(size);
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

// An object whose allocation happens inside libswiftCore (through its own PLT), never in
// this executable: if it is counted, interposition works for the shared libraries too.
extern void *swift_slowAlloc(size_t size, size_t alignMask);
extern void swift_slowDealloc(void *pointer, size_t size, size_t alignMask);

bool malloc_counter_is_available(void) {
    malloc_counter_start();
    for (int i = 0; i < 100; i++) {
        void *pointer = swift_slowAlloc(48, 7);
        swift_slowDealloc(pointer, 48, 7);
    }
    malloc_counter_stop();
    return malloc_counter_calls() >= 100;
}

void malloc_counter_start(void) {
    atomic_store(&calls, 0);
    atomic_store(&bytes, 0);
    atomic_store(&counting, true);
}

void malloc_counter_stop(void) { atomic_store(&counting, false); }

uint64_t malloc_counter_calls(void) { return atomic_load(&calls); }

uint64_t malloc_counter_bytes(void) { return atomic_load(&bytes); }

#else

bool malloc_counter_is_available(void) { return false; }
void malloc_counter_start(void) {}
void malloc_counter_stop(void) {}
uint64_t malloc_counter_calls(void) { return 0; }
uint64_t malloc_counter_bytes(void) { return 0; }

#endif

// Outside the interposition: it needs glibc, not the wrappers (and works under sanitizers).
#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
void malloc_counter_trim(void) { malloc_trim(0); }
#else
void malloc_counter_trim(void) {}
#endif
