import Dispatch
import Foundation
import Leash
import LeashTesting
import Rx
import RxTesting
import LeashTestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The raw event stream, and what disposing an execution does (cancelling the callback
/// forms' handle: `DataRequestTests`).
final class PipelineEventsAndCancellationTests: VirtualTimeTestCase {
    // MARK: Events

    func testExecutionEvents_arriveInPipelineOrder_thenComplete() throws {
        transport.stub(.get, path: "/v1/users/1", .json(specAliceJSON, delay: 2))
        let client = try makePipelineClient(transport, scheduler: scheduler)

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(
            pipelineTimeline(observer),
            [
                "requestPrepared(1) @ 200", "requestSent(1) @ 200", "downloadProgress(23/23) @ 202",
                "responseReceived(200, 1) @ 202",
                "value(\(specAlice), network) @ 202", "completed @ 202",
            ])
    }

    func testExecutionEvents_carryTheRequestResponseAndDetails() throws {
        transport.stub(
            .post, path: "/v1/users",
            StubResponse(status: 201, headers: ["Location": "/v1/users/2"], body: Data(specBobJSON.utf8)))
        let client = try makePipelineClient(transport, scheduler: scheduler)
        let endpoint = PipelineEndpoint(path: "/users", method: .post, parameters: specBob)

        let observer = scheduler.start { client.eventStream(endpoint, as: SpecUser.self) }
        let events = observer.events.compactMap { $0.value.element }

        guard events.count == 6, case .requestPrepared(let prepared, _) = events[0],
            case .requestSent(let sent, _) = events[1], case .uploadProgress(let uploaded) = events[2],
            case .downloadProgress(let downloaded) = events[3],
            case .responseReceived(let response, let data, _) = events[4], case .value(let value, let extra) = events[5]
        else { return XCTFail("unexpected events \(pipelineTimeline(observer))") }
        let bodySize = Int64(prepared.httpBody?.count ?? -1)
        XCTAssertEqual(uploaded, TransferProgress(completedBytes: bodySize, expectedBytes: bodySize))
        XCTAssertEqual(downloaded, TransferProgress(completedBytes: 21, expectedBytes: 21))
        XCTAssertEqual(prepared.httpMethod, "POST")
        XCTAssertEqual(
            prepared.httpBody.flatMap { try? JSONDecoder().decode(SpecUser.self, from: $0) }, specBob)
        XCTAssertEqual(sent.url, prepared.url)
        XCTAssertEqual(response.statusCode, 201)
        XCTAssertEqual(data, Data(specBobJSON.utf8))
        XCTAssertEqual(value, specBob)
        XCTAssertEqual(extra.source, .network)
        XCTAssertEqual(extra.statusCode, 201)
        XCTAssertEqual(extra.headers["Location"], "/v1/users/2")
        XCTAssertEqual(extra.request?.httpMethod, "POST")
    }

    func testExecutionEvents_retry_emitsRetryingWithTheNextAttempt() throws {
        transport.stub(path: "/v1/users/1", .status(401), .status(401), .json(specAliceJSON))
        let client = try makePipelineClient(transport, scheduler: scheduler) {
            $0.add(
                interceptor: PipelineCompletionInterceptor { chain, response in
                    guard response.isFailure else { return chain.proceed() }
                    do { try chain.retry() } catch { chain.proceed() }
                })
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(
            observer.events.compactMap { $0.value.element.map(pipelineName) },
            [
                "requestPrepared(1)", "requestSent(1)", "responseReceived(401, 1)", "retrying(2)",
                "requestPrepared(2)", "requestSent(2)", "responseReceived(401, 2)", "retrying(3)",
                "requestPrepared(3)", "requestSent(3)", "downloadProgress(23/23)", "responseReceived(200, 3)",
                "value(\(specAlice), network)",
            ])
        XCTAssertEqual(observer.events.last?.value.isCompleted, true)
    }

    func testExecutionEvents_failure_endsTheStreamWithTheError() throws {
        transport.stub(path: "/v1/users/1", .json(#"{"id":1}"#))
        let client = try makePipelineClient(transport, scheduler: scheduler)

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        guard case .decoding(let type, let underlying, let excerpt)? = pipelineError(observer) as? LeashError else {
            return XCTFail("expected .decoding, got \(pipelineTimeline(observer))")
        }
        XCTAssertEqual(type, "SpecUser")
        XCTAssertTrue(underlying is DecodingError)
        XCTAssertEqual(excerpt, #"{"id":1}"#)
        XCTAssertTrue("\(pipelineError(observer)!)".contains("missing key \"name\""))
    }

    func testExecution_isCold_eachSubscriptionSendsItsOwnRequest() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON))
        let client = try makePipelineClient(transport, scheduler: scheduler)
        let execution = client.eventStream(PipelineEndpoint(), as: SpecUser.self)
        XCTAssertTrue(transport.requests.isEmpty, "nothing happens before subscription")

        let first = scheduler.start { execution }
        let second = scheduler.createObserver(ExecutionEvent<SpecUser>.self)
        _ = execution.subscribe(second)

        XCTAssertEqual(transport.requests.count, 2)
        XCTAssertEqual(first.events.compactMap { $0.value.element?.value }, [specAlice])
        XCTAssertEqual(second.events.compactMap { $0.value.element?.value }, [specAlice])
    }

    // MARK: Cancellation

    func testDispose_beforeTheStubbedDelay_deliversNothingMoreAndReleasesEverything() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 5))
        let client = try makePipelineClient(transport, scheduler: scheduler) { $0.timeout(30) }

        let observer = scheduler.start(disposed: 203) { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(pipelineTimeline(observer), ["requestPrepared(1) @ 200", "requestSent(1) @ 200"])
        // The stubbed answer (due at 205) and the timeout (230) were cancelled with the
        // execution: nothing was left to run after the disposal at 203.
        XCTAssertEqual(scheduler.clock, 203)
    }
}
