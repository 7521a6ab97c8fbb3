import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Opens plain TCP byte streams (`ws://`) with BSD sockets: the host is resolved off the
/// caller's thread, then each of its addresses (IPv6 and IPv4, in the resolver's order) is
/// tried with a non-blocking connect until one answers.
///
/// A secure address fails with `.unsupportedURL`: this connector never sends in clear what
/// was meant to be encrypted.
package struct TCPByteStreamConnector: WebSocketByteStreamConnector {
    /// What a connect attempt is doing, for tests that must act at a precise moment.
    package enum Stage: Sendable {
        /// A socket is connecting (to the resolved address at this index).
        case connecting(addressIndex: Int)
        /// The attempt holds no descriptor any more and will call nothing more: it completed,
        /// or it was disposed and has released what it held.
        case settled
    }

    /// Told of each `Stage` of every attempt, on the attempt's queue.
    private let observer: (@Sendable (Stage) -> Void)?

    /// A connector.
    /// - Parameter observer: Told of each attempt's stages (tests use it); nil in production.
    package init(observer: (@Sendable (Stage) -> Void)? = nil) {
        self.observer = observer
    }

    package func connect(
        to address: WebSocketAddress,
        _ completion: @escaping @Sendable (Result<any WebSocketByteStream, URLError>) -> Void
    ) -> Disposable {
        let attempt = TCPConnectAttempt(address: address, observer: observer, completion: completion)
        attempt.start()
        return attempt
    }
}
