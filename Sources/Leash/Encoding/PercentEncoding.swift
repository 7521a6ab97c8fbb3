/// Percent-encoding of the parts of an endpoint's path that Leash joins to the base URL.
///
/// URLComponents' `percentEncodedPath` and `percentEncodedQuery` setters trap on a string
/// that is not validly encoded (a space, a `%` not followed by two hex digits), so
/// everything given to them is made valid here first.
enum PercentEncoding {
    /// RFC 3986 `unreserved`.
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    /// RFC 3986 `sub-delims`.
    private static let subDelimiters = Set("!$&'()*+,;=".utf8)

    /// Bytes left as they are in a path: `pchar` and `/`.
    static let pathAllowed = unreserved.union(subDelimiters).union(":@/".utf8)
    /// Bytes left as they are in a query written by hand (`"q=1&sort=name"`): `pchar`, `/`
    /// and `?`. `#`, spaces, brackets and non-ASCII are encoded.
    static let queryAllowed = unreserved.union(subDelimiters).union(":@/?".utf8)

    /// `string` with every byte outside `allowed` percent-encoded. A `%` followed by two
    /// hex digits is kept as the escape it already is; any other `%` becomes `%25`.
    static func encode(_ string: String, allowed: Set<UInt8>) -> String {
        let bytes = Array(string.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, isHexDigit(bytes[index + 1]),
                isHexDigit(bytes[index + 2])
            {
                result.append(contentsOf: bytes[index...(index + 2)])
                index += 3
                continue
            }
            if allowed.contains(byte) {
                result.append(byte)
            } else {
                result.append(UInt8(ascii: "%"))
                result.append(hexDigits[Int(byte >> 4)])
                result.append(hexDigits[Int(byte & 0x0F)])
            }
            index += 1
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            return true
        default:
            return false
        }
    }
}
