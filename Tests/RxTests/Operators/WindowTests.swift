import Dispatch
import Rx
import RxTesting
import XCTest

final class WindowTests: RxTestCase {
    func testWindow_routesElementsToWindowsCutByCountOrTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler, ending: .completed(620))
        let res = scheduler.start { labelled(xs.window(timeSpan: .seconds(70), count: 3, scheduler: scheduler)) }
        XCTAssertEqual(
            res.events,
            [
                .next(202, "0 1"), .next(215, "0 2"), .next(230, "0 3"), .next(290, "1 4"), .next(330, "2 5"),
                .next(345, "2 6"), .next(360, "2 7"), .next(425, "3 8"), .next(480, "4 9"), .completed(620),
            ])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 620)])
    }

    func testWindow_opensTheFirstWindowAtSubscriptionAndEachNextOneOnCountOrTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler, ending: .completed(620))
        let res = scheduler.start {
            xs.window(timeSpan: .seconds(70), count: 3, scheduler: scheduler).enumerated().map { $0.index }
        }
        XCTAssertEqual(
            res.events,
            [
                .next(200, 0), .next(230, 1), .next(300, 2), .next(360, 3), .next(430, 4), .next(500, 5),
                .next(570, 6), .completed(620),
            ])
    }

    func testWindow_errorGoesToTheCurrentWindowAndDownstream() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler, ending: .error(490, testError))
        let res = scheduler.start { labelled(xs.window(timeSpan: .seconds(70), count: 3, scheduler: scheduler)) }
        XCTAssertEqual(
            res.events,
            [
                .next(202, "0 1"), .next(215, "0 2"), .next(230, "0 3"), .next(290, "1 4"), .next(330, "2 5"),
                .next(345, "2 6"), .next(360, "2 7"), .next(425, "3 8"), .next(480, "4 9"), .error(490, testError),
            ])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 490)])
    }

    func testWindow_disposeUnsubscribesSourceAndStopsTheTimer() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler, ending: .completed(620))
        let res = scheduler.start(disposed: 360) {
            labelled(xs.window(timeSpan: .seconds(70), count: 3, scheduler: scheduler))
        }
        XCTAssertEqual(
            res.events,
            [
                .next(202, "0 1"), .next(215, "0 2"), .next(230, "0 3"), .next(290, "1 4"), .next(330, "2 5"),
                .next(345, "2 6"), .next(360, "2 7"),
            ])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 360)])
    }

    func testWindow_subscribedWindowsKeepTheSourceAfterTheOuterSubscriptionIsDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler, ending: .completed(620))
        let elements = scheduler.createObserver(String.self)
        let windows = WindowSubscriptions()
        scheduler.scheduleAt(200) {
            windows.outer = xs.window(timeSpan: .seconds(70), count: 3, scheduler: scheduler).enumerated().subscribe(
                onNext: { index, window in
                    windows.inner.append(window.map { "\(index) \($0)" }.subscribe(elements))
                })
        }
        scheduler.scheduleAt(250) { windows.outer?.dispose() }
        scheduler.scheduleAt(350) { windows.disposeAll() }
        scheduler.start()
        // Window 2 opens at 300 after the outer subscription ended: nobody sees it.
        XCTAssertEqual(
            elements.events,
            [
                .next(202, "0 1"), .next(215, "0 2"), .next(230, "0 3"), .completed(230), .next(290, "1 4"),
                .completed(300),
            ])
        // The source lives until the last window subscription ends: `map` ends it when window 1
        // completes at 300 (a terminal event disposes upstream).
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testWindow_countOfZeroOrLessCutsByTimeOnly() {
        for count in [0, -1] {
            let scheduler = TestScheduler(initialClock: 0)
            let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(260, 3), .completed(300)])
            let res = scheduler.start {
                labelled(xs.window(timeSpan: .seconds(50), count: count, scheduler: scheduler))
            }
            XCTAssertEqual(
                res.events, [.next(210, "0 1"), .next(220, "0 2"), .next(260, "1 3"), .completed(300)],
                "count \(count)")
            XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        }
    }

    func testWindow_emptySourceEmitsOneWindowThenCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start {
            Observable<Int>.empty().window(timeSpan: .seconds(10), count: 3, scheduler: scheduler)
                .enumerated().map { $0.index }
        }
        XCTAssertEqual(res.events, [.next(200, 0), .completed(200)])
    }

    func testWindow_synchronousSourceFillsWindowsByCount() {
        let scheduler = TestScheduler(initialClock: 0)
        var values: [String] = []
        var completions = 0
        _ = labelled(Observable.of(1, 2, 3, 4, 5).window(timeSpan: .seconds(100), count: 2, scheduler: scheduler))
            .subscribe(onNext: { values.append($0) }, onCompleted: { completions += 1 })
        XCTAssertEqual(values, ["0 1", "0 2", "1 3", "1 4", "2 5"])
        XCTAssertEqual(completions, 1)
    }

    func testWindow_timerAndSourceOnDifferentThreadsNeverOverlapAndLoseNothing() {
        // A real timer on its own queue, cutting every millisecond while the source emits on
        // another thread. (Spinning a TestScheduler against a real thread instead starves
        // the source on a loaded machine.)
        let scheduler = SerialDispatchQueueScheduler(qos: .default)
        let subject = PublishSubject<Int>()
        let probe = TransformingConcurrencyProbe()
        var total = 0
        var completions = 0
        let completed = expectation(description: "completed")
        let subscription = subject.window(timeSpan: .milliseconds(1), count: 7, scheduler: scheduler)
            .flatMap { $0 }
            .subscribe(
                onNext: { _ in
                    probe.enter()
                    total += 1
                    probe.leave()
                },
                onCompleted: {
                    completions += 1
                    completed.fulfill()
                })
        let emitted = expectation(description: "emitted")
        DispatchQueue.global().async {
            for value in 0..<20_000 { subject.onNext(value) }
            subject.onCompleted()
            emitted.fulfill()
        }
        wait(for: [emitted, completed], timeout: 30)
        XCTAssertEqual(total, 20_000)
        XCTAssertEqual(completions, 1)
        XCTAssertEqual(probe.maximumInside, 1)
        subscription.dispose()
    }

    private func numbers(_ scheduler: TestScheduler, ending: Recorded<Event<Int>>) -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(150, 0), .next(202, 1), .next(215, 2), .next(230, 3), .next(290, 4), .next(330, 5), .next(345, 6),
            .next(360, 7), .next(425, 8), .next(480, 9), ending,
        ])
    }
}

/// The elements of all windows, merged, each labelled with its window's index.
private func labelled(_ windows: Observable<Observable<Int>>) -> Observable<String> {
    windows.enumerated().flatMap { index, window in window.map { "\(index) \($0)" } }
}

private final class WindowSubscriptions {
    var outer: Disposable?
    var inner: [Disposable] = []

    func disposeAll() {
        outer?.dispose()
        for subscription in inner { subscription.dispose() }
        outer = nil
        inner = []
    }
}
