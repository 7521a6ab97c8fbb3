import Foundation
import MallocCounter

/// What one run of a scenario produced. A run whose tally differs from the expected one
/// aborts the benchmark, so that nothing wrong can look fast.
struct Tally: Equatable, CustomStringConvertible {
    /// Responses that decoded to `Sample.expected`.
    var values = 0
    /// Errors, and values that were not `Sample.expected`.
    var failures = 0
    /// Requests the server received during the run (network scenarios).
    var served = 0
    /// Interceptor invocations during the run (Leash scenarios).
    var interceptorCalls = 0

    var description: String {
        "values \(values), failures \(failures), served \(served), interceptor calls \(interceptorCalls)"
    }

    /// Counts one outcome: a value equal to the expected one, or a failure.
    mutating func record(_ sample: Sample?) {
        if sample == Sample.expected { values += 1 } else { failures += 1 }
    }

    static func + (left: Tally, right: Tally) -> Tally {
        Tally(
            values: left.values + right.values, failures: left.failures + right.failures,
            served: left.served + right.served, interceptorCalls: left.interceptorCalls + right.interceptorCalls)
    }
}

/// A tally several threads add to; read once the run is over.
final class SharedTally: @unchecked Sendable {
    // @unchecked: `tally` is only touched under `lock`.
    private let lock = NSLock()
    private var tally = Tally()

    func record(_ sample: Sample?) {
        lock.withLock { tally.record(sample) }
    }

    func add(_ other: Tally) {
        lock.withLock { tally = tally + other }
    }

    var value: Tally { lock.withLock { tally } }
}

/// One thing to measure: `run` does `operations` operations and returns its tally;
/// `observe`, read before and after each run outside the timed interval, adds what
/// outlives the run (server and interceptor counters) to the tally; `verify`, called after
/// each run outside the timed interval, checks what the run left (a downloaded file's
/// bytes), cleans it up and returns what is wrong, if anything.
struct Scenario {
    let name: String
    let operations: Int
    let expect: Tally
    var observe: () -> Tally = { Tally() }
    var verify: () -> String? = { nil }
    /// Whether each run measures the rise of this process's peak RSS (see `PeakMemory`).
    var measuresPeakMemory = false
    /// Where a run that times itself (a client in another process, which excludes its own
    /// start-up) leaves its wall-clock and CPU seconds; taken instead of the harness's.
    var ownTime: OwnTime?
    let run: () -> Tally
}

/// The wall-clock and CPU seconds a run measured itself, left for the harness to take
/// (see `Scenario.ownTime`).
final class OwnTime: @unchecked Sendable {
    // @unchecked: `seconds` is only touched under `lock`.
    private let lock = NSLock()
    private var seconds: (wall: Double, cpu: Double)?

    func record(wall: Double, cpu: Double) {
        lock.withLock { seconds = (wall, cpu) }
    }

    /// The last run's seconds, forgotten once taken.
    func take() -> (wall: Double, cpu: Double)? {
        lock.withLock {
            defer { seconds = nil }
            return seconds
        }
    }
}

/// The medians of a scenario's timed runs.
struct Timing {
    let scenario: Scenario
    /// Wall-clock seconds of the median run.
    let seconds: Double
    /// Median process CPU seconds per operation (all of this process's threads).
    let cpuPerOperation: Double
    /// Heap allocation calls and bytes per operation, from a separate counted run, or
    /// `nil` where they cannot be counted.
    var allocations: (calls: Double, bytes: Double)?
    /// The largest rise of peak RSS over the timed runs, in bytes; `nil` unless the
    /// scenario `measuresPeakMemory` and this platform can reset the peak.
    var peakMemoryGrowth: Int?

    var operationsPerSecond: Double { Double(scenario.operations) / seconds }
}

/// Measures `scenarios` side by side: one untimed warm-up of each, then `repetitions`
/// rounds in which every scenario runs once (in an order rotated each round, so that a
/// burst of load from other processes on this shared machine falls on different
/// scenarios), and the median of each. Every run's tally is checked.
func measureSideBySide(_ scenarios: [Scenario], repetitions: Int = 5) -> [Timing] {
    for scenario in scenarios {
        _ = verifiedRun(scenario)
    }
    var wall = Array(repeating: [Double](), count: scenarios.count)
    var cpu = Array(repeating: [Double](), count: scenarios.count)
    var growth = Array(repeating: [Int](), count: scenarios.count)
    for round in 0..<repetitions {
        for offset in 0..<scenarios.count {
            let index = (offset + round) % scenarios.count
            let run = verifiedRun(scenarios[index])
            wall[index].append(run.wall)
            cpu[index].append(run.cpu / Double(scenarios[index].operations))
            if let rise = run.peakMemoryGrowth { growth[index].append(rise) }
        }
    }
    return scenarios.indices.map { index in
        Timing(
            scenario: scenarios[index], seconds: median(wall[index]), cpuPerOperation: median(cpu[index]),
            peakMemoryGrowth: growth[index].max())
    }
}

/// What one run of a scenario measured, and what was wrong with it.
struct RunOutcome {
    /// Wall-clock seconds.
    var wall: Double
    /// Process CPU seconds (all threads).
    var cpu: Double
    /// The rise of peak RSS during the run, in bytes (see `Scenario.measuresPeakMemory`).
    var peakMemoryGrowth: Int?
    /// Why the run does not count (a wrong tally, a failed verification), or `nil`.
    var problem: String?
}

/// Runs `scenario` once, timed, then checks its tally and verifies it (untimed).
func checkedRun(_ scenario: Scenario) -> RunOutcome {
    let baseline = scenario.measuresPeakMemory ? PeakMemory.reset() : nil
    _ = scenario.ownTime?.take()
    let before = scenario.observe()
    let cpuStart = processCPUSeconds()
    let start = DispatchTime.now().uptimeNanoseconds
    var tally = scenario.run()
    let end = DispatchTime.now().uptimeNanoseconds
    let cpuEnd = processCPUSeconds()
    let peak = baseline == nil ? nil : PeakMemory.peak()
    let after = scenario.observe()
    tally.served += after.served - before.served
    tally.interceptorCalls += after.interceptorCalls - before.interceptorCalls
    var outcome = RunOutcome(wall: Double(end - start) / 1e9, cpu: cpuEnd - cpuStart)
    // A self-timed run that failed reports no time; its tally says so below.
    if let own = scenario.ownTime?.take() { (outcome.wall, outcome.cpu) = own }
    if let baseline, let peak { outcome.peakMemoryGrowth = max(0, peak - baseline) }
    // Always verified (it also cleans up), even after a wrong tally.
    let problem = scenario.verify()
    if tally != scenario.expect {
        outcome.problem =
            "\(scenario.name): got \(tally), expected \(scenario.expect)" + (problem.map { " (\($0))" } ?? "")
    } else if let problem {
        outcome.problem = "\(scenario.name): \(problem)"
    }
    return outcome
}

/// Runs `scenario` once (see `checkedRun`); a run with a problem ends the benchmark.
private func verifiedRun(_ scenario: Scenario) -> RunOutcome {
    let outcome = checkedRun(scenario)
    if let problem = outcome.problem { fail(problem) }
    return outcome
}

/// Heap allocations per operation of `scenario`, from one run with the malloc counter on
/// (its tally checked too); `nil` where the counter does not work on this platform.
func countAllocations(_ scenario: Scenario) -> (calls: Double, bytes: Double)? {
    guard mallocCounterWorks else { return nil }
    let before = scenario.observe()
    malloc_counter_start()
    var tally = scenario.run()
    malloc_counter_stop()
    let after = scenario.observe()
    tally.served += after.served - before.served
    tally.interceptorCalls += after.interceptorCalls - before.interceptorCalls
    let problem = scenario.verify()
    guard tally == scenario.expect else {
        fail(
            "\(scenario.name) (counting allocations): got \(tally), expected \(scenario.expect)"
                + (problem.map { " (\($0))" } ?? ""))
    }
    if let problem { fail("\(scenario.name) (counting allocations): \(problem)") }
    let operations = Double(scenario.operations)
    return (Double(malloc_counter_calls()) / operations, Double(malloc_counter_bytes()) / operations)
}

/// Whether allocations inside the Swift runtime reach the counting `malloc` (checked once).
let mallocCounterWorks = malloc_counter_is_available()

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

/// CPU time used so far by every thread of this process.
func processCPUSeconds() -> Double {
    var time = timespec()
    guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { fail("clock_gettime: errno \(errno)") }
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("benchmark failed: \(message)\n".utf8))
    FilesToRemove.onFailure.removeAll()
    exit(1)
}

/// Files and folders a benchmark made that `fail` removes before exiting (a failed run
/// ends the process at once, before any cleanup of its own).
final class FilesToRemove: @unchecked Sendable {
    // @unchecked: `urls` is only touched under `lock`.
    static let onFailure = FilesToRemove()
    private let lock = NSLock()
    private var urls: [URL] = []

    func add(_ url: URL) {
        lock.withLock { urls.append(url) }
    }

    func forget(_ url: URL) {
        lock.withLock { urls.removeAll { $0 == url } }
    }

    func removeAll() {
        let removed = lock.withLock {
            defer { urls = [] }
            return urls
        }
        for url in removed { try? FileManager.default.removeItem(at: url) }
    }
}
