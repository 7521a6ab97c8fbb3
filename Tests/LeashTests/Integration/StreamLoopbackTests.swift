import Dispatch
import Foundation
import Leash
import LeashTestSupport
import LoopbackServer
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Streams over the default `URLSessionTransport`, against `LoopbackServer`: chunks as
/// they are written, NDJSON lines, Server-Sent Events with reconnection, faults, a slow
/// subscriber, and dispose closing the connection.
final class StreamLoopbackTests: LoopbackIntegrationCase {
    private struct Item: Codable, Equatable {
        let index: Int
        let name: String
    }

    private struct Tick: Codable, Equatable {
        let n: Int
    }

    /// How long a disconnect may take to reach the server: URLSession's `cancel()` waits
    /// for its queue, which a fast stream keeps busy; under ThreadSanitizer that took
    /// more than 5 s once.
    private var disconnectTimeout: TimeInterval { specIsThreadSanitized ? 30 : 5 }

    private func items(_ range: Range<Int>) -> [Item] {
        range.map { Item(index: $0, name: "item-\($0)") }
    }

    // MARK: Chunks

    func testStream_deliversAChunkWhileTheServerIsStillWriting() throws {
        let firstArrived = DispatchSemaphore(value: 0)
        let mayFinish = DispatchSemaphore(value: 0)
        _ = server.route(
            "GET", "/live",
            response: .streamed(headers: ["Content-Type": "text/plain"]) { writer in
                writer.write("first")
                // The server holds the rest until the client has the first chunk.
                _ = mayFinish.wait(timeout: .now() + 10)
                writer.write("second")
            })
        let client = try makeClient()
        let received = PipelineLikeLog()

        let done = expectation(description: "completed")
        let subscription = client.chunkStream(SpecEndpoint("/live")).subscribe(
            onNext: { chunk in
                received.append(String(decoding: chunk, as: UTF8.self))
                if received.count == 1 { firstArrived.signal() }
            },
            onError: { XCTFail("\($0)") }, onCompleted: { done.fulfill() })
        XCTAssertEqual(firstArrived.wait(timeout: .now() + 10), .success, "the first chunk came before the body ended")
        XCTAssertEqual(received.all, ["first"])
        mayFinish.signal()
        wait(for: [done], timeout: 10)
        XCTAssertEqual(received.all.joined(), "firstsecond")
        subscription.dispose()
    }

    func testStream_givesEveryByteInOrder() throws {
        let client = try makeClient()

        let chunks = try client.chunkStream(SpecEndpoint("/stream/chunks?count=40&size=1000"))
            .toBlocking(timeout: 10).toArray()

        XCTAssertEqual(chunks.reduce(Data(), +), LoopbackServer.patternBytes(in: 0..<40_000))
    }

    /// Small bodies end as soon as they start: URLSession finishes the task before the
    /// delivery queue has handed on its head and chunks, which must still come (a race that
    /// once dropped them, completing streams empty).
    func testStream_bodiesThatEndAtOnce_deliverEveryByte_everyTime() throws {
        _ = server.route(
            "GET", "/small",
            response: LoopbackResponse(headers: ["Content-Type": "text/plain"], body: Data("hi\n".utf8)))
        let client = try makeClient()

        for round in 0..<200 {
            let lines = try client.lineStream(SpecEndpoint("/small"), as: String.self).toBlocking(timeout: 10)
                .toArray()
            XCTAssertEqual(lines, ["hi"], "round \(round)")
            if lines != ["hi"] { break }
        }
    }

    func testStream_disposing_closesTheConnection_andTheServerSeesIt() throws {
        let client = try makeClient()

        let chunks = try client.chunkStream(SpecEndpoint("/stream/chunks?count=0&forever=1&size=100&interval=5"))
            .take(3).toBlocking(timeout: 10).toArray()

        XCTAssertEqual(chunks.count, 3)
        waitForServer("the client to disconnect", timeout: disconnectTimeout) { $0.clientDisconnectCount >= 1 }
    }

    func testStream_aStallLongerThanTheManagersTimeout_endsItWithATimeout() throws {
        let client = try makeClient { $0.timeout(1) }
        let started = Date()

        let result = client.chunkStream(SpecEndpoint("/stream/chunks?count=3&size=10&interval=4000"))
            .toBlocking(timeout: 10).materialize()

        guard case .failed(let elements, let error) = result else { return XCTFail("expected a failure") }
        XCTAssertEqual(elements.count, 1, "the first chunk, then 4 s of silence")
        guard case .timeout(let seconds)? = error as? LeashError else { return XCTFail("got \(error)") }
        XCTAssertEqual(seconds, 1)
        XCTAssertLessThan(Date().timeIntervalSince(started), 3.5, "not the 8 s the stream would take")
    }

    /// A subscriber busy in `onNext` for as long as the test needs, on a stream that never
    /// ends: `blocked` is signalled when it is stuck in its first chunk, `release` frees it.
    /// An execution event in a word, for timelines.
    private static func stepName<Value>(_ event: ExecutionEvent<Value>) -> String {
        switch event {
        case .requestPrepared: return "prepared"
        case .requestSent: return "sent"
        case .uploadProgress: return "upload progress"
        case .downloadProgress: return "download progress"
        case .responseReceived(let response, _, _): return "response \(response.statusCode)"
        case .retrying(let attempt): return "retrying (attempt \(attempt))"
        case .value: return "value"
        }
    }

    private final class StuckSubscriber: @unchecked Sendable {
        // @unchecked: the counts are behind `lock`; the semaphores are thread-safe.
        let blocked = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var chunks = 0
        private var failure: Swift.Error?
        private var firstOnTheJudgesQueue = false

        var chunkCount: Int { lock.withLock { chunks } }
        var error: Swift.Error? { lock.withLock { failure } }
        /// Whether the first chunk came from `LateJudge`'s queue (kept while the head was
        /// judged, then handed on from there).
        var isStuckOnTheJudgesQueue: Bool { lock.withLock { firstOnTheJudgesQueue } }

        /// Told how the stream ended (nil: completed), from the thread it ended on.
        var onEnd: (@Sendable (Swift.Error?) -> Void)? {
            get { lock.withLock { endHandler } }
            set { lock.withLock { endHandler = newValue } }
        }
        private var endHandler: (@Sendable (Swift.Error?) -> Void)?

        func subscribe(_ client: Client, path: String = "/stream/chunks?count=0&forever=1&size=65536") -> Disposable {
            client.chunkStream(SpecEndpoint(path)).subscribe(
                onNext: { [self] _ in
                    let onTheJudgesQueue = DispatchQueue.getSpecific(key: LateJudge.queueKey) != nil
                    let first = lock.withLock { () -> Bool in
                        chunks += 1
                        if chunks == 1 { firstOnTheJudgesQueue = onTheJudgesQueue }
                        return chunks == 1
                    }
                    guard first else { return }
                    blocked.signal()
                    _ = release.wait(timeout: .now() + 120)
                },
                onError: { [self] error in
                    lock.withLock { failure = error }
                    onEnd?(error)
                    ended.signal()
                },
                onCompleted: { [self] in
                    onEnd?(nil)
                    ended.signal()
                })
        }
    }

    /// A success interceptor that judges a stream's head later, from a queue of its own,
    /// once the server stopped writing (the client stopped reading: it holds back what it
    /// keeps while the head is judged, or the body ended), so that chunks wait for the
    /// judgement whatever the sockets' buffers hold: the stream's subscriber is then fed
    /// from that queue. Other heads are judged at once (a subscriber stuck on the queue
    /// holds up what else runs there).
    private final class LateJudge: SuccessInterceptor, @unchecked Sendable {
        // @unchecked: immutable; the server is thread-safe.
        static let queueKey = DispatchSpecificKey<Void>()
        private let server: LoopbackServer
        private let queue = DispatchQueue(label: "late-judge")

        init(server: LoopbackServer) {
            self.server = server
            queue.setSpecific(key: Self.queueKey, value: ())
        }

        func intercept(chain: InterceptorChain<Data>, response: HTTPURLResponse, data: Data) {
            guard response.url?.path.hasPrefix("/stream/") == true else { return chain.proceed() }
            queue.async { [server] in
                // Until the counter stands still for a quarter of a second (a stall is what
                // is awaited here, not a result); at most 10 s.
                var written = server.counters.responseBodyBytes
                let deadline = Date(timeIntervalSinceNow: 10)
                while Date() < deadline,
                    written == 0 || server.waitUntil(timeout: 0.25, { $0.responseBodyBytes != written })
                {
                    written = server.counters.responseBodyBytes
                }
                chain.proceed()
            }
        }
    }

    /// How far the server got once its counter stopped moving (it stops when TCP holds it,
    /// or when the client has gone): a measurement of a stalled writer, polled.
    private func settledServerBytes() -> (bytes: Int, settled: Bool) {
        var written = server.counters.responseBodyBytes
        var steadyReads = 0
        let deadline = Date().addingTimeInterval(10)
        while steadyReads < 3 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            let now = server.counters.responseBodyBytes
            steadyReads = now == written ? steadyReads + 1 : 0
            written = now
        }
        return (written, steadyReads == 3)
    }

    /// Linux's default (`SlowSubscriberPolicy.platformDefault` there, set here so that a
    /// build taking Apple platforms' branches tests it too): a subscriber stuck in a chunk
    /// holds the connection back for half a second at most, then its stream ends (the
    /// connection closes) and it gets `streamOverflow` once it goes on; a request made
    /// meanwhile waits no longer than that hold.
    func testStream_aStuckSubscriber_endsItsStreamAfterTheLongestHold_andOtherRequestsGoOn() throws {
        try skipIfSuspendingHoldsBack()
        let client = try makeClient {
            $0.transport(URLSessionTransport(slowSubscribers: SlowSubscriberPolicy(longestHold: 0.5)))
        }
        let subscriber = StuckSubscriber()
        let subscription = subscriber.subscribe(client)
        defer { subscription.dispose() }
        XCTAssertEqual(subscriber.blocked.wait(timeout: .now() + 10), .success)

        let started = Date()
        // When each step of the other request and the stream's end came, for the failure
        // message: this once took 43 s under ThreadSanitizer in CI, and a bare duration does
        // not say where it went.
        let timeline = SpecLocked<[String]>([])
        let mark: @Sendable (String) -> Void = { step in
            timeline.withLock { $0.append(String(format: "%.3f s %@", Date().timeIntervalSince(started), step)) }
        }
        subscriber.onEnd = { mark("the stream ended (\(String(describing: $0)))") }
        let execution = client.specExecute(SpecEndpoint("/json"), serializer: DataResponseSerializer())
        let other = try SpecExecution(
            events: execution.events.do(
                onNext: { mark("other: \(Self.stepName($0))") }, onError: { mark("other failed: \($0)") },
                onCompleted: { mark("other completed") })
        ).toBlockingResult(timeout: 90)
        XCTAssertNotNil(other.value)
        // The hold (0.5 s), then the flood of the stream's bytes that the cancel races inside
        // FoundationNetworking before the other request is served: seconds under
        // ThreadSanitizer, 43 s once and 12.6 s once on a loaded CI machine. Without the
        // longest hold, the request would wait the subscriber's 120 s.
        XCTAssertLessThan(
            Date().timeIntervalSince(started), 60,
            "another request went through while the stream waited; what happened when:\n"
                + timeline.withLock { $0 }.joined(separator: "\n"))
        // Past the limit the client cancels the task; the server sees the connection close.
        waitForServer("the client to close the connection", timeout: disconnectTimeout) {
            $0.clientDisconnectCount >= 1
        }

        subscriber.release.signal()
        XCTAssertEqual(subscriber.ended.wait(timeout: .now() + 10), .success)
        guard case .streamOverflow(let bytes)? = subscriber.error as? LeashError else {
            return XCTFail("expected streamOverflow, got \(String(describing: subscriber.error))")
        }
        XCTAssertGreaterThan(bytes, 1 << 20)
        XCTAssertLessThan(bytes, 2 << 20, "no more than the limit and a chunk waited")
        XCTAssertLessThanOrEqual(subscriber.chunkCount, 1 + bytes / 16_384 + 1, "no chunk after the overflow")
    }

    /// As above, with the head judged by a success interceptor that calls back later from
    /// its own queue: the chunks that came meanwhile are kept by the pipeline, then handed
    /// on from that queue, where the subscriber gets stuck. They must still count as
    /// waiting for it: once they were counted as taken when kept, the transport never held
    /// the connection back nor ended the stream, and the body piled up in memory as fast as
    /// the server wrote it (a finite body here, 50 MB, so that the old behaviour ends).
    func testStream_aSubscriberStuckWhereAnInterceptorCalledBack_stillEndsItsStreamAfterTheLongestHold() throws {
        try skipIfSuspendingHoldsBack()
        // A hold long enough for the judge to see the server stop, and proceed, within it.
        let client = try makeClient {
            $0.transport(URLSessionTransport(slowSubscribers: SlowSubscriberPolicy(longestHold: 3)))
                .add(interceptor: LateJudge(server: server))
        }
        let subscriber = StuckSubscriber()
        let subscription = subscriber.subscribe(client, path: "/stream/chunks?count=800&size=65536")
        defer { subscription.dispose() }
        XCTAssertEqual(subscriber.blocked.wait(timeout: .now() + 20), .success)
        XCTAssertTrue(subscriber.isStuckOnTheJudgesQueue, "the chunks kept while the head was judged came from there")

        let other = try client.specExecute(SpecEndpoint("/json"), serializer: DataResponseSerializer())
            .toBlockingResult(timeout: 20)
        XCTAssertNotNil(other.value)

        subscriber.release.signal()
        XCTAssertEqual(subscriber.ended.wait(timeout: .now() + 10), .success)
        // Before the fix the stream completed: every chunk of the body, held in memory
        // meanwhile, then went to the subscriber.
        guard case .streamOverflow(let bytes)? = subscriber.error as? LeashError else {
            return XCTFail("expected streamOverflow, got \(String(describing: subscriber.error))")
        }
        XCTAssertGreaterThan(bytes, 1 << 20)
        XCTAssertLessThan(bytes, 2 << 20, "no more than the limit and a chunk waited")
        XCTAssertLessThanOrEqual(subscriber.chunkCount, 1 + bytes / 16_384 + 1, "no chunk after the overflow")
    }

    /// `SlowSubscriberPolicy.holdBack`: a subscriber that stops taking chunks holds the
    /// connection back: the server can write only what fits in the 1 MB waiting and the
    /// sockets' buffers, not the gigabytes it would otherwise; the subscriber then goes on.
    /// (On Linux this also holds up every other URLSession request of the process, which
    /// is why it is not the default there.)
    func testStream_holdingBack_aBlockedSubscriber_holdsTheServerBack() throws {
        try skipIfSuspendingHoldsBack()
        let client = try makeClient {
            $0.transport(URLSessionTransport(slowSubscribers: .holdBack))
        }
        let subscriber = StuckSubscriber()
        let subscription = subscriber.subscribe(client)
        defer { subscription.dispose() }
        XCTAssertEqual(subscriber.blocked.wait(timeout: .now() + 10), .success)

        let (written, settled) = settledServerBytes()
        XCTAssertTrue(settled, "the server stopped writing")
        XCTAssertLessThan(written, 48 << 20, "at most the waiting limit and the sockets' buffers (\(written) bytes)")

        subscriber.release.signal()
        let more = Date().addingTimeInterval(10)
        while subscriber.chunkCount < 200 && Date() < more { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertGreaterThanOrEqual(subscriber.chunkCount, 200, "the stream went on once the subscriber did")
        XCTAssertNil(subscriber.error)
    }

    // MARK: Lines

    func testLines_decodesNDJSON_splitAcrossChunks_withCRLF() throws {
        let client = try makeClient()

        let lines = try client.lineStream(SpecEndpoint("/ndjson?count=50&split=1&crlf=1"), as: Item.self)
            .toBlocking(timeout: 10).toArray()

        XCTAssertEqual(lines, items(0..<50))
    }

    func testLines_cutMidLine_deliversTheCompleteLines_thenTheTransportError() throws {
        let client = try makeClient()

        let result = client.lineStream(SpecEndpoint("/ndjson?count=10&dropAfter=3"), as: Item.self)
            .toBlocking(timeout: 10).materialize()

        guard case .failed(let lines, let error) = result else { return XCTFail("expected a failure") }
        XCTAssertEqual(lines, items(0..<3))
        guard case .transport? = error as? LeashError else { return XCTFail("got \(error)") }
    }

    func testLines_aBadLine_failsWithItsNumber_afterTheGoodOnes() throws {
        let client = try makeClient()

        let result = client.lineStream(SpecEndpoint("/ndjson?count=5&bad=2"), as: Item.self)
            .toBlocking(timeout: 10).materialize()

        guard case .failed(let lines, let error) = result else { return XCTFail("expected a failure") }
        XCTAssertEqual(lines, items(0..<2))
        guard case .decoding(let type, _, let excerpt)? = error as? LeashError else { return XCTFail("got \(error)") }
        XCTAssertTrue(type.contains("line 3"), type)
        XCTAssertTrue(excerpt.hasPrefix("line 3: {\"index\":2,"), excerpt)
    }

    func testLines_anEndlessLine_failsAtTheLimit_andClosesTheConnection() throws {
        try skipIfSuspendingHoldsBack()
        let client = try makeClient()

        let result = client.lineStream(
            SpecEndpoint("/ndjson/endless"), as: String.self, maximumLineLength: 1 << 20
        ).toBlocking(timeout: 10).materialize()

        guard case .failed(let lines, let error) = result else { return XCTFail("expected a failure") }
        XCTAssertTrue(lines.isEmpty)
        guard case .invalidResponse(let reason)? = error as? LeashError else { return XCTFail("got \(error)") }
        XCTAssertTrue(reason.contains("1048576"), reason)
        waitForServer("the client to disconnect", timeout: disconnectTimeout) { $0.clientDisconnectCount >= 1 }
    }

    // MARK: Server-Sent Events

    func testServerSentEvents_reconnect_continuingAfterTheLastEventID() throws {
        let client = try makeClient()

        let events = try client.serverSentEventStream(
            SpecEndpoint("/sse?count=3&retry=50&comments=1&multiline=1"),
            options: ServerSentEventOptions(reconnecting: true)
        ).take(7).toBlocking(timeout: 10).toArray()

        XCTAssertEqual(events.map(\.id), (1...7).map { "\($0)" })
        XCTAssertEqual(events[4].data, "line one of 5\nline two of 5")
        XCTAssertEqual(events.map(\.event), Array(repeating: "message", count: 7))
        let sent = server.requestLog.filter { $0.path == "/sse" }.map { $0.headers["Last-Event-ID"] }
        XCTAssertEqual(Array(sent.prefix(3)), [nil, "3", "6"])
    }

    func testServerSentEvents_204_endsTheReconnections() throws {
        let client = try makeClient()

        let events = try client.serverSentEventStream(
            SpecEndpoint("/sse?count=2&retry=20&endAt=4"), decoding: Tick.self,
            options: ServerSentEventOptions(reconnecting: true)
        ).toBlocking(timeout: 10).toArray()

        XCTAssertEqual(events, (1...4).map { Tick(n: $0) })
        XCTAssertEqual(server.requestLog.filter { $0.path == "/sse" }.count, 3)
    }

    func testServerSentEvents_anotherContentType_isATypedError() throws {
        let client = try makeClient()

        let result = client.serverSentEventStream(SpecEndpoint("/sse?contentType=application/json"))
            .toBlocking(timeout: 10).materialize()

        guard case .failed(_, let error) = result, case .invalidResponse(let reason)? = error as? LeashError else {
            return XCTFail("expected invalidResponse, got \(result)")
        }
        XCTAssertTrue(reason.contains("application/json"), reason)
    }

    func testServerSentEvents_cutMidEvent_withoutReconnecting_failsAfterTheCompleteOnes() throws {
        let client = try makeClient()

        let result = client.serverSentEventStream(SpecEndpoint("/sse?count=5&dropAfter=2"))
            .toBlocking(timeout: 10).materialize()

        guard case .failed(let events, let error) = result else { return XCTFail("expected a failure") }
        XCTAssertEqual(events.map(\.id), ["1", "2"])
        guard case .transport? = error as? LeashError else { return XCTFail("got \(error)") }
    }

    // MARK: async

    func testAsync_serverSentEvents_leavingTheLoop_closesTheConnection() async throws {
        let client = try makeClient()
        var ids: [String] = []

        for try await event in client.serverSentEvents(
            SpecEndpoint("/sse?count=1000&interval=5"), options: ServerSentEventOptions(reconnecting: true))
        {
            ids.append(event.id ?? "")
            if ids.count == 3 { break }
        }

        XCTAssertEqual(ids, ["1", "2", "3"])
        waitForServer("the client to disconnect", timeout: disconnectTimeout) { $0.clientDisconnectCount >= 1 }
    }

    func testAsync_lines_endWithTheBody() async throws {
        let client = try makeClient()
        var lines: [Item] = []

        for try await line in client.lines(SpecEndpoint("/ndjson?count=30&split=1"), as: Item.self) {
            lines.append(line)
        }

        XCTAssertEqual(lines, items(0..<30))
    }

    func testAsync_stream_cancellingTheTask_endsTheLoop_andClosesTheConnection() async throws {
        let client = try makeClient()
        let firstChunk = expectation(description: "first chunk")
        let task = Task {
            var count = 0
            for try await _ in client.stream(SpecEndpoint("/stream/chunks?count=0&forever=1&size=10&interval=10")) {
                count += 1
                if count == 1 { firstChunk.fulfill() }
            }
            return count
        }
        await fulfillment(of: [firstChunk], timeout: 10)
        task.cancel()

        let count = try await task.value
        XCTAssertGreaterThanOrEqual(count, 1)
        waitForServer("the client to disconnect", timeout: disconnectTimeout) { $0.clientDisconnectCount >= 1 }
    }
}

/// A thread-safe list of what a callback saw, in order.
private final class PipelineLikeLog: @unchecked Sendable {
    // @unchecked: the entries are behind `lock`.
    private let lock = NSLock()
    private var entries: [String] = []

    func append(_ entry: String) { lock.withLock { entries.append(entry) } }
    var all: [String] { lock.withLock { entries } }
    var count: Int { lock.withLock { entries.count } }
}

extension StreamLoopbackTests {
    /// Apple platforms hold a stream back by suspending its task, which FoundationNetworking
    /// cannot do to a running transfer (measured: 111 MB still arrived): a Linux build
    /// taking Apple's branches (`-DLEASH_APPLE_BRANCHES`) skips the tests that count bytes
    /// against a server, and the endless-line test, whose flood (2.7 GB in 5 s in one CI
    /// run) then delays the cancel past any fair bound. `StreamBacklogTests` covers that
    /// branch's logic; the line limit is tested in the Linux build.
    fileprivate func skipIfSuspendingHoldsBack() throws {
        #if LEASH_APPLE_BRANCHES
            throw XCTSkip("FoundationNetworking's suspend() does not pause a running transfer")
        #endif
    }
}
