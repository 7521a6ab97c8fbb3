import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Rx

/// The configuration every execution of a `Client` shares: where the API is, how
/// requests are authenticated, encoded, decoded, validated and sent, and the
/// interceptors that guide each request.
///
/// ```swift
/// let manager = try Manager.Builder()
///     .url("http://localhost:8080/api")
///     .authenticator(authenticator)
///     .add(interceptor: LoggerInterceptor())
///     .timeout(15)
///     .build()
/// let client = Client(manager: manager)
/// ```
///
/// A manager is immutable once built. It is `@unchecked Sendable` because the
/// authenticator and interceptors it holds are the app's own objects, which Leash's API
/// (as Leash's always did) lets be plain classes; Leash only reads them.
public final class Manager: @unchecked Sendable {
    /// The base URL every endpoint path is appended to.
    public let baseURL: URL
    /// Adds the credential to every request, if set.
    public let authenticator: Authenticator?
    /// The interceptors, in the order they were added.
    public let interceptors: [Interceptor]
    /// Encodes `Encodable` parameters.
    public let jsonEncoder: JSONEncoder
    /// How arrays and booleans are written in URL queries and `FormURLEncoded` bodies.
    public let urlEncoding: URLEncodingOptions
    /// Decodes responses.
    public let jsonDecoder: JSONDecoder
    /// Headers sent with every request (endpoint headers override them).
    public let defaultHeaders: [String: String]
    /// The longest an execution may take, including interceptors and retries of one
    /// attempt; `nil` for no limit. Enforced by Leash, to the millisecond.
    public let timeout: TimeInterval?
    /// The longest an execution may go without a byte sent or received (or a response
    /// head); `nil` for no limit. For uploads and downloads the `timeout` takes this role
    /// when it is `nil`.
    public let idleTimeout: TimeInterval?
    /// The status codes that count as success; others become
    /// `LeashError.unacceptableStatusCode` unless an interceptor handles them.
    public let acceptableStatusCodes: Set<Int>
    /// Sends the requests.
    public let transport: Transport
    /// Where callbacks and values are delivered; `nil` delivers on the transport's queue.
    /// Never the main queue by default: command-line programs and servers do not run it.
    public let callbackQueue: DispatchQueue?
    /// How many times one execution may be restarted (by `InterceptorChain.retry()`,
    /// `ExecutionContext.retry(after:)` or a retrying interceptor). Whether a retry is left
    /// is decided in one place, `allowsRetry(afterAttempt:)`; interceptors ask
    /// `InterceptorChain.canRetry` or `ExecutionContext.canRetry`.
    public let maximumRetryCount: Int
    /// Where Leash's own timers (timeouts) run. A `TestScheduler` makes them virtual.
    public let scheduler: SchedulerType
    /// What every attempt waits for before its request is built, asked in order.
    public let requestGates: [RequestGate]
    /// What executions do when redirected, unless their endpoint says otherwise (by
    /// default `.follow`: up to 20 hops).
    public let redirectPolicy: RedirectPolicy
    /// The most requests to one host (and port) at the transport at once; more wait in the
    /// manager's queue, in order, and a request that waits there when its execution ends
    /// is never sent (see `Builder.maximumRequests(perHost:total:)`). `nil`: no limit (the
    /// default for a transport other than `URLSessionTransport`).
    public let maximumRequestsPerHost: Int?
    /// The most requests at the transport at once, to all hosts; `nil`: no limit.
    public let maximumRequests: Int?
    /// What requests do when a server demands credentials (by default `.none`: a 401 or
    /// 407 is a response like any other, on every platform).
    public let credentials: CredentialHandling
    /// The queue in front of the transport (see `RequestDispatcher`).
    let dispatcher: RequestDispatcher?
    /// The interceptors sorted by kind.
    let interceptorSet: InterceptorSet
    /// The base URL's string without a trailing slash, for joining paths without parsing
    /// it again; `nil` if it has a query or fragment (then paths are joined in full).
    package let baseURLPrefix: String?

    init(builder: Builder, baseURL: URL) {
        self.baseURL = baseURL
        self.authenticator = builder.authenticatorValue
        self.interceptors = builder.interceptorList
        self.jsonEncoder = builder.encoder
        self.urlEncoding = builder.urlEncoding
        self.jsonDecoder = builder.decoder
        self.defaultHeaders = builder.headers.dictionary
        self.timeout = builder.timeoutValue
        self.idleTimeout = builder.idleTimeoutValue
        self.acceptableStatusCodes = builder.statusCodes
        let transport = builder.transportValue ?? Manager.defaultTransport
        self.transport = transport
        // A sharing transport is not sent through: its flights become the pipeline's and the
        // transport it wraps is run as any other (see `RequestSharingTransport`).
        var sender = transport
        var flights = builder.sharesInFlight ? InFlightRequests() : nil
        while let sharing = sender as? RequestSharingTransport {
            flights = flights ?? sharing.flights
            sender = sharing.base
        }
        self.sender = sender
        self.flights = flights
        (sender as? JSONEncoderAdopting)?.adopt(jsonEncoder: builder.encoder)
        self.directTransport = sender as? DirectTransport
        self.callbackQueue = builder.queue
        self.maximumRetryCount = builder.retryLimit
        self.redirectPolicy = builder.redirectPolicyValue
        self.scheduler = builder.schedulerValue ?? Manager.timerScheduler
        self.deadlines = builder.schedulerValue == nil ? DeadlineTimer.shared : nil
        self.requestGates = builder.gates
        self.credentials = builder.credentialHandling
        self.transferDirectory = builder.transferDirectoryValue ?? ExecutionTransfer.defaultDirectory
        // The transports that connect are what the limits keep requests out of (URLSession's
        // own queue, `HTTP1Transport`'s pool): other transports (a `StubTransport`) have none
        // unless asked.
        if builder.limitsRequests || sender is URLSessionTransport || sender is HTTP1Transport {
            let perHost = builder.perHostLimit ?? Self.connectionLimit(of: sender)
            let total = max(perHost, builder.totalLimit)
            self.maximumRequestsPerHost = perHost
            self.maximumRequests = total
            self.dispatcher = RequestDispatcher(perHost: perHost, total: total)
        } else {
            self.maximumRequestsPerHost = nil
            self.maximumRequests = nil
            self.dispatcher = nil
        }
        self.interceptorSet = InterceptorSet(builder.interceptorList)
        self.baseAuthority = Self.authority(of: baseURL)
        let components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)
        if let components, components.percentEncodedQuery == nil, components.percentEncodedFragment == nil {
            let string = baseURL.absoluteString
            self.baseURLPrefix = string.hasSuffix("/") ? String(string.dropLast()) : string
        } else {
            self.baseURLPrefix = nil
        }
    }

    /// The base URL's `scheme://host[:port]`, and the dispatcher's key for that host: most
    /// requests go there, and comparing a prefix costs less than parsing each request's host.
    private let baseAuthority: (prefix: String, key: String)?

    /// `url`'s `scheme://host[:port]` as it is written in its string, and its host's key;
    /// `nil` if the string does not begin so (user info, say).
    private static func authority(of url: URL) -> (prefix: String, key: String)? {
        guard let scheme = url.scheme, let host = url.host else { return nil }
        var prefix = scheme + "://" + host
        if let port = url.port { prefix += ":" + String(port) }
        guard url.absoluteString.hasPrefix(prefix) else { return nil }
        return (prefix, RequestDispatcher.hostKey(of: URLRequest(url: url)))
    }

    /// The dispatcher's key for `request`'s host (see `RequestDispatcher.hostKey(of:)`).
    func dispatcherKey(for request: URLRequest) -> String {
        if let baseAuthority, let url = request.url {
            let string = url.absoluteString
            if string.hasPrefix(baseAuthority.prefix) {
                // The authority ends there: "http://a.com" must not take "http://a.com.evil".
                switch string.utf8.dropFirst(baseAuthority.prefix.utf8.count).first {
                case nil, UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"): return baseAuthority.key
                default: break
                }
            }
        }
        return RequestDispatcher.hostKey(of: request)
    }

    /// How many connections `transport` opens to one host: its session's
    /// `httpMaximumConnectionsPerHost` for a `URLSessionTransport` (6 by default; on iOS 4
    /// unless configured), so that no request ever queues inside URLSession; an
    /// `HTTP1Transport`'s `maximumConnectionsPerHost`; 6 for others.
    static func connectionLimit(of transport: Transport) -> Int {
        if let http1 = transport as? HTTP1Transport { return max(1, http1.configuration.maximumConnectionsPerHost) }
        guard let urlSession = transport as? URLSessionTransport else { return 6 }
        return max(1, urlSession.configuration.httpMaximumConnectionsPerHost)
    }

    /// The transport of a manager that sets none: Leash's own `HTTP1Transport` on Linux
    /// (FoundationNetworking crashes on some server faults, re-sends bodiless copies of
    /// requests, and is slower: see the Linux Notes article), URLSession elsewhere. (A Linux
    /// build that takes Apple platforms' branches, `LEASH_APPLE_BRANCHES`, takes URLSession
    /// too, so that CI runs every test through the transport Apple platforms use.)
    public static var defaultTransport: Transport {
        #if os(Linux) && !LEASH_APPLE_BRANCHES
            HTTP1Transport.shared
        #else
            URLSessionTransport.shared
        #endif
    }

    /// Where the files of transfers in progress are kept (see
    /// `Builder.transferDirectory(_:)`).
    let transferDirectory: URL

    /// `sender`, if the pipeline can start it directly (found once, here, rather than
    /// with a cast per request).
    let directTransport: DirectTransport?
    /// The transport requests go to: `transport`, or the one a sharing transport wraps.
    let sender: Transport
    /// The identical GETs in flight, when this manager shares them (`sharesRequestsInFlight()`,
    /// or a `SharingTransport` given as its transport): joined before the request limits.
    let flights: InFlightRequests?

    /// Where deadlines are kept on the default scheduler (`nil` on another, which runs
    /// them itself: a `TestScheduler`, in virtual time).
    let deadlines: DeadlineTimer?

    /// Runs `action` after `seconds`, on the manager's scheduler, unless the returned
    /// disposable is disposed first.
    func deadline(after seconds: TimeInterval, action: @escaping @Sendable () -> Void) -> Disposable {
        if let deadlines { return deadlines.schedule(after: seconds, action: action) }
        let milliseconds = Int((seconds * 1000).rounded(.up))
        return scheduler.scheduleRelative((), dueTime: .milliseconds(milliseconds)) { _ in
            action()
            return Disposables.create()
        }
    }

    /// The executions in flight, for `cancelAll()`.
    package let executions = ExecutionRegistry()

    /// Cancels every execution in flight that a client of this manager started, in every
    /// form: `client.rx` subscriptions, callbacks (`execute`, `upload`, `download`),
    /// `await client.execute`, transfers and streams. On logout, say.
    ///
    /// Each ends with `LeashError.cancelled`, which its subscriber, callback or awaiting
    /// task receives (unlike a dispose, after which nothing is delivered), and what it had
    /// in flight is cancelled: the transport's request (the server sees the connection
    /// close), a timer, a wait for a token refresh. Executions started after this call run
    /// as usual. An execution whose last value is being delivered is no longer in flight
    /// (as its timeout, `cancelAll()` is met by it): it completes, and its subscriber never
    /// sees that value followed by `LeashError.cancelled`.
    ///
    /// ```swift
    /// func logOut() {
    ///     tokens.token = nil
    ///     manager.cancelAll()  // every request in flight fails with LeashError.cancelled
    /// }
    /// ```
    public func cancelAll() {
        // The requests waiting for a place first: a place that frees up while the
        // executions are cancelled one by one must not send one of them.
        dispatcher?.cancelWaiting()
        executions.cancelAll()
    }

    /// The default `scheduler`: `Rx`'s concurrent dispatch scheduler, whose timers free
    /// their action as soon as they are disposed (a minute-long timeout must not keep a
    /// finished execution alive for a minute).
    static let timerScheduler = ConcurrentDispatchQueueScheduler(qos: .default)
}

extension Manager {
    /// Whether an execution whose attempt `attempt` (from 1) asks to start over may run
    /// another attempt: the one place the retry limit is checked. `retry()` on a chain,
    /// a context's retry and the retrying interceptors and loggers' forecasts all ask it.
    public func allowsRetry(afterAttempt attempt: Int) -> Bool {
        attempt <= maximumRetryCount
    }
}
