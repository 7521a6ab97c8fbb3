#if os(Linux)
    import CLeashCurl
    import Foundation
    import FoundationNetworking

    /// The `URLError`s for libcurl's failures, with libcurl's message as the underlying error.
    enum CurlErrors {
        /// OpenSSL's verification results that have `URLError`s of their own.
        private static let certificateNotYetValid = 9
        /// The certificate has expired (`X509_V_ERR_CERT_HAS_EXPIRED`).
        private static let certificateExpired = 10

        /// The error for CURLcode `code`, read from `connection` (nil when there is no handle).
        static func error(_ code: Int32, connection: OpaquePointer?, whileConnecting: Bool) -> URLError {
            var urlCode: URLError.Code
            switch Int(code) {
            case Int(LEASH_CURLE_COULDNT_RESOLVE_HOST), Int(LEASH_CURLE_COULDNT_RESOLVE_PROXY):
                urlCode = .cannotFindHost
            case Int(LEASH_CURLE_COULDNT_CONNECT):
                urlCode = .cannotConnectToHost
            case Int(LEASH_CURLE_OPERATION_TIMEDOUT):
                urlCode = .timedOut
            case Int(LEASH_CURLE_URL_MALFORMAT):
                urlCode = .badURL
            case Int(LEASH_CURLE_UNSUPPORTED_PROTOCOL), Int(LEASH_CURLE_NOT_BUILT_IN):
                // A libcurl without TLS, or none at all.
                urlCode = .unsupportedURL
            case Int(LEASH_CURLE_ABORTED_BY_CALLBACK):
                urlCode = .cancelled
            case Int(LEASH_CURLE_PEER_FAILED_VERIFICATION):
                urlCode = .serverCertificateUntrusted
                let verification = connection.map { Int(leash_curl_verify_result($0)) } ?? 0
                if verification == certificateNotYetValid { urlCode = .serverCertificateNotYetValid }
                if verification == certificateExpired { urlCode = .serverCertificateHasBadDate }
            case Int(LEASH_CURLE_SSL_CONNECT_ERROR), Int(LEASH_CURLE_SSL_CERTPROBLEM), Int(LEASH_CURLE_SSL_CIPHER),
                Int(LEASH_CURLE_SSL_CACERT_BADFILE), Int(LEASH_CURLE_SSL_ISSUER_ERROR),
                Int(LEASH_CURLE_SSL_PINNEDPUBKEYNOTMATCH), Int(LEASH_CURLE_SSL_INVALIDCERTSTATUS):
                urlCode = .secureConnectionFailed
            case Int(LEASH_CURLE_SEND_ERROR), Int(LEASH_CURLE_RECV_ERROR), Int(LEASH_CURLE_GOT_NOTHING):
                // Lost while connecting means the handshake did not complete.
                urlCode = whileConnecting ? .secureConnectionFailed : .networkConnectionLost
            default:
                urlCode = whileConnecting ? .cannotConnectToHost : .networkConnectionLost
            }
            let message = String(cString: leash_curl_error_message(connection, code))
            let detail = NSError(domain: "libcurl", code: Int(code), userInfo: [NSLocalizedDescriptionKey: message])
            return URLError(urlCode, userInfo: ByteStreamErrors.underlying(detail))
        }

        /// libcurl could not be loaded: TLS is not available.
        static func unavailable() -> URLError {
            let message = String(cString: leash_curl_load_error())
            let detail = NSError(domain: "libcurl", code: 0, userInfo: [NSLocalizedDescriptionKey: message])
            return URLError(.unsupportedURL, userInfo: ByteStreamErrors.underlying(detail))
        }
    }
#endif
