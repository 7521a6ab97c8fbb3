/// Header fields merged as `URLRequest.setValue(_:forHTTPHeaderField:)` merges them: a
/// later value replaces an earlier one whose name differs only in case (HTTP header names
/// are case-insensitive), and the later spelling of the name is kept.
struct HeaderFields {
    /// The merged fields (room for the usual few, so that building them allocates once).
    private(set) var fields = [String: String](minimumCapacity: 6)

    /// Sets `value` for `name`, replacing any field of the same name in another case.
    mutating func set(_ value: String, for name: String) {
        if fields[name] == nil, let existing = fields.keys.first(where: { HTTPHeaders.sameName($0, name) }) {
            fields[existing] = nil
        }
        fields[name] = value
    }
}
