import Foundation

/// An HTTP/1.1 server on 127.0.0.1 with scripted routes, for integration tests,
/// benchmarks and playgrounds.
///
/// ```swift
/// let server = try LoopbackServer(routes: [.get("/user") { _ in .json(User(id: 1)) }])
/// server.start()
/// defer { server.stop() }
/// server.routeSequence(method: "GET", path: "/me", [.status(401), .json(me)])
/// // … requests to server.baseURL …
/// XCTAssertTrue(server.waitUntil(timeout: 5) { $0.clientDisconnectCount >= 1 })
/// ```
///
/// `init` binds an ephemeral port and listens (clients can connect at once and wait in the
/// backlog); `start()` starts answering. Each connection is served on its own thread with
/// blocking reads, keep-alive and pipelining; the handlers run there, outside any lock.
/// `stop()` (also run on deinit) closes the listener and every connection. Idle keep-alive
/// connections stay open (one thread each) until the client closes them or the server stops.
///
/// Routes added later win over earlier ones, and every added route wins over the
/// built-in routes (see `builtInRoutes`). An unmatched request gets a 404 with a JSON body.
/// A malformed request gets a 400 (431, 413, 501 or 505 where those fit) and the
/// connection closes.
package final class LoopbackServer: Sendable {
    /// The server's counters, read together at one instant.
    package struct Counters: Sendable, Equatable {
        /// Requests received whole and answered by a route or with 404 (malformed ones are
        /// not counted). Counted before the handler runs; for a streaming route, as soon as
        /// its head has arrived.
        package var requestCount = 0
        /// Connections accepted.
        package var connectionCount = 0
        /// Connections the client closed or reset while a request was unanswered: partly
        /// received, waiting out a `delay`, hanging, or being written (a streamed response
        /// included, until its terminating chunk). Closing an idle keep-alive connection
        /// does not count, nor do connections `stop()` closes.
        package var clientDisconnectCount = 0
        /// Requests answered with 400 (or another error status) because they were malformed.
        package var badRequestCount = 0
        /// Connections open right now; not reset by `resetCounters()`.
        package var openConnectionCount = 0
        /// Request body bytes received (de-chunked), by ordinary and streaming routes alike,
        /// counted as they arrive.
        package var requestBodyBytes = 0
        /// Response body bytes written (heads and chunk framing not counted), counted as
        /// they are handed to the socket; for a streamed response, each write once the
        /// socket has taken it, so a client that stops reading stops this count.
        package var responseBodyBytes = 0
        /// `100 Continue` interim responses sent.
        package var continueCount = 0

        /// Creates counters, all zero.
        package init() {}
    }

    let core: ServerCore

    /// The TCP port the server listens on, on 127.0.0.1.
    package let port: Int

    /// `http://127.0.0.1:PORT`.
    package let baseURL: URL

    /// Binds 127.0.0.1 and listens. Call `start()` to begin answering.
    ///
    /// - Parameters:
    ///   - routes: routes to install; later ones win over earlier ones, all over the built-ins.
    ///   - includeBuiltInRoutes: whether to install `builtInRoutes` (`/json`, `/echo`, …).
    ///   - port: the port to bind; 0 (the default) picks a free ephemeral port.
    /// - Throws: `LoopbackServerError` when a socket call fails (the port is taken, no
    ///   descriptors are left, …).
    package init(routes: [Route] = [], includeBuiltInRoutes: Bool = true, port: UInt16 = 0)
        throws(LoopbackServerError)
    {
        core = try ServerCore(port: port, builtInRoutes: includeBuiltInRoutes ? Self.builtInRoutes : [])
        self.port = Int(core.port)
        var components = URLComponents()
        components.scheme = "http"
        components.host = "127.0.0.1"
        components.port = Int(core.port)
        guard let url = components.url else {
            core.stop()
            throw .addressUnavailable(errno: 0)
        }
        baseURL = url
        for route in routes { self.route(route) }
    }

    deinit {
        core.stop()
    }

    /// Starts the accept loop on its own thread. Idempotent; does nothing after `stop()`.
    package func start() {
        core.start()
    }

    /// Closes the listener and every open connection, and returns once the listener is
    /// closed (new connections are refused). Requests in flight end without an answer;
    /// their handlers, if running, finish on their own threads. Idempotent; also runs on
    /// deinit.
    package func stop() {
        core.stop()
    }

    /// Whether the server has been started and not stopped.
    package var isRunning: Bool {
        core.isRunning
    }

    /// The URL of `path` (percent-encoded as needed) with `queryItems` on this server.
    package func url(path: String, queryItems: [URLQueryItem] = []) -> URL {
        var components = URLComponents()
        components.scheme = "http"
        components.host = "127.0.0.1"
        components.port = port
        components.path = path.hasPrefix("/") ? path : "/" + path
        if !queryItems.isEmpty { components.queryItems = queryItems }
        return components.url ?? baseURL
    }

    // MARK: - Routes

    /// Adds `route`, replacing routes with the same method and path pattern. It wins over
    /// every route added before it and over the built-ins, from the next request on.
    /// - Returns: its id, for `removeRoute(_:)`.
    @discardableResult
    package func route(_ route: Route) -> RouteID {
        core.state.withLock { state in
            state.nextRouteID += 1
            state.routes.removeAll { $0.route.method == route.method && $0.route.path == route.path }
            state.routes.append(ServerState.RegisteredRoute(id: state.nextRouteID, route: route))
            return RouteID(value: state.nextRouteID)
        }
    }

    /// Adds a route answering `method` (nil: any) on `path` with `handler`; see `route(_:)`.
    @discardableResult
    package func route(
        _ method: String? = nil, _ path: String, handler: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse
    ) -> RouteID {
        route(Route(method: method, path: path, handler: handler))
    }

    /// Adds a streaming route answering `method` (nil: any) on `path`: `streamingHandler`
    /// reads the body as it arrives (see `LoopbackBodyReader`); see `route(_:)`.
    @discardableResult
    package func route(
        _ method: String? = nil, _ path: String, streamingHandler: @escaping LoopbackServer.Route.StreamingHandler
    ) -> RouteID {
        route(Route(method: method, path: path, streamingHandler: streamingHandler))
    }

    /// Adds a route answering `method` (nil: any) on `path` with `response`; see `route(_:)`.
    @discardableResult
    package func route(_ method: String? = nil, _ path: String, response: LoopbackResponse) -> RouteID {
        route(Route(method: method, path: path, response: response))
    }

    /// Adds a route that answers `responses` in turn, one per request, then repeats the last
    /// (for "first 401, then 200" scripts); see `route(_:)` and `Route.sequence`.
    @discardableResult
    package func routeSequence(method: String? = nil, path: String, _ responses: [LoopbackResponse]) -> RouteID {
        route(Route.sequence(method: method, path: path, responses))
    }

    /// Removes a route added earlier.
    /// - Returns: whether it was still installed.
    @discardableResult
    package func removeRoute(_ id: RouteID) -> Bool {
        core.state.withLock { state in
            guard let index = state.routes.firstIndex(where: { $0.id == id.value }) else { return false }
            state.routes.remove(at: index)
            return true
        }
    }

    /// Removes every added route; the built-in routes stay.
    package func removeAllRoutes() {
        core.state.withLock { $0.routes.removeAll() }
    }

    // MARK: - Counters

    /// All counters, read at one instant.
    package var counters: Counters {
        core.state.withLock { $0.counters }
    }

    /// Requests received whole (see `Counters.requestCount`).
    package var requestCount: Int { counters.requestCount }

    /// Connections accepted.
    package var connectionCount: Int { counters.connectionCount }

    /// Connections the client closed or reset while a request was unanswered
    /// (see `Counters.clientDisconnectCount`).
    package var clientDisconnectCount: Int { counters.clientDisconnectCount }

    /// Malformed requests answered with an error status.
    package var badRequestCount: Int { counters.badRequestCount }

    /// Connections open right now.
    package var openConnectionCount: Int { counters.openConnectionCount }

    /// Sets every counter to zero except `openConnectionCount`, and empties `requestLog`.
    package func resetCounters() {
        core.state.update { state in
            let open = state.counters.openConnectionCount
            state.counters = Counters()
            state.counters.openConnectionCount = open
            state.countersGeneration += 1
            state.requestLog.removeAll()
        }
    }

    /// The heads of the last `requestLogCapacity` requests counted in `requestCount`,
    /// oldest first, without their bodies.
    package var requestLog: [LoggedRequest] {
        core.state.withLock { state in Array(state.requestLog.suffix(Self.requestLogCapacity)) }
    }

    /// How many requests `requestLog` keeps.
    package static let requestLogCapacity = 1000

    /// Blocks until `condition` holds for the counters, or `timeout` seconds pass.
    ///
    /// Sleeps on a condition variable and re-checks after each counter change; `condition`
    /// runs on the calling thread with no lock held, so it may call the server.
    /// - Returns: whether `condition` held before the timeout.
    package func waitUntil(timeout: TimeInterval, _ condition: (Counters) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            let (snapshot, generation) = core.state.withLock { ($0.counters, $0.countersGeneration) }
            if condition(snapshot) { return true }
            let changed = core.state.wait(until: deadline) { $0.countersGeneration != generation }
            if !changed { return condition(counters) }
        }
    }
}

extension LoopbackServer.Route {
    /// A route that answers `responses` in turn, one per request, then repeats the last; an
    /// empty list answers 404. Each route made by this call keeps its own position.
    package static func sequence(
        method: String? = nil, path: String, _ responses: [LoopbackResponse]
    ) -> LoopbackServer.Route {
        let position = ServerLock(0)
        return LoopbackServer.Route(method: method, path: path) { _ in
            let index = position.withLock { next -> Int in
                let current = next
                next = min(next + 1, responses.count)
                return current
            }
            guard let last = responses.last else { return .status(404) }
            return index < responses.count ? responses[index] : last
        }
    }
}
