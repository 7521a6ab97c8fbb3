import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where a request goes, read from its URL's string as it is written (already
/// percent-encoded): the scheme, the host and port to connect to, the `Host` header, the
/// request target (path and query, never the fragment), and any user part.
///
/// Read by hand rather than with `URLComponents`: every request needs it, and a URL's string
/// has the one shape `scheme://authority/path?query#fragment` for the two schemes served.
struct HTTP1Target: Sendable, Equatable {
    /// `http` or `https`, lowercased.
    let scheme: String
    /// The host, without the brackets of an IPv6 literal, lowercased.
    let host: String
    /// The port, the scheme's default when the URL names none.
    let port: Int
    /// The `Host` header's value: the authority as written, without any user part.
    let hostHeader: String
    /// The path and query (`/` for an empty path), as sent in the request line.
    let pathAndQuery: String
    /// The URL's user part (`user:password`), percent-decoded, if any.
    let userInfo: (user: String, password: String)?

    static func == (lhs: HTTP1Target, rhs: HTTP1Target) -> Bool {
        lhs.scheme == rhs.scheme && lhs.host == rhs.host && lhs.port == rhs.port && lhs.hostHeader == rhs.hostHeader
            && lhs.pathAndQuery == rhs.pathAndQuery && lhs.userInfo?.user == rhs.userInfo?.user
            && lhs.userInfo?.password == rhs.userInfo?.password
    }

    /// Whether TLS runs under the request.
    var isSecure: Bool { scheme == "https" }

    /// The request's URL as the request line names it to a proxy (absolute form, RFC 9112
    /// §3.2.2): without the user part and the fragment.
    var absoluteForm: String { scheme + "://" + hostHeader + pathAndQuery }

    /// Reads `url`; throws a `LeashError.transport` with `.unsupportedURL` for a scheme other
    /// than `http` and `https` (as URLSession does), `.badURL` for a URL without a host, with
    /// a port out of range, or with bytes a request line cannot carry.
    init(_ url: URL) throws(LeashError) {
        let string = url.absoluteString
        let bytes = Array(string.utf8)
        guard let schemeEnd = Self.schemeEnd(in: bytes) else {
            throw Self.failure(.unsupportedURL, url, "it has no scheme and host")
        }
        let scheme = Self.asciiLowercased(bytes[0..<schemeEnd])
        guard scheme == "http" || scheme == "https" else {
            throw Self.failure(.unsupportedURL, url, "only http and https are supported")
        }
        let authorityStart = schemeEnd + 3
        var authorityEnd = authorityStart
        while authorityEnd < bytes.count, !Self.endsAuthority(bytes[authorityEnd]) { authorityEnd += 1 }
        var hostStart = authorityStart
        var userInfo: (String, String)?
        if let at = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) {
            let raw = String(decoding: bytes[authorityStart..<at], as: UTF8.self)
            let parts = raw.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let user = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let password = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
            userInfo = (user, password)
            hostStart = at + 1
        }
        let authority = bytes[hostStart..<authorityEnd]
        var host: ArraySlice<UInt8>
        var portText: ArraySlice<UInt8> = []
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                throw Self.failure(.badURL, url, "its IPv6 address has no closing bracket")
            }
            host = authority[(authority.startIndex + 1)..<close]
            let rest = authority[(close + 1)...]
            if let colon = rest.first {
                guard colon == UInt8(ascii: ":") else { throw Self.failure(.badURL, url, "its host is malformed") }
                portText = rest.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
            host = authority[authority.startIndex..<colon]
            portText = authority[(colon + 1)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw Self.failure(.badURL, url, "it has no host") }
        var port = scheme == "https" ? 443 : 80
        if !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy({ (48...57).contains($0) }),
                let parsed = Int(String(decoding: portText, as: UTF8.self)), (1...65535).contains(parsed)
            else { throw Self.failure(.badURL, url, "its port is not a number from 1 to 65535") }
            port = parsed
        }
        var targetEnd = authorityEnd
        while targetEnd < bytes.count, bytes[targetEnd] != UInt8(ascii: "#") { targetEnd += 1 }
        let target = bytes[authorityEnd..<targetEnd]
        // What a request line or a Host header cannot carry: controls, spaces, and bytes
        // beyond ASCII (a URL's string has them percent-encoded).
        guard target.allSatisfy(Self.isVisibleASCII), authority.allSatisfy(Self.isVisibleASCII) else {
            throw Self.failure(.badURL, url, "it contains a space, a control character or a non-ASCII byte")
        }
        self.scheme = scheme
        self.host = Self.asciiLowercased(host)
        self.port = port
        self.hostHeader = String(decoding: authority, as: UTF8.self)
        if target.isEmpty {
            pathAndQuery = "/"
        } else if target.first == UInt8(ascii: "?") {
            pathAndQuery = "/" + String(decoding: target, as: UTF8.self)
        } else {
            pathAndQuery = String(decoding: target, as: UTF8.self)
        }
        self.userInfo = userInfo.map { (user: $0.0, password: $0.1) }
    }

    /// Whether `byte` ends a URL's authority.
    private static func endsAuthority(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    /// Where `needle` first occurs in `bytes`.
    /// Where the first `://` of `bytes` starts, if anywhere.
    private static func schemeEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 3 else { return nil }
        for start in 0...(bytes.count - 3)
        where bytes[start] == UInt8(ascii: ":") && bytes[start + 1] == UInt8(ascii: "/")
            && bytes[start + 2] == UInt8(ascii: "/")
        {
            return start
        }
        return nil
    }

    /// `bytes` as a string with ASCII letters in lower case (all a scheme or a host has once
    /// the URL's string percent-encoded the rest).
    private static func asciiLowercased(_ bytes: ArraySlice<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (offset, byte) in bytes.enumerated() { buffer[offset] = HTTP1ResponseSyntax.lowercased(byte) }
            return bytes.count
        }
    }

    /// Whether `byte` is printable ASCII other than the space.
    private static func isVisibleASCII(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F
    }

    /// The error for a URL the transport cannot send to.
    private static func failure(_ code: URLError.Code, _ url: URL, _ reason: String) -> LeashError {
        .transport(
            URLError(
                code,
                userInfo: [
                    NSLocalizedDescriptionKey: "Cannot send a request to \(url.absoluteString): \(reason)",
                    NSURLErrorFailingURLErrorKey: url,
                ]))
    }
}
