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

/// Returns the body as text, in the response's declared encoding (UTF-8 by default).
public struct StringResponseSerializer: ResponseSerializer {
    /// Creates the serializer.
    public init() {}

    /// The body as a string.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: Swift.Error?) throws
        -> String
    {
        if let error { throw error }
        let body = data ?? Data()
        var encoding = String.Encoding.utf8
        if let name = response?.textEncodingName?.lowercased(), name == "iso-8859-1" || name == "latin1" {
            encoding = .isoLatin1
        }
        guard let string = String(data: body, encoding: encoding) else {
            throw LeashError.serialization(reason: "the body is not valid \(encoding) text", underlying: nil)
        }
        return string
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
