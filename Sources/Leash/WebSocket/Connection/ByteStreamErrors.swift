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
enum ByteStreamErrors {
    /// The stream's own `close()` ended the call.
    static var closed: URLError { URLError(.cancelled) }

    /// A socket call failed with `errno`. While connecting, what is not clearly about the
    /// connection being lost says the host could not be reached; afterwards, the connection
    /// was lost.
    static func socket(_ code: Int32, whileConnecting: Bool) -> URLError {
        let urlCode: URLError.Code
        if code == ETIMEDOUT {
            urlCode = .timedOut
        } else {
            // Refused, unreachable, reset: while connecting, all mean the host was not reached.
            urlCode = whileConnecting ? .cannotConnectToHost : .networkConnectionLost
        }
        return URLError(urlCode, userInfo: underlying(NSError(domain: NSPOSIXErrorDomain, code: Int(code))))
    }

    /// Name resolution failed with an `EAI_…` code.
    static func resolution(_ code: Int32) -> URLError {
        // A temporary failure (no answer from the resolver) is a failed lookup; anything else
        // means the name does not resolve.
        let urlCode: URLError.Code = code == EAI_AGAIN ? .dnsLookupFailed : .cannotFindHost
        let description = String(cString: gai_strerror(code))
        let detail = NSError(domain: "getaddrinfo", code: Int(code), userInfo: [NSLocalizedDescriptionKey: description])
        return URLError(urlCode, userInfo: underlying(detail))
    }

    /// A user info dictionary naming `error` as the cause.
    static func underlying(_ error: NSError) -> [String: Any] {
        [NSUnderlyingErrorKey: error, NSLocalizedDescriptionKey: error.localizedDescription]
    }
}
