import Dispatch
import Foundation

/// Seconds on the monotonic clock (for intervals only).
func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}

/// CPU time used so far by every thread of this process (the server is another process).
func processCPUSeconds() -> Double {
    var time = timespec()
    guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { fail("clock_gettime: errno \(errno)") }
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The nearest-rank percentile of `sorted` (ascending): the smallest sample with at least
/// `fraction` of the samples at or below it.
func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

func median(_ values: [Double]) -> Double {
    percentile(values.sorted(), 0.5)
}

/// `value` rounded to `decimals`, with thousands grouped by commas (`12,345.6`).
func grouped(_ value: Double, _ decimals: Int = 0) -> String {
    guard value.isFinite else { return "–" }
    let text = String(format: "%.\(decimals)f", value)
    let parts = text.split(separator: ".", maxSplits: 1)
    var digits = String(parts[0])
    let negative = digits.hasPrefix("-")
    if negative { digits.removeFirst() }
    var result = ""
    for (index, character) in digits.reversed().enumerated() {
        if index > 0 && index % 3 == 0 { result.append(",") }
        result.append(character)
    }
    let integer = (negative ? "-" : "") + String(result.reversed())
    return parts.count > 1 ? integer + "." + parts[1] : integer
}

/// Seconds as milliseconds with two decimals (`3.14 ms`).
func milliseconds(_ seconds: Double) -> String {
    String(format: "%.2f ms", seconds * 1e3)
}

/// Bytes as decimal megabytes with one decimal, or "not measured".
func megabytes(_ bytes: Int?) -> String {
    bytes.map { String(format: "%.1f MB", Double($0) / 1e6) } ?? "not measured"
}

/// Ends the benchmark: a wrong result must never look like a fast one. Removes the scratch
/// folder first (a failed run exits at once, before any cleanup of its own).
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("benchmark failed: \(message)\n".utf8))
    ScratchFolder.removeAllOnFailure()
    exit(1)
}

/// The folder (under the temporary directory, or `--dir`) that every store file of a run
/// lives in; each measured run gets a subfolder of its own, removed after it, and the
/// whole folder is removed at the end, or by `fail`.
final class ScratchFolder: @unchecked Sendable {
    // @unchecked: `created` is only touched under `lock`; the rest is immutable.
    let url: URL
    private let lock = NSLock()
    private var created = 0

    /// Makes `outbox-benchmarks-<pid>` in `parent`.
    init(parent: URL) {
        url = parent.appendingPathComponent("outbox-benchmarks-\(getpid())", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            fail("cannot make \(url.path): \(error)")
        }
        liveFolders.add(url)
    }

    /// A new, empty subfolder named after `purpose`.
    func fresh(_ purpose: String) -> URL {
        let number = lock.withLock {
            created += 1
            return created
        }
        let folder = url.appendingPathComponent("\(number)-\(purpose)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            fail("cannot make \(folder.path): \(error)")
        }
        return folder
    }

    /// The bytes of every file in `folder` (the store, its WAL and shared-memory files).
    static func size(of folder: URL) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.reduce(0) { total, name in
            let path = folder.appendingPathComponent(name).path
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
            return total + (size ?? 0)
        }
    }

    /// Removes `folder` (a subfolder made by `fresh`).
    func remove(_ folder: URL) {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Removes the whole folder.
    func removeAll() {
        try? FileManager.default.removeItem(at: url)
        liveFolders.forget(url)
    }

    fileprivate static func removeAllOnFailure() {
        for url in liveFolders.all { try? FileManager.default.removeItem(at: url) }
    }
}

/// The scratch folders not yet removed, for `fail` to remove.
private final class LiveFolders: @unchecked Sendable {
    // @unchecked: `urls` is only touched under `lock`.
    private let lock = NSLock()
    private var urls: [URL] = []

    func add(_ url: URL) { lock.withLock { urls.append(url) } }

    func forget(_ url: URL) { lock.withLock { urls.removeAll { $0 == url } } }

    var all: [URL] { lock.withLock { urls } }
}

private let liveFolders = LiveFolders()

/// The wall-clock and CPU seconds of one timed run.
struct RunTime {
    var wall: Double
    var cpu: Double
}

/// One side of a side-by-side comparison: `prepare` sets a run up, untimed (enqueues the
/// items, resets the server's log), and returns the run itself (timed) and its check
/// (untimed; it also cleans up). A run whose check finds a problem ends the benchmark.
struct Contender {
    /// One prepared run.
    struct Prepared {
        let run: () -> Void
        let verify: () -> String?
    }

    let name: String
    let operations: Int
    let prepare: () -> Prepared
}

/// What `measureSideBySide` found for one contender.
struct Measured {
    let contender: Contender
    /// Wall-clock seconds of the median run.
    let seconds: Double
    /// Median process CPU seconds per operation.
    let cpuPerOperation: Double
    /// Every timed run's wall-clock seconds, in the order run.
    let runs: [Double]

    var operationsPerSecond: Double { Double(contender.operations) / seconds }
}

/// Runs `contenders` side by side: one untimed warm-up of each, then `rounds` rounds in
/// which each runs once, in an order rotated every round (a burst of load from another
/// process on this shared machine then falls on different contenders); medians of each.
/// Every run, the warm-ups included, is checked.
func measureSideBySide(_ contenders: [Contender], rounds: Int) -> [Measured] {
    for contender in contenders { _ = timedRun(contender) }
    var wall = Array(repeating: [Double](), count: contenders.count)
    var cpu = Array(repeating: [Double](), count: contenders.count)
    for round in 0..<rounds {
        for offset in 0..<contenders.count {
            let index = (offset + round) % contenders.count
            let time = timedRun(contenders[index])
            wall[index].append(time.wall)
            cpu[index].append(time.cpu / Double(contenders[index].operations))
        }
    }
    return contenders.indices.map { index in
        Measured(
            contender: contenders[index], seconds: median(wall[index]), cpuPerOperation: median(cpu[index]),
            runs: wall[index])
    }
}

/// Prepares, times and checks one run of `contender`.
private func timedRun(_ contender: Contender) -> RunTime {
    let prepared = contender.prepare()
    let cpuStart = processCPUSeconds()
    let start = monotonicSeconds()
    prepared.run()
    let end = monotonicSeconds()
    let cpuEnd = processCPUSeconds()
    if let problem = prepared.verify() { fail("\(contender.name): \(problem)") }
    return RunTime(wall: end - start, cpu: cpuEnd - cpuStart)
}
