import Foundation

/// Everything the server's threads share, behind one lock.
struct ServerState: Sendable {
    enum Phase: Sendable {
        /// Listening; connections wait in the backlog until `start()`.
        case bound
        /// The accept loop runs.
        case running
        /// `stop()` was called.
        case stopped
    }

    struct RegisteredRoute: Sendable {
        let id: Int
        let route: LoopbackServer.Route
    }

    var phase = Phase.bound
    /// Whether the listener and the wake pipe are closed (by the accept loop as it ends).
    var listenerClosed = false
    var nextConnectionID = 0
    /// Open connections by id: only their own thread closes them, under the lock, so `stop()`
    /// can shut them down without racing a descriptor's reuse.
    var connections: [Int: Int32] = [:]
    var counters = LoopbackServer.Counters()
    /// Bumped on every counter change, so a waiter can sleep until something changed.
    var countersGeneration = 0
    /// Routes added by the user; later ones win.
    var routes: [RegisteredRoute] = []
    var nextRouteID = 0
    /// The built-in routes, tried after the user's.
    var builtInRoutes: [LoopbackServer.Route] = []
    /// The latest requests, oldest first; trimmed to the capacity in batches.
    var requestLog: [LoopbackServer.LoggedRequest] = []
    /// The logs of WebSocket connections, oldest first.
    var webSocketLogs: [LoopbackServer.WebSocketLog] = []
    /// Bumped on every change to `webSocketLogs`, so a waiter can sleep until one changed.
    var webSocketGeneration = 0
}

/// The server's shared core: the listener, the accept loop and the state. The public
/// `LoopbackServer` wraps it, so that threads retain the core, not the server, and
/// dropping the last reference to the server stops it.
final class ServerCore: Sendable {
    let listener: Int32
    let wakeRead: Int32
    let wakeWrite: Int32
    let port: UInt16
    let state: ServerLock<ServerState>

    init(port requestedPort: UInt16, builtInRoutes: [LoopbackServer.Route]) throws(LoopbackServerError) {
        (listener, port, wakeRead, wakeWrite) = try Socket.makeListenerAndWakePipe(port: requestedPort)
        var initial = ServerState()
        initial.builtInRoutes = builtInRoutes
        state = ServerLock(initial)
    }

    // MARK: - Life cycle

    func start() {
        let shouldStart = state.withLock { state -> Bool in
            guard state.phase == .bound else { return false }
            state.phase = .running
            return true
        }
        guard shouldStart else { return }
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "LoopbackServer.accept:\(port)"
        thread.start()
    }

    func stop() {
        let mustWait = state.update { state -> Bool in
            switch state.phase {
            case .stopped:
                return !state.listenerClosed
            case .bound:
                state.phase = .stopped
                closeListener(&state)
                return false
            case .running:
                state.phase = .stopped
                for fd in state.connections.values { Socket.shutdownBoth(fd) }
                Socket.signal(wakeWrite)
                return true
            }
        }
        if mustWait {
            _ = state.wait(until: nil) { $0.listenerClosed }
        }
    }

    var isRunning: Bool {
        state.withLock { $0.phase == .running }
    }

    private func closeListener(_ state: inout ServerState) {
        guard !state.listenerClosed else { return }
        Socket.close(listener)
        Socket.close(wakeRead)
        Socket.close(wakeWrite)
        state.listenerClosed = true
    }

    private func acceptLoop() {
        Socket.acceptConnections(
            on: listener, wake: wakeRead, isStopped: { state.withLock { $0.phase == .stopped } },
            accepted: startConnection)
        state.update { closeListener(&$0) }
    }

    private func startConnection(_ fd: Int32) {
        let id = state.update { state -> Int? in
            guard state.phase == .running else { return nil }
            state.nextConnectionID += 1
            state.connections[state.nextConnectionID] = fd
            state.counters.connectionCount += 1
            state.counters.openConnectionCount += 1
            state.countersGeneration += 1
            return state.nextConnectionID
        }
        guard let id else {
            Socket.close(fd)
            return
        }
        let thread = Thread { [self] in
            Connection(fd: fd, id: id, core: self).run()
        }
        thread.name = "LoopbackServer.connection.\(id)"
        thread.stackSize = 1 << 20
        thread.start()
    }

    // MARK: - Called by connections

    /// Closes a finished connection's descriptor and forgets it.
    func connectionEnded(_ id: Int) {
        state.update { state in
            guard let fd = state.connections.removeValue(forKey: id) else { return }
            Socket.close(fd)
            state.counters.openConnectionCount -= 1
            state.countersGeneration += 1
        }
    }

    /// Counts a client that went away with a request unanswered, unless the server is the
    /// one closing connections.
    func clientDisconnected() {
        state.update { state in
            guard state.phase != .stopped else { return }
            state.counters.clientDisconnectCount += 1
            state.countersGeneration += 1
        }
    }

    /// Counts a malformed request.
    func badRequest() {
        state.update { state in
            state.counters.badRequestCount += 1
            state.countersGeneration += 1
        }
    }

    /// The route that answers `method` on `path`: the latest added one that matches, else a
    /// built-in one, else a route answering 404.
    func route(method: String, path: String) -> LoopbackServer.Route {
        state.withLock { state in
            for registered in state.routes.reversed() where registered.route.matches(method: method, path: path) {
                return registered.route
            }
            for route in state.builtInRoutes where route.matches(method: method, path: path) {
                return route
            }
            return Self.notFound
        }
    }

    private static let notFound = LoopbackServer.Route(method: nil, path: "*", response: .status(404))

    /// Counts a request about to be answered and logs its head.
    func requestStarted(_ request: LoopbackRequest) {
        let logged = LoopbackServer.LoggedRequest(request)
        state.update { state in
            state.counters.requestCount += 1
            state.countersGeneration += 1
            state.requestLog.append(logged)
            if state.requestLog.count >= 2 * LoopbackServer.requestLogCapacity {
                state.requestLog.removeFirst(state.requestLog.count - LoopbackServer.requestLogCapacity)
            }
        }
    }

    /// Counts request body bytes received.
    func requestBodyReceived(_ count: Int) {
        state.update { state in
            state.counters.requestBodyBytes += count
            state.countersGeneration += 1
        }
    }

    /// Counts response body bytes written.
    func responseBodyWritten(_ count: Int) {
        state.update { state in
            state.counters.responseBodyBytes += count
            state.countersGeneration += 1
        }
    }

    /// Counts a `100 Continue` sent.
    func continueSent() {
        state.update { state in
            state.counters.continueCount += 1
            state.countersGeneration += 1
        }
    }
}
