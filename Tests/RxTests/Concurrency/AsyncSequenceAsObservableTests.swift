import Foundation
import Rx
import RxTesting
import XCTest

final class AsyncSequenceAsObservableTests: RxTestCase {
    func testAsObservable_emitsEveryElementThenCompletes() {
        let stream = AsyncStream<Int> { continuation in
            for value in 1...5 { continuation.yield(value) }
            continuation.finish()
        }
        let result = stream.asObservable().toBlocking(timeout: 5).materialize()
        guard case .completed(let elements) = result else {
            return XCTFail("expected completion, got \(result)")
        }
        XCTAssertEqual(elements, [1, 2, 3, 4, 5])
    }

    func testAsObservable_detachedTaskEmitsEveryElementThenCompletes() {
        let stream = AsyncStream<Int> { continuation in
            for value in 1...5 { continuation.yield(value) }
            continuation.finish()
        }
        XCTAssertEqual(try stream.asObservable(detached: true).toBlocking(timeout: 5).toArray(), [1, 2, 3, 4, 5])
    }

    /// An async sequence of one element: the priority of the task that iterates it.
    private struct CurrentPriority: AsyncSequence, Sendable {
        typealias Element = TaskPriority

        struct AsyncIterator: AsyncIteratorProtocol {
            var done = false
            mutating func next() async -> TaskPriority? {
                defer { done = true }
                return done ? nil : Task.currentPriority
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
    }

    /// RxSwift's `asObservable(priority:)`: the iterating task runs at the priority asked for,
    /// detached or not.
    func testAsObservable_iteratesAtThePriorityAskedFor() throws {
        XCTAssertEqual(try CurrentPriority().asObservable(priority: .high).toBlocking(timeout: 5).toArray(), [.high])
        XCTAssertEqual(
            try CurrentPriority().asObservable(priority: .low, detached: true).toBlocking(timeout: 5).toArray(), [.low])
    }

    func testAsObservable_emptySequenceCompletes() {
        let stream = AsyncStream<Int> { $0.finish() }
        XCTAssertEqual(try stream.asObservable().toBlocking(timeout: 5).toArray(), [])
    }

    func testAsObservable_thrownErrorBecomesSequenceError() {
        let stream = AsyncThrowingStream<Int, Error> { continuation in
            continuation.yield(1)
            continuation.yield(2)
            continuation.finish(throwing: testError)
        }
        let result = stream.asObservable().toBlocking(timeout: 5).materialize()
        guard case .failed(let elements, let error) = result else {
            return XCTFail("expected failure, got \(result)")
        }
        XCTAssertEqual(elements, [1, 2])
        XCTAssertEqual(error as? TestError, testError)
    }

    func testAsObservable_cancellationErrorBecomesCompletion() {
        let stream = AsyncThrowingStream<Int, Error> { continuation in
            continuation.yield(1)
            continuation.finish(throwing: CancellationError())
        }
        let result = stream.asObservable().toBlocking(timeout: 5).materialize()
        guard case .completed(let elements) = result else {
            return XCTFail("expected completion, got \(result)")
        }
        XCTAssertEqual(elements, [1])
    }

    func testAsObservable_iteratesOffTheSubscribingThread() {
        let stream = AsyncStream<Bool> { continuation in
            continuation.yield(true)
            continuation.finish()
        }
        let onMain = stream.asObservable().map { _ in Thread.isMainThread }
        XCTAssertEqual(try onMain.toBlocking(timeout: 5).toArray(), [false])
    }

    func testAsObservable_eachSubscriptionIteratesAgain() {
        let sequence = CountingSequence(limit: 3)
        let observable = sequence.asObservable()
        XCTAssertEqual(try observable.toBlocking(timeout: 5).toArray(), [0, 1, 2])
        XCTAssertEqual(try observable.toBlocking(timeout: 5).toArray(), [0, 1, 2])
    }

    func testAsObservable_disposeCancelsTheIteratingTask() {
        let firstElement = expectation(description: "first element")
        let terminated = expectation(description: "stream cancelled")
        let stream = AsyncStream<Int> { continuation in
            continuation.onTermination = { termination in
                if case .cancelled = termination { terminated.fulfill() }
            }
            continuation.yield(1)
        }
        let events = EventLog<Int>()
        let subscription = stream.asObservable().subscribe(
            onNext: { value in
                events.append(.next(value))
                firstElement.fulfill()
            },
            onError: { events.append(.error($0)) },
            onCompleted: { events.append(.completed) })
        wait(for: [firstElement], timeout: 5)
        subscription.dispose()
        wait(for: [terminated], timeout: 5)
        XCTAssertEqual(events.all, [.next(1)])
    }

    func testAsObservable_stopsPullingAfterDisposeEvenIfSequenceIgnoresCancellation() {
        let finished = expectation(description: "iteration ended")
        let sequence = EndlessSequence(onIteratorEnd: { finished.fulfill() })
        let box = DisposableHolder()
        let count = EventLog<Int>()
        // The task may deliver before `subscribe` returns: hold it until `box` is set.
        let subscribed = DispatchSemaphore(value: 0)
        box.disposable = sequence.asObservable().subscribe(onNext: { value in
            if value == 0 { subscribed.wait() }
            count.append(.next(value))
            if value == 3 { box.disposable?.dispose() }
        })
        subscribed.signal()
        wait(for: [finished], timeout: 5)
        XCTAssertEqual(count.all.compactMap(\.element), [0, 1, 2, 3])
        XCTAssertLessThanOrEqual(sequence.pulled, 5)
        box.disposable = nil
    }

    func testAsObservable_disposingRightAfterSubscribingStopsTheIteration() {
        // The task may already be running when `dispose()` is called: what matters is that
        // nothing but an element already in flight arrives after it returned, and that
        // the endless iteration ends.
        let finished = expectation(description: "iteration ended")
        let sequence = EndlessSequence(onIteratorEnd: { finished.fulfill() })
        let events = EventLog<Int>()
        let isDisposed = StressFlag()
        let afterDispose = StressCounter()
        let subscription = sequence.asObservable().subscribe(
            onNext: { value in
                if isDisposed.isSet { afterDispose.increment() }
                events.append(.next(value))
            },
            onCompleted: { events.append(.completed) })
        subscription.dispose()
        isDisposed.set()
        wait(for: [finished], timeout: 5)
        XCTAssertLessThanOrEqual(afterDispose.value, 1)
        XCTAssertFalse(events.all.contains { $0.isCompleted })
    }
}

/// Yields `0..<limit`.
private struct CountingSequence: AsyncSequence, Sendable {
    typealias Element = Int
    let limit: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var next = 0
        let limit: Int

        mutating func next() async -> Int? {
            guard next < limit else { return nil }
            defer { next += 1 }
            return next
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(limit: limit) }
}

/// Yields 0, 1, 2, … for ever, never checking for cancellation; counts what was pulled
/// and reports when its iterator is freed (the iterating loop ended).
private final class EndlessSequence: AsyncSequence, @unchecked Sendable {
    // Sendable: `count` is behind `lock`; the callback is only called.
    typealias Element = Int
    private let lock = NSLock()
    private var count = 0
    private let onIteratorEnd: @Sendable () -> Void

    init(onIteratorEnd: @escaping @Sendable () -> Void) {
        self.onIteratorEnd = onIteratorEnd
    }

    var pulled: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    fileprivate func pull() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count - 1
    }

    final class AsyncIterator: AsyncIteratorProtocol {
        let sequence: EndlessSequence

        init(sequence: EndlessSequence) { self.sequence = sequence }

        deinit { sequence.onIteratorEnd() }

        func next() async -> Int? { sequence.pull() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(sequence: self) }
}

/// Events recorded from any thread.
private final class EventLog<Element>: @unchecked Sendable {
    // Sendable: the events are behind `lock`.
    private let lock = NSLock()
    private var events: [Event<Element>] = []

    var all: [Event<Element>] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }

    func append(_ event: Event<Element>) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }
}

private final class DisposableHolder: @unchecked Sendable {
    // Set before any event can arrive that reads it, and cleared at the end of the test.
    var disposable: Disposable?
}
