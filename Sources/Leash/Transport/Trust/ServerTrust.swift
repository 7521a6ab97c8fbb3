import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How `URLSessionTransport` judges servers' certificates: per host, a `ServerTrustPolicy`
/// (Apple platforms), or URLSession's own handling for hosts without one.
///
/// On Linux FoundationNetworking offers no server trust to evaluate (libcurl checks the
/// chain against the system's certificates and never asks), so there is nothing to hold:
/// the transport's `serverTrust` parameter does not exist there, rather than being
/// silently ignored.
struct ServerTrust: Sendable {
    #if canImport(Security)
        /// The policies, by lowercased host.
        let policies: [String: ServerTrustPolicy]

        var isEmpty: Bool { policies.isEmpty }

        /// No policy: URLSession's own handling everywhere.
        static let none = ServerTrust(policies: [:])
    #else
        var isEmpty: Bool { true }

        /// No policy: URLSession's own handling everywhere.
        static let none = ServerTrust()
    #endif
}
