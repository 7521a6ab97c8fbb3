import Rx
import RxTesting
import XCTest

/// The `Infallible` operators that combine several sequences (the fixed arities of
/// `combineLatest` and `zip` are in `InfallibleArityTests`).
final class InfallibleCombiningTests: RxTestCase {
    /// An `Infallible` over a hot observable of `events` (which hold no error).
    private func hot<Element>(_ scheduler: TestScheduler, _ events: [Recorded<Event<Element>>]) -> Infallible<Element> {
        scheduler.createHotObservable(events).asInfallible(onErrorRecover: { _ in .empty() })
    }

    // MARK: concat

    func testConcat_subscribesTheSecondOnceTheFirstCompleted() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = hot(scheduler, [.next(210, 1), .completed(220)])
        let ys = scheduler.createColdObservable([.next(10, 2), .completed(20)])
        let res = scheduler.start { xs.concat(ys.asInfallible(onErrorJustReturn: 0)) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 2), .completed(240)])
        XCTAssertEqual(ys.subscriptions, [Subscription(220, 240)])
    }

    func testConcat_staticFormsRunTheSourcesInOrder() {
        let expected: [Recorded<Event<Int>>] = [.next(200, 1), .next(200, 2), .next(200, 3), .completed(200)]
        let first = Infallible.of(1, 2)
        let second = Infallible.just(3)
        XCTAssertEqual(traitsEvents { Infallible.concat(first, second) }, expected)
        XCTAssertEqual(traitsEvents { Infallible.concat([first, second]) }, expected)
        XCTAssertEqual(traitsEvents { Infallible.concat([first, second][...]) }, expected)
        XCTAssertEqual(traitsEvents { Infallible.concat(AnySequence([first, second])) }, expected)
    }

    func testConcat_waitsForEachSourceToComplete() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let ys = scheduler.createColdObservable([.next(10, 2), .completed(20)])
        let res = scheduler.start {
            Infallible.concat(xs.asInfallible(onErrorJustReturn: 0), ys.asInfallible(onErrorJustReturn: 0))
        }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 2), .completed(240)])
        XCTAssertEqual(ys.subscriptions, [Subscription(220, 240)])
    }

    // MARK: merge

    /// Elements of both sources interleave: a concatenation would miss `ys`'s 2 (it is hot
    /// and emits before `xs` completes).
    private func assertMerges(_ merge: (Infallible<Int>, Infallible<Int>) -> Infallible<Int>) {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = hot(scheduler, [.next(210, 1), .next(230, 3), .completed(240)])
        let ys = hot(scheduler, [.next(220, 2), .completed(250)])
        let merged = merge(xs, ys)
        let res = scheduler.start { merged }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .next(230, 3), .completed(250)])
    }

    func testMerge_variadicInterleaves() {
        assertMerges { Infallible.merge($0, $1) }
    }

    func testMerge_arrayInterleaves() {
        assertMerges { Infallible.merge([$0, $1]) }
    }

    func testMerge_collectionInterleavesUnlikeRxSwiftsConcatenation() {
        assertMerges { Infallible.merge([$0, $1][...]) }
    }

    // MARK: startWith, withLatestFrom

    func testStartWith_prependsTheElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = hot(scheduler, [.next(210, 1), .completed(220)])
        let res = scheduler.start { xs.startWith(0) }
        XCTAssertEqual(res.events, [.next(200, 0), .next(210, 1), .completed(220)])
    }

    private func withLatestFromSources(_ scheduler: TestScheduler) -> (Infallible<Int>, Infallible<String>) {
        (
            hot(scheduler, [.next(210, 1), .next(230, 2), .next(250, 3), .completed(260)]),
            hot(scheduler, [.next(220, "a"), .next(240, "b"), .completed(245)])
        )
    }

    func testWithLatestFrom_resultSelectorCombinesWithTheLatest() {
        let scheduler = TestScheduler(initialClock: 0)
        let (xs, ys) = withLatestFromSources(scheduler)
        let res = scheduler.start { xs.withLatestFrom(ys) { "\($0)\($1)" } }
        XCTAssertEqual(res.events, [.next(230, "2a"), .next(250, "3b"), .completed(260)])
    }

    func testWithLatestFrom_takesTheLatestOfTheSecond() {
        let scheduler = TestScheduler(initialClock: 0)
        let (xs, ys) = withLatestFromSources(scheduler)
        let res = scheduler.start { xs.withLatestFrom(ys) }
        XCTAssertEqual(res.events, [.next(230, "a"), .next(250, "b"), .completed(260)])
    }

    // MARK: combineLatest of a collection

    func testCombineLatestCollection_resultSelectorSeesEveryLatestElementInOrder() {
        let scheduler = TestScheduler(initialClock: 0)
        let e0 = hot(scheduler, [.next(210, 1), .next(230, 3), .completed(300)])
        let e1 = hot(scheduler, [.next(220, 2), .completed(300)])
        let res = scheduler.start { Infallible.combineLatest([e0, e1]) { $0.map(String.init).joined() } }
        XCTAssertEqual(res.events, [.next(220, "12"), .next(230, "32"), .completed(300)])
    }

    func testCombineLatestCollection_emitsArrays() {
        let scheduler = TestScheduler(initialClock: 0)
        let e0 = hot(scheduler, [.next(210, 1), .next(230, 3), .completed(300)])
        let e1 = hot(scheduler, [.next(220, 2), .completed(300)])
        let res = scheduler.start { Infallible.combineLatest([e0, e1]) }
        XCTAssertEqual(res.events, [.next(220, [1, 2]), .next(230, [3, 2]), .completed(300)])
    }

    func testCombineLatestCollection_emptyCollectionEmitsTheEmptyCombinationAsRxSwift6() {
        XCTAssertEqual(
            traitsEvents { Infallible<Int>.combineLatest([Infallible<Int>]()) { $0.count } },
            [.next(200, 0), .completed(200)])
        XCTAssertEqual(
            traitsEvents { Infallible<Int>.combineLatest([Infallible<Int>]()) }, [.next(200, []), .completed(200)])
    }
}
