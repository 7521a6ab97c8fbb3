/// Why a `Sec-WebSocket-Extensions` value does not follow the grammar of RFC 6455 §9.1.
package struct WebSocketExtensionHeaderError: Error, Hashable, Sendable {
    /// What was wrong and where, for the handshake failure's message.
    package var reason: String
}

extension WebSocketExtension {
    /// Parses a `Sec-WebSocket-Extensions` value: a comma-separated list of extensions, each
    /// with `;`-separated parameters whose values are tokens or quoted strings (RFC 6455 §9.1,
    /// RFC 7230 §3.2.6 and §7 for the list and its optional whitespace).
    ///
    /// Several header fields are one list: join their values with `,` before parsing. Empty
    /// list elements (`a, , b`) are skipped, as RFC 7230 §7 asks of a recipient.
    ///
    /// - Returns: The extensions in order; empty for an empty value.
    /// - Throws: `WebSocketExtensionHeaderError` for anything outside the grammar, including a
    ///   quoted value that is not a token once unquoted (§9.1 requires that).
    package static func parseList(_ headerValue: String) throws(WebSocketExtensionHeaderError) -> [WebSocketExtension] {
        var parser = ExtensionListParser(bytes: Array(headerValue.utf8))
        return try parser.parseList()
    }
}

/// The state of one parse: the bytes and the position in them.
private struct ExtensionListParser {
    /// The header value's UTF-8 bytes; anything not ASCII fails the grammar.
    let bytes: [UInt8]
    /// The offset of the next byte to read.
    var index = 0

    /// The list, element by element.
    mutating func parseList() throws(WebSocketExtensionHeaderError) -> [WebSocketExtension] {
        var extensions: [WebSocketExtension] = []
        while true {
            skipWhitespace()
            guard let byte = peek() else { return extensions }
            if byte == UInt8(ascii: ",") {
                index += 1
                continue
            }
            let name = try token(expected: "an extension name")
            var parameters: [WebSocketExtension.Parameter] = []
            skipWhitespace()
            while peek() == UInt8(ascii: ";") {
                index += 1
                skipWhitespace()
                let parameterName = try token(expected: "a parameter name")
                skipWhitespace()
                var value: String?
                if peek() == UInt8(ascii: "=") {
                    index += 1
                    skipWhitespace()
                    value = peek() == UInt8(ascii: "\"") ? try quotedToken() : try token(expected: "a parameter value")
                    skipWhitespace()
                }
                parameters.append(WebSocketExtension.Parameter(name: parameterName, value: value))
            }
            if let byte = peek(), byte != UInt8(ascii: ",") { throw failure("unexpected \(describe(byte))") }
            extensions.append(WebSocketExtension(name: name, parameters: parameters))
        }
    }

    /// The byte at `index`, or `nil` at the end.
    func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    /// Skips optional whitespace (RFC 7230's OWS: spaces and tabs).
    mutating func skipWhitespace() {
        while let byte = peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
    }

    /// Reads a token (RFC 7230 §3.2.6), which must not be empty.
    mutating func token(expected what: String) throws(WebSocketExtensionHeaderError) -> String {
        let start = index
        while let byte = peek(), Self.isTokenCharacter(byte) { index += 1 }
        guard index > start else {
            throw failure("expected \(what), found \(peek().map(describe) ?? "the end")")
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// Reads a quoted string (RFC 7230 §3.2.6) whose content, unescaped, must be a token.
    mutating func quotedToken() throws(WebSocketExtensionHeaderError) -> String {
        let start = index
        index += 1
        var content: [UInt8] = []
        while let byte = peek() {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                // §9.1: "the value after quoted-string unescaping MUST conform to the 'token' ABNF".
                guard !content.isEmpty, content.allSatisfy(Self.isTokenCharacter) else {
                    throw failure("the quoted value at offset \(start) is not a token")
                }
                return String(decoding: content, as: UTF8.self)
            case UInt8(ascii: "\\"):
                // quoted-pair: any visible character, space or tab may follow the backslash.
                guard let escaped = peek(), escaped == 0x09 || escaped >= 0x20 && escaped != 0x7F else {
                    throw failure("bad escape in the quoted value at offset \(start)")
                }
                content.append(escaped)
                index += 1
            case 0x09, 0x20...0x7E, 0x80...0xFF:
                content.append(byte)
            default:
                throw failure("control character in the quoted value at offset \(start)")
            }
        }
        throw failure("unterminated quoted value at offset \(start)")
    }

    /// An error saying what was wrong at the current offset.
    func failure(_ what: String) -> WebSocketExtensionHeaderError {
        WebSocketExtensionHeaderError(reason: "malformed Sec-WebSocket-Extensions: \(what) at offset \(index)")
    }

    /// A byte as the error message shows it: the character when printable, else its value.
    func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    /// Whether `byte` is a `tchar` (RFC 7230 §3.2.6): a letter, a digit or one of `!#$%&'*+-.^_`|~`.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return tokenSymbols.contains(byte)
        }
    }

    /// The `tchar`s that are neither letters nor digits.
    static let tokenSymbols: [UInt8] = Array("!#$%&'*+-.^_`|~".utf8)
}
