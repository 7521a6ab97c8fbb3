import Dispatch
import Foundation
import LeashTestSupport
import Rx
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `Attempt`, one attempt up to the completion interceptors: a request that cannot be built
/// goes straight to the completion stage; outcomes (an interceptor's early value and the
/// network's) pass the completion interceptors one at a time, in the order produced; a
/// redirect is the next hop of the same attempt, within the policy's limit; `retry()` goes
/// to the execution; and once stopped, the attempt sends nothing and late answers do
/// nothing.
final class AttemptTests: PipelineTestCase {
    private let request = URLRequest(url: executionTestURL)

    func testStoppedBeforeItBegins_sendsNothing() throws {
        let transport = HeldTransport()
        let (attempt, output) = makeAttempt(try makePipelineClient(transport))

        attempt.dispose()
        attempt.begin(.success(request))

        XCTAssertFalse(attempt.isLive)
        XCTAssertTrue(transport.requests.isEmpty)
        XCTAssertEqual(output.record.all, [])
    }

    func testStoppedWhileItsRequestIsOut_cancelsIt_andLateAnswersDoNothing() throws {
        let transport = HeldTransport()
        let (attempt, output) = makeAttempt(try makePipelineClient(transport))
        attempt.begin(.success(request))
        XCTAssertEqual(transport.requests.count, 1)

        attempt.dispose()
        let step = Attempt.Step(request: request, context: attempt.context)
        attempt.received(TransportResponse(httpResponse: executionTestResponse(200), data: Data()), step)
        attempt.failed(LeashError.cancelled, step)

        XCTAssertEqual(transport.requests[0].disposeCount, 1)
        XCTAssertEqual(output.record.all, [])
    }

    func testARequestThatCannotBeBuilt_goesStraightToTheCompletionStage_asAnEncodingError() throws {
        let transport = HeldTransport()
        let seen = PipelineLog()
        let client = try makePipelineClient(transport) {
            $0.add(
                interceptor: PipelineCompletionInterceptor { chain, response in
                    seen.append(executionErrorName(response.error))
                    chain.proceed()
                })
        }
        let (attempt, output) = makeAttempt(client)

        attempt.begin(.failure(PipelineAppError.rejected("no body")))

        XCTAssertEqual(seen.all, ["encoding"])
        XCTAssertEqual(output.record.all, ["failure encoding", "finished"])
        XCTAssertTrue(transport.requests.isEmpty)
    }

    func testOutcomes_passTheCompletionInterceptorsOneAtATime_inTheOrderProduced() throws {
        let transport = HeldTransport()
        let seen = PipelineLog()
        let held = PipelineHeldChains()
        let client = try makePipelineClient(transport) {
            $0.add(
                interceptor: PipelineExecutionInterceptor { chain in
                    chain.complete(with: Data("cached".utf8), finish: false)
                    chain.proceed()
                }
            )
            .add(
                interceptor: PipelineCompletionInterceptor { chain, response in
                    seen.append(response.value.map { String(decoding: $0, as: UTF8.self) } ?? "failure")
                    held.hold(chain)
                })
        }
        let (attempt, output) = makeAttempt(client)

        attempt.begin(.success(request))
        transport.requests[0].answer(200, "network")
        XCTAssertEqual(seen.all, ["cached"], "the network's outcome waits for the cached one's interceptors")

        held.last?.proceed()
        XCTAssertEqual(seen.all, ["cached", "network"])
        XCTAssertEqual(output.record.all, ["success cached"])
        held.last?.proceed()
        held.releaseAll()

        XCTAssertEqual(output.record.all, ["success cached", "success network", "finished"])
    }

    func testARedirect_isTheNextHopOfTheSameAttempt_withinThePolicysLimit() throws {
        let transport = HeldTransport()
        let client = try makePipelineClient(transport) { $0.redirects(.follow(limit: 1)) }
        let (attempt, output) = makeAttempt(client)
        attempt.begin(.success(request))

        transport.requests[0].answer(302, headers: ["Location": "/v1/users/2"])
        XCTAssertEqual(transport.requests.map(\.request.url?.path), ["/v1/users/1", "/v1/users/2"])
        XCTAssertEqual(output.record.all, [], "the redirect is not the attempt's answer")
        transport.requests[1].answer(302, headers: ["Location": "/v1/users/3"])

        XCTAssertEqual(transport.requests.count, 2, "past the limit nothing more is sent")
        XCTAssertEqual(output.record.all, ["failure tooManyRedirects(1)", "finished"])
    }

    func testRetry_goesToTheExecution_whichStopsThisAttemptAndStartsTheNext() throws {
        let transport = HeldTransport()
        let client = try makePipelineClient(transport) {
            $0.add(
                interceptor: PipelineCompletionInterceptor { chain, _ in
                    guard chain.attempt == 1 else { return chain.proceed() }
                    do { try chain.retry() } catch { chain.complete(with: error) }
                })
        }
        let sink = RecordingSink(record: SinkRecord(), reportsProgress: true)
        let execution = makeExecution(client, sink: sink)
        execution.start()

        transport.requests[0].answer(500)
        XCTAssertTrue(execution.isCurrent(2))
        transport.requests[1].answer(200, "second")

        XCTAssertEqual(sink.record.values, ["value second"])
        XCTAssertTrue(sink.record.all.contains("retrying(2)"))
        XCTAssertEqual(sink.record.ends, ["end nil"])
    }
}
