import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTP header fields, whose names compare without regard to case, as HTTP says: the
/// headers of a response (`Response.headers`, `StatusCodeFailure.headers`).
///
/// `headers["Content-Type"]` finds `content-type`, which HTTP/2 servers send; setting a
/// name in another case replaces the field rather than adding a second one. The fields
/// keep their names as they were sent and the order they were added in, which iterating
/// shows:
///
/// ```swift
/// var headers: HTTPHeaders = ["content-type": "application/json", "X-Request-ID": "42"]
/// headers["Content-Type"]  // "application/json"
/// headers["x-request-id"] = "43"  // replaces the field, now named `x-request-id`
/// for (name, value) in headers { print(name, value) }
/// ```
///
/// Two header sets are equal when they hold the same names (in any case) with the same
/// values (exactly), in any order. A look-up is a scan comparing ASCII bytes, with no
/// lower-cased copy: faster than hashing for the dozen fields a response has.
public struct HTTPHeaders: Sendable {
    /// One field as it was sent.
    fileprivate struct Field: Sendable {
        var name: String
        var value: String
    }

    /// The fields in the order they were added; no two names equal ignoring case.
    private var fields: [Field]

    /// No fields.
    public init() {
        fields = []
    }

    /// The fields of `dictionary`. Names that differ only in case become one field (which
    /// of their values is kept is unspecified, as a dictionary's order is).
    public init(_ dictionary: [String: String]) {
        fields = []
        fields.reserveCapacity(dictionary.count)
        for (name, value) in dictionary { self[name] = value }
    }

    /// The header fields of `response` (`allHeaderFields`), with their names as the
    /// response gives them.
    public init(_ response: HTTPURLResponse) {
        let all = response.allHeaderFields
        fields = []
        fields.reserveCapacity(all.count)
        for (name, value) in all {
            self[name as? String ?? "\(name)"] = value as? String ?? "\(value)"
        }
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The value of the field named `name` in any case; `nil` if there is none. Setting a
    /// value replaces the field of that name in any case (which takes the new spelling of
    /// the name and keeps its place) or adds one at the end; setting `nil` removes it.
    public subscript(name: String) -> String? {
        get {
            guard let index = index(of: name) else { return nil }
            return fields[index].value
        }
        set {
            guard let index = index(of: name) else {
                if let newValue { fields.append(Field(name: name, value: newValue)) }
                return
            }
            if let newValue {
                fields[index] = Field(name: name, value: newValue)
            } else {
                fields.remove(at: index)
            }
        }
    }

    /// The fields as a dictionary, keyed by the names as sent.
    public var dictionary: [String: String] {
        var dictionary = [String: String](minimumCapacity: fields.count)
        for field in fields { dictionary[field.name] = field.value }
        return dictionary
    }

    /// Where the field named `name` (in any case) is.
    private func index(of name: String) -> Int? {
        fields.firstIndex { Self.sameName($0.name, name) }
    }

    /// Whether two header names are equal ignoring ASCII case. Header names are ASCII
    /// tokens; other bytes compare exactly.
    static func sameName(_ left: String, _ right: String) -> Bool {
        let left = left.utf8
        let right = right.utf8
        guard left.count == right.count else { return false }
        return left.elementsEqual(right) { lowercased($0) == lowercased($1) }
    }

    /// `byte`, lower-cased if it is an ASCII capital.
    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
    }
}

extension HTTPHeaders: Sequence {
    /// Goes through the fields in order, as `(name, value)` with the names as sent.
    public struct Iterator: IteratorProtocol {
        private var base: IndexingIterator<[Field]>

        fileprivate init(_ fields: [Field]) {
            base = fields.makeIterator()
        }

        /// The next field.
        public mutating func next() -> (name: String, value: String)? {
            base.next().map { ($0.name, $0.value) }
        }
    }

    /// The fields in order, as `(name, value)`.
    public func makeIterator() -> Iterator {
        Iterator(fields)
    }

    /// The number of fields.
    public var underestimatedCount: Int { fields.count }
}

extension HTTPHeaders: ExpressibleByDictionaryLiteral {
    /// The fields in the order written; a name repeated in any case keeps its last value.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = []
        fields.reserveCapacity(elements.count)
        for (name, value) in elements { self[name] = value }
    }
}

extension HTTPHeaders: Hashable {
    /// Whether both hold the same names, compared ignoring case, with the same values, in
    /// any order.
    public static func == (left: HTTPHeaders, right: HTTPHeaders) -> Bool {
        guard left.fields.count == right.fields.count else { return false }
        // Names are unique ignoring case on each side, so equal counts and every left
        // field found on the right make the same set.
        return left.fields.allSatisfy { right[$0.name] == $0.value }
    }

    /// Hashes the fields as `==` compares them: names without case, in any order.
    public func hash(into hasher: inout Hasher) {
        // Each field is hashed alone and the results combined with a commutative `^`, so
        // that the order of the fields does not count (as `Set` hashes its elements).
        var combined = 0
        for field in fields {
            var fieldHasher = Hasher()
            for byte in field.name.utf8 { fieldHasher.combine(Self.lowercased(byte)) }
            fieldHasher.combine(0xFF as UInt8)  // no name byte is 0xFF: ends the name
            fieldHasher.combine(field.value)
            combined ^= fieldHasher.finalize()
        }
        hasher.combine(fields.count)
        hasher.combine(combined)
    }
}

extension HTTPHeaders: CustomStringConvertible {
    /// The fields as a dictionary literal, in order: `["Content-Type": "text/plain"]`.
    public var description: String {
        guard !fields.isEmpty else { return "[:]" }
        let pairs = fields.map { "\($0.name.debugDescription): \($0.value.debugDescription)" }
        return "[" + pairs.joined(separator: ", ") + "]"
    }
}

extension HTTPHeaders: Codable {
    /// Decodes a JSON object of names and values (its order is not kept).
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode([String: String].self))
    }

    /// Encodes the fields as a JSON object of names and values.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(dictionary)
    }
}
