import Foundation
import Rx
import RxTesting
import XCTest

/// `Infallible.values`: a non-throwing `AsyncStream`.
final class InfallibleValuesTests: RxTestCase {
    func testValues_isAnAsyncStreamThatYieldsEveryElementThenFinishes() async {
        let stream: AsyncStream<Int> = Infallible.from(1...10).values
        var received: [Int] = []
        for await value in stream {
            received.append(value)
        }
        XCTAssertEqual(received, Array(1...10))
    }

    func testValues_synchronousSourceReleasesEverythingOnceConsumed() async {
        let before = Resources.total
        do {
            var received: [String] = []
            for await value in Infallible.just("a").values {
                received.append(value)
            }
            XCTAssertEqual(received, ["a"])
        }
        XCTAssertEqual(Resources.total, before)
    }

    func testValues_subscribesWhenCreatedAndUnsubscribesOnCompletion() async throws {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .completed(300), .next(310, 4),
        ])
        let holder = InfallibleStreamHolder()
        scheduler.scheduleAt(200) { holder.stream = xs.asInfallible(onErrorJustReturn: 0).values }
        scheduler.start()
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        var received: [Int] = []
        for await value in try XCTUnwrap(holder.stream) {
            received.append(value)
        }
        XCTAssertEqual(received, [2, 3])
    }

    func testValues_cancellingTheConsumingTaskDisposesTheSubscriptionAndEndsTheLoop() async {
        let disposed = expectation(description: "source disposed")
        let firstElement = expectation(description: "first element")
        let source = Infallible<Int>.create { observer in
            observer(.next(1))
            return Disposables.create { disposed.fulfill() }
        }
        // Counted from here: the test keeps its source alive to the end, and every
        // observable counts in `Resources.total`.
        let before = Resources.total
        let task = Task {
            var received: [Int] = []
            for await value in source.values {
                received.append(value)
                firstElement.fulfill()
            }
            return received
        }
        await fulfillment(of: [firstElement], timeout: 5)
        task.cancel()
        // The loop ends without an error (an `AsyncStream` cannot throw).
        let received = await task.value
        await fulfillment(of: [disposed], timeout: 5)
        XCTAssertEqual(received, [1])
        XCTAssertEqual(Resources.total, before)
    }

    func testValues_cancelledBeforeAnyElementEndsWithoutElements() async {
        let disposed = expectation(description: "source disposed")
        let source = Infallible<Int>.create { _ in
            Disposables.create { disposed.fulfill() }
        }
        let task = Task {
            var count = 0
            for await _ in source.values { count += 1 }
            return count
        }
        task.cancel()
        let count = await task.value
        await fulfillment(of: [disposed], timeout: 5)
        XCTAssertEqual(count, 0)
    }

    func testValues_droppingTheStreamDisposesTheSubscription() {
        let subject = PublishSubject<Int>()
        // Counted from here: the test keeps its source alive to the end, and every
        // observable counts in `Resources.total`.
        let before = Resources.total
        var stream: AsyncStream<Int>? = subject.asInfallible(onErrorJustReturn: 0).values
        XCTAssertTrue(subject.hasObservers)
        XCTAssertNotNil(stream)
        stream = nil
        XCTAssertFalse(subject.hasObservers)
        XCTAssertEqual(Resources.total, before)
    }

    func testValues_buffersEverythingEmittedBeforeTheConsumerReads() async {
        let relay = PublishRelay<Int>()
        let stream = relay.asInfallible().values
        for value in 0..<1_000 { relay.accept(value) }
        var received: [Int] = []
        for await value in stream {
            received.append(value)
            if received.count == 1_000 { break }
        }
        XCTAssertEqual(received, Array(0..<1_000))
    }
}

/// Holds a stream made inside a scheduled action.
private final class InfallibleStreamHolder: @unchecked Sendable {
    // Used on the thread that drives the test scheduler only.
    var stream: AsyncStream<Int>?
}
