/// What a client offers for permessage-deflate (RFC 7692 §7.1) in its opening handshake.
///
/// ```swift
/// let options = try PerMessageDeflateOptions(clientNoContextTakeover: true)
/// request.setValue(options.offerHeaderValue, forHTTPHeaderField: "Sec-WebSocket-Extensions")
/// ```
package struct PerMessageDeflateOptions: Hashable, Sendable {
    /// The extension's name in headers.
    package static let extensionName = "permessage-deflate"

    /// The largest window the client will compress with, in bits (8...15); `nil` for 15.
    ///
    /// When offered, it goes out as `client_max_window_bits=N`, a promise the server may narrow.
    package let clientMaxWindowBits: Int?
    /// Whether the offer has `client_max_window_bits` at all; without `clientMaxWindowBits` it
    /// goes out bare, so that the server may choose the client's window (§7.1.2.2).
    ///
    /// `false` keeps the client's window in its own hands (a server may only shrink it, and
    /// with it the compression ratio): a response that sets it then fails the handshake.
    package let offersClientMaxWindowBits: Bool
    /// The largest window the server may compress with, in bits (8...15); `nil` leaves it to
    /// the server. A smaller one saves memory on the client: its inflater holds that window.
    package let serverMaxWindowBits: Int?
    /// Whether the client offers to reset its compressor after every message, which saves
    /// the server from keeping the client's window between messages.
    package let clientNoContextTakeover: Bool
    /// Whether the server must reset its compressor after every message, which saves the
    /// client from keeping a window between messages at the cost of compression.
    package let serverNoContextTakeover: Bool

    /// Options from their parts; the defaults offer plain `permessage-deflate;
    /// client_max_window_bits`, which lets the server pick everything.
    ///
    /// - Throws: `windowBitsOutOfRange` for a window outside 8...15 bits.
    package init(
        clientMaxWindowBits: Int? = nil, offersClientMaxWindowBits: Bool = true, serverMaxWindowBits: Int? = nil,
        clientNoContextTakeover: Bool = false, serverNoContextTakeover: Bool = false
    ) throws(WebSocketCompressionError) {
        for bits in [clientMaxWindowBits, serverMaxWindowBits].compactMap({ $0 }) where !(8...15).contains(bits) {
            throw .windowBitsOutOfRange(bits)
        }
        self.clientMaxWindowBits = clientMaxWindowBits
        self.offersClientMaxWindowBits = offersClientMaxWindowBits
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverNoContextTakeover = serverNoContextTakeover
    }

    /// The offer as an extension with its parameters.
    package var offer: WebSocketExtension {
        typealias Parameter = WebSocketExtension.Parameter
        var parameters: [Parameter] = []
        if clientNoContextTakeover { parameters.append(Parameter(name: "client_no_context_takeover")) }
        if serverNoContextTakeover { parameters.append(Parameter(name: "server_no_context_takeover")) }
        if offersClientMaxWindowBits {
            parameters.append(Parameter(name: "client_max_window_bits", value: clientMaxWindowBits.map(String.init)))
        }
        if let serverMaxWindowBits {
            parameters.append(Parameter(name: "server_max_window_bits", value: String(serverMaxWindowBits)))
        }
        return WebSocketExtension(name: Self.extensionName, parameters: parameters)
    }

    /// The value of the request's `Sec-WebSocket-Extensions` header, for example
    /// `permessage-deflate; client_max_window_bits`.
    package var offerHeaderValue: String { offer.headerValue }
}
