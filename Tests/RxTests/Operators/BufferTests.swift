import Dispatch
import Foundation
import Rx
import RxTesting
import XCTest

final class BufferTests: RxTestCase {
    func testBuffer_emitsWhenFullOrWhenTimeSpanElapses() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler, ending: .completed(620))
        let res = scheduler.start { xs.buffer(timeSpan: .seconds(70), count: 3, scheduler: scheduler) }
        XCTAssertEqual(
            res.events,
            [
                .next(230, [1, 2, 3]), .next(300, [4]), .next(360, [5, 6, 7]), .next(430, [8]), .next(500, [9]),
                .next(570, []), .next(620, []), .completed(620),
            ])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 620)])
    }

    func testBuffer_errorDropsTheCurrentBuffer() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler, ending: .error(490, testError))
        let res = scheduler.start { xs.buffer(timeSpan: .seconds(70), count: 3, scheduler: scheduler) }
        XCTAssertEqual(
            res.events,
            [.next(230, [1, 2, 3]), .next(300, [4]), .next(360, [5, 6, 7]), .next(430, [8]), .error(490, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 490)])
    }

    func testBuffer_disposeUnsubscribesAndStopsTheTimer() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler, ending: .completed(620))
        let res = scheduler.start(disposed: 360) { xs.buffer(timeSpan: .seconds(70), count: 3, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(230, [1, 2, 3]), .next(300, [4]), .next(360, [5, 6, 7])])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 360)])
    }

    func testBuffer_countOfZeroOrLessCutsByTimeOnly() {
        for count in [0, -1] {
            let scheduler = TestScheduler(initialClock: 0)
            let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(300)])
            let res = scheduler.start { xs.buffer(timeSpan: .seconds(50), count: count, scheduler: scheduler) }
            XCTAssertEqual(res.events, [.next(250, [1, 2, 3]), .next(300, []), .completed(300)], "count \(count)")
            XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        }
    }

    func testBuffer_emptySourceEmitsAnEmptyBufferThenCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start {
            Observable<Int>.empty().buffer(timeSpan: .seconds(10), count: 3, scheduler: scheduler)
        }
        XCTAssertEqual(res.events, [.next(200, []), .completed(200)])
    }

    func testBuffer_silentSourceEmitsEmptyBuffersOnTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([Recorded<Event<Int>>]())
        let res = scheduler.start(disposed: 500) {
            xs.buffer(timeSpan: .seconds(100), count: 3, scheduler: scheduler)
        }
        XCTAssertEqual(res.events, [.next(300, []), .next(400, [])])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 500)])
    }

    func testBuffer_synchronousSourceFillsBuffersByCount() {
        let scheduler = TestScheduler(initialClock: 0)
        var buffers: [[Int]] = []
        var completions = 0
        _ = Observable.of(1, 2, 3, 4, 5).buffer(timeSpan: .seconds(100), count: 2, scheduler: scheduler).subscribe(
            onNext: { buffers.append($0) }, onCompleted: { completions += 1 })
        XCTAssertEqual(buffers, [[1, 2], [3, 4], [5]])
        XCTAssertEqual(completions, 1)
    }

    func testBuffer_timerAndSourceOnDifferentThreadsNeverOverlapAndLoseNothing() {
        // A real timer on its own queue, cutting every millisecond while the source emits on
        // another thread. (Spinning a TestScheduler against a real thread instead starves
        // the source on a loaded machine.)
        let scheduler = SerialDispatchQueueScheduler(qos: .default)
        let subject = PublishSubject<Int>()
        let probe = TransformingConcurrencyProbe()
        var total = 0
        var completions = 0
        let completed = expectation(description: "completed")
        let subscription = subject.buffer(timeSpan: .milliseconds(1), count: 7, scheduler: scheduler).subscribe(
            onNext: { buffer in
                probe.enter()
                total += buffer.count
                probe.leave()
            },
            onCompleted: {
                completions += 1
                completed.fulfill()
            })
        let emitted = expectation(description: "emitted")
        DispatchQueue.global().async {
            for value in 0..<20_000 { subject.onNext(value) }
            subject.onCompleted()
            emitted.fulfill()
        }
        wait(for: [emitted, completed], timeout: 30)
        XCTAssertEqual(total, 20_000)
        XCTAssertEqual(completions, 1)
        XCTAssertEqual(probe.maximumInside, 1)
        subscription.dispose()
    }

    private func numbers(_ scheduler: TestScheduler, ending: Recorded<Event<Int>>) -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(150, 0), .next(202, 1), .next(215, 2), .next(230, 3), .next(290, 4), .next(330, 5), .next(345, 6),
            .next(360, 7), .next(425, 8), .next(480, 9), ending,
        ])
    }
}
