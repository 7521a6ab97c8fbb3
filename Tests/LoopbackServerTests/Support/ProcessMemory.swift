#if canImport(Glibc)
    import Glibc
#endif
import Foundation

/// This process's resident memory, from `/proc/self/status` (Linux only).
enum ProcessMemory {
    /// `VmRSS`, the resident set now, in KiB; nil where there is no `/proc`.
    static var residentKilobytes: Int? { field("VmRSS") }

    /// `VmHWM`, the peak resident set, in KiB; nil where there is no `/proc`.
    static var peakResidentKilobytes: Int? { field("VmHWM") }

    /// Resets `VmHWM` to the current resident set (writing 5 to `/proc/self/clear_refs`).
    /// - Returns: whether the kernel allowed it.
    static func resetPeak() -> Bool {
        #if canImport(Glibc)
            let fd = open("/proc/self/clear_refs", O_WRONLY)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            return write(fd, "5", 1) == 1
        #else
            return false
        #endif
    }

    private static func field(_ name: String) -> Int? {
        for line in statusText().split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }

    /// `/proc/self/status`, read with `read(2)`: its reported size is 0, so reading "the
    /// whole file" by its size gets nothing.
    private static func statusText() -> String {
        #if canImport(Glibc)
            let fd = open("/proc/self/status", O_RDONLY)
            guard fd >= 0 else { return "" }
            defer { close(fd) }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                bytes.append(contentsOf: chunk[..<count])
            }
            return String(decoding: bytes, as: UTF8.self)
        #else
            return ""
        #endif
    }
}
