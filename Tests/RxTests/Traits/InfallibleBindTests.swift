import Rx
import RxTesting
import XCTest

/// `Infallible.bind(to:)` and friends, and the relays' `asInfallible()`.
final class InfallibleBindTests: RxTestCase {
    private func numbers(_ scheduler: TestScheduler) -> Infallible<Int> {
        scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
            .asInfallible(onErrorJustReturn: -1)
    }

    // MARK: observers

    func testBindToObservers_forwardsEveryEventToEachObserver() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler)
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) { _ = xs.bind(to: first, second) }
        scheduler.start()
        XCTAssertEqual(first.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(second.events, first.events)
    }

    func testBindToOptionalObservers_wrapsElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler)
        let observer = scheduler.createObserver(Int?.self)
        scheduler.scheduleAt(200) { _ = xs.bind(to: observer) }
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(210, Optional(1)), .next(220, Optional(2)), .completed(230)])
    }

    func testBindToObserver_disposingEndsTheBinding() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler)
        let observer = scheduler.createObserver(Int.self)
        let binding = TraitsBox<Disposable?>(nil)
        scheduler.scheduleAt(200) { binding.value = xs.bind(to: observer) }
        scheduler.scheduleAt(215) { binding.value?.dispose() }
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(210, 1)])
        binding.value = nil
    }

    // MARK: binder functions, onNext

    func testBindToBinder_callsItWithTheSequence() {
        var received: [Int] = []
        let subscription = Infallible.of(1, 2).bind(to: { (source: Infallible<Int>) -> Disposable in
            source.subscribe(onNext: { received.append($0) })
        })
        XCTAssertEqual(received, [1, 2])
        subscription.dispose()
    }

    func testBindToCurriedBinder_passesTheArgumentAfterTheSequence() {
        let binder: (Infallible<Int>) -> (Int) -> [Int] = { source in
            { multiplier in
                var values: [Int] = []
                _ = source.subscribe(onNext: { values.append($0 * multiplier) })
                return values
            }
        }
        XCTAssertEqual(Infallible.of(1, 2).bind(to: binder, curriedArgument: 10), [10, 20])
    }

    func testBindOnNext_receivesTheElements() {
        var received: [Int] = []
        _ = Infallible.of(1, 2).bind(onNext: { received.append($0) })
        XCTAssertEqual(received, [1, 2])
    }

    // MARK: relays

    func testBindToBehaviorRelays_setsTheirValue() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler)
        let relay = BehaviorRelay(value: 0)
        let other = BehaviorRelay(value: 0)
        let optional = BehaviorRelay<Int?>(value: nil)
        let observer = scheduler.createObserver(Int.self)
        let bag = DisposeBag()
        scheduler.scheduleAt(200) {
            relay.bind(to: observer).disposed(by: bag)
            _ = xs.bind(to: relay, other)
            _ = xs.bind(to: optional)
        }
        scheduler.start()
        XCTAssertEqual(relay.value, 2)
        XCTAssertEqual(other.value, 2)
        XCTAssertEqual(optional.value, 2)
        // The relay does not complete when the bound sequence does.
        XCTAssertEqual(observer.events, [.next(200, 0), .next(210, 1), .next(220, 2)])
    }

    func testBindToPublishRelays_sendsEveryElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler)
        let relay = PublishRelay<Int>()
        let optional = PublishRelay<Int?>()
        let observer = scheduler.createObserver(Int.self)
        let optionalObserver = scheduler.createObserver(Int?.self)
        let bag = DisposeBag()
        scheduler.scheduleAt(200) {
            relay.bind(to: observer).disposed(by: bag)
            optional.bind(to: optionalObserver).disposed(by: bag)
            _ = xs.bind(to: relay)
            _ = xs.bind(to: optional)
        }
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(210, 1), .next(220, 2)])
        XCTAssertEqual(optionalObserver.events, [.next(210, Optional(1)), .next(220, Optional(2))])
    }

    func testBindToReplayRelays_buffersEveryElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler)
        let relay = ReplayRelay<Int>.create(bufferSize: 2)
        let optional = ReplayRelay<Int?>.create(bufferSize: 1)
        scheduler.scheduleAt(200) {
            _ = xs.bind(to: relay)
            _ = xs.bind(to: optional)
        }
        scheduler.start()
        let bag = DisposeBag()
        var replayed: [Int] = []
        relay.subscribe(onNext: { replayed.append($0) }).disposed(by: bag)
        var replayedOptional: [Int?] = []
        optional.subscribe(onNext: { replayedOptional.append($0) }).disposed(by: bag)
        XCTAssertEqual(replayed, [1, 2])
        XCTAssertEqual(replayedOptional, [2])
    }

    // MARK: relays as Infallible

    func testBehaviorRelayAsInfallible_startsWithTheCurrentValue() {
        let scheduler = TestScheduler(initialClock: 0)
        let relay = BehaviorRelay(value: 0)
        scheduler.scheduleAt(210) { relay.accept(1) }
        let res = scheduler.start { relay.asInfallible() }
        XCTAssertEqual(res.events, [.next(200, 0), .next(210, 1)])
    }

    func testPublishRelayAsInfallible_deliversAcceptedElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let relay = PublishRelay<Int>()
        scheduler.scheduleAt(150) { relay.accept(0) }
        scheduler.scheduleAt(210) { relay.accept(1) }
        let res = scheduler.start { relay.asInfallible() }
        XCTAssertEqual(res.events, [.next(210, 1)])
    }

    func testReplayRelayAsInfallible_replaysTheBuffer() {
        let scheduler = TestScheduler(initialClock: 0)
        let relay = ReplayRelay<Int>.create(bufferSize: 1)
        scheduler.scheduleAt(150) { relay.accept(0) }
        scheduler.scheduleAt(210) { relay.accept(1) }
        let res = scheduler.start { relay.asInfallible() }
        XCTAssertEqual(res.events, [.next(200, 0), .next(210, 1)])
    }
}
