import Dispatch
import Foundation
import Rx
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One plain task's answer, as the session's delegate calls come in any order URLSession
/// makes them: metrics after the completion are kept (the answer waits for them, briefly),
/// a challenge left unanswered is the answer, and the dispatcher place goes back once.
final class PlainTaskTests: XCTestCase {
    /// Records what the transport reported.
    private final class Recorder: ObserverType, @unchecked Sendable {
        typealias Element = TransportResponse
        private let lock = NSLock()
        private var events: [Event<TransportResponse>] = []
        let ended: XCTestExpectation

        init(_ ended: XCTestExpectation) {
            self.ended = ended
        }

        func on(_ event: Event<TransportResponse>) {
            lock.withLock { events.append(event) }
            if event.isStopEvent { ended.fulfill() }
        }

        var all: [Event<TransportResponse>] { lock.withLock { events } }

        var response: TransportResponse? {
            for case .next(let response) in all { return response }
            return nil
        }
    }

    private let url = URL(string: "http://127.0.0.1/x")!

    private func head(_ status: Int = 200) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])!
    }

    private let metrics = TransportMetrics(
        taskInterval: DateInterval(start: Date(timeIntervalSince1970: 0), duration: 1), redirectCount: 0,
        transactions: [])

    private func makeTask(collectsMetrics: Bool, place: DispatcherPlace? = nil) -> (PlainTask<Recorder>, Recorder) {
        let recorder = Recorder(expectation(description: "the answer"))
        let state = TaskState(cancelQueue: DispatchQueue(label: "cancel"), place: place)
        let task = PlainTask(
            state: state, credentials: .none, observer: recorder, handoff: nil,
            deliveryQueue: DispatchQueue(label: "delivery"), collectsMetrics: collectsMetrics)
        return (task, recorder)
    }

    func testMetricsAfterTheCompletion_areInTheAnswer() {
        let (task, recorder) = makeTask(collectsMetrics: true)
        task.received(head())
        task.received(Data("body".utf8))
        task.completed(nil, response: nil)
        XCTAssertTrue(recorder.all.isEmpty, "the answer waits for the metrics")
        task.collected(metrics)
        wait(for: [recorder.ended], timeout: 5)
        XCTAssertEqual(recorder.response?.metrics, metrics)
        XCTAssertEqual(recorder.response?.data, Data("body".utf8))
        XCTAssertEqual(recorder.all.count, 2, "one value, one completion")
    }

    func testMetricsBeforeTheCompletion_areInTheAnswer() {
        let (task, recorder) = makeTask(collectsMetrics: true)
        task.received(head())
        task.collected(metrics)
        task.completed(nil, response: nil)
        wait(for: [recorder.ended], timeout: 5)
        XCTAssertEqual(recorder.response?.metrics, metrics)
    }

    func testMetricsThatNeverCome_doNotHoldTheAnswer() {
        let (task, recorder) = makeTask(collectsMetrics: true)
        task.received(head())
        task.completed(nil, response: nil)
        wait(for: [recorder.ended], timeout: 5)
        XCTAssertNil(recorder.response?.metrics)
        XCTAssertEqual(recorder.all.count, 2)
    }

    func testAChallengeLeftUnanswered_isTheAnswer_andTheCancelAfterIsNot() {
        let dispatcher = RequestDispatcher(perHost: 1, total: 1)
        XCTAssertTrue(dispatcher.tryAcquire(host: "h"))
        let (task, recorder) = makeTask(
            collectsMetrics: false, place: DispatcherPlace(dispatcher: dispatcher, host: "h"))
        task.received(head(401))
        task.received(Data("denied".utf8))
        task.deliverChallenged(nil)
        wait(for: [recorder.ended], timeout: 5)
        XCTAssertEqual(dispatcher.counts.running, 1, "the place is held until URLSession ends the task")
        task.completed(URLError(.cancelled), response: nil)
        XCTAssertEqual(recorder.response?.httpResponse.statusCode, 401)
        XCTAssertEqual(recorder.response?.data, Data("denied".utf8))
        XCTAssertEqual(recorder.all.count, 2, "the cancel that follows reports nothing")
        XCTAssertEqual(dispatcher.counts.running, 0)
    }

    func testResending_startsTheBodyOver() {
        let (task, recorder) = makeTask(collectsMetrics: false)
        task.received(head(401))
        task.received(Data("denied".utf8))
        task.resending()
        task.received(Data("ok".utf8))
        task.completed(nil, response: head(200))
        wait(for: [recorder.ended], timeout: 5)
        XCTAssertEqual(recorder.response?.httpResponse.statusCode, 200, "the task's own head")
        XCTAssertEqual(recorder.response?.data, Data("ok".utf8))
    }

    func testDisposedBeforeLaunch_createsNoTask_andGivesThePlaceBack() {
        let dispatcher = RequestDispatcher(perHost: 1, total: 1)
        XCTAssertTrue(dispatcher.tryAcquire(host: "h"))
        let state = TaskState(
            cancelQueue: DispatchQueue(label: "cancel"), place: DispatcherPlace(dispatcher: dispatcher, host: "h"))
        state.prepare {
            XCTFail("no task is created")
            return URLSession.shared.dataTask(with: self.url)
        }
        state.dispose()
        state.launch()
        XCTAssertEqual(dispatcher.counts.running, 0)
    }
}
