extension ServerSentEvent {
    /// The event as a server writes it in a `text/event-stream`: its `id`, `event` (unless
    /// `"message"`, the default), `retry` and one `data` line per line of `data`, then the
    /// blank line that dispatches it. Parsing it gives this event back (for a stream whose
    /// last event ID was this event's `id`).
    ///
    /// For stubs, test servers and logs (`StubResponse.serverSentEvents` writes its events
    /// this way).
    public var wireFormat: String {
        var text = ""
        if let id { text += "id: \(Self.singleLine(id))\n" }
        if event != "message" { text += "event: \(Self.singleLine(event))\n" }
        if let retry { text += "retry: \(retry)\n" }
        // Every line end the parser knows (CRLF, LF, CR) starts another `data` line.
        let lines = data.replacingOccurrences(of: "\r\n", with: "\n").split(
            omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" })
        for line in lines { text += "data: \(line)\n" }
        return text + "\n"
    }

    /// `value` without line ends, which a field cannot hold.
    private static func singleLine(_ value: String) -> String {
        String(value.filter { $0 != "\n" && $0 != "\r" && $0 != "\r\n" })
    }
}
