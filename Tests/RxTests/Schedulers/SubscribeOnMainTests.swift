import Dispatch
import Foundation
import Rx
import XCTest

/// A view model as an app would write it: main-actor state fed by `subscribeOnMain`.
@MainActor
private final class CounterViewModel {
    var values: [Int] = []
    var finished = false
    var disposed = false

    func bind(to source: Observable<Int>) -> Disposable {
        source.subscribeOnMain(
            onNext: { [weak self] in self?.values.append($0) },
            onCompleted: { [weak self] in self?.finished = true },
            onDisposed: { [weak self] in self?.disposed = true })
    }
}

/// XCTest runs test methods on the main thread; `wait(for:timeout:)` spins the main run
/// loop, which drains the main dispatch queue.
final class SubscribeOnMainTests: RxTestCase {
    /// The handlers (and what they capture) are released when the subscription ends or is
    /// disposed, while the app still holds the disposable: a view model that keeps it in its
    /// own bag and captures itself strongly is not kept alive by it.
    func testSubscribeOnMain_releasesItsHandlersWhenTheSubscriptionEnds() {
        MainActor.assumeIsolated {
            for ending in ["completed", "error", "disposed"] {
                let subject = PublishSubject<Int>()
                weak var weakCaptured: CounterViewModel?
                var subscription: Disposable?
                do {
                    let captured = CounterViewModel()
                    weakCaptured = captured
                    subscription = subject.subscribeOnMain(
                        onNext: { captured.values.append($0) }, onError: { _ in captured.finished = true },
                        onCompleted: { captured.finished = true }, onDisposed: { captured.disposed = true })
                }
                subject.onNext(1)
                XCTAssertEqual(weakCaptured?.values, [1], ending)
                switch ending {
                case "completed": subject.onCompleted()
                case "error": subject.onError(TestError(1))
                default: subscription?.dispose()
                }
                XCTAssertNil(weakCaptured, "after \(ending)")
                withExtendedLifetime(subscription) {}
            }
        }
    }

    func testSubscribeOnMain_eventsFromMainThreadAreHandledAtOnce() {
        MainActor.assumeIsolated {
            let viewModel = CounterViewModel()
            let subscription = viewModel.bind(to: Observable.of(1, 2, 3))
            XCTAssertEqual(viewModel.values, [1, 2, 3])
            XCTAssertTrue(viewModel.finished)
            XCTAssertTrue(viewModel.disposed)
            subscription.dispose()
        }
    }

    func testSubscribeOnMain_eventsFromAnotherThreadArriveOnMainInOrder() {
        let subject = PublishSubject<Int>()
        let received = expectation(description: "completed")
        let log = ShareEventLog()
        let subscription = subject.subscribeOnMain(
            onNext: { value in log.append("\(value)@\(Thread.isMainThread ? "main" : "other")") },
            onCompleted: {
                log.append("completed")
                received.fulfill()
            })
        DispatchQueue.global().async {
            for value in 1...50 { subject.onNext(value) }
            subject.onCompleted()
        }
        wait(for: [received], timeout: 5)
        XCTAssertEqual(log.entries, (1...50).map { "\($0)@main" } + ["completed"])
        subscription.dispose()
    }

    func testSubscribeOnMain_errorGoesToOnErrorThenOnDisposedOnMain() {
        let subject = PublishSubject<Int>()
        let finished = expectation(description: "disposed")
        let log = ShareEventLog()
        _ = subject.subscribeOnMain(
            onNext: { log.append("\($0)") },
            onError: { log.append("error \($0)") },
            onDisposed: {
                log.append("disposed@\(Thread.isMainThread ? "main" : "other")")
                finished.fulfill()
            })
        DispatchQueue.global().async {
            subject.onNext(1)
            subject.onError(testError)
            subject.onNext(2)
        }
        wait(for: [finished], timeout: 5)
        XCTAssertEqual(log.entries, ["1", "error \(testError)", "disposed@main"])
    }

    func testSubscribeOnMain_disposingDropsEventsStillQueued() {
        let subject = PublishSubject<Int>()
        let log = ShareEventLog()
        let subscription = subject.subscribeOnMain(
            onNext: { log.append("\($0)") }, onDisposed: { log.append("disposed") })
        // The main thread is busy in this test, so these queue up on the main queue.
        let emitted = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            subject.onNext(1)
            subject.onNext(2)
            emitted.signal()
        }
        emitted.wait()
        subscription.dispose()
        XCTAssertEqual(log.entries, ["disposed"])
        let drained = expectation(description: "main queue drained")
        DispatchQueue.main.async { drained.fulfill() }
        wait(for: [drained], timeout: 5)
        XCTAssertEqual(log.entries, ["disposed"])
        XCTAssertFalse(subject.hasObservers)
    }

    func testSubscribeOnMain_disposingOffMainRunsOnDisposedOnMain() {
        let subject = PublishSubject<Int>()
        let disposed = expectation(description: "disposed")
        let log = ShareEventLog()
        let holder = ShareDisposableHolder()
        holder.set(
            subject.subscribeOnMain(onDisposed: {
                log.append(Thread.isMainThread ? "main" : "other")
                disposed.fulfill()
            }))
        DispatchQueue.global().async { holder.take()?.dispose() }
        wait(for: [disposed], timeout: 5)
        XCTAssertEqual(log.entries, ["main"])
        XCTAssertFalse(subject.hasObservers)
    }

    func testSubscribeOnMain_errorWithoutHandlerGoesToDefaultHandler() {
        let saved = Hooks.defaultErrorHandler
        defer { Hooks.defaultErrorHandler = saved }
        let log = ShareEventLog()
        Hooks.defaultErrorHandler = { _, error in log.append("\(error)") }
        _ = Observable<Int>.error(testError).subscribeOnMain()
        XCTAssertEqual(log.entries, ["\(testError)"])
    }
}
