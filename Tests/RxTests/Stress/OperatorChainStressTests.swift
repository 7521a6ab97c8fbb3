import Foundation
import Rx
import RxTesting
import XCTest

/// `map` / `filter` chains over synchronous and subject sources, disposed from other
/// threads.
final class OperatorChainStressTests: RxTestCase {
    func testMapFilterChain_disposedFromAnotherThreadStopsASynchronousFromLoop() {
        let before = Resources.total
        let limit = 20_000_000
        let rounds = StressBudget.iterations(400)
        let deadline = StressDeadline()
        var failures: [String] = []
        for round in 0..<rounds where !deadline.hasPassed {
            let threshold = [1, 10, 100, 1_000][(round / 2) % 4]
            let handoff = DispatchSemaphore(value: 0)
            let reached = DispatchSemaphore(value: 0)
            let disposerDone = DispatchSemaphore(value: 0)
            let slot = SubscriptionSlot()
            let delivered = StressCounter()
            let afterDispose = StressCounter()
            let isDisposed = StressFlag()
            DispatchQueue.global().async {
                handoff.wait()
                // Odd rounds dispose at once, racing the start of the loop.
                if round % 2 == 0 { reached.wait() }
                slot.disposable?.dispose()
                isDisposed.set()
                disposerDone.signal()
            }
            // Subscribing inside a trampoline returns the subscription before `from`
            // starts its loop (which then runs on this thread when the action returns).
            _ = CurrentThreadScheduler.instance.schedule(()) { _ in
                slot.disposable = Observable.from(0..<limit).map { $0 &+ 1 }.filter { $0 > 0 }.subscribe(
                    onNext: { _ in
                        if isDisposed.isSet { afterDispose.increment() }
                        if delivered.increment() == threshold { reached.signal() }
                    })
                handoff.signal()
                return Disposables.create()
            }
            // The loop has stopped: `schedule` returned.
            disposerDone.wait()
            if afterDispose.value > 1 || delivered.value >= limit {
                failures.append("round \(round): \(delivered.value) delivered, \(afterDispose.value) after dispose")
            }
            slot.disposable = nil
        }
        XCTAssertEqual(failures, [])
        assertResourcesSettle(at: before)
    }

    func testSynchronousChains_onManyThreadsAtOnceDeliverEverythingAndReleaseEverything() {
        let before = Resources.total
        let wrongSums = StressCounter()
        let expected = (0..<100).map { $0 * 2 }.filter { $0 % 4 == 0 }.reduce(0, +)
        stressConcurrently(workers: 8, iterations: 300) { _, _ in
            var sum = 0
            _ = Observable.from(0..<100).map { $0 * 2 }.filter { $0 % 4 == 0 }.subscribe(onNext: { sum += $0 })
            if sum != expected { wrongSums.increment() }
        }
        XCTAssertEqual(wrongSums.value, 0)
        assertResourcesSettle(at: before)
    }

    func testSubjectChains_subscribedAndDisposedWhileAnotherThreadEmits() {
        let subject = PublishSubject<Int>()
        // Counted from here: the test keeps its source alive to the end, and every
        // observable counts in `Resources.total`.
        let before = Resources.total
        let stop = StressFlag()
        let emitterDone = DispatchSemaphore(value: 0)
        let violations = StressCounter()
        Thread.detachNewThread {
            var value = 0
            while !stop.isSet {
                subject.onNext(value)
                value += 1
            }
            subject.onCompleted()
            emitterDone.signal()
        }
        stressConcurrently(workers: 4, iterations: 5_000) { worker, iteration in
            let probe = StressProbe(disposeOn: nil)
            let subscription = subject.map { $0 * 2 }.filter { $0 % 3 != 0 }.subscribe(probe)
            if iteration % 2 == 0 {
                subscription.dispose()
            } else {
                // Dispose from another worker's thread.
                DispatchQueue.global().async { subscription.dispose() }
            }
            let elements = probe.elements
            if probe.overlaps != 0 || elements != elements.sorted() || elements.contains(where: { $0 % 3 == 0 }) {
                violations.increment()
            }
            _ = worker
        }
        stop.set()
        emitterDone.wait()
        XCTAssertEqual(violations.value, 0)
        assertResourcesSettle(at: before)
    }
}

/// The subscription of one round, handed to the disposing thread.
private final class SubscriptionSlot: @unchecked Sendable {
    // Sendable: the slot is behind `lock`.
    private let lock = NSLock()
    private var stored: Disposable?

    var disposable: Disposable? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
        set {
            lock.lock()
            stored = newValue
            lock.unlock()
        }
    }
}
