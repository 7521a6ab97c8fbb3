import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default transport: a `URLSession` data task per request, delegate-based (the
/// session's delegate, `PlainSessionDelegate`, takes each task's head, body, metrics and
/// challenges).
///
/// Its session starts from URLSession's own defaults (`URLSessionConfiguration.default`:
/// cookies kept in the shared cookie storage, and on Apple platforms the shared
/// `URLCache`, so `Cache-Control` and `ETag` revalidation work as URLSession does them).
///
/// Built to survive what URLSession on Linux does (see Docs/URLSession-on-Linux.md in the design
/// notes):
/// - on Linux its session has no `URLCache` (a cancel racing a completion crashes a
///   session that has one): use `CacheInterceptor` for HTTP caching there;
/// - `cancel()` is issued asynchronously on a queue of its own, never from inside
///   URLSession's callbacks (disposing from a completion handler would do exactly that),
///   and never for a task that already finished;
/// - a request disposed before it is launched never creates a task, and a task is created
///   and resumed under its state's lock, so a dispose either comes first or cancels it;
/// - a 401 whose `Basic` challenge nobody answers, which FoundationNetworking would hold
///   forever, is delivered as the response (see `CredentialHandling`);
/// - the transport owns its session and invalidates it only when it is freed; every
///   observable `send` returns holds the transport, so no task is ever created on an
///   invalidated session (a fatal error in FoundationNetworking);
/// - Leash enforces timeouts itself, so URLSession's whole-second timeouts are not used;
/// - on Linux the transport applies the `Max-Age` of the cookies a response sets and drops
///   expired cookies before a request, which FoundationNetworking's cookie storage does
///   not (see `CookieExpiry`).
///
/// Answers arrive on the transport's queues: each request's events in order, different
/// requests' possibly in parallel (64 responses in flight are not decoded on one core). A
/// manager's `callbackQueue` is where an app wants callbacks one at a time.
///
/// On Linux the session's delegate queue runs URLSession's delegate calls in place (on
/// URLSession's work queue); elsewhere they run on the session's one serial delegate
/// queue. Either way the transport hands each answer on with one `DispatchQueue.async` to
/// one of its delivery queues: the single hop an `OperationQueue` delegate queue makes,
/// without its operation objects and locks on Linux (which cost a URLSession client more
/// than the rest of Leash's pipeline), and without holding every request's decoding to one
/// thread. Nothing but that hand-off runs on URLSession's queue: code there must never
/// wait for that queue (creating or cancelling a task does on Linux), or the session
/// deadlocks. An `await`ing execution has its answer handed straight to its task instead
/// (`ResponseHandoff`), which saves the hop altogether, as `URLSession.data(for:)` does.
///
/// It follows no redirect: a 3xx is the response, and Leash's pipeline follows it (see
/// `RedirectPolicy`), because URLSession on Linux sends a 307/308 after a `POST` without
/// its body.
///
/// Where URLSession collects metrics (Apple platforms), each response carries them
/// (`TransportResponse.metrics`); server trust is judged by the `serverTrust` policies
/// given for each host (Apple platforms only: see `ServerTrustPolicy`).
public final class URLSessionTransport: DirectTransport, @unchecked Sendable {
    // @unchecked: `URLSession` is thread-safe; the other properties are immutable (the
    // transfer session behind its lock, the delivery queues' turn an atomic).

    /// A transport shared by every manager that does not set its own.
    public static let shared = URLSessionTransport()

    /// The session requests go through. Not public: on Linux its delegate queue runs
    /// completion blocks in place, on URLSession's work queue (see above), where a task
    /// created by someone else's completion handler would deadlock the session.
    let session: URLSession

    /// The session's configuration, as URLSession reports it (a copy: changing it changes
    /// nothing). On Linux its `urlCache` is always `nil` (see above).
    public var configuration: URLSessionConfiguration { session.configuration }

    /// The plain-request session's delegate: declines redirects, keeps metrics, judges
    /// server trust.
    let delegate: PlainSessionDelegate

    private let cancelQueue = DispatchQueue(label: "leash.urlsession.cancel")

    /// Where URLSession does not expire cookies itself (Linux), the transport's expiry of
    /// its session's cookies; nil elsewhere.
    private let cookieExpiry: CookieExpiry?

    /// Where answers are handed, off URLSession's queue: serial queues, one per core (at
    /// least two), taking requests in turn, so that different requests' answers are
    /// decoded in parallel (on Apple platforms URLSession's delegate queue is one serial
    /// queue for the whole session). Not one concurrent queue: serial queues run on
    /// libdispatch's overcommitting threads, which start at once, where a concurrent
    /// queue's work waits for a pool thread (about 5% of a request's time, one at a time).
    private let deliveryQueues: [DispatchQueue] = (0..<max(2, ProcessInfo.processInfo.activeProcessorCount)).map {
        DispatchQueue(label: "leash.urlsession.delivery.\($0)")
    }
    /// Whose turn it is among `deliveryQueues`: one counter, so an atomic add, not a lock.
    private let deliveryQueueTurn = AtomicInt(0)

    /// What a stream does when its subscriber falls behind.
    public let slowSubscribers: SlowSubscriberPolicy

    /// Creates a transport with a session of its own.
    ///
    /// - Parameters:
    ///   - configuration: The session configuration, copied; on Linux the copy's
    ///     `urlCache` is removed (see above). By default URLSession's `.default`
    ///     (persistent cookies; on Apple platforms the shared `URLCache`); `.ephemeral`
    ///     keeps cookies and cache in memory, for as long as the transport.
    ///   - slowSubscribers: What a stream does when its subscriber falls behind (see
    ///     `SlowSubscriberPolicy`; by default the platform's choice).
    public convenience init(
        configuration: URLSessionConfiguration = .default,
        slowSubscribers: SlowSubscriberPolicy = .platformDefault
    ) {
        self.init(configuration: configuration, slowSubscribers: slowSubscribers, trust: .none)
    }

    #if canImport(Security)
        /// Creates a transport whose session judges the servers of `serverTrust`'s hosts
        /// with their policy (certificate or public-key pinning): a server that fails ends
        /// the execution with `LeashError.serverTrust`, before anything is sent. Other
        /// hosts get URLSession's own evaluation. (Apple platforms only: FoundationNetworking
        /// offers no server trust to judge.)
        ///
        /// - Parameters:
        ///   - configuration: As for `init(configuration:slowSubscribers:)`.
        ///   - serverTrust: The policy for each host (matched case-insensitively, exactly:
        ///     `"api.example.com"` does not cover `"cdn.example.com"`).
        ///   - slowSubscribers: As for `init(configuration:slowSubscribers:)`.
        public convenience init(
            configuration: URLSessionConfiguration = .default, serverTrust: [String: ServerTrustPolicy],
            slowSubscribers: SlowSubscriberPolicy = .platformDefault
        ) {
            let policies = Dictionary(
                serverTrust.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
            self.init(
                configuration: configuration, slowSubscribers: slowSubscribers, trust: ServerTrust(policies: policies))
        }
    #endif

    private init(configuration: URLSessionConfiguration, slowSubscribers: SlowSubscriberPolicy, trust: ServerTrust) {
        self.slowSubscribers = slowSubscribers
        // A copy, so that the caller's configuration (perhaps shared) is left as it was.
        let configuration = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        if !URLSessionPlatform.current.keepsURLCache { configuration.urlCache = nil }
        cookieExpiry = CookieExpiry(configuration: configuration)
        delegate = PlainSessionDelegate(trust: trust, cancelQueue: cancelQueue)
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: Self.makeDelegateQueue())
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// The delegate-based session for transfers, made on the first one.
    private var transfers: TransferSession {
        // Made under the lock: two first transfers racing must not make two sessions.
        transferSession.withLock { transferSession in
            if let existing = transferSession { return existing }
            let created = TransferSession(
                configuration: session.configuration, trust: delegate.trust, cancelQueue: cancelQueue,
                delegateQueue: Self.makeDelegateQueue())
            transferSession = created
            return created
        }
    }
    private let transferSession = LockedState<TransferSession?>(nil)

    /// The session's delegate queue (see the type's documentation).
    private static func makeDelegateQueue() -> OperationQueue {
        let delegateQueue: OperationQueue
        #if canImport(FoundationNetworking)
            // Compiled on Linux only: it overrides FoundationNetworking's `addOperation`.
            delegateQueue = URLSessionPlatform.current.sharesOneWorkQueue ? InPlaceOperationQueue() : OperationQueue()
        #else
            delegateQueue = OperationQueue()
        #endif
        delegateQueue.name = "leash.urlsession.delegate"
        delegateQueue.maxConcurrentOperationCount = 1
        return delegateQueue
    }

    /// Sends `request` with a delegate-based task that reports its bytes as they move:
    /// an upload task streaming the body from its file, or a data task whose body is
    /// counted and kept in memory or written to the destination file as it arrives
    /// (resuming with `Range` where the file already holds the beginning).
    public func transfer(_ request: TransportRequest) -> Observable<TransportEvent> {
        let transport = self
        return Observable.create { observer in
            let prepared = transport.prepareTransfer(request, options: DirectRequestOptions(), observer: observer)
            prepared.launch()
            return prepared
        }
    }

    /// Prepares the transfer `request` (see `transfer(_:)`); nothing is sent until
    /// `launch()`.
    func prepareTransfer(
        _ request: TransportRequest, options: DirectRequestOptions, observer: AnyObserver<TransportEvent>
    ) -> PreparedRequest {
        guard request.destination == .stream else {
            return transfers.prepare(
                request, options: options, deliveryQueue: nextDeliveryQueue(), cancelQueue: cancelQueue,
                observer: observer)
        }
        // A stream lasts, and its subscriber may be slow: it gets a session (a work queue)
        // and a delivery queue of its own, so that a slow subscriber holds up no other
        // transfer's delivery (see `SlowSubscriberPolicy` for URLSession's own).
        let session = TransferSession(
            configuration: self.session.configuration, trust: delegate.trust, cancelQueue: cancelQueue,
            delegateQueue: Self.makeDelegateQueue())
        return session.prepare(
            request, options: options, deliveryQueue: DispatchQueue(label: "leash.urlsession.stream"),
            cancelQueue: cancelQueue, observer: observer, ownsSession: true, slowSubscribers: slowSubscribers)
    }

    /// The next of `deliveryQueues`.
    private func nextDeliveryQueue() -> DispatchQueue {
        deliveryQueues[(deliveryQueueTurn.add(1) & Int.max) % deliveryQueues.count]
    }

    /// Sends `request` with a data task; disposing cancels the task.
    public func send(_ request: URLRequest) -> Observable<TransportResponse> {
        DataTaskObservable(transport: self, request: request).asObservable()
    }

    /// Prepares a data task for `request` that reports to `observer` once, through
    /// `options.handoff` if there is one, else on a delivery queue; the returned task state
    /// creates and resumes it on `launch()`, and cancels it when disposed. (Leash's
    /// pipeline calls this directly, saving the observable `send` wraps around it.)
    func prepare<Observer: ObserverType & SendableMetatype>(
        _ request: URLRequest, options: DirectRequestOptions, observer: Observer
    ) -> PreparedRequest where Observer.Element == TransportResponse {
        let state = TaskState(cancelQueue: cancelQueue, place: options.place)
        let plain = PlainTask(
            state: state, credentials: options.credentials, observer: observer, handoff: options.handoff,
            deliveryQueue: nextDeliveryQueue(), cookieExpiry: cookieExpiry)
        let session = self.session
        let delegate = self.delegate
        let cookieExpiry = self.cookieExpiry
        state.prepare {
            // Linux: no expired cookie is sent (the task takes its cookies when created).
            cookieExpiry?.dropExpiredCookiesIfDue()
            let task = session.dataTask(with: request)
            delegate.register(plain, for: task)
            return task
        }
        return state
    }

    /// Maps a URLSession error to a `LeashError`. (`package`: `StubTransport`, in
    /// `LeashTesting`, fails with the same errors as the network.)
    /// How a task ends when URLSession asks for its body a second time. It does so to send
    /// the request again on a new connection after the one it reused closed without an
    /// answer, and FoundationNetworking then sends the request without its body: a `POST`
    /// would reach the server twice, the second time empty, and the answer to the empty
    /// copy would be the task's. A request the transport already wrote is never sent again
    /// by the transport: the execution fails with this error (a lost connection, as on a
    /// fresh connection), and only the pipeline's retry rules may send it again, whole.
    static let resendRefused = LeashError.transport(
        URLError(
            .networkConnectionLost,
            userInfo: [
                NSLocalizedDescriptionKey:
                    "The connection closed after the request was sent and before any answer; "
                    + "the request was not sent again, since the server may have acted on it"
            ]))

    package static func leashError(for error: Swift.Error) -> LeashError {
        if let urlError = error as? URLError {
            if urlError.code == .cancelled { return .cancelled }
            return .transport(urlError)
        }
        let nsError = error as NSError
        if nsError.domain == NSURLErrorDomain, let code = URLError.Code(rawValue: nsError.code) as URLError.Code? {
            if code == .cancelled { return .cancelled }
            return .transport(URLError(code, userInfo: nsError.userInfo))
        }
        return .transport(URLError(.unknown, userInfo: [NSUnderlyingErrorKey: nsError]))
    }
}

#if canImport(FoundationNetworking)
    /// The session's delegate queue on Linux: runs the blocks URLSession adds in place, on
    /// the thread adding them (URLSession's work queue), instead of as operations on a
    /// queue of its own. The transport's completion handler only hands the answer on (see
    /// `URLSessionTransport`), so nothing slow or blocking runs there.
    private final class InPlaceOperationQueue: OperationQueue, @unchecked Sendable {
        // @unchecked: no state of its own.
        override func addOperation(_ block: @escaping @Sendable () -> Void) {
            block()
        }
    }
#endif

/// One data task as an observable: subscribing starts the task. (It keeps the transport,
/// not only its session: the session is invalidated when the transport is freed, and
/// this keeps it alive for as long as the observable can still be subscribed.)
private struct DataTaskObservable: ObservableType, @unchecked Sendable {
    // @unchecked: immutable; URLRequest is a value only read.
    typealias Element = TransportResponse

    let transport: URLSessionTransport
    let request: URLRequest

    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == TransportResponse {
        let prepared = transport.prepare(request, options: DirectRequestOptions(), observer: AnyObserver(observer))
        prepared.launch()
        return prepared
    }
}
