// A stand-in of Network.framework's errors for the Linux build that takes Apple platforms'
// branches (see NetworkStandInScript.swift); a real Apple build uses the framework's own.
#if LEASH_APPLE_BRANCHES && !canImport(Network)
    import Foundation

    /// The errors of Network.framework's objects.
    /// https://developer.apple.com/documentation/network/nwerror (an enum: Error, Equatable,
    /// Sendable, among others).
    enum NWError: Error, Equatable {
        /// A POSIX error, used for most protocol and routing errors.
        /// https://developer.apple.com/documentation/network/nwerror/posix(_:)
        case posix(POSIXErrorCode)
        /// A DNS error met resolving, browsing or advertising.
        /// https://developer.apple.com/documentation/network/nwerror/dns(_:)
        case dns(DNSServiceErrorType)
        /// A TLS error of a connection or listener.
        /// https://developer.apple.com/documentation/network/nwerror/tls(_:)
        case tls(OSStatus)
        /// A Wi-Fi Aware error (iOS, macOS… 26). Declared because the SDK has it: the connector's
        /// `default:` branch covers it, and without a fourth case the compiler would call that
        /// branch dead (a warning).
        /// https://developer.apple.com/documentation/network/nwerror/wifiaware(_:)
        case wifiAware(Int32)
    }

    /// The code of a DNS-SD failure: `Int32`, as the precise identifier of
    /// https://developer.apple.com/documentation/network/nwerror/dns(_:) (`s5Int32V`) says.
    typealias DNSServiceErrorType = Int32

    /// Apple's status code type: `Int32`, as the precise identifier of
    /// https://developer.apple.com/documentation/network/nwerror/tls(_:) (`s5Int32V`) says.
    typealias OSStatus = Int32
#endif
