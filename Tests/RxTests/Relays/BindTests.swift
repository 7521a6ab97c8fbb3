import Foundation
import Rx
import RxTesting
import XCTest

final class BindTests: RxTestCase {
    private var savedErrorHandler: Hooks.DefaultErrorHandler?
    private let reportedErrors = ShareFailureLog()

    override func setUp() {
        super.setUp()
        savedErrorHandler = Hooks.defaultErrorHandler
        let log = reportedErrors
        Hooks.defaultErrorHandler = { _, error in log.record("\(error)") }
    }

    override func tearDown() {
        if let savedErrorHandler { Hooks.defaultErrorHandler = savedErrorHandler }
        super.tearDown()
    }

    func testBindToObservers_forwardsEveryEventToEachObserver() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) { _ = xs.bind(to: first, second) }
        scheduler.start()
        XCTAssertEqual(first.events, [.next(210, 1), .error(220, testError)])
        XCTAssertEqual(second.events, first.events)
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testBindToOptionalObservers_wrapsElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(220)])
        let observer = scheduler.createObserver(Int?.self)
        scheduler.scheduleAt(200) { _ = xs.bind(to: observer) }
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(210, 1), .completed(220)])
    }

    func testBindToSubject_disposingStopsTheBinding() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(230, 2)])
        let subject = PublishSubject<Int>()
        let observer = scheduler.createObserver(Int.self)
        var binding: Disposable?
        scheduler.scheduleAt(200) {
            _ = subject.subscribe(observer)
            binding = xs.bind(to: subject)
        }
        scheduler.scheduleAt(220) { binding?.dispose() }
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(210, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testBindToRelays_acceptsElementsIgnoresCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let publish = PublishRelay<Int>()
        let behavior1 = BehaviorRelay(value: 0)
        let behavior2 = BehaviorRelay(value: 0)
        let replay = ReplayRelay<Int>.create(bufferSize: 5)
        let observed = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) {
            _ = publish.subscribe(observed)
            _ = xs.bind(to: publish)
            _ = xs.bind(to: behavior1, behavior2)
            _ = xs.bind(to: replay)
        }
        scheduler.start()
        XCTAssertEqual(observed.events, [.next(210, 1), .next(220, 2)])
        XCTAssertEqual(behavior1.value, 2)
        XCTAssertEqual(behavior2.value, 2)
        var replayed: [Int] = []
        _ = replay.subscribe(onNext: { replayed.append($0) })
        XCTAssertEqual(replayed, [1, 2])
        XCTAssertEqual(reportedErrors.messages, [])
        XCTAssertEqual(xs.subscriptions, Array(repeating: Subscription(200, 230), count: 3))
    }

    func testBindToOptionalRelays_wrapsElements() {
        let publish = PublishRelay<Int?>()
        let behavior = BehaviorRelay<Int?>(value: nil)
        let replay = ReplayRelay<Int?>.create(bufferSize: 1)
        var published: [Int?] = []
        let subscription = publish.subscribe(onNext: { published.append($0) })
        let source = PublishSubject<Int>()
        let bindings = [source.bind(to: publish), source.bind(to: behavior), source.bind(to: replay)]
        source.onNext(5)
        XCTAssertEqual(published, [5])
        XCTAssertEqual(behavior.value, 5)
        var replayed: [Int?] = []
        _ = replay.subscribe(onNext: { replayed.append($0) })
        XCTAssertEqual(replayed, [5])
        bindings.forEach { $0.dispose() }
        subscription.dispose()
    }

    func testBindToRelay_errorIsReportedNotForwarded() {
        let relay = BehaviorRelay(value: 1)
        let binding = Observable<Int>.error(testError).bind(to: relay)
        XCTAssertEqual(relay.value, 1)
        XCTAssertEqual(reportedErrors.messages, ["\(testError)"])
        binding.dispose()
    }

    func testBindOnNext_receivesElementsAndReportsErrors() {
        var seen: [Int] = []
        let subject = PublishSubject<Int>()
        let binding = subject.bind(onNext: { seen.append($0) })
        subject.onNext(1)
        subject.onError(testError)
        subject.onNext(2)
        XCTAssertEqual(seen, [1])
        XCTAssertEqual(reportedErrors.messages, ["\(testError)"])
        binding.dispose()
    }

    func testBindToBinder_passesTheObservableAndReturnsTheResult() {
        let source = Observable.just(3)
        let count = source.bind(to: { (observable: Observable<Int>) -> Int in
            var total = 0
            _ = observable.subscribe(onNext: { total += $0 })
            return total
        })
        XCTAssertEqual(count, 3)

        let curried = source.bind(
            to: { (observable: Observable<Int>) in
                { (factor: Int) -> Int in
                    var total = 0
                    _ = observable.subscribe(onNext: { total += $0 * factor })
                    return total
                }
            }, curriedArgument: 10)
        XCTAssertEqual(curried, 30)
    }
}
