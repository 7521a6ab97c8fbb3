import Foundation
import LeashTestSupport
import LeashTesting
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Every spelling 1.0 deprecated still compiles and does what it did: one short call each,
// until the release that removes them (then this file goes with them).
//
// Each test is itself `@available(*, deprecated)`: a call from inside a deprecated
// declaration does not warn, and the package's build must print no warnings. Nothing
// calls these tests but XCTest: SwiftPM's generated list of tests (Linux) is marked
// deprecated for this very case, and on Apple platforms XCTest finds them at run time.

/// The deprecated forms of `Client` and `client.rx`, in virtual time.
final class DeprecatedSpellingsTests: VirtualTimeTransferCase {
    private struct Price: Decodable, Equatable {
        let cents: Int
    }

    private struct Upload: Endpoint {
        var path: String { "/users" }
        var method: HTTPMethod { .post }
        var parameters: Any? { transferTestBytes(400) }
    }

    private func client(configure: (Manager.Builder) -> Void = { _ in }) throws -> Client {
        try makeClientRxClient(transport, scheduler: scheduler, configure: configure)
    }

    // MARK: Client's observables, now on client.rx

    @available(*, deprecated, message: "checks the deprecated spellings")
    func testExecution_isClientRxEvents() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 5))
        let client = try client()

        let decoded = scheduler.start { client.execution(ClientRxEndpoint(), as: SpecUser.self).compactMap(\.value) }
        let serialized = scheduler.start(created: 1100, subscribed: 1200, disposed: 2000) {
            client.execution(ClientRxEndpoint(), serializer: StringResponseSerializer()).compactMap(\.value)
        }

        XCTAssertEqual(decoded.events, [.next(205, specAlice), .completed(205)])
        XCTAssertEqual(serialized.events, [.next(1205, specAliceJSON), .completed(1205)])
    }

    @available(*, deprecated, message: "checks the deprecated spellings")
    func testResponses_isClientRxResponse() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 5))
        let client = try client()

        let decoded = scheduler.start {
            client.responses(ClientRxEndpoint(), as: SpecUser.self).compactMap { response in
                response.source.map { "\(response.value?.name ?? "-") \($0)" }
            }
        }
        let serialized = scheduler.start(created: 1100, subscribed: 1200, disposed: 2000) {
            client.responses(ClientRxEndpoint(), serializer: StringResponseSerializer()).compactMap(\.statusCode)
        }

        XCTAssertEqual(decoded.events, [.next(205, "Alice network"), .completed(205)])
        XCTAssertEqual(serialized.events, [.next(1205, 200), .completed(1205)])
    }

    @available(*, deprecated, message: "checks the deprecated spellings")
    func testStreamExecution_isClientRxStream() throws {
        transport.stub(.get, path: "/v1/feed", .chunks(["a", "bc"], every: 2))
        let client = try client()

        let observer = scheduler.start {
            client.streamExecution(ClientRxEndpoint("/feed")).map { String(decoding: $0, as: UTF8.self) }
        }

        XCTAssertEqual(observer.events, [.next(200, "a"), .next(202, "bc"), .completed(202)])
    }

    @available(*, deprecated, message: "checks the deprecated spellings")
    func testLinesExecution_isClientRxLines() throws {
        transport.stub(.get, path: "/v1/feed", .chunks(["one\ntw", "o\n"], every: 1))
        let client = try client()

        let observer = scheduler.start { client.linesExecution(ClientRxEndpoint("/feed"), as: String.self) }

        XCTAssertEqual(observer.events, [.next(200, "one"), .next(201, "two"), .completed(201)])
    }

    @available(*, deprecated, message: "checks the deprecated spellings")
    func testServerSentEventsExecution_isClientRxServerSentEvents() throws {
        transport.stub(
            .get, path: "/v1/prices",
            .serverSentEvents([ServerSentEvent(id: "1", data: #"{"cents":5}"#)]),
            .serverSentEvents([ServerSentEvent(id: "2", data: #"{"cents":7}"#)]))
        let client = try client()

        let events = scheduler.start { client.serverSentEventsExecution(ClientRxEndpoint("/prices")).map(\.data) }
        let decoded = scheduler.start(created: 1100, subscribed: 1200, disposed: 2000) {
            client.serverSentEventsExecution(ClientRxEndpoint("/prices"), decoding: Price.self)
        }

        XCTAssertEqual(events.events, [.next(200, #"{"cents":5}"#), .completed(200)])
        XCTAssertEqual(decoded.events, [.next(1200, Price(cents: 7)), .completed(1200)])
    }

    @available(*, deprecated, message: "checks the deprecated spellings")
    func testDownloadExecution_isClientRxDownload() throws {
        transport.stub(.get, path: "/v1/file", StubResponse(body: body).progress(steps: 2))
        let client = try client()
        let destination = self.destination

        let observer = scheduler.start {
            client.downloadExecution(ClientRxEndpoint("/file"), to: destination).compactMap(\.value)
        }

        XCTAssertEqual(observer.events, [.next(201, destination), .completed(201)])
        XCTAssertEqual(try Data(contentsOf: destination), body)
    }

    @available(*, deprecated, message: "checks the deprecated spellings")
    func testUploadExecution_isClientRxUpload() throws {
        transport.stub(.post, path: "/v1/users", .json(specAliceJSON, delay: 3))
        let client = try client()

        let decoded = scheduler.start { client.uploadExecution(Upload(), as: SpecUser.self).compactMap(\.value) }
        let serialized = scheduler.start(created: 1100, subscribed: 1200, disposed: 2000) {
            client.uploadExecution(Upload(), serializer: StringResponseSerializer()).compactMap(\.value)
        }

        XCTAssertEqual(decoded.events, [.next(203, specAlice), .completed(203)])
        XCTAssertEqual(serialized.events, [.next(1203, specAliceJSON), .completed(1203)])
    }

    // MARK: The Result callback, now Response's `result`

    @available(*, deprecated, message: "checks the deprecated spellings")
    func testExecuteWithAResultCallback_getsTheResponsesResult() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 5))
        let client = try client()
        let names = SpecLocked<[String]>([])

        client.execute(ClientRxEndpoint()) { (result: Result<SpecUser, Swift.Error>) in
            names.withLock { $0.append((try? result.get().name) ?? "failed") }
        }
        scheduler.start()

        XCTAssertEqual(names.value, ["Alice"])
    }

    // MARK: client.rx

    @available(*, deprecated, message: "checks the deprecated spellings")
    func testExecuteWithReactiveResponseType_isResponse() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 5))
        let client = try client()

        // Leash's RxLeash spelled the details form this way, and named its element
        // `ReactiveResponse`.
        let observer = scheduler.start {
            client.rx.execute(ClientRxEndpoint(), type: ReactiveResponse<SpecUser>.self)
                .map { (response: ReactiveResponse<SpecUser>) in "\(response.value.name) \(response.source)" }
        }

        XCTAssertEqual(observer.events, [.next(205, "Alice network"), .completed(205)])
    }

    @available(*, deprecated, message: "checks the deprecated spellings")
    func testSingleResponse_carriesTheDetailsOfTheLastValue() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 3))
        let client = try client { $0.add(interceptor: ClientRxCacheInterceptor(specBobJSON)) }

        let details = scheduler.start {
            client.rx.singleResponse(ClientRxEndpoint(), type: SpecUser.self).map { "\($0.value.name) \($0.source)" }
        }
        let values = scheduler.start(created: 1100, subscribed: 1200, disposed: 2000) {
            client.rx.singleResponse(ClientRxGetUser(id: 1)).justValue()
        }
        let serialized = scheduler.start(created: 2100, subscribed: 2200, disposed: 3000) {
            client.rx.singleResponse(ClientRxEndpoint(), serializer: StringResponseSerializer()).map { $0.statusCode }
        }

        XCTAssertEqual(details.events, [.next(203, "Alice network"), .completed(203)])
        XCTAssertEqual(values.events, [.next(1203, specAlice), .completed(1203)])
        XCTAssertEqual(serialized.events, [.next(2203, 200), .completed(2203)])
    }
}

/// `retryingOnUnauthorized(_:)`, now `Manager.Builder.refreshing(with:)`, in virtual time.
final class DeprecatedRefreshSpellingsTests: RefreshTestCase {
    private let item = RefreshItem(id: 7)

    @available(*, deprecated, message: "checks the deprecated spellings")
    func testRetryingOnUnauthorized_onObservablesAndSingles_sharesOneRefresh_andResubscribesOnce() throws {
        stubProtected("items", accepting: ["fresh"])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let refresher = makeRefresher(script)
        let client = try makeClient { $0.authenticator(authenticator) }
        let run = RefreshSubscriptions(scheduler)

        let observable = run.subscribe(at: 200) {
            client.rx.execute(RefreshEndpoint("items"), type: RefreshItem.self).retryingOnUnauthorized(refresher)
        }
        let single = run.subscribe(at: 200) {
            client.rx.single(RefreshEndpoint("items"), type: RefreshItem.self).retryingOnUnauthorized(refresher)
                .asObservable()
        }
        run.run()

        XCTAssertEqual(observable.events, [.next(225, item), .completed(225)])
        XCTAssertEqual(single.events, [.next(225, item), .completed(225)])
        XCTAssertEqual(script.subscriptions, [Subscription(210, 215)], "one refresh for both 401s")
        XCTAssertEqual(credentialsSent(to: "items"), ["Bearer stale", "Bearer stale", "Bearer fresh", "Bearer fresh"])
    }
}
