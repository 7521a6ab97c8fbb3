import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Leash's own HTTP/1.1 client: requests over Leash's byte streams (the sockets its
/// WebSockets run on), with kept-alive connections. The default transport on Linux, where
/// it replaces FoundationNetworking (see the Linux Notes article); available on every
/// platform.
///
/// Named for what it speaks: HTTP/1.1 only (no HTTP/2: each connection carries one request
/// at a time, where URLSession on Apple platforms multiplexes many over one HTTP/2
/// connection).
///
/// What it does:
/// - `http` and `https` (TLS verified against the system's authorities, plus
///   `Configuration.additionalTrustedAuthorities`), through the HTTP proxies the environment
///   names: `http_proxy` for `http` (requests in absolute form), `https_proxy` for `https`
///   (a `CONNECT` tunnel, on Linux), `all_proxy` for both, `no_proxy` for the hosts reached
///   directly (see `HTTPProxyEnvironment`);
/// - kept-alive connections, at most `maximumConnectionsPerHost` per host and
///   `maximumConnections` in all (a manager's request limits default to these), closed
///   after `idleConnectionTimeout` unused;
/// - bodies framed by `Content-Length`, chunked, or the connection's close; `gzip` and
///   `deflate` undone; request bodies from memory, files and streams (chunked when their
///   length is unknown), with `Expect: 100-continue` from 1 MB;
/// - cookies in `Configuration.cookieStorage` (`Max-Age`, `Expires`, `Path`, `Secure`);
/// - progress both ways, streams paced by their subscriber (nothing is read from the socket
///   while a chunk is being handed on), downloads written to disk as they arrive;
/// - metrics (`TransportResponse.metrics`) for every response.
///
/// What it promises:
/// - no input from the network crashes the process: every parser is bounded
///   (`HTTP1ParserLimits`) and every malformed or truncated response ends the request with
///   a `LeashError.transport` whose `URLError` says what was wrong;
/// - a request is sent once: if its connection fails after any byte of it was written, the
///   request ends with an error (`.networkConnectionLost`), and only the pipeline's retry
///   rules may send it again. A kept-alive connection found closed before the request is
///   written (the server closed it while idle) is never used, and one that fails on the
///   first write, with nothing written, is replaced by a new one, once.
///
/// Redirects, authentication challenges and caching are the pipeline's, as with any
/// transport: a 3xx, 401 or 407 is the response.
public final class HTTP1Transport: DirectTransport, @unchecked Sendable {
    // @unchecked: immutable; the pool keeps its state behind its lock; `HTTPCookieStorage`
    // is thread-safe.

    /// How a transport connects and keeps connections.
    public struct Configuration: @unchecked Sendable {
        // @unchecked: `HTTPCookieStorage` is thread-safe but not `Sendable` on every platform.

        /// The most connections to one host (and port) at once: 6 by default, as browsers and
        /// URLSession. A manager's `maximumRequestsPerHost` defaults to it.
        public var maximumConnectionsPerHost: Int = 6
        /// The most connections at once, to all hosts (idle ones included).
        public var maximumConnections: Int = 64
        /// How long a kept-alive connection may stay unused before it is closed.
        public var idleConnectionTimeout: TimeInterval = 60
        /// Where cookies are kept; nil sends and keeps none. By default the shared storage,
        /// as URLSession's default configuration.
        public var cookieStorage: HTTPCookieStorage? = .shared
        /// A PEM file of certificate authorities trusted for `https` besides the system's
        /// (tests and private authorities).
        public var additionalTrustedAuthorities: URL?
        /// Whether `http_proxy`, `no_proxy` and their kin are read from the environment.
        public var usesEnvironmentProxies = true
        /// How long a request with `Expect: 100-continue` waits for the server's go-ahead
        /// before it sends its body anyway.
        public var continueTimeout: TimeInterval = 1
        /// What a stream does when its subscriber falls behind. Each stream has a connection
        /// of its own, so holding one back (nothing more is read until the subscriber
        /// catches up) holds no other request back: by default it holds back as long as the
        /// subscriber needs (`.holdBack`).
        public var slowSubscribers: SlowSubscriberPolicy = .holdBack

        /// The default configuration.
        public init() {}
    }

    /// A transport shared by every manager that does not set its own (on Linux, the
    /// default transport).
    public static let shared = HTTP1Transport()

    /// How it connects and keeps connections.
    public let configuration: Configuration
    let pool: HTTP1ConnectionPool
    private let cookies: HTTP1Cookies?
    private let proxies: HTTPProxyEnvironment?
    private let limits: HTTP1ParserLimits
    /// Where plain answers are reported, off the connections' queues: serial queues, one per
    /// core (at least two), taking requests in turn (as `URLSessionTransport`'s).
    private let deliveryQueues: [DispatchQueue] = (0..<max(2, ProcessInfo.processInfo.activeProcessorCount)).map {
        DispatchQueue(label: "leash.http1.delivery.\($0)")
    }
    /// Whose turn it is among `deliveryQueues`.
    private let deliveryQueueTurn = AtomicInt(0)

    /// The next of `deliveryQueues`.
    private func nextDeliveryQueue() -> DispatchQueue {
        deliveryQueues[(deliveryQueueTurn.add(1) & Int.max) % deliveryQueues.count]
    }

    /// A transport with `configuration`.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(
            configuration: configuration, connector: WebSocketByteStreams.connector,
            proxies: configuration.usesEnvironmentProxies ? HTTPProxyEnvironment() : nil)
    }

    /// A transport that opens its connections with `connector` (tests).
    package init(
        configuration: Configuration, connector: any WebSocketByteStreamConnector, proxies: HTTPProxyEnvironment?,
        limits: HTTP1ParserLimits = .default
    ) {
        self.configuration = configuration
        pool = HTTP1ConnectionPool(
            connector: connector, perHost: configuration.maximumConnectionsPerHost,
            total: configuration.maximumConnections, idleTimeout: configuration.idleConnectionTimeout)
        cookies = configuration.cookieStorage.map(HTTP1Cookies.init(storage:))
        self.proxies = proxies
        self.limits = limits
    }

    /// Closes the connections kept alive and unused.
    public func closeIdleConnections() {
        pool.closeIdleConnections()
    }

    // MARK: Transport

    /// Sends `request`; disposing cancels it (its connection is closed).
    public func send(_ request: URLRequest) -> Observable<TransportResponse> {
        let transport = self
        let carried = Carried(request)
        return Observable.create { observer in
            let prepared = transport.exchange(
                carried.value, options: DirectRequestOptions(), observer: observer, limited: true)
            prepared.launch()
            return prepared
        }
    }

    /// Sends `request`, reporting its bytes as they move (see `Transport.transfer(_:)`).
    public func transfer(_ request: TransportRequest) -> Observable<TransportEvent> {
        let transport = self
        return Observable.create { observer in
            let prepared = transport.transferExchange(
                request, options: DirectRequestOptions(), observer: observer, limited: true)
            prepared.launch()
            return prepared
        }
    }

    /// Prepares `request` for Leash's pipeline. The manager's dispatcher governs how many of
    /// its requests run at once (and streams run outside its limits, as on URLSession, where
    /// each has a session of its own), so the pool's own limits do not hold it back.
    func prepare<Observer: ObserverType & SendableMetatype>(
        _ request: URLRequest, options: DirectRequestOptions, observer: Observer
    ) -> PreparedRequest where Observer.Element == TransportResponse {
        exchange(request, options: options, observer: observer, limited: false)
    }

    /// Prepares the transfer `request` for Leash's pipeline (see `prepare`).
    func prepareTransfer(
        _ request: TransportRequest, options: DirectRequestOptions, observer: AnyObserver<TransportEvent>
    ) -> PreparedRequest {
        transferExchange(request, options: options, observer: observer, limited: false)
    }

    /// An exchange for a plain request; `limited` if the pool's limits hold it back (a
    /// request made on the transport itself).
    private func exchange<Observer: ObserverType & SendableMetatype>(
        _ request: URLRequest, options: DirectRequestOptions, observer: Observer, limited: Bool
    ) -> PreparedRequest where Observer.Element == TransportResponse {
        let output = HTTP1PlainOutput(observer: observer, handoff: options.handoff, deliveryQueue: nextDeliveryQueue())
        return HTTP1Exchange(
            plan: plan(request, file: nil), pool: pool, cookies: cookies, output: output,
            sink: HTTP1ResponseSink(plainOutput: output), limits: limits, place: options.place,
            continueTimeout: continueTimeout, credentials: options.credentials, planner: planner, limited: limited)
    }

    /// An exchange for a transfer (see `exchange`).
    private func transferExchange(
        _ request: TransportRequest, options: DirectRequestOptions, observer: AnyObserver<TransportEvent>,
        limited: Bool
    ) -> PreparedRequest {
        var urlRequest = request.urlRequest
        let requestedOffset = TransferBodyPlan.requestRange(for: request.destination, in: &urlRequest)
        var file: URL?
        if case .file(let url) = request.body { file = url }
        let output = HTTP1TransferOutput(observer)
        return HTTP1Exchange(
            plan: plan(urlRequest, file: file), pool: pool, cookies: cookies, output: output,
            sink: HTTP1ResponseSink(request: request, requestedOffset: requestedOffset, output: output),
            limits: limits, place: options.place, continueTimeout: continueTimeout, credentials: options.credentials,
            planner: planner, limited: limited, slowSubscribers: configuration.slowSubscribers)
    }

    /// Plans a request again (to answer a challenge).
    private var planner: HTTP1Exchange.Planner {
        { [self] request, file in plan(request, file: file) }
    }

    private var continueTimeout: DispatchTimeInterval {
        .milliseconds(Int(max(0, configuration.continueTimeout) * 1000))
    }

    // MARK: Planning

    /// What an exchange needs to send `request` (with its body from `file`, if given), or
    /// why it cannot be sent.
    func plan(_ request: URLRequest, file: URL?) -> Result<HTTP1Exchange.Plan, LeashError> {
        do throws(LeashError) {
            guard let url = request.url else {
                throw LeashError.transport(
                    URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "The request has no URL"]))
            }
            let target = try HTTP1Target(url)
            let body = try Self.body(of: request, file: file)
            let proxy = proxies?.proxy(scheme: target.scheme, host: target.host, port: target.port)
            let route = HTTP1Route(
                address: WebSocketAddress(
                    host: target.host, port: target.port, isSecure: target.isSecure,
                    additionalTrustedAuthorities: target.isSecure ? configuration.additionalTrustedAuthorities : nil),
                proxy: proxy)
            let cookieHeader = request.httpShouldHandleCookies ? cookies?.header(for: target, url: url) : nil
            let method = request.httpMethod ?? "GET"
            let head = try HTTP1RequestHead.make(
                method: method, target: target, headers: request.allHTTPHeaderFields ?? [:], body: body,
                absoluteForm: proxy != nil && !target.isSecure,
                proxyAuthorization: target.isSecure ? nil : proxy?.authorization, cookieHeader: cookieHeader)
            return .success(
                HTTP1Exchange.Plan(
                    url: url, method: method, target: target, route: route, head: head, body: body,
                    headerBytes: Int64(head.bytes.count), request: request, file: file))
        } catch {
            return .failure(error)
        }
    }

    /// Where `request`'s body comes from.
    private static func body(of request: URLRequest, file: URL?) throws(LeashError) -> HTTP1RequestBody {
        if let file {
            guard FileManager.default.isReadableFile(atPath: file.path) else {
                throw .fileAccess(
                    reason: "the upload's file does not exist or cannot be read", url: file, underlying: nil)
            }
            return .file(file, size: BodyFileWriter.existingSize(of: file))
        }
        if let data = request.httpBody { return .data(data) }
        if let stream = request.httpBodyStream {
            let length = request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
            return .stream(stream, length: length.flatMap { $0 >= 0 ? $0 : nil })
        }
        return .none
    }
}
