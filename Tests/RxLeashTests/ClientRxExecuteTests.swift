import Foundation
import LeashTesting
import RxLeash
import RxTesting
import LeashTestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `client.rx.execute` and `client.rx.response` on `StubTransport`, in virtual time:
/// exact event times, coldness, cache-then-network, errors, and what disposing cancels.
final class ClientRxExecuteTests: VirtualTimeTestCase {
    private func makeClient(configure: (Manager.Builder) -> Void = { _ in }) throws -> Client {
        try makeClientRxClient(transport, scheduler: scheduler, configure: configure)
    }

    // MARK: Values

    func testExecute_emitsTheDecodedValueWhenTheResponseArrives_thenCompletes() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 5))
        let client = try makeClient()

        let observer = scheduler.start { client.rx.execute(ClientRxEndpoint(), type: SpecUser.self) }

        XCTAssertEqual(observer.events, [.next(205, specAlice), .completed(205)])
    }

    func testExecute_isCold_sendsNothingUntilSubscribed_andSendsAgainForEachSubscription() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 5))
        let client = try makeClient()
        let users = client.rx.execute(ClientRxEndpoint(), type: SpecUser.self)
        let first = scheduler.createObserver(SpecUser.self)
        let second = scheduler.createObserver(SpecUser.self)
        let subscriptions = CompositeDisposable()
        scheduler.scheduleAt(200) { _ = subscriptions.insert(users.subscribe(first)) }
        scheduler.scheduleAt(300) { _ = subscriptions.insert(users.subscribe(second)) }

        scheduler.advanceTo(150)
        XCTAssertEqual(transport.requests.count, 0, "making the observable sends nothing")
        scheduler.start()
        subscriptions.dispose()

        XCTAssertEqual(first.events, [.next(205, specAlice), .completed(205)])
        XCTAssertEqual(second.events, [.next(305, specAlice), .completed(305)])
        XCTAssertEqual(transport.requests.count, 2, "one request per subscription")
    }

    func testExecute_cacheThenNetwork_emitsBothValuesThenCompletes() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 5))
        let client = try makeClient { $0.add(interceptor: ClientRxCacheInterceptor(specBobJSON)) }

        let observer = scheduler.start { client.rx.execute(ClientRxEndpoint(), type: SpecUser.self) }

        XCTAssertEqual(observer.events, [.next(200, specBob), .next(205, specAlice), .completed(205)])
    }

    func testExecute_typedEndpoint_infersTheResponseType() throws {
        transport.stub(path: "/v1/users/2", .json(specBobJSON, delay: 1))
        let client = try makeClient()
        // The element type comes from `ClientRxGetUser.Response`; nothing names it here.
        let users = client.rx.execute(ClientRxGetUser(id: 2))
        let annotated: Observable<SpecUser> = client.rx.execute(ClientRxGetUser(id: 2))

        let observer = scheduler.start { users }
        let second = scheduler.start(created: 1100, subscribed: 1200, disposed: 2000) { annotated }

        XCTAssertEqual(observer.events, [.next(201, specBob), .completed(201)])
        XCTAssertEqual(second.events, [.next(1201, specBob), .completed(1201)])
    }

    func testExecute_customSerializer_emitsWhatTheSerializerMakes() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 2))
        let client = try makeClient()

        let observer = scheduler.start {
            client.rx.execute(ClientRxEndpoint(), serializer: StringResponseSerializer())
        }

        XCTAssertEqual(observer.events, [.next(202, specAliceJSON), .completed(202)])
    }

    // MARK: Responses

    func testResponse_saysWhereEachValueCameFrom_withTheNetworkResponsesDetails() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 5))
        let client = try makeClient { $0.add(interceptor: ClientRxCacheInterceptor(specBobJSON)) }

        let observer = scheduler.start { client.rx.response(ClientRxEndpoint(), type: SpecUser.self) }

        XCTAssertEqual(
            clientRxTimeline(observer) { "\($0.value.name) \($0.source) \($0.statusCode.map(String.init) ?? "-")" },
            ["Bob interceptor - @ 200", "Alice network 200 @ 205", "completed @ 205"])
        let network = observer.events.compactMap { $0.value.element }.last
        XCTAssertEqual(network?.headers["Content-Type"], "application/json")
        XCTAssertEqual(network?.data, Data(specAliceJSON.utf8))
        XCTAssertEqual(network?.request?.url?.absoluteString, "https://api.example.com/v1/users/1")
        XCTAssertEqual(network?.httpResponse?.statusCode, 200)
        XCTAssertEqual(network?.response.value, specAlice)
        let cached = observer.events.compactMap { $0.value.element }.first
        XCTAssertNil(cached?.httpResponse, "an interceptor's value has no HTTP response")
    }

    func testResponse_justValue_isTheValuesAlone() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 5))
        let client = try makeClient { $0.add(interceptor: ClientRxCacheInterceptor(specBobJSON)) }

        let observer = scheduler.start {
            client.rx.response(ClientRxEndpoint(), type: SpecUser.self).justValue()
        }

        XCTAssertEqual(observer.events, [.next(200, specBob), .next(205, specAlice), .completed(205)])
    }

    func testResponse_typedEndpointAndSerializerForms() throws {
        transport.stub(path: "/v1/users/2", .json(specBobJSON, delay: 1))
        let client = try makeClient()

        let typed = scheduler.start { client.rx.response(ClientRxGetUser(id: 2)).map { $0.value } }
        let serialized = scheduler.start(created: 1100, subscribed: 1200, disposed: 2000) {
            client.rx.response(ClientRxGetUser(id: 2), serializer: StringResponseSerializer()).map { $0.value }
        }

        XCTAssertEqual(typed.events, [.next(201, specBob), .completed(201)])
        XCTAssertEqual(serialized.events, [.next(1201, specBobJSON), .completed(1201)])
    }

    // MARK: Errors

    func testExecute_unacceptableStatus_failsWithTheTypedLeashError() throws {
        transport.stub(path: "/v1/users/1", .text("nope", status: 404, delay: 5))
        let client = try makeClient()

        let observer = scheduler.start { client.rx.execute(ClientRxEndpoint(), type: SpecUser.self) }

        XCTAssertEqual(observer.events.count, 1)
        XCTAssertEqual(observer.events.first?.time, 205)
        guard case .unacceptableStatusCode(let failure)? = clientRxError(observer) as? LeashError else {
            return XCTFail("expected LeashError.unacceptableStatusCode, got \(observer.events)")
        }
        XCTAssertEqual(failure.statusCode, 404)
        XCTAssertEqual(failure.body, Data("nope".utf8), "the body is kept")
    }

    func testExecute_undecodableBody_failsWithDecodingKeepingTheCause() throws {
        transport.stub(path: "/v1/users/1", .json(#"{"id":"one"}"#, delay: 1))
        let client = try makeClient()

        let observer = scheduler.start { client.rx.execute(ClientRxEndpoint(), type: SpecUser.self) }

        XCTAssertEqual(observer.events.first?.time, 201)
        guard case .decoding(_, let underlying, _)? = clientRxError(observer) as? LeashError else {
            return XCTFail("expected LeashError.decoding, got \(observer.events)")
        }
        XCTAssertTrue(underlying is DecodingError)
    }

    func testExecute_interceptorsOwnError_arrivesUnchanged() throws {
        transport.stub(path: "/v1/users/1", .error(.notConnectedToInternet, delay: 3))
        let client = try makeClient { $0.add(interceptor: ClientRxAppErrorInterceptor()) }

        let observer = scheduler.start { client.rx.execute(ClientRxEndpoint(), type: SpecUser.self) }

        XCTAssertEqual(observer.events.first?.time, 203)
        XCTAssertEqual(clientRxError(observer) as? ClientRxAppError, .unauthorized)
    }

    func testExecute_timeout_failsAtTheDeadlineAndCancelsTheRequest() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 10))
        let client = try makeClient { $0.timeout(3) }

        let observer = scheduler.start { client.rx.execute(ClientRxEndpoint(), type: SpecUser.self) }

        XCTAssertEqual(observer.events.count, 1, "no value after the deadline: \(observer.events)")
        XCTAssertEqual(observer.events.first?.time, 203)
        guard case .timeout(let seconds)? = clientRxError(observer) as? LeashError else {
            return XCTFail("expected LeashError.timeout, got \(observer.events)")
        }
        XCTAssertEqual(seconds, 3)
    }

    // MARK: Retries and disposal

    func testExecute_retryAfterADelay_emitsTheSecondAttemptsValue() throws {
        transport.stub(path: "/v1/users/1", .status(503), .json(specAliceJSON))
        let client = try makeClient { $0.add(interceptor: ClientRxRetryAfterDelay(scheduler: scheduler, ticks: 10)) }

        let observer = scheduler.start { client.rx.execute(ClientRxEndpoint(), type: SpecUser.self) }

        XCTAssertEqual(observer.events, [.next(210, specAlice), .completed(210)])
        XCTAssertEqual(transport.requests.count, 2)
    }

    func testDispose_duringARetryDelay_cancelsThePendingRetry() throws {
        transport.stub(path: "/v1/users/1", .status(503), .json(specAliceJSON))
        let client = try makeClient { $0.add(interceptor: ClientRxRetryAfterDelay(scheduler: scheduler, ticks: 10)) }

        // The retry is due at 210; the subscription ends at 205.
        let observer = scheduler.start(disposed: 205) {
            client.rx.execute(ClientRxEndpoint(), type: SpecUser.self)
        }
        scheduler.advanceTo(2000)

        XCTAssertEqual(observer.events, [])
        XCTAssertEqual(transport.requests.count, 1, "the pending retry never ran")
    }

    func testDispose_beforeTheResponse_emitsNothing() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 5))
        let client = try makeClient()

        let observer = scheduler.start(disposed: 203) {
            client.rx.execute(ClientRxEndpoint(), type: SpecUser.self)
        }

        XCTAssertEqual(observer.events, [])
        XCTAssertEqual(transport.requests.count, 1)
    }
}
