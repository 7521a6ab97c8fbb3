/// What URLSession needs from Leash's transport on the platform it runs on (see
/// Docs/URLSession-on-Linux.md in the design notes).
///
/// The transport branches on these values rather than on `#if`, so that the code written
/// for each platform compiles on every platform. Building with the compile condition
/// `LEASH_APPLE_BRANCHES` (`swift build -Xswiftc -DLEASH_APPLE_BRANCHES`) makes a Linux
/// build take Apple platforms' branches: that is how CI runs them, since nothing here can
/// build for an Apple platform.
struct URLSessionPlatform: Sendable {
    /// Whether URLSession runs every session's completion handlers and delegate calls on
    /// one work queue of the process (FoundationNetworking). The transport then runs them
    /// in place there and hands each answer to delivery queues of its own, and a stream's
    /// slow subscriber may hold that queue only briefly. Elsewhere each session's serial
    /// delegate queue delivers.
    let sharesOneWorkQueue: Bool

    /// Whether an upload's file is sent as a body stream rather than with
    /// `uploadTask(with:fromFile:)`. On Linux the latter crashes the process when the
    /// server drops the connection mid-upload (a forced `try` in FoundationNetworking), so
    /// Linux streams the file even in a build that takes Apple platforms' branches.
    let streamsUploadFiles: Bool

    /// Whether a session may keep its configuration's `URLCache`. On Linux a cancel racing
    /// a completion crashes a session that has one (1 to 6 runs in 10 of 2,000 requests
    /// with random cancels), so Linux removes it even in a build that takes Apple
    /// platforms' branches.
    let keepsURLCache: Bool

    /// Whether URLSession reports a task's metrics to its session's delegate. Linux's
    /// never does: there the transport skips the bookkeeping that would wait for them.
    let collectsMetrics: Bool

    /// Whether URLSession answers an authentication challenge its delegate rejects by
    /// delivering the response that carried it (Apple platforms: the 401 or 407 arrives as
    /// any response). FoundationNetworking cancels the task instead, and waits forever for
    /// a `Basic` challenge nobody answers (see Docs/URLSession-on-Linux.md), so there the
    /// transport delivers the head and body its delegate already received, and cancels
    /// the challenge: also in a build that takes Apple platforms' branches.
    let deliversRejectedChallenges: Bool

    /// Whether URLSession's cookie storage applies a cookie's `Max-Age` and its expiry
    /// itself. FoundationNetworking's ignores `Max-Age` (`Max-Age=0`, httpbin's deletion,
    /// included) and keeps sending a cookie whose expiry passed while the app runs: on
    /// Linux the transport does both itself (`CookieExpiry`), even in a build that takes
    /// Apple platforms' branches.
    let expiresCookies: Bool

    /// The platform this build runs on.
    #if canImport(FoundationNetworking) && !LEASH_APPLE_BRANCHES
        static let current = URLSessionPlatform(
            sharesOneWorkQueue: true, streamsUploadFiles: true, keepsURLCache: false, collectsMetrics: false,
            deliversRejectedChallenges: false, expiresCookies: false)
    #elseif canImport(FoundationNetworking)
        // Apple platforms' branches, run on Linux: all but what FoundationNetworking cannot
        // do (see above): the file upload, the URL cache, metrics (it never reports any,
        // and a completion would wait for them), rejected challenges and cookie expiry.
        static let current = URLSessionPlatform(
            sharesOneWorkQueue: false, streamsUploadFiles: true, keepsURLCache: false, collectsMetrics: false,
            deliversRejectedChallenges: false, expiresCookies: false)
    #else
        static let current = URLSessionPlatform(
            sharesOneWorkQueue: false, streamsUploadFiles: false, keepsURLCache: true, collectsMetrics: true,
            deliversRejectedChallenges: true, expiresCookies: true)
    #endif
}
