import Dispatch
import Foundation
import LeashTestSupport
import Rx
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `AttemptAnswer` and its two observers (`TransportObserver`, `TransferObserver`): the
/// answer keeps the transport's subscription and disposes it exactly once, whether its
/// own dispose comes before or after the subscription is kept; gives the dispatcher place
/// back once, after the subscription is disposed; lets the subscription go when the request
/// ends; and takes a completion without a response as `invalidResponse`.
final class TransportObserversTests: PipelineTestCase {
    private var client: Client!
    private var dispatcher: RequestDispatcher!

    override func setUpWithError() throws {
        try super.setUpWithError()
        client = try makePipelineClient(HeldTransport())
        dispatcher = RequestDispatcher(perHost: 1, total: 1)
    }

    override func tearDown() {
        client = nil
        dispatcher = nil
        super.tearDown()
    }

    /// An answer for attempt 1, holding the dispatcher's one place for host `h`.
    private func answerHoldingThePlace() -> (AttemptAnswer, RecordingAttemptOutput) {
        XCTAssertTrue(dispatcher.tryAcquire(host: "h"))
        let (attempt, output) = makeAttempt(client)
        let step = Attempt.Step(request: URLRequest(url: executionTestURL), context: attempt.context)
        let place = DispatcherPlace(dispatcher: dispatcher, host: "h")
        return (AttemptAnswer(attempt: attempt, step: step, place: place), output)
    }

    private var okResponse: TransportResponse {
        TransportResponse(httpResponse: executionTestResponse(200), data: Data("ok".utf8))
    }

    func testDisposeAfterKeep_disposesTheSubscriptionOnce_thenGivesThePlaceBackOnce() {
        let (answer, _) = answerHoldingThePlace()
        let subscription = CountingDisposable()
        let disposedWhenTheNextStarted = SpecLocked<[Int]>([])
        _ = dispatcher.enqueue(host: "h") {
            disposedWhenTheNextStarted.withLock { $0.append(subscription.disposeCount) }
        }

        answer.keep(subscription)
        XCTAssertEqual(subscription.disposeCount, 0, "kept, not disposed")
        answer.dispose()
        answer.dispose()

        XCTAssertEqual(subscription.disposeCount, 1)
        XCTAssertEqual(
            disposedWhenTheNextStarted.value, [1], "the next request started once, after this one was disposed")
        XCTAssertEqual(dispatcher.counts.running, 1, "the place went to the next request, and only once")
    }

    func testDisposeBeforeKeep_givesThePlaceBack_andDisposesTheSubscriptionAsItIsKept() {
        let (answer, _) = answerHoldingThePlace()
        answer.dispose()
        XCTAssertEqual(dispatcher.counts.running, 0, "nothing was kept: the place comes back at once")

        let subscription = CountingDisposable()
        answer.keep(subscription)
        answer.dispose()

        XCTAssertEqual(subscription.disposeCount, 1, "kept after the dispose: disposed at once, once")
        XCTAssertEqual(dispatcher.counts.running, 0, "given back once")
    }

    func testTheRequestsEnd_letsTheSubscriptionGo_andGivesThePlaceBack() {
        let (answer, output) = answerHoldingThePlace()
        let disposals = SpecLocked(0)
        weak var weakSubscription: CountingDisposable?
        do {
            let subscription = CountingDisposable { disposals.withLock { $0 += 1 } }
            weakSubscription = subscription
            answer.keep(subscription)
        }
        XCTAssertNotNil(weakSubscription, "the answer keeps the subscription while the request runs")

        answer.respond(okResponse)
        answer.end(nil)
        answer.dispose()

        XCTAssertNil(weakSubscription, "the two would keep each other alive")
        XCTAssertEqual(disposals.value, 1)
        XCTAssertEqual(dispatcher.counts.running, 0)
        XCTAssertEqual(output.record.all, ["success ok", "finished"], "an end after the response is no failure")
    }

    func testCompletedWithoutAResponse_isInvalidResponse() {
        let (answer, output) = answerHoldingThePlace()
        answer.end(nil)
        XCTAssertEqual(output.record.all, ["failure invalidResponse", "finished"])
        XCTAssertEqual(dispatcher.counts.running, 0)
    }

    func testAFailure_goesToTheAttemptAsItIs() {
        let (answer, output) = answerHoldingThePlace()
        answer.end(LeashError.transport(URLError(.timedOut)))
        XCTAssertEqual(output.record.all, ["failure transport(\(URLError.Code.timedOut.rawValue))", "finished"])
    }

    func testTransportObserver_takesANextAsTheResponse_andItsCompletionAsTheEnd() {
        let (attempt, output) = makeAttempt(client)
        let step = Attempt.Step(request: URLRequest(url: executionTestURL), context: attempt.context)
        let observer = TransportObserver(attempt: attempt, step: step)
        observer.on(.next(okResponse))
        observer.on(.completed)
        XCTAssertEqual(output.record.all, ["success ok", "finished"])

        let (failing, failures) = makeAttempt(client)
        TransportObserver(attempt: failing, step: step).on(.error(LeashError.cancelled))
        XCTAssertEqual(failures.record.all, ["failure cancelled", "finished"])
    }

    func testTransferObserver_takesTheCompletedEventAsTheResponse_andProgressAsNoAnswer() {
        let (attempt, output) = makeAttempt(client)
        let step = Attempt.Step(request: URLRequest(url: executionTestURL), context: attempt.context)
        let observer = TransferObserver(attempt: attempt, step: step)
        observer.on(.next(.downloadProgress(TransferProgress(completedBytes: 1, expectedBytes: 2))))
        observer.on(.next(.completed(okResponse)))
        observer.on(.completed)
        XCTAssertEqual(output.record.all, ["success ok", "finished"])

        let (silent, silentOutput) = makeAttempt(client)
        let progressOnly = TransferObserver(attempt: silent, step: step)
        progressOnly.on(.next(.uploadProgress(TransferProgress(completedBytes: 1, expectedBytes: 1))))
        progressOnly.on(.completed)
        XCTAssertEqual(silentOutput.record.all, ["failure invalidResponse", "finished"], "progress is not a response")
    }

    func testKeepRacingDispose_onManyThreads_eachSubscriptionIsDisposedOnce_andEveryPlaceComesBackOnce() {
        let count = 2_000
        let dispatcher = RequestDispatcher(perHost: count, total: count)
        let (attempt, _) = makeAttempt(client)
        let step = Attempt.Step(request: URLRequest(url: executionTestURL), context: attempt.context)
        let answers = (0..<count).map { _ in
            XCTAssertTrue(dispatcher.tryAcquire(host: "h"))
            return AttemptAnswer(
                attempt: attempt, step: step, place: DispatcherPlace(dispatcher: dispatcher, host: "h"))
        }
        let subscriptions = (0..<count).map { _ in CountingDisposable() }

        // Each answer's keep and dispose run on two threads at once, in either order.
        DispatchQueue.concurrentPerform(iterations: count * 2) { index in
            let answer = answers[index / 2]
            if index % 2 == 0 {
                answer.keep(subscriptions[index / 2])
            } else {
                answer.dispose()
                answer.dispose()
            }
        }

        XCTAssertEqual(
            subscriptions.filter { $0.disposeCount != 1 }.count, 0, "a subscription was disposed 0 or 2 times")
        XCTAssertEqual(dispatcher.counts.running, 0, "a place was given back twice, or never")
    }
}
