import Foundation

/// A whole WebSocket message: text or binary, however many frames carried it.
///
/// ```swift
/// socket.send(.text("hello"))
/// if case .message(.binary(let data)) = event { … }
/// ```
public enum WebSocketMessage: Equatable, Hashable, Sendable {
    /// A text message (valid UTF-8 on the wire).
    case text(String)
    /// A binary message.
    case binary(Data)

    /// The message's payload size in bytes (the UTF-8 bytes of a text).
    public var byteCount: Int {
        switch self {
        case .text(let text): return text.utf8.count
        case .binary(let data): return data.count
        }
    }
}
