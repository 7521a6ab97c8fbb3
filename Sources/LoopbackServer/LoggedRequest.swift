extension LoopbackServer {
    /// The head of a request the server answered, as `LoopbackServer.requestLog` keeps it.
    package struct LoggedRequest: Sendable, Equatable {
        /// The method as sent.
        package var method: String
        /// The request target as sent: path and query, still percent-encoded.
        package var target: String
        /// The path part of the target, still percent-encoded.
        package var path: String
        /// The header fields in the order sent.
        package var headers: LoopbackHeaders
        /// The server's id for the connection the request came on.
        package var connectionID: Int

        /// The `Range` header field's value, if any (`bytes=1048576-`).
        package var range: String? { headers["Range"] }

        init(_ request: LoopbackRequest) {
            method = request.method
            target = request.target
            path = request.path
            headers = request.headers
            connectionID = request.connectionID
        }
    }
}
