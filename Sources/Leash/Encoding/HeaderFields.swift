/// Header fields merged as `URLRequest.setValue(_:forHTTPHeaderField:)` merges them: a
/// later value replaces an earlier one whose name differs only in case (HTTP header names
/// are case-insensitive), and the later spelling of the name is kept.
struct HeaderFields {
    /// The merged fields (room for the usual few, so that building them allocates once).
    private(set) var fields = [String: String](minimumCapacity: 6)

    /// Sets `value` for `name`, replacing any field of the same name in another case.
    mutating func set(_ value: String, for name: String) {
        if fields[name] == nil, let existing = fields.keys.first(where: { Self.sameName($0, name) }) {
            fields[existing] = nil
        }
        fields[name] = value
    }

    /// Whether two header names are equal ignoring ASCII case (header names are ASCII
    /// tokens; anything else compares exactly).
    static func sameName(_ left: String, _ right: String) -> Bool {
        guard left.utf8.count == right.utf8.count else { return false }
        return zip(left.utf8, right.utf8).allSatisfy { lowercased($0) == lowercased($1) }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
