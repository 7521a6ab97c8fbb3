import Foundation
import Rx
import RxTesting
import XCTest

/// `Observable.create` sources that emit from background threads while the subscription
/// is disposed from another thread.
final class CreateStressTests: RxTestCase {
    func testCreate_backgroundEmitterStopsAndIsDisposedOnceWhenDisposed() {
        let before = Resources.total
        let rounds = StressBudget.iterations(2_000)
        let deadline = StressDeadline()
        var failures: [String] = []
        for round in 0..<rounds where !deadline.hasPassed {
            let stop = StressFlag()
            let firstElement = DispatchSemaphore(value: 0)
            let loopEnded = DispatchSemaphore(value: 0)
            let cancel = StressCountingDisposable { stop.set() }
            let source = Observable<Int>.create { observer in
                DispatchQueue.global().async {
                    var value = 0
                    while !stop.isSet {
                        observer.onNext(value)
                        if value == 0 { firstElement.signal() }
                        value += 1
                    }
                    // The subscription is disposed: these must be dropped.
                    observer.onNext(-1)
                    observer.onCompleted()
                    loopEnded.signal()
                }
                return cancel
            }
            let probe = StressProbe()
            let disposals = StressCounter()
            let subscription = source.map { $0 }.filter { $0 != -2 }.subscribe(
                onNext: { probe.on(.next($0)) },
                onError: { probe.on(.error($0)) },
                onCompleted: { probe.on(.completed) },
                onDisposed: { disposals.increment() })
            // Half the rounds dispose mid-stream, the others race the emitter's start.
            if round % 2 == 0 { firstElement.wait() }
            subscription.dispose()
            probe.markDisposed()
            loopEnded.wait()
            let summary =
                "dispose calls \(cancel.disposeCount), onDisposed \(disposals.value), "
                + "terminal \(probe.terminalEvents), after dispose \(probe.deliveriesAfterDispose), "
                + "overlaps \(probe.overlaps)"
            if cancel.disposeCount != 1 || disposals.value != 1 || probe.terminalEvents != 0
                || probe.deliveriesAfterDispose > 1 || probe.overlaps != 0 || probe.elements.contains(-1)
            {
                failures.append("round \(round): \(summary)")
            }
        }
        XCTAssertEqual(failures, [])
        assertResourcesSettle(at: before)
    }

    func testCreate_completionRacingDisposeDisposesSourceExactlyOnce() {
        let before = Resources.total
        let rounds = StressBudget.iterations(3_000)
        let deadline = StressDeadline()
        var failures: [String] = []
        for round in 0..<rounds where !deadline.hasPassed {
            let emitted = round % 8
            let loopEnded = DispatchSemaphore(value: 0)
            let rendezvous = StressRendezvous()
            let cancel = StressCountingDisposable()
            let source = Observable<Int>.create { observer in
                // A dedicated thread: the rendezvous spins, which a pool thread must not.
                Thread.detachNewThread {
                    rendezvous.arriveAndWait()
                    for value in 0..<emitted { observer.onNext(value) }
                    observer.onCompleted()
                    observer.onNext(-1)
                    loopEnded.signal()
                }
                return cancel
            }
            let probe = StressProbe()
            let disposals = StressCounter()
            let subscription = source.subscribe(
                onNext: { probe.on(.next($0)) },
                onCompleted: { probe.on(.completed) },
                onDisposed: { disposals.increment() })
            rendezvous.arriveAndWait()
            stressSpin((round / 8) % 32 * 20)
            subscription.dispose()
            loopEnded.wait()
            let elements = probe.elements
            if cancel.disposeCount != 1 || disposals.value != 1 || probe.terminalEvents > 1
                || probe.eventsAfterTerminal != 0 || probe.overlaps != 0 || elements.contains(-1)
                || elements != Array(0..<elements.count)
            {
                failures.append(
                    "round \(round): dispose calls \(cancel.disposeCount), onDisposed \(disposals.value), "
                        + "terminal \(probe.terminalEvents), elements \(elements)")
            }
        }
        XCTAssertEqual(failures, [])
        assertResourcesSettle(at: before)
    }

    func testCreate_synchronousTerminalOnManyThreadsDisposesEachReturnedDisposableOnce() {
        // A terminal event during `subscribe` comes before the returned disposable is
        // attached: it must be disposed as soon as it is returned, once.
        let before = Resources.total
        let subscriptions = StressCounter()
        let disposeCalls = StressCounter()
        stressConcurrently(workers: 4, iterations: 2_000) { _, iteration in
            let source = Observable<Int>.create { observer in
                subscriptions.increment()
                observer.onNext(1)
                if iteration % 2 == 0 { observer.onCompleted() } else { observer.onError(testError) }
                return StressCountingDisposable { disposeCalls.increment() }
            }
            _ = source.subscribe(onError: { _ in })
        }
        XCTAssertGreaterThan(subscriptions.value, 0)
        XCTAssertEqual(disposeCalls.value, subscriptions.value)
        assertResourcesSettle(at: before)
    }

    func testCreate_manyConcurrentSubscriptionsEachDisposeTheirSourceOnce() {
        let subscribed = StressCounter()
        let disposed = StressCounter()
        let violations = StressCounter()
        let source = Observable<Int>.create { observer in
            subscribed.increment()
            let stop = StressFlag()
            DispatchQueue.global().async {
                for value in 0..<50 where !stop.isSet { observer.onNext(value) }
            }
            return StressCountingDisposable {
                stop.set()
                disposed.increment()
            }
        }
        // Counted from here: the test keeps its source alive to the end, and every
        // observable counts in `Resources.total`.
        let before = Resources.total
        stressConcurrently(workers: 6, iterations: 500) { _, _ in
            let probe = StressProbe()
            let subscription = source.filter { $0 % 2 == 0 }.subscribe(probe)
            subscription.dispose()
            subscription.dispose()
            if probe.overlaps != 0 || probe.terminalEvents != 0 { violations.increment() }
        }
        XCTAssertEqual(violations.value, 0)
        XCTAssertEqual(disposed.value, subscribed.value)
        assertResourcesSettle(at: before)
    }
}
