import Dispatch
import Rx
import RxTesting
import XCTest

final class PrimitiveSequenceZipTests: RxTestCase {
    func testZip_tupleOfTwoSingles() {
        XCTAssertEqual(
            traitsEvents { Single.zip(Single.just(1), Single.just(2)).map { $0.0 + $0.1 } },
            [.next(200, 3), .completed(200)])
    }

    func testZip_resultSelector() {
        XCTAssertEqual(
            traitsEvents { Single.zip(Single.just(1), Single.just(2)) { $0 * 10 + $1 } },
            [.next(200, 12), .completed(200)])
    }

    func testZip_eightDifferentTypes() {
        let zipped = Single.zip(
            Single.just(1), Single.just("b"), Single.just(3.5), Single.just(true), Single.just(5),
            Single.just("f"), Single.just(7), Single.just(Optional<Int>.none)
        ) { a, b, c, d, e, f, g, h in "\(a)\(b)\(c)\(d)\(e)\(f)\(g)\(String(describing: h))" }
        XCTAssertEqual(traitsEvents { zipped }, [.next(200, "1b3.5true5f7nil"), .completed(200)])

        let tuple = Maybe.zip(
            Maybe.just(1), Maybe.just(2), Maybe.just(3), Maybe.just(4), Maybe.just(5), Maybe.just(6), Maybe.just(7),
            Maybe.just(8))
        XCTAssertEqual(
            traitsEvents { tuple.map { $0.0 + $0.1 + $0.2 + $0.3 + $0.4 + $0.5 + $0.6 + $0.7 } },
            [.next(200, 36), .completed(200)])
    }

    func testZip_emitsWhenTheLastSingleSucceeds() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(210)])
        let ys = scheduler.createHotObservable([.next(230, 2), .completed(240)])
        let res = scheduler.start { Single.zip(xs.asSingle(), ys.asSingle()) { $0 + $1 } }
        XCTAssertEqual(res.events, [.next(240, 3), .completed(240)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 240)])
    }

    func testZip_firstErrorEndsTheResultAndDisposesTheOthers() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([Recorded<Event<Int>>.error(220, testError)])
        let ys = scheduler.createHotObservable([.next(230, 2), .completed(230)])
        let res = scheduler.start { Single.zip(xs.asSingle(), ys.asSingle()) }
        XCTAssertEqual(res.events.count, 1)
        XCTAssertEqual(res.events.first?.time, 220)
        XCTAssertNotNil(res.events.first?.value.error)
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 220)])
    }

    func testZip_resultSelectorErrorFails() {
        XCTAssertEqual(
            traitsEvents { Single.zip(Single.just(1), Single.just(2)) { _, _ -> Int in throw testError } },
            [.error(200, testError)])
    }

    func testZip_emptyMaybeCompletesOnceAllHaveCompleted() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([Recorded<Event<Int>>.completed(210)])
        let ys = scheduler.createHotObservable([.next(230, 2), .completed(240)])
        let res = scheduler.start { Maybe.zip(xs.asMaybe(), ys.asMaybe()) { $0 + $1 } }
        XCTAssertEqual(res.events, [.completed(240)])
    }

    func testZipCollection_resultSelectorAndArray() {
        let singles = [Single.just(1), Single.just(2), Single.just(3)]
        XCTAssertEqual(traitsEvents { Single.zip(singles) { $0.reduce(0, +) } }, [.next(200, 6), .completed(200)])
        XCTAssertEqual(
            traitsEvents { Single.zip(singles).map { $0.map(String.init).joined() } },
            [.next(200, "123"), .completed(200)])
    }

    func testZipCollection_emptyCollectionSucceedsAtOnce() {
        XCTAssertEqual(
            traitsEvents { Single.zip([Single<Int>]()) { $0.count } }, [.next(200, 0), .completed(200)])
        XCTAssertEqual(traitsEvents { Single.zip([Single<Int>]()).map(\.count) }, [.next(200, 0), .completed(200)])
        XCTAssertEqual(
            traitsEvents { Single.zip([Single<Int>]()) { _ -> Int in throw testError } }, [.error(200, testError)])
    }

    func testZipCollection_maybeWhoseOthersCompletedEmptyCompletesAtItsElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([Recorded<Event<Int>>.completed(210)])
        let ys = scheduler.createHotObservable([.next(230, 2), .completed(230)])
        let res = scheduler.start { Maybe.zip([xs.asMaybe(), ys.asMaybe()]) }
        XCTAssertEqual(res.events, [.completed(230)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 230)])
    }

    func testZip_disposalMidwayUnsubscribesEverySource() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(210)])
        let ys = scheduler.createHotObservable([.next(1100, 2), .completed(1100)])
        let res = scheduler.start { Single.zip(xs.asSingle(), ys.asSingle()) }
        XCTAssertEqual(res.events.count, 0)
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 1000)])
    }

    func testZip_sourcesSucceedingOnOtherThreadsDeliverOnce() {
        let done = expectation(description: "zipped")
        let queues = (0..<4).map { DispatchQueue(label: "zip.\($0)") }
        let singles = queues.enumerated().map { index, queue in
            Single<Int>.create { observer in
                queue.async { observer(.success(index)) }
                return Disposables.create()
            }
        }
        let results = TraitsBox<[Int]>([])
        let subscription = Single.zip(singles).subscribe(onSuccess: {
            results.value = $0
            done.fulfill()
        })
        wait(for: [done], timeout: 5)
        XCTAssertEqual(results.value, [0, 1, 2, 3])
        subscription.dispose()
    }
}
