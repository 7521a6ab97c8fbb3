import Foundation
import Leash
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One credential refresh for any number of requests rejected as unauthorized (401).
///
/// You say how to refresh, as a `Completable` that obtains a new credential and stores it
/// where the manager's `Authenticator` reads it (typically a request to your token
/// endpoint through a client of its own). Then every execution that fails as
/// unauthorized waits for one shared refresh and retries once with the new credential:
///
/// - N concurrent 401s cause one refresh; all N retry after it.
/// - A request rejected with a credential that has been replaced since (another request
///   already refreshed) retries at once, without refreshing again.
/// - Requests that start while a refresh is in flight wait for it before their request is
///   built, so they go out with the new credential.
/// - A failed refresh fails every waiting execution with
///   `LeashError.authenticationFailed(underlying:)` (the refresh's error inside) and is
///   published on `refreshFailures` (show the login screen there); the next 401 may try
///   again.
/// - No loops: each execution retries at most once for a refresh (a second 401 ends it
///   with that 401), and at most `maximumRefreshes` refreshes start per `window`; past
///   that the execution fails with `TokenRefreshError.refreshLimitReached` inside
///   `authenticationFailed`.
///
/// Configure it once on the manager, for every execution:
///
/// ```swift
/// let refresher = TokenRefresher(authenticator: authenticator) {
///     tokenClient.rx.single(TokenEndpoint.refresh, type: Token.self)
///         .do(onSuccess: { authenticator.accessToken = $0.accessToken })
///         .asCompletable()
/// }
/// let manager = try Manager.Builder().url(baseURL).refreshing(with: refresher).build()
/// ```
///
/// A completion interceptor of your own can share the same refresh through
/// `refreshIfNeeded(rejected:)`.
///
/// The refresh is shared, not owned by its waiters: once started it runs to its end even
/// if every execution waiting for it is disposed (a disposed waiter simply stops
/// waiting). Cancelling a token exchange half-way can lose a rotated refresh token that
/// the server already replaced; a finished refresh also serves the next requests. Give
/// the refresh a timeout (the manager's timeout does, if the refresh is a Leash
/// execution), or requests wait for it until their own timeout.
///
/// Do not send the refresh request through a manager that this refresher gates: it would
/// wait for itself. Use a client of its own, or exclude the token endpoint with
/// `excluding:`.
public final class TokenRefresher: RequestGate, @unchecked Sendable {
    // @unchecked: the state is behind `state`'s lock; the rest is immutable. The
    // authenticator is the app's object, only read (as the manager reads it).

    /// The authenticator whose credential the refresh replaces.
    public let authenticator: Authenticator
    /// The status codes that mean "unauthorized" (default: 401).
    public let unauthorizedStatusCodes: Set<Int>
    /// At most this many refreshes start within `window`.
    public let maximumRefreshes: Int
    /// The window of `maximumRefreshes`, in seconds.
    public let window: TimeInterval

    private let refresh: @Sendable () -> Completable
    private let scheduler: SchedulerType
    private let isExcluded: @Sendable (Endpoint) -> Bool
    private let state = LockedState(RefreshState())
    private let failures = RefreshFailures()

    /// A refresher.
    ///
    /// - Parameters:
    ///   - authenticator: The authenticator the manager uses; `refresh` stores the new
    ///     credential in it. Its credential is how the refresher tells whether a rejected
    ///     request carried the current credential or one replaced since.
    ///   - unauthorizedStatusCodes: The statuses that trigger a refresh (default `[401]`).
    ///   - maximumRefreshes: At most this many refreshes start per `window` (default 3);
    ///     past that, requests fail with `TokenRefreshError.refreshLimitReached`.
    ///   - window: The window of `maximumRefreshes`, in seconds (default 60).
    ///   - scheduler: Whose clock measures the window (a `TestScheduler` makes it
    ///     virtual); default: the system clock.
    ///   - excluding: Endpoints that neither wait for a refresh nor trigger one (the token
    ///     endpoint, if it goes through the same manager).
    ///   - refresh: Obtains a new credential and stores it in `authenticator`, then
    ///     completes; or fails. Subscribed once per refresh, however many requests wait.
    public init(
        authenticator: Authenticator,
        unauthorizedStatusCodes: Set<Int> = [401],
        maximumRefreshes: Int = 3,
        window: TimeInterval = 60,
        scheduler: SchedulerType = TokenRefresher.clock,
        excluding: @escaping @Sendable (Endpoint) -> Bool = { _ in false },
        refresh: @escaping @Sendable () -> Completable
    ) {
        self.authenticator = authenticator
        self.unauthorizedStatusCodes = unauthorizedStatusCodes
        self.maximumRefreshes = max(0, maximumRefreshes)
        self.window = window
        self.scheduler = scheduler
        self.isExcluded = excluding
        self.refresh = refresh
    }

    /// The default clock for the window: a scheduler on the system clock.
    public static let clock: SchedulerType = ConcurrentDispatchQueueScheduler(qos: .utility)

    /// Every failed refresh, and every refresh refused by the limit, as the
    /// `LeashError.authenticationFailed` the waiting executions got. Never completes.
    /// Delivered on the thread where the refresh failed, one at a time: observe it on the
    /// main scheduler to show a login screen.
    public var refreshFailures: Observable<LeashError> { failures.observable }

    /// Whether a refresh is in flight.
    public var isRefreshing: Bool { state.withLock { $0.inFlight != nil } }

    /// The credential after `credential` was rejected as unauthorized: completes at once
    /// if the authenticator holds another credential already, else waits for the refresh
    /// in flight or starts one; fails with `LeashError.authenticationFailed` if the
    /// refresh fails or the limit is reached. Lazy: decides when subscribed.
    ///
    /// For interceptors of your own (such as a completion interceptor that calls
    /// `chain.retry()` once this completes); the manager setup uses it too.
    ///
    /// - Parameter credential: The value of the authenticator's header in the rejected
    ///   request (`nil` if it had none).
    public func refreshIfNeeded(rejected credential: String?) -> Completable {
        Completable.deferred { [self] in
            let (inFlight, seenSucceeded) = state.withLock { ($0.inFlight, $0.succeeded) }
            if let inFlight { return inFlight.completion }
            // The app's code: read outside the lock.
            if authenticator.authentication != credential { return .empty() }
            let now = scheduler.now
            let maximum = maximumRefreshes
            let window = window
            let decision = state.withLock {
                $0.decide(now: now, seenSucceeded: seenSucceeded, maximum: maximum, window: window)
            }
            switch decision {
            case .join(let refresh):
                return refresh.completion
            case .retryNow:
                return .empty()
            case .refuse(let error):
                failures.publish(error)
                return .error(error)
            case .start(let refresh):
                start(refresh)
                return refresh.completion
            }
        }
    }

    /// The refresh in flight for requests of `endpoint` to wait for, or `nil` if none is
    /// (see `RequestGate`).
    public func admission(for endpoint: Endpoint, attempt: Int) -> Completable? {
        guard let inFlight = state.withLock({ $0.inFlight }), !isExcluded(endpoint) else { return nil }
        return inFlight.completion
    }

    // MARK: Internals shared by the manager setup and the deprecated operator

    /// Whether `endpoint` is left alone.
    func excludes(_ endpoint: Endpoint) -> Bool {
        isExcluded(endpoint)
    }

    /// The refresh in flight, if any, for a stream about to start.
    var currentRefresh: Completable? {
        state.withLock { $0.inFlight }?.completion
    }

    /// Whether `statusCode` means unauthorized.
    func isUnauthorized(_ statusCode: Int?) -> Bool {
        statusCode.map(unauthorizedStatusCodes.contains) ?? false
    }

    /// The credential `request` carried in the authenticator's header.
    func credential(sentWith request: URLRequest?) -> String? {
        request?.value(forHTTPHeaderField: type(of: authenticator).header)
    }

    /// If `error` is an unauthorized status, the wait before retrying it.
    func refreshIfUnauthorized(_ error: Swift.Error) -> Completable? {
        guard case .unacceptableStatusCode(let failure)? = error as? LeashError,
            unauthorizedStatusCodes.contains(failure.statusCode)
        else { return nil }
        // Without the request, its credential is unknown: treat it as the current one.
        let rejected = failure.request.map { credential(sentWith: $0) } ?? authenticator.authentication
        return refreshIfNeeded(rejected: rejected)
    }

    // MARK: Running a refresh

    private func start(_ refresh: RefreshRun) {
        // Not disposed by anyone: the refresh runs to its end (see the type's comment), and
        // its subscription lives as long as the refresh does.
        _ = self.refresh().subscribe(
            onCompleted: { [self] in finish(refresh, error: nil) },
            onError: { [self] error in finish(refresh, error: error) })
    }

    private func finish(_ refresh: RefreshRun, error: Swift.Error?) {
        guard let error else {
            // Reset first: waiters retry as soon as they hear, and must find no refresh in
            // flight (a 401 after this may refresh again).
            state.withLock { $0.finish(refresh, failed: false) }
            refresh.finish(.completed)
            return
        }
        let failure: LeashError
        if let leashError = error as? LeashError, case .authenticationFailed = leashError {
            failure = leashError
        } else {
            failure = .authenticationFailed(underlying: error)
        }
        // Published while the refresh is still in flight, so that it is the first failure
        // subscribers hear of: a 401 arriving meanwhile joins this refresh (and its
        // failure) rather than being refused by the limit and published before it.
        failures.publish(failure)
        state.withLock { $0.finish(refresh, failed: true) }
        refresh.finish(.error(failure))
    }
}
