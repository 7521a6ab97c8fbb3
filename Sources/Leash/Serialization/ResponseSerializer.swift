import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Turns a response into a value; Leash's stand-in for Alamofire's
/// `DataResponseSerializerProtocol`, with the same `serialize` signature.
///
/// ```swift
/// struct JSONObjectSerializer: ResponseSerializer {
///     func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: Error?) throws -> Any {
///         if let error { throw error }
///         return try JSONSerialization.jsonObject(with: data ?? Data(), options: [.fragmentsAllowed])
///     }
/// }
/// ```
public protocol ResponseSerializer: Sendable {
    /// The type of value produced.
    associatedtype SerializedObject

    /// Produces the value, or throws why it cannot.
    func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: Swift.Error?) throws
        -> SerializedObject

    /// Produces the value of a response whose body was written to `file` (a download),
    /// or throws why it cannot. By default the file is read and handed to
    /// `serialize(request:response:data:error:)`; a download's own serializer moves the
    /// file into place instead.
    func serialize(request: URLRequest?, response: HTTPURLResponse?, file: URL) throws -> SerializedObject
}

extension ResponseSerializer {
    /// Reads `file` and serializes its bytes.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, file: URL) throws -> SerializedObject {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw LeashError.fileAccess(reason: "the downloaded body cannot be read", url: file, underlying: error)
        }
        return try serialize(request: request, response: response, data: data, error: nil)
    }
}

/// Whether a response legitimately has no body: 204, 205, or the answer to `HEAD`.
func isEmptyResponse(request: URLRequest?, response: HTTPURLResponse?) -> Bool {
    if request?.httpMethod == "HEAD" { return true }
    guard let status = response?.statusCode else { return false }
    return status == 204 || status == 205
}

/// Decodes JSON into `Value` with a `JSONDecoder`. An empty 204/205/HEAD response decodes
/// to `Value` only if it is `EmptyResponse` (or an `Optional`, which becomes `nil`).
public struct DecodableResponseSerializer<Value: Decodable>: ResponseSerializer, @unchecked Sendable {
    // @unchecked: `JSONDecoder` is thread-safe for decoding but not declared Sendable on
    // every platform.

    /// The decoder used.
    public let decoder: JSONDecoder

    /// A serializer decoding with `decoder`.
    public init(decoder: JSONDecoder = JSONDecoder()) {
        self.decoder = decoder
    }

    /// Decodes the body.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: Swift.Error?) throws
        -> Value
    {
        if let error { throw error }
        let body = data ?? Data()
        if body.isEmpty, let empty = Value.self as? EmptyDecodable.Type {
            if let value = empty.emptyValue() as? Value { return value }
        }
        if body.isEmpty && isEmptyResponse(request: request, response: response) {
            throw LeashError.decoding(
                type: "\(Value.self)",
                underlying: DecodingError.dataCorrupted(
                    .init(codingPath: [], debugDescription: "the response has no body; decode EmptyResponse instead")),
                bodyExcerpt: "(empty)")
        }
        do {
            return try decoder.decode(Value.self, from: body)
        } catch {
            throw LeashError.decoding(type: "\(Value.self)", underlying: error, bodyExcerpt: excerpt(of: body))
        }
    }
}

/// A type that stands for "no body": `EmptyResponse`, and `Optional`s (as `nil`).
protocol EmptyDecodable {
    static func emptyValue() -> Any
}

/// The value of a response without a body (204, 205, `HEAD`), or whose body is ignored.
public struct EmptyResponse: Decodable, Equatable, Sendable, EmptyDecodable {
    /// The empty value.
    public init() {}

    /// Ignores any body.
    public init(from decoder: Decoder) throws {}

    static func emptyValue() -> Any { EmptyResponse() }
}

extension Optional: EmptyDecodable where Wrapped: Decodable {
    static func emptyValue() -> Any { Optional<Wrapped>.none as Any }
}

/// Returns the raw body.
public struct DataResponseSerializer: ResponseSerializer {
    /// Creates the serializer.
    public init() {}

    /// The body (empty data for no body).
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: Swift.Error?) throws
        -> Data
    {
        if let error { throw error }
        return data ?? Data()
    }
}

/// Returns the body as text, in the charset the response declares (UTF-8 when it declares
/// none, or one this serializer does not know).
///
/// Known charsets: UTF-8, US-ASCII, ISO-8859-1/-2, windows-1250…1254, UTF-16 and UTF-32
/// (with or without byte order), Shift_JIS, EUC-JP, ISO-2022-JP and macintosh.
public struct StringResponseSerializer: ResponseSerializer {
    /// Creates the serializer.
    public init() {}

    /// The body as a string.
    ///
    /// - Throws: `LeashError.serialization` when the body is not valid text in that charset.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: Swift.Error?) throws
        -> String
    {
        if let error { throw error }
        let body = data ?? Data()
        let charset = response?.textEncodingName
        let encoding = charset.flatMap(Self.encoding(forCharset:)) ?? .utf8
        guard let string = String(data: body, encoding: encoding) else {
            let declared = charset.map { "declared charset \"\($0)\"" } ?? "no declared charset"
            throw LeashError.serialization(
                reason: "the body (\(body.count) bytes) is not valid \(encoding) text (\(declared)); it begins: "
                    + excerpt(of: body, limit: 40),
                underlying: nil)
        }
        return string
    }

    /// The encoding of an IANA charset name, for the charsets listed above.
    static func encoding(forCharset name: String) -> String.Encoding? {
        let key = name.trimmingCharacters(in: CharacterSet(charactersIn: "\"' ")).lowercased()
        switch key {
        case "utf-8", "utf8": return .utf8
        case "us-ascii", "ascii": return .ascii
        case "iso-8859-1", "iso8859-1", "latin1", "iso_8859-1": return .isoLatin1
        case "iso-8859-2", "iso8859-2", "latin2", "iso_8859-2": return .isoLatin2
        case "windows-1250", "cp1250": return .windowsCP1250
        case "windows-1251", "cp1251": return .windowsCP1251
        case "windows-1252", "cp1252": return .windowsCP1252
        case "windows-1253", "cp1253": return .windowsCP1253
        case "windows-1254", "cp1254": return .windowsCP1254
        case "utf-16": return .utf16
        case "utf-16be": return .utf16BigEndian
        case "utf-16le": return .utf16LittleEndian
        case "utf-32": return .utf32
        case "utf-32be": return .utf32BigEndian
        case "utf-32le": return .utf32LittleEndian
        case "shift_jis", "shift-jis", "sjis": return .shiftJIS
        case "euc-jp": return .japaneseEUC
        case "iso-2022-jp": return .iso2022JP
        case "macintosh", "macroman": return .macOSRoman
        default: return nil
        }
    }
}

/// Returns the body parsed by `JSONSerialization` (dictionaries, arrays, fragments);
/// an empty 204/205/HEAD body is `NSNull`.
public struct JSONResponseSerializer: ResponseSerializer {
    /// Creates the serializer.
    public init() {}

    /// The parsed body.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: Swift.Error?) throws
        -> Any
    {
        if let error { throw error }
        let body = data ?? Data()
        if body.isEmpty && isEmptyResponse(request: request, response: response) { return NSNull() }
        do {
            return try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        } catch {
            throw LeashError.decoding(type: "JSON", underlying: error, bodyExcerpt: excerpt(of: body))
        }
    }
}

/// Ignores the body; succeeds with `EmptyResponse` for any acceptable response.
public struct EmptyResponseSerializer: ResponseSerializer {
    /// Creates the serializer.
    public init() {}

    /// `EmptyResponse()`.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: Swift.Error?) throws
        -> EmptyResponse
    {
        if let error { throw error }
        return EmptyResponse()
    }
}
