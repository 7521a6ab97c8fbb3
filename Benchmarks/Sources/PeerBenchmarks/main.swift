import Foundation

// Leash's own HTTP/1.1 client against its peer: AsyncHTTPClient (SwiftNIO's HTTP client) on
// the loopback server of net-benchmarks (a child process, so that this process's CPU time is
// the client's alone), `GET /json` with the same bearer header, one request at a time and 64
// in flight. Every response is decoded with `JSONDecoder` into the same `Sample` and checked,
// and every request must reach the server. The rows:
//
// | row | what each request is |
// |---|---|
// | AsyncHTTPClient | `try await client.execute(request, timeout: .seconds(30))`, the body collected (up to 1 MB) and decoded from its `ByteBuffer`; one `HTTPClient(eventLoopGroupProvider: .singleton)` with its default configuration; 64 in flight are 64 tasks, each awaiting its share |
// | HTTP1Transport only | `HTTP1Transport.send(URLRequest)`, decoded in the subscriber (no pipeline) |
// | leash client.rx over HTTP1Transport | `client.rx.execute` with net-benchmarks' setup: logger, validator, authenticator |
// | raw URLSession | `dataTask` with a completion handler, as net-benchmarks' `raw URLSession` |
// | AsyncHTTPClient on 1 event loop | the same as AsyncHTTPClient, on a `MultiThreadedEventLoopGroup` of one thread of its own |
// | AsyncHTTPClient, EventLoopFuture API | `client.execute(request:)` with an `HTTPClient.Request` on the same client as the first row, the body collected by AsyncHTTPClient's `ResponseAccumulator` and decoded in the future's callback; 64 in flight are 64 chains of callbacks, as for Leash |
// | leash client.rx over AsyncHTTPClient | the same as `leash client.rx over HTTP1Transport` over `AsyncHTTPClientTransport` (target `LeashAsyncHTTPClient`): its own client on the singleton group, `recommendedConfiguration`, answers handed to Leash on the event loop (the default) |
// | leash client.rx over AsyncHTTPClient, answers off the loop | the same, answers handed to Leash on the transport's delivery queues (`deliversOnEventLoop: false`) |
//
// The first row is AsyncHTTPClient as its documentation recommends (`.singleton`, which
// `HTTPClient.shared` also uses: one event loop per core); `AsyncHTTPClient on 1 event loop`,
// one loop, which on two cores shared with the server child and Swift's concurrency pool can
// do better. Each row is rated against the first at the same concurrency. Each client keeps
// its default limit of connections to one host: 8 for AsyncHTTPClient (a soft limit, Leash's
// rows over it included: a manager sets no limits of its own over a transport other than
// URLSession's or HTTP1Transport), 6 for HTTP1Transport and URLSession. All scenarios run
// side by side, alternating (the order rotated each round), medians of 9 runs after a
// warm-up; mallocs from one more, shorter run of each, counted.
//
//     swift run -c release --package-path Benchmarks peer-benchmarks [--requests N] [--only "A | B"]
//
// `--only` runs the scenarios named (as in the table), side by side, alternating.

let arguments = CommandLine.arguments

if arguments.count >= 2, arguments[1] == "--serve" {
    serveUntilInputCloses()
}

/// Requests per run.
let requests: Int = {
    guard let index = arguments.firstIndex(of: "--requests") else { return 2_048 }
    guard arguments.indices.contains(index + 1), let parsed = Int(arguments[index + 1]), parsed > 0 else {
        fail("--requests needs a positive integer")
    }
    return parsed
}()
let inFlight = 64
let repetitions = 9

let modes = [1, inFlight].flatMap { concurrency in
    PeerMode.API.allCases.map { PeerMode(api: $0, concurrency: concurrency) }
}
var chosen = modes
if let index = arguments.firstIndex(of: "--only") {
    guard arguments.indices.contains(index + 1) else { fail("--only needs scenario names") }
    let names = arguments[index + 1].components(separatedBy: " | ")
    chosen = names.map { name in
        guard let mode = modes.first(where: { $0.name == name }) else {
            fail("no scenario named \"\(name)\"; names: " + modes.map(\.name).joined(separator: "; "))
        }
        return mode
    }
}

let server = ServerProcess()
let bench = PeerBench(server: server)
var timings = measureSideBySide(chosen.map { bench.scenario($0, total: requests) }, repetitions: repetitions)
// Allocations from a separate, shorter run of each: counting touches a shared counter on
// every malloc, which the timed runs must not pay.
let countedRequests = max(requests / 8, 64)
for (index, mode) in chosen.enumerated() {
    timings[index].allocations = countAllocations(bench.scenario(mode, total: countedRequests))
}
bench.shutdown()
server.stop()

/// `value` with `decimals` decimals, its thousands grouped.
func format(_ value: Double, _ decimals: Int = 0) -> String {
    value.formatted(.number.precision(.fractionLength(decimals)).locale(Locale(identifier: "en_US")))
}

print(
    "Peers: GET /json (\(format(Double(requests))) requests per run) from a LoopbackServer in a child process, "
        + "decoded with JSONDecoder and checked; all scenarios side by side, alternating, medians of "
        + "\(repetitions) runs after a warm-up. Client CPU is this process's CPU time per request; mallocs from "
        + "one more run of \(countedRequests) requests each.")
print()
print("| scenario | requests/s | / AsyncHTTPClient | client CPU µs/request | mallocs/request |")
print("|---|---:|---:|---:|---:|")
for (index, timing) in timings.enumerated() {
    let mode = chosen[index]
    let peer = chosen.indices.first {
        chosen[$0].api == .asyncHTTPClient && chosen[$0].concurrency == mode.concurrency
    }
    let ratio = peer.map { format(timings[$0].seconds / timing.seconds, 2) } ?? "–"
    let mallocs = timing.allocations.map { format($0.calls, 1) } ?? "not measured"
    print(
        "| \(timing.scenario.name) | \(format(timing.operationsPerSecond)) | \(ratio) | "
            + "\(format(timing.cpuPerOperation * 1e6, 1)) | \(mallocs) |")
}
let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
    .joined(separator: " ")
print()
print("Load average at the end: \(load ?? "unknown").")
