import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `URLError`s the byte streams report for system failures, with the failure itself kept
/// as the underlying error so that a log shows what the system said.
package enum ByteStreamErrors {
    /// The stream's own `close()` ended the call.
    package static var closed: URLError { URLError(.cancelled) }

    /// A socket call failed with `errno`. While connecting, what is not clearly about the
    /// connection being lost says the host could not be reached; afterwards, the connection
    /// was lost.
    package static func socket(_ code: Int32, whileConnecting: Bool) -> URLError {
        let urlCode: URLError.Code
        switch code {
        case ETIMEDOUT:
            urlCode = .timedOut
        case ECANCELED:
            urlCode = .cancelled
        case ENETDOWN where whileConnecting:
            // No network at all (also what watchOS reports where it allows no low-level
            // networking, see NetworkByteStreamConnector).
            urlCode = .notConnectedToInternet
        default:
            // Refused, unreachable, reset: while connecting, all mean the host was not reached.
            urlCode = whileConnecting ? .cannotConnectToHost : .networkConnectionLost
        }
        return URLError(urlCode, userInfo: underlying(NSError(domain: NSPOSIXErrorDomain, code: Int(code))))
    }

    /// Name resolution failed with an `EAI_…` code.
    package static func resolution(_ code: Int32) -> URLError {
        // A temporary failure (no answer from the resolver) is a failed lookup; anything else
        // means the name does not resolve.
        let urlCode: URLError.Code = code == EAI_AGAIN ? .dnsLookupFailed : .cannotFindHost
        let description = String(cString: gai_strerror(code))
        let detail = NSError(domain: "getaddrinfo", code: Int(code), userInfo: [NSLocalizedDescriptionKey: description])
        return URLError(urlCode, userInfo: underlying(detail))
    }

    /// A TLS failure reported as an `OSStatus` (Network.framework's `NWError.tls`): the
    /// certificate's faults have `URLError`s of their own, anything else is a failed handshake.
    /// The values are Security's `errSSL…`/`errSec…` codes, written as numbers so that this
    /// compiles (and is tested) everywhere.
    package static func tls(status: Int32) -> URLError {
        let urlCode: URLError.Code
        switch status {
        case -9814, -9828:  // errSSLCertExpired, errSSLPeerCertExpired
            urlCode = .serverCertificateHasBadDate
        case -9815:  // errSSLCertNotYetValid
            urlCode = .serverCertificateNotYetValid
        // errSSLXCertChainInvalid, errSSLBadCert, errSSLUnknownRootCert, errSSLNoRootCert,
        // errSSLPeerBadCert, errSSLHostNameMismatch, errSecNotTrusted
        case -9807, -9808, -9812, -9813, -9825, -9843, -67843:
            urlCode = .serverCertificateUntrusted
        default:
            urlCode = .secureConnectionFailed
        }
        return URLError(urlCode, userInfo: underlying(NSError(domain: NSOSStatusErrorDomain, code: Int(status))))
    }

    /// A DNS-SD failure (Network.framework's `NWError.dns`): the name does not resolve.
    package static func dnsService(_ code: Int) -> URLError {
        URLError(.cannotFindHost, userInfo: underlying(NSError(domain: "DNSServiceErrorType", code: code)))
    }

    /// A user info dictionary naming `error` as the cause.
    package static func underlying(_ error: NSError) -> [String: Any] {
        [NSUnderlyingErrorKey: error, NSLocalizedDescriptionKey: error.localizedDescription]
    }
}
