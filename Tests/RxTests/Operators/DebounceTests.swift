import Rx
import RxTesting
import XCTest

final class DebounceTests: RxTestCase {
    func testDebounce_emitsEachElementLeftAloneForTheDueTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, -1), .next(250, 0), .next(280, 1), .next(310, 2), .next(350, 3), .next(400, 4),
            .completed(550),
        ])
        let res = scheduler.start { xs.debounce(.seconds(20), scheduler: scheduler) }
        XCTAssertEqual(
            res.events,
            [.next(270, 0), .next(300, 1), .next(330, 2), .next(370, 3), .next(420, 4), .completed(550)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 550)])
    }

    func testDebounce_burstEmitsOnlyItsLastElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(300, 5), .completed(400),
        ])
        let res = scheduler.start { xs.debounce(.seconds(20), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(260, 4), .next(320, 5), .completed(400)])
    }

    func testDebounce_elementAtExactlyTheDueTimeReplacesThePendingOne() {
        let scheduler = TestScheduler(initialClock: 0)
        // The element at 230 was scheduled (as a hot event) before the timer due at 230.
        let xs = scheduler.createHotObservable([.next(210, 1), .next(230, 2), .completed(300)])
        let res = scheduler.start { xs.debounce(.seconds(20), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(250, 2), .completed(300)])
    }

    func testDebounce_flushesPendingValueOnCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(290, 2), .completed(300)])
        let res = scheduler.start { xs.debounce(.seconds(20), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(230, 1), .next(300, 2), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testDebounce_errorDropsPendingValue() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(290, 2), .error(300, testError)])
        let res = scheduler.start { xs.debounce(.seconds(20), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(230, 1), .error(300, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testDebounce_emptyCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 1), .completed(300)])
        let res = scheduler.start { xs.debounce(.seconds(10), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testDebounce_neverEmitsNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 1)])
        let res = scheduler.start { xs.debounce(.seconds(10), scheduler: scheduler) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testDebounce_zeroDueTimeEmitsAtTheNextTick() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
        let res = scheduler.start { xs.debounce(.seconds(0), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(211, 1), .next(221, 2), .completed(300)])
    }

    func testDebounce_millisecondsAreConvertedToTicks() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(300)])
        let res = scheduler.start { xs.debounce(.milliseconds(20_000), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(230, 1), .completed(300)])
    }

    func testDebounce_neverDueTimeOnlyFlushesOnCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
        let res = scheduler.start { xs.debounce(.never, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(300, 2), .completed(300)])
    }

    func testDebounce_disposeCancelsThePendingTimer() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
        let res = scheduler.start(disposed: 230) { xs.debounce(.seconds(20), scheduler: scheduler) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testDebounce_reentrantElementFromDownstreamIsDebouncedToo() {
        let scheduler = TestScheduler(initialClock: 0)
        let subject = PublishSubject<Int>()
        let observer = scheduler.createObserver(Int.self)
        let box = FilterDisposableBox()
        scheduler.scheduleAt(200) {
            box.disposable = subject.debounce(.seconds(10), scheduler: scheduler).subscribe { event in
                observer.on(event)
                if case .next(1) = event { subject.onNext(2) }
            }
        }
        scheduler.scheduleAt(210) { subject.onNext(1) }
        scheduler.scheduleAt(300) { subject.onCompleted() }
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(220, 1), .next(230, 2), .completed(300)])
        box.disposable = nil
    }

    func testDebounce_realSchedulerEmitsTheLastElementOfEachBurst() {
        let scheduler = FilterDispatchQueueScheduler(label: "DebounceTests.timer")
        let recorder = FilterEventRecorder<Int>()
        let subject = PublishSubject<Int>()
        let subscription = subject.debounce(.milliseconds(5), scheduler: scheduler).subscribe(recorder)
        let emitter = DispatchQueue(label: "DebounceTests.emitter")
        emitter.sync {
            for burst in 0..<3 {
                let last = burst * 100 + 99
                for value in (burst * 100)...last { subject.onNext(value) }
                // Blocks until the timer emitted the burst's last element.
                XCTAssertTrue(recorder.waitForElement { $0 == last })
            }
            for value in 300..<1_000 { subject.onNext(value) }
            subject.onCompleted()
        }
        wait(for: [recorder.terminated], timeout: 5)
        subscription.dispose()
        let elements = recorder.elements
        XCTAssertEqual(elements, elements.sorted())
        XCTAssertEqual(Set(elements).count, elements.count)
        XCTAssertTrue(elements.contains(99) && elements.contains(199) && elements.contains(299))
        XCTAssertEqual(elements.last, 999)
        XCTAssertEqual(recorder.events.last, .completed)
        XCTAssertEqual(recorder.overlappingDeliveries, 0)
    }
}
