// A stand-in of Network.framework's endpoints for the Linux build that takes Apple platforms'
// branches (see NetworkStandInScript.swift); a real Apple build uses the framework's own.
#if LEASH_APPLE_BRANCHES && !canImport(Network)
    /// A local or remote endpoint of a connection.
    /// https://developer.apple.com/documentation/network/nwendpoint
    enum NWEndpoint: Hashable, Sendable {
        /// A host and a port.
        /// https://developer.apple.com/documentation/network/nwendpoint/hostport(host:port:)
        case hostPort(host: NWEndpoint.Host, port: NWEndpoint.Port)

        /// A name or address that identifies an endpoint.
        /// https://developer.apple.com/documentation/network/nwendpoint/host
        enum Host: Hashable, Sendable {
            /// The host as given. Apple's enum has `.name(String, NWInterface?)`, `.ipv4` and
            /// `.ipv6`, and its `init(_:)` parses address literals; the stand-in keeps the
            /// string, which is what its tests check.
            case name(String)

            /// A host from a name or an address literal.
            /// https://developer.apple.com/documentation/network/nwendpoint/host/init(_:)
            init(_ string: String) {
                self = .name(string)
            }
        }

        /// A port number.
        /// https://developer.apple.com/documentation/network/nwendpoint/port (a struct,
        /// `RawRepresentable` with `UInt16`: `init?(rawValue:)`, `rawValue`).
        struct Port: Hashable, Sendable, RawRepresentable {
            /// The number.
            let rawValue: UInt16

            /// The port numbered `rawValue`; Apple's initializer is failable, and every
            /// `UInt16` makes a port.
            init?(rawValue: UInt16) {
                self.rawValue = rawValue
            }
        }
    }
#endif
