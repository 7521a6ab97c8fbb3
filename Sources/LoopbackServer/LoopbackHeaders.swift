/// An ordered list of HTTP header fields with case-insensitive lookup by name.
///
/// Fields keep the order and spelling they were received or added in; repeated names are
/// kept as separate fields. `headers["content-type"]` finds `Content-Type`.
package struct LoopbackHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field as it appears on the wire.
    package struct Field: Sendable, Equatable {
        /// The field name, spelled as received or added.
        package var name: String
        /// The field value, without surrounding whitespace.
        package var value: String

        /// Creates a field.
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields, in order.
    package private(set) var fields: [Field]

    /// Creates headers from `(name, value)` pairs, kept in order.
    package init(_ pairs: [(String, String)] = []) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// Creates headers from a dictionary literal, kept in the literal's order.
    package init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The number of fields, counting repeated names separately.
    package var count: Int { fields.count }

    /// Whether there are no fields.
    package var isEmpty: Bool { fields.isEmpty }

    /// The value of the first field named `name` (case-insensitive), or nil.
    ///
    /// Setting replaces every field with that name by one field (appended at the end if
    /// there was none); setting nil removes them all.
    package subscript(name: String) -> String? {
        get { fields.first { Self.namesMatch($0.name, name) }?.value }
        set {
            guard let newValue else {
                remove(name)
                return
            }
            if let index = fields.firstIndex(where: { Self.namesMatch($0.name, name) }) {
                fields[index].value = newValue
                var position = fields.index(after: index)
                while position < fields.endIndex {
                    if Self.namesMatch(fields[position].name, name) {
                        fields.remove(at: position)
                    } else {
                        position = fields.index(after: position)
                    }
                }
            } else {
                fields.append(Field(name: name, value: newValue))
            }
        }
    }

    /// The values of every field named `name` (case-insensitive), in order.
    package func values(for name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    /// Whether a field named `name` (case-insensitive) is present.
    package func contains(_ name: String) -> Bool {
        fields.contains { Self.namesMatch($0.name, name) }
    }

    /// Whether the comma-separated values of the fields named `name` include `token`,
    /// compared case-insensitively (for example `Connection: keep-alive, Upgrade`).
    package func containsToken(_ token: String, in name: String) -> Bool {
        values(for: name).contains { value in
            value.split(separator: ",").contains { part in
                Self.namesMatch(part.trimmingSpaces(), token)
            }
        }
    }

    /// Appends a field, keeping any existing field with the same name.
    package mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field named `name` (case-insensitive).
    package mutating func remove(_ name: String) {
        fields.removeAll { Self.namesMatch($0.name, name) }
    }

    /// Iterates the fields in order.
    package func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// ASCII case-insensitive comparison, as HTTP field names and tokens use.
    static func namesMatch<A: StringProtocol, B: StringProtocol>(_ lhs: A, _ rhs: B) -> Bool {
        let left = lhs.utf8
        let right = rhs.utf8
        guard left.count == right.count else { return false }
        return zip(left, right).allSatisfy { asciiLowercased($0) == asciiLowercased($1) }
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and horizontal tabs.
    func trimmingSpaces() -> Substring {
        let text = Substring(self)
        guard let first = text.firstIndex(where: { $0 != " " && $0 != "\t" }),
            let last = text.lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return text[text.endIndex...] }
        return text[first...last]
    }
}
