import Foundation

// Rx benchmarks: the scenarios of shared/BENCHMARKS.md, Leash's Rx against OpenCombine
// 0.14.0 and a hand-written floor, side by side in one run. Results are verified.
//
//     swift run -c release --package-path Benchmarks rx-benchmarks

let arguments = CommandLine.arguments

// Memory is measured from the rise of peak RSS, which only grows: each library is
// measured in its own child process.
if arguments.count == 3, arguments[1] == "--memory" {
    let count = 200_000
    switch arguments[2] {
    case "leash": print(RxScenarios.memory(count))
    case "opencombine": print(OpenCombineScenarios.memory(count))
    default: print(FloorScenarios.memory(count))
    }
    exit(0)
}

struct Row {
    let name: String
    let leash: Double
    let openCombine: Double?
    let floor: Double
}

// `--only NAME` runs one scenario, Leash only (for profiling), 20 times after the warm-up or
// `--repetitions N` times (1 keeps a callgrind run short).
func argument(after flag: String) -> String? {
    arguments.firstIndex(of: flag).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}
let only = argument(after: "--only")
let onlyRepetitions = argument(after: "--repetitions").flatMap { Int($0) } ?? 20

func run(_ name: String, expect: Checksum, leash: () -> Checksum, openCombine: (() -> Checksum)?, floor: () -> Checksum)
    -> Row?
{
    if let only {
        guard only == name else { return nil }
        let time = measure("\(name)/leash", repetitions: onlyRepetitions, expect: expect, leash)
        print("\(name): \(time) s")
        return nil
    }
    let leashTime = measure("\(name)/leash", expect: expect, leash)
    let openCombineTime = openCombine.map { measure("\(name)/opencombine", expect: expect, $0) }
    let floorTime = measure("\(name)/floor", expect: expect, floor)
    return Row(name: name, leash: leashTime, openCombine: openCombineTime, floor: floorTime)
}

var rows: [Row?] = []
rows.append(
    run(
        "map_filter_sum", expect: Checksum(count: 1_000_000, sum: 1_000_001_000_000),
        leash: { RxScenarios.mapFilterSum(2_000_000) },
        openCombine: { OpenCombineScenarios.mapFilterSum(2_000_000) },
        floor: { FloorScenarios.mapFilterSum(2_000_000) }))
rows.append(
    run(
        "flatmap_inner", expect: Checksum(count: 200_000, sum: 39_999_800_000),
        leash: { RxScenarios.flatMapInner(200_000) },
        openCombine: { OpenCombineScenarios.flatMapInner(200_000) },
        floor: { FloorScenarios.flatMapInner(200_000) }))
rows.append(
    run(
        "subject_fanout", expect: Checksum(count: 10_000_000, sum: 0),
        leash: { RxScenarios.subjectFanout(subscribers: 10, events: 1_000_000) },
        openCombine: { OpenCombineScenarios.subjectFanout(subscribers: 10, events: 1_000_000) },
        floor: { FloorScenarios.subjectFanout(subscribers: 10, events: 1_000_000) }))
rows.append(
    run(
        "subscribe_dispose", expect: Checksum(count: 1_000_000, sum: 2_000_000),
        leash: { RxScenarios.subscribeDispose(1_000_000) },
        openCombine: { OpenCombineScenarios.subscribeDispose(1_000_000) },
        floor: { FloorScenarios.subscribeDispose(1_000_000) }))
rows.append(
    run(
        "single_chain", expect: Checksum(count: 200_000, sum: 400_000),
        leash: { RxScenarios.singleChain(200_000) },
        openCombine: { OpenCombineScenarios.singleChain(200_000) },
        floor: { FloorScenarios.singleChain(200_000) }))
rows.append(
    run(
        "combine_latest", expect: Checksum(count: 499_999, sum: 0),
        leash: { RxScenarios.combineLatest(500_000) },
        openCombine: nil,
        floor: { FloorScenarios.combineLatest(500_000) }))

func memoryPerSubscription(_ library: String) -> Int {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--memory", library]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch { fail("cannot start memory child: \(error)") }
    process.waitUntilExit()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    guard process.terminationStatus == 0, let bytes = Int(output.trimmingCharacters(in: .whitespacesAndNewlines))
    else { fail("memory child for \(library) failed") }
    return bytes
}

func seconds(_ value: Double) -> String { String(format: "%.4f s", value) }
func ratio(_ value: Double) -> String { String(format: "%.1f×", value) }

if only != nil { exit(0) }
print("| scenario | leash | OpenCombine | floor | OpenCombine / leash | leash / floor |")
print("|---|---:|---:|---:|---:|---:|")
for case let row? in rows {
    let openCombine = row.openCombine.map(seconds) ?? "(no operator)"
    let speedup = row.openCombine.map { ratio($0 / row.leash) } ?? "–"
    print(
        "| \(row.name) | \(seconds(row.leash)) | \(openCombine) | \(seconds(row.floor)) | \(speedup) | \(ratio(row.leash / row.floor)) |"
    )
}
let leashBytes = memoryPerSubscription("leash")
let openCombineBytes = memoryPerSubscription("opencombine")
let floorBytes = memoryPerSubscription("floor")
print(
    "| memory (bytes per live subscription) | \(leashBytes) B | \(openCombineBytes) B | \(floorBytes) B | \(ratio(Double(openCombineBytes) / Double(max(leashBytes, 1)))) | \(ratio(Double(leashBytes) / Double(max(floorBytes, 1)))) |"
)
