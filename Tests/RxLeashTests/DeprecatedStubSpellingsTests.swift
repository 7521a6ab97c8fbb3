import Foundation
import Leash
import LeashTesting
import Rx
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The stub scripts' and the refresher's `RxTimeInterval` spellings, deprecated in 1.0 for seconds: each still
// compiles and means the same number of seconds, until the release that removes them. Each
// test is itself deprecated, so that its calls do not warn (the build must print none).

private struct Ping: Endpoint {
    var path: String { "/ping" }
    var method: HTTPMethod { .get }
}

final class DeprecatedStubSpellingsTests: XCTestCase {
    @available(*, deprecated, message: "checks the deprecated spellings")
    func testEveryRxTimeIntervalDelay_isTheSameNumberOfSeconds() {
        let delays: [(String, StubResponse)] = [
            ("init", StubResponse(status: 201, delay: .seconds(2))),
            ("json", .json("{}", delay: .milliseconds(1500))),
            ("json(encoding:)", .json(encoding: [1, 2], delay: .microseconds(250_000))),
            ("text", .text("hi", delay: .nanoseconds(3_000_000_000))),
            ("status", .status(503, delay: .seconds(4))),
            ("empty", .empty(delay: .milliseconds(10))),
            ("error", .error(.timedOut, delay: .seconds(1))),
            ("delayed", StubResponse.status(200).delayed(.milliseconds(750))),
        ]
        XCTAssertEqual(
            delays.map { "\($0.0) \($0.1.delay ?? -1)" },
            [
                "init 2.0", "json 1.5", "json(encoding:) 0.25", "text 3.0", "status 4.0", "empty 0.01", "error 1.0",
                "delayed 0.75",
            ])
    }

    @available(*, deprecated, message: "checks the deprecated spellings")
    func testEveryRxTimeIntervalInterval_isTheSameNumberOfSeconds() {
        struct Tick: Encodable { let n: Int }
        let intervals: [(String, StubResponse)] = [
            ("progress", StubResponse(body: Data(count: 8)).progress(steps: 4, every: .milliseconds(500))),
            ("chunks of data", .chunks([Data([1]), Data([2])], every: .seconds(2))),
            ("chunks of text", .chunks(["a", "b"], every: .milliseconds(100))),
            ("lines", .lines([Tick(n: 1), Tick(n: 2)], every: .seconds(3))),
            ("serverSentEvents", .serverSentEvents([ServerSentEvent(data: "x")], every: .milliseconds(1250))),
        ]
        XCTAssertEqual(
            intervals.map { "\($0.0) \($0.1.progressInterval)" },
            [
                "progress 0.5", "chunks of data 2.0", "chunks of text 0.1", "lines 3.0", "serverSentEvents 1.25",
            ])
    }

    @available(*, deprecated, message: "checks the deprecated spellings")
    func testAnRxTimeIntervalDelay_answersThatManySecondsLater_inVirtualTime() throws {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.001)  // one tick = 1 ms
        let stub = StubTransport(scheduler: scheduler).stub(
            .get, path: "/ping", .json(#""pong""#, delay: .milliseconds(120)))
        let client = Client(
            manager: try Manager.Builder().url("https://api.example.com").transport(stub).scheduler(scheduler).build())

        let observer = scheduler.start { client.rx.execute(Ping(), type: String.self) }

        XCTAssertEqual(observer.events, [.next(320, "pong"), .completed(320)])
    }

    @available(*, deprecated, message: "checks the deprecated spellings")
    func testTheRefreshersRxTimeIntervalWindow_isTheSameNumberOfSeconds() {
        let refresher = TokenRefresher(authenticator: NoCredential(), window: .milliseconds(90_500)) { .empty() }

        XCTAssertEqual(refresher.window, 90.5)
    }
}

/// An authenticator with no credential.
private final class NoCredential: Authenticator {
    static var header: String { "Authorization" }
    var authentication: String? { nil }
}
