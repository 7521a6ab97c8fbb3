import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a manager's requests do when a server demands credentials from URLSession: a 401
/// or 407 carrying a challenge (`WWW-Authenticate: Basic …`, `Digest`, `Negotiate`, NTLM),
/// or a TLS server asking for a client certificate. Set with
/// `Manager.Builder.credentials(_:)`; `URLSessionTransport` acts on it (other transports
/// answer challenges their own way).
///
/// By default (`.none`) URLSession never answers: a 401 or 407 is a response like any
/// other, whatever its challenge, delivered at once with its headers and body, so that
/// status validation (`LeashError.unacceptableStatusCode`), the interceptors and the token
/// refresher see it. (On Linux, FoundationNetworking left to itself waits forever for a
/// credential when a 401 carries `WWW-Authenticate: Basic`; see
/// `Docs/URLSession-on-Linux.md`.)
///
/// Server trust is not a credential: it is judged by the transport's `serverTrust`
/// policies (Apple platforms), whatever this says.
public struct CredentialHandling: Sendable {
    enum Kind: Sendable {
        case none
        case urlSession
        case credential(SendableCredential)
    }

    let kind: Kind

    /// Never answers a challenge: a 401 or 407 is the response (the default).
    public static let none = CredentialHandling(kind: .none)

    /// URLSession's own handling, with the session configuration's `urlCredentialStorage`:
    /// on Apple platforms, as if Leash had no say (a stored credential for the protection
    /// space is sent, a client certificate is not chosen for you); on Linux,
    /// FoundationNetworking answers only `Basic` challenges, with a credential stored for
    /// the protection space, and Leash delivers the 401 when there is none (where
    /// FoundationNetworking would wait forever).
    public static let urlSession = CredentialHandling(kind: .urlSession)

    /// Answers a request's first challenge with `credential`: a user and password for
    /// `Basic` (every platform) and `Digest`, NTLM or `Negotiate` (Apple platforms), an
    /// identity for a client certificate (Apple platforms). A second challenge for the same
    /// request means the server refused it: that 401 is the response. A challenge of a
    /// kind the platform cannot answer (Digest on Linux) is delivered as its 401, too.
    public static func credential(_ credential: URLCredential) -> CredentialHandling {
        CredentialHandling(kind: .credential(SendableCredential(credential)))
    }

    /// How a task answers `challenge` (never a server-trust one: see `ServerTrust`).
    func answer(to challenge: URLAuthenticationChallenge) -> ChallengeAnswer {
        let method = challenge.protectionSpace.authenticationMethod
        let platform = URLSessionPlatform.current
        switch kind {
        case .none:
            return .deliverResponse
        case .urlSession:
            if platform.deliversRejectedChallenges { return .disposition(.performDefaultHandling, nil) }
            // FoundationNetworking proceeds only with a credential it proposes; without
            // one it would wait forever.
            guard method == NSURLAuthenticationMethodHTTPBasic, challenge.proposedCredential != nil else {
                return .deliverResponse
            }
            return .disposition(.performDefaultHandling, nil)
        case .credential(let box):
            guard challenge.previousFailureCount == 0 else { return .deliverResponse }
            guard platform.deliversRejectedChallenges || method == NSURLAuthenticationMethodHTTPBasic else {
                return .deliverResponse
            }
            return .disposition(.useCredential, box.credential)
        }
    }
}

/// A credential handed between threads: `URLCredential` is immutable, but not `Sendable`
/// on every platform.
struct SendableCredential: @unchecked Sendable {
    // @unchecked: `URLCredential` is immutable.
    let credential: URLCredential

    init(_ credential: URLCredential) {
        self.credential = credential
    }
}

/// How a transport answers an authentication challenge.
enum ChallengeAnswer {
    /// Not at all: the response that carried the challenge (the 401 or 407, with its
    /// headers and body) is the task's answer.
    case deliverResponse
    /// With this disposition and credential.
    case disposition(URLSession.AuthChallengeDisposition, URLCredential?)
}
