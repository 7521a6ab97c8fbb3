import Foundation

/// A response as it goes on the wire for one request: the status and headers once any
/// `Range` is applied, which bytes of the body to send, and how they are framed and paced.
struct ResponsePlan {
    /// How the body is delimited.
    enum Framing: Equatable {
        /// `Content-Length`.
        case length(Int)
        /// `Transfer-Encoding: chunked` in chunks of at most this many bytes.
        case chunked(chunkSize: Int)
        /// No body can follow (1xx, 204, 304).
        case none
    }

    /// A `Range` header's meaning for a body of a given length.
    enum RangeRequest: Equatable {
        /// One satisfiable range, as offsets.
        case satisfiable(Range<Int>)
        /// The range starts past the end (416).
        case unsatisfiable
        /// Not a single valid byte range: the whole body is sent.
        case ignored
    }

    private(set) var status: Int
    private(set) var headers: LoopbackHeaders
    /// The bytes to send, as offsets into the whole body.
    private(set) var bodyRange: Range<Int>
    let fill: @Sendable (Int, UnsafeMutableRawBufferPointer) -> Void
    private(set) var framing: Framing
    /// The body bytes after which the connection closes, when fewer than `bodyRange.count`.
    private(set) var dropAfter: Int?
    let trickle: LoopbackResponse.Trickle?

    /// The plan for `response` answering a request with `method` and `requestHeaders`.
    init(_ response: LoopbackResponse, method: String, requestHeaders: LoopbackHeaders) {
        status = response.status
        headers = response.headers
        trickle = response.trickle
        var dropAfter = response.dropAfterBodyBytes
        let length: Int
        if let generated = response.generatedBody {
            length = generated.length
            fill = generated.fill
        } else {
            let data =
                response.delivery == .closeMidBody && response.body.count < 2
                ? Data(repeating: UInt8(ascii: "x"), count: 1024) : response.body
            length = data.count
            fill = { offset, buffer in
                let start = data.startIndex + offset
                data.copyBytes(to: buffer, from: start..<start + buffer.count)
            }
        }
        if response.delivery == .closeMidBody {
            dropAfter = min(dropAfter ?? Int.max, length / 2)
        }
        bodyRange = 0..<length
        if response.acceptsRanges {
            headers["Accept-Ranges"] = "bytes"
            if let range = requestHeaders["Range"], status == 200, method == "GET" || method == "HEAD",
                Self.ifRangeHolds(requestHeaders["If-Range"], entityTag: headers["ETag"])
            {
                switch Self.parseRange(range, length: length) {
                case .satisfiable(let selected):
                    status = 206
                    headers["Content-Range"] = "bytes \(selected.lowerBound)-\(selected.upperBound - 1)/\(length)"
                    bodyRange = selected
                case .unsatisfiable:
                    status = 416
                    headers["Content-Range"] = "bytes */\(length)"
                    headers["Content-Type"] = nil
                    bodyRange = 0..<0
                    dropAfter = nil
                case .ignored:
                    break
                }
            }
        }
        if !Self.statusAllowsBody(status) {
            framing = .none
            bodyRange = 0..<0
        } else if case .chunked(let chunkSize) = response.delivery {
            framing = .chunked(chunkSize: max(1, chunkSize))
        } else {
            framing = .length(bodyRange.count)
        }
        self.dropAfter = dropAfter.flatMap { $0 < bodyRange.count ? $0 : nil }
    }

    /// Whether a response with `status` may carry a body (not 1xx, 204 or 304).
    static func statusAllowsBody(_ status: Int) -> Bool {
        !(100..<200).contains(status) && status != 204 && status != 304
    }

    /// Whether an `If-Range` condition lets the `Range` apply: absent, or equal to the
    /// response's strong entity tag (a date never matches: these responses have no
    /// `Last-Modified`).
    static func ifRangeHolds(_ condition: String?, entityTag: String?) -> Bool {
        guard let condition else { return true }
        guard let entityTag, !entityTag.hasPrefix("W/") else { return false }
        return condition == entityTag
    }

    /// Interprets a `Range` field value (`bytes=a-b`, `bytes=a-`, `bytes=-n`) for a body of
    /// `length` bytes (RFC 9110 §14.1.2). Several ranges, other units and malformed values
    /// are ignored; an end past the body is clamped.
    static func parseRange(_ value: String, length: Int) -> RangeRequest {
        let trimmed = value.trimmingSpaces()
        guard let equals = trimmed.firstIndex(of: "="),
            LoopbackHeaders.namesMatch(trimmed[..<equals].trimmingSpaces(), "bytes")
        else { return .ignored }
        let specs = trimmed[trimmed.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false)
        guard specs.count == 1, let spec = specs.first?.trimmingSpaces(), let dash = spec.firstIndex(of: "-") else {
            return .ignored
        }
        let firstText = spec[..<dash]
        let lastText = spec[spec.index(after: dash)...]
        if firstText.isEmpty {
            // A suffix: the last n bytes.
            guard let suffix = decimal(lastText) else { return .ignored }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .satisfiable(max(0, length - suffix)..<length)
        }
        guard let first = decimal(firstText) else { return .ignored }
        var last = length - 1
        if !lastText.isEmpty {
            guard let parsed = decimal(lastText), parsed >= first else { return .ignored }
            last = min(parsed, length - 1)
        }
        guard first < length else { return .unsatisfiable }
        return .satisfiable(first..<last + 1)
    }

    /// A run of ASCII digits as a number (saturating at `Int.max`), or nil.
    private static func decimal(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text) ?? Int.max
    }
}
