import Foundation

/// A pattern for endpoint paths: a small subset of regular expressions, matched against
/// the whole path, in time proportional to the path's length times the pattern's.
///
/// Grammar:
/// - any character matches itself, except the special ones below;
/// - `.` matches any one character (`/` included);
/// - `[abc]`, `[a-z0-9]` match one character of the set or ranges; `[^/]` one character
///   not in it; inside brackets, `\` escapes `]`, `-`, `^` or `\`;
/// - `*`, `+` and `?` after a character, `.` or a bracket set repeat it zero or more
///   times, one or more times, or make it optional;
/// - `\` makes the next character literal (`\.`, `\*`, `\?`, `\[`);
/// - `^` at the very start and `$` at the very end are accepted and change nothing (a
///   pattern always matches the whole path); elsewhere they are literal.
///
/// Groups, alternation and counted repetition (`(`, `)`, `|`, `{`, `}`) are not
/// supported, and neither are lazy quantifiers (`*?`): such a pattern is malformed, as
/// are an unclosed `[`, an empty `[]`, a reversed range `[9-0]`, a quantifier with
/// nothing before it, and a trailing `\`.
///
/// `"/expenses/[0-9]*/"` (Leash's spelling) matches `/expenses/42/` (and `/expenses//`,
/// as `*` allows no digit: write `[0-9]+` for one or more); `"/users/[0-9]+"`
/// matches `/users/7` but not `/users/` or `/users/7/posts`; `"/files/.*"` matches
/// everything under `/files/`.
///
/// `PathPattern(_:)` throws `PathPattern.SyntaxError` for a malformed pattern; a
/// malformed string literal (which cannot throw) makes a pattern that never matches and
/// keeps the error in `syntaxError`.
public struct PathPattern: Sendable, Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// Why a pattern is malformed, and where.
    public struct SyntaxError: Swift.Error, Equatable, Sendable, CustomStringConvertible {
        /// The pattern.
        public let pattern: String
        /// The offset (in Unicode scalars) of the character at fault.
        public let offset: Int
        /// What is wrong.
        public let reason: String

        /// A sentence naming the pattern, the offset and the reason.
        public var description: String {
            "Malformed path pattern \"\(pattern)\" at offset \(offset): \(reason)."
        }
    }

    /// The pattern as written.
    public let pattern: String
    /// Why the pattern is malformed; `nil` for a valid one. A malformed pattern never
    /// matches.
    public let syntaxError: SyntaxError?
    private let atoms: [PatternAtom]

    /// Parses `pattern`.
    ///
    /// - Throws: `PathPattern.SyntaxError` if it is malformed.
    public init(_ pattern: String) throws(SyntaxError) {
        self.pattern = pattern
        var parser = PatternParser(pattern)
        self.atoms = try parser.parse()
        self.syntaxError = nil
    }

    /// A pattern from a literal; a malformed one never matches (see `syntaxError`).
    public init(stringLiteral pattern: String) {
        self.pattern = pattern
        var parser = PatternParser(pattern)
        do {
            self.atoms = try parser.parse()
            self.syntaxError = nil
        } catch {
            self.atoms = []
            self.syntaxError = error
        }
    }

    /// The pattern as written.
    public var description: String { pattern }

    /// Whether the pattern matches the whole of `path`.
    public func matches(_ path: String) -> Bool {
        guard syntaxError == nil else { return false }
        // Simulates the pattern as a set of positions ("about to match atom i") reached
        // after each character: no backtracking, so no pattern can take exponential time.
        var reached = [Bool](repeating: false, count: atoms.count + 1)
        reached[0] = true
        closeOverOptionalAtoms(&reached)
        for scalar in path.unicodeScalars {
            var next = [Bool](repeating: false, count: atoms.count + 1)
            var any = false
            for index in atoms.indices where reached[index] && atoms[index].test.matches(scalar) {
                let target = atoms[index].repetition == .zeroOrMore ? index : index + 1
                next[target] = true
                any = true
            }
            guard any else { return false }
            closeOverOptionalAtoms(&next)
            reached = next
        }
        return reached[atoms.count]
    }

    /// Positions past atoms that may match nothing are reached too. Edges only go
    /// forward, so one ascending pass is enough.
    private func closeOverOptionalAtoms(_ reached: inout [Bool]) {
        for index in atoms.indices where reached[index] && atoms[index].repetition != .one {
            reached[index + 1] = true
        }
    }

    /// Two patterns are equal when written the same.
    public static func == (lhs: PathPattern, rhs: PathPattern) -> Bool {
        lhs.pattern == rhs.pattern
    }
}

/// One step of a compiled pattern.
private struct PatternAtom: Sendable {
    enum Repetition: Sendable {
        case one
        case optional
        case zeroOrMore
    }

    let test: ScalarTest
    var repetition: Repetition
}

/// Which characters one atom accepts.
private enum ScalarTest: Sendable {
    case literal(Unicode.Scalar)
    case any
    case set(ranges: [ClosedRange<Unicode.Scalar>], negated: Bool)

    func matches(_ scalar: Unicode.Scalar) -> Bool {
        switch self {
        case .literal(let expected): return scalar == expected
        case .any: return true
        case .set(let ranges, let negated): return ranges.contains { $0.contains(scalar) } != negated
        }
    }
}

/// Turns a pattern's text into atoms, or a `SyntaxError`.
private struct PatternParser {
    let pattern: String
    let scalars: [Unicode.Scalar]
    var index = 0

    init(_ pattern: String) {
        self.pattern = pattern
        self.scalars = Array(pattern.unicodeScalars)
    }

    private func error(_ reason: String, at offset: Int? = nil) -> PathPattern.SyntaxError {
        PathPattern.SyntaxError(pattern: pattern, offset: offset ?? index, reason: reason)
    }

    mutating func parse() throws(PathPattern.SyntaxError) -> [PatternAtom] {
        var end = scalars.count
        if end > 0, scalars[0] == "^" { index = 1 }
        if end > index, scalars[end - 1] == "$", !isEscaped(end - 1) { end -= 1 }
        var atoms: [PatternAtom] = []
        while index < end {
            let scalar = scalars[index]
            switch scalar {
            case "*", "+", "?":
                throw error("\"\(scalar)\" has nothing before it to repeat")
            case "(", ")", "|", "{", "}":
                throw error("\"\(scalar)\" is not supported (no groups, alternation or counted repetition)")
            default:
                let test = try parseTest(end: end)
                atoms.append(contentsOf: try parseRepetition(of: test, end: end))
            }
        }
        return atoms
    }

    /// Whether the scalar at `position` is preceded by an odd number of backslashes.
    private func isEscaped(_ position: Int) -> Bool {
        var count = 0
        var cursor = position - 1
        while cursor >= 0, scalars[cursor] == "\\" {
            count += 1
            cursor -= 1
        }
        return count % 2 == 1
    }

    private mutating func parseTest(end: Int) throws(PathPattern.SyntaxError) -> ScalarTest {
        let scalar = scalars[index]
        index += 1
        switch scalar {
        case ".":
            return .any
        case "\\":
            guard index < end else { throw error("\"\\\" at the end escapes nothing", at: index - 1) }
            defer { index += 1 }
            return .literal(scalars[index])
        case "[":
            return try parseSet(openedAt: index - 1, end: end)
        default:
            return .literal(scalar)
        }
    }

    private mutating func parseSet(openedAt start: Int, end: Int) throws(PathPattern.SyntaxError) -> ScalarTest {
        var negated = false
        if index < end, scalars[index] == "^" {
            negated = true
            index += 1
        }
        var ranges: [ClosedRange<Unicode.Scalar>] = []
        while true {
            guard index < end else { throw error("\"[\" is never closed", at: start) }
            if scalars[index] == "]" {
                index += 1
                break
            }
            let lower = try setMember(end: end, openedAt: start)
            if index + 1 < end, scalars[index] == "-", scalars[index + 1] != "]" {
                index += 1
                let upperOffset = index
                let upper = try setMember(end: end, openedAt: start)
                guard lower <= upper else {
                    throw error("the range \(lower)-\(upper) is reversed", at: upperOffset)
                }
                ranges.append(lower...upper)
            } else {
                ranges.append(lower...lower)
            }
        }
        guard !ranges.isEmpty else { throw error("\"[]\" matches nothing", at: start) }
        return .set(ranges: ranges, negated: negated)
    }

    /// One character of a bracket set, unescaping `\`.
    private mutating func setMember(end: Int, openedAt start: Int) throws(PathPattern.SyntaxError) -> Unicode.Scalar {
        var scalar = scalars[index]
        if scalar == "\\" {
            index += 1
            guard index < end else { throw error("\"[\" is never closed", at: start) }
            scalar = scalars[index]
        }
        index += 1
        return scalar
    }

    private mutating func parseRepetition(of test: ScalarTest, end: Int) throws(PathPattern.SyntaxError)
        -> [PatternAtom]
    {
        guard index < end else { return [PatternAtom(test: test, repetition: .one)] }
        let atoms: [PatternAtom]
        switch scalars[index] {
        case "*": atoms = [PatternAtom(test: test, repetition: .zeroOrMore)]
        case "?": atoms = [PatternAtom(test: test, repetition: .optional)]
        // One or more: one, then zero or more.
        case "+": atoms = [PatternAtom(test: test, repetition: .one), PatternAtom(test: test, repetition: .zeroOrMore)]
        default: return [PatternAtom(test: test, repetition: .one)]
        }
        index += 1
        if index < end, ["*", "+", "?"].contains(scalars[index]) {
            throw error(
                "\"\(scalars[index])\" follows another quantifier (lazy or stacked quantifiers are not supported)")
        }
        return atoms
    }
}
