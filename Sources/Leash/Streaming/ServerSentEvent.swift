/// One event of a `text/event-stream` (Server-Sent Events), as the HTML Living Standard's
/// "Interpreting an event stream" dispatches it when a blank line ends a block that carried data.
///
/// A block without any `data` field dispatches nothing, so every event has been given data,
/// possibly the empty string (a block with a lone `data` line).
public struct ServerSentEvent: Sendable, Hashable, CustomStringConvertible {
    /// The stream's *last event ID buffer* when this event was dispatched, or nil when that
    /// buffer is empty.
    ///
    /// As in the standard (and a browser's `MessageEvent.lastEventId`), the buffer persists
    /// from event to event: an event without an `id` field carries the ID the stream set last.
    /// An `id` field with an empty value empties the buffer (nil here), which also means no
    /// `Last-Event-ID` header on a reconnection; an `id` value containing U+0000 NULL is ignored.
    public var id: String?
    /// The event type: the block's last `event` field, or `"message"` when it gave none (or
    /// gave an empty one).
    public var event: String
    /// The data: the values of the block's `data` fields joined with `"\n"` (the standard
    /// appends a line feed to each and removes the last one).
    public var data: String
    /// The reconnection time in milliseconds that a valid `retry` field of this event's block
    /// set, if any (the last one when the block had several).
    public var retry: Int?

    /// Creates an event; the defaults are those of a block with only `data` fields.
    public init(id: String? = nil, event: String = "message", data: String, retry: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }

    /// The event's fields, in the order a stream would send them, with the data quoted.
    ///
    /// Data longer than 200 characters is shortened (it is meant for logs and messages).
    public var description: String {
        var parts = ["event: \(event)"]
        if let id { parts.append("id: \(id)") }
        if let retry { parts.append("retry: \(retry)") }
        // `prefix` walks at most 200 characters, so a large data string costs nothing more.
        let shown = data.prefix(200)
        if shown.endIndex == data.endIndex {
            parts.append("data: \(data.debugDescription)")
        } else {
            parts.append("data: \(String(shown).debugDescription)… (\(data.utf8.count) bytes)")
        }
        return "ServerSentEvent(" + parts.joined(separator: ", ") + ")"
    }
}
