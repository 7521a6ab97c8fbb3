extension PerMessageDeflateOptions {
    /// Checks the server's `Sec-WebSocket-Extensions` response against this offer (RFC 7692
    /// §7.1) and works out what was agreed.
    ///
    /// The client offered permessage-deflate alone, so any other extension fails, as does
    /// anything in the response that this offer did not allow: the handshake must then fail
    /// with the error's `description`.
    ///
    /// - Parameter responseHeaderValue: The header's value, several fields joined with `,`;
    ///   `nil` or empty when the response had none.
    /// - Returns: The agreed parameters, or `nil` when the server declined compression.
    /// - Throws: `PerMessageDeflateNegotiationError` naming what the server got wrong.
    package func negotiate(responseHeaderValue: String?) throws(PerMessageDeflateNegotiationError)
        -> PerMessageDeflateParameters?
    {
        guard let responseHeaderValue else { return nil }
        let extensions: [WebSocketExtension]
        do {
            extensions = try WebSocketExtension.parseList(responseHeaderValue)
        } catch {
            throw .malformedHeader(error.reason)
        }
        var accepted: WebSocketExtension?
        for element in extensions {
            guard element.name == Self.extensionName else { throw .unexpectedExtension(element.name) }
            guard accepted == nil else { throw .repeatedExtension }
            accepted = element
        }
        guard let accepted else { return nil }
        return try agreedParameters(from: accepted.parameters)
    }

    /// The parameters agreed by a response that accepted the offer with `parameters`.
    private func agreedParameters(from parameters: [WebSocketExtension.Parameter])
        throws(PerMessageDeflateNegotiationError) -> PerMessageDeflateParameters
    {
        var seen: Set<String> = []
        var responseClientBits: Int?
        var responseServerBits: Int?
        var responseClientNoTakeover = false
        var responseServerNoTakeover = false
        for parameter in parameters {
            guard seen.insert(parameter.name).inserted else { throw .repeatedParameter(parameter.name) }
            switch parameter.name {
            case "client_no_context_takeover":
                // The server may ask for it even when the client did not offer it (§7.1.1.2).
                guard parameter.value == nil else {
                    throw .invalidParameterValue(name: parameter.name, value: parameter.value)
                }
                responseClientNoTakeover = true
            case "server_no_context_takeover":
                guard parameter.value == nil else {
                    throw .invalidParameterValue(name: parameter.name, value: parameter.value)
                }
                responseServerNoTakeover = true
            case "client_max_window_bits":
                guard offersClientMaxWindowBits else { throw .clientMaxWindowBitsNotOffered }
                // A response must give the value: only the offer may leave it out (§7.1.2.2).
                responseClientBits = try Self.windowBits(parameter)
            case "server_max_window_bits":
                // The server may limit its window even when the offer did not (§7.1.2.1).
                responseServerBits = try Self.windowBits(parameter)
            default:
                throw .unknownParameter(parameter.name)
            }
        }
        if let offered = serverMaxWindowBits {
            guard let received = responseServerBits else { throw .serverMaxWindowBitsMissing(offered: offered) }
            guard received <= offered else {
                throw .serverMaxWindowBitsAboveOffer(offered: offered, received: received)
            }
        }
        if serverNoContextTakeover && !responseServerNoTakeover { throw .serverNoContextTakeoverMissing }
        return PerMessageDeflateParameters(
            // The client's own limit holds whatever the server allows: a sender may always use
            // a smaller window than agreed.
            clientMaxWindowBits: min(clientMaxWindowBits ?? 15, responseClientBits ?? 15),
            serverMaxWindowBits: responseServerBits ?? 15,
            clientNoContextTakeover: clientNoContextTakeover || responseClientNoTakeover,
            serverNoContextTakeover: responseServerNoTakeover)
    }

    /// The window size a `…_max_window_bits` parameter gives: 8 to 15 in plain decimal, with no
    /// sign or leading zero (§7.1.2.1's ABNF: `%x38-39 / %x31 %x30-35`).
    private static func windowBits(_ parameter: WebSocketExtension.Parameter) throws(PerMessageDeflateNegotiationError)
        -> Int
    {
        guard let value = parameter.value, let bits = Int(value), (8...15).contains(bits), String(bits) == value else {
            throw .invalidParameterValue(name: parameter.name, value: parameter.value)
        }
        return bits
    }
}
