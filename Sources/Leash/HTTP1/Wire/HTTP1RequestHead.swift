import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where a request's body comes from, as the transport writes it.
enum HTTP1RequestBody {
    /// No body.
    case none
    /// Bytes in memory (`URLRequest.httpBody`).
    case data(Data)
    /// A file, read in pieces as it is sent, of this size.
    case file(URL, size: Int64)
    /// A stream (`URLRequest.httpBodyStream`), of the length the request's `Content-Length`
    /// says, or chunked when it says none.
    case stream(InputStream, length: Int64?)

    /// The body's length, when known before it is sent.
    var length: Int64? {
        switch self {
        case .none: 0
        case .data(let data): Int64(data.count)
        case .file(_, let size): size
        case .stream(_, let length): length
        }
    }
}

/// The bytes of a request's head (RFC 9112 §3), and what it promised about the body.
struct HTTP1RequestHead {
    /// The head, from the request line to the blank line.
    let bytes: Data
    /// Whether the head asks the server to say `100 Continue` before the body is sent.
    let expectsContinue: Bool

    /// The smallest body sent after `Expect: 100-continue`: a server that refuses the request
    /// (a 401, a 413) then says so before a megabyte crosses the network for nothing. Smaller
    /// bodies go at once, without the round trip.
    static let continueThreshold: Int64 = 1 << 20

    /// The headers the transport looks for in a request, by name (compared ignoring case).
    /// The framing ones it writes itself, whatever the request says: the body's framing is
    /// the transport's to decide. The others it adds when the request has none.
    private static let knownHeaders: [(name: String, kind: KnownHeader)] = [
        ("content-length", .framing), ("transfer-encoding", .framing), ("connection", .framing),
        ("host", .host), ("user-agent", .userAgent), ("accept", .accept), ("accept-encoding", .acceptEncoding),
        ("authorization", .authorization), ("proxy-authorization", .proxyAuthorization), ("cookie", .cookie),
        ("expect", .expect),
    ]

    /// What a header named `name` is to the transport, if it is one of `knownHeaders`: found
    /// by comparing bytes, which costs less than lowercasing every name of every request.
    private static func kind(of name: String) -> KnownHeader? {
        knownHeaders.first { HTTP1ResponseSyntax.namesEqual($0.name, name) }?.kind
    }

    /// Methods whose requests carry a `Content-Length: 0` when they have no body (as curl
    /// and URLSession send them): servers may refuse a `POST` without a length.
    private static let methodsWithBody: Set<String> = ["POST", "PUT", "PATCH"]

    /// The head of a request for `target` with `headers`.
    ///
    /// - Parameters:
    ///   - absoluteForm: Whether the request line names the whole URL (to an HTTP proxy).
    ///   - proxyAuthorization: A `Proxy-Authorization` value, for a proxy that asks for one.
    ///   - cookieHeader: The `Cookie` value from the cookie storage, if any (a `Cookie` the
    ///     request sets itself wins).
    /// - Throws: `LeashError.encoding` for a method or header that would break the head (a
    ///   line break in a value: header injection).
    static func make(
        method: String, target: HTTP1Target, headers: [String: String], body: HTTP1RequestBody,
        absoluteForm: Bool = false, proxyAuthorization: String? = nil, cookieHeader: String? = nil
    ) throws(LeashError) -> HTTP1RequestHead {
        guard !method.isEmpty, method.utf8.allSatisfy(HTTP1Token.isTokenByte) else {
            throw .encoding(reason: "the method \"\(method)\" is not an HTTP token", underlying: nil)
        }
        var head = HeadWriter()
        head.put(method)
        head.put(" ")
        head.put(absoluteForm ? target.absoluteForm : target.pathAndQuery)
        head.put(" HTTP/1.1\r\n")
        var has = HeaderPresence()
        for (name, value) in headers {
            let kind = kind(of: name)
            if kind == .framing { continue }
            guard !name.isEmpty, name.utf8.allSatisfy(HTTP1Token.isTokenByte) else {
                throw .encoding(reason: "the header name \"\(name)\" is not an HTTP token", underlying: nil)
            }
            guard value.utf8.allSatisfy({ $0 != 0x0D && $0 != 0x0A && $0 != 0 }) else {
                throw .encoding(reason: "the value of the header \(name) contains a line break or NUL", underlying: nil)
            }
            if let kind { has.note(kind) }
            head.field(name, value)
        }
        if !has.host { head.field("Host", target.hostHeader) }
        if !has.userAgent { head.field("User-Agent", RequestBuilder.userAgent) }
        if !has.accept { head.field("Accept", "*/*") }
        if !has.acceptEncoding { head.field("Accept-Encoding", "gzip, deflate") }
        if !has.authorization, let userInfo = target.userInfo {
            // As curl does: the URL's user part is the request's Basic credential.
            let credential = Data((userInfo.user + ":" + userInfo.password).utf8).base64EncodedString()
            head.field("Authorization", "Basic " + credential)
        }
        if !has.cookie, let cookieHeader { head.field("Cookie", cookieHeader) }
        if let proxyAuthorization, !has.proxyAuthorization {
            head.field("Proxy-Authorization", proxyAuthorization)
        }
        switch body.length {
        case .some(let length) where length > 0 || methodsWithBody.contains(method):
            head.field("Content-Length", String(length))
        case .some:
            break
        case .none:
            head.field("Transfer-Encoding", "chunked")
        }
        let expectsContinue: Bool
        if !has.expect, (body.length ?? continueThreshold) >= continueThreshold {
            head.field("Expect", "100-continue")
            expectsContinue = true
        } else {
            expectsContinue = false
        }
        head.put("\r\n")
        return HTTP1RequestHead(bytes: Data(head.bytes), expectsContinue: expectsContinue)
    }

    /// The head's bytes as they are written: UTF-8 copied into one buffer, which costs a
    /// fraction of appending `String`s (each append checks the characters at the seam).
    private struct HeadWriter {
        var bytes: [UInt8]

        init() {
            bytes = []
            bytes.reserveCapacity(512)
        }

        mutating func put(_ text: String) {
            bytes.append(contentsOf: text.utf8)
        }

        /// A field line: `name: value` and CRLF.
        mutating func field(_ name: String, _ value: String) {
            put(name)
            bytes.append(UInt8(ascii: ":"))
            bytes.append(UInt8(ascii: " "))
            put(value)
            bytes.append(0x0D)
            bytes.append(0x0A)
        }
    }

    /// Which of the headers the transport may add the request set itself.
    private struct HeaderPresence {
        var host = false
        var userAgent = false
        var accept = false
        var acceptEncoding = false
        var authorization = false
        var proxyAuthorization = false
        var cookie = false
        var expect = false

        mutating func note(_ kind: KnownHeader) {
            switch kind {
            case .framing: break
            case .host: host = true
            case .userAgent: userAgent = true
            case .accept: accept = true
            case .acceptEncoding: acceptEncoding = true
            case .authorization: authorization = true
            case .proxyAuthorization: proxyAuthorization = true
            case .cookie: cookie = true
            case .expect: expect = true
            }
        }
    }

    /// A header the transport writes itself (`framing`), or may add.
    private enum KnownHeader {
        case framing, host, userAgent, accept, acceptEncoding, authorization, proxyAuthorization, cookie, expect
    }
}

/// RFC 9110's `token` (§5.6.2): what a method and a header name are made of.
enum HTTP1Token {
    /// Whether `byte` is a `tchar`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
