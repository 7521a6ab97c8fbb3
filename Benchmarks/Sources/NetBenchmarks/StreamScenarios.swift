import Dispatch
import Foundation
import Leash
import LoopbackServer
import RxLeash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Streams (issue 11): a long Server-Sent Events stream and a long NDJSON stream, each by
// Leash (`client.rx.serverSentEvents`, `client.rx.lines`, `client.rx.stream`) and by raw
// URLSession (a delegate data task) on the same server in the same run. Two raw floors:
// the delegate taking the bytes only (the transport's own speed), and the delegate with a
// hand-written parser building the same strings an app needs (what an app writes without
// Leash). Every run is checked: the event count and the last id, the line count and the
// last line's number.

/// One stream scenario.
enum StreamMode: String, CaseIterable {
    case leashEvents = "sse: leash client.rx.serverSentEvents"
    case rawEventsParsed = "sse: raw delegate + hand-written parser"
    case rawEventsBytes = "sse: raw delegate, bytes only"
    case leashLines = "lines: leash client.rx.lines(as: String.self)"
    case leashChunks = "lines: leash client.rx.stream (chunks)"
    case rawLinesParsed = "lines: raw delegate + hand-written split"
    case rawLinesBytes = "lines: raw delegate, bytes only"

    /// The scenario's name, as in the table and for `--only`.
    var name: String { rawValue }

    /// Whether the scenario streams events (else lines).
    var isEvents: Bool { rawValue.hasPrefix("sse") }

    /// Whether Leash does the streaming.
    var isLeash: Bool { rawValue.contains("leash") }
}

/// The server's routes and the clients of the stream scenarios.
final class StreamBench {
    let events: Int
    let lineBytes: Int
    private let client: Client
    private let raw: RawStreamClient

    init(events: Int, lineBytes: Int, baseURL: URL) {
        self.events = events
        self.lineBytes = lineBytes
        raw = RawStreamClient(baseURL: baseURL)
        do {
            // The manager's timeout bounds stalls of a stream, not its length.
            client = Client(manager: try Manager.Builder().url(baseURL).timeout(60).build())
        } catch {
            fail("cannot build the stream client: \(error)")
        }
    }

    private struct Path: Endpoint {
        let path: String
        var method: HTTPMethod { .get }
    }

    private var eventsPath: String { "/sse/flood?count=\(events)" }
    private var linesPath: String { "/lines/flood?bytes=\(lineBytes)" }

    func scenario(_ mode: StreamMode) -> Scenario {
        let count = events
        switch mode {
        case .leashEvents:
            let client = self.client
            let path = eventsPath
            return scenario(mode) { completion in
                let tally = EventTally()
                _ = client.rx.serverSentEvents(Path(path: path)).subscribe(
                    onNext: { tally.add($0.id) }, onError: { completion("\($0)") },
                    onCompleted: { completion(tally.problem(expecting: count)) })
            }
        case .rawEventsParsed:
            return rawScenario(mode, path: eventsPath) { HandWrittenEvents(expecting: count) }
        case .rawEventsBytes:
            return rawScenario(mode, path: eventsPath) { ByteCount() }
        case .leashLines:
            let client = self.client
            let path = linesPath
            return scenario(mode) { completion in
                let tally = LineTally()
                _ = client.rx.lines(Path(path: path), as: String.self).subscribe(
                    onNext: { tally.add($0) }, onError: { completion("\($0)") },
                    onCompleted: { completion(tally.problem()) })
            }
        case .leashChunks:
            let client = self.client
            let path = linesPath
            let bytes = lineBytes
            return scenario(mode) { completion in
                let count = ByteCount()
                _ = client.rx.stream(Path(path: path)).subscribe(
                    onNext: { count.feed($0) }, onError: { completion("\($0)") },
                    onCompleted: { completion(count.total == bytes ? nil : "\(count.total) bytes, not \(bytes)") })
            }
        case .rawLinesParsed:
            return rawScenario(mode, path: linesPath) { HandWrittenLines() }
        case .rawLinesBytes:
            return rawScenario(mode, path: linesPath) { ByteCount() }
        }
    }

    private func rawScenario(_ mode: StreamMode, path: String, consumer: @escaping () -> StreamConsumer) -> Scenario {
        let raw = self.raw
        let bytes = lineBytes
        return scenario(mode) { completion in
            let made = consumer()
            raw.stream(path, into: made) { error in
                if let error { return completion(error) }
                if let problem = made.problem() { return completion(problem) }
                if !mode.isEvents, let count = made as? ByteCount, count.total != bytes {
                    return completion("\(count.total) bytes, not \(bytes)")
                }
                completion(nil)
            }
        }
    }

    private func scenario(_ mode: StreamMode, start: @escaping (@escaping @Sendable (String?) -> Void) -> Void)
        -> Scenario
    {
        Scenario(name: mode.name, operations: 1, expect: Tally(values: 1), measuresPeakMemory: true) {
            awaitCompletion(start) == nil ? Tally(values: 1) : Tally(failures: 1)
        }
    }
}

/// Counts a stream's events and checks the last id (Leash's scenario).
private final class EventTally: @unchecked Sendable {
    // @unchecked: called by one stream, one event at a time.
    private var count = 0
    private var lastID: String?

    func add(_ id: String?) {
        count += 1
        lastID = id
    }

    func problem(expecting expected: Int) -> String? {
        count == expected && lastID == "\(expected)" ? nil : "\(count) events, last id \(lastID ?? "-")"
    }
}

/// Counts lines and checks that each one numbers itself in order (`{"n":i,…}`).
private final class LineTally: @unchecked Sendable {
    // @unchecked: called by one stream, one line at a time.
    private var count = 0
    private var wrong: String?

    func add(_ line: String) {
        if wrong == nil, !line.hasPrefix("{\"n\":\(count),") { wrong = "line \(count) is \(line.prefix(40))" }
        count += 1
    }

    func problem() -> String? {
        wrong ?? (count > 0 ? nil : "no lines")
    }
}

/// What the raw client does with the body's chunks, on the session's delegate queue.
class StreamConsumer: @unchecked Sendable {
    // @unchecked: called on the session's serial delegate queue only.
    func feed(_ data: Data) {}
    func problem() -> String? { nil }
}

/// Only counts the bytes: the transport's own speed.
final class ByteCount: StreamConsumer, @unchecked Sendable {
    // @unchecked: see `StreamConsumer`.
    private(set) var total = 0
    override func feed(_ data: Data) { total += data.count }
}

/// What an app writes by hand for Server-Sent Events: lines split on `\n`, `id` and
/// `data` fields kept as strings, an event built at each blank line.
private final class HandWrittenEvents: StreamConsumer, @unchecked Sendable {
    // @unchecked: see `StreamConsumer`.
    private let expected: Int
    private var pending: [UInt8] = []
    private var id: String?
    private var data = ""
    private var count = 0
    private var lastID: String?

    init(expecting expected: Int) {
        self.expected = expected
    }

    override func feed(_ chunk: Data) {
        pending.append(contentsOf: chunk)
        var start = 0
        while let end = pending[start...].firstIndex(of: 0x0A) {
            line(pending[start..<end])
            start = end + 1
        }
        pending.removeFirst(start)
    }

    private func line(_ bytes: ArraySlice<UInt8>) {
        if bytes.isEmpty {
            if !data.isEmpty {
                count += 1
                lastID = id
                data = ""
            }
        } else if bytes.starts(with: Array("data: ".utf8)) {
            data += String(decoding: bytes.dropFirst(6), as: UTF8.self)
        } else if bytes.starts(with: Array("id: ".utf8)) {
            id = String(decoding: bytes.dropFirst(4), as: UTF8.self)
        }
    }

    override func problem() -> String? {
        count == expected && lastID == "\(expected)" ? nil : "\(count) events, last id \(lastID ?? "-")"
    }
}

/// What an app writes by hand for NDJSON lines: split on `\n`, each line a string.
private final class HandWrittenLines: StreamConsumer, @unchecked Sendable {
    // @unchecked: see `StreamConsumer`.
    private var pending: [UInt8] = []
    private let tally = LineTally()

    override func feed(_ chunk: Data) {
        pending.append(contentsOf: chunk)
        var start = 0
        while let end = pending[start...].firstIndex(of: 0x0A) {
            tally.add(String(decoding: pending[start..<end], as: UTF8.self))
            start = end + 1
        }
        pending.removeFirst(start)
    }

    override func problem() -> String? { tally.problem() }
}

/// Raw URLSession streaming: a delegate data task per stream, on a session configured as
/// Leash's transport configures its own, with the default delegate queue.
final class RawStreamClient: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: `running` is behind `lock`; a consumer is used on the delegate queue only.
    private let baseURL: URL
    private var session: URLSession!
    private let lock = NSLock()
    private var running: [Int: (consumer: StreamConsumer, completion: @Sendable (String?) -> Void)] = [:]

    init(baseURL: URL) {
        self.baseURL = baseURL
        super.init()
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    func stream(_ path: String, into consumer: StreamConsumer, completion: @escaping @Sendable (String?) -> Void) {
        let url = URL(string: path, relativeTo: baseURL)?.absoluteURL ?? baseURL
        let task = session.dataTask(with: URLRequest(url: url))
        lock.withLock { running[task.taskIdentifier] = (consumer, completion) }
        task.resume()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { running[dataTask.taskIdentifier]?.consumer }?.feed(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let entry = lock.withLock { running.removeValue(forKey: task.taskIdentifier) }
        let status = (task.response as? HTTPURLResponse)?.statusCode
        if let error { return entry?.completion("\(error)") ?? () }
        entry?.completion(status == 200 ? nil : "status \(status.map(String.init) ?? "none")")
    }
}
