import Foundation
import LeashTestSupport
import LoopbackServer
import Rx
import RxTesting
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `HTTP1Transport` behind a `FaultProxy`: a response cut in its head, reset, stalled or cut
/// inside a chunk, and a kept-alive connection dropped under a POST, each end the execution
/// exactly once with the typed error that says what happened (never a crash, never a
/// success), and the server saw the request exactly once (nothing was sent again).
final class HTTP1FaultTests: LoopbackIntegrationCase {
    private struct Note: Encodable {
        let text: String
    }

    /// A 5,000-byte JSON body.
    private static let note = Note(text: String(repeating: "n", count: 4_988))

    /// The status line the server writes for a 200.
    private static let statusLine = "HTTP/1.1 200 OK\r\n"

    private var transport: HTTP1Transport!

    override func setUpWithError() throws {
        try super.setUpWithError()
        transport = HTTP1Integration.transport()
    }

    override func tearDown() {
        transport = nil
        super.tearDown()
    }

    /// A proxy in front of the server with `plan`, stopped when the test ends.
    private func proxy(_ plan: FaultPlan) throws -> FaultProxy {
        let proxy = try FaultProxy(in: server, plan: plan)
        addTeardownBlock { proxy.stop() }
        return proxy
    }

    /// A client of `proxy` on the test's `HTTP1Transport`, with an execution `timeout`.
    private func client(through proxy: FaultProxy, timeout: TimeInterval = 5) throws -> Client {
        Client(
            manager: try Manager.Builder().url(proxy.baseURL).transport(transport).transferDirectory(transfersFolder)
                .timeout(timeout).build())
    }

    /// Installs `response` at `path`, counting the requests it answers.
    private func counted(_ path: String, _ response: LoopbackResponse) -> SpecLocked<Int> {
        let count = SpecLocked(0)
        server.route(nil, path) { _ in
            count.withLock { $0 += 1 }
            return response
        }
        return count
    }

    /// What every faulted execution must show: one end, one request sent and no retry, no
    /// value, and the server (and the proxy) saw the request exactly once.
    private func assertEndedOnceWithoutValue<Value>(
        _ run: HTTP1Integration.Run<Value>, served: SpecLocked<Int>, proxy: FaultProxy, path: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(run.ends, 1, "terminal events", file: file, line: line)
        XCTAssertNil(run.value, "a faulted response gave a value", file: file, line: line)
        XCTAssertEqual(run.sent, 1, "requests sent", file: file, line: line)
        XCTAssertEqual(run.retries, 0, "retries", file: file, line: line)
        XCTAssertEqual(served.value, 1, "the server answered the request this many times", file: file, line: line)
        XCTAssertEqual(
            proxy.sightings.filter { $0.target == path }.count, 1, "the proxy saw the request this many times",
            file: file, line: line)
    }

    // MARK: (a) a clean close inside the head

    func testACloseRightAfterTheStatusLine_endsOnceAsLost_sayingHowMuchOfTheHeadCame() throws {
        let served = counted("/head-cut", .json(Data(#"{"ok":true}"#.utf8)).header("X-Padding", "abcdefghij"))
        let cut = Self.statusLine.utf8.count
        let proxy = try proxy(.always(.closeInHead(after: cut)))

        let run = HTTP1Integration.run(try client(through: proxy), SpecEndpoint("/head-cut"), DataResponseSerializer())

        assertEndedOnceWithoutValue(run, served: served, proxy: proxy, path: "/head-cut")
        let error = try XCTUnwrap(run.transportError())
        XCTAssertEqual(error.code, .networkConnectionLost)
        XCTAssertEqual(
            error.localizedDescription,
            "The connection closed after \(cut) bytes of the response head, before it was complete.")
        XCTAssertEqual(
            (error.userInfo[NSUnderlyingErrorKey] as? HTTP1ResponseError), .closedInsideHead(receivedBytes: cut))
    }

    func testACloseInTheMiddleOfAHeaderLine_endsOnceAsLost_sayingHowMuchOfTheHeadCame() throws {
        let served = counted("/head-cut", .json(Data(#"{"ok":true}"#.utf8)).header("X-Padding", "abcdefghij"))
        // The status line and 6 bytes of the first header line.
        let cut = Self.statusLine.utf8.count + 6
        let proxy = try proxy(.always(.closeInHead(after: cut)))

        let run = HTTP1Integration.run(try client(through: proxy), SpecEndpoint("/head-cut"), DataResponseSerializer())

        assertEndedOnceWithoutValue(run, served: served, proxy: proxy, path: "/head-cut")
        let error = try XCTUnwrap(run.transportError())
        XCTAssertEqual(error.code, .networkConnectionLost)
        XCTAssertEqual(
            error.localizedDescription,
            "The connection closed after \(cut) bytes of the response head, before it was complete.")
    }

    // MARK: (b) a reset during the response

    func testAResetInsideTheBody_endsOnceAsLost_sayingTheConnectionWasReset() throws {
        let served = counted("/reset", LoopbackResponse(body: Data(repeating: 0x61, count: 2_000)))
        let proxy = try proxy(.always(.resetInBody(after: 100)))

        let run = HTTP1Integration.run(try client(through: proxy), SpecEndpoint("/reset"), DataResponseSerializer())

        assertEndedOnceWithoutValue(run, served: served, proxy: proxy, path: "/reset")
        let error = try XCTUnwrap(run.transportError())
        XCTAssertEqual(error.code, .networkConnectionLost)
        // What happened: the peer reset the connection (ECONNRESET), in the words the system uses.
        XCTAssertTrue(
            error.localizedDescription.lowercased().contains("reset"),
            "the description does not say the connection was reset: \(error.localizedDescription)")
        XCTAssertEqual((error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code, Int(ECONNRESET), "\(error.userInfo)")
    }

    // MARK: (c) a stall

    func testAStalledResponse_endsOnceWithTheExecutionsTimeout_andItsConnectionIsClosed() throws {
        let served = counted("/stall", LoopbackResponse(body: Data(repeating: 0x62, count: 2_000)))
        // The head and a little of the body come, then nothing.
        let proxy = try proxy(.always(.stall(after: 300, .response)))
        let started = Date()

        let run = HTTP1Integration.run(
            try client(through: proxy, timeout: 0.4), SpecEndpoint("/stall"), DataResponseSerializer())

        assertEndedOnceWithoutValue(run, served: served, proxy: proxy, path: "/stall")
        guard case .timeout(let seconds)? = run.error as? LeashError else {
            return XCTFail("expected LeashError.timeout, got \(String(describing: run.error))")
        }
        XCTAssertEqual(seconds, 0.4)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.4)
        // The timeout closed the connection (not kept for another request): the proxy sees
        // the client go, and the pool holds nothing.
        XCTAssertTrue(proxy.waitForConnections(timeout: 5) { $0.map(\.ending) == [.clientClosed] })
        XCTAssertTrue(HTTP1Integration.eventually { self.transport.pool.counts == (idle: 0, busy: 0) })
    }

    // MARK: (d) a chunked body cut inside a chunk

    func testAChunkedBodyCutInsideAChunk_endsOnceAsLost_sayingHowMuchOfTheBodyCame() throws {
        let body = Data(repeating: 0x63, count: 2_000)
        let served = counted("/chunked", LoopbackResponse(body: body).chunked(size: 500))
        // The first chunk is "1f4\r\n", 500 bytes and "\r\n" (507 bytes); the cut falls 188
        // bytes into the second chunk's data, after its "1f4\r\n".
        let proxy = try proxy(.always(.truncateBody(after: 700)))

        let run = HTTP1Integration.run(try client(through: proxy), SpecEndpoint("/chunked"), DataResponseSerializer())

        assertEndedOnceWithoutValue(run, served: served, proxy: proxy, path: "/chunked")
        let error = try XCTUnwrap(run.transportError())
        XCTAssertEqual(error.code, .networkConnectionLost)
        XCTAssertEqual(
            error.localizedDescription, "The connection closed inside the chunked response body, after 688 bytes of it."
        )
    }

    // MARK: (e) a kept-alive connection dropped under a POST

    func testAPostWhoseKeptAliveConnectionClosesBeforeAnyAnswer_failsAsLost_andTheServerGotItOnceWhole() throws {
        let posted = SpecLocked<[(contentLength: String?, body: Data)]>([])
        server.route("POST", "/notes") { request in
            posted.withLock { $0.append((request.headers["Content-Length"], request.body)) }
            return .json(Data(#"{"saved":true}"#.utf8))
        }
        // The second request of the first connection loses its answer: the server did the
        // work, the proxy closes the connection at the answer's first byte.
        let proxy = try proxy(.only(.close(after: 0, .response), connection: 0, request: 1))
        let client = try client(through: proxy)
        XCTAssertNotNil(HTTP1Integration.run(client, SpecEndpoint("/json"), DataResponseSerializer()).value)
        // The answer is reported before its connection is back in the pool (see
        // `HTTP1ConnectionReuseTests`): the POST must find it there.
        XCTAssertTrue(HTTP1Integration.eventually { self.transport.pool.counts == (idle: 1, busy: 0) })

        let run = HTTP1Integration.run(
            client, SpecEndpoint("/notes", method: .post, parameters: Self.note), DataResponseSerializer())

        XCTAssertEqual(run.ends, 1)
        XCTAssertNil(run.value, "the answer was lost: no success; the proxy saw \(proxy.sightings)")
        XCTAssertEqual(run.sent, 1)
        let error = try XCTUnwrap(run.transportError())
        XCTAssertEqual(error.code, .networkConnectionLost)
        XCTAssertTrue(error.localizedDescription.contains("not sent again"), error.localizedDescription)
        // It went on the kept-alive connection, and was not sent again on another one.
        XCTAssertEqual(proxy.acceptedCount, 1)
        XCTAssertEqual(
            proxy.sightings.map { "\($0.connection).\($0.indexOnConnection) \($0.method) \($0.target)" },
            ["0.0 GET /json", "0.1 POST /notes"])
        // The server saw the POST once, with its whole body.
        let expected = try JSONEncoder().encode(Self.note)
        let received = posted.value
        XCTAssertEqual(received.count, 1)
        XCTAssertEqual(received.first?.contentLength, String(expected.count))
        XCTAssertEqual(received.first?.body.count, expected.count)
        XCTAssertEqual(received.first?.body, expected)
    }
}
