import Foundation

/// A request as the server received it, handed to a route's handler.
package struct LoopbackRequest: Sendable {
    /// The method exactly as sent (`GET`, `POST`, …; HTTP methods are case-sensitive).
    package let method: String
    /// The request target as sent: path and query, still percent-encoded (an absolute-form
    /// target, `http://host/path?query`, is reduced to its path and query).
    package let target: String
    /// The path part of the target, still percent-encoded (`/users/a%20b`).
    package let path: String
    /// The raw query string after `?`, still percent-encoded; nil when the target has no `?`.
    package let query: String?
    /// The query items in the order sent, names and values percent-decoded (`+` is kept as
    /// is); an item without `=` has a nil value.
    package let queryItems: [URLQueryItem]
    /// The header fields in the order sent, with case-insensitive lookup.
    package let headers: LoopbackHeaders
    /// The body, de-chunked when it was sent with `Transfer-Encoding: chunked`; empty for a
    /// streaming route, whose handler reads the body through a `LoopbackBodyReader`.
    package internal(set) var body: Data
    /// The protocol version from the request line, `HTTP/1.1` or `HTTP/1.0`.
    package let httpVersion: String
    /// The server-assigned id of the connection the request came on (1, 2, … per server).
    package let connectionID: Int

    /// Creates a request; the server does this, tests of handlers may too.
    package init(
        method: String, target: String, headers: LoopbackHeaders = [:], body: Data = Data(),
        httpVersion: String = "HTTP/1.1", connectionID: Int = 0
    ) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
        self.connectionID = connectionID
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            let rawQuery = String(target[target.index(after: mark)...])
            query = rawQuery
            queryItems = Self.decodeQuery(rawQuery)
        } else {
            path = target
            query = nil
            queryItems = []
        }
    }

    /// The non-empty path segments, percent-decoded: `/status/404` gives `["status", "404"]`.
    package var pathComponents: [String] {
        path.split(separator: "/").map { Self.percentDecoded($0) }
    }

    /// The value of the first query item named `name`, or nil (also when it has no value).
    package func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value ?? nil
    }

    /// The body as UTF-8 text, or nil when it is not valid UTF-8.
    package var bodyText: String? {
        String(data: body, encoding: .utf8)
    }

    static func decodeQuery(_ query: String) -> [URLQueryItem] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            if let equals = pair.firstIndex(of: "=") {
                return URLQueryItem(
                    name: percentDecoded(pair[..<equals]),
                    value: percentDecoded(pair[pair.index(after: equals)...]))
            }
            return URLQueryItem(name: percentDecoded(pair), value: nil)
        }
    }

    /// Percent-decodes `text`; malformed escapes are kept literally, invalid UTF-8 is repaired.
    static func percentDecoded(_ text: Substring) -> String {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let high = hexValue(iterator[iterator.startIndex]),
                let low = hexValue(iterator[iterator.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
