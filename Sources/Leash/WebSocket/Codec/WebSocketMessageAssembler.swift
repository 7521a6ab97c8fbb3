import Foundation

/// Turns decoded frames into messages (RFC 6455 §5.4): joins the fragments of a text or binary
/// message, passes control frames through at once (they may come between fragments), and
/// checks text as UTF-8 fragment by fragment, so bad text fails before the message ends.
///
/// With a `PerMessageDeflateDecompressor` (permessage-deflate agreed, RFC 7692) a message whose
/// first frame has RSV1 is inflated fragment by fragment as it arrives: the UTF-8 check and the
/// size limit apply to the inflated bytes. RSV1 anywhere else (on a continuation, a control
/// frame, or without the extension) fails with 1002. The decompressor is a reference: copies of
/// an assembler share it, so only one of them may go on. Holding zlib's state, it makes the
/// assembler not `Sendable`: it stays with the task or actor that reads the connection.
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

    /// RSV1, as it sits in the first header byte: what `reservedBitsSet` reports for it.
    private static let rsv1Bit: UInt8 = 0x40

    /// The default for `maximumMessageSize`: 16 MiB, the largest message Autobahn's case 9 sends.
    package static let defaultMaximumMessageSize = 16 * 1024 * 1024

    /// The most bytes a message may have, over all its fragments and after inflating; more
    /// fails with 1009.
    package let maximumMessageSize: Int
    /// The inflater for compressed messages, when permessage-deflate was agreed.
    package let decompressor: PerMessageDeflateDecompressor?

    /// The fragmented message in progress, if any.
    private var open: OpenMessage?
    /// Whether the message in progress is compressed (RSV1 on its first frame).
    private var openIsCompressed = false
    /// The payload of the message in progress so far, inflated if it was compressed.
    private var collected = Data()

    /// An assembler accepting messages up to `maximumMessageSize` bytes.
    ///
    /// - Parameters:
    ///   - maximumMessageSize: The most bytes a message may have, after inflating.
    ///   - decompressor: The inflater when permessage-deflate was agreed; `nil` without it.
    package init(
        maximumMessageSize: Int = defaultMaximumMessageSize, decompressor: PerMessageDeflateDecompressor? = nil
    ) {
        self.maximumMessageSize = maximumMessageSize
        self.decompressor = decompressor
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
        // RSV1 means "compressed" on the first frame of a data message only (RFC 7692 §6.1).
        if frame.rsv1 && (decompressor == nil || !(frame.opcode == .text || frame.opcode == .binary)) {
            throw .reservedBitsSet(Self.rsv1Bit)
        }
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
            openIsCompressed = frame.rsv1
            collected = Data()
        case .continuation:
            guard open != nil else { throw .continuationWithoutStart }
        case .unknown(let raw):
            // The decoder rejects these already; a frame built by hand gets the same answer.
            throw .unknownOpcode(raw)
        }
        return try appendFragment(frame)
    }

    /// The UTF-8 state that a data frame with `opcode` and `rsv1`, not yet whole, continues
    /// from: a fresh one for an uncompressed text frame, the open message's for a continuation
    /// of uncompressed text; `nil` when there is no text to check before the frame is whole
    /// (binary, compressed, or a frame that will fail anyway).
    package func textState(continuedBy opcode: WebSocketFrame.Opcode, rsv1: Bool) -> IncrementalUTF8Validator? {
        guard !rsv1 else { return nil }
        switch (opcode, open) {
        case (.text, nil): return IncrementalUTF8Validator()
        case (.continuation, .text(let validator)?): return openIsCompressed ? nil : validator
        default: return nil
        }
    }

    /// Adds a data frame's payload to the open message, and ends the message on FIN.
    private mutating func appendFragment(_ frame: WebSocketFrame) throws(WebSocketProtocolViolation) -> Message? {
        let previousSize = collected.count
        if openIsCompressed, let decompressor {
            // Inflated straight into the message, which the decompressor stops at the limit.
            try decompressor.decompress(
                frame.payload, isFinal: frame.fin, appendingTo: &collected, maximumSize: maximumMessageSize)
            if case .text = open {
                try validateText(collected[previousSize...], isFinal: frame.fin, endOffset: collected.count)
            }
        } else {
            let newSize = previousSize + frame.payload.count
            guard newSize <= maximumMessageSize else { throw .messageTooLarge(newSize) }
            if case .text = open { try validateText(frame.payload, isFinal: frame.fin, endOffset: newSize) }
            // A message's first fragment is taken as it is (`Data` shares it): a message of one
            // frame is never copied here.
            if collected.isEmpty { collected = frame.payload } else { collected.append(frame.payload) }
        }
        guard frame.fin else { return nil }

        let message: Message
        if case .text = open {
            message = .text(String(decoding: collected, as: UTF8.self))
        } else {
            message = .binary(collected)
        }
        open = nil
        openIsCompressed = false
        collected = Data()
        return message
    }

    /// Checks the next bytes of the open text message as UTF-8.
    ///
    /// - Parameters:
    ///   - bytes: The bytes the message grew by, inflated if it is compressed.
    ///   - isFinal: Whether they end the message: a sequence may continue in the next fragment,
    ///     but not past the last one.
    ///   - endOffset: The message's size with `bytes`, where a sequence cut by the end fails.
    private mutating func validateText(_ bytes: Data, isFinal: Bool, endOffset: Int)
        throws(WebSocketProtocolViolation)
    {
        guard case .text(var validator) = open else { return }
        if let offset = validator.validate(bytes) { throw .invalidUTF8(atOffset: offset) }
        if isFinal && !validator.isAtCharacterBoundary { throw .invalidUTF8(atOffset: endOffset) }
        open = .text(validator)
    }
}
