#if canImport(Security)
    import Foundation
    import Security

    /// How a server's certificate is judged before a request is sent to it: given to
    /// `URLSessionTransport(configuration:serverTrust:)` per host. A server that fails ends
    /// the execution with `LeashError.serverTrust`, which says why, and nothing is sent.
    ///
    /// ```swift
    /// let pinned = ServerTrustPolicy.pinnedPublicKeys(ServerTrustPolicy.publicKeys(of: [certificateData]))
    /// let transport = URLSessionTransport(serverTrust: ["api.example.com": pinned])
    /// ```
    ///
    /// Apple platforms only: FoundationNetworking (Linux) offers no server trust to
    /// evaluate, so this type does not exist there.
    public struct ServerTrustPolicy: Sendable {
        /// Judges `trust` for `host`: `nil` to trust it, else the reason it is not trusted.
        let failure: @Sendable (SecTrust, String) -> String?

        /// The system's evaluation, for `host`'s name: what URLSession does without a
        /// policy, made explicit (with revocation checks as the system's SSL policy does
        /// them).
        public static let system = ServerTrustPolicy { trust, host in
            ServerTrustPolicy.systemFailure(of: trust, host: host)
        }

        /// Trusted if the system trusts the chain (unless `validatesChain` is `false`, for a
        /// self-signed certificate in development) and one of its certificates is one of
        /// `certificates` (DER data, as in a `.cer` file).
        ///
        /// - Important: `validatesChain: false` also needs an App Transport Security exception
        ///   for the host. ATS keeps its own server trust requirements on top of this policy:
        ///   without the exception URLSession fails the connection to a self-signed server even
        ///   though this policy accepts its certificate. In the app's Info.plist, give the host
        ///   an entry under `NSAppTransportSecurity` → `NSExceptionDomains` with
        ///   `NSExceptionAllowsInsecureHTTPLoads` set to `YES`, the key with which Apple lets an
        ///   app "loosen the server trust evaluation requirements for HTTPS connections to the
        ///   domain" (it does not loosen them by itself: the policy still decides). Prefer that
        ///   per-host entry to `NSAllowsArbitraryLoads`, which turns ATS off for every host and
        ///   must be justified in App Store review; keep both out of release builds.
        public static func pinnedCertificates(_ certificates: [Data], validatesChain: Bool = true)
            -> ServerTrustPolicy
        {
            let pinned = Set(certificates)
            return ServerTrustPolicy { trust, host in
                if validatesChain, let failure = ServerTrustPolicy.systemFailure(of: trust, host: host) {
                    return failure
                }
                let chain = ServerTrustPolicy.certificateChain(of: trust).map { SecCertificateCopyData($0) as Data }
                return chain.contains(where: pinned.contains) ? nil : "no certificate of its chain is pinned"
            }
        }

        /// Trusted if the system trusts the chain (unless `validatesChain` is `false`) and
        /// the public key of one of its certificates is one of `publicKeys` (each key's
        /// external representation: see `publicKeys(of:)`). Survives a renewed
        /// certificate that keeps its key.
        ///
        /// - Important: As for `pinnedCertificates(_:validatesChain:)`, `validatesChain: false`
        ///   works only with an App Transport Security exception for the host
        ///   (`NSExceptionAllowsInsecureHTTPLoads` in its `NSExceptionDomains` entry).
        public static func pinnedPublicKeys(_ publicKeys: [Data], validatesChain: Bool = true) -> ServerTrustPolicy {
            let pinned = Set(publicKeys)
            return ServerTrustPolicy { trust, host in
                if validatesChain, let failure = ServerTrustPolicy.systemFailure(of: trust, host: host) {
                    return failure
                }
                let keys = ServerTrustPolicy.certificateChain(of: trust).compactMap(ServerTrustPolicy.publicKey(of:))
                return keys.contains(where: pinned.contains) ? nil : "no public key of its chain is pinned"
            }
        }

        /// Judged by `failure`: it returns `nil` to trust the server, else the reason it is
        /// not trusted (which `LeashError.serverTrust` carries).
        public static func custom(_ failure: @escaping @Sendable (SecTrust, String) -> String?) -> ServerTrustPolicy {
            ServerTrustPolicy(failure: failure)
        }

        /// The public keys (external representations) of DER-encoded certificates; data
        /// that is not a certificate is skipped.
        public static func publicKeys(of certificates: [Data]) -> [Data] {
            certificates.compactMap { data in
                SecCertificateCreateWithData(nil, data as CFData).flatMap(publicKey(of:))
            }
        }

        /// Why the system does not trust `trust` for `host`, or `nil` if it does.
        static func systemFailure(of trust: SecTrust, host: String) -> String? {
            SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host as CFString))
            var error: CFError?
            if SecTrustEvaluateWithError(trust, &error) { return nil }
            return error.map { ($0 as Swift.Error).localizedDescription } ?? "the system does not trust its certificate"
        }

        /// The certificates of `trust`'s chain, leaf first. (`SecTrustCopyCertificateChain`
        /// is available from the package's minimums on, which is when the index-based calls
        /// were deprecated.)
        static func certificateChain(of trust: SecTrust) -> [SecCertificate] {
            (SecTrustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
        }

        /// The external representation of `certificate`'s public key.
        static func publicKey(of certificate: SecCertificate) -> Data? {
            SecCertificateCopyKey(certificate).flatMap { SecKeyCopyExternalRepresentation($0, nil) as Data? }
        }
    }

    extension ServerTrust {
        /// Answers `challenge` for a server trust with the host's policy: the credential
        /// if it passes, a cancelled challenge (and `failed` told why) if not, and
        /// URLSession's default handling for other challenges and hosts without a policy.
        func answer(
            _ challenge: URLAuthenticationChallenge,
            _ completionHandler: (URLSession.AuthChallengeDisposition, URLCredential?) -> Void,
            failed: (LeashError) -> Void
        ) {
            let space = challenge.protectionSpace
            guard space.authenticationMethod == NSURLAuthenticationMethodServerTrust,
                let trust = space.serverTrust, let policy = policies[space.host.lowercased()]
            else {
                completionHandler(.performDefaultHandling, nil)
                return
            }
            if let reason = policy.failure(trust, space.host) {
                failed(LeashError.serverTrust(host: space.host, reason: reason))
                completionHandler(.cancelAuthenticationChallenge, nil)
            } else {
                completionHandler(.useCredential, URLCredential(trust: trust))
            }
        }
    }
#endif
