import Foundation
import Rx
import RxTesting
import XCTest

final class ValuesTests: RxTestCase {
    func testValues_yieldsEveryElementThenFinishes() async throws {
        var received: [Int] = []
        for try await value in Observable.from(1...10).values {
            received.append(value)
        }
        XCTAssertEqual(received, Array(1...10))
    }

    func testValues_emptySequenceFinishesWithoutElements() async throws {
        var received: [Int] = []
        for try await value in Observable<Int>.empty().values {
            received.append(value)
        }
        XCTAssertEqual(received, [])
    }

    func testValues_throwsSequenceErrorAfterItsElements() async {
        let source = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onNext(2)
            observer.onError(testError)
            return Disposables.create()
        }
        var received: [Int] = []
        do {
            for try await value in source.values {
                received.append(value)
            }
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? TestError, testError)
        }
        XCTAssertEqual(received, [1, 2])
    }

    func testValues_errorThrownByOperatorClosureEndsTheLoop() async {
        let source = Observable.from(1...10).map { value -> Int in
            if value > 5 { throw testError }
            return value
        }
        var received: [Int] = []
        do {
            for try await value in source.values {
                received.append(value)
            }
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? TestError, testError)
        }
        XCTAssertEqual(received, [1, 2, 3, 4, 5])
    }

    func testValues_cancellingConsumingTaskDisposesSubscription() async {
        let disposed = expectation(description: "source disposed")
        let firstElement = expectation(description: "first element")
        let source = Observable<Int>.create { observer in
            observer.onNext(1)
            return Disposables.create { disposed.fulfill() }
        }
        // Counted from here: the test keeps its source alive to the end, and every
        // observable counts in `Resources.total`.
        let before = Resources.total
        let task = Task {
            var received: [Int] = []
            do {
                for try await value in source.values {
                    received.append(value)
                    firstElement.fulfill()
                }
                return (received, nil as Error?)
            } catch {
                return (received, error)
            }
        }
        await fulfillment(of: [firstElement], timeout: 5)
        task.cancel()
        let (received, error) = await task.value
        await fulfillment(of: [disposed], timeout: 5)
        XCTAssertEqual(received, [1])
        XCTAssertTrue(error is CancellationError, "got \(String(describing: error))")
        XCTAssertEqual(Resources.total, before)
    }

    func testValues_cancelBeforeAnyElementThrowsCancellationError() async {
        let disposed = expectation(description: "source disposed")
        let source = Observable<Int>.create { _ in
            Disposables.create { disposed.fulfill() }
        }
        let task = Task {
            do {
                for try await _ in source.values {
                    XCTFail("no element expected")
                }
                return nil as Error?
            } catch {
                return error
            }
        }
        task.cancel()
        let error = await task.value
        await fulfillment(of: [disposed], timeout: 5)
        XCTAssertTrue(error is CancellationError, "got \(String(describing: error))")
    }

    func testValues_droppingTheStreamDisposesSubscription() {
        let disposeCount = LockedCounter()
        let subject = PublishSubject<Int>()
        let source = Observable<Int>.create { observer in
            let subscription = subject.subscribe(observer)
            return Disposables.create {
                disposeCount.increment()
                subscription.dispose()
            }
        }
        // Counted from here: the test keeps its source alive to the end, and every
        // observable counts in `Resources.total`.
        let before = Resources.total
        var stream: AsyncThrowingStream<Int, Error>? = source.values
        XCTAssertTrue(subject.hasObservers)
        XCTAssertNotNil(stream)
        stream = nil
        XCTAssertEqual(disposeCount.value, 1)
        XCTAssertFalse(subject.hasObservers)
        XCTAssertEqual(Resources.total, before)
    }

    func testValues_synchronousSourceReleasesEverythingOnceConsumed() async throws {
        let before = Resources.total
        do {
            var received: [String] = []
            for try await value in Observable.just("a").values {
                received.append(value)
            }
            XCTAssertEqual(received, ["a"])
        }
        XCTAssertEqual(Resources.total, before)
    }

    func testValues_buffersEverythingEmittedBeforeTheConsumerReads() async throws {
        let subject = PublishSubject<Int>()
        let stream = subject.values
        for value in 0..<10_000 { subject.onNext(value) }
        subject.onCompleted()
        var count = 0
        var last = -1
        for try await value in stream {
            XCTAssertEqual(value, last + 1)
            last = value
            count += 1
        }
        XCTAssertEqual(count, 10_000)
    }

    func testValues_subscribesWhenCreatedAndUnsubscribesOnCompletion() async throws {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .completed(300), .next(310, 4),
        ])
        let holder = StreamHolder()
        scheduler.scheduleAt(200) { holder.stream = xs.values }
        scheduler.start()
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        var received: [Int] = []
        for try await value in try XCTUnwrap(holder.stream) {
            received.append(value)
        }
        XCTAssertEqual(received, [2, 3])
    }

    func testValues_droppingStreamAtVirtualTimeUnsubscribesThen() async throws {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(260, 2), .completed(300)])
        let holder = StreamHolder()
        scheduler.scheduleAt(200) { holder.stream = xs.values }
        scheduler.scheduleAt(250) { holder.stream = nil }
        scheduler.start()
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testValues_eachStreamIsItsOwnSubscription() async throws {
        let subscriptions = LockedCounter()
        let source = Observable<Int>.create { observer in
            subscriptions.increment()
            observer.onNext(subscriptions.value)
            observer.onCompleted()
            return Disposables.create()
        }
        var first: [Int] = []
        for try await value in source.values { first.append(value) }
        var second: [Int] = []
        for try await value in source.values { second.append(value) }
        XCTAssertEqual(first, [1])
        XCTAssertEqual(second, [2])
    }
}

/// Holds a stream made inside a scheduled action.
private final class StreamHolder: @unchecked Sendable {
    // Used on the thread that drives the test scheduler only.
    var stream: AsyncThrowingStream<Int, Error>?
}

/// A counter safe to bump from any thread.
private final class LockedCounter: @unchecked Sendable {
    // Sendable: the count is behind `lock`.
    private let lock = NSLock()
    private var count = 0

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }
}
