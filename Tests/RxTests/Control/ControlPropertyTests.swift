import Foundation
import Rx
import RxTesting
import XCTest

/// `ControlProperty`: values subscribed on the main thread, elements sent to its sink,
/// errors kept from the sink, `changed`, `orEmpty` and `asDriver()`.
final class ControlPropertyTests: RxTestCase {
    /// A sink that records the events it receives.
    private final class RecordingSink<Element>: ObserverType {
        var events: [Event<Element>] = []
        func on(_ event: Event<Element>) { events.append(event) }
    }

    private func describe<Element>(_ events: [Event<Element>]) -> [String] {
        events.map { event in
            switch event {
            case .next(let element): return "next(\(element))"
            case .error(let error): return "error(\(error))"
            case .completed: return "completed"
            }
        }
    }

    func testSubscribe_fromABackgroundQueue_subscribesToTheValuesOnTheMainThread() {
        let subscribedOnMain = TraitsBox<Bool?>(nil)
        let received = TraitsBox<[Int]>([])
        let done = expectation(description: "completed")
        let property = ControlProperty(
            values: Observable<Int>.deferred {
                subscribedOnMain.value = Thread.isMainThread
                return .just(3)
            },
            valueSink: AnyObserver<Int> { _ in })

        DispatchQueue.global().async {
            XCTAssertFalse(Thread.isMainThread)
            _ = property.subscribe(
                onNext: { element in received.update { $0.append(element) } },
                onCompleted: { done.fulfill() })
        }
        wait(for: [done], timeout: 5)

        XCTAssertEqual(subscribedOnMain.value, true)
        XCTAssertEqual(received.value, [3])
    }

    func testOn_sendsElementsAndCompletionToTheSink() {
        let sink = RecordingSink<Int>()
        let property = ControlProperty(values: Observable<Int>.never(), valueSink: sink)

        property.onNext(1)
        property.asControlProperty().onNext(2)
        property.onCompleted()

        XCTAssertEqual(describe(sink.events), ["next(1)", "next(2)", "completed"])
    }

    func testOn_error_isReportedAndNeverReachesTheSink() {
        let sink = RecordingSink<Int>()
        let property = ControlProperty(values: Observable<Int>.never(), valueSink: sink)

        let reported = traitsCapturingUnhandledErrors {
            property.onError(testError)
        }
        property.onNext(5)

        XCTAssertEqual(reported, ["\(testError)"])
        XCTAssertEqual(describe(sink.events), ["next(5)"], "the property still sets values after the error")
    }

    func testBindTo_aFailingSource_reportsTheErrorWithoutReachingTheSink() {
        let sink = RecordingSink<Int>()
        let property = ControlProperty(values: Observable<Int>.never(), valueSink: sink)

        let reported = traitsCapturingUnhandledErrors {
            _ = Observable.of(1).concat(Observable.error(testError)).bind(to: property)
        }

        XCTAssertEqual(reported.count, 1)
        XCTAssertEqual(describe(sink.events), ["next(1)"])
    }

    func testChanged_skipsTheCurrentValue() {
        let subject = BehaviorSubject(value: 0)
        let property = ControlProperty(values: subject, valueSink: AnyObserver<Int> { _ in })
        var all: [Int] = []
        var changes: [Int] = []

        let bag = DisposeBag()
        bag.insert(property.subscribe(onNext: { all.append($0) }))
        let changesSubscription = property.changed.subscribe(onNext: { changes.append($0) })
        XCTAssertEqual(changes, [])
        subject.onNext(1)
        subject.onNext(1)
        changesSubscription.dispose()
        subject.onNext(2)

        XCTAssertEqual(all, [0, 1, 1, 2])
        XCTAssertEqual(changes, [1, 1], "every user change, equal or not, until disposed")
    }

    func testOrEmpty_readsNilAsEmptyAndSetsStringsOnTheSink() {
        let sink = RecordingSink<String?>()
        let property = ControlProperty<String?>(values: Observable.of(nil, "a", nil), valueSink: sink)
        var values: [String] = []

        _ = property.orEmpty.subscribe(onNext: { values.append($0) })
        property.orEmpty.onNext("b")
        property.orEmpty.onNext("")

        XCTAssertEqual(values, ["", "a", ""])
        XCTAssertEqual(sink.events.compactMap(\.element), [Optional("b"), Optional("")])
    }

    func testOrEmpty_errorIsReportedAndNeverReachesTheSink() {
        let sink = RecordingSink<String?>()
        let property = ControlProperty<String?>(values: Observable.never(), valueSink: sink)

        let reported = traitsCapturingUnhandledErrors {
            property.orEmpty.onError(testError)
        }

        XCTAssertEqual(reported, ["\(testError)"])
        XCTAssertTrue(sink.events.isEmpty)
    }

    func testAsDriver_deliversOnTheMainThreadAndReplaysTheLatest() {
        drainMainQueue()
        let relay = BehaviorRelay(value: 0)
        let driver = ControlProperty(values: relay, valueSink: AnyObserver<Int> { _ in }).asDriver()
        let first = TraitsBox<[String]>([])
        var late: [Int] = []
        let delivered = expectation(description: "delivered")
        let bag = DisposeBag()

        bag.insert(
            driver.drive(onNext: { element in
                first.log("\(element) on main: \(Thread.isMainThread)")
                if element == 1 { delivered.fulfill() }
            }))
        DispatchQueue.global().async { relay.accept(1) }
        wait(for: [delivered], timeout: 5)
        bag.insert(driver.drive(onNext: { late.append($0) }))

        XCTAssertEqual(first.value, ["0 on main: true", "1 on main: true"])
        XCTAssertEqual(late, [1])
    }

    func testAsDriver_ofAFailingSource_reportsTheErrorAndCompletes() {
        drainMainQueue()
        var events: [String] = []
        let property = ControlProperty(
            values: Observable.of(1).concat(Observable.error(testError)), valueSink: AnyObserver<Int> { _ in })

        let reported = traitsCapturingUnhandledErrors {
            _ = property.asDriver()
                .drive(onNext: { events.append("next(\($0))") }, onCompleted: { events.append("completed") })
        }

        XCTAssertEqual(reported, ["\(testError)"])
        XCTAssertEqual(events, ["next(1)", "completed"])
    }

    func testDispose_unsubscribesFromTheValuesAndReleasesEverything() {
        let subject = BehaviorSubject(value: "x")
        let property = ControlProperty<String?>(values: subject.map { Optional($0) }, valueSink: AnyObserver { _ in })
        let resourcesBefore = Resources.total

        do {
            let subscription = property.subscribe(onNext: { _ in })
            let changed = property.changed.subscribe(onNext: { _ in })
            let orEmpty = property.orEmpty.subscribe(onNext: { _ in })
            XCTAssertTrue(subject.hasObservers)
            XCTAssertGreaterThan(Resources.total, resourcesBefore)
            subscription.dispose()
            changed.dispose()
            orEmpty.dispose()
        }

        XCTAssertFalse(subject.hasObservers)
        XCTAssertEqual(Resources.total, resourcesBefore)
    }
}
