/// The memory of the process, sampled each second by the soak.
struct MemorySample {
    /// Resident memory (`VmRSS`).
    var resident: Int
    /// The heap's chunks in use (`HeapInfo`): what the code holds, without what the
    /// allocator keeps cached.
    var heapInUse: Int
    /// URLSession tasks started so far (attempts of every form but the WebSocket's, and
    /// token refreshes).
    var urlSessionTasks: Int
}

/// What the soak concludes about memory: whether the heap Leash holds stays flat after the
/// warm-up, once URLSession's own leak per task is taken out.
///
/// The heap, not resident memory, is judged: resident memory also holds what glibc keeps
/// cached for later allocations. And the heap's lowest point in a minute, not its peak: the
/// peak is the bodies in flight at that second, while the lowest point rises only with
/// what is held for good. Growth is the lowest point of the last minute against the lowest
/// point of the first minute after the warm-up (the first fifth of the run, at least 30 s),
/// minus what URLSession leaked for the tasks started in between.
struct MemoryFindings {
    let samples: [MemorySample]
    /// Bytes URLSession leaves per task, measured with URLSession alone (`URLSessionLeak`).
    let urlSessionLeakPerTask: Double

    /// The memory growth allowed over a run, after the warm-up.
    static let growthLimit = 10 * 1024 * 1024

    /// The shortest run whose memory is judged: in a shorter one, the working set and the
    /// allocator's arenas are still growing to their size after the warm-up.
    static let minutesToJudge = 5.0

    /// Samples of the warm-up.
    var warmUpCount: Int { min(samples.count / 2, max(30, samples.count / 5)) }

    /// The sample with the smallest heap in the minute after the warm-up, and in the last
    /// minute; nil with less than two minutes after the warm-up.
    var floors: (first: MemorySample, last: MemorySample)? {
        let judged = samples.dropFirst(warmUpCount)
        guard judged.count >= 120,
            let first = judged.prefix(60).min(by: { $0.heapInUse < $1.heapInUse }),
            let last = judged.suffix(60).min(by: { $0.heapInUse < $1.heapInUse })
        else { return nil }
        return (first, last)
    }

    /// The heap's growth from the first floor to the last.
    var heapGrowth: Int? { floors.map { $0.last.heapInUse - $0.first.heapInUse } }

    /// What URLSession leaked between the two floors, by its tasks.
    var urlSessionShare: Int? {
        floors.map { Int(Double($0.last.urlSessionTasks - $0.first.urlSessionTasks) * urlSessionLeakPerTask) }
    }

    /// The heap's growth that is not URLSession's: Leash's, the soak's, the server's.
    var ownGrowth: Int? {
        guard let heapGrowth, let urlSessionShare else { return nil }
        return heapGrowth - urlSessionShare
    }

    func held(minutes: Double) -> Bool {
        guard minutes >= Self.minutesToJudge else { return true }
        guard let ownGrowth else { return false }
        return ownGrowth < Self.growthLimit
    }

    /// The highest resident memory of each minute.
    var residentByMinute: [Int] {
        stride(from: 0, to: samples.count, by: 60).map {
            samples[$0..<min($0 + 60, samples.count)].map(\.resident).max() ?? 0
        }
    }

    /// The heap's lowest point in each minute.
    var heapFloorByMinute: [Int] {
        stride(from: 0, to: samples.count, by: 60).map {
            samples[$0..<min($0 + 60, samples.count)].map(\.heapInUse).min() ?? 0
        }
    }

    /// Resident memory: the peak during the warm-up and after it.
    var residentPeaks: (warmUp: Int, after: Int) {
        let warmUp = samples.prefix(warmUpCount).map(\.resident).max() ?? 0
        return (warmUp, samples.dropFirst(warmUpCount).map(\.resident).max() ?? warmUp)
    }
}
