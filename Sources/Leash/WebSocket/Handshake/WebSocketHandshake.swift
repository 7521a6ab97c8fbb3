import Foundation
import LeashDigest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The opening handshake of RFC 6455 §4.1, client side: the upgrade request's headers, the
/// bytes of the request, and the checks on the server's `101 Switching Protocols`.
///
/// The request itself is built by the pipeline like any other (the endpoint, the manager's
/// headers, the authenticator, the execution interceptors); this adds what makes it an
/// upgrade, and checks what comes back.
enum WebSocketHandshake {
    /// A fresh `Sec-WebSocket-Key`: 16 random bytes, base64 (§4.1: "randomly selected" for
    /// each connection).
    static func makeKey() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
    }

    /// Makes `request` an upgrade request: a fresh key, the version, the subprotocols and
    /// the extension offer.
    static func prepare(_ request: inout URLRequest, subprotocols: [String], extensionOffer: String?) {
        request.httpMethod = "GET"
        request.setValue("websocket", forHTTPHeaderField: "Upgrade")
        request.setValue("Upgrade", forHTTPHeaderField: "Connection")
        request.setValue(makeKey(), forHTTPHeaderField: "Sec-WebSocket-Key")
        request.setValue("13", forHTTPHeaderField: "Sec-WebSocket-Version")
        if !subprotocols.isEmpty {
            request.setValue(subprotocols.joined(separator: ", "), forHTTPHeaderField: "Sec-WebSocket-Protocol")
        }
        if let extensionOffer {
            request.setValue(extensionOffer, forHTTPHeaderField: "Sec-WebSocket-Extensions")
        }
    }

    /// Where `url` connects: its host and port, and whether it needs TLS (`wss`/`https`).
    static func address(of url: URL) throws(LeashError) -> WebSocketAddress {
        let scheme = url.scheme?.lowercased() ?? ""
        let isSecure: Bool
        switch scheme {
        case "ws", "http": isSecure = false
        case "wss", "https": isSecure = true
        default:
            throw .invalidURL(url: url.absoluteString, reason: "a WebSocket URL is ws://, wss://, http:// or https://")
        }
        guard let host = url.host, !host.isEmpty else {
            throw .invalidURL(url: url.absoluteString, reason: "the URL has no host")
        }
        // An IPv6 literal comes bracketed from some Foundations and not from others.
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return WebSocketAddress(host: bare, port: url.port ?? (isSecure ? 443 : 80), isSecure: isSecure)
    }

    /// The bytes of `request` as an HTTP/1.1 upgrade request (a GET has no body).
    static func requestHead(for request: URLRequest) throws(LeashError) -> Data {
        guard let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw .invalidURL(url: request.url?.absoluteString ?? "", reason: "the request has no URL")
        }
        let address = try address(of: url)
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        let defaultPort = address.isSecure ? 443 : 80
        let hostName = address.host.contains(":") ? "[\(address.host)]" : address.host
        var head = "GET \(target) HTTP/1.1\r\n"
        head += "Host: \(hostName)\(address.port == defaultPort ? "" : ":\(address.port)")\r\n"
        for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) {
            // The request line and Host are ours; a body's headers mean nothing on a GET.
            let lowered = name.lowercased()
            if lowered == "host" || lowered == "content-length" || lowered == "transfer-encoding" { continue }
            guard Self.isToken(name), !value.contains(where: { $0 == "\r" || $0 == "\n" }) else {
                throw .encoding(
                    reason: "the header \(name) cannot be sent: its name or value breaks the line", underlying: nil)
            }
            head += "\(name): \(value)\r\n"
        }
        head += "\r\n"
        return Data(head.utf8)
    }

    /// Whether `name` is an HTTP token (RFC 9110 §5.6.2), as a header name must be.
    private static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    return true
                default:
                    return "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }

    /// What the server agreed to, once its `101` passed the checks.
    struct Agreement: Sendable {
        /// The subprotocol chosen, if any.
        var subprotocol: String?
        /// The server's `Sec-WebSocket-Extensions`, if any.
        var extensions: String?
        /// permessage-deflate's parameters, when the server agreed to it.
        var deflate: PerMessageDeflateParameters?
    }

    /// What Leash offers for permessage-deflate: everything left to the server.
    static let deflateOffer: PerMessageDeflateOptions? = try? PerMessageDeflateOptions()

    /// Checks the server's `101` against the request (§4.1, the client's checks 1–6):
    /// `Upgrade: websocket`, `Connection: Upgrade`, the accept value for the key sent, a
    /// subprotocol among those offered, and extensions only as offered.
    static func check(_ head: HTTPResponseHead, request: URLRequest) -> Result<Agreement, LeashError> {
        func refused(_ reason: String) -> Result<Agreement, LeashError> {
            .failure(.invalidResponse(reason: "the WebSocket handshake failed: \(reason)"))
        }
        guard head.value(for: "Upgrade")?.lowercased() == "websocket" else {
            return refused("the 101 response has no \"Upgrade: websocket\"")
        }
        let connection = head.value(for: "Connection")?.lowercased() ?? ""
        guard connection.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "upgrade" })
        else { return refused("the 101 response has no \"Connection: Upgrade\"") }
        let key = request.value(forHTTPHeaderField: "Sec-WebSocket-Key") ?? ""
        guard head.value(for: "Sec-WebSocket-Accept") == WebSocketAccept.value(forKey: key) else {
            return refused("the server's Sec-WebSocket-Accept does not match the key sent")
        }
        var agreement = Agreement()
        if let chosen = head.value(for: "Sec-WebSocket-Protocol") {
            let offered = (request.value(forHTTPHeaderField: "Sec-WebSocket-Protocol") ?? "")
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard offered.contains(chosen) else {
                return refused("the server chose the subprotocol \"\(chosen)\", which was not offered")
            }
            agreement.subprotocol = chosen
        }
        if let extensions = head.value(for: "Sec-WebSocket-Extensions"), !extensions.isEmpty {
            // Leash offers permessage-deflate and nothing else (§9.1: the server may only
            // answer with what was offered).
            guard request.value(forHTTPHeaderField: "Sec-WebSocket-Extensions") != nil, let offer = deflateOffer else {
                return refused("the server answered with extensions (\(extensions)) none of which were offered")
            }
            do {
                agreement.deflate = try offer.negotiate(responseHeaderValue: extensions)
            } catch {
                return refused("the server's Sec-WebSocket-Extensions cannot be agreed to: \(error)")
            }
            agreement.extensions = extensions
        }
        return .success(agreement)
    }
}
