import Foundation

extension LoopbackServer {
    /// The routes every server has unless created with `includeBuiltInRoutes: false`; any
    /// added route with an overlapping pattern wins over them.
    ///
    /// - `GET /json`: `{"id":1,"name":"Leash","tags":["a","b"]}`.
    /// - `/echo` and `/echo/*`, any method: the request as JSON, see `EchoedRequest`.
    /// - `/status/{code}`, any method: that status (200…599) with a small JSON error body.
    /// - `/delay/{milliseconds}`, any method: `{"delayMilliseconds":N}` after the delay.
    /// - `/close-mid-body`: a 200 announcing 1,024 bytes, closed after 512.
    /// - `/garbage`: bytes that are not HTTP, then close.
    /// - `/hang`: no answer until the client disconnects or the server stops.
    /// - `/large/{bytes}`: a 200 `application/octet-stream` body of that many bytes (at most
    ///   1 GiB), byte `i` being `i % 256`.
    /// - `GET /bytes/{n}`: n bytes (up to 4 TiB) of `patternByte(at:)`, generated as they are
    ///   written (never held in memory), `application/octet-stream` with `Content-Length`,
    ///   `Accept-Ranges: bytes` and `ETag: "pattern-{n}"`. `Range: bytes=a-`, `bytes=a-b` and
    ///   `bytes=-k` get a 206 with `Content-Range`; a range starting at or past n gets a 416
    ///   with `Content-Range: bytes */n` (see `LoopbackResponse.acceptsRanges`). Query
    ///   options, combinable:
    ///   - `ignoreRange=1`: a 200 with the whole body whatever the `Range`, and no
    ///     `Accept-Ranges`;
    ///   - `dropAfter=K`: the connection closes after K body bytes of this response, the
    ///     head having announced them all;
    ///   - `chunked=1`: `Transfer-Encoding: chunked` (chunks of 64 KB, or of `chunk`)
    ///     instead of `Content-Length`;
    ///   - `chunk=S&interval=MS`: S bytes, then a pause of MS milliseconds, repeatedly;
    ///   - `status=C` (200…599): that status with the same (whole) body.
    /// - `/upload`, any method: reads the body as it arrives (`Content-Length` or chunked,
    ///   any size, no memory held) and answers `ReceivedUpload`: its length, SHA-256,
    ///   `Content-Type` and whether it was chunked. With `?sha256=0` it does not hash (and
    ///   answers `"sha256": ""`): hashing runs at about 200 MB/s in a release build, the
    ///   transport at about 1 GB/s, so upload benchmarks skip it.
    /// - `POST /multipart`: parses a `multipart/form-data` body as it arrives and answers
    ///   `ReceivedMultipart` (each part's name, file name, content type, length, SHA-256
    ///   and, for short text fields, value); a malformed form gets a 400 whose JSON says why.
    ///
    /// `Expect: 100-continue` is answered with `100 Continue` when a route starts reading
    /// the body. Malformed parameters (`/status/abc`, `/large/-1`, `/bytes/1?chunked=yes`)
    /// answer 400.
    public static let builtInRoutes: [Route] = [
        Route(method: "GET", path: "/json", response: .json(Data(sampleJSON.utf8))),
        Route(method: nil, path: "/echo", handler: echo),
        Route(method: nil, path: "/echo/*", handler: echo),
        Route(method: nil, path: "/status/*") { request in
            guard let code = lastInteger(request, in: 200...599) else { return .status(400) }
            return .status(code)
        },
        Route(method: nil, path: "/delay/*") { request in
            guard let milliseconds = lastInteger(request, in: 0...Int(Int32.max)) else { return .status(400) }
            return LoopbackResponse.json(["delayMilliseconds": milliseconds])
                .delayed(by: TimeInterval(milliseconds) / 1000)
        },
        Route(method: nil, path: "/close-mid-body", response: .closeMidBody()),
        Route(method: nil, path: "/garbage", response: .garbage()),
        Route(method: nil, path: "/hang", response: .hang),
        Route(method: nil, path: "/large/*") { request in
            guard let count = lastInteger(request, in: 0...(1 << 30)) else { return .status(400) }
            return LoopbackResponse(
                headers: ["Content-Type": "application/octet-stream"], body: patternBytes(count: count))
        },
        Route(method: "GET", path: "/bytes/*", handler: generatedBytes),
        Route(method: nil, path: "/upload", streamingHandler: receiveUpload),
        Route(method: "POST", path: "/multipart", streamingHandler: receiveMultipart),
    ]

    /// The body of `GET /json`.
    public static let sampleJSON = #"{"id":1,"name":"Leash","tags":["a","b"]}"#

    /// What `/echo` answers: the request as the server saw it.
    public struct EchoedRequest: Codable, Sendable, Equatable {
        /// One query item.
        public struct QueryItem: Codable, Sendable, Equatable {
            /// The decoded name.
            public var name: String
            /// The decoded value; absent for an item without `=`.
            public var value: String?

            /// Creates a query item.
            public init(name: String, value: String?) {
                self.name = name
                self.value = value
            }
        }

        /// The request method.
        public var method: String
        /// The path, still percent-encoded.
        public var path: String
        /// The raw query string, absent when the target had no `?`.
        public var query: String?
        /// The decoded query items, in order.
        public var queryItems: [QueryItem]
        /// The header fields with lower-cased names; repeated fields joined with ", ".
        public var headers: [String: String]
        /// The body as UTF-8 text, absent when it is not valid UTF-8.
        public var body: String?
        /// The body in base64.
        public var bodyBase64: String
        /// The server's id for the connection.
        public var connectionID: Int
    }

    private static func echo(_ request: LoopbackRequest) -> LoopbackResponse {
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.lowercased()
            headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
        }
        return .json(
            EchoedRequest(
                method: request.method, path: request.path, query: request.query,
                queryItems: request.queryItems.map { EchoedRequest.QueryItem(name: $0.name, value: $0.value) },
                headers: headers, body: request.bodyText, bodyBase64: request.body.base64EncodedString(),
                connectionID: request.connectionID))
    }

    /// `GET /bytes/{n}` and its query options.
    private static func generatedBytes(_ request: LoopbackRequest) -> LoopbackResponse {
        guard let length = lastInteger(request, in: 0...(1 << 42)) else { return .status(400) }
        var invalid = false
        func option(_ name: String, in range: ClosedRange<Int>) -> Int? {
            guard let text = request.queryValue(name) else { return nil }
            guard let value = Int(text), range.contains(value) else {
                invalid = true
                return nil
            }
            return value
        }
        let ignoreRange = option("ignoreRange", in: 0...1) == 1
        let dropAfter = option("dropAfter", in: 0...Int.max)
        let chunked = option("chunked", in: 0...1) == 1
        let trickleBytes = option("chunk", in: 1...(1 << 30))
        let interval = option("interval", in: 0...600_000)
        let status = option("status", in: 200...599)
        guard !invalid else { return .status(400) }

        var response = LoopbackResponse.pattern(length: length).acceptingRanges(!ignoreRange)
        if let dropAfter { response = response.droppingConnection(afterBodyBytes: dropAfter) }
        if chunked { response = response.chunked(size: trickleBytes ?? 64 * 1024) }
        if let trickleBytes {
            response = response.trickled(bytes: trickleBytes, every: TimeInterval(interval ?? 0) / 1000)
        }
        if let status { response.status = status }
        return response
    }

    private static func lastInteger(_ request: LoopbackRequest, in range: ClosedRange<Int>) -> Int? {
        guard let text = request.pathComponents.last, let value = Int(text), range.contains(value) else { return nil }
        return value
    }

    /// `count` bytes where byte `i` is `i % 256`, built by doubling.
    static func patternBytes(count: Int) -> Data {
        var bytes = Data((0..<256).map { UInt8($0) })
        while bytes.count < count { bytes.append(bytes) }
        return bytes.prefix(count)
    }
}
