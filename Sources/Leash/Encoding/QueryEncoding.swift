import Foundation

/// Turns parameters into URL query items (and `FormURLEncoded` bodies): sorted keys,
/// RFC 3986 percent-encoding.
enum QueryEncoding {
    /// The characters left unescaped in a query name or value: RFC 3986's unreserved set
    /// plus `/` and `?`, which may appear in a query. Everything else, including
    /// `&`, `=`, `+`, `;` and brackets, is percent-encoded.
    static let allowedCharacters: CharacterSet = {
        var allowed = CharacterSet()
        allowed.insert(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/?")
        return allowed
    }()

    /// Percent-encodes a query name or value.
    static func escape(_ string: String) -> String {
        string.addingPercentEncoding(withAllowedCharacters: allowedCharacters) ?? string
    }

    /// The pairs of a `[String: CustomStringConvertible]` (given as `[String: Any]`), sorted
    /// by key and flattened as `QueryEncodable` documents: dictionaries become
    /// `key[child]`, arrays and booleans follow `options`, `nil` and `NSNull` values are left
    /// out.
    ///
    /// - Parameter destination: where the pairs go, for the error (`"GET parameters go to
    ///   the URL query"`).
    /// - Throws: `LeashError.encoding` naming the first key path whose value is not
    ///   `CustomStringConvertible`.
    static func pairs(of dictionary: [String: Any], options: URLEncodingOptions, destination: String) throws
        -> [(String, String)]
    {
        var flattener = DictionaryFlattener(options: options, destination: destination)
        for key in dictionary.keys.sorted() {
            if let value = dictionary[key] { try flattener.flatten(value, name: key) }
        }
        return flattener.pairs
    }

    /// Flattens the values of a `[String: Any]` into pairs.
    private struct DictionaryFlattener {
        let options: URLEncodingOptions
        let destination: String
        var pairs: [(String, String)] = []

        init(options: URLEncodingOptions, destination: String) {
            self.options = options
            self.destination = destination
        }

        mutating func flatten(_ value: Any, name: String) throws {
            guard let value = QueryEncoding.unwrapped(value), !(value is NSNull) else { return }
            if let bool = QueryEncoding.bool(value) {
                pairs.append((name, options.bools.text(bool)))
                return
            }
            switch value {
            case let array as [Any]:
                for (index, element) in array.enumerated() {
                    try flatten(element, name: options.arrays.name(name, index: index))
                }
            case let dictionary as [String: Any]:
                for key in dictionary.keys.sorted() {
                    if let member = dictionary[key] { try flatten(member, name: "\(name)[\(key)]") }
                }
            case let convertible as CustomStringConvertible:
                pairs.append((name, convertible.description))
            default:
                throw LeashError.encoding(
                    reason: "\(destination), but the value of \"\(name)\" (\(type(of: value))) is not "
                        + "CustomStringConvertible",
                    underlying: nil)
            }
        }
    }

    /// The Boolean `value` is: a Swift `Bool`, or an `NSNumber` made from one (what
    /// `JSONSerialization` returns for `true` and `false`). Other numbers are not Booleans,
    /// although Foundation casts `NSNumber(1)` to `true`: the class of the number tells.
    static func bool(_ value: Any) -> Bool? {
        if type(of: value) == Bool.self { return value as? Bool }
        guard let number = value as? NSNumber, ObjectIdentifier(type(of: number)) == booleanNumberClass else {
            return nil
        }
        return number.boolValue
    }

    /// The class of the `NSNumber`s that hold Booleans (`__NSCFBoolean` on Darwin and Linux).
    private static let booleanNumberClass = ObjectIdentifier(type(of: NSNumber(value: true)))

    /// The value inside an `Optional` held as `Any`; `nil` for `.none`.
    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        guard let wrapped = mirror.children.first?.value else { return nil }
        return unwrapped(wrapped)
    }

    /// The query pairs of an `Encodable` value, flattened as `QueryEncodable` documents, with
    /// arrays and booleans as `options` say.
    static func pairs(of value: Encodable, encoder: JSONEncoder, options: URLEncodingOptions) throws
        -> [(String, String)]
    {
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw LeashError.encoding(reason: "\(type(of: value)) could not be encoded", underlying: error)
        }
        let json: JSONValue
        do {
            json = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw LeashError.encoding(reason: "\(type(of: value)) did not encode to JSON", underlying: error)
        }
        guard case .object(let object) = json else {
            throw LeashError.encoding(
                reason: "\(type(of: value)) must encode to a keyed container to become query parameters",
                underlying: nil)
        }
        var pairs: [(String, String)] = []
        for key in object.keys.sorted() {
            if let member = object[key] { flatten(member, name: key, options: options, into: &pairs) }
        }
        return pairs
    }

    private static func flatten(
        _ value: JSONValue, name: String, options: URLEncodingOptions, into pairs: inout [(String, String)]
    ) {
        switch value {
        case .null: return
        case .bool(let bool): pairs.append((name, options.bools.text(bool)))
        case .number(let number): pairs.append((name, number))
        case .string(let string): pairs.append((name, string))
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                flatten(element, name: options.arrays.name(name, index: index), options: options, into: &pairs)
            }
        case .object(let object):
            for key in object.keys.sorted() {
                if let member = object[key] {
                    flatten(member, name: "\(name)[\(key)]", options: options, into: &pairs)
                }
            }
        }
    }

    /// `name=value&…`, every name and value percent-encoded: a query, or the body of an
    /// `application/x-www-form-urlencoded` form.
    static func encoded(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// `url` with `pairs` appended to its query.
    static func url(_ url: URL, appending pairs: [(String, String)]) throws -> URL {
        guard !pairs.isEmpty else { return url }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw LeashError.invalidURL(url: url.absoluteString, reason: "its query cannot be extended")
        }
        let encoded = encoded(pairs)
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + encoded
        } else {
            components.percentEncodedQuery = encoded
        }
        guard let result = components.url else {
            throw LeashError.invalidURL(url: url.absoluteString, reason: "the query parameters do not form a URL")
        }
        return result
    }
}

/// Any JSON value; decoding it keeps booleans and numbers apart exactly.
enum JSONValue: Decodable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let int = try? container.decode(Int.self) {
            self = .number(String(int))
        } else if let double = try? container.decode(Double.self) {
            self = .number(String(double))
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}
