import Dispatch
import Rx
import RxTesting
import XCTest

final class FlatMapTests: RxTestCase {
    func testFlatMap_mergesInnerSequencesAsTheyEmit() {
        let scheduler = TestScheduler(initialClock: 0)
        let inners = [
            scheduler.createColdObservable([.next(10, 1), .next(60, 2), .completed(100)]),
            scheduler.createColdObservable([.next(5, 10), .next(20, 20), .completed(30)]),
        ]
        let xs = scheduler.createHotObservable([.next(150, 0), .next(210, 0), .next(260, 1), .completed(300)])
        let res = scheduler.start { xs.flatMap { inners[$0] } }
        XCTAssertEqual(
            res.events,
            [.next(220, 1), .next(265, 10), .next(270, 2), .next(280, 20), .completed(310)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(inners[0].subscriptions, [Subscription(210, 310)])
        XCTAssertEqual(inners[1].subscriptions, [Subscription(260, 290)])
    }

    /// An inner `just` takes a path of its own (played without subscribing); it must
    /// behave exactly as any other inner sequence that emits one element while subscribed: the same order against work
    /// scheduled on the current-thread trampoline from inside the handlers, the same
    /// re-entrant sends, and disposal from inside a handler.
    func testFlatMap_anInnerJustBehavesAsAnyOtherOneElementSequence() {
        func run(_ inner: @escaping @Sendable (Int) -> Observable<Int>) -> [String] {
            let log = LogBox()
            let subject = PublishSubject<Int>()
            var subscription: Disposable?
            subscription = subject.flatMap(inner).subscribe(
                onNext: { value in
                    log.append("next \(value)")
                    _ = CurrentThreadScheduler.instance.schedule(value) { value in
                        log.append("scheduled after \(value)")
                        return Disposables.create()
                    }
                    if value == 2 { subject.onNext(3) }
                    if value == 4 { subscription?.dispose() }
                },
                onCompleted: { log.append("completed") },
                onDisposed: { log.append("disposed") })
            _ = CurrentThreadScheduler.instance.schedule(()) { _ in
                subject.onNext(1)
                subject.onNext(2)
                log.append("outer action ends")
                return Disposables.create()
            }
            subject.onNext(4)
            subject.onNext(5)
            return log.entries
        }
        let viaJust = run { Observable.just($0) }
        // The same sequence through the general path: emitting while subscribed, as `just`
        // does (`of` would emit on the current-thread scheduler, later).
        let viaCreate = run { value in
            Observable.create { observer in
                observer.onNext(value)
                observer.onCompleted()
                return Disposables.create()
            }
        }
        XCTAssertEqual(viaJust, viaCreate)
        XCTAssertEqual(
            viaJust,
            [
                "next 1", "next 2", "next 3", "outer action ends", "scheduled after 1", "scheduled after 2",
                "scheduled after 3", "next 4", "disposed", "scheduled after 4",
            ])
    }

    func testFlatMap_completesWithSourceWhenInnersCompletedBefore() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let xs = scheduler.createHotObservable([.next(210, 0), .next(230, 0), .completed(300)])
        let res = scheduler.start { xs.flatMap { _ in inner } }
        XCTAssertEqual(res.events, [.next(220, 1), .next(240, 1), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(inner.subscriptions, [Subscription(210, 230), Subscription(230, 250)])
    }

    func testFlatMap_innerErrorEndsSequenceAndDisposesSourceAndOtherInners() {
        let scheduler = TestScheduler(initialClock: 0)
        let inners = [
            scheduler.createColdObservable([.next(10, 1), .next(100, 2), .completed(200)]),
            scheduler.createColdObservable([.next(5, 10), .error(20, testError)]),
        ]
        let xs = scheduler.createHotObservable([.next(210, 0), .next(250, 1), .next(280, 0), .completed(500)])
        let res = scheduler.start { xs.flatMap { inners[$0] } }
        XCTAssertEqual(res.events, [.next(220, 1), .next(255, 10), .error(270, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 270)])
        XCTAssertEqual(inners[0].subscriptions, [Subscription(210, 270)])
        XCTAssertEqual(inners[1].subscriptions, [Subscription(250, 270)])
    }

    func testFlatMap_sourceErrorEndsSequenceAndDisposesInners() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = scheduler.createColdObservable([.next(10, 1), .next(100, 2), .completed(200)])
        let xs = scheduler.createHotObservable([.next(210, 0), .error(250, testError)])
        let res = scheduler.start { xs.flatMap { _ in inner } }
        XCTAssertEqual(res.events, [.next(220, 1), .error(250, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(inner.subscriptions, [Subscription(210, 250)])
    }

    func testFlatMap_selectorErrorEndsSequenceAndDisposesInners() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = scheduler.createColdObservable([.next(10, 100)])
        let xs = scheduler.createHotObservable([.next(210, 1), .next(240, 2), .next(260, 3)])
        let res = scheduler.start {
            xs.flatMap { value -> TestableObservable<Int> in
                if value == 2 { throw testError }
                return inner
            }
        }
        XCTAssertEqual(res.events, [.next(220, 100), .error(240, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
        XCTAssertEqual(inner.subscriptions, [Subscription(210, 240)])
    }

    func testFlatMap_disposeUnsubscribesSourceAndEveryInner() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = scheduler.createColdObservable([.next(50, 1), .next(500, 2)])
        let xs = scheduler.createHotObservable([.next(210, 0), .next(300, 1), .completed(900)])
        let res = scheduler.start(disposed: 400) { xs.flatMap { _ in inner } }
        XCTAssertEqual(res.events, [.next(260, 1), .next(350, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
        XCTAssertEqual(inner.subscriptions, [Subscription(210, 400), Subscription(300, 400)])
    }

    func testFlatMap_emptySourceCompletesAtSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.empty().flatMap { Observable.just($0) } }
        XCTAssertEqual(res.events, [.completed(200)])
    }

    func testFlatMap_silentSourceNeverTerminates() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([Recorded<Event<Int>>]())
        let res = scheduler.start { xs.flatMap { Observable.just($0) } }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testFlatMap_unfinishedInnerKeepsSequenceOpenAfterSourceCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = scheduler.createColdObservable([Recorded<Event<Int>>]())
        let xs = scheduler.createHotObservable([.next(210, 0), .completed(220)])
        let res = scheduler.start { xs.flatMap { _ in inner } }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
        XCTAssertEqual(inner.subscriptions, [Subscription(210, 1000)])
    }

    func testFlatMap_synchronousAndTrampolinedInnersAreMergedInOrder() {
        var justValues: [Int] = []
        var justCompletions = 0
        _ = Observable.from([1, 2, 3]).flatMap { Observable.just($0 * 2) }.subscribe(
            onNext: { justValues.append($0) }, onCompleted: { justCompletions += 1 })
        XCTAssertEqual(justValues, [2, 4, 6])
        XCTAssertEqual(justCompletions, 1)

        // `from` inners wait on the trampoline until the source loop is done, as in RxSwift.
        var fromValues: [Int] = []
        var fromCompletions = 0
        _ = Observable.from([1, 2, 3]).flatMap { Observable.from([$0, $0 * 10]) }.subscribe(
            onNext: { fromValues.append($0) }, onCompleted: { fromCompletions += 1 })
        XCTAssertEqual(fromValues, [1, 10, 2, 20, 3, 30])
        XCTAssertEqual(fromCompletions, 1)
    }

    func testFlatMap_synchronousInnerTerminalEvents() {
        var events: [Event<Int>] = []
        _ = Observable.just(1).flatMap { _ in Observable<Int>.empty() }.subscribe { events.append($0) }
        _ = Observable.just(1).flatMap { _ in Observable<Int>.error(testError) }.subscribe { events.append($0) }
        _ = Observable.of(1, 2).flatMap { _ -> Observable<Int> in throw testError2 }.subscribe { events.append($0) }
        XCTAssertEqual(events, [.completed, .error(testError), .error(testError2)])
    }

    func testFlatMap_manySynchronousInnersAreAllDelivered() {
        var count = 0
        var sum = 0
        var completions = 0
        _ = Observable.from(0..<20_000).flatMap { Observable.just($0 * 2) }.subscribe(
            onNext: {
                count += 1
                sum += $0
            }, onCompleted: { completions += 1 })
        XCTAssertEqual(count, 20_000)
        XCTAssertEqual(sum, (0..<20_000).reduce(0) { $0 + $1 * 2 })
        XCTAssertEqual(completions, 1)
    }

    func testFlatMap_reentrantSourceElementIsDeliveredAfterTheCurrentOne() {
        let subject = PublishSubject<Int>()
        var trace: [Int] = []
        let subscription = subject.flatMap { Observable.just($0) }.subscribe(onNext: { value in
            trace.append(value)
            if value == 1 { subject.onNext(2) }
            trace.append(-value)
        })
        subject.onNext(1)
        XCTAssertEqual(trace, [1, -1, 2, -2])
        subscription.dispose()
        XCTAssertFalse(subject.hasObservers)
    }

    func testFlatMap_disposeFromHandlerStopsDeliveryAtOnce() {
        var seen: [Int] = []
        let box = TransformingDisposableBox()
        let subject = PublishSubject<Int>()
        box.disposable = subject.flatMap { Observable.from([$0, $0 + 100]) }.subscribe(onNext: { value in
            seen.append(value)
            if value == 2 { box.disposable?.dispose() }
        })
        subject.onNext(1)
        subject.onNext(2)
        subject.onNext(3)
        XCTAssertEqual(seen, [1, 101, 2])
        XCTAssertFalse(subject.hasObservers)
        box.disposable = nil
    }

    func testFlatMap_innersEmittingFromManyThreadsAreDeliveredSeriallyAndCompletely() {
        let threads = 8
        let elementsPerThread = 5_000
        let inners = (0..<threads).map { _ in PublishSubject<Int>() }
        let probe = TransformingConcurrencyProbe()
        let completed = expectation(description: "completed")
        // Mutated only by the observer: if delivery were concurrent, the count would come out
        // short and ThreadSanitizer would report the race.
        var count = 0
        var sum = 0
        let subscription = Observable.from(inners).flatMap { $0 }.subscribe(
            onNext: { value in
                probe.enter()
                count += 1
                sum += value
                probe.leave()
            },
            onCompleted: { completed.fulfill() })
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for value in 0..<elementsPerThread { inners[thread].onNext(value) }
            inners[thread].onCompleted()
        }
        wait(for: [completed], timeout: 10)
        XCTAssertEqual(count, threads * elementsPerThread)
        XCTAssertEqual(sum, threads * (0..<elementsPerThread).reduce(0, +))
        XCTAssertEqual(probe.maximumInside, 1)
        subscription.dispose()
    }

    func testFlatMap_innersCompletingOnOtherThreadsWhileSourceEmitsAreAllDelivered() {
        let elements = 2_000
        let source = PublishSubject<Int>()
        let probe = TransformingConcurrencyProbe()
        let completed = expectation(description: "completed")
        var sum = 0
        let subscription = source.flatMap { value in
            Observable<Int>.create { observer in
                DispatchQueue.global().async {
                    observer.onNext(value)
                    observer.onCompleted()
                }
                return Disposables.create()
            }
        }.subscribe(
            onNext: { value in
                probe.enter()
                sum += value
                probe.leave()
            },
            onCompleted: { completed.fulfill() })
        DispatchQueue.global().async {
            for value in 1...elements { source.onNext(value) }
            source.onCompleted()
        }
        wait(for: [completed], timeout: 10)
        XCTAssertEqual(sum, (1...elements).reduce(0, +))
        XCTAssertEqual(probe.maximumInside, 1)
        subscription.dispose()
    }
}

/// A log the handlers of one test append to.
private final class LogBox: @unchecked Sendable {
    var entries: [String] = []
    func append(_ entry: String) { entries.append(entry) }
}
