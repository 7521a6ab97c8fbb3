import Foundation
import Leash
import Rx

/// Where a scripted WebSocket runs its steps: on the stub's scheduler (a `TestScheduler`
/// makes them virtual, run as the test advances time), else on a serial queue of its own.
struct StubRunner: Sendable {
    let scheduler: SchedulerType?
    let queue: DispatchQueue

    init(scheduler: SchedulerType?) {
        self.scheduler = scheduler
        self.queue = DispatchQueue(label: "leash.stub-websocket")
    }

    /// Runs `action` soon, never inside another step: with a scheduler, on this thread's
    /// trampoline (`CurrentThreadScheduler`), so that a conversation's steps take no virtual
    /// time (a `TestScheduler` would give each hop a tick of its own).
    func async(_ action: @escaping @Sendable () -> Void) {
        if scheduler != nil {
            _ = CurrentThreadScheduler.instance.schedule(()) { _ in
                action()
                return Disposables.create()
            }
        } else {
            queue.async(execute: action)
        }
    }

    /// Runs `action` after `delay` seconds, unless the returned disposable is disposed first.
    @discardableResult
    func after(_ delay: TimeInterval, _ action: @escaping @Sendable () -> Void) -> Disposable {
        if let scheduler {
            return scheduler.scheduleRelative((), dueTime: .fromSeconds(delay)) { _ in
                action()
                return Disposables.create()
            }
        }
        let pending = LockedState<(@Sendable () -> Void)?>(action)
        queue.asyncAfter(deadline: .now() + max(0, delay)) {
            pending.withLock { $0.take() }?()
        }
        return Disposables.create { _ = pending.withLock { $0.take() } }
    }
}

/// The client's end of a scripted connection: the bytes the stub server writes wait here
/// until the client asks for them, and what the client sends goes to the server.
final class StubByteStream: WebSocketByteStream, @unchecked Sendable {
    // @unchecked: the mutable state is behind `state`'s lock; `server` is set once, by the
    // connector, before the stream is handed out; the rest is immutable.

    private struct State {
        var inbound = Data()
        var receive: (maximum: Int, completion: @Sendable (WebSocketByteStreamRead) -> Void)?
        /// The server closed its side: the client reads the end once `inbound` is empty.
        var serverClosed = false
        /// The connection failed: the client reads this failure once `inbound` is empty.
        var failure: URLError?
        var isClosed = false
    }

    private let runner: StubRunner
    private let state = LockedState(State())
    /// The server end, told of what the client sends and of its close.
    weak var server: StubWebSocketServerConnection?

    init(runner: StubRunner) {
        self.runner = runner
    }

    func receive(maximumLength: Int, _ completion: @escaping @Sendable (WebSocketByteStreamRead) -> Void) {
        state.withLock { $0.receive = (max(maximumLength, 1), completion) }
        serve()
    }

    func send(_ bytes: Data, _ completion: @escaping @Sendable (URLError?) -> Void) {
        let closed = state.withLock { $0.isClosed }
        let server = self.server
        runner.async {
            guard !closed else { return completion(URLError(.networkConnectionLost)) }
            server?.receivedFromClient(bytes)
            completion(nil)
        }
    }

    func close() {
        let (wasOpen, receive) = state.withLock { state in
            defer {
                state.isClosed = true
                state.receive = nil
            }
            return (!state.isClosed, state.receive)
        }
        guard wasOpen else { return }
        if let receive { runner.async { receive.completion(.failed(URLError(.cancelled))) } }
        let server = self.server
        runner.async { server?.clientClosed() }
    }

    /// The server writes `bytes` to the client.
    func write(_ bytes: Data) {
        state.withLock { $0.inbound.append(bytes) }
        serve()
    }

    /// The connection fails with `error` (a server that cannot be reached).
    func fail(_ error: URLError) {
        state.withLock { $0.failure = error }
        serve()
    }

    /// The server closes its side.
    func closeFromServer() {
        state.withLock { $0.serverClosed = true }
        serve()
    }

    /// Answers the outstanding receive, if there is something to answer it with.
    private func serve() {
        let answer = state.withLock {
            state -> (@Sendable (WebSocketByteStreamRead) -> Void, WebSocketByteStreamRead)? in
            guard !state.isClosed, let receive = state.receive else { return nil }
            if !state.inbound.isEmpty {
                let bytes = state.inbound.prefix(receive.maximum)
                state.inbound.removeFirst(bytes.count)
                state.receive = nil
                return (receive.completion, .bytes(Data(bytes)))
            }
            if let failure = state.failure {
                state.receive = nil
                return (receive.completion, .failed(failure))
            }
            guard state.serverClosed else { return nil }
            state.receive = nil
            return (receive.completion, .end)
        }
        guard let (completion, read) = answer else { return }
        runner.async { completion(read) }
    }
}

/// Opens scripted connections to a `StubTransport`'s WebSocket stubs.
struct StubWebSocketConnector: WebSocketByteStreamConnector {
    let transport: StubTransport

    func connect(
        to address: WebSocketAddress,
        _ completion: @escaping @Sendable (Result<any WebSocketByteStream, URLError>) -> Void
    ) -> Disposable {
        let runner = StubRunner(scheduler: transport.scheduler)
        let stream = StubByteStream(runner: runner)
        let server = StubWebSocketServerConnection(
            transport: transport, address: address, client: stream, runner: runner)
        stream.server = server
        let pending = LockedState<StubWebSocketServerConnection?>(server)
        runner.async {
            // Kept alive by the client's stream from now on (and by its own steps).
            guard let server = pending.withLock({ $0.take() }) else { return }
            server.retainUntilClosed()
            completion(.success(stream))
        }
        return Disposables.create { _ = pending.withLock { $0.take() } }
    }
}
