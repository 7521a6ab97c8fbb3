/// Checks that bytes are UTF-8 (RFC 3629) as they arrive, a chunk at a time, so that a text
/// message fails as soon as its first bad byte is in, and a sequence split across chunks
/// (or fragments) is still accepted.
///
/// A small state machine: each state says how many continuation bytes are still due and, right
/// after some lead bytes, the narrower range the next one must fall in. Those ranges are what
/// reject overlong forms (`E0 80`, `F0 80`), surrogates (`ED A0`–`ED BF`) and code points over
/// U+10FFFF (`F4 90`, `F5`–`FF`); `C0`, `C1` can only start overlongs and are rejected as leads.
package struct IncrementalUTF8Validator: Hashable, Sendable {
    /// Where in a sequence the validator is.
    private enum State: Hashable, Sendable {
        /// Between characters.
        case boundary
        /// `count` continuation bytes (`80`–`BF`) still due.
        case continuation(count: UInt8)
        /// After `E0`: the next byte must be `A0`–`BF` (lower ones are overlong).
        case afterE0
        /// After `ED`: the next byte must be `80`–`9F` (higher ones encode surrogates).
        case afterED
        /// After `F0`: the next byte must be `90`–`BF` (lower ones are overlong).
        case afterF0
        /// After `F4`: the next byte must be `80`–`8F` (higher ones pass U+10FFFF).
        case afterF4
        /// A bad byte was seen; every later call fails too.
        case invalid
    }

    /// The current state, carried from one chunk to the next.
    private var state: State = .boundary
    /// How many bytes the validator has accepted, for the offset of a failure.
    private var acceptedCount = 0

    /// A validator at the start of a text.
    package init() {}

    /// Whether the bytes so far end between characters; `false` at the end of a text means its
    /// last sequence was cut short (or a bad byte was seen).
    package var isAtCharacterBoundary: Bool { state == .boundary }

    /// Feeds the next bytes of the text.
    ///
    /// - Returns: `nil` while the text can still be UTF-8; otherwise the offset, counted from the
    ///   start of the whole text, of the first byte that made it invalid.
    package mutating func validate(_ bytes: some Sequence<UInt8>) -> Int? {
        guard state != .invalid else { return acceptedCount }
        for byte in bytes {
            guard let next = Self.transition(from: state, on: byte) else {
                state = .invalid
                return acceptedCount
            }
            state = next
            acceptedCount += 1
        }
        return nil
    }

    /// The state after `byte`, or `nil` when `byte` cannot come next.
    private static func transition(from state: State, on byte: UInt8) -> State? {
        switch state {
        case .boundary:
            switch byte {
            case 0x00...0x7F: return .boundary
            case 0xC2...0xDF: return .continuation(count: 1)
            case 0xE0: return .afterE0
            case 0xE1...0xEC, 0xEE...0xEF: return .continuation(count: 2)
            case 0xED: return .afterED
            case 0xF0: return .afterF0
            case 0xF1...0xF3: return .continuation(count: 3)
            case 0xF4: return .afterF4
            // Stray continuations, the overlong-only leads C0 and C1, and F5 and up.
            default: return nil
            }
        case .continuation(let count):
            guard (0x80...0xBF).contains(byte) else { return nil }
            return count == 1 ? .boundary : .continuation(count: count - 1)
        case .afterE0:
            return (0xA0...0xBF).contains(byte) ? .continuation(count: 1) : nil
        case .afterED:
            return (0x80...0x9F).contains(byte) ? .continuation(count: 1) : nil
        case .afterF0:
            return (0x90...0xBF).contains(byte) ? .continuation(count: 2) : nil
        case .afterF4:
            return (0x80...0x8F).contains(byte) ? .continuation(count: 2) : nil
        case .invalid:
            return nil
        }
    }
}
