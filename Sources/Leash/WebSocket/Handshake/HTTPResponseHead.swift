import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An HTTP/1.1 response head read off a connection (the answer to a WebSocket upgrade):
/// the status and the header fields.
struct HTTPResponseHead: Sendable {
    /// The status code.
    var statusCode: Int
    /// The header fields, a repeated name's values joined with ", ".
    var headers: HTTPHeaders

    /// The value of the field `name` (case-insensitive).
    func value(for name: String) -> String? {
        headers[name]
    }

    /// The head as Foundation's response to `url`.
    func httpResponse(url: URL) -> HTTPURLResponse? {
        HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: headers.dictionary)
    }

    /// The longest head accepted: a server that sends more is not answering an upgrade.
    static let maximumLength = 64 * 1024

    /// Parses a head from the start of `buffer`, if it is complete.
    ///
    /// - Returns: `nil` while the blank line that ends the head has not arrived; else the
    ///   head and how many bytes of `buffer` it took.
    /// - Throws: `LeashError.invalidResponse` for a head that is not HTTP/1.x, or too long.
    static func parse(_ buffer: Data) throws(LeashError) -> (head: HTTPResponseHead, length: Int)? {
        let terminator = Data("\r\n\r\n".utf8)
        guard let end = buffer.range(of: terminator) else {
            if buffer.count > maximumLength {
                throw .invalidResponse(reason: "the server's response head is longer than \(maximumLength) bytes")
            }
            return nil
        }
        let text = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100...999).contains(status)
        else {
            throw .invalidResponse(reason: "the server did not answer with HTTP/1.1 (\"\(statusLine.prefix(80))\")")
        }
        var headers = HTTPHeaders()
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else {
                throw .invalidResponse(reason: "a header line of the server's response has no colon")
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        return (HTTPResponseHead(statusCode: status, headers: headers), end.upperBound - buffer.startIndex)
    }
}
