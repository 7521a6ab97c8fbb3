import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Builds the `URLRequest` of an endpoint: URL, method, headers, credential, parameters.
enum RequestBuilder {
    /// The `User-Agent` Leash sends unless a header overrides it.
    static let userAgent = "Leash/1.0"

    static func urlRequest(for endpoint: Endpoint, manager: Manager) throws -> URLRequest {
        let path = endpoint.path
        let url = try fastURL(for: path, prefix: manager.baseURLPrefix) ?? self.url(for: path, base: manager.baseURL)
        var request = URLRequest(url: url)
        // GET is the default; setting it anyway costs a string comparison in Foundation.
        if endpoint.method != .get { request.httpMethod = endpoint.method.rawValue }
        // Leash enforces its own timeout exactly; URLSession's (whole seconds, idle-based
        // on Linux) is set out of the way.
        let timeout = (endpoint.timeout ?? manager.timeout).flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        request.timeoutInterval = max(60, min(timeout ?? 0, Manager.Builder.longestTimeout) + 5)
        // Merged here, then set at once: `setValue(_:forHTTPHeaderField:)` canonicalises
        // every name it is given, which costs more on Linux than all the rest of this.
        var headers = HeaderFields()
        headers.set(userAgent, for: "User-Agent")
        for (name, value) in manager.defaultHeaders {
            headers.set(value, for: name)
        }
        if let authenticator = manager.authenticator, let credential = authenticator.authentication {
            headers.set(credential, for: type(of: authenticator).header)
        }
        for (name, value) in endpoint.headers ?? [:] {
            headers.set(value, for: name)
        }
        request.allHTTPHeaderFields = headers.fields
        try encode(
            endpoint.parameters, method: endpoint.method, into: &request,
            encoder: endpoint.jsonEncoder ?? manager.jsonEncoder, options: manager.urlEncoding)
        return request
    }

    /// The common case without parsing the base URL again: a base without query or
    /// fragment (`prefix` is its string without a trailing slash) and a path made only of
    /// characters a path allows as they are. `nil` when the general way is needed.
    static func fastURL(for path: String, prefix: String?) -> URL? {
        guard let prefix, !path.isEmpty else { return nil }
        for byte in path.utf8 where !PercentEncoding.pathAllowed.contains(byte) || byte == UInt8(ascii: "%") {
            return nil
        }
        return URL(string: path.utf8.first == UInt8(ascii: "/") ? prefix + path : prefix + "/" + path)
    }

    /// Joins `path` to `base` with exactly one slash between them; a trailing slash of
    /// `path` is kept, an empty `path` leaves the base path as it is.
    ///
    /// A `?` in `path` starts a query of the endpoint's own, which goes after the base
    /// URL's query (and before encoded parameters). Characters not allowed in a path or
    /// query (spaces, non-ASCII, `#`) are percent-encoded; a `%` followed by two hex digits
    /// is kept as an escape, so pre-encoded segments (`"files/a%2Fb"`) pass through. Write
    /// `%25` for a literal percent sign.
    static func url(for path: String, base: URL) throws -> URL {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            throw LeashError.invalidURL(url: base.absoluteString, reason: "the base URL cannot be extended")
        }
        var endpointPath = path
        var endpointQuery: String?
        if let questionMark = path.firstIndex(of: "?") {
            endpointPath = String(path[..<questionMark])
            endpointQuery = String(path[path.index(after: questionMark)...])
        }
        let basePath = components.percentEncodedPath
        let trimmedBase = basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath
        let encodedPath = PercentEncoding.encode(endpointPath, allowed: PercentEncoding.pathAllowed)
        if !encodedPath.isEmpty {
            components.percentEncodedPath = trimmedBase + (encodedPath.hasPrefix("/") ? encodedPath : "/" + encodedPath)
        }
        if let endpointQuery, !endpointQuery.isEmpty {
            let encodedQuery = PercentEncoding.encode(endpointQuery, allowed: PercentEncoding.queryAllowed)
            if let existing = components.percentEncodedQuery, !existing.isEmpty {
                components.percentEncodedQuery = existing + "&" + encodedQuery
            } else {
                components.percentEncodedQuery = encodedQuery
            }
        }
        guard let url = components.url else {
            throw LeashError.invalidURL(url: base.absoluteString + path, reason: "the path does not form a URL")
        }
        return url
    }

    /// Encodes `parameters` into `request` as Leash documents (see `Endpoint`).
    ///
    /// `Data`, `UploadFile` and `MultipartFormData` are matched before `Encodable` (`Data`
    /// is `Encodable`, and must not become a base64 JSON string). An `UploadFile`, and a
    /// form larger than its `encodingMemoryThreshold`, leave `httpBody` empty and set
    /// `Content-Length`: `streamedBody(of:for:)` tells the pipeline what to send.
    static func encode(
        _ parameters: Any?, method: HTTPMethod, into request: inout URLRequest, encoder: JSONEncoder,
        options: URLEncodingOptions
    ) throws {
        guard let parameters else { return }
        guard let url = request.url else { return }
        switch parameters {
        case let data as Data:
            try requireBody(method: method, type: Data.self, queryAlternative: false)
            request.httpBody = data
            setContentType(MIMEType.octetStream, unlessSetIn: &request)
        case let file as UploadFile:
            try requireBody(method: method, type: UploadFile.self, queryAlternative: false)
            let size = try FileInspection.sizeOfReadableFile(at: file.url)
            setContentType(file.contentType, unlessSetIn: &request)
            request.setValue(String(size), forHTTPHeaderField: "Content-Length")
        case let form as MultipartFormData:
            try requireBody(method: method, type: MultipartFormData.self, queryAlternative: false)
            let length = try form.contentLength()
            if length <= form.encodingMemoryThreshold {
                request.httpBody = try form.encoded(expectedLength: length)
            } else {
                request.setValue(String(length), forHTTPHeaderField: "Content-Length")
            }
            // Always the form's own: a Content-Type header with another boundary would make
            // the body unreadable.
            request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
        case let form as FormURLEncoded:
            try requireBody(method: method, type: FormURLEncoded.self, queryAlternative: false)
            request.httpBody = try form.body(options: options)
            setContentType(FormURLEncoded.contentType, unlessSetIn: &request)
        case let query as QueryEncodable:
            request.url = try QueryEncoding.url(
                url, appending: try QueryEncoding.pairs(of: query, encoder: encoder, options: options))
        case let dictionary as [String: Any] where method.encodesParametersInURL:
            let pairs = try QueryEncoding.pairs(
                of: dictionary, options: options, destination: "\(method) parameters go to the URL query")
            request.url = try QueryEncoding.url(url, appending: pairs)
        case let body as Encodable:
            try requireBody(method: method, type: type(of: body))
            do {
                request.httpBody = try encoder.encode(body)
            } catch {
                throw LeashError.encoding(reason: "\(type(of: body)) could not be encoded to JSON", underlying: error)
            }
            setContentType("application/json", unlessSetIn: &request)
        case let dictionary as [String: Any]:
            try requireBody(method: method, type: type(of: dictionary))
            // JSONSerialization raises an Objective-C exception (a crash) for values it
            // cannot encode, so they are found first and reported with their key path.
            if let invalid = JSONBodyValidation.firstInvalidValue(in: dictionary) {
                throw LeashError.encoding(
                    reason: "the value at \"\(invalid.pathDescription)\" (\(invalid.typeDescription)) cannot be sent "
                        + "as JSON; use strings, numbers (finite), Bool, NSNull, arrays and [String: Any]",
                    underlying: invalid.error)
            }
            do {
                request.httpBody = try JSONSerialization.data(withJSONObject: dictionary, options: [.sortedKeys])
            } catch {
                throw LeashError.encoding(reason: "the dictionary could not be encoded to JSON", underlying: error)
            }
            setContentType("application/json", unlessSetIn: &request)
        default:
            throw LeashError.encoding(
                reason: "parameters of type \(type(of: parameters)) are not supported; use QueryEncodable, "
                    + "[String: CustomStringConvertible], Encodable, [String: Any], Data, UploadFile, "
                    + "MultipartFormData or FormURLEncoded, or override Client.urlRequest(for:)",
                underlying: nil)
        }
    }

    /// A body the pipeline must send from a file, because `request` (built from
    /// `parameters`) has none in memory; `nil` when `request` carries its whole body (or none).
    ///
    /// The request's `Content-Length` already holds the body's exact length.
    static func streamedBody(of parameters: Any?, for request: URLRequest) -> StreamedBody? {
        guard request.httpBody == nil, request.httpBodyStream == nil else { return nil }
        switch parameters {
        case let file as UploadFile: return .file(file.url)
        case let form as MultipartFormData: return .multipart(form)
        default: return nil
        }
    }

    /// Refuses a body on GET and HEAD; the reason suggests the query when `queryAlternative`
    /// (values that could be query parameters), another method otherwise.
    private static func requireBody(method: HTTPMethod, type: Any.Type, queryAlternative: Bool = true) throws {
        guard method.allowsBody else {
            let fix =
                queryAlternative
                ? "make it QueryEncodable (or [String: CustomStringConvertible]) to send it in the query"
                : "send it with POST, PUT or PATCH"
            throw LeashError.encoding(
                reason: "\(method) cannot carry a body, so \(type) cannot be sent; \(fix)", underlying: nil)
        }
    }

    private static func setContentType(_ type: String, unlessSetIn request: inout URLRequest) {
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue(type, forHTTPHeaderField: "Content-Type")
        }
    }
}

/// A request body sent from a file rather than from `httpBody`.
enum StreamedBody: Sendable {
    /// The file of an `UploadFile`, sent as it is.
    case file(URL)
    /// A form too large to encode in memory: stage it in a temporary file with
    /// `write(to:expectedLength:)` (the request's `Content-Length` as the expected length),
    /// send that file, then remove it.
    case multipart(MultipartFormData)
}

/// Finds what `JSONSerialization` would refuse in a `[String: Any]` body.
enum JSONBodyValidation {
    /// A value that cannot be sent, where it is, and an `EncodingError` saying so.
    struct InvalidValue {
        let path: [String]
        let value: Any

        /// `user.tags[1]`; the top level is `(top level)`.
        var pathDescription: String {
            guard let first = path.first else { return "(top level)" }
            return path.dropFirst().reduce(first) { $0 + ($1.hasPrefix("[") ? $1 : "." + $1) }
        }

        var typeDescription: String {
            if let double = value as? Double, !double.isFinite { return "Double \(double)" }
            if let float = value as? Float, !float.isFinite { return "Float \(float)" }
            return "\(type(of: value))"
        }

        var error: EncodingError {
            EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: path.map(JSONPathKey.init(stringValue:)),
                    debugDescription: "JSONSerialization cannot encode a value of type \(typeDescription)"))
        }
    }

    /// The first value (in sorted key order) that JSONSerialization cannot encode.
    static func firstInvalidValue(in dictionary: [String: Any]) -> InvalidValue? {
        guard !JSONSerialization.isValidJSONObject(dictionary) else { return nil }
        return search(dictionary, path: []) ?? InvalidValue(path: [], value: dictionary)
    }

    private static func search(_ value: Any, path: [String]) -> InvalidValue? {
        switch value {
        case let dictionary as [String: Any]:
            for key in dictionary.keys.sorted() {
                if let member = dictionary[key], let invalid = search(member, path: path + [key]) { return invalid }
            }
            return nil
        case let array as [Any]:
            for (index, element) in array.enumerated() {
                if let invalid = search(element, path: path + ["[\(index)]"]) { return invalid }
            }
            return nil
        default:
            // A leaf is valid if JSONSerialization accepts it inside an array.
            return JSONSerialization.isValidJSONObject([value]) ? nil : InvalidValue(path: path, value: value)
        }
    }
}

/// A key of a coding path built from strings, for the errors above.
struct JSONPathKey: CodingKey {
    let stringValue: String
    let intValue: Int? = nil

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        return nil
    }
}
