import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// glibc's allocator set so that resident memory follows the memory in use. With its
/// defaults, glibc raises its mmap threshold each time a large buffer is freed (up to
/// 32 MB), and later large buffers (bodies, files read back to be checked) come from
/// per-thread arenas that keep their pages: resident memory creeps up for minutes without a
/// leak (the soak's transfers grew 20 MB in 2.5 minutes that way, and 0.7 MB with these
/// settings). A fixed 128 KB threshold and two arenas make a leak the only way to grow.
/// `mallopt` is looked up at run time: Swift's Glibc module does not import `malloc.h`.
enum AllocatorSettings {
    /// What was set, for the report; nil where there is no glibc.
    static func apply() -> String? {
        #if canImport(Glibc)
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return nil }
            typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
            let mallopt = unsafeBitCast(symbol, to: MallOpt.self)
            // M_MMAP_THRESHOLD (-3) and M_ARENA_MAX (-8), from glibc's malloc.h.
            let threshold = mallopt(-3, 128 * 1024)
            let arenas = mallopt(-8, 2)
            return threshold == 1 && arenas == 1 ? "glibc malloc: mmap threshold 128 KB, 2 arenas" : nil
        #else
            return nil
        #endif
    }
}
