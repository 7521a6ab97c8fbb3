// A stand-in of the types nested in Network.framework's connection for the Linux build that
// takes Apple platforms' branches (see NetworkStandInScript.swift); a real Apple build uses
// the framework's own.
#if LEASH_APPLE_BRANCHES && !canImport(Network)
    extension NWConnection {
        /// Whether a connection can send and receive.
        /// https://developer.apple.com/documentation/network/nwconnection/state-swift.enum
        enum State: Equatable, Sendable {
            /// Made, not started.
            /// https://developer.apple.com/documentation/network/nwconnection/state-swift.enum/setup
            case setup
            /// Waiting for a change of the network path; the error says why it could not
            /// connect, and is not fatal.
            /// https://developer.apple.com/documentation/network/nwconnection/state-swift.enum/waiting(_:)
            case waiting(NWError)
            /// Connecting.
            /// https://developer.apple.com/documentation/network/nwconnection/state-swift.enum/preparing
            case preparing
            /// Connected: it can send and receive.
            /// https://developer.apple.com/documentation/network/nwconnection/state-swift.enum/ready
            case ready
            /// Disconnected, or failed.
            /// https://developer.apple.com/documentation/network/nwconnection/state-swift.enum/failed(_:)
            case failed(NWError)
            /// Cancelled by its owner.
            /// https://developer.apple.com/documentation/network/nwconnection/state-swift.enum/cancelled
            case cancelled
        }

        /// A message to send or receive, with its protocol metadata.
        /// https://developer.apple.com/documentation/network/nwconnection/contentcontext (a class)
        final class ContentContext: Sendable {
            /// A message with the default properties, for sending unless something must change.
            /// https://developer.apple.com/documentation/network/nwconnection/contentcontext/defaultmessage
            static let defaultMessage = ContentContext(identifier: "defaultMessage", isFinal: false)

            /// Its name. https://developer.apple.com/documentation/network/nwconnection/contentcontext/identifier
            let identifier: String
            /// Whether it is the connection's last message (completing it closes the sending
            /// side). https://developer.apple.com/documentation/network/nwconnection/contentcontext/isfinal
            let isFinal: Bool

            /// A context; Apple's initializer takes more (expiration, priority, metadata…).
            private init(identifier: String, isFinal: Bool) {
                self.identifier = identifier
                self.isFinal = isFinal
            }
        }

        /// What tells the sender that its content was processed.
        /// https://developer.apple.com/documentation/network/nwconnection/sendcompletion
        enum SendCompletion: Sendable {
            /// Called once the stack processed the content (or failed to).
            /// https://developer.apple.com/documentation/network/nwconnection/sendcompletion/contentprocessed(_:)
            case contentProcessed(@Sendable (NWError?) -> Void)
            /// Content that may be sent more than once, without a completion.
            /// https://developer.apple.com/documentation/network/nwconnection/sendcompletion/idempotent
            case idempotent
        }
    }
#endif
