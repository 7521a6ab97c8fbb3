extension LoopbackServer {
    /// A scripted route: a method (or any) and a path pattern, and the handler that answers.
    ///
    /// The pattern is matched against the request's path (without the query, still
    /// percent-encoded). It is exact unless it contains `*`, which matches any run of
    /// characters, `/` included: `/status/*` matches `/status/404`, `/users/*/posts`
    /// matches `/users/7/posts`, `*` matches every path.
    public struct Route: Sendable {
        /// The method to match (compared case-sensitively, as HTTP does), or nil for any.
        /// A `GET` route also answers `HEAD`, without the body.
        public let method: String?
        /// The path pattern.
        public let path: String
        /// Computes the response. Runs on the connection's own thread, never under a lock;
        /// it may block (other connections carry on) and may call the server.
        public let handler: @Sendable (LoopbackRequest) -> LoopbackResponse

        /// Creates a route answering with `handler`.
        public init(
            method: String? = nil, path: String, handler: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse
        ) {
            self.method = method
            self.path = path
            self.handler = handler
        }

        /// Creates a route answering every request with `response`.
        public init(method: String? = nil, path: String, response: LoopbackResponse) {
            self.init(method: method, path: path) { _ in response }
        }

        /// A route for `GET` requests.
        public static func get(
            _ path: String, handler: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse
        ) -> Route {
            Route(method: "GET", path: path, handler: handler)
        }

        /// A route for `POST` requests.
        public static func post(
            _ path: String, handler: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse
        ) -> Route {
            Route(method: "POST", path: path, handler: handler)
        }

        /// A route for any method.
        public static func any(
            _ path: String, handler: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse
        ) -> Route {
            Route(method: nil, path: path, handler: handler)
        }

        /// Whether this route answers `method` on `path`.
        public func matches(method requestMethod: String, path requestPath: String) -> Bool {
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
    public struct RouteID: Hashable, Sendable {
        let value: Int
    }
}
