import Foundation
import LeashTestSupport
import LoopbackServer
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `client.rx` against `LoopbackServer` over the default `URLSessionTransport`: values,
/// typed errors, and that disposing (directly, or through `flatMapLatest`) cancels the
/// request on the wire. The base class checks that every Rx resource is freed.
final class ClientRxLoopbackTests: LoopbackIntegrationCase {
    private let sample = LoopbackSample(id: 1, name: "Leash", tags: ["a", "b"])

    func testExecute_decodesTheServersJSON_thenCompletes() throws {
        let client = try makeClient()

        let values = try client.rx.execute(ClientRxEndpoint("/json"), type: LoopbackSample.self).toBlocking(timeout: 10)
            .toArray()

        XCTAssertEqual(values, [sample])
    }

    func testResponse_carriesTheServersStatusAndHeaders() throws {
        server.route("GET", "/tagged", response: LoopbackResponse.json(sample).header("X-Trace", "abc"))
        let client = try makeClient()

        let response = try client.rx.response(ClientRxEndpoint("/tagged"), type: LoopbackSample.self)
            .toBlocking(timeout: 10).single()

        XCTAssertEqual(response.value, sample)
        XCTAssertEqual(response.source, .network)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.headers["X-Trace"], "abc")
        XCTAssertEqual(try response.data.map { try JSONDecoder().decode(LoopbackSample.self, from: $0) }, sample)
    }

    func testSingle_statusFailure_isTheTypedLeashError() throws {
        let client = try makeClient()

        XCTAssertThrowsError(
            try client.rx.single(ClientRxEndpoint("/status/503"), type: LoopbackSample.self).asObservable()
                .toBlocking(timeout: 10).single()
        ) { error in
            guard case .unacceptableStatusCode(let failure)? = error as? LeashError else {
                return XCTFail("expected LeashError.unacceptableStatusCode, got \(error)")
            }
            XCTAssertEqual(failure.statusCode, 503)
            XCTAssertEqual(failure.kind, .server)
        }
    }

    func testExecute_garbageResponse_isATypedLeashError() throws {
        let client = try makeClient()

        XCTAssertThrowsError(
            try client.rx.execute(ClientRxEndpoint("/garbage"), type: LoopbackSample.self).toBlocking(timeout: 10)
                .toArray()
        ) { error in
            XCTAssertTrue(error is LeashError, "expected a LeashError, got \(error)")
        }
    }

    func testDispose_hangingRequest_serverCountsTheDisconnect() throws {
        let client = try makeClient()
        let events = SpecLocked<[String]>([])

        let subscription = client.rx.execute(ClientRxEndpoint("/hang"), type: LoopbackSample.self)
            .subscribe { event in events.withLock { $0.append("\(event)") } }
        waitForServer("the request") { $0.requestCount >= 1 }
        subscription.dispose()

        waitForServer("the client disconnecting") { $0.clientDisconnectCount >= 1 }
        XCTAssertEqual(events.value, [], "nothing after dispose, not even a cancellation error")
    }

    func testDispose_singleOnAHangingRequest_serverCountsTheDisconnect() throws {
        let client = try makeClient()

        let subscription = client.rx.single(ClientRxEndpoint("/hang"), type: LoopbackSample.self).subscribe { _ in }
        waitForServer("the request") { $0.requestCount >= 1 }
        subscription.dispose()

        waitForServer("the client disconnecting") { $0.clientDisconnectCount >= 1 }
    }

    func testFlatMapLatest_newInputCancelsTheRequestInFlight_serverCountsTheDisconnect() throws {
        let client = try makeClient()
        let paths = PublishSubject<String>()
        let values = SpecLocked<[LoopbackSample]>([])
        let completed = expectation(description: "completed")

        let subscription = paths.flatMapLatest { path in
            client.rx.execute(ClientRxEndpoint(path), type: LoopbackSample.self)
        }
        .subscribe(
            onNext: { sample in values.withLock { $0.append(sample) } },
            onError: { error in XCTFail("unexpected \(error)") },
            onCompleted: { completed.fulfill() })
        paths.onNext("/hang")
        waitForServer("the first request") { $0.requestCount >= 1 }
        paths.onNext("/json")
        waitForServer("the client dropping the first request") { $0.clientDisconnectCount >= 1 }
        paths.onCompleted()
        wait(for: [completed], timeout: 10)
        subscription.dispose()

        XCTAssertEqual(values.value, [sample])
        XCTAssertEqual(server.counters.requestCount, 2)
    }

    func testZip_ofTwoRequests_emitsBothValuesTogether() throws {
        let client = try makeClient()

        let pair = try Observable.zip(
            client.rx.execute(ClientRxEndpoint("/json"), type: LoopbackSample.self),
            client.rx.execute(ClientRxEndpoint("/echo?from=zip"), type: LoopbackServer.EchoedRequest.self)
        )
        .toBlocking(timeout: 10).single()

        XCTAssertEqual(pair.0, sample)
        XCTAssertEqual(pair.1.query, "from=zip")
        XCTAssertEqual(server.counters.requestCount, 2)
    }

    func testFlatMap_chain_secondRequestUsesTheFirstsValue() throws {
        let client = try makeClient()

        let echoed = try client.rx.execute(ClientRxEndpoint("/json"), type: LoopbackSample.self)
            .flatMap { sample in
                client.rx.execute(ClientRxEndpoint("/echo?id=\(sample.id)"), type: LoopbackServer.EchoedRequest.self)
            }
            .toBlocking(timeout: 10).single()

        XCTAssertEqual(echoed.path, "/echo")
        XCTAssertEqual(echoed.query, "id=1")
    }

    func testMerge_ofManyRequests_allComplete() throws {
        let client = try makeClient()

        let ids = try Observable.merge(
            (0..<16).map { index in
                client.rx.single(ClientRxEndpoint("/echo?n=\(index)"), type: LoopbackServer.EchoedRequest.self)
                    .asObservable()
            }
        )
        .map { $0.query ?? "" }
        .toBlocking(timeout: 20).toArray()

        XCTAssertEqual(Set(ids), Set((0..<16).map { "n=\($0)" }))
    }

    func testExecute_byDefault_isNotDeliveredOnTheMainThread() throws {
        let client = try makeClient()
        let onMain = SpecLocked<[Bool]>([])
        let done = expectation(description: "completed")

        let subscription = client.rx.execute(ClientRxEndpoint("/json"), type: LoopbackSample.self)
            .subscribe { event in
                onMain.withLock { $0.append(Thread.isMainThread) }
                if event.isStopEvent { done.fulfill() }
            }
        // `wait` runs the main run loop: anything sent to the main queue would run here.
        wait(for: [done], timeout: 10)
        subscription.dispose()

        XCTAssertEqual(onMain.value, [false, false])
    }
}
