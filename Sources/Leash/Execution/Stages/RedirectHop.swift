import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How Leash makes the request that follows a redirect (see `RedirectPolicy` for the
/// rules, which this implements).
enum RedirectHop {
    /// The statuses that redirect. (300 leaves the choice to the client, 304 is a cache's
    /// answer, 305 and 306 are obsolete.)
    static func redirects(status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: return true
        default: return false
        }
    }

    /// The request after `response`, which answered `request`; `nil` if `response` is not
    /// a redirect Leash can follow.
    static func proposedRequest(after response: HTTPURLResponse, to request: URLRequest) -> URLRequest? {
        let status = response.statusCode
        guard redirects(status: status), let current = request.url ?? response.url,
            let location = response.value(forHTTPHeaderField: "Location"),
            let target = URL(string: location, relativeTo: current)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https", target.host != nil
        else { return nil }
        var next = request
        next.url = target
        let method = request.httpMethod?.uppercased() ?? "GET"
        let becomesGet = (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST")
        if becomesGet {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.httpBodyStream = nil
            for header in bodyHeaders { next.setValue(nil, forHTTPHeaderField: header) }
        }
        if !sameOrigin(current, target) {
            for header in credentialHeaders { next.setValue(nil, forHTTPHeaderField: header) }
        }
        return next
    }

    /// The headers that describe a body, removed with it (the Fetch standard's
    /// request-body-header names, and `Transfer-Encoding`).
    static let bodyHeaders = [
        "Content-Type", "Content-Length", "Content-Encoding", "Content-Language", "Content-Location",
        "Transfer-Encoding",
    ]

    /// The headers that carry a credential, never sent on to another origin.
    static let credentialHeaders = ["Authorization", "Proxy-Authorization", "Cookie"]

    /// Whether `a` and `b` have the same scheme, host and port (the default port counted as
    /// given).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int) {
            let scheme = url.scheme?.lowercased() ?? ""
            return (scheme, url.host?.lowercased() ?? "", url.port ?? (scheme == "https" ? 443 : 80))
        }
        return origin(a) == origin(b)
    }
}
