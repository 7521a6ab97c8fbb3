import BenchmarkSupport
import Foundation
import MallocCounter

/// This process's resident memory, from Linux's `/proc/self/status`, as net-benchmarks'
/// `PeakMemory` reads it: `VmRSS` (resident now) and `VmHWM` (the peak since the last
/// `resetPeak()`, which writes `5` to `/proc/self/clear_refs`). Readings are taken after
/// `trim()` (glibc's `malloc_trim`), so that pages malloc keeps free do not hide or fake a
/// rise. `nil` where there is no `/proc` (macOS): the tables then say "not measured".
enum ProcessMemory {
    /// Resident bytes now, after trimming the heap.
    static func resident() -> Int? {
        malloc_counter_trim()
        return statusValue("VmRSS")
    }

    /// The peak resident bytes since the last `resetPeak()` (or since the process started).
    static func peak() -> Int? {
        statusValue("VmHWM")
    }

    /// Trims the heap and sets the peak back to the current RSS; whether it could.
    @discardableResult
    static func resetPeak() -> Bool {
        malloc_counter_trim()
        return ProcStatus.resetPeak()
    }

    private static func statusValue(_ field: String) -> Int? { ProcStatus.value(field) }
}
