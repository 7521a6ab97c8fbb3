import Rx
import RxTesting
import XCTest

final class AnyObserverTests: RxTestCase {
    func testInitEventHandler_receivesEveryEvent() {
        var events: [Event<Int>] = []
        let observer = AnyObserver<Int> { events.append($0) }
        observer.on(.next(1))
        observer.onNext(2)
        observer.onError(testError)
        observer.onCompleted()
        XCTAssertEqual(events, [.next(1), .next(2), .error(testError), .completed])
    }

    func testInitWrappingObserver_forwardsToIt() {
        let scheduler = TestScheduler(initialClock: 0)
        let recorder = scheduler.createObserver(Int.self)
        let observer = AnyObserver(recorder)
        observer.onNext(1)
        observer.onCompleted()
        XCTAssertEqual(recorder.events, [.next(0, 1), .completed(0)])
    }

    func testInitWrappingAnyObserver_doesNotNestWrappers() {
        var events: [Event<Int>] = []
        let inner = AnyObserver<Int> { events.append($0) }
        let outer = AnyObserver(inner)
        outer.onNext(1)
        XCTAssertEqual(events, [.next(1)])
    }

    func testAsObserver_returnsAnEquivalentObserver() {
        var events: [Event<Int>] = []
        let observer = AnyObserver<Int> { events.append($0) }.asObserver()
        observer.onNext(5)
        XCTAssertEqual(events, [.next(5)])
    }

    func testObserverTypeAsObserver_wrapsConformingTypes() {
        let scheduler = TestScheduler(initialClock: 0)
        let recorder = scheduler.createObserver(String.self)
        recorder.asObserver().onNext("a")
        XCTAssertEqual(recorder.events, [.next(0, "a")])
    }

    func testMapObserver_transformsElementsBeforeForwarding() {
        var events: [Event<String>] = []
        let observer = AnyObserver<String> { events.append($0) }
        let ints: AnyObserver<Int> = observer.mapObserver { "\($0)" }
        ints.onNext(1)
        ints.onCompleted()
        XCTAssertEqual(events, [.next("1"), .completed])
    }

    func testMapObserver_thrownErrorIsForwardedAsError() {
        var events: [Event<String>] = []
        let observer = AnyObserver<String> { events.append($0) }
        let ints: AnyObserver<Int> = observer.mapObserver { value in
            if value < 0 { throw testError }
            return "\(value)"
        }
        ints.onNext(-1)
        XCTAssertEqual(events, [.error(testError)])
    }

    func testAnyObserver_canBeSubscribedToAnObservable() {
        var events: [Event<Int>] = []
        let disposable = Observable.of(1, 2).subscribe(AnyObserver<Int> { events.append($0) })
        XCTAssertEqual(events, [.next(1), .next(2), .completed])
        disposable.dispose()
    }
}
