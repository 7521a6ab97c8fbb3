// Compiled on Apple platforms, and on Linux in the build that takes Apple platforms' branches
// (`LEASH_APPLE_BRANCHES`), where `NetworkStandIn/` declares the Network.framework and Security
// subset used here, so that CI compiles and tests this file (a real Apple build never sees
// the stand-in).
#if canImport(Network) || LEASH_APPLE_BRANCHES
    import Dispatch
    import Foundation
    import Rx

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif
    #if canImport(Network)
        import Network
        import Security
    #endif

    /// Opens byte streams with Network.framework: `NWConnection` over TCP, with TLS for `wss://`.
    ///
    /// A connection that cannot be made now goes to `.waiting` in Network.framework, which
    /// retries when the network changes; a WebSocket connect fails at once instead.
    /// `WebSocketAddress.additionalTrustedAuthorities` is honoured here too: its certificates
    /// are trusted besides the system's, through the TLS verify block.
    ///
    /// watchOS allows Network.framework (like BSD sockets) only in the cases TN3135 lists
    /// (an active audio streaming session, a CallKit call…); elsewhere the connection waits with
    /// `ENETDOWN`, which this reports as `.notConnectedToInternet`.
    package struct NetworkByteStreamConnector: WebSocketByteStreamConnector {
        /// A connector.
        package init() {}

        /// Why an address with a `tunnelProxy` is refused.
        private static let noTunnel = "An https request through an HTTP proxy's tunnel is not supported here"

        package func connect(
            to address: WebSocketAddress,
            _ completion: @escaping @Sendable (Result<any WebSocketByteStream, URLError>) -> Void
        ) -> Disposable {
            guard address.tunnelProxy == nil else {
                // A proxy's CONNECT tunnel is libcurl's, on Linux only.
                DispatchQueue.global().async {
                    completion(
                        .failure(URLError(.unsupportedURL, userInfo: [NSLocalizedDescriptionKey: Self.noTunnel])))
                }
                return Disposables.create()
            }
            let attempt = NetworkConnectAttempt(completion: completion)
            attempt.start(address)
            return attempt
        }
    }

    /// One connect; its disposal cancels the connection unless the outcome came first.
    final class NetworkConnectAttempt: Disposable, @unchecked Sendable {
        // Sendable: `connection` is set once, before any handler can run, on the caller's
        // thread; `isClaimed` is locked.

        /// The caller's completion, called at most once.
        private let completion: @Sendable (Result<any WebSocketByteStream, URLError>) -> Void
        /// Where the connection's handlers (and the TLS verify block) run.
        private let queue = DispatchQueue(label: "Leash.NetworkByteStream")
        /// Set by the first of the outcome and `dispose()`; the other then does nothing.
        private let isClaimed = LockedState(false)
        /// The connection being made.
        private var connection: NWConnection?

        /// An attempt that reports to `completion`.
        init(completion: @escaping @Sendable (Result<any WebSocketByteStream, URLError>) -> Void) {
            self.completion = completion
        }

        /// Starts connecting to `address`.
        func start(_ address: WebSocketAddress) {
            // `exactly`, not `clamping`: port 70000 is a bad URL, not port 65535.
            guard let number = UInt16(exactly: address.port), number > 0, let port = NWEndpoint.Port(rawValue: number)
            else {
                return queue.async { [self] in report(.failure(URLError(.badURL))) }
            }
            let tcp = NWProtocolTCP.Options()
            tcp.noDelay = true
            var tls: NWProtocolTLS.Options?
            if address.isSecure {
                let options = NWProtocolTLS.Options()
                if let authorities = address.additionalTrustedAuthorities {
                    guard let anchors = PEMCertificates.der(inFile: authorities) else {
                        return queue.async { [self] in report(.failure(URLError(.secureConnectionFailed))) }
                    }
                    Self.trust(anchors, in: options, queue: queue)
                }
                tls = options
            }
            let connection = NWConnection(
                host: NWEndpoint.Host(address.host), port: port, using: NWParameters(tls: tls, tcp: tcp))
            self.connection = connection
            connection.stateUpdateHandler = { [self] state in changed(to: state) }
            connection.start(queue: queue)
        }

        func dispose() {
            if claim() { connection?.cancel() }
        }

        /// The connection's state changed (on `queue`).
        private func changed(to state: NWConnection.State) {
            guard let connection else { return }
            switch state {
            case .ready:
                // The stream owns the connection from now on: it sets handlers of its own, which
                // release this attempt's (and with it the attempt).
                let stream = NetworkByteStream(connection: connection, queue: queue)
                if claim() { completion(.success(stream)) } else { stream.close() }
            case .waiting(let error), .failed(let error):
                connection.stateUpdateHandler = nil
                connection.cancel()
                report(.failure(NetworkByteStream.urlError(error, whileConnecting: true)))
            case .cancelled:
                connection.stateUpdateHandler = nil
            default:
                break
            }
        }

        /// Reports `result` unless `dispose()` came first.
        private func report(_ result: Result<any WebSocketByteStream, URLError>) {
            if claim() { completion(result) }
        }

        /// Claims the attempt: true for the first caller only.
        private func claim() -> Bool {
            isClaimed.withLock { isClaimed in
                let first = !isClaimed
                isClaimed = true
                return first
            }
        }

        /// Makes `tls` trust `anchors` besides the system's roots; the host name and the rest
        /// of the default evaluation still apply. Synchronous evaluation is fine here: the
        /// block runs on the attempt's queue, never the main thread.
        private static func trust(_ anchors: [Data], in tls: NWProtocolTLS.Options, queue: DispatchQueue) {
            sec_protocol_options_set_verify_block(
                tls.securityProtocolOptions,
                { _, trustReference, complete in
                    let trust = sec_trust_copy_ref(trustReference).takeRetainedValue()
                    let certificates = anchors.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
                    guard SecTrustSetAnchorCertificates(trust, certificates as CFArray) == errSecSuccess,
                        SecTrustSetAnchorCertificatesOnly(trust, false) == errSecSuccess
                    else { return complete(false) }
                    complete(SecTrustEvaluateWithError(trust, nil))
                }, queue)
        }
    }

    /// A `WebSocketByteStream` over a ready `NWConnection`: its receives and sends are the
    /// connection's own (Network.framework reads only as asked, so backpressure holds), and its
    /// completions run on the connection's queue.
    final class NetworkByteStream: WebSocketByteStream, @unchecked Sendable {
        // Sendable: `connection` is thread-safe (its handlers run on `queue`); `condition` is
        // locked.

        /// What the connection's handlers and `close()` have learnt.
        private struct Condition {
            /// Whether `close()` ran: the failures that follow are reported as `.cancelled`,
            /// and the calls made after it fail without reaching the connection.
            var isClosed = false
            /// Whether the connection left `.ready` (failed, waiting or cancelled): this stream
            /// never restarts it.
            var hasLeftReady = false
            /// Whether the connection has a usable path (Network.framework's viability).
            var isViable = true
        }

        /// The ready connection.
        private let connection: NWConnection
        /// The queue the connection delivers its events (and so this stream's completions) on.
        private let queue: DispatchQueue
        /// See `Condition`.
        private let condition = LockedState(Condition())

        /// Takes over a ready connection, which delivers its events on `queue`. Its state and
        /// viability handlers become the stream's.
        init(connection: NWConnection, queue: DispatchQueue) {
            self.connection = connection
            self.queue = queue
            queue.setSpecific(key: Self.queueKey, value: queueIdentity)
            // Weak: the connection keeps its handlers, and a stream nobody holds must be able
            // to go (and cancel the connection in deinit).
            connection.stateUpdateHandler = { [weak self] state in self?.changed(to: state) }
            connection.viabilityUpdateHandler = { [weak self] isViable in
                self?.condition.withLock { $0.isViable = isViable }
            }
        }

        /// A stream nobody holds any more closes its connection.
        deinit {
            connection.cancel()
        }

        func receive(maximumLength: Int, _ completion: @escaping @Sendable (WebSocketByteStreamRead) -> Void) {
            guard !isClosed else { return queue.async { completion(.failed(ByteStreamErrors.closed)) } }
            connection.receive(minimumIncompleteLength: 1, maximumLength: max(1, maximumLength)) {
                [self] data, _, isComplete, error in
                if let data, !data.isEmpty {
                    completion(.bytes(data))
                } else if let error {
                    completion(.failed(failure(error)))
                } else if isComplete {
                    completion(.end)
                } else {
                    completion(.failed(URLError(.networkConnectionLost)))
                }
            }
        }

        func send(_ bytes: Data, _ completion: @escaping @Sendable (URLError?) -> Void) {
            guard !isClosed else { return queue.async { completion(ByteStreamErrors.closed) } }
            connection.send(
                content: bytes, completion: .contentProcessed { [self] error in completion(error.map(failure)) })
        }

        func close() {
            let isFirst = condition.withLock { condition in
                let first = !condition.isClosed
                condition.isClosed = true
                return first
            }
            // Graceful: TLS close-notify, then FIN; outstanding calls complete with ECANCELED.
            if isFirst { connection.cancel() }
        }

        /// Network.framework cannot tell an idle connection's unread bytes or the peer's FIN
        /// without a receive; what it does tell is a connection that left `.ready`, and one
        /// without a usable path (Wi-Fi gone, say): neither can carry a new request now.
        var hasInputOrHangup: Bool {
            condition.withLock { $0.hasLeftReady || !$0.isViable }
        }

        var isOnItsQueue: Bool {
            DispatchQueue.getSpecific(key: Self.queueKey) == queueIdentity
        }

        /// Marks each stream's queue, so that `isOnItsQueue` knows when it runs there.
        private static let queueKey = DispatchSpecificKey<Int>()
        /// This stream's mark on its queue.
        private var queueIdentity: Int { ObjectIdentifier(self).hashValue }

        /// Whether `close()` ran.
        private var isClosed: Bool {
            condition.withLock { $0.isClosed }
        }

        /// The connection's state changed after it was ready (on `queue`).
        private func changed(to state: NWConnection.State) {
            switch state {
            case .waiting, .failed, .cancelled:
                condition.withLock { $0.hasLeftReady = true }
            default:
                break
            }
        }

        /// A failure of a call, `.cancelled` once `close()` ran.
        private func failure(_ error: NWError) -> URLError {
            isClosed ? URLError(.cancelled) : Self.urlError(error, whileConnecting: false)
        }

        /// The `URLError` for a Network.framework error.
        static func urlError(_ error: NWError, whileConnecting: Bool) -> URLError {
            switch error {
            case .posix(let code): return ByteStreamErrors.socket(code.rawValue, whileConnecting: whileConnecting)
            case .dns(let code): return ByteStreamErrors.dnsService(Int(code))
            case .tls(let status): return ByteStreamErrors.tls(status: status)
            default: return URLError(whileConnecting ? .cannotConnectToHost : .networkConnectionLost)
            }
        }
    }
#endif
