import Rx
import RxTesting
import XCTest

final class ConcatTests: RxTestCase {
    private typealias Sources = (TestableObservable<Int>, TestableObservable<Int>, TestableObservable<Int>)

    private func factories() -> [(Sources) -> Observable<Int>] {
        [
            { Observable.concat([$0.0.asObservable(), $0.1.asObservable(), $0.2.asObservable()]) },
            { Observable.concat($0.0.asObservable(), $0.1.asObservable(), $0.2.asObservable()) },
            { Observable.concat(ArraySlice([$0.0.asObservable(), $0.1.asObservable(), $0.2.asObservable()])) },
            { Observable.concat(AnySequence([$0.0.asObservable(), $0.1.asObservable(), $0.2.asObservable()])) },
            { $0.0.asObservable().concat($0.1).concat($0.2) },
            { Observable.of($0.0.asObservable(), $0.1.asObservable(), $0.2.asObservable()).concat() },
        ]
    }

    func testConcat_subscribesEachSourceWhenThePreviousCompletes() {
        for factory in factories() {
            let scheduler = TestScheduler(initialClock: 0)
            let xs1 = scheduler.createColdObservable([.next(10, 1), .next(20, 2), .completed(30)])
            let xs2 = scheduler.createColdObservable([.next(5, 3), .completed(10)])
            let xs3 = scheduler.createColdObservable([.next(10, 4), .completed(20)])
            let res = scheduler.start { factory((xs1, xs2, xs3)) }
            XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .next(235, 3), .next(250, 4), .completed(260)])
            XCTAssertEqual(xs1.subscriptions, [Subscription(200, 230)])
            XCTAssertEqual(xs2.subscriptions, [Subscription(230, 240)])
            XCTAssertEqual(xs3.subscriptions, [Subscription(240, 260)])
        }
    }

    func testConcat_errorEndsTheSequenceAndLaterSourcesAreNeverSubscribed() {
        for factory in factories() {
            let scheduler = TestScheduler(initialClock: 0)
            let xs1 = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
            let xs2 = scheduler.createColdObservable([.next(5, 2), .completed(10)])
            let xs3 = scheduler.createColdObservable([.next(5, 3), .completed(10)])
            let res = scheduler.start { factory((xs1, xs2, xs3)) }
            XCTAssertEqual(res.events, [.next(210, 1), .error(220, testError)])
            XCTAssertEqual(xs1.subscriptions, [Subscription(200, 220)])
            XCTAssertEqual(xs2.subscriptions, [])
            XCTAssertEqual(xs3.subscriptions, [])
        }
    }

    func testConcat_disposeMidwayUnsubscribesTheCurrentSourceOnly() {
        for factory in factories() {
            let scheduler = TestScheduler(initialClock: 0)
            let xs1 = scheduler.createColdObservable([.next(10, 1), .completed(30)])
            let xs2 = scheduler.createColdObservable([.next(10, 2), .next(100, 3), .completed(200)])
            let xs3 = scheduler.createColdObservable([.next(5, 4), .completed(10)])
            let res = scheduler.start(disposed: 300) { factory((xs1, xs2, xs3)) }
            XCTAssertEqual(res.events, [.next(210, 1), .next(240, 2)])
            XCTAssertEqual(xs1.subscriptions, [Subscription(200, 230)])
            XCTAssertEqual(xs2.subscriptions, [Subscription(230, 300)])
            XCTAssertEqual(xs3.subscriptions, [])
        }
    }

    func testConcat_hotSourcesMissTheElementsBeforeTheirTurn() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs1 = scheduler.createHotObservable([.next(210, 1), .completed(230)])
        let xs2 = scheduler.createHotObservable([.next(220, 2), .next(240, 3), .completed(250)])
        let res = scheduler.start { xs1.asObservable().concat(xs2) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(240, 3), .completed(250)])
        XCTAssertEqual(xs1.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(xs2.subscriptions, [Subscription(230, 250)])
    }

    func testConcat_noSourcesCompletesAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.concat([]) }
        XCTAssertEqual(res.events, [.completed(200)])
    }

    func testConcat_emptySourcesAreSkippedAtTheTimeTheyComplete() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs1: TestableObservable<Int> = scheduler.createColdObservable([.completed(10)])
        let xs2: TestableObservable<Int> = scheduler.createColdObservable([.completed(20)])
        let res = scheduler.start { Observable.concat(xs1.asObservable(), xs2.asObservable()) }
        XCTAssertEqual(res.events, [.completed(230)])
        XCTAssertEqual(xs1.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(xs2.subscriptions, [Subscription(210, 230)])
    }

    func testConcat_sequenceIsIteratedLazilyOneStepPerCompletedSource() {
        let subjects = [PublishSubject<Int>(), PublishSubject<Int>()]
        var steps = 0
        let sources = AnySequence { () -> AnyIterator<Observable<Int>> in
            var index = 0
            return AnyIterator {
                steps += 1
                defer { index += 1 }
                return index < subjects.count ? subjects[index].asObservable() : nil
            }
        }
        var results: [Int] = []
        var completed = false
        let subscription = Observable.concat(sources)
            .subscribe(onNext: { results.append($0) }, onCompleted: { completed = true })
        XCTAssertEqual(steps, 1)
        subjects[1].onNext(0)
        subjects[0].onNext(1)
        subjects[0].onCompleted()
        XCTAssertEqual(steps, 2)
        XCTAssertFalse(subjects[0].hasObservers)
        subjects[1].onNext(2)
        subjects[1].onCompleted()
        XCTAssertEqual(steps, 3)
        XCTAssertEqual(results, [1, 2])
        XCTAssertTrue(completed)
        subscription.dispose()
    }

    func testConcat_lazyCollectionBuildsEachSourceOnlyWhenItsTurnComes() {
        let scheduler = TestScheduler(initialClock: 0)
        var built: [Int] = []
        let sources = (0..<3).lazy.map { index -> Observable<Int> in
            built.append(index)
            return scheduler.createColdObservable([.next(10, index * 10), .completed(20)]).asObservable()
        }
        let concatenated = Observable.concat(sources)
        XCTAssertEqual(built, [])
        scheduler.scheduleAt(225) { XCTAssertEqual(built, [0, 1]) }
        let res = scheduler.start { concatenated }
        XCTAssertEqual(res.events, [.next(210, 0), .next(230, 10), .next(250, 20), .completed(260)])
        XCTAssertEqual(built, [0, 1, 2])
    }

    func testConcat_lazyCollectionWhoseLastSourceIsAnotherSuchConcatHasNoEnd() {
        let scheduler = TestScheduler(initialClock: 0)
        func counting(from first: Int) -> Observable<Int> {
            let head = scheduler.createColdObservable([.next(10, first), .completed(10)]).asObservable()
            return Observable.concat([false, true].lazy.map { isTail in isTail ? counting(from: first + 1) : head })
        }
        let res = scheduler.start { counting(from: 1).take(3) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .next(230, 3), .completed(230)])
    }

    func testConcat_manySynchronousSourcesRunInALoopNotByRecursion() {
        let count = 100_000
        var sum = 0
        var completed = false
        _ = Observable.concat((1...count).map { Observable.just($0) })
            .subscribe(onNext: { sum += $0 }, onCompleted: { completed = true })
        XCTAssertEqual(sum, count * (count + 1) / 2)
        XCTAssertTrue(completed)
    }

    func testConcat_disposingFromHandlerStopsBeforeTheNextSource() {
        let subjects = [PublishSubject<Int>(), PublishSubject<Int>(), PublishSubject<Int>()]
        var results: [Int] = []
        let box = CombiningDisposableBox()
        box.disposable = Observable.concat(subjects.map { $0.asObservable() })
            .subscribe(onNext: { value in
                results.append(value)
                if value == 2 { box.disposable?.dispose() }
            })
        subjects[0].onNext(1)
        subjects[0].onCompleted()
        subjects[1].onNext(2)
        subjects[1].onNext(3)
        subjects[1].onCompleted()
        XCTAssertEqual(results, [1, 2])
        XCTAssertFalse(subjects[1].hasObservers)
        XCTAssertFalse(subjects[2].hasObservers)
        box.disposable = nil
    }

    // MARK: concat() of an observable of observables

    func testConcatInner_innersArrivingWhileOneRunsWaitTheirTurn() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([.next(10, 1), .completed(50)])
        let ys2 = scheduler.createColdObservable([.next(10, 2), .completed(20)])
        let ys3 = scheduler.createColdObservable([.next(10, 3), .completed(20)])
        let xs = scheduler.createHotObservable([
            .next(210, ys1), .next(220, ys2), .next(300, ys3), .completed(400),
        ])
        let res = scheduler.start { xs.concat() }
        XCTAssertEqual(res.events, [.next(220, 1), .next(270, 2), .next(310, 3), .completed(400)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
        XCTAssertEqual(ys1.subscriptions, [Subscription(210, 260)])
        XCTAssertEqual(ys2.subscriptions, [Subscription(260, 280)])
        XCTAssertEqual(ys3.subscriptions, [Subscription(300, 320)])
    }

    func testConcatInner_innerErrorEndsEverything() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
        let ys2 = scheduler.createColdObservable([.next(10, 2), .completed(20)])
        let xs = scheduler.createHotObservable([.next(210, ys1), .next(215, ys2), .completed(400)])
        let res = scheduler.start { xs.concat() }
        XCTAssertEqual(res.events, [.next(220, 1), .error(230, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(ys1.subscriptions, [Subscription(210, 230)])
        XCTAssertEqual(ys2.subscriptions, [])
    }
}
