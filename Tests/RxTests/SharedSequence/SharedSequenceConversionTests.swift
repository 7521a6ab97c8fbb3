import Rx
import RxTesting
import XCTest

/// `asDriver`/`asSignal` from observables, infallibles and relays: delivery on the mocked
/// scheduler and each form of error recovery.
final class SharedSequenceConversionTests: RxTestCase {
    private let failing: [Recorded<Event<Int>>] = [.next(210, 1), .error(220, testError), .next(230, 9)]

    func testAsDriver_onErrorJustReturn_replacesTheErrorAndCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let xs = scheduler.createHotObservable(failing)
            let res = scheduler.start { xs.asDriver(onErrorJustReturn: -1) }
            XCTAssertEqual(res.events, [.next(211, 1), .next(221, -1), .completed(221)])
            XCTAssertEqual(xs.subscriptions, [Subscription(200, 221)])
        }
    }

    func testAsDriver_onErrorDriveWith_continuesWithTheFallback() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let xs = scheduler.createHotObservable(failing)
            let ys = scheduler.createHotObservable([.next(240, 5), .completed(250)])
            let res = scheduler.start { xs.asDriver(onErrorDriveWith: ys.asDriver(onErrorJustReturn: -2)) }
            XCTAssertEqual(res.events, [.next(211, 1), .next(241, 5), .completed(251)])
            XCTAssertEqual(ys.subscriptions, [Subscription(221, 251)])
        }
    }

    func testAsDriver_onErrorRecover_continuesWithWhatTheErrorMakes() {
        let scheduler = TestScheduler(initialClock: 0)
        let seen = TraitsBox<TestError?>(nil)
        withSharingScheduler(scheduler) {
            let xs = scheduler.createHotObservable(failing)
            let res = scheduler.start {
                xs.asDriver(onErrorRecover: { error in
                    seen.value = error as? TestError
                    return Driver.just(7)
                })
            }
            XCTAssertEqual(res.events, [.next(211, 1), .next(222, 7), .completed(222)])
        }
        XCTAssertEqual(seen.value, testError)
    }

    func testAsSignal_onErrorJustReturn_replacesTheErrorAndCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let xs = scheduler.createHotObservable(failing)
            let res = scheduler.start { xs.asSignal(onErrorJustReturn: -1) }
            XCTAssertEqual(res.events, [.next(211, 1), .next(221, -1), .completed(221)])
        }
    }

    func testAsSignal_onErrorSignalWith_continuesWithTheFallback() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let xs = scheduler.createHotObservable(failing)
            let ys = scheduler.createHotObservable([.next(240, 5), .completed(250)])
            let res = scheduler.start { xs.asSignal(onErrorSignalWith: ys.asSignal(onErrorJustReturn: -2)) }
            XCTAssertEqual(res.events, [.next(211, 1), .next(241, 5), .completed(251)])
        }
    }

    func testAsSignal_onErrorRecover_continuesWithWhatTheErrorMakes() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let xs = scheduler.createHotObservable(failing)
            let res = scheduler.start { xs.asSignal(onErrorRecover: { _ in Signal.just(7) }) }
            XCTAssertEqual(res.events, [.next(211, 1), .next(222, 7), .completed(222)])
        }
    }

    func testAsSharedSequence_withExplicitStrategy() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let xs = scheduler.createHotObservable(failing)
            let res = scheduler.start {
                xs.asSharedSequence(sharingStrategy: DriverSharingStrategy.self, onErrorJustReturn: 0)
            }
            XCTAssertEqual(res.events, [.next(211, 1), .next(221, 0), .completed(221)])
        }
    }

    func testInfallible_asDriverAndAsSignal() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let xs = scheduler.createHotObservable([.next(210, 1), .completed(230)])
            let infallible = xs.asInfallible(onErrorJustReturn: -1)
            XCTAssertEqual(scheduler.start { infallible.asDriver() }.events, [.next(211, 1), .completed(231)])
        }
        let other = TestScheduler(initialClock: 0)
        withSharingScheduler(other) {
            let xs = other.createHotObservable([.next(210, 1), .completed(230)])
            let infallible = xs.asInfallible(onErrorJustReturn: -1)
            XCTAssertEqual(other.start { infallible.asSignal() }.events, [.next(211, 1), .completed(231)])
        }
    }

    func testBehaviorRelay_asDriver_startsWithTheCurrentValue() {
        let scheduler = TestScheduler(initialClock: 0)
        let relay = BehaviorRelay(value: 1)
        scheduler.scheduleAt(250) { relay.accept(2) }
        withSharingScheduler(scheduler) {
            let res = scheduler.start { relay.asDriver() }
            XCTAssertEqual(res.events, [.next(201, 1), .next(251, 2)])
        }
    }

    func testPublishRelay_asDriver_replaysTheLatestAccepted() {
        let scheduler = TestScheduler(initialClock: 0)
        let relay = PublishRelay<Int>()
        scheduler.scheduleAt(250) { relay.accept(2) }
        withSharingScheduler(scheduler) {
            let driver = relay.asDriver()
            let first = scheduler.createObserver(Int.self)
            let late = scheduler.createObserver(Int.self)
            let bag = DisposeBag()
            scheduler.scheduleAt(200) { bag.insert(driver.drive(first)) }
            scheduler.scheduleAt(300) { bag.insert(driver.drive(late)) }
            scheduler.start()
            XCTAssertEqual(first.events, [.next(251, 2)])
            XCTAssertEqual(late.events, [.next(300, 2)])
        }
    }

    func testPublishRelay_asSignal_deliversWhatIsAccepted() {
        let scheduler = TestScheduler(initialClock: 0)
        let relay = PublishRelay<Int>()
        scheduler.scheduleAt(150) { relay.accept(1) }
        scheduler.scheduleAt(250) { relay.accept(2) }
        withSharingScheduler(scheduler) {
            let res = scheduler.start { relay.asSignal() }
            XCTAssertEqual(res.events, [.next(251, 2)])
        }
    }

    func testAsDriverAndAsSignal_onTheirOwnTypesAreIdentity() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let driver = Driver.just(1)
            XCTAssertEqual(
                scheduler.start { driver.asDriver().asSharedSequence() }.events, [.next(201, 1), .completed(201)])
        }
        let other = TestScheduler(initialClock: 0)
        withSharingScheduler(other) {
            let signal = Signal.just(1)
            XCTAssertEqual(other.start { signal.asSignal() }.events, [.next(201, 1), .completed(201)])
        }
    }
}
