import Foundation

/// Turns decoded frames into messages (RFC 6455 §5.4): joins the fragments of a text or binary
/// message, passes control frames through at once (they may come between fragments), and
/// checks text as UTF-8 fragment by fragment, so bad text fails before the message ends.
///
/// ```swift
/// var assembler = WebSocketMessageAssembler()
/// for frame in output.frames {
///     if let message = try assembler.append(frame) { … }
/// }
/// ```
package struct WebSocketMessageAssembler {
    /// A complete message, or a control frame's content.
    package enum Message: Hashable, Sendable {
        /// A text message, checked as UTF-8.
        case text(String)
        /// A binary message.
        case binary(Data)
        /// A ping; the application must answer with a pong carrying the same bytes (§5.5.2).
        case ping(Data)
        /// A pong.
        case pong(Data)
        /// A close frame: its code and reason, already validated, or `nil` when it had none.
        case close(code: WebSocketCloseCode?, reason: String)
    }

    /// The kind of the message being assembled.
    private enum OpenMessage {
        /// A text message, with the validator that has seen its bytes so far.
        case text(IncrementalUTF8Validator)
        /// A binary message.
        case binary
    }

    /// The default for `maximumMessageSize`: 16 MiB, the largest message Autobahn's case 9 sends.
    package static let defaultMaximumMessageSize = 16 * 1024 * 1024

    /// The most bytes a message may have, over all its fragments; more fails with 1009.
    package let maximumMessageSize: Int

    /// The fragmented message in progress, if any.
    private var open: OpenMessage?
    /// The payload of the message in progress so far.
    private var collected = Data()

    /// An assembler accepting messages up to `maximumMessageSize` bytes.
    package init(maximumMessageSize: Int = defaultMaximumMessageSize) {
        self.maximumMessageSize = maximumMessageSize
    }

    /// Whether a fragmented message has started and not yet ended.
    package var isAssembling: Bool { open != nil }

    /// Takes the next frame.
    ///
    /// - Returns: The message it completes, the control frame's content, or `nil` when it is a
    ///   fragment of a message that continues.
    /// - Throws: The violation the frame (or the message it adds to) commits; the connection must
    ///   then fail, and the assembler is not to be used again.
    package mutating func append(_ frame: WebSocketFrame) throws(WebSocketProtocolViolation) -> Message? {
        switch frame.opcode {
        case .ping:
            return .ping(frame.payload)
        case .pong:
            return .pong(frame.payload)
        case .close:
            let close = try WebSocketCloseCode.validateClosePayload(frame.payload)
            return .close(code: close?.code, reason: close?.reason ?? "")
        case .text, .binary:
            guard open == nil else { throw .dataFrameWhileMessageOpen }
            open = frame.opcode == .text ? .text(IncrementalUTF8Validator()) : .binary
            collected = Data()
        case .continuation:
            guard open != nil else { throw .continuationWithoutStart }
        case .unknown(let raw):
            // The decoder rejects these already; a frame built by hand gets the same answer.
            throw .unknownOpcode(raw)
        }
        return try appendFragment(frame)
    }

    /// Adds a data frame's payload to the open message, and ends the message on FIN.
    private mutating func appendFragment(_ frame: WebSocketFrame) throws(WebSocketProtocolViolation) -> Message? {
        let newSize = collected.count + frame.payload.count
        guard newSize <= maximumMessageSize else { throw .messageTooLarge(newSize) }
        if case .text(var validator) = open {
            if let offset = validator.validate(frame.payload) { throw .invalidUTF8(atOffset: offset) }
            // A sequence may continue in the next fragment, but not past the last one.
            if frame.fin && !validator.isAtCharacterBoundary { throw .invalidUTF8(atOffset: newSize) }
            open = .text(validator)
        }
        collected.append(frame.payload)
        guard frame.fin else { return nil }

        let message: Message
        if case .text = open {
            message = .text(String(decoding: collected, as: UTF8.self))
        } else {
            message = .binary(collected)
        }
        open = nil
        collected = Data()
        return message
    }
}
