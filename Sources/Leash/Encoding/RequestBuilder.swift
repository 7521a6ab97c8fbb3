import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Builds the `URLRequest` of an endpoint: URL, method, headers, credential, parameters.
enum RequestBuilder {
    /// The `User-Agent` Leash sends unless a header overrides it.
    static let userAgent = "Leash/1.0"

    static func urlRequest(for endpoint: Endpoint, manager: Manager) throws -> URLRequest {
        let url = try self.url(for: endpoint.path, base: manager.baseURL)
        var request = URLRequest(url: url)
        request.httpMethod = endpoint.method.rawValue
        // Leash enforces its own timeout exactly; URLSession's (whole seconds, idle-based
        // on Linux) is set out of the way.
        let timeout = endpoint.timeout ?? manager.timeout
        request.timeoutInterval = max(60, (timeout ?? 0) + 5)
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        for (name, value) in manager.defaultHeaders {
            request.setValue(value, forHTTPHeaderField: name)
        }
        if let authenticator = manager.authenticator, let credential = authenticator.authentication {
            request.setValue(credential, forHTTPHeaderField: type(of: authenticator).header)
        }
        for (name, value) in endpoint.headers ?? [:] {
            request.setValue(value, forHTTPHeaderField: name)
        }
        try encode(
            endpoint.parameters, method: endpoint.method, into: &request,
            encoder: endpoint.jsonEncoder ?? manager.jsonEncoder)
        return request
    }

    /// Joins `path` to `base` with exactly one slash between them; a trailing slash of
    /// `path` is kept. Characters not allowed in a path are percent-encoded.
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
        let encodedPath =
            endpointPath.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? endpointPath
        let joinedPath: String
        if encodedPath.isEmpty {
            joinedPath = basePath
        } else {
            joinedPath = trimmedBase + (encodedPath.hasPrefix("/") ? encodedPath : "/" + encodedPath)
        }
        components.percentEncodedPath = joinedPath
        if let endpointQuery, !endpointQuery.isEmpty {
            let existing = components.percentEncodedQuery.map { $0 + "&" } ?? ""
            components.percentEncodedQuery = existing + endpointQuery
        }
        guard let url = components.url else {
            throw LeashError.invalidURL(url: base.absoluteString + path, reason: "the path does not form a URL")
        }
        return url
    }

    /// Encodes `parameters` into `request` as Leash documents (see `Endpoint`).
    static func encode(_ parameters: Any?, method: HTTPMethod, into request: inout URLRequest, encoder: JSONEncoder)
        throws
    {
        guard let parameters else { return }
        guard let url = request.url else { return }
        switch parameters {
        case let query as QueryEncodable:
            request.url = try QueryEncoding.url(url, appending: try QueryEncoding.pairs(of: query, encoder: encoder))
        case let dictionary as [String: Any] where method.encodesParametersInURL:
            guard let values = dictionary as? [String: CustomStringConvertible] else {
                throw LeashError.encoding(
                    reason: "\(method) parameters go to the URL query, so every value must be CustomStringConvertible",
                    underlying: nil)
            }
            request.url = try QueryEncoding.url(url, appending: QueryEncoding.pairs(of: values))
        case let body as Encodable:
            try requireBody(method: method, type: type(of: body))
            do {
                request.httpBody = try encoder.encode(body)
            } catch {
                throw LeashError.encoding(reason: "\(type(of: body)) could not be encoded to JSON", underlying: error)
            }
            setJSONContentType(&request)
        case let dictionary as [String: Any]:
            try requireBody(method: method, type: type(of: dictionary))
            guard JSONSerialization.isValidJSONObject(dictionary) else {
                throw LeashError.encoding(
                    reason: "the dictionary holds values JSONSerialization cannot encode", underlying: nil)
            }
            do {
                request.httpBody = try JSONSerialization.data(withJSONObject: dictionary, options: [.sortedKeys])
            } catch {
                throw LeashError.encoding(reason: "the dictionary could not be encoded to JSON", underlying: error)
            }
            setJSONContentType(&request)
        default:
            throw LeashError.encoding(
                reason: "parameters of type \(type(of: parameters)) are not supported; use QueryEncodable, "
                    + "[String: CustomStringConvertible], Encodable or [String: Any], or override "
                    + "Client.urlRequest(for:)",
                underlying: nil)
        }
    }

    private static func requireBody(method: HTTPMethod, type: Any.Type) throws {
        guard method.allowsBody else {
            throw LeashError.encoding(
                reason: "\(method) cannot carry a body, so \(type) cannot be sent; make it QueryEncodable to "
                    + "send it in the query",
                underlying: nil)
        }
    }

    private static func setJSONContentType(_ request: inout URLRequest) {
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
    }
}
