// The tests' hand on the stand-in of Network.framework (this folder), which exists only in the
// Linux build that takes Apple platforms' branches (`-DLEASH_APPLE_BRANCHES`, a CI step):
// there `canImport(Network)` is false, so NetworkByteStreamConnector compiles against the
// stand-in, whose declarations copy the SDK's spelling (each with its Apple page), and its
// state machine is tested against a connection the test scripts. A real Apple build (where
// `canImport(Network)` holds) never compiles this folder, and every other Linux build neither:
// `WebSocketByteStreams.connector` stays the sockets/libcurl one.
#if LEASH_APPLE_BRANCHES && !canImport(Network)
    import Dispatch
    import Foundation
    import Rx

    /// Collects the stand-in's connections while installed, so that a test can play the
    /// network for each: states, viability, what receives and sends complete with, and the
    /// TLS verify block's verdicts.
    final class NetworkStandInScript: Sendable {
        /// The script installed now, if any.
        private static let installed = LockedState<NetworkStandInScript?>(nil)

        /// The connections made while installed, oldest first.
        private let made = LockedState<[NWConnection]>([])

        /// A script that records nothing until installed.
        init() {}

        /// Makes this the script new connections are told to (replacing any other).
        func install() {
            Self.installed.withLock { $0 = self }
        }

        /// Stops recording, if this script is the installed one.
        func uninstall() {
            Self.installed.withLock { if $0 === self { $0 = nil } }
        }

        /// The connections made while installed, oldest first.
        var connections: [NWConnection] {
            made.withLock { $0 }
        }

        /// Records `connection` with the installed script (called by its initializer).
        static func connectionMade(_ connection: NWConnection) {
            installed.withLock { $0 }?.made.withLock { $0.append(connection) }
        }
    }

    /// A receive the connector made, waiting for the script's answer.
    struct ScriptedReceive: Sendable {
        /// Where the completion runs (the connection's queue).
        let queue: DispatchQueue?
        /// The least the caller asked for, until the content is complete.
        let minimumIncompleteLength: Int
        /// The most the caller accepts at once.
        let maximumLength: Int
        /// The caller's completion.
        let completion: @Sendable (Data?, NWConnection.ContentContext?, Bool, NWError?) -> Void

        /// Completes the receive, on the connection's queue.
        func complete(data: Data?, isComplete: Bool = false, error: NWError? = nil) {
            let completion = completion
            queue?.async { completion(data, .defaultMessage, isComplete, error) }
        }
    }

    /// A send the connector made, waiting for the script's answer.
    struct ScriptedSend: Sendable {
        /// Where the completion runs (the connection's queue).
        let queue: DispatchQueue?
        /// What was sent.
        let content: Data?
        /// The message it was sent in.
        let contentContext: NWConnection.ContentContext
        /// Whether the send completes its message.
        let isComplete: Bool
        /// The sender's completion.
        let completion: NWConnection.SendCompletion

        /// Completes the send with `error` (nil: processed), on the connection's queue.
        func complete(error: NWError? = nil) {
            guard case .contentProcessed(let processed) = completion else { return }
            queue?.async { processed(error) }
        }
    }

    extension NWConnection {
        /// The queue given to `start(queue:)`, nil before.
        var startQueue: DispatchQueue? {
            shared.withLock { $0.queue }
        }

        /// How many times `cancel()` was called.
        var cancelCount: Int {
            shared.withLock { $0.cancelCount }
        }

        /// How many receives were made in all.
        var receiveCount: Int {
            shared.withLock { $0.receiveCount }
        }

        /// Enters `state`, delivered to the state handler on the connection's queue.
        func enter(_ state: State) {
            shared.withLock { $0.state = state }
            deliver(state)
        }

        /// Tells the viability handler, on the connection's queue, whether the path is usable.
        func changeViability(to isViable: Bool) {
            onQueue { [self] in viabilityUpdateHandler?(isViable) }
        }

        /// The oldest receive not yet taken, waiting up to `seconds` for one; nil if none came.
        func nextReceive(within seconds: Double = 10) -> ScriptedReceive? {
            guard receiveMade.wait(timeout: .now() + seconds) == .success else { return nil }
            return shared.withLock { $0.receives.removeFirst() }
        }

        /// The oldest send not yet taken, waiting up to `seconds` for one; nil if none came.
        func nextSend(within seconds: Double = 10) -> ScriptedSend? {
            guard sendMade.wait(timeout: .now() + seconds) == .success else { return nil }
            return shared.withLock { $0.sends.removeFirst() }
        }

        /// Waits until everything delivered so far on the connection's queue has run.
        func drain() {
            startQueue?.sync {}
        }
    }

    extension OS_sec_protocol_options {
        /// The queue of the verify block, nil while none is set.
        var verifyQueue: DispatchQueue? {
            verification.withLock { $0?.queue }
        }

        /// Runs the verify block on its queue, as a handshake would, for a peer whose chain
        /// `trust` describes; its verdict, or nil if there is no block or it gave none within
        /// `seconds`.
        func verify(_ trust: SecTrust, within seconds: Double = 10) -> Bool? {
            guard let queue = verifyQueue else { return nil }
            let verdict = LockedState<Bool?>(nil)
            let done = DispatchSemaphore(value: 0)
            queue.async { [self] in
                // Read here, on its queue: the block itself is not Sendable (Security's type).
                guard let block = verification.withLock({ $0?.block }) else {
                    done.signal()
                    return
                }
                block(OS_sec_protocol_metadata(), OS_sec_trust(trust)) { isTrusted in
                    verdict.withLock { $0 = isTrusted }
                    done.signal()
                }
            }
            _ = done.wait(timeout: .now() + seconds)
            return verdict.withLock { $0 }
        }
    }
#endif
