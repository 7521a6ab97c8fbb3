import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The platform's way to open WebSocket byte streams.
package enum WebSocketByteStreams {
    /// The default connector: Network.framework (`NWConnection`, TCP and TLS) on Apple
    /// platforms; elsewhere BSD sockets for `ws://` and, on Linux, libcurl's TLS for `wss://`
    /// (on other systems a secure address fails with `.unsupportedURL`). Linux's build that takes
    /// Apple platforms' branches keeps the Linux connector: there `NetworkByteStreamConnector`
    /// compiles against a stand-in of Network.framework that does no networking.
    package static var connector: any WebSocketByteStreamConnector {
        #if canImport(Network)
            NetworkByteStreamConnector()
        #elseif os(Linux)
            SchemeRoutingByteStreamConnector(plain: TCPByteStreamConnector(), secure: CurlTLSByteStreamConnector())
        #else
            TCPByteStreamConnector()
        #endif
    }
}

/// Sends plain addresses to one connector and secure ones to another.
package struct SchemeRoutingByteStreamConnector: WebSocketByteStreamConnector {
    /// Connects `ws://` addresses.
    private let plain: any WebSocketByteStreamConnector
    /// Connects `wss://` addresses.
    private let secure: any WebSocketByteStreamConnector

    /// A connector that picks `plain` or `secure` by `WebSocketAddress.isSecure`.
    package init(plain: any WebSocketByteStreamConnector, secure: any WebSocketByteStreamConnector) {
        self.plain = plain
        self.secure = secure
    }

    package func connect(
        to address: WebSocketAddress,
        _ completion: @escaping @Sendable (Result<any WebSocketByteStream, URLError>) -> Void
    ) -> Disposable {
        (address.isSecure ? secure : plain).connect(to: address, completion)
    }
}
