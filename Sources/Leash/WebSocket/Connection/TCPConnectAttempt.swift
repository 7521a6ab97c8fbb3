import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One connect, from name resolution to the open stream; its disposal abandons it.
///
/// The steps run on the attempt's serial queue; `dispose()` may come from any thread, so the
/// little it shares with them (whether it is over) sits behind a lock. A connecting socket is
/// watched by the `SocketEventLoop` until it is writable, which ends the connect either way.
final class TCPConnectAttempt: Disposable, @unchecked Sendable {
    // Sendable: `isOverFlag` is locked; the other mutable properties are touched only on
    // `queue`.

    /// Where to connect.
    private let address: WebSocketAddress
    /// Told of the attempt's stages (tests).
    private let observer: (@Sendable (TCPByteStreamConnector.Stage) -> Void)?
    /// The caller's completion, called at most once.
    private let completion: @Sendable (Result<any WebSocketByteStream, URLError>) -> Void
    /// Where the steps run.
    private let queue = DispatchQueue(label: "Leash.TCPConnectAttempt")
    /// Set by the first of `dispose()` and the completion; after it, nothing is reported.
    private let isOverFlag = LockedState(false)
    /// The addresses to try, in order.
    private var candidates: [ResolvedSocketAddress] = []
    /// The index in `candidates` of the next address to try.
    private var nextCandidate = 0
    /// The last connect failure, reported when no address is left.
    private var lastFailure: URLError?
    /// The socket being connected and the loop's watch on it.
    private var connecting: (fd: Int32, watch: SocketWatch)?

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
        let first = isOverFlag.withLock { isOver -> Bool in
            defer { isOver = true }
            return !isOver
        }
        // A connect in progress is abandoned on the queue, where its socket is.
        guard first else { return }
        queue.async { [self] in abandonConnect() }
    }

    /// Whether the attempt was disposed or has completed.
    private var isOver: Bool { isOverFlag.withLock { $0 } }

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
        let watched =
            SocketEventLoop.shared.map { loop in
                loop.watch(fd) { [self] readiness in
                    guard readiness.contains(.writable) else { return }
                    queue.async { self.connectMayHaveEnded() }
                }
            } ?? .failure(SocketErrno(EMFILE))
        switch watched {
        case .success(let watch):
            connecting = (fd, watch)
            // A `dispose()` meanwhile has queued `abandonConnect`, which runs after this.
            watch.arm(for: .writable)
        case .failure(let failure):
            ByteStreamSocket.close(fd)
            lastFailure = ByteStreamErrors.socket(failure.code, whileConnecting: true)
            connectNext()
        }
    }

    /// The loop reported the connecting socket writable: unless the report came early (the
    /// socket is not writable yet), the connect succeeded or failed.
    private func connectMayHaveEnded() {
        guard let (fd, watch) = connecting else { return }
        guard ByteStreamSocket.isWritableOrFailed(fd) else { return watch.arm(for: .writable) }
        connecting = nil
        // The stream (or the next candidate) watches with a watch of its own.
        watch.cancel()
        let error = ByteStreamSocket.pendingError(fd)
        guard error == 0 else {
            ByteStreamSocket.close(fd)
            lastFailure = ByteStreamErrors.socket(error, whileConnecting: true)
            return connectNext()
        }
        connected(fd)
    }

    /// Stops the connect in progress, if any, after `dispose()`.
    private func abandonConnect() {
        guard let (fd, watch) = connecting else { return }
        connecting = nil
        watch.cancel()
        ByteStreamSocket.close(fd)
        settle()
    }

    /// The socket is connected: hands it to a stream and reports it, unless the attempt was
    /// disposed meanwhile (then the stream is closed at once).
    private func connected(_ fd: Int32) {
        guard !isOver else {
            ByteStreamSocket.close(fd)
            return settle()
        }
        let stream = SocketByteStream(io: SocketByteStreamIO(fileDescriptor: fd))
        finish(.success(stream))
    }

    /// Reports `result` unless the attempt is already over.
    private func finish(_ result: Result<any WebSocketByteStream, URLError>) {
        let report = isOverFlag.withLock { isOver -> Bool in
            defer { isOver = true }
            return !isOver
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
