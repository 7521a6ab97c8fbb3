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
    /// - `GET /cookies`: the cookies the request sent, as httpbin does: `ReceivedCookies`.
    /// - `GET /cookies/set?name=value…`: a `Set-Cookie: name=value; Path=/` per query item
    ///   and a 302 to `/cookies`, as httpbin does. Options, applied to every cookie (and
    ///   not cookies themselves): `max-age=S` adds `; Max-Age=S` (S as given, malformed or
    ///   not), `expires-in=S` adds `; Expires=` the date S seconds from now (to the second
    ///   below; negative for a past date).
    /// - `GET /cookies/delete?name…`: httpbin's deletion of each named cookie,
    ///   `Set-Cookie: name=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/`,
    ///   and a 302 to `/cookies`.
    ///
    /// Streamed routes (`Transfer-Encoding: chunked`, each write one chunk sent at once; see
    /// `LoopbackResponse.streamed(status:headers:_:)`). Their `interval` is in milliseconds
    /// (0…600,000), the pause between two pieces. Their `dropAfter=K` keeps the first
    /// min(K, count) pieces, then (for lines and events) half of the next one, and closes the
    /// connection without the terminating chunk, so the client sees a truncated body.
    /// - `GET /stream/chunks`: `count` chunks (default 10) of `size` bytes (default 16, at
    ///   most 16 MB) of `patternByte(at:)`, the offset running on across chunks (chunk i
    ///   holds bytes i·size…), `application/octet-stream`. Options: `interval=MS`,
    ///   `dropAfter=K`, `forever=1` (chunks until the client goes; `count` is ignored).
    /// - `GET /ndjson`: `count` lines (default 10), line i (from 0) being
    ///   `{"index":i,"name":"item-i"}` and `\n`, `application/x-ndjson`. Options:
    ///   `interval=MS`; `crlf=1` (lines end with `\r\n`); `split=1` (each line in two
    ///   writes cut in its middle, so lines straddle chunks); `bad=I` (line I is
    ///   `{"index":I,`, invalid JSON, still terminated); `dropAfter=K` (cut mid-line);
    ///   `partialLast=1` (a clean end, but the last line has no terminator).
    /// - `GET /ndjson/endless`: `{"a":"xxxx…` with no newline, in 64 KB chunks, until the
    ///   client goes.
    /// - `GET /sse`: server-sent events, `text/event-stream` with `Cache-Control: no-cache`.
    ///   Numbered from the request's `Last-Event-ID` plus one (an absent or non-numeric
    ///   `Last-Event-ID` counts as 0), event n being `id: n\ndata: {"n":n}\n\n`; `count`
    ///   events (default 3) per connection, then a clean end (an event source reconnects).
    ///   Options: `interval=MS`; `retry=MS` (the body starts with `retry: MS\n\n`);
    ///   `comments=1` (a `: keep-alive\n` line before each event); `multiline=1` (the data
    ///   is `data: line one of n\ndata: line two of n\n`); `dropAfter=K` (cut mid-event);
    ///   `endAt=E` (a `204 No Content`, the standard's "stop reconnecting", when
    ///   `Last-Event-ID` ≥ E); `contentType=T` (that `Content-Type` instead);
    ///   `status=C` (200…599: that status with a small JSON body, no stream).
    /// - `GET /sse/flood?count=N`: N events (default 1,000) numbered from 1, each
    ///   `id: n\ndata: {"n":n}\n\n`, as fast as the client reads, many per 64 KB write.
    /// - `GET /lines/flood?bytes=B`: B bytes (default 1 MiB; 0, or 17 up to 4 TiB) of NDJSON
    ///   lines `{"n":i,"pad":"xxxx…"}` and `\n`, i from 0, each 100 bytes long but the last
    ///   (100…199 bytes, or all B when B < 200), as fast as the client reads, in 64 KB writes.
    ///
    /// WebSocket (RFC 6455), scripted by query options; see `webSocketRoutes`:
    /// - `GET /ws/echo` with `Upgrade: websocket`: echoes messages, answers pings and closes.
    ///
    /// `Expect: 100-continue` is answered with `100 Continue` when a route starts reading
    /// the body. Malformed parameters (`/status/abc`, `/large/-1`, `/bytes/1?chunked=yes`)
    /// and malformed query options (`/ndjson?count=-1`, `/sse?retry=soon`) answer 400.
    package static let builtInRoutes: [Route] = [
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
        Route(method: "GET", path: "/cookies", handler: receivedCookies),
        Route(method: "GET", path: "/cookies/set", handler: settingCookies),
        Route(method: "GET", path: "/cookies/delete", handler: deletingCookies),
        Route(method: "GET", path: "/stream/chunks", handler: streamChunks),
        Route(method: "GET", path: "/ndjson", handler: ndjson),
        Route(method: "GET", path: "/ndjson/endless", handler: endlessNDJSON),
        Route(method: "GET", path: "/sse", handler: serverSentEvents),
        Route(method: "GET", path: "/sse/flood", handler: eventFlood),
        Route(method: "GET", path: "/lines/flood", handler: lineFlood),
        Route(method: nil, path: "/ws/echo", handler: webSocketEcho),
    ]

    /// The body of `GET /json`.
    package static let sampleJSON = #"{"id":1,"name":"Leash","tags":["a","b"]}"#

    /// What `/echo` answers: the request as the server saw it.
    package struct EchoedRequest: Codable, Sendable, Equatable {
        /// One query item.
        package struct QueryItem: Codable, Sendable, Equatable {
            /// The decoded name.
            package var name: String
            /// The decoded value; absent for an item without `=`.
            package var value: String?

            /// Creates a query item.
            package init(name: String, value: String?) {
                self.name = name
                self.value = value
            }
        }

        /// The request method.
        package var method: String
        /// The path, still percent-encoded.
        package var path: String
        /// The raw query string, absent when the target had no `?`.
        package var query: String?
        /// The decoded query items, in order.
        package var queryItems: [QueryItem]
        /// The header fields with lower-cased names; repeated fields joined with ", ".
        package var headers: [String: String]
        /// The body as UTF-8 text, absent when it is not valid UTF-8.
        package var body: String?
        /// The body in base64.
        package var bodyBase64: String
        /// The server's id for the connection.
        package var connectionID: Int
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
        var options = QueryOptions(request)
        let ignoreRange = options.flag("ignoreRange")
        let dropAfter = options.integer("dropAfter", in: 0...Int.max)
        let chunked = options.flag("chunked")
        let trickleBytes = options.integer("chunk", in: 1...(1 << 30))
        let interval = options.interval()
        let status = options.integer("status", in: 200...599)
        guard !options.isMalformed else { return .status(400) }

        var response = LoopbackResponse.pattern(length: length).acceptingRanges(!ignoreRange)
        if let dropAfter { response = response.droppingConnection(afterBodyBytes: dropAfter) }
        if chunked { response = response.chunked(size: trickleBytes ?? 64 * 1024) }
        if let trickleBytes {
            response = response.trickled(bytes: trickleBytes, every: interval)
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
