import Foundation
import Rx
import RxTesting
import XCTest

/// Subscribing and disposing racing with emission on a `PublishSubject` from many threads.
///
/// Emitters serialise their `onNext` calls with a lock (the Rx contract: an observer is
/// never called concurrently, so neither is a subject), but they run on many threads, and
/// subscriptions come and go on those threads meanwhile.
final class PublishSubjectStressTests: RxTestCase {
    func testPublishSubject_disposeRacingWithEmittersStopsDeliveryOnTheDisposingThread() {
        let subject = PublishSubject<Int>()
        // Counted from here: the test keeps its source alive to the end, and every
        // observable counts in `Resources.total`.
        let before = Resources.total
        let emitLock = NSLock()
        let violations = StressCounter()
        let missed = StressCounter()
        stressConcurrently(workers: 8, iterations: 10_000) { worker, iteration in
            let probe = StressProbe()
            let subscription = subject.subscribe(probe)
            let own = worker * 1_000_000 + iteration
            emitLock.withLock { subject.onNext(own) }
            subscription.dispose()
            probe.markDisposed()
            emitLock.withLock { subject.onNext(-own - 1) }
            if probe.overlaps != 0 || probe.deliveriesAfterDisposeOnDisposingThread != 0 {
                violations.increment()
            }
            // Subscribed before this thread's own emission: it must have arrived.
            if !probe.elements.contains(own) { missed.increment() }
        }
        XCTAssertEqual(violations.value, 0)
        XCTAssertEqual(missed.value, 0)
        XCTAssertFalse(subject.hasObservers)
        assertResourcesSettle(at: before)
    }

    func testPublishSubject_disposeInsideHandlerStopsDeliveryOnThatThread() {
        let subject = PublishSubject<Int>()
        // Counted from here: the test keeps its source alive to the end, and every
        // observable counts in `Resources.total`.
        let before = Resources.total
        let emitLock = NSLock()
        let violations = StressCounter()
        stressConcurrently(workers: 8, iterations: 5_000) { worker, iteration in
            let own = worker * 1_000_000 + iteration
            let probe = StressProbe(disposeOn: own)
            probe.subscription.setDisposable(subject.subscribe(probe))
            emitLock.withLock {
                subject.onNext(own)
                // Same thread, after the handler disposed: must not be delivered.
                subject.onNext(-own - 1)
            }
            emitLock.withLock { subject.onNext(-own - 2) }
            if probe.overlaps != 0 || probe.deliveriesAfterDisposeOnDisposingThread != 0 {
                violations.increment()
            }
        }
        XCTAssertEqual(violations.value, 0)
        XCTAssertFalse(subject.hasObservers)
        assertResourcesSettle(at: before)
    }

    func testPublishSubject_unserialisedSubscribersNeverSeeConcurrentCalls() {
        // One emitter thread, many threads subscribing and disposing: every observer is
        // called by the emitter only, one call at a time.
        let subject = PublishSubject<Int>()
        // Counted from here: the test keeps its source alive to the end, and every
        // observable counts in `Resources.total`.
        let before = Resources.total
        let stop = StressFlag()
        let violations = StressCounter()
        let emitterDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var value = 0
            while !stop.isSet {
                subject.onNext(value)
                value += 1
            }
            emitterDone.signal()
        }
        stressConcurrently(workers: 4, iterations: 10_000) { _, _ in
            let probe = StressProbe()
            let subscription = subject.subscribe(probe)
            subscription.dispose()
            if probe.overlaps != 0 || probe.eventsAfterTerminal != 0 { violations.increment() }
            let elements = probe.elements
            if elements != elements.sorted() { violations.increment() }
        }
        stop.set()
        emitterDone.wait()
        XCTAssertEqual(violations.value, 0)
        XCTAssertFalse(subject.hasObservers)
        assertResourcesSettle(at: before)
    }

    func testPublishSubject_subscribersRacingCompletionGetExactlyOneTerminalEvent() {
        let before = Resources.total
        let rounds = StressBudget.iterations(1_000)
        let deadline = StressDeadline()
        var failures: [String] = []
        for round in 0..<rounds where !deadline.hasPassed {
            let subject = PublishSubject<Int>()
            let probes = ProbeList()
            DispatchQueue.concurrentPerform(iterations: 5) { worker in
                if worker == 0 {
                    for value in 0..<20 { subject.onNext(value) }
                    subject.onCompleted()
                    subject.onNext(-1)
                } else {
                    for _ in 0..<10 {
                        let probe = StressProbe()
                        probes.append(probe, subject.subscribe(probe))
                    }
                }
            }
            for (probe, subscription) in probes.all {
                if probe.terminalEvents != 1 || probe.eventsAfterTerminal != 0 || probe.overlaps != 0 {
                    failures.append(
                        "round \(round): terminal \(probe.terminalEvents), after \(probe.eventsAfterTerminal)")
                }
                if probe.elements.contains(-1) { failures.append("round \(round): element after completion") }
                subscription.dispose()
            }
            XCTAssertFalse(subject.hasObservers)
        }
        XCTAssertEqual(failures, [])
        assertResourcesSettle(at: before)
    }

    func testPublishSubject_disposingTheSubjectRacingWithSubscribersAndEmitters() {
        let before = Resources.total
        let rounds = StressBudget.iterations(1_000)
        let deadline = StressDeadline()
        let violations = StressCounter()
        for _ in 0..<rounds where !deadline.hasPassed {
            let subject = PublishSubject<Int>()
            let emitLock = NSLock()
            let probes = ProbeList()
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                switch worker {
                case 0:
                    for value in 0..<20 { emitLock.withLock { subject.onNext(value) } }
                case 1:
                    subject.dispose()
                default:
                    for _ in 0..<10 {
                        let probe = StressProbe()
                        probes.append(probe, subject.subscribe(probe))
                    }
                }
            }
            subject.onNext(-1)
            subject.onCompleted()
            for (probe, subscription) in probes.all {
                // Subscribers after the disposal get `RxError.disposed`; the others get
                // nothing more once it happened.
                if probe.terminalEvents > 1 || probe.eventsAfterTerminal != 0 || probe.overlaps != 0 {
                    violations.increment()
                }
                if probe.elements.contains(-1) { violations.increment() }
                subscription.dispose()
            }
            XCTAssertTrue(subject.isDisposed)
            XCTAssertFalse(subject.hasObservers)
        }
        XCTAssertEqual(violations.value, 0)
        assertResourcesSettle(at: before)
    }
}

/// Probes and their subscriptions, collected from many threads.
private final class ProbeList: @unchecked Sendable {
    // Sendable: the list is behind `lock`.
    private let lock = NSLock()
    private var entries: [(StressProbe, Disposable)] = []

    var all: [(StressProbe, Disposable)] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    func append(_ probe: StressProbe, _ subscription: Disposable) {
        lock.lock()
        entries.append((probe, subscription))
        lock.unlock()
    }
}
