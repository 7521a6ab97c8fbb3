import Foundation
import Leash

// Outbox benchmarks: what `LeashOutbox` costs, against a LoopbackServer (in a child
// process) on 127.0.0.1 whose `POST /notes` answers 201 with `{"id":1}`; each note is about
// 200 bytes of JSON. Every run is verified (see each scenario's checks); a wrong result ends
// the benchmark. Store files go in a scratch folder under the temporary directory (or
// `--dir`), removed at the end.
//
//     swift run -c release --package-path Benchmarks outbox-benchmarks [--items N] [--rounds R]
//         [--store-items M] [--drain K] [--dir PATH] [--only "enqueue-latency | delivery-rate | large-store"]
//
// | scenario | what a run does | reported |
// |---|---|---|
// | enqueue-latency | N (default 2,000) `outbox.enqueue` on a fresh, paused outbox, each timed; beside it the same row committed by SQLite itself (schema, WAL, synchronous=FULL) and a 16 KiB append + fdatasync | p50, p90, p99, max over R rounds (target: p99 < 5 ms) |
// | delivery-rate | the outbox delivers N notes enqueued while paused, timed from `resume()` to the last `.delivered`; beside it plain loops of `try await client.execute` and of the callback form, one at a time, same client and server | items/s, outbox / plain loop (target ≥ 0.8), medians of R runs after a warm-up |
// | large-store | M (default 100,000) notes enqueued while paused, RSS read along the way; `pendingCount()`; a new `Outbox` on the file (a relaunch), which then delivers K (default 1,000) | RSS at each point, peak RSS, times |
//
// Checks: the outbox's items are delivered in enqueue order, without retries, and the
// server receives exactly N notes, in order, whose `Idempotency-Key`s are exactly the items'
// (all different); the plain loops' notes arrive the same way; the store is empty after.
// `R` defaults to 3.

let arguments = CommandLine.arguments

if arguments.count >= 2, arguments[1] == "--serve" {
    serveNotesUntilInputCloses()
}

func option(_ name: String, default value: Int) -> Int {
    guard let index = arguments.firstIndex(of: name) else { return value }
    guard arguments.indices.contains(index + 1), let parsed = Int(arguments[index + 1]), parsed > 0 else {
        fail("\(name) needs a positive integer")
    }
    return parsed
}

/// Notes per run of the enqueue-latency and delivery-rate scenarios.
let items = option("--items", default: 2_000)
/// Rounds of the side-by-side scenarios (after one warm-up).
let rounds = option("--rounds", default: 3)
/// Notes stored in the large-store scenario, and how many it delivers after reopening.
let storeItems = option("--store-items", default: 100_000)
let drainItems = min(option("--drain", default: 1_000), storeItems)

let scenarioNames = ["enqueue-latency", "delivery-rate", "large-store"]
var selected = Set(scenarioNames)
if let index = arguments.firstIndex(of: "--only") {
    guard arguments.indices.contains(index + 1) else { fail("--only needs a scenario name") }
    let names = arguments[index + 1].components(separatedBy: "|").map { $0.trimmingCharacters(in: .whitespaces) }
    for name in names where !scenarioNames.contains(name) {
        fail("no scenario named \"\(name)\"; names: \(scenarioNames.joined(separator: ", "))")
    }
    selected = Set(names)
}
var parent = FileManager.default.temporaryDirectory
if let index = arguments.firstIndex(of: "--dir") {
    guard arguments.indices.contains(index + 1) else { fail("--dir needs a folder") }
    parent = URL(fileURLWithPath: arguments[index + 1], isDirectory: true)
}

/// The file system that holds `url`, from `/proc/mounts` (the longest mount point that
/// contains it): a sync on tmpfs costs nothing, which would flatter every number here.
func fileSystem(of url: URL) -> String {
    guard let mounts = try? String(contentsOfFile: "/proc/mounts", encoding: .utf8) else {
        return "file system not checked"
    }
    let path = url.resolvingSymlinksInPath().path
    var best: (point: String, type: String)?
    for line in mounts.split(separator: "\n") {
        let fields = line.split(separator: " ")
        guard fields.count >= 3 else { continue }
        let point = String(fields[1])
        let contains = point == "/" || path == point || path.hasPrefix(point + "/")
        if contains, point.count > (best?.point.count ?? -1) { best = (point, String(fields[2])) }
    }
    guard let best else { return "file system unknown" }
    return best.type == "tmpfs" ? "tmpfs: syncs cost nothing there, use --dir on a disk" : best.type
}

/// The load averages of `/proc/loadavg` (1, 5 and 15 minutes).
func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
        .joined(separator: " ") ?? "unknown"
}

/// Shows what is printed so far (each scenario takes a while).
func flush() {
    fflush(nil)
}

let server = NotesServerProcess()
let client = makeClient(baseURL: server.baseURL)
let scratch = ScratchFolder(parent: parent)

print(
    "Outbox: LeashOutbox against a LoopbackServer child on 127.0.0.1 (`POST /notes` → 201 `{\"id\":1}`), notes of "
        + "\(Note.bodySize) bytes of JSON; stores in \(scratch.url.path) (\(fileSystem(of: scratch.url))); "
        + "\(ProcessInfo.processInfo.activeProcessorCount) cores, load average at the start \(loadAverage()).")
flush()

// MARK: Enqueue latency

if selected.contains("enqueue-latency") {
    let results = measureLatencies(
        [
            EnqueueContenders.outbox(client: client, scratch: scratch), EnqueueContenders.sqlite(scratch: scratch),
            EnqueueContenders.disk(scratch: scratch),
        ], count: items, warmUp: min(items, 200), rounds: rounds)
    print()
    print(
        "Enqueue latency: \(grouped(Double(items))) operations per round on a fresh store, \(rounds) rounds side by "
            + "side (\(grouped(Double(items * rounds))) samples each) after a warm-up; the outbox paused. Each "
            + "checked (every item pending, each with its own key; the floors' row and byte counts).")
    print()
    print("| operation | p50 | p90 | p99 | max | mean | CPU µs/op |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for result in results {
        print(
            "| \(result.name) | \(milliseconds(result.quantile(0.5))) | \(milliseconds(result.quantile(0.9))) | "
                + "\(milliseconds(result.quantile(0.99))) | \(milliseconds(result.max)) | \(milliseconds(result.mean)) | "
                + "\(grouped(result.cpuPerOperation * 1e6, 1)) |")
    }
    let outbox = results[0]
    let sqlite = results[1]
    let disk = results[2]
    print()
    print(
        "Target (outbox.enqueue p99 < 5 ms): \(outbox.quantile(0.99) < 0.005 ? "met" : "NOT met"), p99 "
            + "\(milliseconds(outbox.quantile(0.99))). Over the SQLite floor: p50 "
            + "+\(milliseconds(outbox.quantile(0.5) - sqlite.quantile(0.5))), p99 "
            + "+\(milliseconds(outbox.quantile(0.99) - sqlite.quantile(0.99))); the disk's own append + fdatasync: "
            + "p50 \(milliseconds(disk.quantile(0.5))), p99 \(milliseconds(disk.quantile(0.99))).")
    flush()
}

// MARK: Delivery rate

/// The outbox's delivery rate in the delivery-rate scenario, for the large store's comparison.
var smallStoreRate: Double?

if selected.contains("delivery-rate") {
    let measured = measureSideBySide(
        [
            DeliveryContenders.outbox(client: client, server: server, scratch: scratch, items: items),
            DeliveryContenders.plainAsync(client: client, server: server, items: items),
            DeliveryContenders.plainCallback(client: client, server: server, items: items),
        ], rounds: rounds)
    let outbox = measured[0]
    smallStoreRate = outbox.operationsPerSecond
    print()
    print(
        "Delivery rate: \(grouped(Double(items))) notes per run, one at a time, the same client and server; medians "
            + "of \(rounds) runs after a warm-up, side by side. The outbox's notes are enqueued while it is paused "
            + "(untimed); its time runs from resume() to the last .delivered event.")
    print()
    print("| scenario | items/s | outbox / this | client CPU µs/item | runs (s) |")
    print("|---|---:|---:|---:|---|")
    for timing in measured {
        let ratio =
            timing.contender.name == outbox.contender.name
            ? "–" : String(format: "%.2f", outbox.operationsPerSecond / timing.operationsPerSecond)
        print(
            "| \(timing.contender.name) | \(grouped(timing.operationsPerSecond)) | \(ratio) | "
                + "\(grouped(timing.cpuPerOperation * 1e6, 1)) | "
                + timing.runs.map { String(format: "%.2f", $0) }.joined(separator: ", ") + " |")
    }
    let ratios = measured.dropFirst().map { outbox.operationsPerSecond / $0.operationsPerSecond }
    print()
    print(
        "Target (outbox ≥ 0.8 of the plain loop): \(ratios.allSatisfy { $0 >= 0.8 } ? "met" : "NOT met") ("
            + zip(measured.dropFirst(), ratios).map { "\(String(format: "%.2f", $1)) of \($0.contender.name)" }
            .joined(separator: ", ") + "). Verified every run, the warm-up included: the server received exactly "
            + "\(grouped(Double(items))) notes, in order, each with its own Idempotency-Key (the outbox's: exactly "
            + "its items' keys), every item delivered in enqueue order without a retry, the store empty after.")
    flush()
}

// MARK: Large store

if selected.contains("large-store") {
    let report = measureLargeStore(
        client: client, server: server, scratch: scratch, items: storeItems, drain: drainItems)
    let base = report.readings.first { $0.point.hasPrefix("outbox open") }?.resident
    print()
    print(
        "Large store: \(grouped(Double(storeItems))) notes enqueued into a paused outbox, then a new Outbox on the "
            + "file (a relaunch) that delivers \(grouped(Double(drainItems))) and is paused; items() never called. "
            + "RSS = VmRSS after malloc_trim.")
    print()
    print("| point | items stored | RSS | RSS − open, empty |")
    print("|---|---:|---:|---:|")
    for reading in report.readings {
        var growth = "–"
        if let resident = reading.resident, let base { growth = megabytes(resident - base) }
        print(
            "| \(reading.point) | \(grouped(Double(reading.stored))) | \(megabytes(reading.resident)) | \(growth) |")
    }
    let start = report.readings.first?.resident
    func rise(_ peak: Int?) -> String {
        guard let peak, let start else { return "not measured" }
        return "\(megabytes(peak)) (+\(megabytes(peak - start)) over the start)"
    }
    let enqueueRate = Double(storeItems) / report.enqueueSeconds
    let drainRate = Double(report.drained) / report.drainSeconds
    print()
    print(
        "Enqueue of \(grouped(Double(storeItems))): \(String(format: "%.1f", report.enqueueSeconds)) s, "
            + "\(grouped(enqueueRate)) items/s; latency of the first \(grouped(Double(report.firstLatencies.count))): "
            + "p50 \(milliseconds(percentile(report.firstLatencies, 0.5))), p99 "
            + "\(milliseconds(percentile(report.firstLatencies, 0.99))); of the last "
            + "\(grouped(Double(report.lastLatencies.count))): p50 \(milliseconds(percentile(report.lastLatencies, 0.5))), "
            + "p99 \(milliseconds(percentile(report.lastLatencies, 0.99))).")
    print(
        "Store on disk when full: \(megabytes(report.storeBytes)) (database, WAL, shared memory). "
            + "pendingCount() on \(grouped(Double(storeItems))): median "
            + "\(milliseconds(median(report.pendingCountSeconds))) of 5 (max "
            + "\(milliseconds(report.pendingCountSeconds.max() ?? .nan))).")
    print(
        "Reopening (Outbox.init on the full file: schema check, COUNT(*), the lane heads, the first send's claim): "
            + "\(milliseconds(report.openSeconds)). Then \(grouped(Double(report.drained))) delivered in "
            + "\(String(format: "%.2f", report.drainSeconds)) s: \(grouped(drainRate)) items/s"
            + (smallStoreRate.map {
                " (\(String(format: "%.2f", drainRate / $0)) of the rate with \(grouped(Double(items))) stored above)"
            } ?? "") + ".")
    print(
        "Peak RSS (VmHWM): while enqueueing \(rise(report.peakWhileEnqueueing)); over the scenario "
            + "\(rise(report.peakOverall)). Verified: the count when full; after the drain the server received "
            + "exactly the items that left the store, in order, each with its own key, without a retry.")
    flush()
}

print()
print("Load average at the end: \(loadAverage()).")
scratch.removeAll()
server.stop()
