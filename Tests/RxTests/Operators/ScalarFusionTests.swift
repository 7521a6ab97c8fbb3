import Foundation
import Rx
import XCTest

/// `map` and `flatMap` over `just` (Observable and traits) skip their sinks and compute in
/// place; what a subscriber sees must stay what the sinks gave: events and their order,
/// errors thrown by the closures, a transform run once per subscription, the trampoline,
/// and the disposal of an inner sequence that is not a scalar.
final class ScalarFusionTests: RxTestCase {
    func testObservableJustMap_nextThenCompleted_transformRunsOncePerSubscription() {
        let calls = Counter()
        let mapped = Observable.just(1).map { value -> Int in
            calls.increment()
            return value + 1
        }
        for round in 1...2 {
            let events = EventLog()
            _ = mapped.subscribe(onNext: { events.append("next \($0)") }, onCompleted: { events.append("completed") })
            XCTAssertEqual(events.entries, ["next 2", "completed"])
            XCTAssertEqual(calls.value, round)
        }
    }

    func testObservableJustMap_throwing_endsWithTheErrorAndNoCompletion() {
        let events = EventLog()
        _ = Observable.just(1).map { _ -> Int in throw testError }
            .subscribe(
                onNext: { events.append("next \($0)") }, onError: { events.append("error \($0)") },
                onCompleted: { events.append("completed") })
        XCTAssertEqual(events.entries, ["error TestError(1)"])
    }

    func testObservableJustMap_rawObserver_getsNextAndCompleted() {
        let events = EventLog()
        _ = Observable.just(20).map { $0 + 1 }.subscribe(AnyObserver { events.append("\($0)") })
        XCTAssertEqual(events.entries, ["next(21)", "completed"])
    }

    func testObservableJustMap_handlerSeesTheTrampolineRunning() {
        let required = Flags()
        _ = Observable.just(1).map { $0 }.subscribe(onNext: { _ in
            required.values.append(CurrentThreadScheduler.isScheduleRequired)
        })
        XCTAssertEqual(required.values, [false])
        XCTAssertTrue(CurrentThreadScheduler.isScheduleRequired)
    }

    func testSingleJustMapFlatMap_succeedsWithTheResult() {
        let events = EventLog()
        _ = Single.just(1).map { $0 + 1 }.flatMap { Single.just($0 * 10) }
            .subscribe(onSuccess: { events.append("success \($0)") }, onFailure: { events.append("failure \($0)") })
        XCTAssertEqual(events.entries, ["success 20"])
    }

    func testSingleJustMap_throwing_fails() {
        let events = EventLog()
        _ = Single.just(1).map { _ -> Int in throw testError }.map { $0 + 1 }
            .subscribe(onSuccess: { events.append("success \($0)") }, onFailure: { events.append("failure \($0)") })
        XCTAssertEqual(events.entries, ["failure TestError(1)"])
    }

    func testSingleJustFlatMap_throwingSelectorOrThrowingScalarInner_fails() {
        let events = EventLog()
        _ = Single.just(1).flatMap { _ -> Single<Int> in throw testError }
            .subscribe(onSuccess: { events.append("success \($0)") }, onFailure: { events.append("failure \($0)") })
        _ = Single.just(1).flatMap { Single.just($0).map { _ -> Int in throw testError2 } }
            .subscribe(onSuccess: { events.append("success \($0)") }, onFailure: { events.append("failure \($0)") })
        XCTAssertEqual(events.entries, ["failure TestError(1)", "failure TestError(2)"])
    }

    func testSingleJustFlatMap_innerThatIsNoScalar_isDisposedWhenItSucceeds() {
        let events = EventLog()
        let subject = PublishSubject<Int>()
        let inner = Single<Int>.create { observer in
            let subscription = subject.subscribe(onNext: { observer(.success($0)) })
            return Disposables.create {
                events.append("inner disposed")
                subscription.dispose()
            }
        }
        // A raw observer: nothing downstream disposes the chain, the flatMap does.
        let subscription = Single.just(1).flatMap { _ in inner }.asObservable()
            .subscribe(AnyObserver { events.append("\($0)") })
        XCTAssertEqual(events.entries, [])
        subject.onNext(5)
        // As before the fusion: the finished inner sequence is released before the
        // completion goes downstream.
        XCTAssertEqual(events.entries, ["next(5)", "inner disposed", "completed"])
        subscription.dispose()
        XCTAssertEqual(events.entries.count, 3)
    }

    func testSingleJustFlatMap_innerThatIsNoScalar_disposedEarly_disposesTheInner() {
        let events = EventLog()
        let inner = Single<Int>.create { _ in Disposables.create { events.append("inner disposed") } }
        let subscription = Single.just(1).flatMap { _ in inner }
            .subscribe(onSuccess: { events.append("success \($0)") })
        XCTAssertEqual(events.entries, [])
        subscription.dispose()
        XCTAssertEqual(events.entries, ["inner disposed"])
    }

    func testMaybeJustMapFlatMap_succeeds() {
        let events = EventLog()
        _ = Maybe.just(2).map { $0 * 3 }.flatMap { Maybe.just($0 + 1) }
            .subscribe(
                onSuccess: { events.append("success \($0)") }, onError: { events.append("error \($0)") },
                onCompleted: { events.append("completed") })
        _ = Maybe.just(2).flatMap { _ in Maybe<Int>.empty() }
            .subscribe(
                onSuccess: { events.append("success \($0)") }, onError: { events.append("error \($0)") },
                onCompleted: { events.append("completed") })
        XCTAssertEqual(events.entries, ["success 7", "completed"])
    }

    func testFlatMapOfJust_mergesInOrder_andStopsWhenDisposedFromAHandler() {
        let events = EventLog()
        _ = Observable.from([1, 2, 3]).flatMap { Observable.just($0 * 2) }
            .subscribe(onNext: { events.append("next \($0)") }, onCompleted: { events.append("completed") })
        XCTAssertEqual(events.entries, ["next 2", "next 4", "next 6", "completed"])

        let subject = PublishSubject<Int>()
        let received = EventLog()
        let holder = SubscriptionHolder()
        holder.subscription = subject.flatMap { Observable.just($0) }
            .subscribe(onNext: { value in
                received.append("next \(value)")
                holder.subscription?.dispose()
            })
        subject.onNext(1)
        subject.onNext(2)
        XCTAssertEqual(received.entries, ["next 1"])
    }

    func testTrampoline_worksOnManyThreadsThatComeAndGo() {
        // Each thread gets its own trampoline, freed when the thread exits.
        let total = Counter()
        let idleAfterwards = Counter()
        let group = DispatchGroup()
        for _ in 0..<8 {
            group.enter()
            let thread = Thread {
                for _ in 0..<100 {
                    _ = Observable.from([1, 2]).map { $0 }.subscribe(onNext: { _ in total.increment() })
                }
                if CurrentThreadScheduler.isScheduleRequired { idleAfterwards.increment() }
                group.leave()
            }
            thread.start()
        }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(total.value, 8 * 100 * 2)
        XCTAssertEqual(idleAfterwards.value, 8)
    }
}

private final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []

    var entries: [String] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }

    func append(_ entry: String) {
        lock.lock()
        storage.append(entry)
        lock.unlock()
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }
}

private final class Flags: @unchecked Sendable {
    var values: [Bool] = []
}

private final class SubscriptionHolder: @unchecked Sendable {
    var subscription: Disposable?
}
