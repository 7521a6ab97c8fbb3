/// A header field value of the form `type; name=token; name="quoted string"`, as
/// `Content-Type` and `Content-Disposition` are.
///
/// Quoted strings are kept exactly as sent between their quotes: a backslash still hides
/// the quote after it from the scan for the closing quote, but is not removed, so that
/// tests see precisely what a client wrote.
struct HeaderParameters {
    /// The part before the first `;`, trimmed (`multipart/form-data`, `form-data`).
    let value: String
    /// The parameters in order, names as sent.
    let parameters: [(name: String, value: String)]

    /// Parses `text`; nil when a parameter has no `=` or a quoted string is not closed.
    init?(_ text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        func skipSpaces() {
            while index < bytes.count && (bytes[index] == 0x20 || bytes[index] == 0x09) { index += 1 }
        }
        func string(_ range: Range<Int>) -> String {
            String(decoding: bytes[range], as: UTF8.self).trimmingSpaces().description
        }
        let semicolon = UInt8(ascii: ";")
        let quote = UInt8(ascii: "\"")
        while index < bytes.count && bytes[index] != semicolon { index += 1 }
        value = string(0..<index)
        var parameters: [(name: String, value: String)] = []
        while index < bytes.count {
            index += 1  // past the `;`
            skipSpaces()
            guard index < bytes.count else { break }
            let nameStart = index
            while index < bytes.count && bytes[index] != UInt8(ascii: "=") && bytes[index] != semicolon { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { return nil }
            let name = string(nameStart..<index)
            index += 1
            skipSpaces()
            if index < bytes.count && bytes[index] == quote {
                index += 1
                let start = index
                while index < bytes.count && bytes[index] != quote {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard index < bytes.count else { return nil }
                parameters.append((name, String(decoding: bytes[start..<index], as: UTF8.self)))
                index += 1
                skipSpaces()
                guard index == bytes.count || bytes[index] == semicolon else { return nil }
            } else {
                let start = index
                while index < bytes.count && bytes[index] != semicolon { index += 1 }
                parameters.append((name, string(start..<index)))
            }
        }
        self.parameters = parameters
    }

    /// The value of the first parameter named `name` (case-insensitive), or nil.
    func parameter(_ name: String) -> String? {
        parameters.first { LoopbackHeaders.namesMatch($0.name, name) }?.value
    }
}
