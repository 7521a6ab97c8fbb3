import Foundation
import Rx
import RxTesting
import XCTest

final class SharedSequenceTests: RxTestCase {
    // MARK: Sharing and replay

    func testDriver_replaysLatestElementToLateObserver() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(500)])
            let driver = xs.asDriver(onErrorJustReturn: -1)
            let early = scheduler.createObserver(Int.self)
            let late = scheduler.createObserver(Int.self)
            let bag = DisposeBag()
            scheduler.scheduleAt(200) { bag.insert(driver.drive(early)) }
            scheduler.scheduleAt(230) { bag.insert(driver.drive(late)) }
            scheduler.start()

            // Each element arrives a tick after the source's (the hop onto the scheduler);
            // the late observer gets the latest at once.
            XCTAssertEqual(early.events, [.next(211, 1), .next(221, 2), .completed(501)])
            XCTAssertEqual(late.events, [.next(230, 2), .completed(501)])
            XCTAssertEqual(xs.subscriptions, [Subscription(200, 501)])
        }
    }

    func testSignal_doesNotReplayToLateObserver() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(240, 3), .completed(500)])
            let signal = xs.asSignal(onErrorJustReturn: -1)
            let early = scheduler.createObserver(Int.self)
            let late = scheduler.createObserver(Int.self)
            let bag = DisposeBag()
            scheduler.scheduleAt(200) { bag.insert(signal.emit(to: early)) }
            scheduler.scheduleAt(230) { bag.insert(signal.emit(to: late)) }
            scheduler.start()

            XCTAssertEqual(early.events, [.next(211, 1), .next(221, 2), .next(241, 3), .completed(501)])
            XCTAssertEqual(late.events, [.next(241, 3), .completed(501)])
            XCTAssertEqual(xs.subscriptions, [Subscription(200, 501)])
        }
    }

    func testDriver_sharesOneSourceSubscriptionUntilTheLastObserverLeaves() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let xs = scheduler.createColdObservable([.next(10, 1), .next(20, 2)])
            let driver = xs.asDriver(onErrorJustReturn: -1)
            let first = scheduler.createObserver(Int.self)
            let second = scheduler.createObserver(Int.self)
            let one = SerialDisposable()
            let two = SerialDisposable()
            let three = SerialDisposable()
            scheduler.scheduleAt(200) { one.disposable = driver.drive(first) }
            scheduler.scheduleAt(215) { two.disposable = driver.drive(second) }
            scheduler.scheduleAt(230) { one.dispose() }
            scheduler.scheduleAt(240) { two.dispose() }
            // After the last observer left, a new one starts the source anew.
            scheduler.scheduleAt(300) { three.disposable = driver.drive(first) }
            scheduler.scheduleAt(350) { three.dispose() }
            scheduler.start()

            XCTAssertEqual(first.events, [.next(211, 1), .next(221, 2), .next(311, 1), .next(321, 2)])
            // The second observer gets the latest element replayed as it subscribes.
            XCTAssertEqual(second.events, [.next(215, 1), .next(221, 2)])
            XCTAssertEqual(xs.subscriptions, [Subscription(200, 240), Subscription(300, 350)])
        }
    }

    func testSignal_sharesOneSourceSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let subscriptions = TraitsBox(0)
        withSharingScheduler(scheduler) {
            let signal = scheduler.createHotObservable([.next(210, 1), .completed(300)])
                .do(onSubscribe: { subscriptions.value += 1 })
                .asSignal(onErrorJustReturn: -1)
            let first = scheduler.createObserver(Int.self)
            let second = scheduler.createObserver(Int.self)
            let bag = DisposeBag()
            scheduler.scheduleAt(200) {
                bag.insert(signal.emit(to: first))
                bag.insert(signal.emit(to: second))
            }
            scheduler.start()

            XCTAssertEqual(first.events, [.next(211, 1), .completed(301)])
            XCTAssertEqual(second.events, [.next(211, 1), .completed(301)])
        }
        XCTAssertEqual(subscriptions.value, 1)
    }

    // MARK: The scheduler

    func testDriver_deliversOnTheMockedSchedulerReadAtCreation() {
        let scheduler = TestScheduler(initialClock: 0)
        let other = TestScheduler(initialClock: 0)
        var driver: Driver<Int>?
        withSharingScheduler(scheduler) {
            driver = Observable.just(1).asDriver(onErrorJustReturn: -1)
        }
        // Created under the mock: delivered by `scheduler`, whatever is mocked now.
        let observer = scheduler.createObserver(Int.self)
        withSharingScheduler(other) {
            _ = driver?.drive(observer)
        }
        XCTAssertEqual(observer.events, [])
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(1, 1), .completed(2)])
    }

    func testSharingScheduler_mockRestoresThePreviousFactoryAfterNestingAndThrowing() throws {
        let outer = TestScheduler(initialClock: 0)
        let inner = TestScheduler(initialClock: 0)
        XCTAssertTrue(SharingScheduler.make() is MainScheduler)
        try SharingScheduler.mock(scheduler: outer) {
            XCTAssertTrue((SharingScheduler.make() as AnyObject) === outer)
            XCTAssertThrowsError(
                try SharingScheduler.mock(makeScheduler: { inner }) {
                    XCTAssertTrue((SharingScheduler.make() as AnyObject) === inner)
                    throw testError
                })
            XCTAssertTrue((SharingScheduler.make() as AnyObject) === outer)
        }
        XCTAssertTrue(SharingScheduler.make() is MainScheduler)
    }

    /// On the main thread a `MainScheduler` runs at once, so a Driver on the real
    /// main scheduler delivers synchronously in a test (which runs on the main thread).
    func testDriver_onRealMainScheduler_deliversSynchronouslyOnTheMainThread() {
        XCTAssertTrue(Thread.isMainThread)
        var received: [Int] = []
        var completed = false
        let disposable = Observable.from([1, 2, 3]).asDriver(onErrorJustReturn: -1)
            .drive(onNext: { received.append($0) }, onCompleted: { completed = true })
        XCTAssertEqual(received, [1, 2, 3])
        XCTAssertTrue(completed)
        disposable.dispose()

        var signalled: [Int] = []
        let relay = PublishRelay<Int>()
        let subscription = relay.asSignal().emit(onNext: { signalled.append($0) })
        relay.accept(7)
        XCTAssertEqual(signalled, [7])
        subscription.dispose()
    }

    /// Off the main thread the real main scheduler queues; the elements arrive once the
    /// main queue runs (XCTest's waits run it).
    func testDriver_onRealMainScheduler_fromAnotherThreadArrivesOnMain() {
        let driver = Observable<Int>.never().startWith(5).asDriver(onErrorJustReturn: -1)
        let received = expectation(description: "element on main")
        let bag = DisposeBag()
        DispatchQueue.global().async {
            let disposable = driver.asObservable().subscribe(onNext: { value in
                XCTAssertTrue(Thread.isMainThread)
                XCTAssertEqual(value, 5)
                received.fulfill()
            })
            DispatchQueue.main.async { bag.insert(disposable) }
        }
        wait(for: [received], timeout: 5)
        drainMainQueue()
    }

    /// Off the main thread `drive` only reports (in debug builds) and still subscribes.
    func testDrive_offTheMainThread_reportsAndStillSubscribes() {
        let scheduler = TestScheduler(initialClock: 0)
        let received = TraitsBox<[Int]>([])
        withSharingScheduler(scheduler) {
            let driver = Driver.just(1)
            let done = expectation(description: "drive returned")
            let disposable = TraitsBox<Disposable?>(nil)
            DispatchQueue.global().async {
                disposable.value = driver.drive(onNext: { received.value.append($0) })
                done.fulfill()
            }
            wait(for: [done], timeout: 5)
            scheduler.start()
            disposable.value?.dispose()
        }
        XCTAssertEqual(received.value, [1])
    }

    // MARK: Factories

    func testFactories_deliverOnTheStrategyScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            XCTAssertEqual(scheduler.start { Driver.just(1) }.events, [.next(201, 1), .completed(201)])
        }
        let events = { (make: @escaping () -> Driver<Int>) -> [Recorded<Event<Int>>] in
            let scheduler = TestScheduler(initialClock: 0)
            var result: [Recorded<Event<Int>>] = []
            self.withSharingScheduler(scheduler) { result = scheduler.start(make).events }
            return result
        }
        XCTAssertEqual(events { Driver.empty() }, [.completed(201)])
        XCTAssertEqual(events { Driver.never() }, [])
        XCTAssertEqual(events { Driver.of(1, 2) }, [.next(201, 1), .next(202, 2), .completed(203)])
        XCTAssertEqual(events { Driver.from([1, 2]) }, [.next(201, 1), .next(202, 2), .completed(203)])
        XCTAssertEqual(events { Driver.from(1...2) }, [.next(201, 1), .next(202, 2), .completed(203)])
        XCTAssertEqual(events { Driver.from(optional: 3) }, [.next(201, 3), .completed(202)])
        XCTAssertEqual(events { Driver.from(optional: nil) }, [.completed(201)])
        XCTAssertEqual(events { Driver.deferred { Driver.just(4) } }, [.next(201, 4), .completed(201)])
        let timed = TestScheduler(initialClock: 0)
        withSharingScheduler(timed) {
            let res = timed.start(disposed: 235) { Signal<Int>.interval(.seconds(10)) }
            XCTAssertEqual(res.events, [.next(210, 0), .next(220, 1), .next(230, 2)])
        }
        let timer = TestScheduler(initialClock: 0)
        withSharingScheduler(timer) {
            let res = timer.start(disposed: 250) { Driver<Int>.timer(.seconds(5), period: .seconds(20)) }
            XCTAssertEqual(res.events, [.next(205, 0), .next(225, 1), .next(245, 2)])
        }
    }
}
