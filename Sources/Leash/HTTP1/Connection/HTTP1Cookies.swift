import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The cookies of an `HTTP1Transport`, kept in an `HTTPCookieStorage` (RFC 6265): a
/// request's `Cookie` header, and the `Set-Cookie` fields of a response stored.
///
/// Leash matches cookies to requests itself rather than asking the storage: the domain (a
/// host-only cookie's host exactly, a domain cookie's domain and its subdomains), the path
/// (§5.1.4), `Secure` (https only) and the expiry. `Max-Age` wins over `Expires` (§5.3) on
/// every platform: FoundationNetworking's storage reads neither `Max-Age` nor its deletion,
/// so a cookie set with one is stored with the expiry it says, and `Max-Age=0` (or an
/// `Expires` in the past) deletes the stored cookie.
struct HTTP1Cookies: @unchecked Sendable {
    // @unchecked: `HTTPCookieStorage` is thread-safe (FoundationNetworking declares it
    // `Sendable`; the Apple SDKs Leash supports do not all do so).

    /// Where cookies are kept.
    let storage: HTTPCookieStorage

    /// The `Cookie` header for a request to `target`, or nil when no cookie matches.
    func header(for target: HTTP1Target, url: URL) -> String? {
        guard let all = storage.cookies, !all.isEmpty else { return nil }
        let now = Date()
        let path = Self.path(of: target)
        var matching: [HTTPCookie] = []
        for cookie in all {
            if let expiry = cookie.expiresDate, expiry <= now {
                storage.deleteCookie(cookie)
                continue
            }
            guard Self.domain(cookie.domain, matches: target.host), Self.path(path, matches: cookie.path),
                !cookie.isSecure || target.isSecure
            else { continue }
            matching.append(cookie)
        }
        guard !matching.isEmpty else { return nil }
        // Longer paths first (§5.4).
        matching.sort { $0.path.count > $1.path.count }
        return matching.map { $0.name + "=" + $0.value }.joined(separator: "; ")
    }

    /// Stores the cookies `head` sets, received for `url`.
    func store(_ head: HTTP1ResponseHead, from url: URL) {
        guard storage.cookieAcceptPolicy != .never else { return }
        let host = url.host?.lowercased() ?? ""
        let now = Date()
        for line in head.values("Set-Cookie") {
            // A cookie without a `Path` (or with one not starting with "/") belongs to the
            // directory of the URL that set it (§5.2.4, §5.1.4), where Foundation's parser
            // gives "/".
            let defaultPath = Self.hasOwnPath(line) ? nil : Self.defaultPath(of: url)
            for parsed in HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": line], for: url) {
                guard let cookie = defaultPath.map({ Self.cookie(parsed, path: $0) }) ?? parsed else { continue }
                // A cookie for another domain than the server's is refused (§5.3 step 6).
                guard Self.domain(cookie.domain, matches: host) else { continue }
                let maxAge = CookieExpiry.maxAge(of: cookie)
                let expiry = maxAge.map { now.addingTimeInterval(TimeInterval(min($0, 1 << 40))) } ?? cookie.expiresDate
                if let expiry, expiry <= now {
                    delete(like: cookie)
                    continue
                }
                if maxAge != nil, let expiry, let lasting = CookieExpiry.copy(of: cookie, expiring: expiry) {
                    storage.setCookie(lasting)
                } else {
                    storage.setCookie(cookie)
                }
            }
        }
    }

    /// Whether a `Set-Cookie` line names a path of its own (a `Path` attribute beginning with
    /// "/"; another is ignored, §5.2.4).
    static func hasOwnPath(_ line: String) -> Bool {
        line.split(separator: ";").dropFirst().contains { attribute in
            let trimmed = attribute.trimmingCharacters(in: .whitespaces)
            guard trimmed.lowercased().hasPrefix("path=") else { return false }
            return trimmed.dropFirst(5).hasPrefix("/")
        }
    }

    /// RFC 6265 §5.1.4's default path of `url`: its path up to, not including, its last "/"
    /// ("/" when that leaves nothing).
    static func defaultPath(of url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let last = path.lastIndex(of: "/"), last != path.startIndex else { return "/" }
        return String(path[..<last])
    }

    /// `cookie` with `path` (nil if Foundation refuses the result).
    static func cookie(_ cookie: HTTPCookie, path: String) -> HTTPCookie? {
        guard cookie.path != path, var properties = cookie.properties else { return cookie }
        properties[.path] = path
        return HTTPCookie(properties: properties)
    }

    /// Deletes the stored cookie with `cookie`'s name, domain and path.
    private func delete(like cookie: HTTPCookie) {
        for stored in storage.cookies ?? []
        where stored.name == cookie.name && stored.domain.lowercased() == cookie.domain.lowercased()
            && stored.path == cookie.path
        {
            storage.deleteCookie(stored)
        }
    }

    /// The request's path, for matching: the target up to its query.
    static func path(of target: HTTP1Target) -> String {
        let path = target.pathAndQuery
        guard let query = path.firstIndex(of: "?") else { return path }
        let before = String(path[..<query])
        return before.isEmpty ? "/" : before
    }

    /// RFC 6265 §5.1.3, with a stored domain's leading dot meaning "and its subdomains".
    static func domain(_ domain: String, matches host: String) -> Bool {
        var domain = domain.lowercased()
        let isDomainCookie = domain.hasPrefix(".")
        if isDomainCookie { domain.removeFirst() }
        if host == domain { return true }
        return isDomainCookie && host.hasSuffix("." + domain)
    }

    /// RFC 6265 §5.1.4.
    static func path(_ requestPath: String, matches cookiePath: String) -> Bool {
        let cookiePath = cookiePath.isEmpty ? "/" : cookiePath
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }
}
