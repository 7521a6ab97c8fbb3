import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Cookie expiry where URLSession's cookie storage does not apply it itself (Linux: see
/// `URLSessionPlatform.expiresCookies`), so that a cookie the server expires or deletes is
/// not sent again.
///
/// FoundationNetworking stores a `Set-Cookie` carrying `Max-Age` as a session cookie
/// (`Max-Age=0` included, with or without a past `Expires`: httpbin's `/cookies/delete`
/// leaves the cookie with an empty value), and builds a request's `Cookie` header from
/// every cookie stored for its host, expired or not (its storage only drops expired
/// cookies when another one is set). The transport calls this around each task:
/// - `dropExpiredCookiesIfDue()` before the task is created (FoundationNetworking builds
///   the `Cookie` header then): once an expiry Leash knows of has passed, the expired
///   cookies are removed from the storage;
/// - `applyMaxAge(of:)` when the response's head arrives (FoundationNetworking has stored
///   its cookies by then): each cookie it set with a `Max-Age` is removed if that is 0 or
///   less, else given the expiry it says (Max-Age wins over Expires, RFC 6265 §5.3).
///
/// Cheap when there is nothing to do: a request costs a clock read and a lock, unless a
/// cookie Leash knows of has expired since the storage was last looked through (see
/// `CookieExpirySchedule`; a look-up in the storage costs about 8,000 instructions even
/// when it is empty, 1.2% of a request); a response costs one header look-up unless it
/// sets a cookie.
struct CookieExpiry: @unchecked Sendable {
    // @unchecked: `HTTPCookieStorage` is thread-safe (FoundationNetworking declares it
    // `Sendable`; the Apple SDKs Leash supports do not all do so).

    /// The session's cookie storage.
    let storage: HTTPCookieStorage
    /// When the storage's next cookie expires, as far as Leash knows.
    let schedule: CookieExpirySchedule

    /// The expiry for a session of `configuration`, or nil where there is nothing to do:
    /// where URLSession expires cookies itself, or the session sends no cookies.
    init?(configuration: URLSessionConfiguration, platform: URLSessionPlatform = .current) {
        guard !platform.expiresCookies, configuration.httpShouldSetCookies,
            let storage = configuration.httpCookieStorage
        else { return nil }
        self.storage = storage
        self.schedule = CookieExpirySchedule.schedule(for: storage)
    }

    /// Removes from the storage the cookies whose expiry has passed, if one Leash knows of
    /// has, so that the task about to be created does not send them.
    func dropExpiredCookiesIfDue() {
        schedule.dropExpiredCookiesIfDue(from: storage)
    }

    /// Applies the `Max-Age` of the cookies `response` sets to those the storage kept.
    func applyMaxAge(of response: URLResponse?) {
        guard let response = response as? HTTPURLResponse,
            let setCookie = response.value(forHTTPHeaderField: "Set-Cookie"), let url = response.url
        else { return }
        applyMaxAge(ofSetCookie: setCookie, from: url)
    }

    /// Applies the `Max-Age` of the cookies in `setCookie` (a response's `Set-Cookie`
    /// fields, joined with ", " as `HTTPURLResponse` gives them) received from `url`.
    func applyMaxAge(ofSetCookie setCookie: String, from url: URL) {
        // Parsed by the parser that stored them, so with the domain and path it gave them.
        // It splits the fields at a comma followed by `name=`, never inside an `Expires`
        // date. The last cookie of each name, domain and path is the one kept.
        let parsed = HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": setCookie], for: url)
        // Cookies that will expire: the storage is looked through again when one does.
        let now = Date()
        for cookie in parsed {
            if let maxAge = Self.maxAge(of: cookie), maxAge > 0 {
                schedule.note(now.addingTimeInterval(TimeInterval(min(maxAge, 1 << 40))))
            } else if let expiry = cookie.expiresDate {
                schedule.note(expiry)
            }
        }
        guard setCookie.range(of: "max-age", options: .caseInsensitive) != nil else { return }
        var seen = Set<CookieKey>()
        let received = parsed.reversed().filter { seen.insert(CookieKey($0)).inserted }
            .compactMap { cookie in Self.maxAge(of: cookie).map { (cookie: cookie, maxAge: $0) } }
        // Only the cookies for the URL: a cookie for another domain was refused, and
        // must not remove that domain's cookie of the same name.
        guard !received.isEmpty, let stored = storage.cookies(for: url) else { return }
        for (cookie, maxAge) in received {
            let key = CookieKey(cookie)
            guard let kept = stored.first(where: { CookieKey($0) == key }) else { continue }
            if maxAge <= 0 {
                storage.deleteCookie(kept)
                continue
            }
            // A cookie kept from before, the storage having refused this one: not this
            // `Max-Age`'s to change.
            guard kept.value == cookie.value else { continue }
            let expiry = Self.receivedAt(kept).addingTimeInterval(TimeInterval(maxAge))
            if let replacement = Self.copy(of: kept, expiring: min(expiry, .distantFuture)) {
                storage.setCookie(replacement)
            }
        }
    }

    /// A cookie's `Max-Age` in seconds, read as RFC 6265 §5.2.2 says (an optional `-`,
    /// then digits only; a value too large for `Int` saturates), or nil when it has none
    /// or it is malformed (the attribute is then ignored, as FoundationNetworking does).
    static func maxAge(of cookie: HTTPCookie) -> Int? {
        guard let text = cookie.properties?[.maximumAge] as? String else { return nil }
        return deltaSeconds(text)
    }

    /// `text` as RFC 6265's delta-seconds (see `maxAge(of:)`).
    static func deltaSeconds(_ text: String) -> Int? {
        let negative = text.hasPrefix("-")
        let digits = negative ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        let magnitude = Int(digits) ?? Int.max
        return negative ? -magnitude : magnitude
    }

    /// When the storage made `cookie` (as the response's head arrived), or now.
    private static func receivedAt(_ cookie: HTTPCookie) -> Date {
        let now = Date()
        guard let created = cookie.properties?[createdKey] as? Double else { return now }
        return min(Date(timeIntervalSinceReferenceDate: created), now)
    }

    /// `cookie` expiring at `expiry`, its `Max-Age` gone; every other attribute kept.
    static func copy(of cookie: HTTPCookie, expiring expiry: Date) -> HTTPCookie? {
        // As `HTTPCookie(properties:)` reads them: flags as "TRUE", the version as a string.
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: cookie.name, .value: cookie.value, .domain: cookie.domain, .path: cookie.path, .expires: expiry,
            .version: String(cookie.version), .discard: "FALSE",
        ]
        if cookie.isSecure { properties[.secure] = "TRUE" }
        if cookie.isHTTPOnly { properties[httpOnlyKey] = "TRUE" }
        if let ports = cookie.portList, !ports.isEmpty {
            properties[.port] = ports.map { "\($0)" }.joined(separator: ",")
        }
        if let comment = cookie.comment { properties[.comment] = comment }
        if let commentURL = cookie.commentURL { properties[.commentURL] = commentURL }
        if let originURL = cookie.properties?[.originURL] { properties[.originURL] = originURL }
        return HTTPCookie(properties: properties)
    }

    /// The properties' keys FoundationNetworking reads and writes without declaring them.
    private static let httpOnlyKey = HTTPCookiePropertyKey("HttpOnly")
    private static let createdKey = HTTPCookiePropertyKey("Created")
}

/// What identifies a cookie in a storage: a cookie set with the same replaces it.
private struct CookieKey: Hashable {
    let name: String
    let domain: String
    let path: String

    init(_ cookie: HTTPCookie) {
        name = cookie.name
        domain = cookie.domain
        path = cookie.path
    }
}

/// When the next cookie of one cookie storage expires, as far as Leash knows: the cookies
/// in the storage when a transport first used it, and those its responses set since.
/// Before that moment no request needs the storage looked through; after it, the first
/// request removes every expired cookie from the storage and finds the next expiry.
///
/// One per storage (the shared storage is used by every transport with the default
/// configuration), found by the storage's identity; a schedule is kept while its
/// storage lives. A cookie an app sets in the storage itself, with an expiry, is not
/// known here until the storage is next looked through.
final class CookieExpirySchedule: Sendable {
    /// When the next cookie expires, as far as Leash knows.
    private let next = LockedState<Date?>(nil)

    private init() {}

    /// The schedules, by storage; entries whose storage was freed are dropped as new
    /// ones come.
    private static let schedules = LockedState<
        [ObjectIdentifier: (storage: WeakStorage, schedule: CookieExpirySchedule)]
    >(
        [:])

    /// A storage held weakly.
    private struct WeakStorage {
        weak var storage: HTTPCookieStorage?
    }

    /// The schedule of `storage`, made (and the storage looked through) on first use.
    static func schedule(for storage: HTTPCookieStorage) -> CookieExpirySchedule {
        let (schedule, isNew) = schedules.withLock { entries -> (CookieExpirySchedule, Bool) in
            let key = ObjectIdentifier(storage)
            if let entry = entries[key], entry.storage.storage === storage { return (entry.schedule, false) }
            entries = entries.filter { $0.value.storage.storage != nil }
            let made = CookieExpirySchedule()
            entries[key] = (WeakStorage(storage: storage), made)
            return (made, true)
        }
        // Cookies kept from before (the shared storage keeps those with an expiry in a file).
        if isNew { schedule.lookThrough(storage, now: Date()) }
        return schedule
    }

    /// A cookie expires at `expiry`.
    func note(_ expiry: Date) {
        next.withLock { next in
            if let current = next, current <= expiry { return }
            next = expiry
        }
    }

    /// Removes the expired cookies from `storage` if a known expiry has passed.
    func dropExpiredCookiesIfDue(from storage: HTTPCookieStorage) {
        let now = Date()
        let isDue = next.withLock { next -> Bool in
            guard let current = next, current <= now else { return false }
            next = nil
            return true
        }
        if isDue { lookThrough(storage, now: now) }
    }

    /// Removes the cookies of `storage` that expired by `now`, and notes the next expiry.
    private func lookThrough(_ storage: HTTPCookieStorage, now: Date) {
        for cookie in storage.cookies ?? [] {
            guard let expiry = cookie.expiresDate else { continue }
            if expiry <= now {
                storage.deleteCookie(cookie)
            } else {
                note(expiry)
            }
        }
    }
}
