import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One subscription to a Server-Sent Events stream: its connections one after another
/// (with `reconnecting`), each a whole execution through the pipeline, and the state the
/// standard keeps across them: the last event ID (sent as `Last-Event-ID`) and the
/// reconnection time (a `retry` field, else `reconnectionDelay`).
///
/// A connection is followed by the next, after the reconnection time, when it ends or
/// drops (a transport failure, an idle timeout, a response that ended early, a subscriber
/// that fell too far behind: see `SlowSubscriberPolicy`); not after
/// `204 No Content` (the standard's "stop reconnecting"), a status the pipeline does not
/// accept (its interceptors, such as the token refresher, had their say), a response
/// that is not `text/event-stream`, or a line longer than the limit: those end the
/// stream.
final class ServerSentEventSession: Disposable, ManagedExecution, @unchecked Sendable {
    // @unchecked: `endpoint` (the app's, not `Sendable`) is only read; the mutable state
    // is behind `state`; a connection's parser is used by that connection's events only,
    // which come one at a time.

    /// What the session keeps across connections, decided under its lock.
    private struct State {
        var lastEventID: String
        var reconnectionTime: Int?
        var isDisposed = false
        /// Whether the session waits to reconnect: then no connection is in flight, and the
        /// session itself is in the manager's registry, for `cancelAll()`.
        var isWaiting = false
    }

    private let client: Client
    private let endpoint: Endpoint
    private let options: ServerSentEventOptions
    private let observer: AnyObserver<ServerSentEvent>
    private let state: LockedState<State>
    /// Where every event to the subscriber goes (the package's serial-delivery primitive, as
    /// for an execution and a WebSocket run): one at a time, in order, nothing after the
    /// end or a dispose, whichever connection, timer or `cancelAll()` sends it.
    private let line = LockedState(DeliveryLine<Event<ServerSentEvent>>())
    /// The connection in progress, or the wait before the next.
    private let connection = SerialDisposable()
    /// Held while a connection is opened and while `dispose()` marks the session over, so
    /// that a dispose from another thread either comes before the opening (which then
    /// opens nothing) or after the connection is in place (and disposes it): never
    /// between, where the connection would start after the session ended and send its
    /// request (found by the soak). Recursive: a connection that ends at once calls back
    /// on the opening thread, whose subscriber may dispose.
    private let opening = NSRecursiveLock()

    /// Listed under its own identity: it has no stages of its own (each connection is an
    /// execution with its own).
    var registryKey: ObjectIdentifier { ObjectIdentifier(self) }

    init(client: Client, endpoint: Endpoint, options: ServerSentEventOptions, observer: AnyObserver<ServerSentEvent>) {
        self.client = client
        self.endpoint = endpoint
        self.options = options
        self.observer = observer
        state = LockedState(State(lastEventID: options.lastEventID ?? ""))
    }

    func dispose() {
        opening.lock()
        let wasWaiting = state.withLock { state -> Bool in
            state.isDisposed = true
            defer { state.isWaiting = false }
            return state.isWaiting
        }
        opening.unlock()
        line.close {}
        if wasWaiting { client.manager.executions.remove(self) }
        connection.dispose()
    }

    /// Hands `event` to the subscriber through the line.
    private func deliver(_ event: Event<ServerSentEvent>) {
        let observer = self.observer
        line.deliver(event, closing: event.isStopEvent, hand: { observer.on($0) }, release: {})
    }

    /// `cancelAll()` during the wait before a reconnection ends the stream with
    /// `LeashError.cancelled` (a connection in flight is cancelled as any execution, and
    /// its `LeashError.cancelled` ends the stream without reconnecting).
    func cancelFromManager() {
        let wasWaiting = state.withLock { state -> Bool in
            guard state.isWaiting, !state.isDisposed else { return false }
            state.isWaiting = false
            state.isDisposed = true
            return true
        }
        guard wasWaiting else { return }
        connection.dispose()
        deliver(.error(LeashError.cancelled))
    }

    /// Opens the next connection.
    func connect() {
        opening.lock()
        defer { opening.unlock() }
        let (id, isOver) = state.withLock { ($0.lastEventID, $0.isDisposed) }
        if isOver { return }
        let parser = ConnectionParser(
            ServerSentEventParser(lastEventID: id, maximumLineLength: options.maximumLineLength))
        let elements = client.streamElements(endpoint) { [weak self] request in
            self?.adapt(&request)
        }
        // In place before subscribing: a connection that ends at once (a stub, a cached
        // answer) replaces it with the wait for the next, which must not be undone.
        let subscription = SingleAssignmentDisposable()
        connection.disposable = subscription
        subscription.setDisposable(
            elements.subscribe { [self] event in
                handle(event, parser)
            })
    }

    /// The headers the standard asks for; `Last-Event-ID` read at each attempt, so that a
    /// retry of the pipeline (after a token refresh) sends the latest.
    private func adapt(_ request: inout URLRequest) {
        if request.value(forHTTPHeaderField: "Accept") == nil {
            request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        }
        if request.value(forHTTPHeaderField: "Cache-Control") == nil {
            request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        }
        let id = state.withLock { $0.lastEventID }
        if !id.isEmpty { request.setValue(id, forHTTPHeaderField: "Last-Event-ID") }
    }

    private func handle(_ event: Event<StreamElement>, _ parser: ConnectionParser) {
        do {
            switch event {
            case .next(.head(let head)):
                try parser.accept(head)
            case .next(.chunk(let data)):
                try parse(data, parser)
            case .next(.whole(let head, let data)):
                if let head { try parser.accept(head) }
                try parse(data, parser)
            case .completed:
                parser.value.finish()
                if parser.hasNoContent || !options.reconnecting {
                    deliver(.completed)
                } else {
                    reconnectLater()
                }
            case .error(let error):
                if options.reconnecting, Self.isDrop(error) {
                    reconnectLater()
                } else {
                    deliver(.error(error))
                }
            }
        } catch {
            connection.dispose()
            deliver(.error(error))
        }
    }

    /// Parses `data`, handing each event on, and keeps what the next connection needs.
    private func parse(_ data: Data, _ parser: ConnectionParser) throws {
        try parser.value.parse(data) { deliver(.next($0)) }
        let (id, retry) = (parser.value.sourceLastEventID, parser.value.reconnectionTime)
        state.withLock { state in
            state.lastEventID = id
            if let retry { state.reconnectionTime = retry }
        }
    }

    /// Waits the reconnection time on the manager's scheduler (virtual under a
    /// `TestScheduler`), then connects again.
    private func reconnectLater() {
        let (time, isOver) = state.withLock { state -> (Int?, Bool) in
            if !state.isDisposed { state.isWaiting = true }
            return (state.reconnectionTime, state.isDisposed)
        }
        if isOver { return }
        let milliseconds = time ?? Int(options.reconnectionDelay * 1000)
        client.manager.executions.add(self)
        connection.disposable = client.manager.scheduler.scheduleRelative(
            (), dueTime: .milliseconds(max(0, milliseconds))
        ) { [self] _ in
            let proceeds = state.withLock { state -> Bool in
                defer { state.isWaiting = false }
                return state.isWaiting
            }
            if proceeds {
                client.manager.executions.remove(self)
                connect()
            }
            return Disposables.create()
        }
    }

    /// Whether `error` means the connection dropped (so a reconnecting stream connects
    /// again) rather than that the server or the app refused it.
    static func isDrop(_ error: Swift.Error) -> Bool {
        guard let error = error as? LeashError else { return false }
        switch error {
        case .transport, .timeout, .invalidResponse, .streamOverflow: return true
        default: return false
        }
    }
}

/// The options of an event stream (`client.serverSentEvents(_:options:)`,
/// `client.rx.serverSentEvents(_:options:)`).
public struct ServerSentEventOptions: Sendable {
    /// Whether to connect again after the connection ends or drops (see
    /// `Client.serverSentEvents(_:options:)`).
    public var reconnecting: Bool
    /// The wait before connecting again, in seconds, until the server sets its own with
    /// a `retry` field (the standard leaves the default to the client: a few seconds).
    public var reconnectionDelay: TimeInterval
    /// The last event ID to start from (sent as `Last-Event-ID`), e.g. one the app kept
    /// from an earlier session; nil for none.
    public var lastEventID: String?
    /// The longest line accepted, in bytes: a longer one ends the stream with
    /// `LeashError.invalidResponse` rather than filling memory.
    public var maximumLineLength: Int

    /// Options: see each property.
    public init(
        reconnecting: Bool = false, reconnectionDelay: TimeInterval = 3, lastEventID: String? = nil,
        maximumLineLength: Int = StreamLimits.maximumLineLength
    ) {
        self.reconnecting = reconnecting
        self.reconnectionDelay = reconnectionDelay.isFinite ? max(0, reconnectionDelay) : 3
        self.lastEventID = lastEventID
        self.maximumLineLength = maximumLineLength
    }
}

/// The defaults of the stream forms.
public enum StreamLimits {
    /// The longest line `lines` and `serverSentEvents` accept by default: 1 MB.
    public static let maximumLineLength = 1 << 20
}

/// One connection's parser and what its head said.
private final class ConnectionParser: @unchecked Sendable {
    // @unchecked: used by one connection's events, which come one at a time.
    var value: ServerSentEventParser
    /// Whether the server answered `204 No Content`: no reconnecting.
    private(set) var hasNoContent = false

    init(_ parser: ServerSentEventParser) {
        value = parser
    }

    /// Checks the head of an accepted response: `204` ends the stream; anything else must
    /// be `text/event-stream`.
    func accept(_ head: HTTPURLResponse) throws {
        if head.statusCode == 204 {
            hasNoContent = true
            return
        }
        let contentType = head.value(forHTTPHeaderField: "Content-Type")
        let essence = contentType?.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard essence == "text/event-stream" else {
            throw LeashError.invalidResponse(
                reason:
                    "a Server-Sent Events stream must be text/event-stream, but the server sent "
                    + (contentType.map { "\"\($0)\"" } ?? "no Content-Type"))
        }
    }
}
