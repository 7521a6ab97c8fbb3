#if os(Linux)
    import CLeashCurl
    import Dispatch
    import Foundation
    import FoundationNetworking
    import Rx

    /// One TLS connect through libcurl; its disposal abandons it.
    ///
    /// `curl_easy_perform` blocks until the handshake is over, so it runs on the attempt's own
    /// queue. `dispose()` cannot stop it directly: it shuts the handle's sockets down
    /// (`leash_curl_abort`), which makes the connect fail at once, and the connecting thread
    /// then frees the handle. The lock keeps the two apart: `dispose()` touches the handle only
    /// while the connect runs, and the handle is freed or handed on only after it returned.
    final class CurlConnectAttempt: Disposable, @unchecked Sendable {
        // Sendable: `shared` is locked; everything else is immutable.

        /// What `dispose()` and the connecting thread share.
        private struct Shared {
            /// Set by the first of `dispose()` and the completion; after it, nothing is
            /// reported.
            var isOver = false
            /// The handle while its connect runs (nil before and after).
            var connecting: OpaquePointer?
        }

        /// Where to connect.
        private let address: WebSocketAddress
        /// Told of the attempt's stages (tests).
        private let observer: (@Sendable (TCPByteStreamConnector.Stage) -> Void)?
        /// The caller's completion, called at most once.
        private let completion: @Sendable (Result<any WebSocketByteStream, URLError>) -> Void
        /// Where the blocking connect runs.
        private let queue = DispatchQueue(label: "Leash.CurlConnectAttempt")
        /// What `dispose()` shares with the connecting thread.
        private let shared = LockedState(Shared())

        /// An attempt, not yet started.
        init(
            address: WebSocketAddress, observer: (@Sendable (TCPByteStreamConnector.Stage) -> Void)?,
            completion: @escaping @Sendable (Result<any WebSocketByteStream, URLError>) -> Void
        ) {
            self.address = address
            self.observer = observer
            self.completion = completion
        }

        /// Connects on the attempt's queue.
        func start() {
            queue.async { [self] in run() }
        }

        func dispose() {
            shared.withLock { shared in
                guard !shared.isOver else { return }
                shared.isOver = true
                if let connection = shared.connecting { leash_curl_abort(connection) }
            }
        }

        /// The whole connect, blocking.
        private func run() {
            guard address.isSecure else { return finish(.failure(URLError(.unsupportedURL))) }
            guard leash_curl_load() == 0 else { return finish(.failure(CurlErrors.unavailable())) }
            guard let url = CurlTLSByteStreamConnector.url(for: address) else {
                return finish(.failure(URLError(.badURL)))
            }
            var status: Int32 = 0
            let proxy = address.tunnelProxy
            let created: OpaquePointer? =
                if let authorities = address.additionalTrustedAuthorities {
                    authorities.withUnsafeFileSystemRepresentation { leash_curl_create(url, $0, proxy, &status) }
                } else {
                    leash_curl_create(url, nil, proxy, &status)
                }
            guard let connection = created else {
                return finish(.failure(CurlErrors.error(status, connection: nil, whileConnecting: true)))
            }
            let started = shared.withLock { shared -> Bool in
                guard !shared.isOver else { return false }
                shared.connecting = connection
                return true
            }
            guard started else {
                leash_curl_destroy(connection)
                return settle()
            }
            observer?(.connecting(addressIndex: 0))
            let code = leash_curl_connect(connection)
            shared.withLock { $0.connecting = nil }
            guard code == LEASH_CURLE_OK else {
                let error = CurlErrors.error(code, connection: connection, whileConnecting: true)
                leash_curl_destroy(connection)
                return finish(.failure(error))
            }
            let fd = leash_curl_socket(connection)
            guard fd >= 0 else {
                leash_curl_destroy(connection)
                return finish(.failure(URLError(.cannotConnectToHost)))
            }
            let io = CurlByteStreamIO(connection: connection, fileDescriptor: fd)
            finish(.success(SocketByteStream(io: io, label: "Leash.CurlTLSByteStream")))
        }

        /// Reports `result` unless the attempt is already over (a stream is then closed).
        private func finish(_ result: Result<any WebSocketByteStream, URLError>) {
            let report = shared.withLock { shared -> Bool in
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
#endif
