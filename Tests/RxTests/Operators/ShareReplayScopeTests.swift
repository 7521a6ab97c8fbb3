import Dispatch
import Rx
import RxTesting
import XCTest

final class ShareReplayScopeTests: RxTestCase {
    private let elements: [Recorded<Event<Int>>] = [
        .next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(250, 5), .next(320, 6), .next(550, 7),
    ]

    private struct Run {
        let first: TestableObserver<Int>
        let second: TestableObserver<Int>
        let third: TestableObserver<Int>
        let source: TestableObservable<Int>
    }

    /// Observers subscribe at 200, 300 and 500 and leave at 350, 400 and 600.
    private func runStaggeredObservers(_ share: @escaping (Observable<Int>) -> Observable<Int>) -> Run {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(elements)
        var shared: Observable<Int>?
        var subscriptions: [Disposable?] = [nil, nil, nil]
        let observers = (0..<3).map { _ in scheduler.createObserver(Int.self) }
        scheduler.scheduleAt(100) { shared = share(xs.asObservable()) }
        for (index, (start, end)) in [(200, 350), (300, 400), (500, 600)].enumerated() {
            scheduler.scheduleAt(start) { subscriptions[index] = shared?.subscribe(observers[index]) }
            scheduler.scheduleAt(end) { subscriptions[index]?.dispose() }
        }
        scheduler.start()
        return Run(first: observers[0], second: observers[1], third: observers[2], source: xs)
    }

    func testShare_defaultsToNoReplayWhileConnected() {
        let run = runStaggeredObservers { $0.share() }
        XCTAssertEqual(
            run.first.events,
            [.next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(250, 5), .next(320, 6)])
        XCTAssertEqual(run.second.events, [.next(320, 6)])
        XCTAssertEqual(run.third.events, [.next(550, 7)])
        XCTAssertEqual(run.source.subscriptions, [Subscription(200, 400), Subscription(500, 600)])
    }

    func testShareWhileConnected_replaysBufferToLateObserversAndForgetsItWhenDisconnected() {
        for replay in 0..<5 {
            let run = runStaggeredObservers { $0.share(replay: replay, scope: .whileConnected) }
            XCTAssertEqual(
                run.first.events,
                [.next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(250, 5), .next(320, 6)])
            let replayed = (0..<replay).map { Recorded.next(300, 6 - replay + $0) }
            XCTAssertEqual(run.second.events, replayed + [.next(320, 6)], "replay \(replay)")
            XCTAssertEqual(run.third.events, [.next(550, 7)], "replay \(replay)")
            XCTAssertEqual(run.source.subscriptions, [Subscription(200, 400), Subscription(500, 600)])
        }
    }

    func testShareForever_keepsReplayBufferAcrossConnections() {
        for replay in 0..<5 {
            let run = runStaggeredObservers { $0.share(replay: replay, scope: .forever) }
            XCTAssertEqual(
                run.first.events,
                [.next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(250, 5), .next(320, 6)])
            let replayedToSecond = (0..<replay).map { Recorded.next(300, 6 - replay + $0) }
            let replayedToThird = (0..<replay).map { Recorded.next(500, 7 - replay + $0) }
            XCTAssertEqual(run.second.events, replayedToSecond + [.next(320, 6)], "replay \(replay)")
            XCTAssertEqual(run.third.events, replayedToThird + [.next(550, 7)], "replay \(replay)")
            XCTAssertEqual(run.source.subscriptions, [Subscription(200, 400), Subscription(500, 600)])
        }
    }

    func testShare_negativeReplayReplaysNothing() {
        for scope in [SubjectLifetimeScope.whileConnected, .forever] {
            let run = runStaggeredObservers { $0.share(replay: -1, scope: scope) }
            XCTAssertEqual(run.second.events, [.next(320, 6)])
            XCTAssertEqual(run.source.subscriptions, [Subscription(200, 400), Subscription(500, 600)])
        }
    }

    private struct TerminalRun {
        let first: TestableObserver<Int>
        let second: TestableObserver<Int>
        let firstAgain: TestableObserver<Int>
        let secondAgain: TestableObserver<Int>
        let late: TestableObserver<Int>
        let source: TestableObservable<Int>
    }

    /// Like `runStaggeredObservers`, but the source terminates at 330 with `terminal`, and
    /// the first two observers subscribe again from their terminal handlers.
    private func runResubscribingOnTermination(
        terminal: Recorded<Event<Int>>, _ share: @escaping (Observable<Int>) -> Observable<Int>
    ) -> TerminalRun {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(
            [.next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(250, 5), .next(320, 6), terminal]
                + [.next(340, -1), .next(550, 7)])
        var shared: Observable<Int>?
        var subscriptions: [Disposable?] = [nil, nil, nil]
        let observers = (0..<5).map { _ in scheduler.createObserver(Int.self) }
        scheduler.scheduleAt(100) { shared = share(xs.asObservable()) }
        for index in 0..<2 {
            scheduler.scheduleAt([200, 300][index]) {
                subscriptions[index] = shared?.subscribe { event in
                    observers[index].on(event)
                    if event.isStopEvent { subscriptions[index] = shared?.subscribe(observers[index + 2]) }
                }
            }
            scheduler.scheduleAt([350, 400][index]) { subscriptions[index]?.dispose() }
        }
        scheduler.scheduleAt(500) { subscriptions[2] = shared?.subscribe(observers[4]) }
        scheduler.scheduleAt(600) { subscriptions[2]?.dispose() }
        scheduler.start()
        return TerminalRun(
            first: observers[0], second: observers[1], firstAgain: observers[2], secondAgain: observers[3],
            late: observers[4], source: xs)
    }

    func testShareWhileConnected_terminationForgetsBufferAndResubscriptionReconnects() {
        for terminal in [Recorded<Event<Int>>.error(330, testError), .completed(330)] {
            for replay in 0..<5 {
                let run = runResubscribingOnTermination(terminal: terminal) {
                    $0.share(replay: replay, scope: .whileConnected)
                }
                let context = "replay \(replay), \(terminal.value)"
                XCTAssertEqual(
                    run.first.events,
                    [
                        .next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(250, 5), .next(320, 6),
                        terminal,
                    ],
                    context)
                let replayed = (0..<replay).map { Recorded.next(300, 6 - replay + $0) }
                XCTAssertEqual(run.second.events, replayed + [.next(320, 6), terminal], context)
                XCTAssertEqual(run.firstAgain.events, [.next(340, -1)], context)
                XCTAssertEqual(run.secondAgain.events, [.next(340, -1)], context)
                XCTAssertEqual(run.late.events, [.next(550, 7)], context)
                XCTAssertEqual(
                    run.source.subscriptions, [Subscription(200, 330), Subscription(330, 400), Subscription(500, 600)],
                    context)
            }
        }
    }

    func testShareForever_terminationIsReplayedWithoutResubscribing() {
        for terminal in [Recorded<Event<Int>>.error(330, testError), .completed(330)] {
            for replay in 0..<5 {
                let run = runResubscribingOnTermination(terminal: terminal) {
                    $0.share(replay: replay, scope: .forever)
                }
                let context = "replay \(replay), \(terminal.value)"
                let replayedAtEnd = (0..<replay).map { Recorded.next(330, 7 - replay + $0) }
                XCTAssertEqual(run.firstAgain.events, replayedAtEnd + [terminal], context)
                XCTAssertEqual(run.secondAgain.events, replayedAtEnd + [terminal], context)
                let replayedToLate = (0..<replay).map { Recorded.next(500, 7 - replay + $0) }
                XCTAssertEqual(
                    run.late.events, replayedToLate + [Recorded(time: 500, value: terminal.value)], context)
                XCTAssertEqual(run.source.subscriptions, [Subscription(200, 330)], context)
            }
        }
    }

    func testShareReplay1_synchronousSourceDeliversToFirstObserverAndReleasesEverything() {
        for replay in 0..<5 {
            for scope in [SubjectLifetimeScope.whileConnected, .forever] {
                var events: [Event<Int>] = []
                _ = Observable.just(1).share(replay: replay, scope: scope).subscribe { events.append($0) }
                XCTAssertEqual(events, [.next(1), .completed], "replay \(replay), \(scope)")
                var errors: [Event<Int>] = []
                _ = Observable<Int>.error(testError).share(replay: replay, scope: scope).subscribe {
                    errors.append($0)
                }
                XCTAssertEqual(errors, [.error(testError)], "replay \(replay), \(scope)")
            }
        }
    }

    func testShare_emptySourceCompletesEveryObserverAndNeverSourceIsDisposedWithTheLastObserver() {
        for replay in 0..<3 {
            for scope in [SubjectLifetimeScope.whileConnected, .forever] {
                let scheduler = TestScheduler(initialClock: 0)
                let empty = scheduler.createColdObservable([.completed(10)] as [Recorded<Event<Int>>])
                let never = scheduler.createColdObservable([] as [Recorded<Event<Int>>])
                let emptyResult = scheduler.start { empty.share(replay: replay, scope: scope) }
                let neverResult = scheduler.start(created: 1100, subscribed: 1200, disposed: 1300) {
                    never.share(replay: replay, scope: scope)
                }
                XCTAssertEqual(emptyResult.events, [.completed(210)])
                XCTAssertEqual(empty.subscriptions, [Subscription(200, 210)])
                XCTAssertEqual(neverResult.events, [])
                XCTAssertEqual(never.subscriptions, [Subscription(1200, 1300)])
            }
        }
    }

    func testShareReplay1_subscriptionsAtTheSameTickShareOneSourceSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(5, 42), .completed(5)])
        var shared: Observable<Int>?
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(100) { shared = xs.share(replay: 1) }
        scheduler.scheduleAt(210) { _ = shared?.subscribe(first) }
        scheduler.scheduleAt(210) { _ = shared?.subscribe(second) }
        scheduler.scheduleAt(300) { _ = shared?.subscribe(second) }
        scheduler.start()
        XCTAssertEqual(first.events, [.next(215, 42), .completed(215)])
        XCTAssertEqual(second.events, [.next(215, 42), .completed(215), .next(305, 42), .completed(305)])
        XCTAssertEqual(xs.subscriptions, [Subscription(210, 215), Subscription(300, 305)])
    }

    func testShareReplay1_observerReceivingReplayCountsAsConnected() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(320, 2)])
        var shared: Observable<Int>?
        var firstSubscription: Disposable?
        var lateSubscription: Disposable?
        let late = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(100) { shared = xs.share(replay: 1) }
        scheduler.scheduleAt(200) { firstSubscription = shared?.subscribe() }
        scheduler.scheduleAt(300) {
            lateSubscription = shared?.subscribe { event in
                late.on(event)
                // The first observer leaves while the late one is still receiving its replay.
                firstSubscription?.dispose()
            }
        }
        scheduler.scheduleAt(310) { lateSubscription?.dispose() }
        scheduler.start()
        XCTAssertEqual(late.events, [.next(300, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 310)])
    }

    func testShareReplay1_observerSubscribingFromHandlerGetsCurrentElementThenLaterOnes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(240)])
        var shared: Observable<Int>?
        var outer: Disposable?
        var inner: Disposable?
        let res = scheduler.createObserver(Int.self)
        let nested = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(100) { shared = xs.share(replay: 1) }
        scheduler.scheduleAt(200) {
            outer = shared?.subscribe { event in
                res.on(event)
                if event.element == 2 { inner = shared?.subscribe(nested) }
            }
        }
        scheduler.start()
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .next(230, 3), .completed(240)])
        XCTAssertEqual(nested.events, [.next(220, 2), .next(230, 3), .completed(240)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
        outer?.dispose()
        inner?.dispose()
    }

    func testShareReplay1_observersSubscribingDuringConcurrentEmissionSeeIncreasingValues() {
        let subject = PublishSubject<Int>()
        let shared = subject.share(replay: 1)
        let failures = ShareFailureLog()
        // One observer stays, so the connection (and its latest element) persists.
        let anchor = shared.subscribe()
        shareRunWhileEmitting(into: subject) {
            for _ in 0..<300 {
                let checker = ShareOrderChecker(failures: failures, slowFirstDelivery: true)
                let subscription = shared.subscribe(onNext: { checker.receive($0) })
                subscription.dispose()
            }
        }
        anchor.dispose()
        XCTAssertEqual(failures.messages, [])
        XCTAssertFalse(subject.hasObservers)
    }

    func testShareReplay1_disposingEveryObserverFromManyThreadsDisconnects() {
        let subject = PublishSubject<Int>()
        let shared = subject.share(replay: 1)
        DispatchQueue.concurrentPerform(iterations: 4) { lane in
            for index in 0..<500 {
                let subscription = shared.subscribe()
                if index % 7 == lane { subject.onNext(index) }
                subscription.dispose()
            }
        }
        XCTAssertFalse(subject.hasObservers)
    }
}
