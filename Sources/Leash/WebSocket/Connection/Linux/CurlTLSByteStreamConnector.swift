#if os(Linux)
    import CLeashCurl
    import Dispatch
    import Foundation
    import FoundationNetworking
    import Rx

    /// Opens TLS byte streams (`wss://`) on Linux with the system's libcurl in connect-only
    /// mode: libcurl resolves, connects and runs the handshake (verifying the certificate and
    /// the host name), then the stream moves bytes with `curl_easy_recv`/`curl_easy_send`.
    ///
    /// libcurl is the one FoundationNetworking already loads, opened at run time (`CLeashCurl`),
    /// so Leash has no link-time dependency on it. Where it cannot be loaded, connecting fails
    /// with `.unsupportedURL`.
    ///
    /// `WebSocketAddress.additionalTrustedAuthorities` becomes libcurl's CA file
    /// (`CURLOPT_CAINFO`), which replaces the default bundle *file*; the default CA
    /// *directory* stays in use where libcurl was built with one (Debian and Ubuntu:
    /// /etc/ssl/certs), so public authorities remain trusted there. Elsewhere only the given
    /// authorities may be: the option is meant for tests and private CAs.
    ///
    /// A plain address fails with `.unsupportedURL` (`TCPByteStreamConnector` is for those).
    package struct CurlTLSByteStreamConnector: WebSocketByteStreamConnector {
        /// Told of each attempt's stages (tests); nil in production.
        private let observer: (@Sendable (TCPByteStreamConnector.Stage) -> Void)?

        /// A connector.
        /// - Parameter observer: Told of each attempt's stages: `.connecting` once the
        ///   handshake starts, `.settled` once the attempt holds nothing any more.
        package init(observer: (@Sendable (TCPByteStreamConnector.Stage) -> Void)? = nil) {
            self.observer = observer
        }

        /// Whether libcurl can be loaded here (tests skip TLS without it).
        package static var isAvailable: Bool { leash_curl_load() == 0 }

        /// "https://host:port/" for libcurl, or nil for a host that would change the URL's
        /// meaning (a user part, a path) rather than name a host.
        package static func url(for address: WebSocketAddress) -> String? {
            guard (1...65535).contains(address.port), !address.host.isEmpty else { return nil }
            let isIPv6 = address.host.contains(":")
            // Letters, digits, "-", "." and "_" (and for an IPv6 literal ":" and a "%zone"): none
            // of them can end the host part of the URL.
            let allowed = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._" + (isIPv6 ? ":%" : "")
            guard address.host.unicodeScalars.allSatisfy({ allowed.unicodeScalars.contains($0) }) else { return nil }
            // A zone ("fe80::1%eth0") is written %25 in a URL.
            let host = isIPv6 ? "[\(address.host.replacingOccurrences(of: "%", with: "%25"))]" : address.host
            return "https://\(host):\(address.port)/"
        }

        package func connect(
            to address: WebSocketAddress,
            _ completion: @escaping @Sendable (Result<any WebSocketByteStream, URLError>) -> Void
        ) -> Disposable {
            let attempt = CurlConnectAttempt(address: address, observer: observer, completion: completion)
            attempt.start()
            return attempt
        }
    }
#endif
