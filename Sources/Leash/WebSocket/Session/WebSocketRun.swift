import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One subscription to a WebSocket: connects through the pipeline, hands the connection's
/// events on in order, and connects again when the reconnect policy says so.
///
/// Each connect is an execution of the endpoint (`ExecutionKind.webSocket`), so the upgrade
/// request is built, adapted, authenticated, intercepted, gated, refreshed on a 401 and
/// retried like any request, and bounded by the manager's timeout. Once the socket is open
/// the run is what `Manager.cancelAll()` reaches. Events go to the subscriber through one
/// `DeliveryLine`: one at a time, in order, nothing after the end or a dispose.
final class WebSocketRun: Disposable, ManagedExecution, WebSocketConnectionListener, @unchecked Sendable {
    // @unchecked: the mutable state is behind `state`'s lock, the observer behind the line's
    // delivering role; `endpoint` (the app's, not `Sendable`) is only read; the rest is
    // immutable.

    private struct State {
        var isOver = false
        /// The execution of the current handshake, while it runs.
        var handshake: Disposable?
        var upgrade: WebSocketUpgrade?
        var connection: WebSocketConnection?
        var reconnectTimer: Disposable?
        /// Reconnects since the last stable connection.
        var attempt = 0
        /// When the current connection opened.
        var openedAt: Date?
        /// Whether a connection was ever opened (a handshake failing after that is a
        /// reconnect's, which may be retried).
        var hasOpened = false
    }

    private let client: Client
    private let endpoint: Endpoint
    private let options: WebSocketOptions
    private let connector: any WebSocketByteStreamConnector
    private let observer: AnyObserver<WebSocketEvent>
    private let line = LockedState(DeliveryLine<Event<WebSocketEvent>>())
    private let state = LockedState(State())

    init(
        client: Client, endpoint: Endpoint, options: WebSocketOptions, connector: any WebSocketByteStreamConnector,
        observer: AnyObserver<WebSocketEvent>
    ) {
        self.client = client
        self.endpoint = endpoint
        self.options = options
        self.connector = connector
        self.observer = observer
    }

    var registryKey: ObjectIdentifier { ObjectIdentifier(self) }
    private var manager: Manager { client.manager }

    // MARK: Connecting

    /// Starts a handshake through the pipeline.
    func connect() {
        let upgrade = WebSocketUpgrade(connector: connector, trustedAuthorities: options.trustedAuthorities)
        var recipe = ExecutionRecipe(client: client, endpoint: endpoint, kind: .webSocket(upgrade))
        let subprotocols = options.subprotocols
        let extensionOffer = options.offersCompression ? WebSocketHandshake.deflateOffer?.offerHeaderValue : nil
        recipe.adaptRequest = { request in
            WebSocketHandshake.prepare(&request, subprotocols: subprotocols, extensionOffer: extensionOffer)
        }
        let kept = state.withLock { state -> Bool in
            guard !state.isOver else { return false }
            state.upgrade = upgrade
            return true
        }
        guard kept else { return }
        let execution = recipe.start(HandshakeSink(run: self, upgrade: upgrade), serializer: EmptyResponseSerializer())
        let keep = state.withLock { state -> Bool in
            guard !state.isOver, state.upgrade === upgrade else { return false }
            state.handshake = execution
            return true
        }
        if !keep {
            execution.dispose()
            upgrade.discard()
        }
    }

    /// The handshake's execution delivered the `101`: the socket is open.
    fileprivate func upgraded(_ upgrade: WebSocketUpgrade) {
        guard let established = upgrade.claim() else { return }
        let connection: WebSocketConnection
        do {
            connection = try WebSocketConnection(
                stream: established.stream, leftover: established.leftover, deflate: established.agreement.deflate,
                options: options, manager: manager)
        } catch {
            established.stream.close()
            return handshakeFailed(error, upgrade)
        }
        let now = manager.scheduler.now
        let opened = state.withLock { state -> Bool in
            guard !state.isOver, state.upgrade === upgrade else { return false }
            state.handshake = nil
            state.upgrade = nil
            state.connection = connection
            state.openedAt = now
            state.hasOpened = true
            return true
        }
        guard opened else {
            established.stream.close()
            return
        }
        manager.executions.add(self)
        let socket = WebSocket(
            connection: connection, subprotocol: established.agreement.subprotocol,
            extensions: established.agreement.extensions, handshakeHeaders: established.head.headers)
        deliver(.next(.opened(socket)))
        connection.start(listener: self)
    }

    /// The handshake's execution failed: the end, unless it could not reach the server and
    /// the policy tries again (a reconnect's, or the first connect's with
    /// `retriesFirstConnect`).
    fileprivate func handshakeFailed(_ error: Swift.Error, _ upgrade: WebSocketUpgrade) {
        upgrade.discard()
        let retriesFirst = options.reconnect?.retriesFirstConnect == true
        let retries = state.withLock { state -> Bool in
            guard !state.isOver, state.upgrade === upgrade else { return false }
            state.handshake = nil
            state.upgrade = nil
            return (state.hasOpened || retriesFirst) && Self.isUnreachable(error)
        }
        if retries, scheduleReconnect() { return }
        end(.error(error))
    }

    /// Whether `error` says the server could not be reached (it may be restarting), rather
    /// than that it refused.
    private static func isUnreachable(_ error: Swift.Error) -> Bool {
        switch error as? LeashError {
        case .transport?, .timeout?: return true
        default: return false
        }
    }

    /// Schedules the next connect if the policy allows one; whether it did.
    private func scheduleReconnect() -> Bool {
        guard let policy = options.reconnect else { return false }
        let now = manager.scheduler.now
        let attempt = state.withLock { state -> Int? in
            guard !state.isOver else { return nil }
            if let openedAt = state.openedAt, now.timeIntervalSince(openedAt) >= policy.stablePeriod {
                state.attempt = 0
            }
            state.openedAt = nil
            if let maximum = policy.maximumAttempts, state.attempt >= maximum { return nil }
            state.attempt += 1
            return state.attempt
        }
        guard let attempt else { return false }
        let delay = policy.delay(attempt: attempt, random: Double.random(in: 0...1))
        deliver(.next(.reconnecting(attempt: attempt, delay: delay)))
        let timer = manager.deadline(after: delay) { [weak self] in self?.connect() }
        let keep = state.withLock { state -> Bool in
            guard !state.isOver else { return false }
            state.reconnectTimer = timer
            return true
        }
        if !keep { timer.dispose() }
        return true
    }

    // MARK: The connection's events

    func received(_ message: WebSocketMessage) {
        deliver(.next(.message(message)))
    }

    func ponged(roundTrip: TimeInterval) {
        deliver(.next(.pong(roundTrip: roundTrip)))
    }

    func closed(_ close: WebSocketClose, requested: Bool) {
        manager.executions.remove(self)
        let current = state.withLock { state -> Bool in
            guard !state.isOver, state.connection != nil else { return false }
            state.connection = nil
            return true
        }
        guard current else { return }
        deliver(.next(.closed(close)))
        // A close the app asked for is never reconnected after, even when the connection
        // dropped during the closing handshake (a 1006): the app meant to end (found by
        // the soak: a reset mid-handshake reconnected a chat that had said goodbye).
        if !requested, options.reconnect?.reconnectsAfter(close) == true, scheduleReconnect() { return }
        end(.completed)
    }

    // MARK: Ending

    /// Hands `event` to the subscriber, in order, one at a time.
    private func deliver(_ event: Event<WebSocketEvent>) {
        line.deliver(event, closing: event.isStopEvent, hand: { observer.on($0) }, release: {})
    }

    /// Ends with `event` (completed or failed), once.
    private func end(_ event: Event<WebSocketEvent>) {
        let over = state.withLock { state -> Bool in
            guard !state.isOver else { return false }
            state.isOver = true
            return true
        }
        guard over else { return }
        manager.executions.remove(self)
        deliver(event)
    }

    /// Stops everything: the handshake, the reconnect timer, and the connection (closed
    /// with `code`, its events no longer heard).
    private func stop(closingWith code: WebSocketCloseCode) -> Bool {
        let taken = state.withLock { state -> State? in
            guard !state.isOver else { return nil }
            state.isOver = true
            let taken = state
            (state.handshake, state.upgrade, state.connection, state.reconnectTimer) = (nil, nil, nil, nil)
            return taken
        }
        guard let taken else { return false }
        manager.executions.remove(self)
        taken.handshake?.dispose()
        taken.upgrade?.discard()
        taken.reconnectTimer?.dispose()
        taken.connection?.detach()
        taken.connection?.close(code: code, reason: "")
        return true
    }

    /// The subscriber disposed: the socket closes with 1000, and nothing more is delivered.
    func dispose() {
        line.close(release: {})
        _ = stop(closingWith: .normalClosure)
    }

    /// `Manager.cancelAll()`: the socket closes with 1001 (going away), and the subscriber
    /// gets `LeashError.cancelled`.
    func cancelFromManager() {
        if stop(closingWith: .goingAway) { deliver(.error(LeashError.cancelled)) }
    }
}

/// The handshake execution's form: tells the run when the `101` was delivered, or how the
/// execution failed.
private struct HandshakeSink: ExecutionSink {
    let run: WebSocketRun
    let upgrade: WebSocketUpgrade

    func value(_ value: EmptyResponse, extra: ResponseExtra) {
        run.upgraded(upgrade)
    }

    func end(_ error: Swift.Error?) {
        if let error { run.handshakeFailed(error, upgrade) }
    }
}
