import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where a connection goes: requests with the same route may share a kept-alive connection.
struct HTTP1Route: Hashable, Sendable {
    /// The server: its host, port, and whether TLS runs to it.
    let address: WebSocketAddress
    /// The HTTP proxy a plain request is sent through (absolute-form requests), if any.
    let proxy: HTTPProxyEnvironment.Proxy?
    /// The hash of both, worked out once: the pool looks a route up several times per request.
    private let hashCode: Int

    init(address: WebSocketAddress, proxy: HTTPProxyEnvironment.Proxy?) {
        self.address = address
        self.proxy = proxy
        var hasher = Hasher()
        hasher.combine(address)
        hasher.combine(proxy)
        hashCode = hasher.finalize()
    }

    static func == (lhs: HTTP1Route, rhs: HTTP1Route) -> Bool {
        lhs.hashCode == rhs.hashCode && lhs.address == rhs.address && lhs.proxy == rhs.proxy
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hashCode)
    }
}

/// One connection of the pool: its byte stream, and whether it carried a request before.
final class HTTP1Connection: Sendable {
    /// The bytes.
    let stream: any WebSocketByteStream
    /// Where it goes.
    let route: HTTP1Route
    /// Whether it carried requests before this one (a reused connection may have been
    /// closed by the server while idle).
    let isReused: Bool
    /// When the connect started and ended, for metrics (nil for a reused connection).
    let connectInterval: DateInterval?

    /// 1 while the answer of its last exchange is reported in place, on its queue.
    private let isReporting = AtomicInt(0)

    /// Runs `report` (the answer of this connection's exchange, reported in place on its
    /// queue, where the connection is already back in the pool) marking the connection as
    /// not to be lent to a request made in that report: such a request, waited for there,
    /// would wait for the queue it holds.
    func reportingInPlace(_ report: () -> Void) {
        isReporting.store(1)
        defer { isReporting.store(0) }
        report()
    }

    /// Whether the caller is inside an in-place report of this connection's answer.
    var isReportingToCaller: Bool {
        isReporting.load() == 1 && stream.isOnItsQueue
    }

    init(stream: any WebSocketByteStream, route: HTTP1Route, isReused: Bool, connectInterval: DateInterval?) {
        self.stream = stream
        self.route = route
        self.isReused = isReused
        self.connectInterval = connectInterval
    }

    /// The same connection, lent again.
    func reused() -> HTTP1Connection {
        HTTP1Connection(stream: stream, route: route, isReused: true, connectInterval: nil)
    }
}

/// The kept-alive connections of an `HTTP1Transport`, and the limits on how many it opens.
///
/// A request leases a connection for its route: an idle one if there is one that is still
/// open (see `lease`), else a new one, once the limits allow (at most `perHost` leased or
/// connecting per route, `total` across routes, idle ones included: an idle connection of
/// another route is closed to make room). Requests beyond the limits wait, in order. A
/// request gives its connection back when its response was read to the end and both sides
/// let it be kept (`giveBack(_:reusable:)`); an idle connection is closed after
/// `idleTimeout`.
final class HTTP1ConnectionPool: Sendable {
    /// The outcome of a lease.
    typealias LeaseCompletion = @Sendable (Result<HTTP1Connection, URLError>) -> Void

    /// A request waiting for a place, then connecting for it: disposing it gives up the wait,
    /// or stops the connect and gives the place back.
    private final class Waiter: Disposable, Sendable {
        private struct Slot {
            /// The request's completion, until it is called or the waiter disposed.
            var completion: LeaseCompletion?
            /// Whether the waiter holds a place in the pool's limits.
            var placed: Bool
            /// The connect started for it.
            var connect: Disposable?
        }

        let route: HTTP1Route
        private let slot: LockedState<Slot>
        weak let pool: HTTP1ConnectionPool?

        init(route: HTTP1Route, pool: HTTP1ConnectionPool, placed: Bool, completion: @escaping LeaseCompletion) {
            self.route = route
            self.pool = pool
            slot = LockedState(Slot(completion: completion, placed: placed))
        }

        /// Gives the waiter a place, unless it was disposed (then it must be dropped).
        func claimPlace() -> Bool {
            slot.withLock { slot in
                guard slot.completion != nil else { return false }
                slot.placed = true
                return true
            }
        }

        /// Keeps the connect started for it; false if it was disposed meanwhile (the caller
        /// stops the connect).
        func keep(_ connect: Disposable) -> Bool {
            slot.withLock { slot in
                guard slot.completion != nil else { return false }
                slot.connect = connect
                return true
            }
        }

        /// Takes the completion, once.
        func take() -> LeaseCompletion? {
            slot.withLock { slot in
                defer {
                    slot.completion = nil
                    slot.connect = nil
                }
                return slot.completion
            }
        }

        func dispose() {
            let (completion, placed, connect) = slot.withLock { slot in
                defer {
                    slot.completion = nil
                    slot.connect = nil
                }
                return (slot.completion, slot.placed, slot.connect)
            }
            guard completion != nil else { return }
            if placed {
                connect?.dispose()
                pool?.placeGivenUp(route)
            } else {
                pool?.remove(self)
            }
        }
    }

    /// An idle connection and when it became idle.
    private struct Idle {
        let connection: HTTP1Connection
        let since: DispatchTime
    }

    private struct State {
        var idle: [HTTP1Route: [Idle]] = [:]
        var idleCount = 0
        /// Connections leased or connecting, per route.
        var busy: [HTTP1Route: Int] = [:]
        var busyCount = 0
        var waiting: [Waiter] = []
        var sweepScheduled = false
    }

    private let state = LockedState(State())
    private let connector: any WebSocketByteStreamConnector
    private let perHost: Int
    private let total: Int
    private let idleTimeout: TimeInterval
    private let sweepQueue = DispatchQueue(label: "leash.http1.pool-sweep")

    init(connector: any WebSocketByteStreamConnector, perHost: Int, total: Int, idleTimeout: TimeInterval) {
        self.connector = connector
        self.perHost = max(1, perHost)
        self.total = max(self.perHost, total)
        self.idleTimeout = max(0, idleTimeout)
    }

    /// How many connections are idle, and how many leased or connecting (for tests).
    var counts: (idle: Int, busy: Int) { state.withLock { ($0.idleCount, $0.busyCount) } }

    /// Leases a connection for `route`; `completion` runs once (on another thread) unless the
    /// returned disposable is disposed first. An idle connection that has input or a hangup
    /// waiting is closed, not lent: a server that closed it while idle never sees a request.
    ///
    /// A lent idle connection is handed over in place, before this returns; a new one later,
    /// from the connector's thread. `fresh` skips the idle connections (a request that never
    /// left a kept-alive connection goes again on a new one). A request that is not `limited`
    /// (a manager's dispatcher admitted it, under the manager's own limits) never waits: it
    /// connects at once, closing an idle connection to stay within `total` if it can.
    func lease(
        _ route: HTTP1Route, fresh: Bool = false, limited: Bool = true, _ completion: @escaping LeaseCompletion
    ) -> Disposable {
        var stale: [HTTP1Connection] = []
        defer { for connection in stale { connection.stream.close() } }
        let decision = state.withLock { state -> LeaseDecision in
            // The most recently used first; never one whose answer is being reported, in place,
            // to the caller (a request made in that report may wait for its answer there).
            while !fresh, var idle = state.idle[route],
                let index = idle.lastIndex(where: { !$0.connection.isReportingToCaller })
            {
                let last = idle.remove(at: index)
                state.idle[route] = idle.isEmpty ? nil : idle
                state.idleCount -= 1
                if last.connection.stream.hasInputOrHangup {
                    stale.append(last.connection)
                    continue
                }
                state.busy[route, default: 0] += 1
                state.busyCount += 1
                return .reuse(last.connection.reused())
            }
            if let evicted = Self.makeRoom(
                for: route, in: &state, perHost: limited ? perHost : .max, total: total, mustConnect: !limited)
            {
                stale.append(contentsOf: evicted)
                state.busy[route, default: 0] += 1
                state.busyCount += 1
                return .connect
            }
            let waiter = Waiter(route: route, pool: self, placed: false, completion: completion)
            state.waiting.append(waiter)
            return .wait(waiter)
        }
        switch decision {
        case .reuse(let connection):
            completion(.success(connection))
            return Disposables.create()
        case .connect:
            let waiter = Waiter(route: route, pool: self, placed: true, completion: completion)
            connect(for: waiter)
            return waiter
        case .wait(let waiter):
            return waiter
        }
    }

    private enum LeaseDecision {
        case reuse(HTTP1Connection)
        case connect
        case wait(Waiter)
    }

    /// Takes a place for a new connection to `route` if the limits allow, closing idle
    /// connections of other routes if that is what stands in the way; nil if it must wait.
    private static func makeRoom(
        for route: HTTP1Route, in state: inout State, perHost: Int, total: Int, mustConnect: Bool = false
    ) -> [HTTP1Connection]? {
        guard state.busy[route, default: 0] < perHost else { return nil }
        var evicted: [HTTP1Connection] = []
        while state.busyCount + state.idleCount >= total {
            guard let (oldestRoute, _) = state.idle.min(by: { $0.value[0].since < $1.value[0].since }),
                var list = state.idle[oldestRoute], !list.isEmpty
            else { return mustConnect ? evicted : nil }
            evicted.append(list.removeFirst().connection)
            state.idle[oldestRoute] = list.isEmpty ? nil : list
            state.idleCount -= 1
        }
        return evicted
    }

    /// Connects for `waiter`, whose place is taken.
    private func connect(for waiter: Waiter) {
        let started = Date()
        let route = waiter.route
        let attempt = connector.connect(to: route.connectAddress) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let stream):
                let connection = HTTP1Connection(
                    stream: stream, route: route, isReused: false,
                    connectInterval: DateInterval(start: started, end: max(started, Date())))
                guard let completion = waiter.take() else {
                    // Disposed meanwhile (its dispose gave the place back).
                    stream.close()
                    return
                }
                completion(.success(connection))
            case .failure(let error):
                guard let completion = waiter.take() else { return }
                placeGivenUp(route)
                completion(.failure(error))
            }
        }
        if !waiter.keep(attempt) { attempt.dispose() }
    }

    /// A place that will not carry a connection (its connect failed, or its request was
    /// disposed) is given back.
    private func placeGivenUp(_ route: HTTP1Route) {
        release(route, keeping: nil)
    }

    /// Puts a connection that was lent to a waiter disposed at that moment back among the
    /// idle ones, without touching the places (the dispose gave its own back).
    private func putIdle(_ connection: HTTP1Connection) {
        state.withLock { state in
            state.idle[connection.route, default: []].append(Idle(connection: connection, since: .now()))
            state.idleCount += 1
        }
    }

    /// Forgets a waiter that was disposed.
    private func remove(_ waiter: Waiter) {
        state.withLock { $0.waiting.removeAll { $0 === waiter } }
    }

    /// A leased connection is given back: kept for the next request if `reusable` (the
    /// response was read to its end and both sides keep the connection), else closed.
    func giveBack(_ connection: HTTP1Connection, reusable: Bool) {
        if !reusable { connection.stream.close() }
        release(connection.route, keeping: reusable ? connection : nil)
    }

    /// Frees a place of `route`, keeping `connection` idle if given, then serves the
    /// waiters the limits now allow.
    private func release(_ route: HTTP1Route, keeping connection: HTTP1Connection?) {
        var toServe: [(Waiter, HTTP1Connection?)] = []
        var toClose: [HTTP1Connection] = []
        var scheduleSweep = false
        state.withLock { state in
            state.busy[route, default: 1] -= 1
            if state.busy[route] == 0 { state.busy[route] = nil }
            state.busyCount -= 1
            if let connection {
                state.idle[route, default: []].append(Idle(connection: connection, since: .now()))
                state.idleCount += 1
                if !state.sweepScheduled {
                    state.sweepScheduled = true
                    scheduleSweep = true
                }
            }
            var index = 0
            while index < state.waiting.count {
                let waiter = state.waiting[index]
                guard state.busy[waiter.route, default: 0] < perHost else {
                    index += 1
                    continue
                }
                if var idle = state.idle[waiter.route], let last = idle.popLast() {
                    state.idle[waiter.route] = idle.isEmpty ? nil : idle
                    state.idleCount -= 1
                    state.waiting.remove(at: index)
                    guard waiter.claimPlace() else {
                        state.idle[waiter.route, default: []].append(last)
                        state.idleCount += 1
                        continue
                    }
                    state.busy[waiter.route, default: 0] += 1
                    state.busyCount += 1
                    toServe.append((waiter, last.connection))
                    continue
                }
                if let evicted = Self.makeRoom(for: waiter.route, in: &state, perHost: perHost, total: total) {
                    toClose.append(contentsOf: evicted)
                    state.waiting.remove(at: index)
                    guard waiter.claimPlace() else { continue }
                    state.busy[waiter.route, default: 0] += 1
                    state.busyCount += 1
                    toServe.append((waiter, nil))
                    continue
                }
                index += 1
            }
        }
        for connection in toClose { connection.stream.close() }
        for (waiter, idle) in toServe {
            if let idle {
                if idle.stream.hasInputOrHangup {
                    // Closed while idle: a new connection in its place.
                    idle.stream.close()
                    connect(for: waiter)
                } else if let completion = waiter.take() {
                    completion(.success(idle.reused()))
                } else {
                    putIdle(idle)
                }
            } else {
                connect(for: waiter)
            }
        }
        if scheduleSweep { scheduleSweepAfter(idleTimeout) }
    }

    /// Closes the idle connections older than `idleTimeout` after `delay`, and again while
    /// any are idle.
    private func scheduleSweepAfter(_ delay: TimeInterval) {
        sweepQueue.asyncAfter(deadline: .now() + delay) { [weak self] in
            self?.sweep()
        }
    }

    private func sweep() {
        let limit = UInt64(idleTimeout * 1_000_000_000)
        var expired: [HTTP1Connection] = []
        var next: TimeInterval?
        state.withLock { state in
            // The clock is read under the lock: a connection put idle while the sweep waited
            // for it is younger than `now`, never "older" by a wrapped subtraction.
            let now = DispatchTime.now().uptimeNanoseconds
            for (route, list) in state.idle {
                var kept: [Idle] = []
                for idle in list {
                    let age = Self.idleAge(since: idle.since.uptimeNanoseconds, now: now)
                    guard age < limit else {
                        expired.append(idle.connection)
                        continue
                    }
                    kept.append(idle)
                    let remaining = TimeInterval(limit - age) / 1e9
                    next = min(next ?? remaining, remaining)
                }
                state.idleCount -= list.count - kept.count
                state.idle[route] = kept.isEmpty ? nil : kept
            }
            state.sweepScheduled = next != nil
        }
        for connection in expired { connection.stream.close() }
        if let next { scheduleSweepAfter(max(0.01, next)) }
    }

    /// How long a connection idle since `since` has been idle at `now`, in nanoseconds: 0 for
    /// one put idle after `now` was read (an unsigned subtraction would wrap, and close it).
    static func idleAge(since: UInt64, now: UInt64) -> UInt64 {
        now - min(now, since)
    }

    /// Closes every idle connection (the transport is going away, or a test asks).
    func closeIdleConnections() {
        let idle = state.withLock { state -> [HTTP1Connection] in
            defer {
                state.idle = [:]
                state.idleCount = 0
            }
            return state.idle.values.flatMap { $0.map(\.connection) }
        }
        for connection in idle { connection.stream.close() }
    }

    deinit {
        closeIdleConnections()
    }
}

extension HTTP1Route {
    /// Where the TCP (or TLS) connection goes: the proxy of a plain request sent through
    /// one; the server, through the proxy's `CONNECT` tunnel, for a secure one; else the
    /// server.
    var connectAddress: WebSocketAddress {
        guard let proxy else { return address }
        guard address.isSecure else { return WebSocketAddress(host: proxy.host, port: proxy.port, isSecure: false) }
        var tunnelled = address
        tunnelled.tunnelProxy = proxy.tunnelURL
        return tunnelled
    }
}

extension HTTPProxyEnvironment.Proxy {
    /// The proxy as libcurl takes it for a tunnel: `http://[user:password@]host:port`, the
    /// credentials percent-encoded.
    var tunnelURL: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        var credentials = ""
        if let authorization, authorization.hasPrefix("Basic "),
            let decoded = Data(base64Encoded: String(authorization.dropFirst(6))),
            let pair = String(data: decoded, encoding: .utf8)
        {
            let parts = pair.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let user = String(parts[0]).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let password =
                parts.count > 1
                ? (String(parts[1]).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") : ""
            credentials = user + ":" + password + "@"
        }
        return "http://" + credentials + host + ":" + String(port)
    }
}
