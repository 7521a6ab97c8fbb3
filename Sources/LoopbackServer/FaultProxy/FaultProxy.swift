import Foundation

/// A TCP proxy on 127.0.0.1 that stands in front of a server (a `LoopbackServer` or any
/// other on this machine) and misbehaves on purpose: each connection and each request on it
/// gets a `Fault` from the proxy's `FaultPlan`, and a request can name its own in the
/// `X-Leash-Fault` header.
///
/// ```swift
/// let proxy = try FaultProxy(in: server, plan: .random(seed: 42, probability: 0.3))
/// defer { proxy.stop() }
/// var request = URLRequest(url: proxy.baseURL.appendingPathComponent("json"))
/// request.setValue("close-in-head=20", forHTTPHeaderField: FaultProxy.faultHeader)
/// ```
///
/// Each accepted connection runs on its own thread, which connects to the server (unless
/// the fault says otherwise) and forwards both ways through the fault. The proxy reads
/// HTTP/1.1 only as far as its faults need: where each request's head ends (to read its
/// headers and count its bytes), where the response's head ends, and a `101` that turns the
/// connection into a raw stream (a WebSocket). Requests are not pipelined by the clients it
/// serves; a request that follows another on a kept-alive connection starts a new count.
///
/// The proxy's record of what it did (`connections`, `sightings`) keeps the latest
/// `logCapacity` entries (10,000 unless told otherwise); `onRequest` sees every request as
/// it passes.
package final class FaultProxy: Sendable {
    /// The request header that names the fault for that request and its response, in the
    /// fault's text form (see `Fault`). It is forwarded to the server like any header.
    package static let faultHeader = "X-Leash-Fault"
    /// A request header whose value the proxy keeps with each request it sees
    /// (`RequestSighting.tag`), so a test can tell its requests apart.
    package static let tagHeader = "X-Leash-Tag"
    /// How many connection records and request sightings are kept (the latest), unless
    /// `init` is told otherwise.
    package static let defaultLogCapacity = 10_000

    /// How a proxied connection ended.
    package enum Ending: String, Sendable, Hashable {
        /// The client closed it.
        case clientClosed
        /// The server closed it.
        case serverClosed
        /// The client reset it, or writing to the client failed.
        case clientReset
        /// The server reset it, or writing to the server failed.
        case serverReset
        /// The fault closed it cleanly (`close`, `closeInHead`, `truncateBody`).
        case faultClosed
        /// The fault reset it (`refuse`, `reset`, `resetInBody`).
        case faultReset
        /// The server could not be reached.
        case serverUnreachable
        /// `stop()` ended it.
        case stopped
    }

    /// One connection the proxy accepted and how it went.
    package struct ConnectionRecord: Sendable, Hashable {
        /// The connection's number, from 0 in the order of acceptance.
        package let number: Int
        /// The fault the plan gave it (and its first request).
        package let fault: Fault
        /// Bytes forwarded to the server.
        package let requestBytes: Int
        /// Bytes forwarded to the client.
        package let responseBytes: Int
        /// How it ended.
        package let ending: Ending
    }

    /// One request head the proxy saw go towards the server.
    package struct RequestSighting: Sendable, Hashable {
        /// The number of the connection it came on.
        package let connection: Int
        /// Its place on that connection, from 0.
        package let indexOnConnection: Int
        /// Its method.
        package let method: String
        /// Its request target (path and query).
        package let target: String
        /// The value of its `X-Leash-Tag` header, if any.
        package let tag: String?
        /// The fault applied to it and its response.
        package let fault: Fault
        /// When the proxy read the end of its head (`DispatchTime`'s uptime nanoseconds).
        package let uptimeNanoseconds: UInt64
    }

    let core: ProxyCore

    /// The port the proxy listens on, on 127.0.0.1.
    package let port: Int
    /// `http://127.0.0.1:PORT`.
    package let baseURL: URL

    /// Listens on 127.0.0.1 and starts forwarding to `upstreamHost`:`upstreamPort`.
    ///
    /// - Parameters:
    ///   - upstreamPort: the port of the server behind the proxy.
    ///   - upstreamHost: its IPv4 address (127.0.0.1 unless told otherwise).
    ///   - plan: the fault of each connection; `.none` forwards everything untouched.
    ///   - logCapacity: how many connection records and sightings are kept (0: none, for a
    ///     long run that watches `onRequest` instead).
    ///   - onRequest: called on the connection's thread with every request head seen.
    package init(
        upstreamPort: Int, upstreamHost: String = "127.0.0.1", plan: FaultPlan = .none,
        logCapacity: Int = FaultProxy.defaultLogCapacity, onRequest: (@Sendable (RequestSighting) -> Void)? = nil
    ) throws(LoopbackServerError) {
        core = try ProxyCore(
            upstream: (upstreamHost, UInt16(clamping: upstreamPort)), plan: plan, logCapacity: max(0, logCapacity),
            onRequest: onRequest)
        port = Int(core.port)
        baseURL = URL(string: "http://127.0.0.1:\(core.port)")!  // Two fixed parts and a number: always valid.
        core.start()
    }

    /// A proxy in front of `server`.
    package convenience init(
        in server: LoopbackServer, plan: FaultPlan = .none, logCapacity: Int = FaultProxy.defaultLogCapacity,
        onRequest: (@Sendable (RequestSighting) -> Void)? = nil
    ) throws(LoopbackServerError) {
        try self.init(upstreamPort: server.port, plan: plan, logCapacity: logCapacity, onRequest: onRequest)
    }

    deinit {
        core.stop()
    }

    /// Changes the plan for connections accepted from now on.
    package func setPlan(_ plan: FaultPlan) {
        core.state.withLock { $0.plan = plan }
    }

    /// Closes the listener and every connection, and returns once their threads ended.
    package func stop() {
        core.stop()
    }

    /// The latest connections that ended, oldest first.
    package var connections: [ConnectionRecord] {
        core.state.withLock { $0.records }
    }

    /// The latest requests seen, oldest first.
    package var sightings: [RequestSighting] {
        core.state.withLock { $0.sightings }
    }

    /// How many connections were accepted so far.
    package var acceptedCount: Int {
        core.state.withLock { $0.nextNumber }
    }

    /// How many connections are open now.
    package var openCount: Int {
        core.state.withLock { $0.open.count }
    }

    /// The numbers of the connections open now, in order.
    package var openConnections: [Int] {
        core.state.withLock { $0.open.keys.sorted() }
    }

    /// Waits until `isSatisfied` holds for the connections that ended so far (oldest
    /// first), up to `timeout` seconds; returns whether it held.
    package func waitForConnections(timeout: TimeInterval, _ isSatisfied: ([ConnectionRecord]) -> Bool) -> Bool {
        core.state.wait(until: Date(timeIntervalSinceNow: timeout)) { isSatisfied($0.records) }
    }
}
