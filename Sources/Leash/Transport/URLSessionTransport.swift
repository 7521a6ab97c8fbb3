import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default transport: a `URLSession` data task per request.
///
/// Its session starts from URLSession's own defaults (`URLSessionConfiguration.default`:
/// cookies kept in the shared cookie storage, and on Apple platforms the shared
/// `URLCache`, so `Cache-Control` and `ETag` revalidation work as URLSession does them).
///
/// Built to survive what URLSession on Linux does (see LINUX-URLSESSION.md in the design
/// notes):
/// - on Linux its session has no `URLCache` (a cancel racing a completion crashes a
///   session that has one): use `CacheInterceptor` for HTTP caching there;
/// - `cancel()` is issued asynchronously on a queue of its own, never from inside
///   URLSession's callbacks (disposing from a completion handler would do exactly that),
///   and never for a task that already finished;
/// - a request disposed before it starts never creates a task;
/// - the transport owns its session and invalidates it only when it is freed; every
///   observable `send` returns holds the transport, so no task is ever created on an
///   invalidated session (a fatal error in FoundationNetworking);
/// - Leash enforces timeouts itself, so URLSession's whole-second timeouts are not used;
/// - on Linux the transport applies the `Max-Age` of the cookies a response sets and drops
///   expired cookies before each request, which FoundationNetworking's cookie storage does
///   not (see `CookieExpiry`).
///
/// Answers arrive on the transport's queues: each request's events in order, different
/// requests' possibly in parallel (64 responses in flight are not decoded on one core). A
/// manager's `callbackQueue` is where an app wants callbacks one at a time.
///
/// On Linux the session's delegate queue runs URLSession's completion blocks in place (on
/// URLSession's work queue), and the transport hands each answer on with one
/// `DispatchQueue.async` to one of its delivery queues: the single hop an `OperationQueue`
/// delegate queue makes, without its operation objects and locks (which cost a URLSession
/// client more than the rest of Leash's pipeline) and without holding every request's
/// decoding to one thread. Nothing but that hand-off runs on URLSession's work queue: code
/// there must never wait for that queue (creating or cancelling a task does), or the
/// session deadlocks. On Apple platforms URLSession's own serial delegate queue delivers.
/// An `await`ing execution has its answer handed straight to its task instead
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
    // @unchecked: `URLSession` is thread-safe; the other properties are immutable.

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

    /// Where answers are handed to where URLSession shares one work queue (Linux; empty
    /// elsewhere): serial queues, one per core (at least two), taking requests in turn. Not
    /// one concurrent queue: serial queues run on libdispatch's overcommitting threads,
    /// which start at once, where a concurrent queue's work waits for a pool thread (about
    /// 5% of a request's time, one at a time).
    private let deliveryQueues: [DispatchQueue] =
        URLSessionPlatform.current.sharesOneWorkQueue
        ? (0..<max(2, ProcessInfo.processInfo.activeProcessorCount)).map {
            DispatchQueue(label: "leash.urlsession.delivery.\($0)")
        } : []
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
        delegate = PlainSessionDelegate(trust: trust)
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: Self.makeDelegateQueue())
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// The delegate-based session for transfers, made on the first one.
    private var transfers: TransferSession {
        transferSessionLock.withLock {
            if let existing = transferSession { return existing }
            let created = TransferSession(
                configuration: session.configuration, trust: delegate.trust, delegateQueue: Self.makeDelegateQueue())
            transferSession = created
            return created
        }
    }
    private let transferSessionLock = Lock()
    private var transferSession: TransferSession?

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
            guard request.destination == .stream else {
                return transport.transfers.start(
                    request, deliveryQueue: transport.nextDeliveryQueueForTransfer(),
                    cancelQueue: transport.cancelQueue, observer: observer)
            }
            // A stream lasts, and its subscriber may be slow: it gets a session (a work
            // queue) and a delivery queue of its own, so that a slow subscriber holds up no
            // other transfer's delivery (see `SlowSubscriberPolicy` for URLSession's own).
            let session = TransferSession(
                configuration: transport.session.configuration, trust: transport.delegate.trust,
                delegateQueue: Self.makeDelegateQueue())
            return session.start(
                request, deliveryQueue: DispatchQueue(label: "leash.urlsession.stream"),
                cancelQueue: transport.cancelQueue, observer: observer, ownsSession: true,
                slowSubscribers: transport.slowSubscribers)
        }
    }

    /// The queue one transfer's events are handed to: off URLSession's work queue.
    private func nextDeliveryQueueForTransfer() -> DispatchQueue {
        nextDeliveryQueue() ?? transferDeliveryQueue
    }

    /// The next of `deliveryQueues`, or `nil` where there are none (URLSession's delegate
    /// queue delivers).
    private func nextDeliveryQueue() -> DispatchQueue? {
        guard !deliveryQueues.isEmpty else { return nil }
        return deliveryQueues[(deliveryQueueTurn.add(1) & Int.max) % deliveryQueues.count]
    }

    /// Where transfers' events go where URLSession's delegate queue delivers (Apple
    /// platforms): off that queue, which runs every transfer's delegate calls.
    private let transferDeliveryQueue = DispatchQueue(label: "leash.urlsession.transfers")

    /// Sends `request` with a data task; disposing cancels the task.
    public func send(_ request: URLRequest) -> Observable<TransportResponse> {
        DataTaskObservable(transport: self, request: request).asObservable()
    }

    /// Starts a data task for `request` that reports to `observer` once, through `handoff`
    /// if there is one, else on the delivery queue; the returned task state is the
    /// disposable that cancels it. (Leash's pipeline calls this directly, saving the
    /// observable `send` wraps around it.)
    func start<Observer: ObserverType & SendableMetatype>(
        _ request: URLRequest, handoff: ResponseHandoff?, observer: Observer
    ) -> Disposable where Observer.Element == TransportResponse {
        let task = TaskState(cancelQueue: cancelQueue)
        let deliveryQueue = nextDeliveryQueue()
        // Reported from one thread, once: the observer is handed over, not shared.
        let observer = Carried(observer)
        // What the delegate learns about the task (metrics, a trust failure), where it can
        // learn anything: not on Linux without trust policies, which saves the bookkeeping.
        let delegate = self.delegate
        let report = delegate.needsReports ? TaskReport() : nil
        // Linux: no expired cookie is sent, and the response's Max-Age is applied (see CookieExpiry).
        let cookieExpiry = self.cookieExpiry
        cookieExpiry?.dropExpiredCookies(for: request)
        let dataTask = session.dataTask(with: request) { data, response, error in
            cookieExpiry?.applyMaxAge(of: response)
            if let report { delegate.finished(report) }
            // Only the first of completion and cancellation reports: after a dispose,
            // nothing is delivered.
            guard task.finish() else { return }
            let answer = Answer(data: data, response: response, error: error, report: report)
            let deliver: @Sendable () -> Void = { answer.report(to: observer.value) }
            if let handoff {
                handoff.hand(deliver)
            } else if let deliveryQueue {
                // Off URLSession's work queue, where the completion block runs.
                deliveryQueue.async(execute: deliver)
            } else {
                // Already on the session's delegate queue.
                deliver()
            }
        }
        if let report { delegate.register(report, for: dataTask) }
        // Never started (disposed first), the task never completes: forget its report.
        if !task.start(dataTask), let report { delegate.finished(report) }
        return task
    }

    /// Maps a URLSession error to a `LeashError`.
    static func leashError(for error: Swift.Error) -> LeashError {
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

/// What a data task's completion handler received, handed to the thread that reports it.
private struct Answer: @unchecked Sendable {
    // @unchecked: immutable values handed over once.
    let data: Data?
    let response: URLResponse?
    let error: Swift.Error?
    /// What the session's delegate learned about the task, if it was asked to keep it.
    let report: TaskReport?

    func report<Observer: ObserverType>(to observer: Observer) where Observer.Element == TransportResponse {
        if let error {
            // A task the trust policy stopped ends as cancelled: say why instead.
            observer.onError(report?.trustFailure ?? URLSessionTransport.leashError(for: error))
            return
        }
        guard let httpResponse = response as? HTTPURLResponse else {
            observer.onError(LeashError.invalidResponse(reason: "the response is not HTTP"))
            return
        }
        var answer = TransportResponse(httpResponse: httpResponse, data: data ?? Data())
        answer.metrics = report?.metrics
        observer.onNext(answer)
        observer.onCompleted()
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
        transport.start(request, handoff: nil, observer: AnyObserver(observer))
    }
}
