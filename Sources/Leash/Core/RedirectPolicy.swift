import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What an execution does when the server answers with a redirect (301, 302, 303, 307 or
/// 308 with a `Location`): set per manager (`Manager.Builder.redirects(_:)`) and per
/// endpoint (`Endpoint.redirectPolicy`).
///
/// Leash follows redirects itself, never URLSession (whose Linux implementation sends a
/// 307/308 after a `POST` without its body): each hop is a new request through the
/// transport, inside the same attempt, before the success interceptors, validation and
/// serialization, which see the final response. Execution interceptors (the
/// authenticator, request adapters) are not run again for a hop.
///
/// The next request follows RFC 9110 and what browsers do:
/// - 307 and 308 keep the method and the body (an upload's file is sent again);
/// - 303, and 301/302 after a `POST`, become a `GET` without a body (a `HEAD` stays a
///   `HEAD`), and the headers describing the body (`Content-Type`, `Content-Length`…)
///   are removed;
/// - a hop to another origin (scheme, host or port) drops `Authorization`,
///   `Proxy-Authorization` and `Cookie`, so a credential never follows a redirect to
///   another server (URLSession's cookie storage still adds that server's own cookies);
/// - a `Location` that is missing, unreadable or not `http`/`https` is not followed: the
///   3xx is the response.
///
/// More than `limit` hops in one attempt end it with `LeashError.tooManyRedirects`.
public struct RedirectPolicy: Sendable {
    /// How a redirect is decided.
    enum Decision: Sendable {
        case follow
        case doNotFollow
        case custom(@Sendable (Redirect) -> URLRequest?)
    }

    let decision: Decision
    /// The most hops one attempt follows.
    public let limit: Int

    /// Follows every redirect, up to 20 hops (as URLSession and browsers do).
    public static let follow = RedirectPolicy(decision: .follow, limit: defaultLimit)

    /// Follows every redirect, up to `limit` hops (at least 0: 0 fails at the first).
    public static func follow(limit: Int) -> RedirectPolicy {
        RedirectPolicy(decision: .follow, limit: max(0, limit))
    }

    /// Follows no redirect: the 3xx is the response, which the success interceptors and
    /// validation judge like any other (outside the acceptable status codes, it is a
    /// `LeashError.unacceptableStatusCode` whose `statusCode` is the 3xx, with its
    /// `Location` in the failure's headers).
    public static let doNotFollow = RedirectPolicy(decision: .doNotFollow, limit: 0)

    /// Asks `decide` at each redirect: it returns the request to send next (the proposed
    /// one, or a changed one), or `nil` to stop and take the 3xx as the response. At most
    /// `limit` hops are followed. It runs on the thread the redirect arrived on, before
    /// anything else happens to the execution: keep it quick, and never block there.
    public static func custom(
        limit: Int = defaultLimit, _ decide: @escaping @Sendable (Redirect) -> URLRequest?
    ) -> RedirectPolicy {
        RedirectPolicy(decision: .custom(decide), limit: max(0, limit))
    }

    /// The limit of `follow` and `custom` unless given: 20, as URLSession's.
    public static let defaultLimit = 20

    /// The request to send after `redirect`, or `nil` to take its response as it is.
    func nextRequest(after redirect: Redirect) -> URLRequest? {
        switch decision {
        case .follow: return redirect.proposedRequest
        case .doNotFollow: return nil
        case .custom(let decide): return decide(redirect)
        }
    }
}

/// One redirect an execution received, as a `RedirectPolicy.custom` closure sees it.
public struct Redirect: @unchecked Sendable {
    // @unchecked: `URLRequest` and `HTTPURLResponse` are immutable values here.

    /// The request that was answered with the redirect.
    public let request: URLRequest
    /// The redirect (its status and `Location`).
    public let response: HTTPURLResponse
    /// What Leash would send next (see `RedirectPolicy` for how it is made).
    public let proposedRequest: URLRequest
    /// Which hop this would be in the attempt, from 1.
    public let hop: Int
}
