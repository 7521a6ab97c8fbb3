import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One connect, from name resolution to the open stream; its disposal abandons it.
///
/// The steps run on the attempt's serial queue; `dispose()` may come from any thread, so the
/// little it shares with them (whether it is over, the socket's source) sits behind a lock.
final class TCPConnectAttempt: Disposable, @unchecked Sendable {
    // Sendable: `shared` is locked; the other mutable properties are touched only on `queue`.

    /// What `dispose()` and the steps share.
    private struct Shared {
        /// Set by the first of `dispose()` and the completion; after it, nothing is reported.
        var isOver = false
        /// The source watching the connecting socket, which `dispose()` cancels.
        var source: DispatchSourceWrite?
    }

    /// How the current socket's connect ended, read by the source's cancel handler.
    private enum Outcome {
        /// Not ended yet (or abandoned by `dispose()`).
        case pending
        /// Connected.
        case connected
        /// Failed with this `errno`.
        case failed(Int32)
    }

    /// Where to connect.
    private let address: WebSocketAddress
    /// Told of the attempt's stages (tests).
    private let observer: (@Sendable (TCPByteStreamConnector.Stage) -> Void)?
    /// The caller's completion, called at most once.
    private let completion: @Sendable (Result<any WebSocketByteStream, URLError>) -> Void
    /// Where the steps run.
    private let queue = DispatchQueue(label: "Leash.TCPConnectAttempt")
    /// What `dispose()` shares with the steps.
    private let shared = LockedState(Shared())
    /// The addresses to try, in order.
    private var candidates: [ResolvedSocketAddress] = []
    /// The index in `candidates` of the next address to try.
    private var nextCandidate = 0
    /// The last connect failure, reported when no address is left.
    private var lastFailure: URLError?
    /// The socket being connected, the source watching it and how its connect ended.
    private var connecting: (fd: Int32, source: DispatchSourceWrite, outcome: Outcome)?

    /// An attempt, not yet started.
    init(
        address: WebSocketAddress, observer: (@Sendable (TCPByteStreamConnector.Stage) -> Void)?,
        completion: @escaping @Sendable (Result<any WebSocketByteStream, URLError>) -> Void
    ) {
        self.address = address
        self.observer = observer
        self.completion = completion
    }

    /// Resolves the host on the attempt's queue (`getaddrinfo` blocks), then connects.
    func start() {
        queue.async { [self] in
            guard !address.isSecure else { return finish(.failure(URLError(.unsupportedURL))) }
            guard !isOver else { return settle() }
            switch ResolvedSocketAddress.resolve(host: address.host, port: address.port) {
            case .success(let addresses):
                candidates = addresses
                connectNext()
            case .failure(let failure):
                finish(.failure(ByteStreamErrors.resolution(failure.code)))
            }
        }
    }

    func dispose() {
        let source = shared.withLock { shared -> DispatchSourceWrite? in
            guard !shared.isOver else { return nil }
            shared.isOver = true
            defer { shared.source = nil }
            return shared.source
        }
        // The cancel handler closes the socket and settles.
        source?.cancel()
    }

    /// Whether the attempt was disposed or has completed.
    private var isOver: Bool { shared.withLock { $0.isOver } }

    /// Connects to the next address, or reports the last failure when none is left.
    private func connectNext() {
        guard !isOver else { return settle() }
        guard nextCandidate < candidates.count else {
            return finish(.failure(lastFailure ?? URLError(.cannotConnectToHost)))
        }
        let candidate = candidates[nextCandidate]
        nextCandidate += 1
        let fd: Int32
        switch ByteStreamSocket.makeTCP(family: candidate.family) {
        case .success(let socket): fd = socket
        case .failure(let failure):
            lastFailure = ByteStreamErrors.socket(failure.code, whileConnecting: true)
            return connectNext()
        }
        switch ByteStreamSocket.startConnect(fd, to: candidate) {
        case nil:
            connected(fd)
        case EINPROGRESS?:
            observer?(.connecting(addressIndex: nextCandidate - 1))
            watch(fd)
        case let error?:
            ByteStreamSocket.close(fd)
            lastFailure = ByteStreamErrors.socket(error, whileConnecting: true)
            connectNext()
        }
    }

    /// Waits for the connecting socket to become writable, which ends the connect either way.
    private func watch(_ fd: Int32) {
        let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
        connecting = (fd, source, .pending)
        source.setEventHandler { [self] in connectEnded() }
        source.setCancelHandler { [self] in sourceCancelled() }
        let registered = shared.withLock { shared -> Bool in
            guard !shared.isOver else { return false }
            shared.source = source
            return true
        }
        if !registered {
            source.cancel()
        }
        source.activate()
    }

    /// The connecting socket is writable: the connect succeeded or failed.
    private func connectEnded() {
        guard let (fd, source, _) = connecting else { return }
        let error = ByteStreamSocket.pendingError(fd)
        connecting?.outcome = error == 0 ? .connected : .failed(error)
        source.cancel()
    }

    /// The source watching the connect is gone (the connect ended, or `dispose()` cancelled
    /// it): only now may the descriptor be closed, or handed to a stream with sources of its
    /// own.
    private func sourceCancelled() {
        guard let (fd, _, outcome) = connecting else { return }
        // Releases the source, and with it the handlers that hold the attempt.
        connecting = nil
        switch outcome {
        case .connected:
            connected(fd)
        case .failed(let error):
            ByteStreamSocket.close(fd)
            lastFailure = ByteStreamErrors.socket(error, whileConnecting: true)
            connectNext()
        case .pending:
            ByteStreamSocket.close(fd)
            settle()
        }
    }

    /// The socket is connected: hands it to a stream and reports it, unless the attempt was
    /// disposed meanwhile (then the stream is closed at once).
    private func connected(_ fd: Int32) {
        guard !isOver else {
            ByteStreamSocket.close(fd)
            return settle()
        }
        let stream = DispatchByteStream(io: SocketByteStreamIO(fileDescriptor: fd))
        finish(.success(stream))
    }

    /// Reports `result` unless the attempt is already over.
    private func finish(_ result: Result<any WebSocketByteStream, URLError>) {
        let report = shared.withLock { shared -> Bool in
            shared.source = nil
            guard !shared.isOver else { return false }
            shared.isOver = true
            return true
        }
        if report {
            completion(result)
        } else if case .success(let stream) = result {
            stream.close()
        }
        settle()
    }

    /// Tells the observer the attempt holds nothing any more.
    private func settle() {
        observer?(.settled)
    }
}
