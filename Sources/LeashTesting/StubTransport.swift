import Foundation
import Leash
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that answers from a script: for tests, previews and view-model tests in
/// virtual time. Requests go through the whole pipeline (encoding, interceptors,
/// validation, serialization); only the network is replaced.
///
/// It is in the `LeashTesting` product, not in `Leash`, so that apps do not ship it; it
/// links no XCTest, so a preview or an executable can use it too.
///
/// ```swift
/// import LeashTesting
///
/// let transport = StubTransport(scheduler: testScheduler)
/// transport.stub(.get, path: "/users", .status(401), .json(#"[{"id":1}]"#, delay: 2))
/// ```
///
/// Each stub answers its responses in turn and then repeats the last one. A request that
/// matches no stub gets a 404 saying so. With a scheduler, delays run on it (a
/// `TestScheduler` makes them virtual); without one, on a background queue.
public final class StubTransport: Transport, Sendable {
    private struct Stub {
        let matches: @Sendable (URLRequest) -> Bool
        let responses: [StubResponse]
        var next = 0
    }

    /// A scripted WebSocket (`stubWebSocket`).
    private struct WebSocketStub {
        let path: String
        let refusals: [StubResponse]
        var connects = 0
        let conversation: @Sendable (StubWebSocketPeer) -> Void
    }

    /// The script and the log of what was sent.
    private struct State {
        var stubs: [Stub] = []
        var webSockets: [WebSocketStub] = []
        var log: [URLRequest] = []
        /// The JSON encoder of the manager built with this transport (the last one, if
        /// several were), for `StubResponse.json(encoding:)` answers without an encoder.
        var jsonEncoder: JSONEncoder?
    }

    private let state = LockedState(State())
    let scheduler: SchedulerType?

    /// Creates a transport with no stubs.
    ///
    /// - Parameter scheduler: Where delays run; `nil` for a background queue.
    public init(scheduler: SchedulerType? = nil) {
        self.scheduler = scheduler
    }

    /// Answers requests with `method` (any if `nil`) and `path` (the URL path, exact) with
    /// `responses` in turn.
    @discardableResult
    public func stub(_ method: HTTPMethod? = nil, path: String, _ responses: StubResponse...) -> Self {
        stub(method, path: path, responses)
    }

    /// Answers requests with `method` and `path` with `responses` in turn.
    @discardableResult
    public func stub(_ method: HTTPMethod? = nil, path: String, _ responses: [StubResponse]) -> Self {
        stub(
            matching: { request in
                (method == nil || request.httpMethod == method?.rawValue) && request.url?.path == path
            }, responses)
    }

    /// Answers requests for which `predicate` is true with `responses` in turn. Later
    /// stubs take precedence over earlier ones.
    @discardableResult
    public func stub(matching predicate: @escaping @Sendable (URLRequest) -> Bool, _ responses: [StubResponse]) -> Self
    {
        state.withLock { $0.stubs.insert(Stub(matches: predicate, responses: responses), at: 0) }
        return self
    }

    func addWebSocketStub(
        path: String, refusals: [StubResponse], conversation: @escaping @Sendable (StubWebSocketPeer) -> Void
    ) {
        state.withLock {
            $0.webSockets.insert(WebSocketStub(path: path, refusals: refusals, conversation: conversation), at: 0)
        }
    }

    /// How the scripted WebSocket for `request` answers this connect (a 404 without one).
    func webSocketAnswer(for request: URLRequest) -> WebSocketAnswer {
        state.withLock { state in
            state.log.append(request)
            guard let index = state.webSockets.firstIndex(where: { $0.path == request.url?.path }) else {
                return .refuse(.text("no WebSocket stub for \(request.url?.path ?? "?")", status: 404))
            }
            let stub = state.webSockets[index]
            state.webSockets[index].connects += 1
            if stub.connects < stub.refusals.count { return .refuse(stub.refusals[stub.connects]) }
            let offered = request.value(forHTTPHeaderField: "Sec-WebSocket-Protocol")?
                .split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) }
            return .accept(stub.conversation, subprotocol: offered)
        }
    }

    /// Removes every stub and forgets the requests.
    public func reset() {
        state.withLock { $0 = State() }
    }

    /// The requests sent so far, in order.
    public var requests: [URLRequest] { state.withLock { $0.log } }

    /// Sends `request`: answers with the next scripted response for it.
    public func send(_ request: URLRequest) -> Observable<TransportResponse> {
        let box = Carried(request)
        return Observable.deferred { [self] in
            let response = nextResponse(for: box.value)
            let outcome = StubOutcome(response.makeOutcome(for: box.value))
            guard let delay = response.delay else {
                return outcome.observable()
            }
            return delayed(outcome, by: delay)
        }
    }

    func nextResponse(for request: URLRequest) -> StubResponse {
        let (response, encoder) = state.withLock { state -> (StubResponse, JSONEncoder?) in
            state.log.append(request)
            guard let index = state.stubs.firstIndex(where: { $0.matches(request) }) else {
                let path = request.url?.path ?? "?"
                return (.text("no stub for \(request.httpMethod ?? "GET") \(path)", status: 404), nil)
            }
            let stub = state.stubs[index]
            guard !stub.responses.isEmpty else { return (.empty(), nil) }
            let response = stub.responses[min(stub.next, stub.responses.count - 1)]
            state.stubs[index].next += 1
            return (response, state.jsonEncoder)
        }
        // Encoded outside the lock: other requests need not wait for it.
        return response.encodingJSON(with: encoder)
    }

    private func delayed(_ outcome: StubOutcome, by delay: TimeInterval) -> Observable<TransportResponse> {
        let scheduler = self.scheduler
        return Observable.create { observer in
            let deliver: @Sendable () -> Void = {
                switch outcome.result {
                case .success(let response):
                    observer.onNext(response)
                    observer.onCompleted()
                case .failure(let error):
                    observer.onError(error)
                }
            }
            if let scheduler {
                return scheduler.scheduleRelative((), dueTime: .fromSeconds(delay)) { _ in
                    deliver()
                    return Disposables.create()
                }
            }
            // The pending delivery (and the observer it holds) is dropped on dispose, not
            // kept by the queue until the deadline.
            let pending = PendingDelivery(deliver)
            DispatchQueue.global().asyncAfter(deadline: .now() + max(0, delay)) {
                pending.take()?()
            }
            return Disposables.create { _ = pending.take() }
        }
    }
}

private struct StubOutcome: @unchecked Sendable {
    // TransportResponse and LeashError are immutable values.
    let result: Result<TransportResponse, LeashError>
    init(_ result: Result<TransportResponse, LeashError>) { self.result = result }

    func observable() -> Observable<TransportResponse> {
        switch result {
        case .success(let response): return .just(response)
        case .failure(let error): return .error(error)
        }
    }
}

/// A delivery waiting for its delay; taken once, by the timer or by dispose.
private final class PendingDelivery: Sendable {
    private let action: LockedState<(@Sendable () -> Void)?>

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = LockedState(action)
    }

    func take() -> (@Sendable () -> Void)? {
        action.withLock { action in
            defer { action = nil }
            return action
        }
    }
}

extension StubTransport: JSONEncoderAdopting {
    package func adopt(jsonEncoder: JSONEncoder) {
        state.withLock { $0.jsonEncoder = jsonEncoder }
    }
}
