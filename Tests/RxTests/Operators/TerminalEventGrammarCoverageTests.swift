// Testable: `PrimitiveSequence(raw:)` builds traits over a grammar-breaking source with no
// trait conversion in between, whose own sink would hide the breakage.
@testable import Rx
import RxTesting
import XCTest

/// Every operator not covered by `TerminalEventGrammarTests`, over a source (or an inner
/// sequence) that keeps sending after its terminal event: exactly one terminal event
/// reaches downstream, nothing follows it, and the source is disposed once, when its
/// terminal event is handled (a tick later at most, for the operators that hop through a
/// scheduler).
final class TerminalEventGrammarCoverageTests: RxTestCase {
    typealias Apply = (Observable<Int>, TestScheduler) -> Observable<String>
    /// The object `withUnretained` holds.
    final class Holder: Sendable {}
    static let holder = Holder()

    /// Names an operator (a helper, so that each closure's type is checked on its own).
    func op(_ name: String, _ apply: @escaping Apply) -> (String, Apply) { (name, apply) }

    /// Runs each operator over a source that completes, then over one that fails, both of
    /// which keep sending afterwards.
    func run(_ operators: [(String, Apply)]) {
        let endings: [[Recorded<Event<Int>>]] = [
            [.next(210, 1), .completed(220), .next(230, 2), .error(240, testError), .completed(250)],
            [.error(220, testError), .next(230, 2), .completed(240), .error(250, testError)],
        ]
        for (name, apply) in operators {
            for (i, events) in endings.enumerated() {
                let scheduler = TestScheduler(initialClock: 0)
                let source = GrammarBreakingSource<Int>(scheduler: scheduler, events)
                let res = recordIgnoringGrammar(scheduler, sources: [source]) {
                    apply(source.asObservable(), scheduler)
                }
                let terminals = res.events.filter { $0.value.isStopEvent }
                let tag = "\(name)#\(i) events=\(res.events) disposed=\(source.disposedAt)"
                XCTAssertEqual(terminals.count, 1, tag)
                XCTAssertTrue(res.events.last?.value.isStopEvent ?? false, tag)
                XCTAssertEqual(source.disposedAt.count, 1, tag)
                XCTAssertLessThanOrEqual(source.disposedAt.first ?? .max, 221, tag)
                XCTAssertFalse(res.events.contains { $0.time > 221 }, tag)
            }
        }
    }

    func testObservableOperators_stopAtTheFirstTerminalEvent() {
        let h = Self.holder
        run([
            op("enumerated", { s, _ in s.enumerated().map { "\($0.index)\($0.element)" } }),
            op("do", { s, _ in s.do(onNext: { _ in }, onError: { _ in }, onCompleted: {}).map { "\($0)" } }),
            op(
                "using",
                { s, _ in Observable.using({ BooleanDisposable() }, observableFactory: { _ in s }).map { "\($0)" } }),
            op(
                "timeoutOther",
                { s, sch in s.timeout(.seconds(100), other: Observable<Int>.never(), scheduler: sch).map { "\($0)" } }),
            op("concatMap", { s, _ in s.concatMap { Observable.just($0) }.map { "\($0)" } }),
            op("flatMapFirst", { s, _ in s.flatMapFirst { Observable.just($0) }.map { "\($0)" } }),
            op("flatMapLatest", { s, _ in s.flatMapLatest { Observable.just($0) }.map { "\($0)" } }),
            op("takeWhile", { s, _ in s.take(while: { _ in true }).map { "\($0)" } }),
            op("takeWhileInclusive", { s, _ in s.take(while: { _ in true }, behavior: .inclusive).map { "\($0)" } }),
            op("takeUntilPredicate", { s, _ in s.take(until: { _ in false }).map { "\($0)" } }),
            op("takeFor", { s, sch in s.take(for: .seconds(100), scheduler: sch).map { "\($0)" } }),
            op("skipFor", { s, sch in s.skip(.seconds(1), scheduler: sch).map { "\($0)" } }),
            op("withUnretained", { s, _ in s.withUnretained(h).map { "\($1)" } }),
            op("distinctKey", { s, _ in s.distinctUntilChanged { $0 }.map { "\($0)" } }),
            op("catchAndReturn", { s, _ in s.catchAndReturn(0).map { "\($0)" } }),
            op("mergeMax", { s, _ in Observable.just(s).merge(maxConcurrent: 1).map { "\($0)" } }),
            op("concatInstance", { s, _ in s.concat(Observable<Int>.empty()).map { "\($0)" } }),
            op("zipCollection", { s, _ in Observable.zip([s]).map { "\($0)" } }),
            op(
                "combineLatestCollection",
                { s, _ in
                    let o: Observable<Int> = Observable.combineLatest([s]) { (v: [Int]) -> Int in v.count }
                    return o.map { "\($0)" }
                }),
            op("shareWhileConnected", { s, _ in s.share(replay: 1, scope: .whileConnected).map { "\($0)" } }),
            op("replayAll", { s, _ in s.replayAll().refCount().map { "\($0)" } }),
            op(
                "publishConnect",
                { s, _ in
                    Observable.deferred {
                        let c = s.publish(); _ = c.connect(); return c
                    }.map { "\($0)" }
                }),
            op(
                "asInfallibleJustReturn",
                { s, _ in s.asInfallible(onErrorJustReturn: 0).asObservable().map { "\($0)" } }),
            op(
                "asInfallibleFallback",
                { s, _ in s.asInfallible(onErrorFallbackTo: .just(0)).asObservable().map { "\($0)" } }),
            op(
                "bufferCount",
                { s, sch in s.buffer(timeSpan: .seconds(1000), count: 10, scheduler: sch).map { "\($0)" } }),
            op(
                "windowCount",
                { s, sch in s.window(timeSpan: .seconds(1000), count: 10, scheduler: sch).flatMap { $0 }.map { "\($0)" }
                }),
            op("flatMapSingle", { s, _ in s.flatMap { Single.just($0) }.map { "\($0)" } }),
            op("ambRight", { s, _ in Observable<Int>.never().amb(s).map { "\($0)" } }),
            op("mergeVariadic", { s, _ in Observable.merge(s, Observable<Int>.empty()).map { "\($0)" } }),
            op("concatSequence", { s, _ in Observable.concat([Observable<Int>.empty(), s]).map { "\($0)" } }),
            op("skipWhileTrue", { s, _ in s.skip(while: { _ in true }).map { "\($0)" } }),
            op(
                "retryWhenNever",
                { s, _ in
                    s.retry(when: { (e: Observable<Error>) -> Observable<Int> in e.take(0).map { _ in 0 } }).map {
                        "\($0)"
                    }
                }),
            op("takeUntilOther", { s, _ in Observable<Int>.never().take(until: s).map { "\($0)" } }),
            op("debounceComplete", { s, sch in s.debounce(.seconds(100), scheduler: sch).map { "\($0)" } }),
            op("delayZero", { s, sch in s.delay(.seconds(0), scheduler: sch).map { "\($0)" } }),
        ])
    }

    func testTraitOperators_stopAtTheFirstTerminalEvent() {
        run([
            op("singleMap", { s, _ in Single<Int>(raw: s).map { "\($0)" }.asObservable() }),
            op(
                "singleFlatMapMaybe",
                { s, _ in Single<Int>(raw: s).flatMapMaybe { Maybe.just("\($0)") }.asObservable() }),
            op(
                "singleFlatMapCompletable",
                { s, _ in Single<Int>(raw: s).flatMapCompletable { _ in .empty() }.andThen(.empty()) }),
            op("singleAsMaybe", { s, _ in Single<Int>(raw: s).asMaybe().asObservable().map { "\($0)" } }),
            op("singleAsCompletable", { s, _ in Single<Int>(raw: s).asCompletable().andThen(.empty()) }),
            op("singleCatch", { s, _ in Single<Int>(raw: s).catch { _ in .just(0) }.asObservable().map { "\($0)" } }),
            op(
                "singleCatchAndReturn", { s, _ in Single<Int>(raw: s).catchAndReturn(0).asObservable().map { "\($0)" } }
            ),
            op(
                "singleTimeout",
                { s, sch in Single<Int>(raw: s).timeout(.seconds(100), scheduler: sch).asObservable().map { "\($0)" } }),
            op("singleDo", { s, _ in Single<Int>(raw: s).do(onSuccess: { _ in }).asObservable().map { "\($0)" } }),
            op("singleObserveOn", { s, sch in Single<Int>(raw: s).observe(on: sch).asObservable().map { "\($0)" } }),
            op("singleFilter", { s, _ in Single<Int>(raw: s).filter { _ in true }.asObservable().map { "\($0)" } }),
            op("singleZip", { s, _ in Single.zip(Single<Int>(raw: s), Single.just(1)).asObservable().map { "\($0)" } }),
            op(
                "singleAsInfallible",
                { s, _ in Single<Int>(raw: s).asInfallible(onErrorJustReturn: 0).asObservable().map { "\($0)" } }),
            op("maybeMap", { s, _ in Maybe<Int>(raw: s).map { "\($0)" }.asObservable() }),
            op("maybeFlatMap", { s, _ in Maybe<Int>(raw: s).flatMap { Maybe.just("\($0)") }.asObservable() }),
            op(
                "maybeIfEmptyDefault", { s, _ in Maybe<Int>(raw: s).ifEmpty(default: 0).asObservable().map { "\($0)" } }
            ),
            op(
                "maybeIfEmptySwitch",
                { s, _ in Maybe<Int>(raw: s).ifEmpty(switchTo: Single.just(0)).asObservable().map { "\($0)" } }),
            op("maybeCatch", { s, _ in Maybe<Int>(raw: s).catch { _ in .empty() }.asObservable().map { "\($0)" } }),
            op("infallibleMap", { s, _ in Infallible(s).map { "\($0)" }.asObservable() }),
            op("infallibleScan", { s, _ in Infallible(s).scan(0, accumulator: +).asObservable().map { "\($0)" } }),
            op(
                "infallibleConcatMap",
                { s, _ in Infallible(s).concatMap { Infallible.just($0) }.asObservable().map { "\($0)" } }),
            op(
                "infallibleFlatMapFirst",
                { s, _ in Infallible(s).flatMapFirst { Infallible.just($0) }.asObservable().map { "\($0)" } }),
            op(
                "infallibleWithLatestFrom",
                { s, _ in Infallible(s).withLatestFrom(Infallible.just(1)).asObservable().map { "\($0)" } }),
            op(
                "infallibleDebounce",
                { s, sch in Infallible(s).debounce(.seconds(5), scheduler: sch).asObservable().map { "\($0)" } }),
            op(
                "infallibleThrottle",
                { s, sch in Infallible(s).throttle(.seconds(5), scheduler: sch).asObservable().map { "\($0)" } }),
            op("infallibleShare", { s, _ in Infallible(s).share().asObservable().map { "\($0)" } }),
            op("infallibleTake", { s, _ in Infallible(s).take(5).asObservable().map { "\($0)" } }),
            op("infallibleStartWith", { s, _ in Infallible(s).startWith(0).asObservable().map { "\($0)" } }),
            op("infallibleDistinct", { s, _ in Infallible(s).distinctUntilChanged().asObservable().map { "\($0)" } }),
            op(
                "infallibleMerge",
                { s, _ in Infallible.merge(Infallible(s), Infallible.empty()).asObservable().map { "\($0)" } }),
            op("infallibleConcat", { s, _ in Infallible(s).concat(Infallible.empty()).asObservable().map { "\($0)" } }),
        ])
    }

    func testInnerSequences_stopAtTheirFirstTerminalEvent() {
        run([
            op("concatMapInner", { s, _ in Observable.just(0).concatMap { _ in s }.map { "\($0)" } }),
            op("flatMapFirstInner", { s, _ in Observable.just(0).flatMapFirst { _ in s }.map { "\($0)" } }),
            op("flatMapLatestInner", { s, _ in Observable.just(0).flatMapLatest { _ in s }.map { "\($0)" } }),
            op("flatMapInner", { s, _ in Observable.just(0).flatMap { _ in s }.map { "\($0)" } }),
            op(
                "timeoutOtherInner",
                { s, sch in Observable<Int>.never().timeout(.seconds(5), other: s, scheduler: sch).map { "\($0)" } }),
            op("catchInner", { s, _ in Observable<Int>.error(testError).catch { _ in s }.map { "\($0)" } }),
            op("ifEmptySwitchInner", { s, _ in Observable<Int>.empty().ifEmpty(switchTo: s).map { "\($0)" } }),
            op("concatSecond", { s, _ in Observable<Int>.empty().concat(s).map { "\($0)" } }),
            op(
                "ambLoser",
                { s, sch in
                    let o: Observable<Int> = s.amb(Observable<Int>.never())
                    return o.map { "\($0)" }
                }),
            op("switchLatestInner", { s, _ in Observable.just(s).switchLatest().map { "\($0)" } }),
            op("mergeInner", { s, _ in Observable.just(s).merge().map { "\($0)" } }),
            op("concatInner", { s, _ in Observable.just(s).concat().map { "\($0)" } }),
            op(
                "singleFlatMapInner",
                { s, _ in Single.just(0).flatMap { _ in Single<Int>(raw: s) }.asObservable().map { "\($0)" } }),
            op(
                "singleFlatMapMaybeInner",
                { s, _ in Single.just(0).flatMapMaybe { _ in Maybe<Int>(raw: s) }.asObservable().map { "\($0)" } }),
            op(
                "maybeIfEmptySwitchInner",
                { s, _ in Maybe<Int>.empty().ifEmpty(switchTo: Single<Int>(raw: s)).asObservable().map { "\($0)" } }),
            op(
                "singleCatchInner",
                { s, _ in Single<Int>.error(testError).catch { _ in Single<Int>(raw: s) }.asObservable().map { "\($0)" }
                }),
            op(
                "singleTimeoutOtherInner",
                { s, sch in
                    Single<Int>.never().timeout(.seconds(5), other: Single<Int>(raw: s), scheduler: sch).asObservable()
                        .map { "\($0)" }
                }),
            op(
                "completableAndThenSingleInner",
                { s, _ in Completable.empty().andThen(Single<Int>(raw: s)).asObservable().map { "\($0)" } }),
            op(
                "completableAndThenMaybeInner",
                { s, _ in Completable.empty().andThen(Maybe<Int>(raw: s)).asObservable().map { "\($0)" } }),
            op(
                "infallibleFlatMapFirstInner",
                { s, _ in Infallible.just(0).flatMapFirst { _ in Infallible(s) }.asObservable().map { "\($0)" } }),
            op(
                "infallibleConcatMapInner",
                { s, _ in Infallible.just(0).concatMap { _ in Infallible(s) }.asObservable().map { "\($0)" } }),
            op(
                "asInfallibleFallbackInner",
                { s, _ in
                    Observable<Int>.error(testError).asInfallible(onErrorFallbackTo: Infallible(s)).asObservable().map {
                        "\($0)"
                    }
                }),
            op(
                "usingInner",
                { s, _ in Observable.using({ BooleanDisposable() }, observableFactory: { _ in s }).map { "\($0)" } }),
            op("deferredInner", { s, _ in Observable.deferred { s }.map { "\($0)" } }),
        ])
    }
}
