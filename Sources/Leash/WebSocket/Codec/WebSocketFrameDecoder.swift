import Foundation

/// Reads frames (RFC 6455 §5.2) from bytes as they arrive, in chunks split anywhere.
///
/// It checks everything a single frame can break: the reserved bits, the opcode, the mask
/// bit, the rules for control frames and the size limit, each as soon as the header bytes
/// that show it are in. After a violation it stays failed: the connection must close.
///
/// Buffering is bounded: a frame's length is checked against `maximumFrameSize` before its
/// payload is waited for, and what stays buffered between calls is at most one incomplete
/// frame, so at most `maximumFrameSize` plus a 14-byte header.
///
/// ```swift
/// var decoder = WebSocketFrameDecoder()
/// let output = decoder.decode(chunk)
/// for frame in output.frames { … }
/// if let violation = output.violation { /* close with violation.closeCode */ }
/// ```
package struct WebSocketFrameDecoder {
    /// Which end of the connection decodes: a client reads unmasked frames, a server masked ones.
    package enum Role: Hashable, Sendable {
        /// The decoder reads what a server sent: frames must not be masked (§5.1).
        case client
        /// The decoder reads what a client sent: frames must be masked (§5.1).
        case server
    }

    /// The reserved header bits a negotiated extension gives a meaning to.
    package struct ReservedBits: OptionSet, Hashable, Sendable {
        /// The bits in their place in the first header byte.
        package let rawValue: UInt8

        /// Bits from their mask in the first header byte.
        package init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// RSV1 (`0x40`), which permessage-deflate uses.
        package static let rsv1 = ReservedBits(rawValue: 0x40)
        /// RSV2 (`0x20`).
        package static let rsv2 = ReservedBits(rawValue: 0x20)
        /// RSV3 (`0x10`).
        package static let rsv3 = ReservedBits(rawValue: 0x10)
    }

    /// What `decode(_:)` found in a chunk.
    package struct Output: Hashable, Sendable {
        /// The complete frames, in order; those before a violation are still good to act on.
        package var frames: [WebSocketFrame] = []
        /// The violation that ended decoding, if any; no frame follows it.
        package var violation: WebSocketProtocolViolation?

        /// An output from its parts; empty by default.
        package init(frames: [WebSocketFrame] = [], violation: WebSocketProtocolViolation? = nil) {
            self.frames = frames
            self.violation = violation
        }
    }

    /// The default for `maximumFrameSize`: 16 MiB, the largest frame Autobahn's case 9 sends.
    package static let defaultMaximumFrameSize = 16 * 1024 * 1024

    /// Which end decodes, and so whether frames must be masked.
    package let role: Role
    /// The largest payload accepted in one frame; a bigger one fails with 1009.
    package let maximumFrameSize: Int
    /// The reserved bits that may be set; any other fails with 1002.
    package let allowedReservedBits: ReservedBits

    /// Bytes of the next, incomplete frame.
    private var buffer: [UInt8] = []
    /// A large frame whose header was read: its payload is collected straight into the `Data`
    /// it is handed on in, instead of through `buffer` (one copy of each byte, not three).
    private var large: LargeFrame?

    /// A frame being collected without the buffer.
    private struct LargeFrame {
        /// The frame, its payload so far.
        var frame: WebSocketFrame
        /// The payload bytes still to come.
        var remaining: Int
    }

    /// Payloads this large are collected directly (`LargeFrame`); smaller ones go through the
    /// buffer, where several frames of one chunk are parsed in place.
    static let directPayloadSize = 64 * 1024
    /// The violation that failed decoding, repeated on every later call.
    private var violation: WebSocketProtocolViolation?

    /// A decoder for `role`, with the given limits; a negative maximum counts as zero.
    package init(
        role: Role = .client, maximumFrameSize: Int = defaultMaximumFrameSize, allowedReservedBits: ReservedBits = []
    ) {
        self.role = role
        self.maximumFrameSize = max(0, maximumFrameSize)
        self.allowedReservedBits = allowedReservedBits
    }

    /// Decodes the next chunk of the stream.
    ///
    /// - Parameter chunk: The bytes that arrived, of any length; they continue the previous chunk.
    /// - Returns: The frames completed by this chunk, then the violation if one was found.
    package mutating func decode(_ chunk: some Collection<UInt8>) -> Output {
        if let violation { return Output(violation: violation) }
        var output = Output()
        var rest = chunk[...]
        // Taken out while it grows: a second reference would make each append copy the payload.
        if var frame = large.take() {
            let taken = min(frame.remaining, rest.count)
            frame.frame.payload.append(contentsOf: rest.prefix(taken))
            frame.remaining -= taken
            rest = rest.dropFirst(taken)
            guard frame.remaining == 0 else {
                large = frame
                return output
            }
            frame.frame.maskingKey?.apply(to: &frame.frame.payload)
            output.frames.append(frame.frame)
        }
        buffer.append(contentsOf: rest)
        var start = 0
        do {
            parsing: while true {
                switch try parseFrame(from: start) {
                case .frame(let frame, let end):
                    output.frames.append(frame)
                    start = end
                case .incomplete:
                    break parsing
                case .large(var frame, let payloadStart, let length):
                    // The rest of the buffer is the payload's beginning: moved out, and the
                    // buffer is empty until the frame is whole.
                    frame.payload.reserveCapacity(length)
                    frame.payload.append(contentsOf: buffer[payloadStart...])
                    large = LargeFrame(frame: frame, remaining: length - frame.payload.count)
                    start = buffer.count
                    break parsing
                }
            }
        } catch {
            violation = error
            output.violation = error
            buffer = []
            return output
        }
        buffer.removeFirst(start)
        return output
    }

    /// The frame still arriving, once its header is in: its opcode, RSV1, and how many
    /// payload bytes came so far. What a caller checks early (text's UTF-8, with
    /// `partialPayload(from:)`) before the frame is whole; nothing is consumed.
    package var partialFrame: (opcode: WebSocketFrame.Opcode, rsv1: Bool, received: Int)? {
        guard violation == nil else { return nil }
        if let large { return (large.frame.opcode, large.frame.rsv1, large.frame.payload.count) }
        guard let headerLength = bufferedHeaderLength else { return nil }
        let first = buffer[0]
        return (WebSocketFrame.Opcode(rawValue: first & 0x0F), first & 0x40 != 0, buffer.count - headerLength)
    }

    /// The payload bytes of the frame still arriving, from `offset` on (empty without one).
    package func partialPayload(from offset: Int) -> Data {
        if let large { return large.frame.payload.dropFirst(offset) }
        guard let headerLength = bufferedHeaderLength, headerLength + offset < buffer.count else { return Data() }
        return Data(buffer[(headerLength + offset)...])
    }

    /// The length of the header at the start of the buffer, once all of it is there.
    private var bufferedHeaderLength: Int? {
        guard buffer.count >= 2 else { return nil }
        let second = buffer[1]
        var headerLength = 2
        switch second & 0x7F {
        case 126: headerLength = 4
        case 127: headerLength = 10
        default: break
        }
        if second & 0x80 != 0 { headerLength += 4 }
        return buffer.count >= headerLength ? headerLength : nil
    }

    /// What `parseFrame(from:)` found.
    private enum Parsed {
        /// A whole frame, and the index just past it.
        case frame(WebSocketFrame, end: Int)
        /// Not enough bytes yet.
        case incomplete
        /// A large frame whose payload has begun at `payloadStart` (the frame's payload is
        /// empty): collect its `length` bytes directly.
        case large(WebSocketFrame, payloadStart: Int, length: Int)
    }

    /// Parses the frame that begins at `start` of the buffer.
    ///
    /// - Returns: The frame and the index just past it, or `nil` until more bytes arrive.
    private func parseFrame(from start: Int) throws(WebSocketProtocolViolation) -> Parsed {
        let available = buffer.count - start
        // The first byte alone can already break the rules: check it before waiting for more.
        guard available >= 1 else { return .incomplete }
        let first = buffer[start]
        let reserved = first & 0x70 & ~allowedReservedBits.rawValue
        guard reserved == 0 else { throw .reservedBitsSet(reserved) }
        let opcode = WebSocketFrame.Opcode(rawValue: first & 0x0F)
        if case .unknown(let raw) = opcode { throw .unknownOpcode(raw) }
        let fin = first & 0x80 != 0
        if opcode.isControl && !fin { throw .fragmentedControlFrame }
        guard available >= 2 else { return .incomplete }
        let second = buffer[start + 1]
        let masked = second & 0x80 != 0
        switch (role, masked) {
        case (.client, true): throw .maskedFrameFromServer
        case (.server, false): throw .unmaskedFrameFromClient
        default: break
        }

        // Non-minimal length encodings are not checked: §5.2 asks senders for the minimal form
        // but does not ask receivers to fail on others.
        var headerLength = 2
        let length: UInt64
        switch second & 0x7F {
        case 126:
            guard available >= 4 else { return .incomplete }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
            headerLength = 4
        case 127:
            guard available >= 10 else { return .incomplete }
            length = (0..<8).reduce(0) { $0 << 8 | UInt64(buffer[start + 2 + $1]) }
            guard length & (1 << 63) == 0 else { throw .payloadLengthMostSignificantBitSet }
            headerLength = 10
        case let short:
            length = UInt64(short)
        }
        if opcode.isControl && length > 125 { throw .controlFrameTooLong(length) }
        guard length <= UInt64(maximumFrameSize) else { throw .frameTooLarge(length) }

        var maskingKey: WebSocketFrame.MaskingKey?
        if masked {
            guard available >= headerLength + 4 else { return .incomplete }
            let keyStart = start + headerLength
            maskingKey = WebSocketFrame.MaskingKey(
                buffer[keyStart], buffer[keyStart + 1], buffer[keyStart + 2], buffer[keyStart + 3])
            headerLength += 4
        }
        let payloadLength = Int(length)
        let payloadStart = start + headerLength
        var frame = WebSocketFrame(
            fin: fin, rsv1: first & 0x40 != 0, rsv2: first & 0x20 != 0, rsv3: first & 0x10 != 0, opcode: opcode,
            maskingKey: maskingKey, payload: Data())
        guard available >= headerLength + payloadLength else {
            guard payloadLength >= Self.directPayloadSize else { return .incomplete }
            return .large(frame, payloadStart: payloadStart, length: payloadLength)
        }
        frame.payload = Data(buffer[payloadStart..<payloadStart + payloadLength])
        maskingKey?.apply(to: &frame.payload)
        return .frame(frame, end: payloadStart + payloadLength)
    }
}
