import Foundation

extension LoopbackServer {
    /// What `GET /cookies` answers: the cookies the request sent, as httpbin's `/cookies`
    /// does (`{"cookies":{"name":"value"}}`).
    package struct ReceivedCookies: Codable, Sendable, Equatable {
        /// Each cookie of the request's `Cookie` header by name (the last one of a name).
        package var cookies: [String: String]

        /// Creates the answer.
        package init(cookies: [String: String]) {
            self.cookies = cookies
        }
    }

    /// The `Set-Cookie` field httpbin's `/cookies/delete` answers for `name`.
    package static func deletingCookie(_ name: String) -> String {
        "\(name)=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/"
    }

    /// `GET /cookies`: the request's cookies.
    static func receivedCookies(_ request: LoopbackRequest) -> LoopbackResponse {
        var cookies: [String: String] = [:]
        for field in request.headers.values(for: "Cookie") {
            for pair in field.split(separator: ";") {
                let pair = pair.trimmingSpaces()
                guard let equals = pair.firstIndex(of: "=") else { continue }
                cookies[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
        }
        return .json(ReceivedCookies(cookies: cookies))
    }

    /// `GET /cookies/set?name=value…`: a cookie per query item, `name=value; Path=/`, with
    /// the attributes the options `max-age` and `expires-in` ask for, and a 302 to
    /// `/cookies`.
    static func settingCookies(_ request: LoopbackRequest) -> LoopbackResponse {
        var options = QueryOptions(request)
        let expiresIn = options.integer("expires-in", in: -(1 << 40)...(1 << 40))
        guard !options.isMalformed else { return .status(400) }
        var attributes = "; Path=/"
        if let maxAge = request.queryValue("max-age") { attributes += "; Max-Age=\(maxAge)" }
        if let expiresIn { attributes += "; Expires=\(httpDate(Date(timeIntervalSinceNow: TimeInterval(expiresIn))))" }
        var headers: LoopbackHeaders = ["Location": "/cookies"]
        for item in request.queryItems where !cookieOptionNames.contains(item.name) {
            headers.add(name: "Set-Cookie", value: "\(item.name)=\(item.value ?? "")\(attributes)")
        }
        return LoopbackResponse(status: 302, headers: headers)
    }

    /// `GET /cookies/delete?name…`: httpbin's deletion of each named cookie (see
    /// `deletingCookie(_:)`), and a 302 to `/cookies`.
    static func deletingCookies(_ request: LoopbackRequest) -> LoopbackResponse {
        var headers: LoopbackHeaders = ["Location": "/cookies"]
        for item in request.queryItems {
            headers.add(name: "Set-Cookie", value: deletingCookie(item.name))
        }
        return LoopbackResponse(status: 302, headers: headers)
    }

    /// The query items of `/cookies/set` that are options, not cookies.
    private static let cookieOptionNames: Set<String> = ["max-age", "expires-in"]

    /// `date` as an HTTP date (`Thu, 01 Jan 1970 00:00:00 GMT`), to the second below.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
