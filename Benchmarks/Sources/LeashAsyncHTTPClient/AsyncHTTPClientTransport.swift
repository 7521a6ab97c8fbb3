import AsyncHTTPClient
import Dispatch
import Foundation
import Leash
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A Leash `Transport` over AsyncHTTPClient (SwiftNIO's HTTP client), for a server that
/// runs SwiftNIO already and wants Leash's pipeline (interceptors, authentication, token
/// refresh, retries, timeouts) on the `HTTPClient` it has.
///
/// What it carries:
/// - plain requests (`send`): the method, the headers and an in-memory body
///   (`URLRequest.httpBody`); the response's status, headers and whole body, as a
///   `TransportResponse` (no metrics: AsyncHTTPClient measures none);
/// - transfers (`transfer`) through the protocol's default, built on `send`: an upload's
///   file is read into memory, the response arrives whole, a file destination is written
///   when it is complete (off the event loop, whatever `deliversOnEventLoop` says), a
///   stream destination gets the whole body as one chunk, and progress is reported once,
///   at the end. An endless stream (server-sent events) never ends here: use
///   `HTTP1Transport` for those;
/// - cancellation: disposing a request cancels its AsyncHTTPClient task, which closes the
///   connection of a request in flight;
/// - errors as `LeashError.transport`, with the `URLError` code URLSession uses for the
///   same trouble and AsyncHTTPClient's or SwiftNIO's error kept as the underlying error
///   (`NSUnderlyingErrorKey`): see `leashError(for:)`.
///
/// What it refuses, with a typed error before anything is sent: a request whose body is a
/// stream (`httpBodyStream`: `LeashError.encoding`), a request without a URL or with one
/// AsyncHTTPClient cannot parse (`LeashError.transport` with `.badURL` or
/// `.unsupportedURL`).
///
/// What stays with the `HTTPClient`: connections, TLS, proxies, HTTP/2, idle and connect
/// timeouts, decompression. Leash's pipeline follows redirects and answers challenges
/// itself, so a client handed in should not follow redirects (make it with
/// `recommendedConfiguration`): one that does hides the 3xx from Leash's redirect policy.
/// Cookies are neither sent nor stored (AsyncHTTPClient keeps none; a server usually wants
/// none kept).
///
/// Answers are handed to Leash on the event loop that received them, as AsyncHTTPClient
/// completes its futures: the pipeline's interceptors, the decoding and the callbacks of
/// `client.execute` and `client.rx` run there (an `await`ed execution resumes on Swift's
/// concurrency pool), so they must be quick and never block, as any code on an event loop.
/// A request started on a loop prefers a connection on that loop. Make the transport with
/// `deliversOnEventLoop: false` to hand answers off the loops instead, on a serial queue
/// of the transport's for each loop (as `HTTP1Transport` hands them off its connections'
/// queues): slow or blocking interceptors then never hold up a loop's other connections,
/// for two thread hops more per request in a chain of requests (measured in
/// peer-benchmarks, one request at a time: 1.5 to 1.9 times the client's CPU per request).
public final class AsyncHTTPClientTransport: Transport, Sendable {
    /// The client the requests go through.
    public let client: HTTPClient
    /// Whether `shutdown()` shuts `client` down (the transport made it).
    private let ownsClient: Bool
    /// Whether answers are handed to Leash on the event loop that received them.
    public var deliversOnEventLoop: Bool { delivery == nil }
    /// Where answers are handed when not on the event loop.
    private let delivery: Delivery?
    /// Where transfers' answers are handed: `delivery`, or queues of their own when answers
    /// are handed on the loop (the protocol's default `transfer` writes a file destination
    /// in the subscriber, which must not happen on an event loop).
    fileprivate let transferDelivery: Delivery

    /// The configuration Leash expects of an `HTTPClient`: redirects not followed (Leash's
    /// pipeline follows them, by its own policy), no connection attempt retried by the
    /// pool (a refused connection fails at once, and Leash's retry policy decides), and a
    /// `gzip` or `deflate` body undone (as URLSession and `HTTP1Transport` do; AsyncHTTPClient
    /// does not ask for one with `Accept-Encoding`, so it comes only when the app asks).
    ///
    /// No read timeout: Leash's own (`Manager.Builder.timeout`, `idleTimeout`) end a
    /// request exactly and cancel it here, and AsyncHTTPClient's costs a timer scheduled
    /// and cancelled on every request (measured: about 5% of the client's instructions per
    /// request in peer-benchmarks). Set `timeout.read` for a transport used without Leash's
    /// timeouts. Decompression costs about 3% there (a handler every read passes through):
    /// set `decompression = .disabled` where no body comes compressed.
    public static var recommendedConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .enabled(limit: .ratio(100))
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// A transport over `client`, which the caller keeps and shuts down (after the last
    /// request through this transport ended). Make it with `recommendedConfiguration`, or
    /// at least with `redirectConfiguration: .disallow`. `deliversOnEventLoop`: where
    /// answers are handed to Leash (see the type's notes).
    public init(client: HTTPClient, deliversOnEventLoop: Bool = true) {
        self.client = client
        ownsClient = false
        transferDelivery = Delivery(client.eventLoopGroup)
        delivery = deliversOnEventLoop ? nil : transferDelivery
    }

    /// A transport over a client of its own on SwiftNIO's singleton event loop group, with
    /// `configuration`; call `shutdown()` when done with it (AsyncHTTPClient requires its
    /// clients to be shut down before they are released). `deliversOnEventLoop`: where
    /// answers are handed to Leash (see the type's notes).
    public init(
        configuration: HTTPClient.Configuration = AsyncHTTPClientTransport.recommendedConfiguration,
        deliversOnEventLoop: Bool = true
    ) {
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        ownsClient = true
        transferDelivery = Delivery(client.eventLoopGroup)
        delivery = deliversOnEventLoop ? nil : transferDelivery
    }

    /// Shuts the client down if the transport made it (requests still running fail);
    /// does nothing for a client handed in, which its owner shuts down.
    public func shutdown() async throws {
        guard ownsClient else { return }
        try await client.shutdown()
    }

    /// `shutdown()`, blocking: never call it on an event loop.
    public func syncShutdown() throws {
        guard ownsClient else { return }
        try client.syncShutdown()
    }

    // MARK: Transport

    /// Sends `request`: one `TransportResponse`, or a `LeashError`; disposing cancels it.
    public func send(_ request: URLRequest) -> Observable<TransportResponse> {
        send(request, delivery: delivery)
    }

    /// Sends `request` through the protocol's default `transfer` (see the type's notes),
    /// its answer handed off the event loop.
    public func transfer(_ request: TransportRequest) -> Observable<TransportEvent> {
        OffLoopSends(transport: self).transfer(request)
    }

    /// `send`, answering through `delivery` (nil: on the event loop).
    fileprivate func send(_ request: URLRequest, delivery: Delivery?) -> Observable<TransportResponse> {
        let carried = CarriedRequest(request)
        return Observable.create { [self] observer in
            start(carried.request, observer: observer, delivery: delivery)
        }
    }

    /// Starts `request`, reporting to `observer` through `delivery`; returns what cancels it.
    private func start(_ request: URLRequest, observer: AnyObserver<TransportResponse>, delivery: Delivery?)
        -> Disposable
    {
        let prepared: (HTTPClient.Request, URL)
        do {
            prepared = try Self.clientRequest(for: request)
        } catch {
            observer.onError(error)
            return Disposables.create()
        }
        let exchange = Exchange(url: prepared.1, observer: observer, delivery: delivery)
        // The future API with a delegate of its own, not `execute(_:deadline:)` with
        // `HTTPClientRequest`: no Swift task and no async sequence per request, and the body
        // goes straight into the `Data` Leash hands on (measured: about 5% fewer
        // instructions per request, fewer thread hops). No deadline: Leash's pipeline
        // enforces its timeouts and cancels, and idle timeouts are the client's.
        // `.indifferent` on an event loop is that loop (AsyncHTTPClient takes the calling
        // thread's loop first).
        let task = client.execute(
            request: prepared.0, delegate: exchange, eventLoop: delivery?.preference() ?? .indifferent, logger: nil)
        exchange.started(task)
        return exchange
    }

    // MARK: Requests

    /// `request` as AsyncHTTPClient's request, and its URL; a typed error for what cannot be
    /// sent.
    static func clientRequest(for request: URLRequest) throws(LeashError) -> (HTTPClient.Request, URL) {
        guard let url = request.url else {
            throw .transport(URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "The request has no URL"]))
        }
        guard request.httpBodyStream == nil else {
            throw .encoding(
                reason: "AsyncHTTPClientTransport sends bodies from memory (httpBody), not from a stream",
                underlying: nil)
        }
        var headers = NIOHTTP1.HTTPHeaders()
        if let fields = request.allHTTPHeaderFields {
            headers.reserveCapacity(fields.count)
            for (name, value) in fields { headers.add(name: name, value: value) }
        }
        let body = request.httpBody.map { HTTPClient.Body.bytes($0) }
        do {
            let converted = try HTTPClient.Request(
                url: url, method: NIOHTTP1.HTTPMethod(rawValue: request.httpMethod ?? "GET"), headers: headers,
                body: body)
            return (converted, url)
        } catch let error as HTTPClientError where error == .unsupportedScheme(url.scheme ?? "") {
            throw .transport(URLError(.unsupportedURL, userInfo: [NSUnderlyingErrorKey: error]))
        } catch {
            throw leashError(for: error)
        }
    }

    // MARK: Errors

    /// `error`, from AsyncHTTPClient or SwiftNIO, as the `LeashError` a request ends with: a
    /// `LeashError.transport` whose `URLError` has the code URLSession uses for the same
    /// trouble, and `error` as its underlying error.
    ///
    /// - refused or unreachable: `.cannotConnectToHost` (a name that does not resolve:
    ///   `.cannotFindHost`);
    /// - any timeout (connect, read, write, TLS handshake, the client's deadline, waiting
    ///   for a connection from the pool): `.timedOut`;
    /// - the connection closed or reset before the response was whole: `.networkConnectionLost`;
    /// - a response the parser refused: `.badServerResponse`; a body that cannot be
    ///   decompressed: `.cannotDecodeContentData`;
    /// - a URL AsyncHTTPClient cannot use: `.badURL` or `.unsupportedURL`;
    /// - TLS failures (SwiftNIO SSL's errors): `.secureConnectionFailed`;
    /// - a cancelled task (the client shut down under it): `LeashError.cancelled`;
    /// - anything else: `.unknown`.
    public static func leashError(for error: Swift.Error) -> LeashError {
        if let error = error as? LeashError { return error }
        if let error = error as? HTTPClientError, error == .cancelled { return .cancelled }
        return .transport(URLError(urlErrorCode(for: error), userInfo: [NSUnderlyingErrorKey: error]))
    }

    /// The `URLError` code for `error` (see `leashError(for:)`).
    static func urlErrorCode(for error: Swift.Error) -> URLError.Code {
        switch error {
        case let error as HTTPClientError: return code(for: error)
        case let error as ChannelError: return code(for: error)
        case let error as IOError: return code(forErrno: error.errnoCode)
        case let error as NIOConnectionError:
            // Every address tried failed: the first attempt's error says why; no attempt at
            // all means the name did not resolve.
            guard let first = error.connectionErrors.first else { return .cannotFindHost }
            let code = urlErrorCode(for: first.error)
            return code == .unknown ? .cannotConnectToHost : code
        case let error as HTTPParserError:
            // The connection closed before the body announced was whole: lost, as retry rules
            // know it; anything else the parser refused is a bad response.
            return error == .invalidEOFState || error == .closedConnection ? .networkConnectionLost : .badServerResponse
        default:
            // SwiftNIO SSL's and the decompressor's errors, recognised by their modules' names
            // so that this target need not name swift-nio-ssl and swift-nio-extras among its
            // dependencies for a few types.
            let type = String(reflecting: type(of: error))
            if type.hasPrefix("NIOSSL.") { return .secureConnectionFailed }
            if type.hasPrefix("NIOHTTPCompression.") { return .cannotDecodeContentData }
            return .unknown
        }
    }

    private static func code(for error: HTTPClientError) -> URLError.Code {
        switch error {
        case .readTimeout, .writeTimeout, .connectTimeout, .deadlineExceeded, .tlsHandshakeTimeout,
            .socksHandshakeTimeout, .httpProxyHandshakeTimeout, .getConnectionFromPoolTimeout:
            return .timedOut
        case .remoteConnectionClosed: return .networkConnectionLost
        case .invalidURL, .emptyHost, .missingSocketPath, .emptyScheme: return .badURL
        case .invalidProxyResponse: return .badServerResponse
        case .proxyAuthenticationRequired: return .userAuthenticationRequired
        default: return .unknown
        }
    }

    private static func code(for error: ChannelError) -> URLError.Code {
        switch error {
        case .connectTimeout: return .timedOut
        case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed: return .networkConnectionLost
        case .writeHostUnreachable: return .cannotConnectToHost
        default: return .unknown
        }
    }

    private static func code(forErrno errno: CInt) -> URLError.Code {
        switch errno {
        case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EHOSTDOWN, ENETDOWN, EADDRNOTAVAIL: return .cannotConnectToHost
        case ECONNRESET, EPIPE, ECONNABORTED, ENOTCONN: return .networkConnectionLost
        case ETIMEDOUT: return .timedOut
        default: return .unknown
        }
    }
}

/// The transport's sends with answers off the event loop, for the protocol's default
/// `transfer`, which is built on `send`.
private struct OffLoopSends: Transport {
    let transport: AsyncHTTPClientTransport

    func send(_ request: URLRequest) -> Observable<TransportResponse> {
        transport.send(request, delivery: transport.transferDelivery)
    }
}

/// A request carried into `Observable.create`'s sendable closure.
private struct CarriedRequest: @unchecked Sendable {
    // @unchecked: `URLRequest` is a value, only read; it is not `Sendable` on every platform.
    let request: URLRequest

    init(_ request: URLRequest) {
        self.request = request
    }
}

/// Where a transport hands answers off the event loops: a serial queue for each loop of
/// its client's group, the answers of a loop on its queue.
///
/// A request started on one of these queues (the next request of a chain, started by the
/// answer to the one before) asks AsyncHTTPClient for the queue's loop
/// (`.delegate(on:)`): the pool then prefers a connection on that loop, the one the answer
/// just came from, which is idle now. With `.indifferent` off a loop, AsyncHTTPClient takes
/// the group's next loop in turn, and when that is not the connection's loop, every step
/// of the request hops between the two loops (measured in peer-benchmarks, answers off
/// the loop: about 2% fewer instructions per request this way with 64 in flight, and less
/// CPU one at a time).
private final class Delivery: Sendable {
    private let loops: [any EventLoop]
    private let queues: [DispatchQueue]
    /// Marks the queues, with their loop's index, and this transport's queues only.
    private let key = DispatchSpecificKey<Int>()

    init(_ group: any EventLoopGroup) {
        loops = Array(group.makeIterator())
        queues = loops.indices.map { DispatchQueue(label: "leash.asynchttpclient.delivery.\($0)") }
        for (index, queue) in queues.enumerated() { queue.setSpecific(key: key, value: index) }
    }

    /// The queue for answers that arrived on `loop`.
    func queue(for loop: any EventLoop) -> DispatchQueue {
        queues[loops.firstIndex { $0 === loop } ?? 0]
    }

    /// The event loop a request started on the calling thread should prefer.
    func preference() -> HTTPClient.EventLoopPreference {
        guard let index = DispatchQueue.getSpecific(key: key) else { return .indifferent }
        return .delegate(on: loops[index])
    }
}

/// One request in flight: AsyncHTTPClient's delegate for it (collecting the head and the
/// body on the event loop), the observer it reports to, and the disposable that cancels it.
private final class Exchange: HTTPClientResponseDelegate, Disposable, @unchecked Sendable {
    // @unchecked: `head` and `body` are touched only by AsyncHTTPClient's calls of the
    // delegate, one after another on one event loop; `state` is behind its lock; the rest is
    // immutable.
    typealias Response = TransportResponse

    /// Where the request is: whether its answer was handed on (or it was disposed), and the
    /// task to cancel until then.
    private enum State {
        case created
        case running(HTTPClient.Task<TransportResponse>)
        case ended
    }

    private let url: URL
    private let observer: AnyObserver<TransportResponse>
    private let delivery: Delivery?
    private let state = NIOLockedValueBox(State.created)
    private var head: HTTPResponseHead?
    private var body = Data()

    init(url: URL, observer: AnyObserver<TransportResponse>, delivery: Delivery?) {
        self.url = url
        self.observer = observer
        self.delivery = delivery
    }

    /// The task is running: from now on a dispose cancels it; one that came before it
    /// cancels it at once.
    func started(_ task: HTTPClient.Task<TransportResponse>) {
        let disposedAlready = state.withLockedValue { state -> Bool in
            guard case .created = state else { return true }
            state = .running(task)
            return false
        }
        if disposedAlready {
            task.cancel()
            return
        }
        task.futureResult.whenComplete { [self] result in
            // Ended here, so that the dispose the observer's terminal event makes does not
            // cancel a finished task (which costs a hop to the event loop when it comes from
            // a delivery queue).
            let live = state.withLockedValue { state -> Bool in
                guard case .running = state else { return false }
                state = .ended
                return true
            }
            guard live else { return }
            if let queue = delivery?.queue(for: task.eventLoop) {
                queue.async { [self] in deliver(result) }
            } else {
                deliver(result)
            }
        }
    }

    private func deliver(_ result: Result<TransportResponse, Swift.Error>) {
        switch result {
        case .success(let response):
            observer.onNext(response)
            observer.onCompleted()
        case .failure(let error):
            observer.onError(AsyncHTTPClientTransport.leashError(for: error))
        }
    }

    // MARK: Disposable

    func dispose() {
        let task = state.withLockedValue { state -> HTTPClient.Task<TransportResponse>? in
            defer { state = .ended }
            guard case .running(let task) = state else { return nil }
            return task
        }
        task?.cancel()
    }

    // MARK: HTTPClientResponseDelegate

    func didReceiveHead(task: HTTPClient.Task<TransportResponse>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        self.head = head
        if let length = head.headers.first(name: "Content-Length").flatMap(Int.init), length > 0 {
            // At most what the memory of a plain request would hold anyway; a lying header
            // costs a reservation, not a crash (the body still has to arrive).
            body.reserveCapacity(min(length, 1 << 24))
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<TransportResponse>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        buffer.withUnsafeReadableBytes { body.append(contentsOf: $0) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<TransportResponse>) throws -> TransportResponse {
        guard let head else { throw LeashError.invalidResponse(reason: "AsyncHTTPClient finished without a head") }
        var fields: [String: String] = [:]
        fields.reserveCapacity(head.headers.count)
        var names: [String] = []
        names.reserveCapacity(head.headers.count)
        for (name, value) in head.headers {
            // A field sent several times is joined with ", " under the first spelling of its
            // name, as `HTTPURLResponse` keeps fields (and `HTTP1Transport` does). Heads are
            // short: comparing bytes with the names before costs less than lowercasing each.
            if let first = names.first(where: { Self.namesEqual($0, name) }) {
                fields[first] = (fields[first].map { $0 + ", " } ?? "") + value
            } else {
                names.append(name)
                fields[name] = value
            }
        }
        let version = "HTTP/\(head.version.major).\(head.version.minor)"
        guard
            let response = HTTPURLResponse(
                url: url, statusCode: Int(head.status.code), httpVersion: version, headerFields: fields)
        else {
            throw LeashError.invalidResponse(reason: "Foundation refused the response's head (\(head.status.code))")
        }
        return TransportResponse(httpResponse: response, data: body)
    }

    /// Whether two header names are equal ignoring ASCII case (RFC 9110 §5.1).
    private static func namesEqual(_ left: String, _ right: String) -> Bool {
        left.utf8.count == right.utf8.count
            && zip(left.utf8, right.utf8).allSatisfy { a, b in
                a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= 0x61 && (a | 0x20) <= 0x7A)
            }
    }
}
