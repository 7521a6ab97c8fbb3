import Foundation
import Rx
import RxTesting
import XCTest

final class BlockingObservableTests: RxTestCase {
    // MARK: toArray

    func testToArray_emptySequenceGivesEmptyArray() {
        XCTAssertEqual(try Observable<Int>.empty().toBlocking().toArray(), [])
    }

    func testToArray_returnsEveryElement() {
        XCTAssertEqual(try Observable.of(42, 43, 44, 45).toBlocking().toArray(), [42, 43, 44, 45])
    }

    func testToArray_throwsSequenceError() {
        XCTAssertThrowsError(try Observable<Int>.error(testError).toBlocking().toArray()) { error in
            XCTAssertEqual(error as? TestError, testError)
        }
    }

    func testToArray_throwsErrorEvenAfterElements() {
        XCTAssertThrowsError(try elementsThenError([1, 2]).toBlocking().toArray()) { error in
            XCTAssertEqual(error as? TestError, testError)
        }
    }

    func testToArray_waitsForBackgroundThreadSource() {
        XCTAssertEqual(try backgroundSource([1, 2, 3]).toBlocking().toArray(), [1, 2, 3])
    }

    func testToArray_timesOutOnNever() {
        XCTAssertThrowsError(try Observable<Int>.never().toBlocking(timeout: 0.01).toArray()) { error in
            assertError(error, RxError.timeout)
        }
    }

    func testToArray_zeroTimeoutStillReadsASynchronousSequence() {
        XCTAssertEqual(try Observable.of(1, 2).toBlocking(timeout: 0).toArray(), [1, 2])
    }

    func testToArray_zeroOrNegativeTimeoutFailsAtOnceWhenTheSequenceIsNotDone() {
        for timeout in [0, -1] as [TimeInterval] {
            XCTAssertThrowsError(try Observable<Int>.never().toBlocking(timeout: timeout).toArray()) { error in
                assertError(error, RxError.timeout)
            }
        }
    }

    func testToArray_timeoutDisposesTheSubscription() {
        let subject = PublishSubject<Int>()
        XCTAssertThrowsError(try subject.toBlocking(timeout: 0.01).toArray())
        XCTAssertFalse(subject.hasObservers)
    }

    func testToArray_independentReadsFromBackgroundSources() {
        for _ in 0..<10 {
            XCTAssertEqual(try backgroundSource([1, 2]).toBlocking(timeout: 5).toArray(), [1, 2])
            XCTAssertEqual(try backgroundSource([3]).toBlocking(timeout: 5).toArray(), [3])
        }
    }

    // MARK: first

    func testFirst_emptySequenceGivesNil() {
        XCTAssertNil(try Observable<Int>.empty().toBlocking().first())
    }

    func testFirst_returnsFirstElement() {
        XCTAssertEqual(try Observable.of(42, 43, 44).toBlocking().first(), 42)
    }

    func testFirst_throwsErrorBeforeFirstElement() {
        XCTAssertThrowsError(try Observable<Int>.error(testError).toBlocking().first()) { error in
            XCTAssertEqual(error as? TestError, testError)
        }
    }

    func testFirst_ignoresErrorAfterFirstElement() {
        XCTAssertEqual(try elementsThenError([7]).toBlocking().first(), 7)
    }

    func testFirst_returnsWithoutWaitingForCompletionAndDisposes() {
        let disposed = expectation(description: "subscription disposed")
        let subject = PublishSubject<Int>()
        let source = Observable<Int>.create { observer in
            let subscription = subject.subscribe(observer)
            DispatchQueue.global().async { subject.onNext(5) }
            return Disposables.create {
                subscription.dispose()
                disposed.fulfill()
            }
        }
        XCTAssertEqual(try source.toBlocking(timeout: 5).first(), 5)
        wait(for: [disposed], timeout: 5)
        XCTAssertFalse(subject.hasObservers)
    }

    func testFirst_timesOutOnNever() {
        XCTAssertThrowsError(try Observable<Int>.never().toBlocking(timeout: 0.01).first()) { error in
            assertError(error, RxError.timeout)
        }
    }

    // MARK: last

    func testLast_emptySequenceGivesNil() {
        XCTAssertNil(try Observable<Int>.empty().toBlocking().last())
    }

    func testLast_returnsLastElement() {
        XCTAssertEqual(try Observable.of(42, 43, 44, 45).toBlocking().last(), 45)
    }

    func testLast_throwsSequenceError() {
        XCTAssertThrowsError(try elementsThenError([1]).toBlocking().last()) { error in
            XCTAssertEqual(error as? TestError, testError)
        }
    }

    func testLast_waitsForBackgroundThreadSource() {
        XCTAssertEqual(try backgroundSource([1, 2, 3]).toBlocking(timeout: 5).last(), 3)
    }

    func testLast_timesOutOnNever() {
        XCTAssertThrowsError(try Observable<Int>.never().toBlocking(timeout: 0.01).last()) { error in
            assertError(error, RxError.timeout)
        }
    }

    // MARK: single

    func testSingle_emptySequenceThrowsNoElements() {
        XCTAssertThrowsError(try Observable<Int>.empty().toBlocking().single()) { error in
            assertError(error, RxError.noElements)
        }
    }

    func testSingle_returnsTheOnlyElement() {
        XCTAssertEqual(try Observable.just(42).toBlocking().single(), 42)
    }

    func testSingle_twoElementsThrowMoreThanOneElement() {
        XCTAssertThrowsError(try Observable.of(42, 43).toBlocking().single()) { error in
            assertError(error, RxError.moreThanOneElement)
        }
    }

    func testSingle_stopsAtTheSecondElement() {
        let subject = PublishSubject<Int>()
        let source = Observable<Int>.create { observer in
            let subscription = subject.subscribe(observer)
            DispatchQueue.global().async {
                subject.onNext(1)
                subject.onNext(2)
            }
            return subscription
        }
        XCTAssertThrowsError(try source.toBlocking(timeout: 5).single()) { error in
            assertError(error, RxError.moreThanOneElement)
        }
    }

    func testSingle_throwsSequenceError() {
        XCTAssertThrowsError(try Observable<Int>.error(testError).toBlocking().single()) { error in
            XCTAssertEqual(error as? TestError, testError)
        }
    }

    func testSingle_timesOutOnNever() {
        XCTAssertThrowsError(try Observable<Int>.never().toBlocking(timeout: 0.01).single()) { error in
            assertError(error, RxError.timeout)
        }
    }

    func testSinglePredicate_emptySequenceThrowsNoElements() {
        XCTAssertThrowsError(try Observable<Int>.empty().toBlocking().single { _ in true }) { error in
            assertError(error, RxError.noElements)
        }
    }

    func testSinglePredicate_returnsTheOnlyMatch() {
        var tested: [Int] = []
        let element = try? Observable.of(42, 43, 44, 45).toBlocking().single { value in
            tested.append(value)
            return value == 44
        }
        XCTAssertEqual(element, 44)
        XCTAssertEqual(tested, [42, 43, 44, 45])
    }

    func testSinglePredicate_secondMatchThrowsAndStopsTesting() {
        var tested: [Int] = []
        XCTAssertThrowsError(
            try Observable.of(42, 43, 44, 45).toBlocking().single { value in
                tested.append(value)
                return value >= 43
            }
        ) { error in
            assertError(error, RxError.moreThanOneElement)
        }
        XCTAssertEqual(tested, [42, 43, 44])
    }

    func testSinglePredicate_noMatchThrowsNoElements() {
        var tested: [Int] = []
        XCTAssertThrowsError(
            try Observable.of(42, 43, 44, 45).toBlocking().single { value in
                tested.append(value)
                return value > 50
            }
        ) { error in
            assertError(error, RxError.noElements)
        }
        XCTAssertEqual(tested, [42, 43, 44, 45])
    }

    func testSinglePredicate_thrownErrorIsRethrownAndStopsTesting() {
        var tested: [Int] = []
        XCTAssertThrowsError(
            try Observable.of(42, 43, 44, 45).toBlocking().single { value in
                tested.append(value)
                if value < 43 { return false }
                throw testError
            }
        ) { error in
            XCTAssertEqual(error as? TestError, testError)
        }
        XCTAssertEqual(tested, [42, 43])
    }

    func testSinglePredicate_throwsSequenceError() {
        XCTAssertThrowsError(try Observable<Int>.error(testError).toBlocking().single { _ in true }) { error in
            XCTAssertEqual(error as? TestError, testError)
        }
    }

    func testSinglePredicate_timesOutOnNever() {
        XCTAssertThrowsError(try Observable<Int>.never().toBlocking(timeout: 0.01).single { _ in true }) { error in
            assertError(error, RxError.timeout)
        }
    }

    func testSinglePredicate_timeoutWaitsForRunningPredicateAndDropsItsElement() {
        let subject = PublishSubject<Int>()
        let predicateEntered = DispatchSemaphore(value: 0)
        let releasePredicate = DispatchSemaphore(value: 0)
        let source = Observable<Int>.create { observer in
            let subscription = subject.subscribe(observer)
            DispatchQueue.global().async { subject.onNext(1) }
            return subscription
        }
        // Release the predicate only well after the timeout has passed.
        DispatchQueue.global().async {
            _ = predicateEntered.wait(timeout: .now() + 10)
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.6) { releasePredicate.signal() }
        }
        var predicateReturned = false
        let result = source.toBlocking(timeout: 0.3).materializeSingle { _ in
            predicateEntered.signal()
            releasePredicate.wait()
            predicateReturned = true
            return true
        }
        XCTAssertTrue(predicateReturned, "returned while the predicate was still running")
        XCTAssertEqual(result.elements, [])
        assertError(result.error, RxError.timeout)
    }

    // MARK: materialize

    func testMaterialize_emptySequenceCompletesWithoutElements() {
        let result = Observable<Int>.empty().toBlocking().materialize()
        guard case .completed(let elements) = result else { return XCTFail("got \(result)") }
        XCTAssertEqual(elements, [])
    }

    func testMaterialize_errorWithoutElements() {
        let result = Observable<Int>.error(testError).toBlocking().materialize()
        guard case .failed(let elements, let error) = result else { return XCTFail("got \(result)") }
        XCTAssertEqual(elements, [])
        XCTAssertEqual(error as? TestError, testError)
    }

    func testMaterialize_completedWithElements() {
        let result = Observable.of(42, 43, 44, 45).toBlocking().materialize()
        guard case .completed(let elements) = result else { return XCTFail("got \(result)") }
        XCTAssertEqual(elements, [42, 43, 44, 45])
    }

    func testMaterialize_failedKeepsElementsBeforeTheError() {
        let result = elementsThenError([42, 43, 44, 45]).toBlocking().materialize()
        guard case .failed(let elements, let error) = result else { return XCTFail("got \(result)") }
        XCTAssertEqual(elements, [42, 43, 44, 45])
        XCTAssertEqual(error as? TestError, testError)
    }

    func testMaterialize_timeoutKeepsElementsReceivedSoFar() {
        let subject = PublishSubject<Int>()
        let source = Observable<Int>.create { observer in
            let subscription = subject.subscribe(observer)
            subject.onNext(1)
            return subscription
        }
        let result = source.toBlocking(timeout: 0.02).materialize()
        guard case .failed(let elements, let error) = result else { return XCTFail("got \(result)") }
        XCTAssertEqual(elements, [1])
        assertError(error, RxError.timeout)
        XCTAssertFalse(subject.hasObservers)
    }

    func testMaterialize_eventsAfterTerminalAreIgnored() {
        let subject = PublishSubject<Int>()
        let source = Observable<Int>.create { observer in
            let subscription = subject.subscribe(observer)
            subject.onNext(1)
            subject.onCompleted()
            return subscription
        }
        let result = source.toBlocking().materialize()
        guard case .completed(let elements) = result else { return XCTFail("got \(result)") }
        XCTAssertEqual(elements, [1])
    }

    // MARK: threads and run loops

    func testBlockingOnMainThread_runsMainQueueWorkOfTheSource() {
        XCTAssertTrue(Thread.isMainThread, "XCTest runs tests on the main thread")
        let source = Observable<Int>.create { observer in
            DispatchQueue.main.async {
                observer.onNext(1)
                DispatchQueue.main.async {
                    observer.onNext(2)
                    observer.onCompleted()
                }
            }
            return Disposables.create()
        }
        XCTAssertEqual(try source.toBlocking(timeout: 5).toArray(), [1, 2])
    }

    func testBlockingOnMainThread_wakesWhenBackgroundSourceEnds() {
        let source = Observable<Int>.create { observer in
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
                observer.onNext(1)
                observer.onCompleted()
            }
            return Disposables.create()
        }
        let start = Date()
        XCTAssertEqual(try source.toBlocking(timeout: 10).toArray(), [1])
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
    }

    func testBlockingOnMainThread_sleepsRatherThanSpinsWhileWaiting() {
        let cpuBefore = currentThreadCPUTime()
        _ = Observable<Int>.never().toBlocking(timeout: 0.3).materialize()
        XCTAssertLessThan(currentThreadCPUTime() - cpuBefore, 0.1)
    }

    func testBlockingOffMainThread_sleepsRatherThanSpinsWhileWaiting() {
        let done = expectation(description: "read on a background thread")
        let outcome = OutcomeBox()
        DispatchQueue.global().async {
            let cpuBefore = currentThreadCPUTime()
            _ = Observable<Int>.never().toBlocking(timeout: 0.3).materialize()
            outcome.set(cpuTime: currentThreadCPUTime() - cpuBefore)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertLessThan(outcome.cpuTime ?? .infinity, 0.1)
    }

    func testBlockingOffMainThread_waitsForAnotherThread() {
        let done = expectation(description: "read on a background thread")
        let outcome = OutcomeBox()
        DispatchQueue.global().async {
            outcome.set(
                array: try? backgroundSource([1, 2, 3]).toBlocking(timeout: 5).toArray(),
                wasMain: Thread.isMainThread)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(outcome.array, [1, 2, 3])
        XCTAssertEqual(outcome.wasMain, false)
    }

    func testBlockingOffMainThread_timesOut() {
        let done = expectation(description: "read on a background thread")
        let outcome = OutcomeBox()
        DispatchQueue.global().async {
            let result = Observable<Int>.never().toBlocking(timeout: 0.02).materialize()
            if case .failed(_, let error) = result { outcome.set(error: error) }
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        assertError(outcome.error, RxError.timeout)
    }

    func testBlockingOffMainThread_synchronousSourceNeedsNoWait() {
        let done = expectation(description: "read on a background thread")
        let outcome = OutcomeBox()
        DispatchQueue.global().async {
            outcome.set(array: try? Observable.from(0..<100).toBlocking().toArray(), wasMain: false)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(outcome.array, Array(0..<100))
    }
}

/// `elements`, then `testError`.
private func elementsThenError(_ elements: [Int]) -> Observable<Int> {
    Observable<Int>.create { observer in
        for element in elements { observer.onNext(element) }
        observer.onError(testError)
        return Disposables.create()
    }
}

/// `elements` then completion, emitted from a background queue after subscription.
private func backgroundSource(_ elements: [Int]) -> Observable<Int> {
    Observable<Int>.create { observer in
        DispatchQueue.global().async {
            for element in elements { observer.onNext(element) }
            observer.onCompleted()
        }
        return Disposables.create()
    }
}

extension BlockingObservable {
    /// `single(predicate)` as elements and error, for assertions on a timed-out read.
    fileprivate func materializeSingle(_ predicate: @escaping (Element) throws -> Bool) -> (
        elements: [Element], error: Error?
    ) {
        do {
            return ([try single(predicate)], nil)
        } catch {
            return ([], error)
        }
    }
}

/// What a background read produced.
private final class OutcomeBox: @unchecked Sendable {
    // Written on the reading thread before `fulfill()`, read after `wait(for:)`.
    private(set) var array: [Int]?
    private(set) var wasMain: Bool?
    private(set) var error: Error?

    func set(array: [Int]?, wasMain: Bool) {
        self.array = array
        self.wasMain = wasMain
    }

    private(set) var cpuTime: Double?

    func set(error: Error) {
        self.error = error
    }

    func set(cpuTime: Double) {
        self.cpuTime = cpuTime
    }
}

/// CPU seconds the calling thread has used.
private func currentThreadCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000
}

/// Asserts that `error` is `expected`: same type and description, as `Event` compares errors.
private func assertError(_ error: Error?, _ expected: Error, file: StaticString = #filePath, line: UInt = #line) {
    guard let error else { return XCTFail("no error, expected \(expected)", file: file, line: line) }
    XCTAssertEqual(Event<Int>.error(error), Event<Int>.error(expected), file: file, line: line)
}
