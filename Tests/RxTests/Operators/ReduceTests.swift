import Rx
import RxTesting
import XCTest

final class ReduceTests: RxTestCase {
    func testReduce_emitsTheSeedForAnEmptySource() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .completed(250)])
        let res = scheduler.start { xs.reduce(42, accumulator: +) }
        XCTAssertEqual(res.events, [.next(250, 42), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testReduce_foldsEveryElementAtCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 0), .next(220, 1), .next(230, 2), .next(240, 3), .next(250, 4), .completed(260),
        ])
        let res = scheduler.start { xs.reduce(42, accumulator: +) }
        XCTAssertEqual(res.events, [.next(260, 42 + 0 + 1 + 2 + 3 + 4), .completed(260)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 260)])
    }

    func testReduce_sourceErrorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .error(210, testError)])
        let res = scheduler.start { xs.reduce(42, accumulator: +) }
        XCTAssertEqual(res.events, [.error(210, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
    }

    func testReduce_neverEmitsNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1)])
        let res = scheduler.start { xs.reduce(42, accumulator: +) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testReduce_accumulatorThrowingEndsWithItsError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, 0), .next(220, 1), .next(230, 2), .next(240, 3), .completed(260),
        ])
        let res = scheduler.start {
            xs.reduce(42) { accumulated, value in
                if value == 2 { throw testError }
                return accumulated + value
            }
        }
        XCTAssertEqual(res.events, [.error(230, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testReduce_mapResultTransformsTheFinalValue() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(260)])
        let res = scheduler.start { xs.reduce(0, accumulator: +, mapResult: { "sum \($0)" }) }
        XCTAssertEqual(res.events, [.next(260, "sum 3"), .completed(260)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 260)])
    }

    func testReduce_mapResultThrowingEndsWithItsError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(260)])
        let res = scheduler.start {
            xs.reduce(0, accumulator: +, mapResult: { _ -> Int in throw testError })
        }
        XCTAssertEqual(res.events, [.error(260, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 260)])
    }

    func testReduce_eachSubscriptionStartsFromTheSeed() {
        let numbers = Observable.of(1, 2, 3).reduce([Int](), accumulator: { $0 + [$1] })
        var results: [[Int]] = []
        _ = numbers.subscribe(onNext: { results.append($0) })
        _ = numbers.subscribe(onNext: { results.append($0) })
        XCTAssertEqual(results, [[1, 2, 3], [1, 2, 3]])
    }

    func testReduce_disposingOnTheResultSkipsCompletion() {
        let box = ErrorsDisposableBox()
        let subject = PublishSubject<Int>()
        var events: [Event<Int>] = []
        box.disposable = subject.reduce(0, accumulator: +).subscribe { event in
            events.append(event)
            box.disposable?.dispose()
        }
        subject.onNext(5)
        subject.onCompleted()
        XCTAssertEqual(events, [.next(5)])
        box.disposable = nil
    }
}
