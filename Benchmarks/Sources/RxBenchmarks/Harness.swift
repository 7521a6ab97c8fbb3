import Foundation

/// Measures `body`: one untimed warm-up, then the median of `repetitions` timed runs on a
/// monotonic clock. `body` returns its verified result; a wrong result aborts the run so
/// that nothing wrong can look fast.
func measure(_ label: String, repetitions: Int = 5, expect: Checksum, _ body: () -> Checksum) -> Double {
    let warmUp = body()
    guard warmUp == expect else {
        fail("\(label): got \(warmUp), expected \(expect)")
    }
    var times: [Double] = []
    for _ in 0..<repetitions {
        let start = DispatchTime.now().uptimeNanoseconds
        let result = body()
        let end = DispatchTime.now().uptimeNanoseconds
        guard result == expect else { fail("\(label): got \(result), expected \(expect)") }
        times.append(Double(end - start) / 1e9)
    }
    times.sort()
    return times[times.count / 2]
}

/// What a scenario computed: a count and a sum.
struct Checksum: Equatable, CustomStringConvertible {
    var count: Int
    var sum: Int

    var description: String { "count \(count), sum \(sum)" }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("benchmark failed: \(message)\n".utf8))
    exit(1)
}

/// An identity the optimiser cannot see through, so that closures passed through it are
/// really built and called (the "floor" column).
@inline(never)
@_optimize(none)
func opaque<T>(_ value: T) -> T { value }

/// A reference-type accumulator, so that sinks capture state as real apps do.
final class Accumulator: @unchecked Sendable {
    var count = 0
    var sum = 0

    func add(_ value: Int) {
        count += 1
        sum += value
    }

    var checksum: Checksum { Checksum(count: count, sum: sum) }
}

/// Peak resident set size of this process (VmHWM), in bytes; 0 where unavailable.
func peakResidentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let digits = line.split(separator: " ").compactMap { Int($0) }
        if let kilobytes = digits.first { return kilobytes * 1024 }
    }
    return 0
}
