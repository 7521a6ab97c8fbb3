import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything that can end an execution, each with what a developer needs to act on it.
///
/// Named `LeashError`, not `Error`, so that importing Leash never shadows `Swift.Error`.
public enum LeashError: Swift.Error, CustomStringConvertible, @unchecked Sendable {
    // @unchecked: `HTTPURLResponse` and `URLRequest` are immutable values here, but not
    // declared Sendable on every platform; the other payloads are Sendable.

    /// The URL could not be formed: `reason` says what was wrong, `url` what it was.
    case invalidURL(url: String, reason: String)
    /// The parameters could not be encoded (unsupported type, encoder error, a body on a
    /// method that cannot carry one, a file to send that cannot be read); `underlying` is
    /// the encoder's or the file system's error if any.
    case encoding(reason: String, underlying: Swift.Error?)
    /// The transport failed (no connection, DNS, TLS, connection lost…).
    case transport(URLError)
    /// The execution was cancelled: disposed, its handle's `cancel()`, its task
    /// cancelled, or `Manager.cancelAll()`.
    case cancelled
    /// No complete response arrived within `seconds`.
    case timeout(seconds: TimeInterval)
    /// The server answered with a status outside the acceptable range.
    case unacceptableStatusCode(StatusCodeFailure)
    /// The body could not be decoded to `type`; `bodyExcerpt` shows its beginning.
    case decoding(type: String, underlying: Swift.Error, bodyExcerpt: String)
    /// The response could not be serialized by a custom serializer.
    case serialization(reason: String, underlying: Swift.Error?)
    /// `retry()` was asked for more times than the execution allows.
    case retryLimitExceeded(attempts: Int, lastError: Swift.Error?)
    /// Refreshing the credential failed; `underlying` says why.
    case authenticationFailed(underlying: Swift.Error?)
    /// The server's response was not HTTP or could not be read.
    case invalidResponse(reason: String)
    /// A file of a transfer could not be read or written: an upload's source, a
    /// download's temporary file or its destination (missing, no permission, disk full);
    /// `url` is the file, `underlying` the file system's error.
    case fileAccess(reason: String, url: URL, underlying: Swift.Error?)
    /// A stream's subscriber took nothing for the transport's longest hold while
    /// `bufferedBytes` waited for it: the stream was ended rather than hold up other
    /// requests any longer (see `SlowSubscriberPolicy`).
    case streamOverflow(bufferedBytes: Int)
    /// The server redirected more than the `RedirectPolicy`'s `limit` times in one
    /// attempt; `url` is where the redirect not followed pointed.
    case tooManyRedirects(limit: Int, url: URL)
    /// The server's certificate did not pass the transport's `ServerTrustPolicy` (Apple
    /// platforms only: FoundationNetworking offers no server trust to evaluate); `reason`
    /// says which check failed.
    case serverTrust(host: String, reason: String)
    /// The WebSocket's server broke RFC 6455 (a masked frame, reserved bits, text that is
    /// not UTF-8, a message over the size limit…): Leash closed the connection with
    /// `closeCode`, which says which rule; `reason` says what arrived.
    case webSocketProtocolViolation(reason: String, closeCode: WebSocketCloseCode)
    /// A WebSocket message could not be queued: the socket is closing or closed, or the
    /// outgoing queue is full (see `WebSocketSendFailure`). Nothing was sent.
    case webSocketSendFailed(WebSocketSendFailure)

    /// A sentence a developer can act on.
    public var description: String {
        switch self {
        case .invalidURL(let url, let reason):
            return "Invalid URL \"\(url)\": \(reason)."
        case .encoding(let reason, let underlying):
            return "Could not encode the parameters: \(reason)" + (underlying.map { " (\($0))" } ?? "") + "."
        case .transport(let error):
            return "The request failed in transport: \(error.localizedDescription) (URLError \(error.code.rawValue))."
        case .cancelled:
            return "The execution was cancelled."
        case .timeout(let seconds):
            return "No response within \(seconds) s."
        case .unacceptableStatusCode(let failure):
            return failure.description
        case .decoding(let type, let underlying, let bodyExcerpt):
            return
                "Could not decode \(type): \(LeashError.describeDecodingError(underlying)). Body begins: \(bodyExcerpt)"
        case .serialization(let reason, let underlying):
            return "Could not serialize the response: \(reason)" + (underlying.map { " (\($0))" } ?? "") + "."
        case .retryLimitExceeded(let attempts, let lastError):
            return "Gave up after \(attempts) attempts" + (lastError.map { "; last error: \($0)" } ?? "") + "."
        case .authenticationFailed(let underlying):
            return "Could not refresh the credential" + (underlying.map { ": \($0)" } ?? "")
                + ". The requests that waited for it failed; the next one may refresh again, or ask the user to sign in."
        case .invalidResponse(let reason):
            return "Invalid response: \(reason)."
        case .fileAccess(let reason, let url, let underlying):
            return "File \(url.path): \(reason)" + (underlying.map { " (\($0))" } ?? "") + "."
        case .streamOverflow(let bytes):
            return
                "The stream's subscriber took nothing for too long while \(bytes) bytes waited for it; the stream "
                + "was ended rather than hold up other requests (take less time per element, or deliver elsewhere)."
        case .tooManyRedirects(let limit, let url):
            return "More than \(limit) redirects in one attempt; the next would have gone to \(url.absoluteString)."
        case .serverTrust(let host, let reason):
            return "The server \(host) is not trusted: \(reason)."
        case .webSocketProtocolViolation(let reason, let code):
            return
                "The WebSocket server broke the protocol (\(reason)); the connection was closed with \(code.rawValue)."
        case .webSocketSendFailed(let failure):
            return "The WebSocket message was not sent: \(failure)."
        }
    }

    /// The error this one wraps, if any.
    public var underlyingError: Swift.Error? {
        switch self {
        case .encoding(_, let underlying), .serialization(_, let underlying): return underlying
        case .transport(let error): return error
        case .decoding(_, let underlying, _): return underlying
        case .retryLimitExceeded(_, let lastError): return lastError
        case .authenticationFailed(let underlying), .fileAccess(_, _, let underlying): return underlying
        default: return nil
        }
    }

    /// The HTTP status code, for `unacceptableStatusCode`.
    public var statusCode: Int? {
        if case .unacceptableStatusCode(let failure) = self { return failure.statusCode }
        return nil
    }

    /// Whether the server said the credential is missing or expired (401).
    public var isUnauthorized: Bool { statusCode == 401 }

    private static func describeDecodingError(_ error: Swift.Error) -> String {
        guard let decodingError = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "the top level" : keys.joined(separator: ".")
        }
        switch decodingError {
        case .typeMismatch(let type, let context):
            return "expected \(type) at \(path(context)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "missing \(type) value at \(path(context))"
        case .keyNotFound(let key, let context):
            return "missing key \"\(key.stringValue)\" at \(path(context))"
        case .dataCorrupted(let context):
            return "data corrupted at \(path(context)): \(context.debugDescription)"
        @unknown default:
            return "\(decodingError)"
        }
    }
}

/// A response whose status code was not acceptable.
public struct StatusCodeFailure: CustomStringConvertible, @unchecked Sendable {
    // @unchecked: see `LeashError`.

    /// How the status code is classified.
    public enum Kind: String, Sendable {
        /// 3xx.
        case redirect
        /// 4xx.
        case client
        /// 5xx.
        case server
        /// Anything else (1xx, 2xx outside the acceptable range, nonstandard codes).
        case other
    }

    /// The status code.
    public let statusCode: Int
    /// The response headers (names compare ignoring case: `headers["Retry-After"]`).
    public let headers: HTTPHeaders
    /// The response body.
    public let body: Data
    /// The full response.
    public let response: HTTPURLResponse?
    /// The request that was answered (with the credential it carried).
    public let request: URLRequest?

    /// Creates the failure for a response.
    public init(
        statusCode: Int, headers: HTTPHeaders, body: Data, response: HTTPURLResponse?, request: URLRequest? = nil
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.response = response
        self.request = request
    }

    /// The class of the status code.
    public var kind: Kind {
        switch statusCode {
        case 300..<400: return .redirect
        case 400..<500: return .client
        case 500..<600: return .server
        default: return .other
        }
    }

    /// The body as text, shortened, for messages.
    public var bodyExcerpt: String { excerpt(of: body) }

    /// A sentence with the status, its class and the body's beginning.
    public var description: String {
        let reason = HTTPURLResponse.localizedString(forStatusCode: statusCode)
        return "Unacceptable status code \(statusCode) (\(reason), \(kind.rawValue) error). Body begins: \(bodyExcerpt)"
    }
}

/// The first `limit` characters of `data` as text (or its size if it is not text).
func excerpt(of data: Data, limit: Int = 200) -> String {
    if data.isEmpty { return "(empty)" }
    // Only a prefix is decoded, so long bodies cost nothing; a prefix that cuts a UTF-8
    // sequence short is shortened by up to 3 bytes until it decodes.
    let prefix = data.prefix(limit * 4)
    var text: String?
    for dropped in 0...min(3, prefix.count - 1) {
        text = String(data: prefix.dropLast(dropped), encoding: .utf8)
        if text != nil || prefix.count == data.count { break }
    }
    guard let text else {
        return "(\(data.count) bytes, not UTF-8)"
    }
    if text.count > limit { return String(text.prefix(limit)) + "…" }
    return data.count > prefix.count ? text + "…" : text
}
