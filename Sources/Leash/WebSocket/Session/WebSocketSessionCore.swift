import Foundation
import Rx

/// What a `WebSocketSession` does: it runs one WebSocket run (the connections, with their
/// reconnects, as `client.rx.webSocket` makes them), shares its events with any number of
/// subscribers, and keeps the messages sent while no connection is open.
///
/// One lock (`shared`) holds the state, the subscribers and the kept messages. Events are
/// submitted to each subscriber's own delivery line under it, and delivered after it, so a
/// subscriber registered in the same step as it read the state never misses or reorders an
/// event, and a slow or re-entrant subscriber blocks nobody else's delivery but the run's
/// (which holds the server back, as the cold stream does).
final class WebSocketSessionCore: Sendable {
    /// A message sent while no connection could take it.
    private struct KeptMessage {
        let message: WebSocketMessage
        let outcome: WebSocketSendOutcome
        /// When it was sent (the manager's clock), for `sendTimeout`.
        let sentAt: Date
        /// Fails it once `sendTimeout` passed; `nil` without a limit.
        var timer: Disposable?
    }

    private struct Shared {
        var state = WebSocketSession.State.connecting
        /// How the session ended, for subscribers that come after.
        var end: Event<WebSocketEvent>?
        /// What `close(code:reason:)` asked for, once it ran: nothing more is sent, and a
        /// connection that opens anyway (the run reconnected after a drop that beat the
        /// close) is closed at once with it.
        var closing: (code: WebSocketCloseCode, reason: String)?
        var isClosing: Bool { closing != nil }
        /// The run's subscription, until the session ends.
        var run: Disposable?
        var subscribers: [UInt64: WebSocketSessionSubscriber] = [:]
        var nextSubscriber: UInt64 = 0
        /// The messages waiting for a connection, oldest first.
        var kept: [KeptMessage] = []
        var keptBytes = 0
        /// Whether a thread is handing the kept messages to the open connection (one at a
        /// time, so that they go in order).
        var isFlushing = false
        /// The open connection refused a message because it is closing: nothing more is
        /// handed to it (its `.closed` is on the way).
        var openSocketRefuses = false
    }

    private let shared = LockedState(Shared())
    private let options: WebSocketOptions
    private let manager: Manager
    /// The events, shared (see `WebSocketSession.events`).
    let events: Observable<WebSocketEvent>

    /// Starts `connections` (the cold run) now.
    init(connections: Observable<WebSocketEvent>, options: WebSocketOptions, manager: Manager) {
        self.options = options
        self.manager = manager
        let shared = shared
        events = Observable.create { observer in
            let subscriber = WebSocketSessionSubscriber(observer: observer)
            let (id, first) = shared.withLock { state -> (UInt64?, Event<WebSocketEvent>?) in
                if let end = state.end { return (nil, subscriber.submit(end)) }
                let id = state.nextSubscriber
                state.nextSubscriber += 1
                state.subscribers[id] = subscriber
                return (id, Self.event(for: state.state).flatMap(subscriber.submit))
            }
            if let first { subscriber.deliver(first) }
            guard let id else { return Disposables.create() }
            return Disposables.create {
                shared.withLock { $0.subscribers.removeValue(forKey: id) }?.stop()
            }
        }
        // The run holds this core through its observer until it ends; the core holds the run
        // until then (`close` or the end breaks the cycle).
        let run = connections.subscribe { [self] event in handle(event) }
        let endedAlready = shared.withLock { state -> Bool in
            guard state.end == nil, !state.isClosing else { return true }
            state.run = run
            return false
        }
        if endedAlready { run.dispose() }
    }

    var state: WebSocketSession.State { shared.withLock { $0.state } }

    // MARK: The run's events

    /// An event of the run: the state follows it, every subscriber gets it, and an opening
    /// connection gets the kept messages first.
    private func handle(_ event: Event<WebSocketEvent>) {
        var flushes = false
        var failed: [KeptMessage] = []
        var run: Disposable?
        var closeAtOnce: (WebSocket, (code: WebSocketCloseCode, reason: String))?
        let deliveries = shared.withLock { state -> [(WebSocketSessionSubscriber, Event<WebSocketEvent>)] in
            guard state.end == nil else { return [] }
            switch event {
            case .next(.opened(let socket)):
                state.state = .open(socket)
                state.openSocketRefuses = false
                if let closing = state.closing { closeAtOnce = (socket, closing) }
                flushes = Self.claimFlush(&state)
            case .next(.closed(let close)):
                state.state = .closed(close)
            case .next(.reconnecting(let attempt, let delay)):
                state.state = .reconnecting(attempt: attempt, delay: delay)
            case .next:
                break
            case .error(let error):
                state.state = .ended(failure: error)
            case .completed:
                state.state = .ended(failure: nil)
            }
            if event.isStopEvent {
                state.end = event
                (failed, state.kept, state.keptBytes) = (state.kept, [], 0)
                (run, state.run) = (state.run, nil)
            }
            let deliveries = state.subscribers.values.compactMap { subscriber in
                subscriber.submit(event).map { (subscriber, $0) }
            }
            if event.isStopEvent { state.subscribers = [:] }
            return deliveries
        }
        Self.fail(failed, .closed)
        run?.dispose()
        if let (socket, closing) = closeAtOnce { socket.close(code: closing.code, reason: closing.reason) }
        // Kept messages go on the connection before any subscriber hears that it opened (and
        // sends more).
        if flushes { flush() }
        for (subscriber, first) in deliveries { subscriber.deliver(first) }
    }

    /// What a subscriber arriving in `state` learns first, if anything.
    private static func event(for state: WebSocketSession.State) -> Event<WebSocketEvent>? {
        switch state {
        case .connecting, .ended: return nil
        case .open(let socket): return .next(.opened(socket))
        case .closed(let close): return .next(.closed(close))
        case .reconnecting(let attempt, let delay): return .next(.reconnecting(attempt: attempt, delay: delay))
        }
    }

    // MARK: Sending

    /// Keeps `message` behind the ones already kept, then hands what is kept to the open
    /// connection, if there is one.
    func send(_ message: WebSocketMessage, _ outcome: WebSocketSendOutcome) {
        let bytes = message.byteCount
        let limit = options.maximumQueuedBytes
        let kept = KeptMessage(message: message, outcome: outcome, sentAt: manager.scheduler.now)
        let (refusal, flushes, waits) = shared.withLock { state -> (LeashError?, Bool, Bool) in
            guard state.end == nil, !state.isClosing else { return (.webSocketSendFailed(.closed), false, false) }
            guard state.keptBytes + bytes <= limit else {
                let failure = WebSocketSendFailure.queueFull(
                    queuedBytes: state.keptBytes, messageBytes: bytes, limit: limit)
                return (.webSocketSendFailed(failure), false, false)
            }
            state.kept.append(kept)
            state.keptBytes += bytes
            let flushes = Self.claimFlush(&state)
            return (nil, flushes, !flushes && state.state.socket == nil)
        }
        if let refusal { return outcome.settle(refusal) }
        if waits { startTimer(for: kept) }
        if flushes { flush() }
    }

    /// Takes the flushing role, if a connection is open that takes messages, something is
    /// kept, and nobody holds the role.
    private static func claimFlush(_ state: inout Shared) -> Bool {
        guard state.state.socket != nil, !state.openSocketRefuses, !state.isFlushing, !state.kept.isEmpty else {
            return false
        }
        state.isFlushing = true
        return true
    }

    /// Hands the kept messages to the open connection, oldest first, until none is left or
    /// the connection takes no more. Outside the lock: queueing may run a write, and a write's
    /// completion a subscriber's code.
    private func flush() {
        while true {
            let next = shared.withLock { state -> (WebSocket, KeptMessage)? in
                guard let socket = state.state.socket, !state.openSocketRefuses, !state.kept.isEmpty else {
                    state.isFlushing = false
                    return nil
                }
                let message = state.kept.removeFirst()
                state.keptBytes -= message.message.byteCount
                return (socket, message)
            }
            guard let (socket, message) = next else { return }
            let outcome = message.outcome
            guard let refusal = socket.connection.offer(message.message, completion: { outcome.settle($0) }) else {
                message.timer?.dispose()
                continue
            }
            guard case .webSocketSendFailed(.closed) = refusal else {
                // The connection's own queue is full: the message cannot go, and says why.
                message.timer?.dispose()
                outcome.settle(refusal)
                continue
            }
            // The connection is closing and wrote nothing of it: it stays first in line for
            // the next one.
            let over = shared.withLock { state -> Bool in
                state.isFlushing = false
                guard state.end == nil, !state.isClosing else { return true }
                if state.state.socket === socket { state.openSocketRefuses = true }
                state.kept.insert(message, at: 0)
                state.keptBytes += message.message.byteCount
                return false
            }
            if over {
                Self.fail([message], .closed)
            } else if message.timer == nil {
                // Sent while a connection was open, so never timed: it waits now.
                startTimer(for: message)
            }
            return
        }
    }

    /// Fails `message` once it is `sendTimeout` old (counted from its send), if it is still
    /// kept then; nothing without a `sendTimeout`.
    private func startTimer(for message: KeptMessage) {
        guard let limit = options.sendTimeout else { return }
        let outcome = message.outcome
        let waited = manager.scheduler.now.timeIntervalSince(message.sentAt)
        let timer = manager.deadline(after: max(0, limit - waited)) { [weak self] in
            self?.expire(outcome, limit: limit)
        }
        let kept = shared.withLock { state -> Bool in
            guard let index = state.kept.firstIndex(where: { $0.outcome === outcome }) else { return false }
            state.kept[index].timer = timer
            return true
        }
        if !kept { timer.dispose() }
    }

    /// `outcome`'s message waited `limit` seconds: it fails, unless it was handed on meanwhile.
    private func expire(_ outcome: WebSocketSendOutcome, limit: TimeInterval) {
        let expired = shared.withLock { state -> Bool in
            guard let index = state.kept.firstIndex(where: { $0.outcome === outcome }) else { return false }
            state.keptBytes -= state.kept.remove(at: index).message.byteCount
            return true
        }
        if expired { outcome.settle(.webSocketSendFailed(.timedOut(limit: limit))) }
    }

    private static func fail(_ messages: [KeptMessage], _ failure: WebSocketSendFailure) {
        for message in messages {
            message.timer?.dispose()
            message.outcome.settle(.webSocketSendFailed(failure))
        }
    }

    // MARK: Closing

    /// Ends the session (see `WebSocketSession.close(code:reason:)`).
    func close(code: WebSocketCloseCode, reason: String) {
        var failed: [KeptMessage] = []
        let (socket, run) = shared.withLock { state -> (WebSocket?, Disposable?) in
            guard state.end == nil, !state.isClosing else { return (nil, nil) }
            state.closing = (code, reason)
            (failed, state.kept, state.keptBytes) = (state.kept, [], 0)
            // An open connection closes with the app's code; the run then reports `.closed`
            // and completes (it never reconnects after a close the app asked for).
            if let socket = state.state.socket { return (socket, nil) }
            return (nil, state.run)
        }
        Self.fail(failed, .closed)
        if let socket {
            socket.close(code: code, reason: reason)
        } else {
            // No connection to close: the connect or the reconnect's wait stops, and the
            // subscribers learn that the session is over.
            run?.dispose()
            handle(.completed)
        }
    }
}

/// One subscriber of a session's events, with its own delivery line: events reach it one at
/// a time and in order, whichever thread submitted them.
private final class WebSocketSessionSubscriber: Sendable {
    private let observer: AnyObserver<WebSocketEvent>
    private let line = LockedState(DeliveryLine<Event<WebSocketEvent>>())

    init(observer: AnyObserver<WebSocketEvent>) {
        self.observer = observer
    }

    /// Submits `event`; returns it if the caller is to deliver it now (then `deliver`).
    func submit(_ event: Event<WebSocketEvent>) -> Event<WebSocketEvent>? {
        line.withLock { $0.submit(event) }
    }

    /// Delivers `first` and whatever was submitted meanwhile.
    func deliver(_ first: Event<WebSocketEvent>) {
        line.drain(startingWith: first, queue: \.self) { observer.on($0) }
    }

    /// The subscription was disposed: what waits is dropped, and nothing more is taken.
    func stop() {
        let dropped = line.withLock { $0.close().dropped }
        withExtendedLifetime(dropped) {}
    }
}
