extension LoopbackServer {
    /// A scripted route: a method (or any) and a path pattern, and the handler that answers.
    ///
    /// The pattern is matched against the request's path (without the query, still
    /// percent-encoded). It is exact unless it contains `*`, which matches any run of
    /// characters, `/` included: `/status/*` matches `/status/404`, `/users/*/posts`
    /// matches `/users/7/posts`, `*` matches every path.
    ///
    /// An ordinary route's handler gets the request with its whole body in
    /// `LoopbackRequest.body` (at most 512 MB; 413 beyond). A streaming route's handler gets
    /// the body as it arrives, through a `LoopbackBodyReader`, and no `body`:
    ///
    /// ```swift
    /// let upload = LoopbackServer.Route.streaming("PUT", "/files/*") { request, body in
    ///     var hasher = SHA256()
    ///     do { try body.readToEnd { hasher.update($0) } } catch { return .status(400) }
    ///     return .text(hasher.finalizeHex())
    /// }
    /// ```
    package struct Route: Sendable {
        /// What a streaming route runs: the request (with an empty `body`) and its body as it arrives.
        package typealias StreamingHandler = @Sendable (LoopbackRequest, LoopbackBodyReader) -> LoopbackResponse

        /// The method to match (compared case-sensitively, as HTTP does), or nil for any.
        /// A `GET` route also answers `HEAD`, without the body.
        package let method: String?
        /// The path pattern.
        package let path: String
        /// Computes the response. Runs on the connection's own thread, never under a lock;
        /// it may block (other connections carry on) and may call the server. For a streaming
        /// route it runs `streamingHandler` over the request's `body` held in memory, so that a
        /// test can call it without a server.
        package let handler: @Sendable (LoopbackRequest) -> LoopbackResponse
        /// For a streaming route, the handler the server runs with the body as it arrives; nil
        /// for an ordinary route. Runs like `handler`.
        package let streamingHandler: StreamingHandler?

        /// Creates a route answering with `handler`.
        package init(
            method: String? = nil, path: String, handler: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse
        ) {
            self.method = method
            self.path = path
            self.handler = handler
            streamingHandler = nil
        }

        /// Creates a streaming route: `streamingHandler` reads the request body as it arrives
        /// (see `LoopbackBodyReader`) and the server never holds it whole.
        package init(method: String? = nil, path: String, streamingHandler: @escaping StreamingHandler) {
            self.method = method
            self.path = path
            handler = { request in streamingHandler(request, LoopbackBodyReader(data: request.body)) }
            self.streamingHandler = streamingHandler
        }

        /// Creates a route answering every request with `response`.
        package init(method: String? = nil, path: String, response: LoopbackResponse) {
            self.init(method: method, path: path) { _ in response }
        }

        /// A route for `GET` requests.
        package static func get(
            _ path: String, handler: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse
        ) -> Route {
            Route(method: "GET", path: path, handler: handler)
        }

        /// A route for `POST` requests.
        package static func post(
            _ path: String, handler: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse
        ) -> Route {
            Route(method: "POST", path: path, handler: handler)
        }

        /// A route for any method.
        package static func any(
            _ path: String, handler: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse
        ) -> Route {
            Route(method: nil, path: path, handler: handler)
        }

        /// A streaming route for `method` (nil: any); see `init(method:path:streamingHandler:)`.
        package static func streaming(
            _ method: String? = nil, _ path: String, handler: @escaping StreamingHandler
        ) -> Route {
            Route(method: method, path: path, streamingHandler: handler)
        }

        /// Whether this route answers `method` on `path`.
        package func matches(method requestMethod: String, path requestPath: String) -> Bool {
            if let method, method != requestMethod, !(method == "GET" && requestMethod == "HEAD") { return false }
            return Self.pattern(path, matches: requestPath)
        }

        /// Glob matching where `*` matches any run of characters; otherwise exact.
        static func pattern(_ pattern: String, matches text: String) -> Bool {
            let pieces = pattern.utf8.split(separator: UInt8(ascii: "*"), omittingEmptySubsequences: false)
            guard pieces.count > 1 else { return pattern == text }
            var remaining = Substring(text).utf8[...]
            for (index, piece) in pieces.enumerated() {
                if index == 0 {
                    guard remaining.starts(with: piece) else { return false }
                    remaining = remaining.dropFirst(piece.count)
                } else if index == pieces.count - 1 {
                    return remaining.count >= piece.count && remaining.suffix(piece.count).elementsEqual(piece)
                } else if !piece.isEmpty {
                    guard let found = firstRange(of: piece, in: remaining) else { return false }
                    remaining = remaining[found.upperBound...]
                }
            }
            return true
        }

        private static func firstRange(
            of needle: Substring.UTF8View.SubSequence, in haystack: Substring.UTF8View.SubSequence
        ) -> Range<Substring.UTF8View.Index>? {
            var start = haystack.startIndex
            while start < haystack.endIndex {
                if haystack[start...].starts(with: needle) {
                    return start..<haystack.index(start, offsetBy: needle.count)
                }
                start = haystack.index(after: start)
            }
            return nil
        }
    }

    /// Identifies a route added with `route(…)` or `routeSequence(…)`, for `removeRoute(_:)`.
    package struct RouteID: Hashable, Sendable {
        let value: Int
    }
}
