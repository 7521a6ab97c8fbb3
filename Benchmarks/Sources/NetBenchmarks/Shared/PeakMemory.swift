import BenchmarkSupport
import Foundation
import MallocCounter

/// The rise of this process's peak resident set during one run, from Linux's
/// `/proc/self/status`: `reset()` returns the heap's unused pages to the system
/// (`malloc_trim`), sets the peak (`VmHWM`) back to the current RSS by writing `5` to
/// `/proc/self/clear_refs`, and returns that RSS; `peak()` reads the peak afterwards. Their
/// difference is the most memory the run had resident at once above what it started with,
/// whatever thread held it and however briefly.
///
/// Only where the peak can be reset (`isAvailable`); elsewhere both return `nil`.
enum PeakMemory {
    /// Whether the peak can be reset here (checked once, by resetting it).
    static let isAvailable: Bool = resetPeak() && statusValue("VmHWM") != nil

    /// Trims the heap and resets the peak; the RSS it starts from, in bytes.
    static func reset() -> Int? {
        guard isAvailable else { return nil }
        // Free pages kept by malloc would otherwise hide a run's rise, or count an earlier
        // run's memory against the next.
        malloc_counter_trim()
        guard resetPeak() else { return nil }
        return statusValue("VmRSS")
    }

    /// The peak RSS since the last `reset()`, in bytes.
    static func peak() -> Int? {
        guard isAvailable else { return nil }
        return statusValue("VmHWM")
    }

    private static func resetPeak() -> Bool { ProcStatus.resetPeak() }

    private static func statusValue(_ field: String) -> Int? { ProcStatus.value(field) }
}
