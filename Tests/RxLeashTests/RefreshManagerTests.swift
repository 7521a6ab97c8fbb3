import Foundation
import LeashTestSupport
import LeashTesting
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `Manager.Builder.refreshing(with:)` in virtual time: exact timelines of executions that
/// meet a 401 and of the one refresh they share.
final class RefreshManagerTests: RefreshTestCase {
    private let item = RefreshItem(id: 7)

    func testConcurrent401s_shareOneRefresh_andEveryExecutionRetriesOnceAndSucceeds() throws {
        stubProtected("items", accepting: ["fresh"])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let refresher = makeRefresher(script)
        let client = try makeClient { $0.refreshing(with: refresher) }
        let run = RefreshSubscriptions(scheduler)

        let observers = (0..<3).map { _ in
            run.subscribe(at: 200) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        }
        run.run()

        for observer in observers {
            XCTAssertEqual(
                refreshTimeline(observer),
                [
                    "prepared(1) @ 200", "sent(1, Bearer stale) @ 200", "received(401, 1) @ 210",
                    "retrying(2) @ 215", "prepared(2) @ 215", "sent(2, Bearer fresh) @ 215",
                    "received(200, 2) @ 225", "value(\(item)) @ 225", "completed @ 225",
                ])
        }
        XCTAssertEqual(script.subscriptions, [Subscription(210, 215)], "one refresh, subscribed once")
        XCTAssertEqual(
            credentialsSent(to: "items"),
            Array(repeating: "Bearer stale", count: 3) + Array(repeating: "Bearer fresh", count: 3))
        XCTAssertFalse(refresher.isRefreshing)
    }

    func testRejectedWithReplacedCredential_retriesAtOnce_withoutRefreshingAgain() throws {
        stubProtected("items", accepting: ["fresh"])
        stubProtected("slow", accepting: ["fresh"], delay: 20)
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let client = try makeClient { $0.refreshing(with: makeRefresher(script)) }
        let run = RefreshSubscriptions(scheduler)

        let fast = run.subscribe(at: 200) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        let slow = run.subscribe(at: 200) { client.eventStream(RefreshEndpoint("slow"), as: RefreshItem.self) }
        run.run()

        XCTAssertEqual(refreshOutcome(fast), ["value(\(item)) @ 225", "completed @ 225"])
        // Sent with "stale", rejected at 220, after the refresh replaced it at 215: retried
        // at once with the new credential.
        XCTAssertEqual(
            refreshTimeline(slow),
            [
                "prepared(1) @ 200", "sent(1, Bearer stale) @ 200", "received(401, 1) @ 220", "retrying(2) @ 220",
                "prepared(2) @ 220", "sent(2, Bearer fresh) @ 220", "received(200, 2) @ 240",
                "value(\(item)) @ 240", "completed @ 240",
            ])
        XCTAssertEqual(script.subscriptions, [Subscription(210, 215)])
        XCTAssertEqual(script.callCount, 1)
    }

    func testExecutionStartingDuringRefresh_waitsBeforeItsRequestIsBuilt_andGoesOutWithTheNewCredential() throws {
        stubProtected("items", accepting: ["fresh"])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let refresher = makeRefresher(script)
        let client = try makeClient { $0.refreshing(with: refresher) }
        let run = RefreshSubscriptions(scheduler)
        let refreshingAt212 = RefreshFlag()
        scheduler.scheduleAt(212) { refreshingAt212.value = refresher.isRefreshing }

        let first = run.subscribe(at: 200) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        let starter = run.subscribe(at: 212) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        run.run()

        XCTAssertTrue(refreshingAt212.value)
        XCTAssertEqual(refreshOutcome(first), ["value(\(item)) @ 225", "completed @ 225"])
        XCTAssertEqual(
            refreshTimeline(starter),
            [
                "prepared(1) @ 215", "sent(1, Bearer fresh) @ 215", "received(200, 1) @ 225",
                "value(\(item)) @ 225", "completed @ 225",
            ])
        XCTAssertEqual(credentialsSent(to: "items"), ["Bearer stale", "Bearer fresh", "Bearer fresh"])
        XCTAssertEqual(script.subscriptions, [Subscription(210, 215)])
    }

    func testFailedRefresh_failsEveryWaiterTyped_publishesOnce_andTheNextRequestRefreshesAgain() throws {
        stubProtected("items", accepting: ["fresh"])
        let script = RefreshScript([
            (scheduler.createColdObservable([.error(5, RefreshTestError.revoked)]), "unused"),
            (scheduler.createColdObservable([.completed(5)]), "fresh"),
        ])
        let refresher = makeRefresher(script)
        let client = try makeClient { $0.refreshing(with: refresher) }
        let run = RefreshSubscriptions(scheduler)

        let failures = run.subscribe(at: 0) { refresher.refreshFailures }
        let waiters = (0..<2).map { _ in
            run.subscribe(at: 200) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        }
        let starter = run.subscribe(at: 212) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        let later = run.subscribe(at: 300) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        run.run()

        for waiter in waiters {
            XCTAssertEqual(refreshOutcome(waiter), ["error(authenticationFailed(revoked)) @ 215"])
        }
        XCTAssertEqual(refreshTimeline(starter), ["error(authenticationFailed(revoked)) @ 215"], "never built")
        XCTAssertEqual(failures.events.map(\.time), [215], "published once")
        let published = try XCTUnwrap(failures.events.first?.value.element)
        guard case .authenticationFailed(let underlying) = published else {
            return XCTFail("expected .authenticationFailed, got \(published)")
        }
        XCTAssertEqual(underlying as? RefreshTestError, .revoked, "the refresh's own error is kept")
        XCTAssertTrue("\(published)".contains("Could not refresh the credential: revoked"), "\(published)")
        XCTAssertEqual(refreshOutcome(later), ["value(\(item)) @ 325", "completed @ 325"])
        XCTAssertEqual(script.subscriptions, [Subscription(210, 215), Subscription(310, 315)])
    }

    func testSecond401AfterTheRefresh_failsWithThatUnauthorizedError_noSecondRefresh() throws {
        stubProtected("items", accepting: [])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let client = try makeClient { $0.refreshing(with: makeRefresher(script)) }
        let run = RefreshSubscriptions(scheduler)

        let observer = run.subscribe(at: 200) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        run.run()

        XCTAssertEqual(
            refreshTimeline(observer),
            [
                "prepared(1) @ 200", "sent(1, Bearer stale) @ 200", "received(401, 1) @ 210", "retrying(2) @ 215",
                "prepared(2) @ 215", "sent(2, Bearer fresh) @ 215", "received(401, 2) @ 225", "error(401) @ 225",
            ])
        let error = try XCTUnwrap(observer.events.last?.value.error as? LeashError)
        XCTAssertTrue(error.isUnauthorized)
        XCTAssertEqual(script.subscriptions, [Subscription(210, 215)])
    }

    func testRefreshLimit_refusesPastMaximumInTheWindow_publishes_andAllowsAgainOnceTheWindowMoves() throws {
        stubProtected("items", accepting: [])
        let script = RefreshScript(
            (1...3).map { (scheduler.createColdObservable([.completed(5)]), "t\($0)") })
        let refresher = makeRefresher(script, maximumRefreshes: 2, window: 100)
        let client = try makeClient { $0.refreshing(with: refresher) }
        let run = RefreshSubscriptions(scheduler)

        let failures = run.subscribe(at: 0) { refresher.refreshFailures }
        let executions = [200, 230, 260, 320].map { time in
            run.subscribe(at: time) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        }
        run.run()

        XCTAssertEqual(refreshOutcome(executions[0]), ["error(401) @ 225"])
        XCTAssertEqual(refreshOutcome(executions[1]), ["error(401) @ 255"])
        // Refreshes started at 210 and 240: a third within 100 s is refused.
        XCTAssertEqual(refreshOutcome(executions[2]), ["error(authenticationFailed(limit 2 per 100)) @ 270"])
        // At 330 the one of 210 has left the window.
        XCTAssertEqual(refreshOutcome(executions[3]), ["error(401) @ 345"])
        XCTAssertEqual(script.subscriptions, [Subscription(210, 215), Subscription(240, 245), Subscription(330, 335)])
        XCTAssertEqual(failures.events.map(\.time), [270])
        let refused = try XCTUnwrap(failures.events.first?.value.element)
        XCTAssertTrue("\(refused)".contains("already refreshed 2 time(s) in the last 100 s"), "\(refused)")
        XCTAssertEqual(credentialsSent(to: "items").count, 7, "three executions sent twice, the refused one once")
    }

    func testMaximumRetryCountZero_theRefreshRetryIsStillBoundedByIt() throws {
        stubProtected("items", accepting: ["fresh"])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let client = try makeClient { $0.refreshing(with: makeRefresher(script)).maximumRetryCount(0) }
        let run = RefreshSubscriptions(scheduler)

        let observer = run.subscribe(at: 200) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        run.run()

        XCTAssertEqual(refreshOutcome(observer), ["error(retryLimitExceeded(401)) @ 215"])
    }

    func testDisposingAWaiter_stopsItsWait_theRefreshRunsToItsEnd_andNothingLeaks() throws {
        stubProtected("items", accepting: ["fresh"])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(40)]), "fresh")])
        let refresher = makeRefresher(script)
        let client = try makeClient { $0.refreshing(with: refresher) }
        let run = RefreshSubscriptions(scheduler)

        let disposed = run.subscribe(at: 200, disposedAt: 230) {
            client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self)
        }
        let disposedStarter = run.subscribe(at: 220, disposedAt: 230) {
            client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self)
        }
        let kept = run.subscribe(at: 200) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        run.run()

        XCTAssertEqual(
            refreshTimeline(disposed), ["prepared(1) @ 200", "sent(1, Bearer stale) @ 200", "received(401, 1) @ 210"])
        XCTAssertEqual(refreshTimeline(disposedStarter), [], "held before its request was built, then disposed")
        XCTAssertEqual(refreshOutcome(kept), ["value(\(item)) @ 260", "completed @ 260"])
        XCTAssertEqual(script.subscriptions, [Subscription(210, 250)], "the refresh is not cancelled")
        XCTAssertEqual(credentialsSent(to: "items"), ["Bearer stale", "Bearer stale", "Bearer fresh"])
    }

    func testEveryWaiterDisposed_theRefreshStillCompletes_andStoresTheCredential() throws {
        stubProtected("items", accepting: ["fresh"])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(40)]), "fresh")])
        let refresher = makeRefresher(script)
        let client = try makeClient { $0.refreshing(with: refresher) }
        let run = RefreshSubscriptions(scheduler)
        let states = RefreshLog()
        scheduler.scheduleAt(240) { states.append("refreshing at 240: \(refresher.isRefreshing)") }
        scheduler.scheduleAt(251) { states.append("refreshing at 251: \(refresher.isRefreshing)") }

        _ = run.subscribe(at: 200, disposedAt: 230) {
            client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self)
        }
        run.run()

        XCTAssertEqual(states.all, ["refreshing at 240: true", "refreshing at 251: false"])
        XCTAssertEqual(script.subscriptions, [Subscription(210, 250)])
        XCTAssertEqual(authenticator.accessToken, "fresh")
    }

    func testTimeout_boundsTheWaitForARefresh_forWaitersAndStarters() throws {
        stubProtected("items", accepting: ["fresh"])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(500)]), "fresh")])
        let client = try makeClient { $0.refreshing(with: makeRefresher(script)).timeout(20) }
        let run = RefreshSubscriptions(scheduler)

        let waiter = run.subscribe(at: 200) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        let starter = run.subscribe(at: 212) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        run.run()

        XCTAssertEqual(refreshOutcome(waiter), ["error(timeout) @ 220"])
        XCTAssertEqual(refreshTimeline(starter), ["error(timeout) @ 232"])
        XCTAssertEqual(script.subscriptions, [Subscription(210, 710)])
    }

    func testExcludedEndpoint_neitherWaitsNorRefreshes() throws {
        stubProtected("items", accepting: ["fresh"])
        transport.stub(path: "/v1/token", .status(401, delay: 10))
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let refresher = makeRefresher(script) { ($0 as? RefreshEndpoint)?.path == "/token" }
        let client = try makeClient { $0.refreshing(with: refresher) }
        let run = RefreshSubscriptions(scheduler)

        _ = run.subscribe(at: 200) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        let token = run.subscribe(at: 212) { client.eventStream(RefreshEndpoint("token"), as: RefreshItem.self) }
        run.run()

        XCTAssertEqual(
            refreshTimeline(token),
            ["prepared(1) @ 212", "sent(1, Bearer stale) @ 212", "received(401, 1) @ 222", "error(401) @ 222"])
        XCTAssertEqual(script.subscriptions, [Subscription(210, 215)])
    }

    func testManyConcurrent401s_oneRefresh_allSucceed() throws {
        stubProtected("items", accepting: ["fresh"])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let client = try makeClient { $0.refreshing(with: makeRefresher(script)) }
        let run = RefreshSubscriptions(scheduler)

        let observers = (0..<200).map { index in
            run.subscribe(at: 200 + index % 20) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        }
        run.run()

        XCTAssertEqual(script.subscriptions, [Subscription(210, 215)])
        let values = observers.flatMap { $0.events.compactMap { $0.value.element?.value } }
        XCTAssertEqual(values, Array(repeating: item, count: 200))
        XCTAssertEqual(observers.filter { $0.events.last?.value.isCompleted == true }.count, 200)
    }

    func testOtherStatuses_passOnUnchanged_withoutRefreshing() throws {
        transport.stub(path: "/v1/items", .status(403, delay: 10))
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let client = try makeClient { $0.refreshing(with: makeRefresher(script)) }
        let run = RefreshSubscriptions(scheduler)

        let observer = run.subscribe(at: 200) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        run.run()

        XCTAssertEqual(refreshOutcome(observer), ["error(403) @ 210"])
        XCTAssertEqual(script.callCount, 0)
    }

    func testUnauthorizedStatusCodes_areConfigurable() throws {
        transport.stub(path: "/v1/items", .status(419, delay: 10))
        transport.stub(
            matching: { $0.value(forHTTPHeaderField: "Authorization") == "Bearer fresh" },
            [.json(refreshItemJSON, delay: 10)])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let authenticator = self.authenticator!
        let refresher = TokenRefresher(
            authenticator: authenticator, unauthorizedStatusCodes: [419], scheduler: scheduler
        ) {
            script.next(storingIn: authenticator)
        }
        let client = try makeClient { $0.refreshing(with: refresher) }
        let run = RefreshSubscriptions(scheduler)

        let observer = run.subscribe(at: 200) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        run.run()

        XCTAssertEqual(refreshOutcome(observer), ["value(\(item)) @ 225", "completed @ 225"])
        XCTAssertEqual(script.subscriptions, [Subscription(210, 215)])
    }

    func testClientRxExecute_concurrent401sShareOneRefresh_andEachGetsTheValue() throws {
        stubProtected("items", accepting: ["fresh"])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let client = try makeClient { $0.refreshing(with: makeRefresher(script)) }
        let run = RefreshSubscriptions(scheduler)

        let observers = (0..<3).map { _ in
            run.subscribe(at: 200) { client.rx.execute(RefreshEndpoint("items"), type: RefreshItem.self) }
        }
        run.run()

        for observer in observers {
            XCTAssertEqual(observer.events, [.next(225, item), .completed(225)])
        }
        XCTAssertEqual(script.subscriptions, [Subscription(210, 215)], "one refresh for the three 401s")
        XCTAssertEqual(
            credentialsSent(to: "items"),
            Array(repeating: "Bearer stale", count: 3) + Array(repeating: "Bearer fresh", count: 3))
    }

    func testClientRxSingle_retriesOnceAfterTheRefresh() throws {
        stubProtected("items", accepting: ["fresh"])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let client = try makeClient { $0.refreshing(with: makeRefresher(script)) }
        let run = RefreshSubscriptions(scheduler)

        let observer = run.subscribe(at: 200) {
            client.rx.single(RefreshEndpoint("items"), type: RefreshItem.self).asObservable()
        }
        run.run()

        XCTAssertEqual(observer.events, [.next(225, item), .completed(225)])
        XCTAssertEqual(script.subscriptions, [Subscription(210, 215)])
    }
}
