import Foundation
import Rx
import RxTesting
import XCTest

/// `ControlEvent`: subscribed on the main thread, forwarding its source's events, and its
/// `Driver`/`Signal`/`Infallible` forms.
final class ControlEventTests: RxTestCase {
    func testSubscribe_fromABackgroundQueue_subscribesToTheSourceOnTheMainThread() {
        let subscribedOnMain = TraitsBox<Bool?>(nil)
        let received = TraitsBox<[String]>([])
        let done = expectation(description: "completed")
        let event = ControlEvent(
            events: Observable<Int>.deferred {
                subscribedOnMain.value = Thread.isMainThread
                return .just(1)
            })

        DispatchQueue.global().async {
            XCTAssertFalse(Thread.isMainThread)
            _ = event.subscribe(
                onNext: { received.log("next(\($0))") },
                onCompleted: {
                    received.log("completed")
                    done.fulfill()
                })
        }
        wait(for: [done], timeout: 5)

        XCTAssertEqual(subscribedOnMain.value, true)
        XCTAssertEqual(received.value, ["next(1)", "completed"])
    }

    func testAsObservable_fromABackgroundQueue_alsoSubscribesOnTheMainThread() {
        let subscribedOnMain = TraitsBox<Bool?>(nil)
        let done = expectation(description: "completed")
        let event = ControlEvent(
            events: Observable<Int>.deferred {
                subscribedOnMain.value = Thread.isMainThread
                return .empty()
            })

        DispatchQueue.global().async {
            _ = event.asObservable().subscribe(onCompleted: { done.fulfill() })
        }
        wait(for: [done], timeout: 5)

        XCTAssertEqual(subscribedOnMain.value, true)
    }

    func testSubscribe_onTheMainThread_subscribesAtOnce() {
        drainMainQueue()
        var received: [Int] = []

        _ = ControlEvent(events: Observable.of(1, 2)).subscribe(onNext: { received.append($0) })

        XCTAssertEqual(received, [1, 2])
    }

    func testAsControlEvent_isTheSameEvents() {
        let subject = PublishSubject<Int>()
        var received: [Int] = []
        let subscription = ControlEvent(events: subject).asControlEvent().subscribe(onNext: { received.append($0) })

        subject.onNext(4)
        subscription.dispose()
        subject.onNext(5)

        XCTAssertEqual(received, [4])
    }

    func testDispose_unsubscribesFromTheSourceAndReleasesEverything() {
        let subject = PublishSubject<Int>()
        let event = ControlEvent(events: subject)
        let resourcesBefore = Resources.total

        do {
            let subscription = event.subscribe(onNext: { _ in })
            XCTAssertTrue(subject.hasObservers)
            XCTAssertGreaterThan(Resources.total, resourcesBefore)
            subscription.dispose()
        }

        XCTAssertFalse(subject.hasObservers)
        XCTAssertEqual(Resources.total, resourcesBefore)
    }

    func testAsSignal_deliversOnTheMainThreadAndReplaysNothing() {
        drainMainQueue()
        let relay = PublishRelay<Int>()
        let signal = ControlEvent(events: relay).asSignal()
        let first = TraitsBox<[String]>([])
        var late: [Int] = []
        let delivered = expectation(description: "delivered")
        let bag = DisposeBag()

        bag.insert(
            signal.emit(onNext: { element in
                first.log("\(element) on main: \(Thread.isMainThread)")
                delivered.fulfill()
            }))
        DispatchQueue.global().async { relay.accept(1) }
        wait(for: [delivered], timeout: 5)
        bag.insert(signal.emit(onNext: { late.append($0) }))

        XCTAssertEqual(first.value, ["1 on main: true"])
        XCTAssertEqual(late, [], "a Signal replays nothing")
    }

    func testAsDriver_deliversOnTheMainThreadAndReplaysTheLatest() {
        drainMainQueue()
        let relay = PublishRelay<Int>()
        let driver = ControlEvent(events: relay).asDriver()
        let first = TraitsBox<[String]>([])
        var late: [Int] = []
        let delivered = expectation(description: "delivered")
        let bag = DisposeBag()

        bag.insert(
            driver.drive(onNext: { element in
                first.log("\(element) on main: \(Thread.isMainThread)")
                delivered.fulfill()
            }))
        DispatchQueue.global().async { relay.accept(1) }
        wait(for: [delivered], timeout: 5)
        bag.insert(driver.drive(onNext: { late.append($0) }))

        XCTAssertEqual(first.value, ["1 on main: true"])
        XCTAssertEqual(late, [1], "a Driver replays the latest element")
    }

    func testAsDriver_ofAFailingSource_reportsTheErrorAndCompletes() {
        drainMainQueue()
        var events: [String] = []
        let reported = traitsCapturingUnhandledErrors {
            _ = ControlEvent(events: Observable.of(1).concat(Observable.error(testError))).asDriver()
                .drive(onNext: { events.append("next(\($0))") }, onCompleted: { events.append("completed") })
        }

        XCTAssertEqual(reported, ["\(testError)"])
        XCTAssertEqual(events, ["next(1)", "completed"])
    }

    func testAsSignal_ofAFailingSource_reportsTheErrorAndCompletes() {
        drainMainQueue()
        var events: [String] = []
        let reported = traitsCapturingUnhandledErrors {
            _ = ControlEvent(events: Observable.of(1).concat(Observable.error(testError))).asSignal()
                .emit(onNext: { events.append("next(\($0))") }, onCompleted: { events.append("completed") })
        }

        XCTAssertEqual(reported, ["\(testError)"])
        XCTAssertEqual(events, ["next(1)", "completed"])
    }

    func testAsInfallible_ofAFailingSource_reportsTheErrorAndCompletes() {
        var events: [String] = []
        let reported = traitsCapturingUnhandledErrors {
            _ = ControlEvent(events: Observable.of(1).concat(Observable.error(testError))).asInfallible()
                .subscribe(onNext: { events.append("next(\($0))") }, onCompleted: { events.append("completed") })
        }

        XCTAssertEqual(reported, ["\(testError)"])
        XCTAssertEqual(events, ["next(1)", "completed"])
    }
}
