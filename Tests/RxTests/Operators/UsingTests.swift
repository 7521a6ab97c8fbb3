import Rx
import RxTesting
import XCTest

final class UsingTests: RxTestCase {
    func testUsing_completionDisposesResourceAndSubscriptionTogether() {
        let scheduler = TestScheduler(initialClock: 0)
        let resource = TraitsBox<TraitsMockDisposable?>(nil)
        let xs = TraitsBox<TestableObservable<Int>?>(nil)
        let calls = TraitsBox((resources: 0, observables: 0))

        let res = scheduler.start {
            Observable<Int>.using(
                { () -> TraitsMockDisposable in
                    calls.update { $0.resources += 1 }
                    let disposable = TraitsMockDisposable(scheduler: scheduler)
                    resource.value = disposable
                    return disposable
                },
                observableFactory: { disposable in
                    XCTAssertTrue(disposable === resource.value)
                    calls.update { $0.observables += 1 }
                    let cold = scheduler.createColdObservable([.next(100, scheduler.clock), .completed(200)])
                    xs.value = cold
                    return cold.asObservable()
                })
        }

        XCTAssertEqual(res.events, [.next(300, 200), .completed(400)])
        XCTAssertEqual(xs.value?.subscriptions, [Subscription(200, 400)])
        XCTAssertEqual(resource.value?.ticks, [200, 400])
        XCTAssertEqual(calls.value.resources, 1)
        XCTAssertEqual(calls.value.observables, 1)
    }

    func testUsing_errorDisposesResource() {
        let scheduler = TestScheduler(initialClock: 0)
        let resource = TraitsBox<TraitsMockDisposable?>(nil)
        let xs = TraitsBox<TestableObservable<Int>?>(nil)

        let res = scheduler.start {
            Observable<Int>.using(
                { () -> TraitsMockDisposable in
                    let disposable = TraitsMockDisposable(scheduler: scheduler)
                    resource.value = disposable
                    return disposable
                },
                observableFactory: { _ in
                    let cold = scheduler.createColdObservable([.next(100, scheduler.clock), .error(200, testError)])
                    xs.value = cold
                    return cold.asObservable()
                })
        }

        XCTAssertEqual(res.events, [.next(300, 200), .error(400, testError)])
        XCTAssertEqual(xs.value?.subscriptions, [Subscription(200, 400)])
        XCTAssertEqual(resource.value?.ticks, [200, 400])
    }

    func testUsing_disposalMidwayDisposesResource() {
        let scheduler = TestScheduler(initialClock: 0)
        let resource = TraitsBox<TraitsMockDisposable?>(nil)
        let xs = TraitsBox<TestableObservable<Int>?>(nil)

        let res = scheduler.start {
            Observable<Int>.using(
                { () -> TraitsMockDisposable in
                    let disposable = TraitsMockDisposable(scheduler: scheduler)
                    resource.value = disposable
                    return disposable
                },
                observableFactory: { _ in
                    let cold = scheduler.createColdObservable([.next(100, 1), .next(1000, 2)])
                    xs.value = cold
                    return cold.asObservable()
                })
        }

        XCTAssertEqual(res.events, [.next(300, 1)])
        XCTAssertEqual(xs.value?.subscriptions, [Subscription(200, 1000)])
        XCTAssertEqual(resource.value?.ticks, [200, 1000])
    }

    func testUsing_resourceFactoryErrorEndsSequenceWithoutObservableFactory() {
        let scheduler = TestScheduler(initialClock: 0)
        let observableFactoryCalls = TraitsBox(0)

        let res = scheduler.start {
            Observable<Int>.using(
                { () throws -> TraitsMockDisposable in throw testError },
                observableFactory: { _ in
                    observableFactoryCalls.value += 1
                    return Observable<Int>.never()
                })
        }

        XCTAssertEqual(res.events, [.error(200, testError)])
        XCTAssertEqual(observableFactoryCalls.value, 0)
    }

    func testUsing_observableFactoryErrorDisposesResourceAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let resource = TraitsBox<TraitsMockDisposable?>(nil)

        let res = scheduler.start {
            Observable<Int>.using(
                { () -> TraitsMockDisposable in
                    let disposable = TraitsMockDisposable(scheduler: scheduler)
                    resource.value = disposable
                    return disposable
                },
                observableFactory: { _ in throw testError })
        }

        XCTAssertEqual(res.events, [.error(200, testError)])
        XCTAssertEqual(resource.value?.ticks, [200, 200])
    }

    func testUsing_synchronousSourceReleasesResourceAndEverythingElse() {
        let resource = CompositeDisposable()
        var received: [Int] = []
        _ = Observable<Int>.using({ resource }, observableFactory: { _ in Observable.of(1, 2) })
            .subscribe(onNext: { received.append($0) })
        XCTAssertEqual(received, [1, 2])
        XCTAssertTrue(resource.isDisposed)
    }
}
