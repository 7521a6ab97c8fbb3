import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLRequest {
    /// The request as a `curl` command to paste into a POSIX shell, with the values of
    /// `HeaderRedaction.defaultNames` (`Authorization`, cookies…) shown as `***`.
    ///
    /// ```swift
    /// print(try client.urlRequest(for: APIEndpoint.readAllUsers).cURLDescription)
    /// // curl -v -X GET \
    /// //   -H 'Accept: application/json' \
    /// //   -H 'Authorization: ***' \
    /// //   -H 'User-Agent: Leash/1.0' \
    /// //   'https://api.example.com/v1/users'
    /// ```
    ///
    /// See `cURLDescription(redacting:)` for what it shows.
    public var cURLDescription: String {
        cURLDescription(redacting: .standard)
    }

    /// The request as a `curl` command to paste into a POSIX shell (sh, bash, zsh).
    ///
    /// - `curl -v -X METHOD` (`--head` for HEAD, which `-X` would leave waiting for a body);
    /// - each header of the request as `-H 'Name: value'`, sorted by name, the values
    ///   `redaction` hides as `***`;
    /// - a body in memory as `--data-binary '…'`; a body that is not text (or holds a NUL
    ///   byte, which no shell argument can) is piped in, byte for byte, from
    ///   `printf '\ooo…' | curl … --data-binary @-`;
    /// - the URL, last.
    ///
    /// Every value is single-quoted, with a quote inside written `'\''`, so quotes, `$`,
    /// backticks, backslashes and newlines reach curl as they are. A body the transport
    /// reads from a stream or a file (`httpBodyStream`, an `UploadFile`) is not read: a
    /// trailing `# …` comment says so. Headers that URLSession adds itself when it sends
    /// the request (its configuration's, `Content-Length` of a stream) are not part of the
    /// request, so they are not shown.
    ///
    /// - Parameter redaction: Which header values to hide (`.none` to show every value,
    ///   for a command you mean to run; never for one that is logged).
    /// - Returns: The command, one option per line, lines joined by ` \` and a newline.
    public func cURLDescription(redacting redaction: HeaderRedaction) -> String {
        var lines: [String] = []
        let method = httpMethod ?? "GET"
        lines.append(method == "HEAD" ? "curl -v --head" : "curl -v -X \(Self.shellQuotedIfNeeded(method))")
        let headers = (allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
        for (name, value) in headers {
            lines.append("  -H \(Self.shellQuoted("\(name): \(redaction.value(value, ofHeader: name))"))")
        }
        var pipedBody: String?
        if let body = httpBody, !body.isEmpty {
            if let text = String(data: body, encoding: .utf8), !text.utf8.contains(0) {
                lines.append("  --data-binary \(Self.shellQuoted(text))")
            } else {
                pipedBody = "printf '\(body.map(Self.octalEscape).joined())' | "
                lines.append("  --data-binary @-")
            }
        }
        lines.append("  \(Self.shellQuoted(url?.absoluteString ?? ""))")
        var command = (pipedBody ?? "") + lines.joined(separator: " \\\n")
        if let note = unreadBodyNote { command += "  # \(note)" }
        return command
    }

    /// What a description says of a body it cannot show: one in a stream, or one the
    /// transport sends from a file (no body in the request, but a length).
    private var unreadBodyNote: String? {
        if httpBodyStream != nil { return "the body is sent from a stream and is not shown" }
        guard httpBody?.isEmpty ?? true, let length = value(forHTTPHeaderField: "Content-Length"),
            let bytes = Int(length), bytes > 0
        else { return nil }
        return "the body (\(bytes) bytes) is sent from a file and is not shown"
    }

    /// `value` between single quotes, each quote in it closed, escaped and reopened
    /// (`'\''`): inside single quotes a POSIX shell expands nothing.
    static func shellQuoted(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// A method made of letters is shown bare (`-X POST`); anything else is quoted.
    private static func shellQuotedIfNeeded(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || $0 == "-" }
        return plain ? word : shellQuoted(word)
    }

    /// A byte as `printf` writes it back: `\ooo`, three octal digits (POSIX).
    private static func octalEscape(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 8)
        return "\\" + String(repeating: "0", count: 3 - digits.count) + digits
    }
}
