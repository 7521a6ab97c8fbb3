import Foundation

/// The `Sec-WebSocket-Accept` value of the WebSocket opening handshake (RFC 6455 §4.2.2):
/// the base64 of the SHA-1 of the client's `Sec-WebSocket-Key` followed by a fixed GUID.
/// The client computes it to check the server's answer; the server to give it.
///
/// ```swift
/// WebSocketAccept.value(forKey: "dGhlIHNhbXBsZSBub25jZQ==")  // "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
/// ```
public enum WebSocketAccept {
    /// The GUID RFC 6455 appends to the key.
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The accept value for `key`, taken as sent (the base64 text, not decoded).
    public static func value(forKey key: String) -> String {
        Data(SHA1.digest(Array((key + guid).utf8))).base64EncodedString()
    }
}
