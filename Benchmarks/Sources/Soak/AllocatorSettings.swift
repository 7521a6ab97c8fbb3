import HeapInfo

/// glibc's allocator set so that resident memory follows the memory in use. With its
/// defaults, glibc raises its mmap threshold each time a large buffer is freed (up to
/// 32 MB), and later large buffers (bodies, files read back to be checked) come from
/// per-thread arenas that keep their pages: resident memory creeps up for minutes without a
/// leak (the soak's transfers grew 20 MB in 2.5 minutes that way, and 0.7 MB with these
/// settings). A fixed 128 KB threshold and two arenas keep the resident figure close to
/// the heap in use, which the soak judges (`HeapSample`).
enum AllocatorSettings {
    /// What was set, for the report; nil where there is no glibc.
    static func apply() -> String? {
        heap_info_set_mmap_threshold_and_arenas(128 * 1024, 2)
            ? "glibc malloc: mmap threshold 128 KB, 2 arenas" : nil
    }
}
