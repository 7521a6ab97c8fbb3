import Foundation
import Leash

// Networking benchmarks (shared/BENCHMARKS.md, "Networking"): raw URLSession + JSONDecoder
// against Leash's `client.execute` (callback) and `await client.execute(_:as:)` on the same
// loopback server in the same run, one request at a time and 64 in flight; then the
// pipeline's own cost on the stub transport. Every run is verified (each value decoded,
// counted, and seen by the server).
//
//     swift run -c release --package-path Benchmarks net-benchmarks [--requests N] [--executions K]
//         [--storm S] [--transfer-mb M] [--stream-events E] [--lines-mb L] [--only "scenario name"]
//
// Then the transfers (TransferScenarios.swift): an M MB download to a file, file upload and
// multipart upload (default 100 MB), Leash against raw URLSession, with each run's peak RSS.
// Then the streams (StreamScenarios.swift): E Server-Sent Events (default 1,000,000) and L MB
// of NDJSON lines (default 1,000), Leash against a raw URLSession delegate, with peak RSS.
// Then the WebSockets (WebSocketScenarios.swift), `/ws/echo` through one connection per run,
// `client.rx.webSocket` against the same bytes over a plain socket (the floor) and Python's
// `websockets` (skipped when missing):
//
//     [--ws-echoes N] [--ws-mb M] [--ws-echo-mb E]
//
// | scenario | what a run does | rated in |
// |---|---|---|
// | websocket-echo-1k | N (default 20,000) 1 KB binary messages, each sent once the last echo is back | messages/s |
// | websocket-echo-1k-pipelined | the same with 16 messages in flight | messages/s |
// | websocket-oneway-1m | the server pushes M (default 200) binary messages of 1 MiB (`send=M&size=1048576&binary=1`) | MB/s |
// | websocket-echo-1m | E (default 32) 1 MiB binary messages, masked by the client, one at a time | MB/s, both ways |
// | websocket-1gb-rss | 1,024 pushed messages of 1 MiB (1 GiB), with the peak RSS growth (target < 10 MB) | MB/s |
//
// Each name is followed by the client: `websocket-echo-1k: leash client.rx.webSocket`,
// `…: raw socket (floor)`, `…: python websockets` (not for the 1 GB run). The floor writes
// frames masked before the run and only counts what it reads; Python times itself, without
// its start-up, and its CPU is its own. Targets: leash ≥ 0.8 of the floor in MB/s for
// 1 MiB messages, ahead of Python in every scenario.

let arguments = CommandLine.arguments

if arguments.count >= 2, arguments[1] == "--serve" {
    serveUntilInputCloses()
}

func option(_ name: String, default value: Int) -> Int {
    guard let index = arguments.firstIndex(of: name) else { return value }
    guard arguments.indices.contains(index + 1), let parsed = Int(arguments[index + 1]), parsed > 0 else {
        fail("\(name) needs a positive integer")
    }
    return parsed
}

/// Requests per network run, and executions per stub run.
let requests = option("--requests", default: 2_048)
let executions = option("--executions", default: 20_000)
/// Concurrent requests of the refresh storm (and of the plain run it is compared with).
let stormRequests = option("--storm", default: 1_000)
let inFlight = 64
/// The size of every transfer (the download, the uploaded file, the form's file part).
let transferBytes = option("--transfer-mb", default: 100) * 1_000_000
/// The events of the Server-Sent Events stream, and the bytes of the NDJSON stream.
let streamEvents = option("--stream-events", default: 1_000_000)
let streamLineBytes = option("--lines-mb", default: 1000) * 1_000_000
/// The WebSocket runs: 1 KB echoes, 1 MiB messages pushed, 1 MiB echoes.
let webSocketEchoes = option("--ws-echoes", default: 20_000)
let webSocketMegabytes = option("--ws-mb", default: 200)
let webSocketEchoMegabytes = option("--ws-echo-mb", default: 32)

let modes = [1, inFlight].flatMap { concurrency in
    [NetworkMode.API.raw, .rawAsync, .transport, .http1, .callback, .rx, .async, .rxURLSession].map {
        NetworkMode(api: $0, concurrency: concurrency)
    }
}

let replayed = LeashSetup(baseURL: URL(fileURLWithPath: "/"), transport: ReplayTransport(), url: "http://stub.invalid")
let replayedWithTimeout = LeashSetup(
    baseURL: URL(fileURLWithPath: "/"), transport: ReplayTransport(), url: "http://stub.invalid", timeout: 60)
let withInterceptors = PipelineSetup(interceptors: true)
let bare = PipelineSetup(interceptors: false)
let pipeline = [
    Scenario(
        name: "stub transport, 5 interceptors + authenticator", operations: executions,
        expect: Tally(values: executions, interceptorCalls: 5 * executions),
        observe: {
            withInterceptors.forgetRequests()
            return Tally(interceptorCalls: withInterceptors.interceptorCalls())
        }
    ) { PipelineScenarios.executions(withInterceptors.client, total: executions) },
    Scenario(
        name: "replayed response, the network benchmark's setup (logger, validator, authenticator)",
        operations: executions, expect: Tally(values: executions, interceptorCalls: 3 * executions),
        observe: { Tally(interceptorCalls: replayed.interceptorCalls()) }
    ) { PipelineScenarios.executions(replayed.client, total: executions) },
    Scenario(
        name: "replayed response, the same setup with a 60 s timeout", operations: executions,
        expect: Tally(values: executions, interceptorCalls: 3 * executions),
        observe: { Tally(interceptorCalls: replayedWithTimeout.interceptorCalls()) }
    ) { PipelineScenarios.executions(replayedWithTimeout.client, total: executions) },
    Scenario(
        name: "replayed response, the same setup, await client.execute", operations: executions,
        expect: Tally(values: executions, interceptorCalls: 3 * executions),
        observe: { Tally(interceptorCalls: replayed.interceptorCalls()) }
    ) { PipelineScenarios.awaitedExecutions(replayed.client, total: executions) },
    Scenario(
        name: "stub transport, no interceptors", operations: executions, expect: Tally(values: executions),
        observe: {
            bare.forgetRequests()
            return Tally()
        }
    ) { PipelineScenarios.executions(bare.client, total: executions) },
    Scenario(name: "JSONDecoder only (floor)", operations: executions, expect: Tally(values: executions)) {
        PipelineScenarios.decodeOnly(total: executions)
    },
]

// `--only NAME` runs one scenario, named as in the tables, 20 times (for profiling);
// `--only "A | B"` runs several side by side, alternating, 20 times each (for A/B checks).
if let index = arguments.firstIndex(of: "--only") {
    guard arguments.indices.contains(index + 1) else { fail("--only needs a scenario name") }
    let names = arguments[index + 1].components(separatedBy: " | ")
    if names.contains(where: { [RefreshStormBench.stormName, RefreshStormBench.plainName].contains($0) }) {
        // Either name runs both, side by side: the storm's time only means something
        // against the plain requests'.
        let stormBench = RefreshStormBench()
        stormBench.report(measureSideBySide(stormBench.scenarios(total: stormRequests)))
        exit(0)
    }
    var server: ServerProcess?
    var bench: NetworkBench?
    var transferBench: TransferBench?
    var streamBench: StreamBench?
    var webSocketBench: WebSocketBench?
    var scenarios: [Scenario] = []
    /// The child server, started for the first scenario that needs it.
    func startedServer() -> ServerProcess {
        if let server { return server }
        let child = ServerProcess()
        server = child
        return child
    }
    for name in names {
        if let mode = modes.first(where: { $0.name == name }) {
            if bench == nil {
                let child = startedServer()
                bench = NetworkBench(
                    server: child, raw: RawClient(baseURL: child.baseURL),
                    leash: LeashSetup(baseURL: child.baseURL, transport: Manager.defaultTransport),
                    leashOverURLSession: LeashSetup(baseURL: child.baseURL, transport: URLSessionTransport()))
            }
            if let bench { scenarios.append(bench.scenario(mode, total: requests)) }
        } else if let mode = TransferMode(rawValue: name) {
            if transferBench == nil {
                let child = startedServer()
                transferBench = TransferBench(
                    bytes: transferBytes, baseURL: child.baseURL, requestCount: { child.requestCount() })
            }
            if let transferBench { scenarios.append(transferBench.scenario(mode)) }
        } else if let mode = StreamMode(rawValue: name) {
            if streamBench == nil {
                streamBench = StreamBench(
                    events: streamEvents, lineBytes: streamLineBytes, baseURL: startedServer().baseURL)
            }
            if let streamBench { scenarios.append(streamBench.scenario(mode)) }
        } else if let mode = WebSocketMode(rawValue: name) {
            let bench = webSocketBench ?? makeWebSocketBench()
            webSocketBench = bench
            if mode.client == .python, let missing = bench.pythonMissing {
                print("\(name): skipped: \(missing)")
            } else {
                scenarios.append(bench.scenario(mode))
            }
        } else if let match = pipeline.first(where: { $0.name == name }) {
            scenarios.append(match)
        } else {
            fail(
                "no scenario named \"\(name)\"; names: "
                    + (modes.map(\.name) + pipeline.map(\.name) + TransferMode.allCases.map(\.name)
                    + StreamMode.allCases.map(\.name) + WebSocketMode.allCases.map(\.name) + [
                        RefreshStormBench.stormName, RefreshStormBench.plainName,
                    ])
                    .joined(separator: "; "))
        }
    }
    let timings = measureSideBySide(scenarios, repetitions: 20)
    for timing in timings {
        if let mode = WebSocketMode(rawValue: timing.scenario.name), let webSocketBench {
            // Python's allocations are another process's: not counted.
            let allocations = mode.client == .python ? nil : countAllocations(timing.scenario)
            print(
                "\(timing.scenario.name): \(webSocketBench.rate(mode, timing)), "
                    + "\(webSocketBench.cpu(mode, timing)), peak RSS growth \(megabytes(timing.peakMemoryGrowth)), "
                    + "\(allocations.map { format($0.calls, 1) } ?? "–") mallocs/message")
            continue
        }
        let mallocs = countAllocations(timing.scenario).map { String(format: "%.1f", $0.calls) } ?? "?"
        if TransferMode(rawValue: timing.scenario.name) != nil {
            print(
                "\(timing.scenario.name): \(format(Double(transferBytes) / 1e6 / timing.seconds, 1)) MB/s, "
                    + "\(format(timing.cpuPerOperation * 1e9 / Double(transferBytes), 2)) ms CPU/MB, "
                    + "peak RSS growth \(megabytes(timing.peakMemoryGrowth)), \(mallocs) mallocs/transfer")
        } else if let mode = StreamMode(rawValue: timing.scenario.name) {
            print("\(timing.scenario.name): \(streamRate(mode, timing)), \(mallocs) mallocs/stream")
        } else {
            print(
                "\(timing.scenario.name): \(timing.operationsPerSecond) operations/s, "
                    + "\(timing.cpuPerOperation * 1e6) µs CPU/operation, \(mallocs) mallocs/operation")
        }
    }
    if let webSocketBench {
        for line in webSocketBench.ratios(timings) { print(line) }
    }
    transferBench?.removeFiles()
    webSocketBench?.stop()
    server?.stop()
    exit(0)
}

let server = ServerProcess()
let bench = NetworkBench(
    server: server, raw: RawClient(baseURL: server.baseURL),
    leash: LeashSetup(baseURL: server.baseURL, transport: Manager.defaultTransport),
    leashOverURLSession: LeashSetup(baseURL: server.baseURL, transport: URLSessionTransport()))
var networkTimings = measureSideBySide(modes.map { bench.scenario($0, total: requests) }, repetitions: 9)

// Allocations from a separate, shorter run of each (counting touches a shared counter on
// every malloc, which the timed runs must not pay); the credential reads from the same run.
let countedRequests = max(requests / 8, 64)
var credentialReads: [String: Double] = [:]
for (index, mode) in modes.enumerated() {
    let readsBefore = bench.leash.credentialReads
    networkTimings[index].allocations = countAllocations(bench.scenario(mode, total: countedRequests))
    credentialReads[mode.name] = Double(bench.leash.credentialReads - readsBefore) / Double(countedRequests)
}
server.stop()

let stormBench = RefreshStormBench()
let stormTimings = measureSideBySide(stormBench.scenarios(total: stormRequests))

var pipelineTimings = measureSideBySide(pipeline)
for index in pipelineTimings.indices {
    pipelineTimings[index].allocations = countAllocations(pipelineTimings[index].scenario)
}

// Transfers: each kind side by side (Leash and raw alternating), 5 rounds; allocations from
// one more, counted run of each.
let transferServer = ServerProcess()
let transferBench = TransferBench(
    bytes: transferBytes, baseURL: transferServer.baseURL, requestCount: { transferServer.requestCount() })
var transferTimings: [Timing] = []
for kind in TransferKind.allCases {
    let kindModes = TransferMode.allCases.filter { $0.kind == kind }
    transferTimings += measureSideBySide(kindModes.map(transferBench.scenario))
}
for index in transferTimings.indices {
    transferTimings[index].allocations = countAllocations(transferTimings[index].scenario)
}
transferBench.removeFiles()
transferServer.stop()

// Streams: the events side by side, then the lines side by side, 5 rounds each.
let streamServer = ServerProcess()
let streamBench = StreamBench(events: streamEvents, lineBytes: streamLineBytes, baseURL: streamServer.baseURL)
let streamTimings =
    measureSideBySide(StreamMode.allCases.filter(\.isEvents).map(streamBench.scenario))
    + measureSideBySide(StreamMode.allCases.filter { !$0.isEvents }.map(streamBench.scenario))
streamServer.stop()

// WebSockets: each kind side by side, 5 rounds.
let webSocketBench = makeWebSocketBench()
var webSocketTimings: [Timing] = []
for kind in WebSocketMode.Kind.allCases {
    let kindModes = WebSocketMode.allCases.filter {
        $0.kind == kind && ($0.client != .python || webSocketBench.pythonMissing == nil)
    }
    webSocketTimings += measureSideBySide(kindModes.map(webSocketBench.scenario))
}
webSocketBench.stop()

// MARK: Report

/// A stream scenario's rate: events or megabytes a second, with the peak RSS growth.
func streamRate(_ mode: StreamMode, _ timing: Timing) -> String {
    let rate =
        mode.isEvents
        ? "\(format(Double(streamEvents) / timing.seconds)) events/s"
        : "\(format(Double(streamLineBytes) / 1e6 / timing.seconds, 1)) MB/s"
    return rate + ", peak RSS growth \(megabytes(timing.peakMemoryGrowth))"
}

func format(_ value: Double, _ digits: Int = 0) -> String {
    let text = String(format: "%.\(digits)f", value)
    guard digits == 0, value >= 1_000 else { return text }
    // Thousands separators for the large counts.
    var grouped = ""
    for (offset, character) in text.reversed().enumerated() {
        if offset > 0, offset % 3 == 0 { grouped.append(",") }
        grouped.append(character)
    }
    return String(grouped.reversed())
}

func allocationColumns(_ timing: Timing) -> String {
    guard let allocations = timing.allocations else { return "not measured | not measured" }
    return "\(format(allocations.calls, 1)) | \(format(allocations.bytes))"
}

let loadAverage = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
    .joined(separator: " ")
print("Networking: \(requests) requests per run, GET /json from a LoopbackServer in a child process;")
print("medians of 9 runs after a warm-up; client CPU = this process's CPU time (all threads) per request.")
print()
print("| scenario | requests/s | leash / raw | client CPU µs/request | mallocs/request | bytes/request |")
print("|---|---:|---:|---:|---:|---:|")
/// Leash's throughput over raw URLSession's (callbacks) in the same concurrency; `nil` for
/// the raw rows.
@MainActor func ratioToRaw(_ index: Int, baseline: NetworkMode.API = .raw) -> Double? {
    guard modes[index].api != .raw, modes[index].api != .rawAsync,
        let rawIndex = modes.firstIndex(where: { $0.api == baseline && $0.concurrency == modes[index].concurrency })
    else { return nil }
    return networkTimings[index].operationsPerSecond / networkTimings[rawIndex].operationsPerSecond
}

for (index, timing) in networkTimings.enumerated() {
    let ratio = ratioToRaw(index).map { String(format: "%.2f", $0) } ?? "–"
    print(
        "| \(timing.scenario.name) | \(format(timing.operationsPerSecond)) | \(ratio) | "
            + "\(format(timing.cpuPerOperation * 1e6)) | \(allocationColumns(timing)) |")
}
let ratios = modes.indices.filter { !modes[$0].isTransportOnly }.compactMap { ratioToRaw($0) }
print()
print(
    "Async against raw async (`session.data(for:)`, the same continuation hop): "
        + modes.indices.filter { modes[$0].api == .async }.map { index in
            "\(modes[index].name) \(ratioToRaw(index, baseline: .rawAsync).map { String(format: "%.2f", $0) } ?? "–")"
        }.joined(separator: "; ") + ".")
print(
    "Bar (leash ≥ 0.95 of raw URLSession callbacks): met in \(ratios.filter { $0 >= 0.95 }.count) of \(ratios.count) modes. "
        + "Load average at the end, this run included: \(loadAverage ?? "unknown") (2 cores, shared).")
print(
    "Credential reads per execution (authenticator.authentication): "
        + modes.filter { $0.api != .raw }.map { "\($0.name) \(format(credentialReads[$0.name] ?? 0, 2))" }
        .joined(separator: "; ") + ".")
print()
print("Pipeline: \(executions) executions per run, one at a time, callback API, on the calling thread.")
print()
print("| scenario | executions/s | µs/execution | mallocs/execution | bytes/execution |")
print("|---|---:|---:|---:|---:|")
for timing in pipelineTimings {
    print(
        "| \(timing.scenario.name) | \(format(timing.operationsPerSecond)) | "
            + "\(format(timing.seconds / Double(timing.scenario.operations) * 1e6, 1)) | \(allocationColumns(timing)) |"
    )
}
if !mallocCounterWorks {
    print()
    print("Allocations not measured: the malloc family could not be interposed on this platform.")
}

print()
print(
    "Refresh storm: \(stormRequests) requests started at once against a LoopbackServer in this process; "
        + "the storm's all get 401 once and share one refresh (checked every run).")
print()
stormBench.report(stormTimings)

// MARK: Transfers

/// `bytes` as decimal megabytes with one digit, or "not measured".
func megabytes(_ bytes: Int?) -> String {
    bytes.map { String(format: "%.1f MB", Double($0) / 1e6) } ?? "not measured"
}

print()
print(
    "Transfers: \(format(Double(transferBytes))) bytes (\(transferBytes / 1_000_000) MB) per run against a "
        + "LoopbackServer in a child process; each kind side by side, medians of 5 runs after a warm-up. "
        + "Peak RSS growth: the largest rise of VmHWM over the RSS at the start of a run (heap trimmed and peak "
        + "reset before each). Every run verified: downloads byte for byte (untimed), uploads by the server's count.")
print()
print("| scenario | MB/s | leash / raw | client CPU ms/MB | peak RSS growth | mallocs/transfer |")
print("|---|---:|---:|---:|---:|---:|")
/// Leash's throughput over the fastest raw URLSession scenario of the same kind.
@MainActor func transferRatio(_ timing: Timing) -> Double? {
    guard let mode = TransferMode(rawValue: timing.scenario.name), mode.isLeash else { return nil }
    let fastestRaw = transferTimings.filter {
        guard let other = TransferMode(rawValue: $0.scenario.name) else { return false }
        return other.kind == mode.kind && !other.isLeash
    }.map(\.seconds).min()
    return fastestRaw.map { $0 / timing.seconds }
}
for timing in transferTimings {
    let ratio = transferRatio(timing).map { String(format: "%.2f", $0) } ?? "–"
    let mallocs = timing.allocations.map { format($0.calls) } ?? "not measured"
    print(
        "| \(timing.scenario.name) | \(format(Double(transferBytes) / 1e6 / timing.seconds, 1)) | \(ratio) | "
            + "\(format(timing.cpuPerOperation * 1e9 / Double(transferBytes), 2)) | "
            + "\(megabytes(timing.peakMemoryGrowth)) | \(mallocs) |")
}
let leashTransfers = transferTimings.filter { TransferMode(rawValue: $0.scenario.name)?.isLeash == true }
// Leash against every raw row of its kind, the delegate-based ones (which, like Leash, see
// each chunk as it moves) included.
let pairwise = leashTransfers.compactMap { leash -> String? in
    guard let kind = TransferMode(rawValue: leash.scenario.name)?.kind else { return nil }
    return transferTimings.filter {
        guard let mode = TransferMode(rawValue: $0.scenario.name) else { return false }
        return mode.kind == kind && !mode.isLeash
    }.map { raw in
        String(format: "%.2f", raw.seconds / leash.seconds) + " of " + raw.scenario.name
    }.joined(separator: ", ")
}
let transferLoad = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
    .joined(separator: " ")
print()
print("Leash against each raw row of its kind: " + pairwise.joined(separator: "; ") + ".")
print(
    "Bars: leash ≥ 0.95 of the fastest raw URLSession of its kind in "
        + "\(leashTransfers.filter { (transferRatio($0) ?? 0) >= 0.95 }.count) of \(leashTransfers.count); "
        + "leash peak RSS growth < 20 MB in "
        + "\(leashTransfers.filter { ($0.peakMemoryGrowth ?? .max) < 20_000_000 }.count) of \(leashTransfers.count). "
        + "Load average at the end: \(transferLoad ?? "unknown").")

// MARK: Streams

print()
print(
    "Streams: \(format(Double(streamEvents))) Server-Sent Events (`/sse/flood`, ~30 bytes each) and "
        + "\(streamLineBytes / 1_000_000) MB of NDJSON lines (`/lines/flood`, ~100 bytes each) per run, from a "
        + "LoopbackServer in a child process; each side by side, medians of 5 runs after a warm-up. Every run "
        + "checked (event count and last id; every line's number in order).")
print()
print("| scenario | rate | leash / raw parsed | leash / raw bytes | peak RSS growth |")
print("|---|---:|---:|---:|---:|")
for timing in streamTimings {
    guard let mode = StreamMode(rawValue: timing.scenario.name) else { continue }
    func ratio(_ baseline: StreamMode) -> String {
        guard mode.isLeash, let base = streamTimings.first(where: { $0.scenario.name == baseline.name }) else {
            return "–"
        }
        return String(format: "%.2f", base.seconds / timing.seconds)
    }
    let rate =
        mode.isEvents
        ? "\(format(Double(streamEvents) / timing.seconds)) events/s"
        : "\(format(Double(streamLineBytes) / 1e6 / timing.seconds, 1)) MB/s"
    let parsed = ratio(mode.isEvents ? .rawEventsParsed : .rawLinesParsed)
    let bytes = ratio(mode.isEvents ? .rawEventsBytes : .rawLinesBytes)
    print("| \(timing.scenario.name) | \(rate) | \(parsed) | \(bytes) | \(megabytes(timing.peakMemoryGrowth)) |")
}

// MARK: WebSockets

/// The WebSocket scenarios, with the sizes asked for (and their own server child).
func makeWebSocketBench() -> WebSocketBench {
    WebSocketBench(echoes: webSocketEchoes, oneWayMessages: webSocketMegabytes, largeEchoes: webSocketEchoMegabytes)
}

print()
print(
    "WebSockets: `/ws/echo` of a LoopbackServer in a child process, one connection per run (its handshake and "
        + "closing handshake timed); \(format(Double(webSocketEchoes))) echoes of 1 KB, \(webSocketMegabytes) pushed "
        + "and \(webSocketEchoMegabytes) echoed messages of 1 MiB, 1,024 pushed for the 1 GB run; each kind side by side, "
        + "medians of 5 runs after a warm-up. Every run checked (each echo's bytes; counts of messages and bytes).")
if let missing = webSocketBench.pythonMissing { print("Python's websockets skipped: \(missing).") }
print()
print("| scenario | rate | leash / floor | leash / python | client CPU | peak RSS growth |")
print("|---|---:|---:|---:|---:|---:|")
for timing in webSocketTimings {
    guard let mode = WebSocketMode(rawValue: timing.scenario.name) else { continue }
    func ratio(_ client: WebSocketMode.Client) -> String {
        guard mode.client == .leash, let value = WebSocketBench.ratio(timing, to: client, in: webSocketTimings) else {
            return "–"
        }
        return String(format: "%.2f", value)
    }
    print(
        "| \(timing.scenario.name) | \(webSocketBench.rate(mode, timing)) | \(ratio(.raw)) | \(ratio(.python)) | "
            + "\(webSocketBench.cpu(mode, timing)) | \(mode.client == .python ? "–" : megabytes(timing.peakMemoryGrowth)) |"
    )
}
