// A stand-in of Network.framework's parameters and protocol options for the Linux build that
// takes Apple platforms' branches (see NetworkStandInScript.swift); a real Apple build uses the
// framework's own.
#if LEASH_APPLE_BRANCHES && !canImport(Network)
    /// The protocols and options of a connection.
    /// https://developer.apple.com/documentation/network/nwparameters (a final class).
    final class NWParameters: @unchecked Sendable {
        // Sendable: immutable; the options it holds are set up before the connection is made.

        /// The TLS options, nil for plain TCP. Not Apple's API (the framework keeps them in its
        /// protocol stack): what the stand-in's tests look at.
        let tlsOptions: NWProtocolTLS.Options?
        /// The TCP options. Not Apple's API, as `tlsOptions`.
        let tcpOptions: NWProtocolTCP.Options

        /// Parameters for TLS (or, with nil, plain TCP) over TCP.
        /// https://developer.apple.com/documentation/network/nwparameters/init(tls:tcp:)
        init(tls: NWProtocolTLS.Options?, tcp: NWProtocolTCP.Options = NWProtocolTCP.Options()) {
            tlsOptions = tls
            tcpOptions = tcp
        }
    }

    /// TCP. https://developer.apple.com/documentation/network/nwprotocoltcp (a class there; an
    /// enum here, as only its `Options` are used).
    enum NWProtocolTCP {
        /// TCP's options.
        /// https://developer.apple.com/documentation/network/nwprotocoltcp/options
        final class Options {
            /// Whether Nagle's algorithm is off (`TCP_NODELAY`).
            /// https://developer.apple.com/documentation/network/nw_tcp_options_set_no_delay(_:_:)
            /// (the C function the Swift property sets; false by default).
            var noDelay = false

            /// The default TCP options.
            /// https://developer.apple.com/documentation/network/nwprotocoltcp/options/init()
            init() {}
        }
    }

    /// TLS. https://developer.apple.com/documentation/network/nwprotocoltls (a class there; an
    /// enum here, as only its `Options` are used).
    enum NWProtocolTLS {
        /// TLS's options.
        /// https://developer.apple.com/documentation/network/nwprotocoltls/options (Sendable).
        final class Options: Sendable {
            /// The handshake's security options (Security's).
            /// https://developer.apple.com/documentation/network/nwprotocoltls/options/securityprotocoloptions
            let securityProtocolOptions: sec_protocol_options_t = sec_protocol_options_t()

            /// The default TLS options.
            /// https://developer.apple.com/documentation/network/nwprotocoltls/options
            init() {}
        }
    }
#endif
