import Foundation

/// What a route answers: a status, headers and a body, plus how to deliver them.
///
/// The server frames the response itself: it writes `Content-Length` (or
/// `Transfer-Encoding: chunked`) and `Connection`, and ignores those fields in `headers`.
/// Behaviours combine: `.json(value).delayed(by: 0.2).chunked(size: 8)`.
///
/// A body can also be produced while it is written (`generated(length:fill:)`,
/// `pattern(length:)`), so that gigabytes cost no memory, and any body can answer `Range`
/// requests (`acceptingRanges()`), stop early (`droppingConnection(afterBodyBytes:)`) or
/// trickle out (`trickled(bytes:every:)`). A body can even be written by code as it goes,
/// chunk by chunk (`streamed(status:headers:_:)`, see `LoopbackStreamWriter`):
///
/// ```swift
/// // A download that breaks after 1 MB, then answers the client's Range request.
/// server.routeSequence(
///     method: "GET", path: "/file",
///     [.pattern(length: 4 << 20).droppingConnection(afterBodyBytes: 1 << 20), .pattern(length: 4 << 20)])
/// ```
package struct LoopbackResponse: Sendable {
    /// How the response goes on the wire.
    package enum Delivery: Sendable, Equatable {
        /// A normal response framed by `Content-Length`.
        case contentLength
        /// `Transfer-Encoding: chunked`, the body split into chunks of at most `chunkSize` bytes.
        case chunked(chunkSize: Int)
        /// The head announces `Content-Length` of the whole body, but only the first half of
        /// the body is sent before the connection closes (a body of at least 2 bytes is used;
        /// a shorter `body` without `generatedBody` is replaced by 1,024 bytes of `x`).
        case closeMidBody
        /// `body` is written raw, with no status line or headers, and the connection closes.
        case garbage
        /// Nothing is ever written; the connection stays open until the client disconnects
        /// or the server stops.
        case hang
    }

    /// The status code.
    package var status: Int
    /// Header fields to send besides the framing fields the server writes itself.
    package var headers: LoopbackHeaders
    /// The body (unless `generatedBody` is set).
    package var body: Data
    /// A body produced while it is written; when set, it replaces `body`.
    package var generatedBody: GeneratedBody?
    /// A body that code writes as it goes; when set, it replaces `body` and `generatedBody`
    /// (see `streamed(status:headers:_:)` for what still applies).
    package var streamedBody: StreamedBody?
    /// Whether the response answers `Range: bytes=…` requests: it then says
    /// `Accept-Ranges: bytes`, and a 200 to a `GET` or `HEAD` with a single byte range becomes
    /// a `206 Partial Content` with that range (a `416` with `Content-Range: bytes */length`
    /// when the range starts past the end). A `Range` with several ranges, or an `If-Range`
    /// that does not match the `ETag` header, gets the whole body.
    package var acceptsRanges: Bool
    /// When set, the connection closes after this many body bytes of the response (counted
    /// after any `Range`), though the head announced them all.
    package var dropAfterBodyBytes: Int?
    /// When set, the body goes out in pieces with pauses between them.
    package var trickle: Trickle?
    /// Seconds to wait before answering. The wait watches the connection, so a client that
    /// disconnects meanwhile is counted in `clientDisconnectCount`; other connections are
    /// never blocked.
    package var delay: TimeInterval
    /// How the response is framed and sent.
    package var delivery: Delivery
    /// Whether the server closes the connection after this response even if the client
    /// wanted to keep it alive (the response then says `Connection: close`).
    package var closeAfterResponse: Bool
    /// For a WebSocket upgrade (`LoopbackServer.webSocketRoutes`): what the connection does
    /// once the `101` is out; the rest of the response is ignored.
    var webSocket: WebSocketScript?
    /// Whether the connection closes with nothing written, once the request has been read: a
    /// lost answer (`IdempotentEffects.dropResponseProbability`). `garbage(Data())` cannot
    /// say this: an empty garbage body is replaced by `defaultGarbage`.
    var closesWithoutAnswer = false

    /// Creates a response.
    package init(
        status: Int = 200, headers: LoopbackHeaders = [:], body: Data = Data(), delay: TimeInterval = 0,
        delivery: Delivery = .contentLength, closeAfterResponse: Bool = false
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.delivery = delivery
        self.closeAfterResponse = closeAfterResponse
        generatedBody = nil
        streamedBody = nil
        acceptsRanges = false
        dropAfterBodyBytes = nil
        trickle = nil
        webSocket = nil
    }

    // MARK: - Bodies

    /// JSON bytes sent as they are, with `Content-Type: application/json`.
    package static func json(_ data: Data, status: Int = 200) -> LoopbackResponse {
        LoopbackResponse(status: status, headers: ["Content-Type": "application/json"], body: data)
    }

    /// A value encoded with a `JSONEncoder` (sorted keys), with `Content-Type: application/json`.
    /// If encoding fails the response is a 500 whose text body names the error.
    package static func json<Value: Encodable>(_ value: Value, status: Int = 200) -> LoopbackResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return json(try encoder.encode(value), status: status)
        } catch {
            return text("LoopbackServer could not encode the response: \(error)", status: 500)
        }
    }

    /// UTF-8 text with `Content-Type: text/plain; charset=utf-8`.
    package static func text(_ text: String, status: Int = 200) -> LoopbackResponse {
        LoopbackResponse(
            status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Data(text.utf8))
    }

    /// The status with a small JSON error body, `{"error":"Not Found","status":404}`
    /// (no body for 204 and 304, which cannot carry one).
    package static func status(_ code: Int) -> LoopbackResponse {
        if code == 204 || code == 304 { return empty(status: code) }
        return json(ErrorBody(error: reasonPhrase(for: code), status: code), status: code)
    }

    /// The status with no body.
    package static func empty(status: Int = 204) -> LoopbackResponse {
        LoopbackResponse(status: status)
    }

    /// A response that is never sent: the connection hangs until the client disconnects
    /// or the server stops.
    package static var hang: LoopbackResponse {
        LoopbackResponse(delivery: .hang)
    }

    /// Bytes that are not HTTP, written raw before the connection closes.
    package static func garbage(_ bytes: Data = defaultGarbage) -> LoopbackResponse {
        LoopbackResponse(body: bytes, delivery: .garbage)
    }

    /// A 200 whose head announces `body.count` bytes, of which only the first half is sent
    /// before the connection closes.
    package static func closeMidBody(_ body: Data = Data(repeating: UInt8(ascii: "x"), count: 1024))
        -> LoopbackResponse
    {
        LoopbackResponse(headers: ["Content-Type": "application/octet-stream"], body: body, delivery: .closeMidBody)
    }

    /// What `.garbage()` sends: text and binary bytes without a status line.
    package static let defaultGarbage = Data("this is not HTTP\r\n\r\n".utf8) + Data([0x00, 0xFF, 0xFE, 0x7F, 0x0A])

    // MARK: - Behaviours

    /// This response, answered after waiting `seconds`.
    package func delayed(by seconds: TimeInterval) -> LoopbackResponse {
        var copy = self
        copy.delay = seconds
        return copy
    }

    /// This response with `Transfer-Encoding: chunked`, in chunks of at most `size` bytes.
    package func chunked(size: Int = 1024) -> LoopbackResponse {
        var copy = self
        copy.delivery = .chunked(chunkSize: max(1, size))
        return copy
    }

    /// This response cut off halfway through its body (see `Delivery.closeMidBody`).
    package func closingMidBody() -> LoopbackResponse {
        var copy = self
        copy.delivery = .closeMidBody
        return copy
    }

    /// This response, after which the server closes the connection.
    package func closingConnection() -> LoopbackResponse {
        var copy = self
        copy.closeAfterResponse = true
        return copy
    }

    /// This response with the header field `name` set to `value` (replacing any other).
    package func header(_ name: String, _ value: String) -> LoopbackResponse {
        var copy = self
        copy.headers[name] = value
        return copy
    }

    // MARK: - Reason phrases

    /// The standard reason phrase for `code`, or a generic one for its class.
    package static func reasonPhrase(for code: Int) -> String {
        if let phrase = reasonPhrases[code] { return phrase }
        switch code {
        case 100..<200: return "Informational"
        case 200..<300: return "Success"
        case 300..<400: return "Redirection"
        case 400..<500: return "Client Error"
        default: return "Server Error"
        }
    }

    private static let reasonPhrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols",
        200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content",
        205: "Reset Content", 206: "Partial Content",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 408: "Request Timeout", 409: "Conflict", 410: "Gone",
        411: "Length Required", 412: "Precondition Failed", 413: "Content Too Large", 414: "URI Too Long",
        415: "Unsupported Media Type", 416: "Range Not Satisfiable", 417: "Expectation Failed",
        418: "I'm a teapot", 422: "Unprocessable Content", 425: "Too Early", 426: "Upgrade Required",
        428: "Precondition Required", 429: "Too Many Requests", 431: "Request Header Fields Too Large",
        451: "Unavailable For Legal Reasons",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported", 511: "Network Authentication Required",
    ]

    /// The answer to a request the server refuses: `{"error":"Bad Request","reason":…,"status":400}`.
    static func failure(status: Int, reason: String) -> LoopbackResponse {
        json(FailureBody(error: reasonPhrase(for: status), reason: reason, status: status), status: status)
    }

    private struct FailureBody: Encodable {
        let error: String
        let reason: String
        let status: Int
    }

    private struct ErrorBody: Encodable {
        let error: String
        let status: Int
    }
}
