import Rx
import RxTesting
import XCTest

/// `drive` and `emit` to each kind of target, in virtual time.
final class DriveEmitTests: RxTestCase {
    private final class Owner: Sendable {}

    /// A Driver and a Signal of 1, 2 at 211 and 221, completing at 301.
    private func sources(_ scheduler: TestScheduler) -> (Driver<Int>, Signal<Int>) {
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
        return (xs.asDriver(onErrorJustReturn: -1), xs.asSignal(onErrorJustReturn: -1))
    }

    func testDrive_toObservers_andOptionalObservers() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let (driver, _) = sources(scheduler)
            let first = scheduler.createObserver(Int.self)
            let second = scheduler.createObserver(Int.self)
            let optional = scheduler.createObserver(Int?.self)
            let bag = DisposeBag()
            scheduler.scheduleAt(200) {
                bag.insert(driver.drive(first, second))
                bag.insert(driver.drive(optional))
            }
            scheduler.start()
            let expected: [Recorded<Event<Int>>] = [.next(211, 1), .next(221, 2), .completed(301)]
            XCTAssertEqual(first.events, expected)
            XCTAssertEqual(second.events, expected)
            XCTAssertEqual(optional.events, [.next(211, 1), .next(221, 2), .completed(301)])
        }
    }

    func testDrive_toRelays() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let (driver, _) = sources(scheduler)
            let behavior = BehaviorRelay(value: 0)
            let optionalBehavior = BehaviorRelay<Int?>(value: nil)
            let replay = ReplayRelay<Int>.create(bufferSize: 5)
            let optionalReplay = ReplayRelay<Int?>.create(bufferSize: 5)
            let publish = PublishRelay<Int>()
            let optionalPublish = PublishRelay<Int?>()
            var published: [Int] = []
            var optionalPublished: [Int?] = []
            let bag = DisposeBag()
            bag.insert(publish.subscribe(onNext: { published.append($0) }))
            bag.insert(optionalPublish.subscribe(onNext: { optionalPublished.append($0) }))
            scheduler.scheduleAt(200) {
                bag.insert(driver.drive(behavior))
                bag.insert(driver.drive(optionalBehavior))
                bag.insert(driver.drive(publish))
                bag.insert(driver.drive(optionalPublish))
                bag.insert(driver.drive(replay))
                bag.insert(driver.drive(optionalReplay))
            }
            scheduler.start()
            XCTAssertEqual(behavior.value, 2)
            XCTAssertEqual(optionalBehavior.value, 2)
            XCTAssertEqual(published, [1, 2])
            XCTAssertEqual(optionalPublished, [1, 2])
            XCTAssertEqual(try? replay.asObservable().take(2).toBlocking().toArray(), [1, 2])
            XCTAssertEqual(try? optionalReplay.asObservable().take(2).toBlocking().toArray(), [1, 2])
        }
    }

    func testDrive_withClosures_withObject_andEmpty() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let (driver, _) = sources(scheduler)
            var log: [String] = []
            let owner = Owner()
            let bag = DisposeBag()
            scheduler.scheduleAt(200) {
                bag.insert(
                    driver.drive(
                        onNext: { log.append("next \($0)") }, onCompleted: { log.append("completed") },
                        onDisposed: { log.append("disposed") }))
                bag.insert(
                    driver.drive(
                        with: owner, onNext: { object, value in log.append("with \(object === owner) \(value)") }))
                bag.insert(driver.drive())
            }
            scheduler.start()
            XCTAssertEqual(
                log, ["next 1", "with true 1", "next 2", "with true 2", "completed", "disposed"])
        }
    }

    func testDrive_transformationAndCurried() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let (driver, _) = sources(scheduler)
            let observer = scheduler.createObserver(Int.self)
            let bag = DisposeBag()
            scheduler.scheduleAt(200) {
                bag.insert(driver.drive { $0.map { $0 * 10 }.subscribe(observer) })
                let curried: (Observable<Int>) -> (Int) -> Disposable = { source in
                    { factor in source.map { $0 * factor }.subscribe(observer) }
                }
                bag.insert(driver.drive(curried, curriedArgument: 100))
            }
            scheduler.start()
            XCTAssertEqual(
                observer.events,
                [.next(211, 10), .next(211, 100), .next(221, 20), .next(221, 200), .completed(301), .completed(301)])
        }
    }

    func testEmit_toObservers_andOptionalObservers() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let (_, signal) = sources(scheduler)
            let first = scheduler.createObserver(Int.self)
            let optional = scheduler.createObserver(Int?.self)
            let bag = DisposeBag()
            scheduler.scheduleAt(200) {
                bag.insert(signal.emit(to: first))
                bag.insert(signal.emit(to: optional))
            }
            scheduler.start()
            XCTAssertEqual(first.events, [.next(211, 1), .next(221, 2), .completed(301)])
            XCTAssertEqual(optional.events, [.next(211, 1), .next(221, 2), .completed(301)])
        }
    }

    func testEmit_toRelays() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let (_, signal) = sources(scheduler)
            let behavior = BehaviorRelay(value: 0)
            let optionalBehavior = BehaviorRelay<Int?>(value: nil)
            let publish = PublishRelay<Int>()
            let optionalPublish = PublishRelay<Int?>()
            let replay = ReplayRelay<Int>.create(bufferSize: 5)
            let optionalReplay = ReplayRelay<Int?>.create(bufferSize: 5)
            var published: [Int] = []
            var optionalPublished: [Int?] = []
            let bag = DisposeBag()
            bag.insert(publish.subscribe(onNext: { published.append($0) }))
            bag.insert(optionalPublish.subscribe(onNext: { optionalPublished.append($0) }))
            scheduler.scheduleAt(200) {
                bag.insert(signal.emit(to: behavior))
                bag.insert(signal.emit(to: optionalBehavior))
                bag.insert(signal.emit(to: publish))
                bag.insert(signal.emit(to: optionalPublish))
                bag.insert(signal.emit(to: replay))
                bag.insert(signal.emit(to: optionalReplay))
            }
            scheduler.start()
            XCTAssertEqual(behavior.value, 2)
            XCTAssertEqual(optionalBehavior.value, 2)
            XCTAssertEqual(published, [1, 2])
            XCTAssertEqual(optionalPublished, [1, 2])
            XCTAssertEqual(try? replay.asObservable().take(2).toBlocking().toArray(), [1, 2])
            XCTAssertEqual(try? optionalReplay.asObservable().take(2).toBlocking().toArray(), [1, 2])
        }
    }

    func testEmit_withClosures_withObject_andEmpty() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let (_, signal) = sources(scheduler)
            var log: [String] = []
            var owner: Owner? = Owner()
            let bag = DisposeBag()
            scheduler.scheduleAt(200) {
                bag.insert(
                    signal.emit(
                        onNext: { log.append("next \($0)") }, onCompleted: { log.append("completed") },
                        onDisposed: { log.append("disposed") }))
                if let owner {
                    bag.insert(signal.emit(with: owner, onNext: { _, value in log.append("with \(value)") }))
                }
                bag.insert(signal.emit())
            }
            // Once the object is gone, its handlers hear nothing.
            scheduler.scheduleAt(215) { owner = nil }
            scheduler.start()
            XCTAssertEqual(log, ["next 1", "with 1", "next 2", "completed", "disposed"])
        }
    }
}
