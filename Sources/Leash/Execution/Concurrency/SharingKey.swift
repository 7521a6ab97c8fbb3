import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What makes two requests the same request for sharing: a GET of the same
/// URL with the same headers (names compared case-insensitively, values exactly).
///
/// Every header counts, so requests with different credentials, languages or
/// `Accept` types never share an answer.
package struct SharingKey: Hashable, Sendable {
    let url: String
    /// Compared and hashed with names in any case (see `HTTPHeaders`).
    let headers: HTTPHeaders

    /// The key of `request`, or `nil` if it must not be shared: it is not a GET, has no
    /// URL, or carries a body.
    package init?(sharing request: URLRequest) {
        guard (request.httpMethod ?? "GET").uppercased() == "GET", let url = request.url,
            request.httpBody == nil, request.httpBodyStream == nil
        else { return nil }
        self.url = url.absoluteString
        self.headers = HTTPHeaders(request.allHTTPHeaderFields ?? [:])
    }
}
