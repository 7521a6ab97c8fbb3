extension LoopbackServer {
    /// The head of a request the server answered, as `LoopbackServer.requestLog` keeps it.
    public struct LoggedRequest: Sendable, Equatable {
        /// The method as sent.
        public var method: String
        /// The request target as sent: path and query, still percent-encoded.
        public var target: String
        /// The path part of the target, still percent-encoded.
        public var path: String
        /// The header fields in the order sent.
        public var headers: LoopbackHeaders
        /// The server's id for the connection the request came on.
        public var connectionID: Int

        /// The `Range` header field's value, if any (`bytes=1048576-`).
        public var range: String? { headers["Range"] }

        init(_ request: LoopbackRequest) {
            method = request.method
            target = request.target
            path = request.path
            headers = request.headers
            connectionID = request.connectionID
        }
    }
}
