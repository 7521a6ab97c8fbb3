import Foundation

/// Reads a `text/event-stream` body chunk by chunk into `ServerSentEvent`s, exactly as the
/// HTML Living Standard's "Parsing an event stream" and "Interpreting an event stream" say.
///
/// The bytes are split into lines (CRLF, lone LF or lone CR ends one, also when a CR ends one
/// chunk and its LF starts the next); a line is decoded as UTF-8 only once it is complete, so a
/// character split between chunks decodes right, and invalid bytes become U+FFFD. One byte
/// order mark at the very start is skipped. A blank line dispatches the block's event.
///
/// It works on bytes: field names are compared as bytes, and the only strings made are the
/// ones an event carries (its data, type and ID). Memory is bounded: an unfinished line may
/// hold at most `maximumLineLength` bytes, an event's data at most `maximumDataLength`.
///
/// After `parse` threw (a limit, or `emit`'s own error) the stream is broken: call `finish()`
/// before feeding the parser a new stream.
struct ServerSentEventParser {
    /// The bytes the line splitting looks for.
    private enum Byte {
        /// U+000A LINE FEED.
        static let lineFeed: UInt8 = 0x0A
        /// U+000D CARRIAGE RETURN.
        static let carriageReturn: UInt8 = 0x0D
    }

    /// The most bytes a line may have (its line end not counted); a longer one fails the stream.
    let maximumLineLength: Int
    /// The most bytes an event's data buffer may hold (its line feeds counted).
    let maximumDataLength: Int

    /// The current line's bytes received so far, when it began in an earlier chunk; reused from
    /// line to line so that a line split between chunks costs no allocation.
    private var partialLine: [UInt8] = []
    /// The previous chunk ended with a CR: a LF opening the next chunk belongs to that line end.
    private var skipsLeadingLineFeed = false
    /// Whether the stream's first bytes were checked for a byte order mark.
    private var checkedForByteOrderMark = false
    /// How many bytes of a byte order mark (EF BB BF) the stream began with so far.
    private var byteOrderMarkBytesSeen = 0
    /// The field buffers, apart so that a line held in `partialLine` can be read while they change.
    private var interpreter: Interpreter

    /// Creates a parser for a new stream.
    ///
    /// - Parameters:
    ///   - lastEventID: the last event ID buffer to start from: the ID the previous connection
    ///     ended with when this one is a reconnection (the standard keeps it across
    ///     reconnections, as it is what `Last-Event-ID` reported).
    ///   - maximumLineLength: the most bytes a line may have, its line end not counted.
    ///   - maximumDataLength: the most bytes of data an event may gather (its `data` values and
    ///     a line feed after each), so that a stream that never sends a blank line cannot grow
    ///     memory without end.
    init(lastEventID: String = "", maximumLineLength: Int = 1 << 20, maximumDataLength: Int = 1 << 24) {
        self.maximumLineLength = maximumLineLength
        self.maximumDataLength = maximumDataLength
        interpreter = Interpreter(lastEventID: lastEventID, maximumDataLength: maximumDataLength)
    }

    /// The last event ID buffer: the value of the last `id` field (without U+0000 NULL).
    var lastEventID: String { interpreter.lastEventID }

    /// The event source's last event ID: the buffer as it was at the last blank line (the
    /// standard's dispatch copies it first, even for a block without data). A reconnection
    /// sends it as `Last-Event-ID` unless it is empty: an `id` of an event cut off before
    /// its blank line is not reported as received.
    var sourceLastEventID: String { interpreter.sourceLastEventID }

    /// The reconnection time in milliseconds the last valid `retry` field set, if any.
    var reconnectionTime: Int? { interpreter.reconnectionTime }

    /// How many bytes of an unfinished line are held (never more than `maximumLineLength`).
    var bufferedByteCount: Int { partialLine.count }

    /// Parses `chunk`, calling `emit` for each event dispatched, in order.
    ///
    /// - Throws: `LeashError.invalidResponse` when a line or an event's data exceeds its limit;
    ///   whatever `emit` throws.
    mutating func parse(_ chunk: Data, emit: (ServerSentEvent) throws -> Void) throws {
        try chunk.withUnsafeBytes { raw in
            try parse(raw.assumingMemoryBound(to: UInt8.self), emit: emit)
        }
    }

    /// The stream ended: pending data is discarded (per the standard, a block that no blank
    /// line ended is not dispatched). The last event ID and the reconnection time are kept,
    /// and the parser is ready for a new stream (a reconnection), which may begin with a BOM.
    mutating func finish() {
        partialLine.removeAll()
        skipsLeadingLineFeed = false
        checkedForByteOrderMark = false
        byteOrderMarkBytesSeen = 0
        interpreter.discardBlock()
    }

    /// Splits `bytes` into lines and interprets each complete one.
    private mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>, emit: (ServerSentEvent) throws -> Void) throws {
        let count = bytes.count
        var start = 0
        if !checkedForByteOrderMark {
            start = try skipByteOrderMark(bytes)
            // The chunk ended inside what may still be a byte order mark.
            guard checkedForByteOrderMark else { return }
        }
        if skipsLeadingLineFeed && start < count {
            skipsLeadingLineFeed = false
            if bytes[start] == Byte.lineFeed { start += 1 }
        }
        while start < count {
            var end = start
            while end < count {
                let byte = bytes[end]
                // One comparison for the usual byte: both line ends are below 0x0E.
                if byte <= Byte.carriageReturn && (byte == Byte.lineFeed || byte == Byte.carriageReturn) { break }
                end += 1
            }
            guard end < count else {
                // No line end in the rest of the chunk: keep it for the next one.
                guard partialLine.count + (count - start) <= maximumLineLength else { throw lineTooLong() }
                partialLine.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<count]))
                return
            }
            let segment = UnsafeBufferPointer(rebasing: bytes[start..<end])
            if partialLine.isEmpty {
                // The usual case: the whole line is in this chunk and is read in place.
                guard segment.count <= maximumLineLength else { throw lineTooLong() }
                try interpreter.process(line: segment, emit: emit)
            } else {
                guard partialLine.count + segment.count <= maximumLineLength else { throw lineTooLong() }
                partialLine.append(contentsOf: segment)
                try partialLine.withUnsafeBufferPointer { try interpreter.process(line: $0, emit: emit) }
                // A rare long line does not keep its memory for the whole stream.
                partialLine.removeAll(keepingCapacity: partialLine.capacity <= 1 << 16)
            }
            if bytes[end] == Byte.carriageReturn {
                if end + 1 < count {
                    start = bytes[end + 1] == Byte.lineFeed ? end + 2 : end + 1
                } else {
                    // A LF may open the next chunk: it would end no second line.
                    skipsLeadingLineFeed = true
                    start = end + 1
                }
            } else {
                start = end + 1
            }
        }
    }

    /// U+FEFF BYTE ORDER MARK in UTF-8.
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Skips the byte order mark the stream begins with, if any, returning where the rest of
    /// `bytes` begins; marks the check done once the stream's first bytes tell.
    private mutating func skipByteOrderMark(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Int {
        var index = 0
        while index < bytes.count {
            guard bytes[index] == Self.byteOrderMark[byteOrderMarkBytesSeen] else {
                // Not a byte order mark: the bytes that began like one are the first line's.
                guard byteOrderMarkBytesSeen <= maximumLineLength else { throw lineTooLong() }
                partialLine.append(contentsOf: Self.byteOrderMark.prefix(byteOrderMarkBytesSeen))
                checkedForByteOrderMark = true
                return index
            }
            byteOrderMarkBytesSeen += 1
            index += 1
            if byteOrderMarkBytesSeen == Self.byteOrderMark.count {
                checkedForByteOrderMark = true
                return index
            }
        }
        return index
    }

    /// The error of a line longer than `maximumLineLength`.
    private func lineTooLong() -> LeashError {
        .invalidResponse(
            reason: "the event stream's line exceeded \(maximumLineLength) bytes without a line end")
    }
}

extension ServerSentEventParser {
    /// The standard's buffers (data, event type, last event ID) and reconnection time, and the
    /// steps that process a line with them.
    private struct Interpreter {
        /// The bytes the field interpretation looks for.
        private enum Byte {
            /// U+000A LINE FEED, which joins data lines.
            static let lineFeed: UInt8 = 0x0A
            /// U+0020 SPACE, one of which may follow a field's colon.
            static let space: UInt8 = 0x20
            /// U+003A COLON, which ends a field's name.
            static let colon: UInt8 = 0x3A
            /// U+0000 NULL, which an ID may not contain.
            static let null: UInt8 = 0x00
            /// "0", the first ASCII digit.
            static let zero: UInt8 = 0x30
            /// "9", the last ASCII digit.
            static let nine: UInt8 = 0x39
        }

        /// The last event ID buffer; it persists from event to event.
        var lastEventID: String
        /// The buffer as the last dispatch copied it (see `sourceLastEventID`).
        var sourceLastEventID: String
        /// The last valid `retry` value, in milliseconds.
        var reconnectionTime: Int?
        /// The most bytes `data` may hold.
        let maximumDataLength: Int
        /// The data buffer, as UTF-8 bytes: decoding it once at dispatch gives what decoding
        /// each line would (a line feed never belongs to a multi-byte sequence, so an invalid
        /// sequence cannot swallow one), with one string per event instead of one per line.
        private var data: [UInt8] = []
        /// The event type buffer.
        private var eventType = ""
        /// The valid `retry` value of the current block, for its event.
        private var blockRetry: Int?

        /// Creates the buffers of a new stream.
        init(lastEventID: String, maximumDataLength: Int) {
            self.lastEventID = lastEventID
            sourceLastEventID = lastEventID
            self.maximumDataLength = maximumDataLength
        }

        /// Processes one line (without its line end), calling `emit` if it dispatches an event.
        mutating func process(line: UnsafeBufferPointer<UInt8>, emit: (ServerSentEvent) throws -> Void) throws {
            guard !line.isEmpty else { return try dispatch(emit: emit) }
            // Comparing bytes is comparing the decoded text here: the colon, the space and the
            // field names are ASCII, which never occurs inside a UTF-8 sequence, valid or not.
            var colon = 0
            while colon < line.count && line[colon] != Byte.colon { colon += 1 }
            // A line that starts with a colon is a comment.
            guard colon > 0 else { return }
            let name = UnsafeBufferPointer(rebasing: line[0..<colon])
            var valueStart = min(colon + 1, line.count)
            if valueStart < line.count && line[valueStart] == Byte.space { valueStart += 1 }
            let value = UnsafeBufferPointer(rebasing: line[valueStart...])
            if Self.name(name, is: "data") {
                guard data.count + value.count + 1 <= maximumDataLength else {
                    throw LeashError.invalidResponse(
                        reason: "the event stream's event data exceeded \(maximumDataLength) bytes without a blank line"
                    )
                }
                data.append(contentsOf: value)
                data.append(Byte.lineFeed)
            } else if Self.name(name, is: "id") {
                if !value.contains(Byte.null) { lastEventID = String(decoding: value, as: UTF8.self) }
            } else if Self.name(name, is: "event") {
                eventType = String(decoding: value, as: UTF8.self)
            } else if Self.name(name, is: "retry") {
                if let milliseconds = Self.digits(value) {
                    reconnectionTime = milliseconds
                    blockRetry = milliseconds
                }
            }
            // Any other field is ignored.
        }

        /// Dispatches the block's event, if it has data, and empties the block's buffers (never
        /// the last event ID buffer).
        private mutating func dispatch(emit: (ServerSentEvent) throws -> Void) throws {
            sourceLastEventID = lastEventID
            let retry = blockRetry
            blockRetry = nil
            guard !data.isEmpty else {
                eventType = ""
                return
            }
            // The buffer ends with the line feed of its last `data` line: the standard removes it.
            let text = data.withUnsafeBufferPointer {
                String(decoding: UnsafeBufferPointer(rebasing: $0.dropLast()), as: UTF8.self)
            }
            let type = eventType.isEmpty ? "message" : eventType
            // Emptied before `emit` runs, so the parser stays consistent if `emit` throws.
            data.removeAll(keepingCapacity: data.capacity <= 1 << 16)
            eventType = ""
            try emit(
                ServerSentEvent(id: lastEventID.isEmpty ? nil : lastEventID, event: type, data: text, retry: retry))
        }

        /// Forgets the block under way (the stream ended before its blank line).
        mutating func discardBlock() {
            data.removeAll()
            eventType = ""
            blockRetry = nil
        }

        /// Whether a field's name is `literal`, compared byte by byte (no case folding, as the
        /// standard says).
        private static func name(_ name: UnsafeBufferPointer<UInt8>, is literal: StaticString) -> Bool {
            name.count == literal.utf8CodeUnitCount && literal.withUTF8Buffer { name.elementsEqual($0) }
        }

        /// The value of a `retry` field: nil unless it is one or more ASCII digits whose number
        /// fits an `Int` (the standard ignores the field otherwise; an empty value has no number).
        private static func digits(_ value: UnsafeBufferPointer<UInt8>) -> Int? {
            guard !value.isEmpty else { return nil }
            var number = 0
            for byte in value {
                guard byte >= Byte.zero && byte <= Byte.nine else { return nil }
                let (shifted, overflowed) = number.multipliedReportingOverflow(by: 10)
                let (sum, overflowedAgain) = shifted.addingReportingOverflow(Int(byte - Byte.zero))
                if overflowed || overflowedAgain { return nil }
                number = sum
            }
            return number
        }
    }
}
