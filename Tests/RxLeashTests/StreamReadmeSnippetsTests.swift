// The README's "Streams" snippets, compiled and run against `LoopbackServer`. `Prices`,
// `LogTail`, `LogLine`, `Completion` and `Token` stand for the app's endpoints and types;
// `print` is this file's own, which records what the snippets print.

import Foundation
import LeashTestSupport
import LoopbackServer
import RxLeash
import XCTest

private struct Prices: Endpoint {
    var path: String { "/prices" }
    var method: HTTPMethod { .get }
}

private struct LogTail: Endpoint {
    let service: String
    var path: String { "/logs/\(service)" }
    var method: HTTPMethod { .get }
}

private struct LogLine: Decodable {
    let level: String
    let message: String
}

private struct Completion: Endpoint {
    let prompt: String
    var path: String { "/completions" }
    var method: HTTPMethod { .post }
    var parameters: Any? { ["prompt": prompt] }
}

private struct Token: Decodable, Sendable {
    let text: String
}

/// What the snippets printed.
private let printed = SpecLocked<[String]>([])

/// Records instead of printing.
private func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    printed.withLock { $0.append(items.map { "\($0)" }.joined(separator: separator)) }
}

final class StreamReadmeSnippetsTests: LoopbackIntegrationCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        printed.withLock { $0.removeAll() }
    }

    /// Waits until the snippets printed `count` lines.
    private func waitForPrinted(_ count: Int) {
        let deadline = Date().addingTimeInterval(10)
        while printed.value.count < count && Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.005))
        }
    }

    func testServerSentEvents_rx() throws {
        server.route(
            "GET", "/prices",
            response: LoopbackResponse(
                headers: ["Content-Type": "text/event-stream"],
                body: Data("id: 1\nevent: price\ndata: 19.99\n\n: keep-alive\n\nid: 2\ndata: 20.50\n\n".utf8)))
        let disposeBag = DisposeBag()
        let client = try makeClient()

        // Server-Sent Events: each event as soon as it is complete, reconnecting after a drop.
        client.rx.serverSentEvents(Prices(), reconnecting: true)
            .subscribe(onNext: { event in print(event.id ?? "-", event.event, event.data) })
            .disposed(by: disposeBag)

        waitForPrinted(2)
        XCTAssertEqual(Array(printed.value.prefix(2)), ["1 price 19.99", "2 message 20.50"])
    }

    func testLines_rx() throws {
        server.route(
            "GET", "/logs/api",
            response: LoopbackResponse(
                headers: ["Content-Type": "application/x-ndjson"],
                body: Data("{\"level\":\"info\",\"message\":\"up\"}\n{\"level\":\"warn\",\"message\":\"slow\"}\n".utf8))
        )
        let disposeBag = DisposeBag()
        let client = try makeClient()

        // NDJSON: one decoded value per line, as soon as the line is complete.
        client.rx.lines(LogTail(service: "api"), as: LogLine.self)
            .subscribe(onNext: { line in print(line.level, line.message) })
            .disposed(by: disposeBag)

        waitForPrinted(2)
        XCTAssertEqual(printed.value, ["info up", "warn slow"])
    }

    func testServerSentEvents_async() async throws {
        server.route(
            "POST", "/completions",
            response: LoopbackResponse(
                headers: ["Content-Type": "text/event-stream"],
                body: Data("data: {\"text\":\"Hel\"}\n\ndata: {\"text\":\"lo!\"}\n\n".utf8)))
        let client = try makeClient()

        // async/await: leaving the loop (or cancelling the task) closes the connection.
        for try await token in client.serverSentEvents(Completion(prompt: "Hello"), decoding: Token.self) {
            print(token.text, terminator: "")
        }

        XCTAssertEqual(printed.value, ["Hel", "lo!"])
    }
}
