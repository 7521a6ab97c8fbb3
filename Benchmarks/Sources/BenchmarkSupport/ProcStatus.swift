import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// This process's memory as Linux's `/proc/self` tells it; `nil` or `false` where there is
/// no `/proc` (macOS).
public enum ProcStatus {
    /// A `kB` line of `/proc/self/status` (`VmRSS`, `VmHWM`), in bytes.
    public static func value(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            let number = line.dropFirst(field.count + 1).split(whereSeparator: \.isWhitespace).first
            return number.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }

    /// Sets the peak (`VmHWM`) back to the current RSS, by writing `5` to
    /// `/proc/self/clear_refs`; whether it could.
    public static func resetPeak() -> Bool {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return write(descriptor, "5", 1) == 1
    }
}
