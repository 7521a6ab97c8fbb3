/// The memory of the process, sampled each second by the soak.
struct MemorySample {
    /// Resident memory (`VmRSS`).
    var resident: Int
    /// The heap's chunks in use (`HeapInfo`): what the code holds, without what the
    /// allocator keeps cached.
    var heapInUse: Int
    /// URLSession tasks started so far (attempts of every form but the WebSocket's, and
    /// token refreshes), when the transport is URLSession's; else 0.
    var urlSessionTasks: Int
}

/// What the soak concludes about memory: whether the heap Leash holds stays flat after the
/// warm-up, once URLSession's own leak per task is taken out (with `URLSessionTransport`;
/// with `HTTP1Transport` no request is a URLSession task, and the heap's whole growth is
/// judged).
///
/// The heap, not resident memory, is judged: resident memory also holds what glibc keeps
/// cached for later allocations. And the heap's lowest point in a minute, not its peak: the
/// peak is the bodies in flight at that second, while the lowest point rises only with
/// what is held for good. Growth is the lowest point of the last minute against the lowest
/// point of the first minute after the warm-up (the first fifth of the run, at least 30 s),
/// minus what URLSession leaked for the tasks started in between (if any).
struct MemoryFindings {
    let samples: [MemorySample]
    /// Bytes URLSession leaves per task, measured with URLSession alone (`URLSessionLeak`);
    /// nil when the transport is not URLSession's (nothing measured, nothing taken out).
    let urlSessionLeakPerTask: Double?

    /// The memory growth allowed over a run, after the warm-up.
    static let growthLimit = 10 * 1024 * 1024

    /// The shortest run whose memory is judged: in a shorter one, the working set and the
    /// allocator's arenas are still growing to their size after the warm-up.
    static let minutesToJudge = 5.0

    /// Samples of the warm-up.
    var warmUpCount: Int { min(samples.count / 2, max(30, samples.count / 5)) }

    /// The heap between two floors: its lowest point in the minute after the warm-up and
    /// in the last minute.
    struct Growth {
        let first: MemorySample
        let last: MemorySample
        /// The heap's growth from the first floor to the last.
        let heap: Int
        /// What URLSession leaked between the two floors, by its tasks (0 without
        /// URLSession).
        let urlSessionShare: Int
        /// The heap's growth that is not URLSession's: Leash's, the soak's, the server's (the
        /// whole growth without URLSession). What is judged.
        var own: Int { heap - urlSessionShare }
    }

    /// The growth after the warm-up; nil with less than two minutes after it.
    var growth: Growth? {
        let judged = samples.dropFirst(warmUpCount)
        guard judged.count >= 120,
            let first = judged.prefix(60).min(by: { $0.heapInUse < $1.heapInUse }),
            let last = judged.suffix(60).min(by: { $0.heapInUse < $1.heapInUse })
        else { return nil }
        let tasks = Double(last.urlSessionTasks - first.urlSessionTasks)
        return Growth(
            first: first, last: last, heap: last.heapInUse - first.heapInUse,
            urlSessionShare: urlSessionLeakPerTask.map { Int(tasks * $0) } ?? 0)
    }

    func held(minutes: Double) -> Bool {
        guard minutes >= Self.minutesToJudge else { return true }
        guard let growth else { return false }
        return growth.own < Self.growthLimit
    }

    /// The highest resident memory of each minute.
    var residentByMinute: [Int] { byMinute { $0.map(\.resident).max() } }

    /// The heap's lowest point in each minute.
    var heapFloorByMinute: [Int] { byMinute { $0.map(\.heapInUse).min() } }

    /// `summary` of each minute's samples.
    private func byMinute(_ summary: (ArraySlice<MemorySample>) -> Int?) -> [Int] {
        stride(from: 0, to: samples.count, by: 60).map { summary(samples[$0..<min($0 + 60, samples.count)]) ?? 0 }
    }

    /// Resident memory: the peak during the warm-up and after it.
    var residentPeaks: (warmUp: Int, after: Int) {
        let warmUp = samples.prefix(warmUpCount).map(\.resident).max() ?? 0
        return (warmUp, samples.dropFirst(warmUpCount).map(\.resident).max() ?? warmUp)
    }
}
