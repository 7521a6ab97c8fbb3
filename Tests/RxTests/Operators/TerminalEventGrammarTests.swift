// Testable: `PrimitiveSequence(raw:)` builds traits over a grammar-breaking source with no
// trait conversion in between, whose own sink would hide the breakage.
@testable import Rx
import RxTesting
import XCTest

/// Operators that move on from a source after its terminal event (catch, retry, concat,
/// andThen) over sources that keep sending after it: nothing reaches downstream after
/// the first terminal event acted on, and each finished source is disposed then.
final class TerminalEventGrammarTests: RxTestCase {
    func testCatch_dropsSourceEventsAfterItsError() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(210, 1), .error(220, testError), .next(230, 2), .error(240, testError)])
        // A fallback that never ends: the sink stays open after the source's error.
        let res = recordIgnoringGrammar(scheduler, sources: [source]) {
            source.catch { _ in .never() }
        }
        XCTAssertEqual(res.events, [.next(210, 1)])
        XCTAssertEqual(source.disposedAt, [220])
    }

    func testCatch_dropsSourceEventsAfterItsCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.completed(220), .next(230, 2), .error(240, testError)])
        let res = recordIgnoringGrammar(scheduler, sources: [source]) {
            source.catch { _ in .just(9) }
        }
        XCTAssertEqual(res.events, [.completed(220)])
        XCTAssertEqual(source.disposedAt, [220])
    }

    func testCatchSequence_dropsFailedSourceEvents() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.error(220, testError), .next(230, 2), .error(240, testError)])
        let second = GrammarBreakingSource<Int>(scheduler: scheduler, [.next(250, 3), .completed(260)])
        let res = recordIgnoringGrammar(scheduler, sources: [first, second]) {
            Observable.catch(sequence: [first.asObservable(), second.asObservable(), .just(9)])
        }
        XCTAssertEqual(res.events, [.next(250, 3), .completed(260)])
        XCTAssertEqual(first.disposedAt, [220])
        XCTAssertEqual(second.disposedAt, [260])
    }

    func testRetry_failedAttemptsNeitherForwardNorCount() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = GrammarBreakingSource<Int>(
            scheduler: scheduler,
            [.next(210, 1), .error(220, testError), .next(230, 2), .error(240, testError), .completed(250)])
        let res = recordIgnoringGrammar(scheduler, sources: [source]) { source.retry(3) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 2), .completed(250)])
        XCTAssertEqual(source.subscribedAt, [200, 220, 240])
        XCTAssertEqual(source.disposedAt, [220, 240, 250])
    }

    func testConcat_completedSourceNeitherForwardsNorCompletesTheNext() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(210, 1), .completed(220), .next(230, 2), .completed(240)])
        let second = GrammarBreakingSource<Int>(scheduler: scheduler, [.next(250, 3), .completed(260)])
        let res = recordIgnoringGrammar(scheduler, sources: [first, second]) {
            Observable.concat([first.asObservable(), second.asObservable()])
        }
        XCTAssertEqual(res.events, [.next(210, 1), .next(250, 3), .completed(260)])
        XCTAssertEqual(first.disposedAt, [220])
        XCTAssertEqual(second.disposedAt, [260])
    }

    func testAsInfallibleOnErrorRecover_dropsSourceEventsAfterItsError() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(210, 1), .error(220, testError), .next(230, 2), .completed(240)])
        let res = recordIgnoringGrammar(scheduler, sources: [source]) {
            source.asInfallible(onErrorRecover: { _ in Infallible.never() })
        }
        XCTAssertEqual(res.events, [.next(210, 1)])
        XCTAssertEqual(source.disposedAt, [220])
    }

    func testMerge_completedInnerNeitherForwardsNorFinishesTwice() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(210, 1), .completed(220), .next(230, 2), .completed(240)])
        let second = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(215, 3), .next(250, 4), .completed(260)])
        let res = recordIgnoringGrammar(scheduler, sources: [first, second]) {
            Observable.of(first.asObservable(), second.asObservable()).merge()
        }
        XCTAssertEqual(res.events, [.next(210, 1), .next(215, 3), .next(250, 4), .completed(260)])
        XCTAssertEqual(first.disposedAt, [220])
        XCTAssertEqual(second.disposedAt, [260])
    }

    func testMerge_sourceSendingAfterCompletionIsIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = GrammarBreakingSource<Int>(scheduler: scheduler, [.next(225, 10), .completed(250)])
        let outer = GrammarBreakingSource<Observable<Int>>(
            scheduler: scheduler,
            [.next(210, inner.asObservable()), .completed(220), .next(230, .just(5)), .error(240, testError)])
        let res = recordIgnoringGrammar(scheduler, sources: [outer, inner]) { outer.merge() }
        XCTAssertEqual(res.events, [.next(225, 10), .completed(250)])
        XCTAssertEqual(outer.disposedAt, [220])
        XCTAssertEqual(inner.disposedAt, [250])
    }

    func testFlatMap_sourceAndInnersSendingAfterTheirEndAreIgnored() {
        for strategy in ["flatMap", "concatMap"] {
            let scheduler = TestScheduler(initialClock: 0)
            let first = GrammarBreakingSource<Int>(
                scheduler: scheduler, [.next(230, 1), .completed(240), .next(245, 2), .completed(250)])
            let second = GrammarBreakingSource<Int>(scheduler: scheduler, [.next(255, 3), .completed(260)])
            let source = GrammarBreakingSource<Int>(
                scheduler: scheduler, [.next(210, 0), .next(215, 1), .completed(220), .next(225, 0)])
            let inners = [first, second]
            let res = recordIgnoringGrammar(scheduler, sources: [source, first, second]) {
                strategy == "flatMap"
                    ? source.flatMap { inners[$0] } : source.concatMap { inners[$0] }
            }
            XCTAssertEqual(res.events, [.next(230, 1), .next(255, 3), .completed(260)], strategy)
            XCTAssertEqual(source.disposedAt, [220], strategy)
            XCTAssertEqual(first.disposedAt, [240], strategy)
            XCTAssertEqual(second.disposedAt, [260], strategy)
        }
    }

    func testCombineLatest_completedSourceSendsNothingMore() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(210, 1), .completed(220), .next(230, 2), .error(240, testError)])
        let second = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(215, 10), .next(250, 20), .completed(260)])
        let res = recordIgnoringGrammar(scheduler, sources: [first, second]) {
            Observable.combineLatest(first, second) { $0 + $1 }
        }
        XCTAssertEqual(res.events, [.next(215, 11), .next(250, 21), .completed(260)])
        XCTAssertEqual(first.disposedAt, [220])
        XCTAssertEqual(second.disposedAt, [260])
    }

    func testZip_completedSourceSendsNothingMore() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(210, 1), .completed(220), .next(230, 2), .error(240, testError)])
        let second = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(215, 10), .next(250, 20), .completed(260)])
        let res = recordIgnoringGrammar(scheduler, sources: [first, second]) {
            Observable.zip(first, second) { $0 + $1 }
        }
        // The fixed-arity zip waits for every source to complete.
        XCTAssertEqual(res.events, [.next(215, 11), .completed(260)])
        XCTAssertEqual(first.disposedAt, [220])
        XCTAssertEqual(second.disposedAt, [260])
    }

    func testSwitchLatest_sourceAndLatestInnerSendingAfterTheirEndAreIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(225, 10), .completed(230), .next(235, 11), .completed(250)])
        let outer = GrammarBreakingSource<Observable<Int>>(
            scheduler: scheduler,
            [.next(210, inner.asObservable()), .completed(240), .next(245, .just(5)), .error(248, testError)])
        let res = recordIgnoringGrammar(scheduler, sources: [outer, inner]) { outer.switchLatest() }
        XCTAssertEqual(res.events, [.next(225, 10), .completed(240)])
        XCTAssertEqual(outer.disposedAt, [240])
        XCTAssertEqual(inner.disposedAt, [230])
    }

    /// Operators whose sink's stopped bit already ends everything at the first terminal
    /// event: checked, not changed.
    func testSinkGuardedOperators_stopAtTheFirstTerminalEvent() {
        let events: [Recorded<Event<Int>>] = [
            .next(210, 1), .error(220, testError), .next(230, 2), .completed(240),
        ]
        let operators: [(String, (Observable<Int>) -> Observable<String>)] = [
            ("map", { $0.map { "\($0)" } }),
            ("materialize", { $0.materialize().map { "\($0)" } }),
            ("amb", { $0.amb(Observable<Int>.never()).map { "\($0)" } }),
            ("takeUntil", { $0.take(until: Observable<Int>.never()).map { "\($0)" } }),
            ("skipUntil", { $0.skip(until: Observable.just(0)).map { "\($0)" } }),
            ("withLatestFrom", { $0.withLatestFrom(Observable.just(7)) { "\($0)\($1)" } }),
            ("timeout", { $0.timeout(.seconds(100), scheduler: MainScheduler.instance).map { "\($0)" } }),
        ]
        for (name, apply) in operators {
            let scheduler = TestScheduler(initialClock: 0)
            let source = GrammarBreakingSource<Int>(scheduler: scheduler, events)
            let res = recordIgnoringGrammar(scheduler, sources: [source]) { apply(source.asObservable()) }
            XCTAssertEqual(res.events.count, name == "materialize" ? 3 : 2, name)
            XCTAssertEqual(res.events.last?.time, 220, name)
            XCTAssertEqual(source.disposedAt, [220], name)
        }
    }

    func testSwitchIfEmpty_sourceSendingAfterCompletionIsIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.completed(220), .next(230, 2), .completed(240)])
        let res = recordIgnoringGrammar(scheduler, sources: [source]) {
            source.ifEmpty(switchTo: Observable<Int>.never())
        }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(source.disposedAt, [220])
    }

    func testInfallibleFlatMap_sourceAndInnersSendingAfterTheirEndAreIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(230, 1), .completed(240), .next(245, 2), .completed(250)])
        let second = GrammarBreakingSource<Int>(scheduler: scheduler, [.next(255, 3), .completed(260)])
        let source = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(210, 0), .next(215, 1), .completed(220), .next(225, 0)])
        let inners = [first, second]
        let res = recordIgnoringGrammar(scheduler, sources: [source, first, second]) {
            Infallible(source.asObservable()).flatMap { Infallible(inners[$0].asObservable()) }
        }
        XCTAssertEqual(res.events, [.next(230, 1), .next(255, 3), .completed(260)])
        XCTAssertEqual(first.disposedAt, [240])
        XCTAssertEqual(second.disposedAt, [260])
    }

    func testInfallibleFlatMapLatest_sourceAndLatestInnerSendingAfterTheirEndAreIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(225, 10), .completed(230), .next(235, 11), .completed(250)])
        let source = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(210, 0), .completed(240), .next(245, 0)])
        let res = recordIgnoringGrammar(scheduler, sources: [source, inner]) {
            Infallible(source.asObservable()).flatMapLatest { _ in Infallible(inner.asObservable()) }
        }
        XCTAssertEqual(res.events, [.next(225, 10), .completed(240)])
        XCTAssertEqual(inner.disposedAt, [230])
    }

    func testCompletableConcat_sourceCompletingTwiceDoesNotSkipAhead() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = GrammarBreakingSource<Never>(scheduler: scheduler, [.completed(220), .completed(230)])
        let second = GrammarBreakingSource<Never>(scheduler: scheduler, [.completed(240)])
        let res = recordIgnoringGrammar(scheduler, sources: [first, second]) {
            Completable.concat([
                Completable(raw: first.asObservable()), Completable(raw: second.asObservable()),
                Completable.never(),
            ])
        }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(first.disposedAt, [220])
        XCTAssertEqual(second.subscribedAt, [220])
        XCTAssertEqual(second.disposedAt, [240])
    }

    func testAndThen_completableCompletingTwiceSubscribesTheNextOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = GrammarBreakingSource<Never>(scheduler: scheduler, [.completed(220), .completed(230)])
        let second = GrammarBreakingSource<Int>(scheduler: scheduler, [.next(240, 1), .completed(250)])
        let res = recordIgnoringGrammar(scheduler, sources: [first, second]) {
            Completable(raw: first.asObservable()).andThen(second.asObservable())
        }
        XCTAssertEqual(res.events, [.next(240, 1), .completed(250)])
        XCTAssertEqual(first.disposedAt, [220])
        XCTAssertEqual(second.subscribedAt, [220])
    }

    func testSingleCreate_secondOutcomeIsDropped() {
        let scheduler = TestScheduler(initialClock: 0)
        let disposedAt = TraitsBox<[TestTime]>([])
        let res = scheduler.start {
            Single<Int>.create { observer in
                observer(.success(1))
                observer(.success(2))
                observer(.failure(testError))
                return Disposables.create { disposedAt.value.append(scheduler.clock) }
            }
        }
        XCTAssertEqual(res.events, [.next(200, 1), .completed(200)])
        XCTAssertEqual(disposedAt.value, [200])
    }

    func testTakeUntil_otherSendingAfterCompletionIsIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(210, 1), .next(240, 2), .completed(250)])
        let other = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.completed(220), .next(230, 0), .error(235, testError)])
        let res = recordIgnoringGrammar(scheduler, sources: [source, other]) { source.take(until: other) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(240, 2), .completed(250)])
        XCTAssertEqual(other.disposedAt, [220])
        XCTAssertEqual(source.disposedAt, [250])
    }

    func testSkipUntil_otherSendingAfterCompletionIsIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = GrammarBreakingSource<Int>(scheduler: scheduler, [.next(240, 2), .completed(250)])
        let other = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.completed(220), .next(230, 0), .error(235, testError)])
        let res = recordIgnoringGrammar(scheduler, sources: [source, other]) { source.skip(until: other) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(other.disposedAt, [220])
        XCTAssertEqual(source.disposedAt, [250])
    }

    func testWithLatestFrom_secondSendingAfterCompletionIsIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = GrammarBreakingSource<Int>(scheduler: scheduler, [.next(240, 10), .completed(250)])
        let second = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(205, 1), .completed(220), .next(230, 2), .error(235, testError)])
        let res = recordIgnoringGrammar(scheduler, sources: [first, second]) {
            first.withLatestFrom(second) { $0 + $1 }
        }
        XCTAssertEqual(res.events, [.next(240, 11), .completed(250)])
        XCTAssertEqual(second.disposedAt, [220])
        XCTAssertEqual(first.disposedAt, [250])
    }

    func testCompletableMerge_sourceCompletingTwiceCountsOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = GrammarBreakingSource<Never>(scheduler: scheduler, [.completed(220), .completed(230)])
        let second = GrammarBreakingSource<Never>(scheduler: scheduler, [.completed(250)])
        let res = recordIgnoringGrammar(scheduler, sources: [first, second]) {
            Completable.merge(Completable(raw: first.asObservable()), Completable(raw: second.asObservable()))
        }
        XCTAssertEqual(res.events, [.completed(250)])
        XCTAssertEqual(first.disposedAt, [220])
        XCTAssertEqual(second.disposedAt, [250])
    }

    func testTraitFlatMap_innerSendingAfterCompletionIsIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = GrammarBreakingSource<Int>(scheduler: scheduler, [.completed(220), .next(230, 1)])
        let res = recordIgnoringGrammar(scheduler, sources: [inner]) {
            Maybe<Int>(raw: Observable.just(0).concat(Observable.never()))
                .flatMap { _ in Maybe<Int>(raw: inner.asObservable()) }
        }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(inner.subscribedAt, [200])
        XCTAssertEqual(inner.disposedAt, [220])
    }

    func testSample_sourceAndSamplerSendingAfterCompletionAreIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(210, 1), .completed(220), .next(230, 2), .error(235, testError)])
        let sampler = GrammarBreakingSource<Int>(scheduler: scheduler, [.completed(215), .next(240, 0)])
        let res = recordIgnoringGrammar(scheduler, sources: [source, sampler]) { source.sample(sampler) }
        // The sampler's completion takes a last sample; nothing ticks after it.
        XCTAssertEqual(res.events, [.next(215, 1)])
        XCTAssertEqual(sampler.disposedAt, [215])
        XCTAssertEqual(source.disposedAt, [220])
    }

    /// The other single-source operators, over a source that completes or fails and then
    /// keeps sending: exactly one terminal event, the last, and the source disposed once.
    func testSingleSourceOperators_endOnceAndReleaseTheSource() {
        typealias Apply = (Observable<Int>, TestScheduler) -> Observable<String>
        let operators: [(String, Apply)] = [
            ("delay", { source, scheduler in source.delay(.seconds(5), scheduler: scheduler).map { "\($0)" } }),
            ("debounce", { source, scheduler in source.debounce(.seconds(5), scheduler: scheduler).map { "\($0)" } }),
            ("throttle", { source, scheduler in source.throttle(.seconds(5), scheduler: scheduler).map { "\($0)" } }),
            (
                "buffer",
                { source, scheduler in
                    source.buffer(timeSpan: .seconds(50), count: 2, scheduler: scheduler).map { "\($0)" }
                }
            ),
            (
                "window",
                { source, scheduler in
                    source.window(timeSpan: .seconds(50), count: 2, scheduler: scheduler).merge().map { "\($0)" }
                }
            ),
            ("groupBy", { source, _ in source.groupBy { $0 % 2 }.flatMap { $0 }.map { "\($0)" } }),
            ("takeLast", { source, _ in source.takeLast(1).map { "\($0)" } }),
            ("reduce", { source, _ in source.reduce(0, accumulator: +).map { "\($0)" } }),
            ("toArray", { source, _ in source.toArray().asObservable().map { "\($0)" } }),
            ("elementAt", { source, _ in source.element(at: 5).map { "\($0)" } }),
            ("take", { source, _ in source.take(5).map { "\($0)" } }),
            ("skip", { source, _ in source.skip(1).map { "\($0)" } }),
            ("scan", { source, _ in source.scan(0, accumulator: +).map { "\($0)" } }),
            ("distinctUntilChanged", { source, _ in source.distinctUntilChanged().map { "\($0)" } }),
            ("ignoreElements", { source, _ in source.ignoreElements().asCompletable().andThen(.empty()) }),
            ("observeOn", { source, scheduler in source.observe(on: scheduler).map { "\($0)" } }),
            ("dematerialize", { source, _ in source.materialize().dematerialize().map { "\($0)" } }),
            ("asSingle", { source, _ in source.asSingle().asObservable().map { "\($0)" } }),
            ("asMaybe", { source, _ in source.asMaybe().asObservable().map { "\($0)" } }),
            ("asCompletable", { source, _ in source.asCompletable().andThen(.empty()) }),
            ("share", { source, _ in source.share().map { "\($0)" } }),
            ("shareReplayForever", { source, _ in source.share(replay: 1, scope: .forever).map { "\($0)" } }),
            ("publishRefCount", { source, _ in source.publish().refCount().map { "\($0)" } }),
            ("replayRefCount", { source, _ in source.replay(1).refCount().map { "\($0)" } }),
            ("ifEmptyDefault", { source, _ in source.ifEmpty(default: 0).map { "\($0)" } }),
            ("filter", { source, _ in source.filter { _ in true }.map { "\($0)" } }),
            ("compactMap", { source, _ in source.compactMap { "\($0)" } }),
            ("skipWhile", { source, _ in source.skip(while: { _ in false }).map { "\($0)" } }),
            ("startWith", { source, _ in source.startWith(0).map { "\($0)" } }),
            ("subscribeOn", { source, scheduler in source.subscribe(on: scheduler).map { "\($0)" } }),
            (
                "delaySubscription",
                { source, scheduler in
                    source.delaySubscription(.seconds(1), scheduler: scheduler).map { "\($0)" }
                }
            ),
            ("first", { source, _ in source.first().asObservable().map { "\(String(describing: $0))" } }),
        ]
        let endings: [[Recorded<Event<Int>>]] = [
            [.next(210, 1), .completed(220), .next(230, 2), .error(240, testError), .completed(250)],
            [.error(220, testError), .next(230, 2), .completed(240), .error(250, testError)],
        ]
        for (name, apply) in operators {
            for events in endings {
                let scheduler = TestScheduler(initialClock: 0)
                let source = GrammarBreakingSource<Int>(scheduler: scheduler, events)
                let res = recordIgnoringGrammar(scheduler, sources: [source]) {
                    apply(source.asObservable(), scheduler)
                }
                let terminals = res.events.filter { $0.value.isStopEvent }
                XCTAssertEqual(terminals.count, 1, name)
                XCTAssertTrue(res.events.last?.value.isStopEvent ?? false, name)
                XCTAssertEqual(source.disposedAt.count, 1, name)
                // `observe(on:)` releases the source when the terminal event it scheduled
                // runs, `subscribe(on:)` disposes on its scheduler: one tick later.
                let latestRelease = ["observeOn", "subscribeOn"].contains(name) ? 221 : 220
                XCTAssertLessThanOrEqual(source.disposedAt.first ?? .max, latestRelease, name)
            }
        }
    }

    /// The events of the three retry tests: each failed attempt keeps sending.
    private static let failingTwice: [Recorded<Event<Int>>] = [
        .error(220, testError), .next(230, 2), .error(240, testError), .next(245, 3), .completed(250),
    ]

    func testRetryWhen_failedAttemptsNeitherForwardNorFailAgain() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = GrammarBreakingSource<Int>(scheduler: scheduler, Self.failingTwice)
        let res = recordIgnoringGrammar(scheduler, sources: [source]) {
            source.retry(when: { (errors: Observable<Swift.Error>) in errors })
        }
        XCTAssertEqual(res.events, [.next(230, 2), .next(245, 3), .completed(250)])
        XCTAssertEqual(source.subscribedAt, [200, 220, 240])
        XCTAssertEqual(source.disposedAt, [220, 240, 250])
    }

    func testTraitRetry_failedAttemptsNeitherForwardNorCount() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = GrammarBreakingSource<Int>(scheduler: scheduler, Self.failingTwice)
        let res = recordIgnoringGrammar(scheduler, sources: [source]) {
            Single<Int>(raw: source.asObservable()).retry(3)
        }
        XCTAssertEqual(res.events, [.next(230, 2), .next(245, 3), .completed(250)])
        XCTAssertEqual(source.subscribedAt, [200, 220, 240])
        XCTAssertEqual(source.disposedAt, [220, 240, 250])
    }

    func testTraitRetryWhen_failedAttemptsNeitherForwardNorFailAgain() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = GrammarBreakingSource<Int>(scheduler: scheduler, Self.failingTwice)
        let res = recordIgnoringGrammar(scheduler, sources: [source]) {
            Single<Int>(raw: source.asObservable()).retry(when: { (errors: Observable<Swift.Error>) in errors })
        }
        XCTAssertEqual(res.events, [.next(230, 2), .next(245, 3), .completed(250)])
        XCTAssertEqual(source.subscribedAt, [200, 220, 240])
        XCTAssertEqual(source.disposedAt, [220, 240, 250])
    }

    func testMaybeZip_completedSourceSendsNothingMore() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.completed(220), .next(230, 1), .error(240, testError)])
        let second = GrammarBreakingSource<Int>(scheduler: scheduler, [.next(250, 2), .completed(260)])
        let res = recordIgnoringGrammar(scheduler, sources: [first, second]) {
            Maybe.zip([Maybe<Int>(raw: first.asObservable()), Maybe<Int>(raw: second.asObservable())])
        }
        // The first source completed empty: the second's element can never be matched.
        XCTAssertEqual(res.events, [.completed(250)])
        XCTAssertEqual(first.disposedAt, [220])
        XCTAssertEqual(second.disposedAt, [250])
    }

    func testTraitDelay_sourceSendingAfterCompletionIsIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(210, 1), .completed(210), .next(215, 2), .error(220, testError)])
        let res = recordIgnoringGrammar(scheduler, sources: [source]) {
            Single<Int>(raw: source.asObservable()).delay(.seconds(20), scheduler: scheduler)
        }
        // Each delayed event is its own scheduler step, hence 231.
        XCTAssertEqual(res.events, [.next(230, 1), .completed(231)])
        XCTAssertEqual(source.disposedAt, [210])
    }

    func testDelay_sourceSendingAfterCompletionIsIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = GrammarBreakingSource<Int>(
            scheduler: scheduler, [.next(210, 1), .completed(210), .next(215, 2), .error(220, testError)])
        let res = recordIgnoringGrammar(scheduler, sources: [source]) {
            source.delay(.seconds(20), scheduler: scheduler)
        }
        // Each delayed event is its own scheduler step, hence 231.
        XCTAssertEqual(res.events, [.next(230, 1), .completed(231)])
        XCTAssertEqual(source.disposedAt, [210])
    }

    func testThrottle_sourceSendingAfterCompletionIsIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = GrammarBreakingSource<Int>(
            scheduler: scheduler,
            [.next(210, 1), .next(212, 2), .completed(214), .next(216, 3), .error(218, testError)])
        let res = recordIgnoringGrammar(scheduler, sources: [source]) {
            source.throttle(.seconds(10), scheduler: scheduler)
        }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(220)])
        XCTAssertEqual(source.disposedAt, [214])
    }
}
