import Dispatch
import Foundation
import Rx
import RxTesting
import XCTest

/// Traits and their operators driven from real threads: every subscription gets exactly
/// one outcome, delivery is never concurrent, and everything is released.
final class TraitsThreadingTests: RxTestCase {
    func testTimeout_racingASourceOnAnotherThreadGivesExactlyOneOutcome() {
        let scheduler = TraitsQueueScheduler(label: "timeout.timer")
        let sourceQueue = DispatchQueue(label: "timeout.source", attributes: .concurrent)
        let count = 200
        let outcomes = TraitsBox<[String]>([])
        let done = expectation(description: "all outcomes")
        done.expectedFulfillmentCount = count
        var subscriptions: [Disposable] = []
        for index in 0..<count {
            let single = Single<Int>.create { observer in
                sourceQueue.asyncAfter(deadline: .now() + .microseconds(index % 7 * 150)) {
                    observer(.success(index))
                }
                return Disposables.create()
            }
            subscriptions.append(
                single.timeout(.microseconds(500), scheduler: scheduler).subscribe(
                    onSuccess: { _ in
                        outcomes.log("success")
                        done.fulfill()
                    },
                    onFailure: { _ in
                        outcomes.log("timeout")
                        done.fulfill()
                    }))
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(outcomes.value.count, count)
        subscriptions.forEach { $0.dispose() }
        // Let the sources that lost the race run out before the leak check.
        sourceQueue.sync(flags: .barrier) {}
        scheduler.queue.sync {}
    }

    func testDelayAndObserveOn_deliverOnTheSchedulersQueue() {
        let scheduler = TraitsQueueScheduler(label: "delay")
        let key = DispatchSpecificKey<String>()
        scheduler.queue.setSpecific(key: key, value: "delay")
        let done = expectation(description: "delivered")
        let seenOn = TraitsBox<[String?]>([])
        let subscription = Single.just(1)
            .delay(.milliseconds(2), scheduler: scheduler)
            .observe(on: scheduler)
            .subscribe(onSuccess: { _ in
                seenOn.update { $0.append(DispatchQueue.getSpecific(key: key)) }
                done.fulfill()
            })
        wait(for: [done], timeout: 5)
        XCTAssertEqual(seenOn.value, ["delay"])
        subscription.dispose()
        scheduler.queue.sync {}
    }

    func testSubscribeOn_subscribesOnTheSchedulersQueue() {
        let scheduler = TraitsQueueScheduler(label: "subscribeOn")
        let key = DispatchSpecificKey<String>()
        scheduler.queue.setSpecific(key: key, value: "subscribeOn")
        let subscribedOn = TraitsBox<String?>(nil)
        let done = expectation(description: "completed")
        let subscription = Completable.create { observer in
            subscribedOn.value = DispatchQueue.getSpecific(key: key)
            observer(.completed)
            return Disposables.create()
        }
        .subscribe(on: scheduler)
        .subscribe(onCompleted: { done.fulfill() })
        wait(for: [done], timeout: 5)
        XCTAssertEqual(subscribedOn.value, "subscribeOn")
        subscription.dispose()
        scheduler.queue.sync {}
    }

    func testInfallibleFlatMap_innersOnManyThreadsAreDeliveredOneAtATime() {
        let queues = (0..<8).map { DispatchQueue(label: "inner.\($0)") }
        let inFlight = TraitsBox(0)
        let overlaps = TraitsBox(0)
        let received = TraitsBox(0)
        let done = expectation(description: "completed")
        let subscription = Infallible.from(0..<8)
            .flatMap { index in
                Infallible<Int>.create { observer in
                    queues[index].async {
                        for value in 0..<100 { observer(.next(value)) }
                        observer(.completed)
                    }
                    return Disposables.create()
                }
            }
            .subscribe(
                onNext: { _ in
                    if inFlight.update({ value -> Int in
                        value += 1
                        return value
                    }) > 1 {
                        overlaps.value += 1
                    }
                    received.value += 1
                    inFlight.update { $0 -= 1 }
                },
                onCompleted: { done.fulfill() })
        wait(for: [done], timeout: 10)
        XCTAssertEqual(received.value, 800)
        XCTAssertEqual(overlaps.value, 0)
        subscription.dispose()
    }

    func testCompletableMerge_completionsFromManyThreadsCompleteOnce() {
        let queues = (0..<8).map { DispatchQueue(label: "merge.\($0)") }
        let completions = TraitsBox(0)
        let done = expectation(description: "completed")
        let completables = queues.map { queue in
            Completable.create { observer in
                queue.async { observer(.completed) }
                return Disposables.create()
            }
        }
        let subscription = Completable.merge(completables).subscribe(onCompleted: {
            completions.value += 1
            done.fulfill()
        })
        wait(for: [done], timeout: 5)
        XCTAssertEqual(completions.value, 1)
        subscription.dispose()
    }
}
