import Foundation
import LeashTestSupport
import LeashTesting
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `retryingOnUnauthorized(_:)` on execution streams of a manager that does not refresh by
/// itself, and `refreshIfNeeded(rejected:)` from the README's completion interceptor.
final class RefreshOperatorTests: RefreshTestCase {
    private let item = RefreshItem(id: 7)

    func testConcurrent401s_shareOneRefresh_eachStreamResubscribesOnceWithTheNewCredential() throws {
        stubProtected("items", accepting: ["fresh"])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let refresher = makeRefresher(script)
        let client = try makeClient { $0.authenticator(authenticator) }
        let run = RefreshSubscriptions(scheduler)

        let observers = (0..<3).map { _ in
            run.subscribe(at: 200) {
                client.execution(RefreshEndpoint("items"), as: RefreshItem.self).retryingOnUnauthorized(refresher)
            }
        }
        run.run()

        for observer in observers {
            XCTAssertEqual(
                refreshTimeline(observer),
                [
                    "prepared(1) @ 200", "sent(1, Bearer stale) @ 200", "received(401, 1) @ 210",
                    "prepared(1) @ 215", "sent(1, Bearer fresh) @ 215", "received(200, 1) @ 225",
                    "value(\(item)) @ 225", "completed @ 225",
                ])
        }
        XCTAssertEqual(script.subscriptions, [Subscription(210, 215)])
    }

    func testOnClientRxExecute_concurrent401sShareOneRefresh_andEachGetsTheValue() throws {
        stubProtected("items", accepting: ["fresh"])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let refresher = makeRefresher(script)
        let client = try makeClient { $0.authenticator(authenticator) }

        let observers = (0..<3).map { _ in scheduler.createObserver(RefreshItem.self) }
        for observer in observers {
            scheduler.scheduleAt(200) {
                _ = client.rx.execute(RefreshEndpoint("items"), type: RefreshItem.self)
                    .retryingOnUnauthorized(refresher)
                    .subscribe(observer)
            }
        }
        scheduler.start()

        for observer in observers {
            XCTAssertEqual(observer.events, [.next(225, item), .completed(225)])
        }
        XCTAssertEqual(script.subscriptions, [Subscription(210, 215)], "one refresh for the three 401s")
        XCTAssertEqual(
            credentialsSent(to: "items"),
            Array(repeating: "Bearer stale", count: 3) + Array(repeating: "Bearer fresh", count: 3))
    }

    func testStreamSubscribedDuringRefresh_waitsForIt_thenSubscribes() throws {
        stubProtected("items", accepting: ["fresh"])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let refresher = makeRefresher(script)
        let client = try makeClient { $0.authenticator(authenticator) }
        let run = RefreshSubscriptions(scheduler)

        _ = run.subscribe(at: 200) {
            client.execution(RefreshEndpoint("items"), as: RefreshItem.self).retryingOnUnauthorized(refresher)
        }
        let starter = run.subscribe(at: 212) {
            client.execution(RefreshEndpoint("items"), as: RefreshItem.self).retryingOnUnauthorized(refresher)
        }
        run.run()

        XCTAssertEqual(
            refreshTimeline(starter),
            [
                "prepared(1) @ 215", "sent(1, Bearer fresh) @ 215", "received(200, 1) @ 225",
                "value(\(item)) @ 225", "completed @ 225",
            ])
    }

    func testSecondUnauthorizedFailure_passesOn() throws {
        stubProtected("items", accepting: [])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let refresher = makeRefresher(script)
        let client = try makeClient { $0.authenticator(authenticator) }
        let run = RefreshSubscriptions(scheduler)

        let observer = run.subscribe(at: 200) {
            client.execution(RefreshEndpoint("items"), as: RefreshItem.self).retryingOnUnauthorized(refresher)
        }
        run.run()

        XCTAssertEqual(refreshOutcome(observer), ["error(401) @ 225"])
        XCTAssertEqual(credentialsSent(to: "items"), ["Bearer stale", "Bearer fresh"])
        XCTAssertEqual(script.subscriptions, [Subscription(210, 215)])
    }

    func testOtherErrors_passOnUnchanged_withoutRefreshing() throws {
        transport.stub(path: "/v1/items", .status(403, delay: .seconds(10)))
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let refresher = makeRefresher(script)
        let client = try makeClient { $0.authenticator(authenticator) }
        let run = RefreshSubscriptions(scheduler)

        let observer = run.subscribe(at: 200) {
            client.execution(RefreshEndpoint("items"), as: RefreshItem.self).retryingOnUnauthorized(refresher)
        }
        run.run()

        XCTAssertEqual(refreshOutcome(observer), ["error(403) @ 210"])
        XCTAssertEqual(script.callCount, 0)
    }

    func testUnauthorizedStatusCodes_areConfigurable() throws {
        transport.stub(path: "/v1/items", .status(419, delay: .seconds(10)))
        transport.stub(
            matching: { $0.value(forHTTPHeaderField: "Authorization") == "Bearer fresh" },
            [.json(refreshItemJSON, delay: .seconds(10))])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let authenticator = self.authenticator!
        let refresher = TokenRefresher(
            authenticator: authenticator, unauthorizedStatusCodes: [419], scheduler: scheduler
        ) {
            script.next(storingIn: authenticator)
        }
        let client = try makeClient { $0.refreshing(with: refresher) }
        let run = RefreshSubscriptions(scheduler)

        let observer = run.subscribe(at: 200) { client.execution(RefreshEndpoint("items"), as: RefreshItem.self) }
        run.run()

        XCTAssertEqual(refreshOutcome(observer), ["value(\(item)) @ 225", "completed @ 225"])
        XCTAssertEqual(script.subscriptions, [Subscription(210, 215)])
    }

    func testFailedRefresh_endsTheStreamWithAuthenticationFailed() throws {
        stubProtected("items", accepting: ["fresh"])
        let script = RefreshScript([(scheduler.createColdObservable([.error(5, RefreshTestError.revoked)]), "fresh")])
        let refresher = makeRefresher(script)
        let client = try makeClient { $0.authenticator(authenticator) }
        let run = RefreshSubscriptions(scheduler)

        let observer = run.subscribe(at: 200) {
            client.execution(RefreshEndpoint("items"), as: RefreshItem.self).retryingOnUnauthorized(refresher)
        }
        run.run()

        XCTAssertEqual(refreshOutcome(observer), ["error(authenticationFailed(revoked)) @ 215"])
    }

    func testSingle_retriesOnceAfterTheRefresh() throws {
        stubProtected("items", accepting: ["fresh"])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let refresher = makeRefresher(script)
        let client = try makeClient { $0.authenticator(authenticator) }
        let run = RefreshSubscriptions(scheduler)

        let observer = run.subscribe(at: 200) {
            client.execution(RefreshEndpoint("items"), as: RefreshItem.self)
                .compactMap(\.value)
                .asSingle()
                .retryingOnUnauthorized(refresher)
                .asObservable()
        }
        run.run()

        XCTAssertEqual(observer.events.map(\.time), [225, 225])
        XCTAssertEqual(observer.events.first?.value.element, item)
        XCTAssertEqual(script.subscriptions, [Subscription(210, 215)])
    }

    /// The README's `AuthenticationValidator`, a completion interceptor that refreshes and
    /// calls `chain.retry()`, sharing the refresher's one refresh.
    func testCompletionInterceptor_withRefreshIfNeeded_andChainRetry_sharesOneRefresh() throws {
        stubProtected("items", accepting: ["fresh"])
        let script = RefreshScript([(scheduler.createColdObservable([.completed(5)]), "fresh")])
        let refresher = makeRefresher(script)
        let client = try makeClient {
            $0.authenticator(authenticator).add(interceptor: RefreshingValidator(refresher: refresher))
        }
        let run = RefreshSubscriptions(scheduler)

        let observers = (0..<2).map { _ in
            run.subscribe(at: 200) { client.execution(RefreshEndpoint("items"), as: RefreshItem.self) }
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
        XCTAssertEqual(script.subscriptions, [Subscription(210, 215)])
    }
}

/// A completion interceptor in the README's style: on a 401, waits for the shared refresh
/// and retries; a failed refresh completes with its error.
final class RefreshingValidator: CompletionInterceptor, @unchecked Sendable {
    // @unchecked: immutable; the refresher is thread-safe.
    let refresher: TokenRefresher

    init(refresher: TokenRefresher) { self.refresher = refresher }

    func intercept(chain: InterceptorChain<Data>, response: Response<Data>) {
        guard let error = response.error as? LeashError, error.isUnauthorized, chain.attempt == 1 else {
            chain.proceed()
            return
        }
        let rejected = chain.request.urlRequest?.value(forHTTPHeaderField: "Authorization")
        _ = refresher.refreshIfNeeded(rejected: rejected).subscribe(
            onCompleted: {
                do { try chain.retry() } catch { chain.complete(with: error) }
            },
            onError: { chain.complete(with: $0) })
    }
}
