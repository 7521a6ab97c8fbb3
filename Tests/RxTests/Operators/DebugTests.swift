import Foundation
import RxTesting
import XCTest

@testable import Rx

final class DebugTests: RxTestCase {
    /// The lines of a log, without their timestamps.
    private func contents(_ lines: [String]) -> [String] {
        lines.map { line in
            guard let range = line.range(of: ": ") else { return line }
            return String(line[range.upperBound...])
        }
    }

    func testDebug_logsSubscriptionEventsAndDisposalInOrder() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 0), .next(210, 1), .next(220, 2), .completed(230)])
        let log = ErrorsLocked<[String]>([])
        let res = scheduler.start {
            xs.debug(identifier: "xs", trimOutput: false) { log.append($0) }
        }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(
            contents(log.value),
            [
                "xs -> subscribed", "xs -> Event next(1)", "xs -> Event next(2)", "xs -> Event completed",
                "xs -> isDisposed",
            ])
    }

    func testDebug_logsErrorAndDisposalOnDispose() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.error(210, testError)] as [Recorded<Event<Int>>])
        let ys = scheduler.createHotObservable([.next(210, 1)])
        let log = ErrorsLocked<[String]>([])
        _ = scheduler.start { xs.debug(identifier: "xs", trimOutput: false) { log.append($0) } }
        _ = scheduler.start(created: 1100, subscribed: 1200, disposed: 1300) {
            ys.debug(identifier: "ys", trimOutput: false) { log.append($0) }
        }
        XCTAssertEqual(
            contents(log.value),
            [
                "xs -> subscribed", "xs -> Event error(TestError(1))", "xs -> isDisposed", "ys -> subscribed",
                "ys -> isDisposed",
            ])
        XCTAssertEqual(ys.subscriptions, [Subscription(1200, 1300)])
    }

    func testDebug_nestedDisposalIsLoggedFromTheOutsideIn() {
        let subject = PublishSubject<Int>()
        let log = ErrorsLocked<[String]>([])
        let subscription = subject.debug(identifier: "inner", trimOutput: false) { log.append($0) }
            .debug(identifier: "outer", trimOutput: false) { log.append($0) }
            .subscribe()
        subscription.dispose()
        XCTAssertEqual(
            contents(log.value),
            ["outer -> subscribed", "inner -> subscribed", "outer -> isDisposed", "inner -> isDisposed"])
        XCTAssertFalse(subject.hasObservers)
    }

    func testDebug_trimsLongEventsOnlyWhenAsked() {
        let long = String(repeating: "a", count: 30) + String(repeating: "z", count: 30)
        XCTAssertEqual(debugLogEventText(Event.next(long), trim: false), "next(\(long))")
        XCTAssertEqual(
            debugLogEventText(Event.next(long), trim: true),
            "next(aaaaaaaaaaaaaaa" + "..." + "zzzzzzzzzzzzzzzzzzz)")
        XCTAssertEqual(debugLogEventText(Event.next("short"), trim: true), "next(short)")
        XCTAssertEqual(debugLogEventText(Event<Int>.completed, trim: true), "completed")
    }

    func testDebug_defaultIdentifierIsTheCallSite() {
        XCTAssertEqual(debugLogIdentifier("id", file: "/a/b/File.swift", line: 7, function: "f()"), "id")
        XCTAssertEqual(debugLogIdentifier(nil, file: "/a/b/File.swift", line: 7, function: "f()"), "File.swift:7 (f())")
        XCTAssertEqual(debugLogIdentifier(nil, file: "File.swift", line: 7, function: "f()"), "File.swift:7 (f())")
    }

    func testDebug_timestampHasRxSwiftsFormat() throws {
        let timestamp = debugLogTimestamp()
        let pattern = try NSRegularExpression(pattern: "^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{3}$")
        let range = NSRange(timestamp.startIndex..., in: timestamp)
        XCTAssertNotNil(pattern.firstMatch(in: timestamp, range: range), timestamp)
        XCTAssertTrue(timestamp.hasPrefix(String(Calendar.current.component(.year, from: Date()))))
    }

    func testDebug_publicOverloadPassesEventsThrough() {
        var events: [Event<Int>] = []
        _ = Observable.of(1, 2).debug("numbers", trimOutput: true).subscribe { events.append($0) }
        XCTAssertEqual(events, [.next(1), .next(2), .completed])
    }

    // MARK: traits

    func testDebug_singleLogsItsEventsAndStaysASingle() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(250)])
        let log = ErrorsLocked<[String]>([])
        let res = scheduler.start {
            // The annotation checks that the result is still a `Single`.
            let logged: Single<Int> = xs.asSingle().debug(identifier: "s", trimOutput: false) { log.append($0) }
            return logged
        }
        XCTAssertEqual(res.events, [.next(250, 1), .completed(250)])
        XCTAssertEqual(
            contents(log.value),
            ["s -> subscribed", "s -> Event next(1)", "s -> Event completed", "s -> isDisposed"])
    }

    func testDebug_maybeLogsErrorAndStaysAMaybe() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.error(210, testError)] as [Recorded<Event<Int>>])
        let log = ErrorsLocked<[String]>([])
        let res = scheduler.start {
            let logged: Maybe<Int> = xs.asMaybe().debug(identifier: "m", trimOutput: false) { log.append($0) }
            return logged
        }
        XCTAssertEqual(res.events, [.error(210, testError)])
        XCTAssertEqual(
            contents(log.value), ["m -> subscribed", "m -> Event error(TestError(1))", "m -> isDisposed"])
    }

    func testDebug_completableLogsDisposalAndStaysACompletable() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.completed(2000)] as [Recorded<Event<Int>>])
        let log = ErrorsLocked<[String]>([])
        let res = scheduler.start(disposed: 300) {
            let logged: Completable = xs.asCompletable().debug(identifier: "c", trimOutput: false) {
                log.append($0)
            }
            return logged
        }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(contents(log.value), ["c -> subscribed", "c -> isDisposed"])
    }

    func testDebug_infallibleLogsEventsAndStaysAnInfallible() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        let log = ErrorsLocked<[String]>([])
        let res = scheduler.start {
            let logged: Infallible<Int> = xs.asInfallible(onErrorJustReturn: 0)
                .debug(identifier: "i", trimOutput: true) { log.append($0) }
            return logged
        }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 0), .completed(220)])
        XCTAssertEqual(
            contents(log.value),
            ["i -> subscribed", "i -> Event next(1)", "i -> Event next(0)", "i -> Event completed", "i -> isDisposed"])
    }

    func testDebug_publicTraitOverloadsPassOutcomesThroughAsTheSameTrait() {
        var outcomes: [String] = []
        let single: Single<Int> = Single.just(1).debug("single")
        _ = single.subscribe(onSuccess: { outcomes.append("success(\($0))") })
        let maybe: Maybe<Int> = Maybe.empty().debug("maybe", trimOutput: true)
        _ = maybe.subscribe(onCompleted: { outcomes.append("completed") })
        let completable: Completable = Completable.error(testError).debug()
        _ = completable.subscribe(onError: { outcomes.append("error(\($0))") })
        let infallible: Infallible<Int> = Infallible.just(2).debug("infallible")
        _ = infallible.subscribe(onNext: { outcomes.append("next(\($0))") })
        XCTAssertEqual(outcomes, ["success(1)", "completed", "error(TestError(1))", "next(2)"])
    }
}
