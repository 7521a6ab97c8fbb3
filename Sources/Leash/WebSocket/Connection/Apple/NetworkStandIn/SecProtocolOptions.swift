// A stand-in of Security's protocol options and verify block for the Linux build that takes
// Apple platforms' branches (see NetworkStandInScript.swift); a real Apple build uses the
// framework's own.
#if LEASH_APPLE_BRANCHES && !canImport(Network)
    import Dispatch
    import Foundation
    import Rx

    /// A TLS handshake's options. https://developer.apple.com/documentation/security/sec_protocol_options_t
    /// (`any OS_sec_protocol_options`, an os_object protocol there; a class here).
    typealias sec_protocol_options_t = OS_sec_protocol_options

    /// The read-only facts of a handshake.
    /// https://developer.apple.com/documentation/security/sec_protocol_metadata_t
    /// (`any OS_sec_protocol_metadata` there; a class here).
    typealias sec_protocol_metadata_t = OS_sec_protocol_metadata

    /// A `SecTrust` wrapped for os_object APIs.
    /// https://developer.apple.com/documentation/security/sec_trust_t (`any OS_sec_trust`
    /// there; a class here).
    typealias sec_trust_t = OS_sec_trust

    /// Told whether verification succeeded.
    /// https://developer.apple.com/documentation/security/sec_protocol_verify_complete_t
    typealias sec_protocol_verify_complete_t = (Bool) -> Void

    /// Verifies the peer; may be called more than once for a connection.
    /// https://developer.apple.com/documentation/security/sec_protocol_verify_t
    typealias sec_protocol_verify_t =
        (sec_protocol_metadata_t, sec_trust_t, @escaping sec_protocol_verify_complete_t) -> Void

    /// The options (stand-in): it keeps the verify block, which the script calls.
    /// https://developer.apple.com/documentation/security/os_sec_protocol_options
    final class OS_sec_protocol_options: Sendable {
        /// A verify block and the queue it runs on.
        struct Verification {
            /// The block.
            let block: sec_protocol_verify_t
            /// Its queue.
            let queue: DispatchQueue
        }

        /// The verify block, once set.
        let verification = LockedState<Verification?>(nil)
    }

    /// The handshake's facts (stand-in: none).
    /// https://developer.apple.com/documentation/security/sec_protocol_metadata_t
    final class OS_sec_protocol_metadata: Sendable {}

    /// The wrapper of a `SecTrust` (stand-in).
    /// https://developer.apple.com/documentation/security/os_sec_trust
    final class OS_sec_trust: Sendable {
        /// The trust it wraps.
        let trust: SecTrust

        /// Wraps `trust`, as `sec_trust_create` does.
        /// https://developer.apple.com/documentation/security/sec_trust_create(_:)
        init(_ trust: SecTrust) {
            self.trust = trust
        }
    }

    /// Sets the block that verifies the peer instead of the default evaluation, and its queue.
    /// https://developer.apple.com/documentation/security/sec_protocol_options_set_verify_block(_:_:_:)
    /// (the queue is a `dispatch_queue_t`, which Swift imports as `DispatchQueue`).
    func sec_protocol_options_set_verify_block(
        _ options: sec_protocol_options_t, _ verify_block: @escaping sec_protocol_verify_t,
        _ verify_block_queue: DispatchQueue
    ) {
        options.verification.withLock {
            $0 = OS_sec_protocol_options.Verification(block: verify_block, queue: verify_block_queue)
        }
    }

    /// A retained reference to the `SecTrust` that `trust` wraps. Apple's page is missing from
    /// the documentation; the declaration (non-optional `Unmanaged<SecTrust>`) is the one
    /// Security's SecProtocolTypes.h gives, the same family as
    /// https://developer.apple.com/documentation/security/sec_identity_copy_ref(_:)
    func sec_trust_copy_ref(_ trust: sec_trust_t) -> Unmanaged<SecTrust> {
        Unmanaged.passRetained(trust.trust)
    }
#endif
