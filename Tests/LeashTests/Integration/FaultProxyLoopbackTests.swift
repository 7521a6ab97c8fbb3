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

/// Executions through `FaultProxy`: a write whose answer is lost on a kept-alive connection,
/// and each fault the proxy can do ending an execution once, with a typed error.
final class FaultProxyLoopbackTests: LoopbackIntegrationCase {
    private struct Note: Encodable {
        let text: String
    }

    /// A 5,000-byte JSON body.
    private static let note = Note(text: String(repeating: "n", count: 4_988))

    private func proxy(_ plan: FaultPlan) throws -> FaultProxy {
        let proxy = try FaultProxy(in: server, plan: plan)
        addTeardownBlock { proxy.stop() }
        return proxy
    }

    private func client(through proxy: FaultProxy, timeout: TimeInterval = 10) throws -> Client {
        Client(
            manager: try Manager.Builder().url(proxy.baseURL).transferDirectory(transfersFolder).timeout(timeout)
                .build())
    }

    /// A route that answers every request at once, without waiting for its body: what a
    /// server does with the copy URLSession sends without one (the issue's server waited
    /// 2 s for the body, then answered 200).
    private func routeAnsweringWithoutTheBody() -> SpecLocked<[String]> {
        let lengths = SpecLocked<[String]>([])
        server.route(
            .streaming("POST", "/notes") { request, _ in
                lengths.withLock { $0.append(request.headers["Content-Length"] ?? "none") }
                return .json(Data(#"{"saved":true}"#.utf8))
            })
        return lengths
    }

    /// The second request of the first connection loses its answer: the server did the
    /// work, the proxy closes the connection at the answer's first byte.
    private static let lostSecondAnswer = FaultPlan.only(.close(after: 0, .response), connection: 0, request: 1)

    func testAPostWhoseAnswerIsLostOnAKeptAliveConnection_failsAsLost_neverSucceedsWithAnEmptyCopy() throws {
        let sent = routeAnsweringWithoutTheBody()
        let proxy = try proxy(Self.lostSecondAnswer)
        let client = try client(through: proxy)
        XCTAssertNotNil(try outcome(client, SpecEndpoint("/json"), DataResponseSerializer()).value)

        let response = try outcome(
            client, SpecEndpoint("/notes", method: .post, parameters: Self.note), DataResponseSerializer())

        XCTAssertNil(response.value, "the answer to a copy sent without its body is no success")
        let error = try XCTUnwrap(transportError(response))
        XCTAssertEqual(error.code, .networkConnectionLost)
        XCTAssertTrue(error.localizedDescription.contains("not sent again"), error.localizedDescription)
        // The server got the first copy (its answer was the one lost). The empty copy's head
        // may reach the proxy, or even the server, before the cancel lands: no count of it
        // is asserted, only that its answer never became the execution's.
        XCTAssertFalse(sent.withLock { $0.isEmpty })
    }

    func testAFileUploadWhoseAnswerIsLostOnAKeptAliveConnection_failsAsLost() throws {
        _ = routeAnsweringWithoutTheBody()
        let file = transfersFolder.appendingPathComponent("upload-source.bin")
        try FileManager.default.createDirectory(at: transfersFolder, withIntermediateDirectories: true)
        try Data(repeating: 7, count: 5_000).write(to: file)
        let proxy = try proxy(Self.lostSecondAnswer)
        let client = try client(through: proxy)
        XCTAssertNotNil(try outcome(client, SpecEndpoint("/json"), DataResponseSerializer()).value)

        let events = client.uploadEventStream(
            SpecEndpoint("/notes", method: .post, parameters: UploadFile(file)), as: [String: Bool].self)
        XCTAssertThrowsError(try events.toBlocking(timeout: 20).toArray()) { error in
            guard case .transport(let urlError)? = error as? LeashError else { return XCTFail("\(error)") }
            XCTAssertEqual(urlError.code, .networkConnectionLost)
        }
        try FileManager.default.removeItem(at: file)
    }

    /// Faults that leave no answer end the execution once with a typed error; a harmless
    /// one still gives the value. (A clean close inside the head is left out: on Linux,
    /// FoundationNetworking ends the process on it; see Docs/URLSession-on-Linux.md.)
    func testEachFault_endsTheExecutionOnce_withAValueOrATypedError() throws {
        let faults: [Fault] = [
            .refuse, .blackhole, .reset(after: 0, .request), .reset(after: 30, .response), .close(after: 0, .request),
            .close(after: 0, .response), .stall(after: 0, .response), .stall(after: 60, .request),
            .truncateBody(after: 100), .corrupt(at: 0, .response), .delayFirstByte(milliseconds: 50),
            .pace(bytes: 7, pauseMilliseconds: 1), .slowHead(pauseMilliseconds: 1), .delayConnect(milliseconds: 50),
            .bandwidth(bytesPerSecond: 100_000),
        ]
        for fault in faults {
            let proxy = try proxy(.always(fault))
            let client = try client(through: proxy, timeout: 1)
            let endpoint = SpecEndpoint("/bytes/2000?chunked=1&chunk=500")
            let events = client.eventStream(endpoint, serializer: DataResponseSerializer())
            let ends = SpecLocked(0)
            let outcome = events.do(
                onError: { _ in ends.withLock { $0 += 1 } }, onCompleted: { ends.withLock { $0 += 1 } }
            )
            .toBlocking(timeout: 20).materialize()
            XCTAssertEqual(ends.withLock { $0 }, 1, "\(fault)")
            switch outcome {
            case .completed(let elements):
                XCTAssertTrue(fault.isHarmless, "\(fault) gave a value")
                XCTAssertEqual(elements.compactMap(\.value).first?.count, 2000, "\(fault)")
            case .failed(_, let error):
                XCTAssertFalse(fault.isHarmless, "\(fault) failed: \(error)")
                XCTAssertNotNil(error as? LeashError, "\(fault): \(error)")
            }
            proxy.stop()
        }
    }
}
