import Foundation
import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transport a soak runs through: the platform's default kind (`Manager.defaultTransport`:
/// `HTTP1Transport` on Linux, URLSession elsewhere) unless `--transport` names one.
enum SoakTransport: String, CaseIterable, Sendable {
    /// Leash's own `HTTP1Transport`.
    case http1
    /// `URLSessionTransport` (FoundationNetworking on Linux).
    case urlSession = "urlsession"

    /// The kind of `Manager.defaultTransport`.
    static var platformDefault: SoakTransport {
        Manager.defaultTransport is URLSessionTransport ? .urlSession : .http1
    }

    /// The type's name, for the report.
    var name: String {
        switch self {
        case .http1: "HTTP1Transport"
        case .urlSession: "URLSessionTransport"
        }
    }

    /// Whether the requests are URLSession tasks: only then is URLSession's own leak per
    /// task measured and taken out of the heap's growth (see `URLSessionLeak`).
    var isURLSession: Bool { self == .urlSession }

    /// A new transport of this kind, never the process's shared one: its connections are
    /// the run's own, and letting go of it closes them.
    ///
    /// An `HTTP1Transport` gets an ephemeral cookie storage (URLSession's ephemeral
    /// configuration's): nothing the soak asks for sets a cookie, but every request still
    /// looks up its `Cookie` header and every response's head is read for `Set-Cookie`, as
    /// with the default configuration (whose storage is the process's shared one).
    func make() -> Transport {
        switch self {
        case .urlSession:
            return URLSessionTransport()
        case .http1:
            var configuration = HTTP1Transport.Configuration()
            configuration.cookieStorage = URLSessionConfiguration.ephemeral.httpCookieStorage
            return HTTP1Transport(configuration: configuration)
        }
    }
}
