/// What client and server agreed for permessage-deflate (RFC 7692 §7.1): the result of
/// `PerMessageDeflateOptions.negotiate(responseHeaderValue:)`, from the client's side.
package struct PerMessageDeflateParameters: Hashable, Sendable {
    /// The reserved bits a decoder must allow once permessage-deflate is agreed: RSV1 marks a
    /// compressed message (§6).
    package static let reservedBits: WebSocketFrameDecoder.ReservedBits = .rsv1

    /// The window the client compresses with, in bits (8...15).
    package var clientMaxWindowBits: Int
    /// The largest window the server compresses with, in bits (8...15): the client inflates with it.
    package var serverMaxWindowBits: Int
    /// Whether the client resets its compressor after every message.
    package var clientNoContextTakeover: Bool
    /// Whether the server resets its compressor after every message, so the client's inflater must too.
    package var serverNoContextTakeover: Bool

    /// Parameters from their parts; the defaults are the RFC's when a response names none.
    package init(
        clientMaxWindowBits: Int = 15, serverMaxWindowBits: Int = 15, clientNoContextTakeover: Bool = false,
        serverNoContextTakeover: Bool = false
    ) {
        self.clientMaxWindowBits = clientMaxWindowBits
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverNoContextTakeover = serverNoContextTakeover
    }

    /// The compressor for what the client sends.
    ///
    /// - Parameter minimumCompressedSize: The size under which messages go out uncompressed.
    /// - Throws: `WebSocketCompressionError` when zlib cannot set up.
    package func makeClientCompressor(
        minimumCompressedSize: Int = PerMessageDeflateCompressor.defaultMinimumCompressedSize
    ) throws(WebSocketCompressionError) -> PerMessageDeflateCompressor {
        try PerMessageDeflateCompressor(
            windowBits: clientMaxWindowBits, noContextTakeover: clientNoContextTakeover,
            minimumCompressedSize: minimumCompressedSize)
    }

    /// The decompressor for what the server sends, to hand to `WebSocketMessageAssembler`.
    ///
    /// - Throws: `WebSocketCompressionError` when zlib cannot set up.
    package func makeClientDecompressor() throws(WebSocketCompressionError) -> PerMessageDeflateDecompressor {
        try PerMessageDeflateDecompressor(windowBits: serverMaxWindowBits, noContextTakeover: serverNoContextTakeover)
    }
}
