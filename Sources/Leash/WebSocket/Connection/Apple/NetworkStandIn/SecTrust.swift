// A stand-in of Security's certificates and trust evaluation for the Linux build that takes
// Apple platforms' branches (see NetworkStandInScript.swift); a real Apple build uses the
// framework's own. The evaluation is a model of what the pages cited below document, not
// X.509: a trust knows which root its peer's chain ends at and whether the system trusts it.
#if LEASH_APPLE_BRANCHES && !canImport(Network)
    import Foundation
    import Rx

    /// A certificate. https://developer.apple.com/documentation/security/seccertificate (a
    /// class).
    final class SecCertificate: Sendable {
        /// Its DER bytes. Not Apple's API (`SecCertificateCopyData` is): what tests compare.
        let derData: Data

        /// A certificate of `derData`.
        init(derData: Data) {
            self.derData = derData
        }
    }

    /// A trust evaluation: a peer's chain and the anchors it is judged against.
    /// https://developer.apple.com/documentation/security/sectrust (a class).
    final class SecTrust: Sendable {
        /// The anchors a trust is judged against.
        struct Anchors {
            /// The anchors set with `SecTrustSetAnchorCertificates`, nil for none.
            var custom: [SecCertificate]?
            /// Whether only `custom` counts, not the system's built-in anchors.
            var customOnly = false
        }

        /// The DER of the root certificate the peer's chain ends at. Not Apple's API.
        let presentedRoot: Data
        /// Whether the system's built-in anchors include that root. Not Apple's API.
        let isTrustedBySystem: Bool
        /// See `Anchors`.
        let anchors = LockedState(Anchors())

        /// A trust for a chain ending at `presentedRoot` (the script's).
        init(presentedRoot: Data, isTrustedBySystem: Bool) {
            self.presentedRoot = presentedRoot
            self.isTrustedBySystem = isTrustedBySystem
        }
    }

    /// No error. https://developer.apple.com/documentation/security/errsecsuccess
    var errSecSuccess: OSStatus { 0 }

    /// A certificate from its DER bytes, nil if they are not a certificate.
    /// https://developer.apple.com/documentation/security/seccertificatecreatewithdata(_:_:)
    /// The stand-in checks only that they start as a DER SEQUENCE (0x30), as a certificate does.
    func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
        data.first == 0x30 ? SecCertificate(derData: data) : nil
    }

    /// Sets the anchors `trust` is judged against: only these, until
    /// `SecTrustSetAnchorCertificatesOnly(trust, false)` brings back the built-in ones; nil
    /// goes back to the built-in ones alone.
    /// https://developer.apple.com/documentation/security/sectrustsetanchorcertificates(_:_:)
    func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?) -> OSStatus {
        let certificates = anchorCertificates?.compactMap { $0 as? SecCertificate }
        guard certificates?.count == anchorCertificates?.count else { return -50 }  // errSecParam
        trust.anchors.withLock { anchors in
            anchors.custom = certificates
            anchors.customOnly = certificates != nil
        }
        return errSecSuccess
    }

    /// Whether only the anchors set with `SecTrustSetAnchorCertificates` count (false brings
    /// back the built-in ones too).
    /// https://developer.apple.com/documentation/security/sectrustsetanchorcertificatesonly(_:_:)
    func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus {
        trust.anchors.withLock { $0.customOnly = anchorCertificatesOnly }
        return errSecSuccess
    }

    /// Whether `trust`'s chain ends at one of its anchors; on failure `error` (when given)
    /// receives errSecNotTrusted.
    /// https://developer.apple.com/documentation/security/sectrustevaluatewitherror(_:_:)
    func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool {
        let anchors = trust.anchors.withLock { $0 }
        let byCustom = anchors.custom?.contains { $0.derData == trust.presentedRoot } ?? false
        let trusted = byCustom || (!anchors.customOnly && trust.isTrustedBySystem)
        if !trusted { error?.pointee = NSError(domain: NSOSStatusErrorDomain, code: -67843) }  // errSecNotTrusted
        return trusted
    }
#endif
