import Foundation
import LeashTestSupport
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `refreshIfNeeded(rejected:)` in a completion interceptor of the app's own, the README's
/// `AuthenticationValidator` style: it shares the refresher's one refresh.
final class RefreshIfNeededTests: RefreshTestCase {
    private let item = RefreshItem(id: 7)

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
