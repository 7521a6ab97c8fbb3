import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A parsed response head as Foundation's `HTTPURLResponse`.
enum HTTP1Response {
    /// `head` as the response to a request for `url`. A field sent several times is joined
    /// with ", " under the first spelling of its name, as `HTTPURLResponse` keeps fields.
    static func urlResponse(_ head: HTTP1ResponseHead, url: URL) throws(LeashError) -> HTTPURLResponse {
        var fields: [String: String] = [:]
        fields.reserveCapacity(head.headers.count)
        let headers = head.headers
        for index in headers.indices {
            let (name, value) = headers[index]
            // A name seen before (in any case) is found among the fields before it: heads are
            // short, and comparing bytes costs less than lowercasing every name into a second
            // dictionary.
            if let first = headers[..<index].first(where: { HTTP1ResponseSyntax.namesEqual($0.name, name) }) {
                fields[first.name] = (fields[first.name].map { $0 + ", " } ?? "") + value
            } else {
                fields[name] = value
            }
        }
        let version = "HTTP/1.\(head.minorVersion)"
        guard
            let response = HTTPURLResponse(
                url: url, statusCode: head.statusCode, httpVersion: version, headerFields: fields)
        else { throw .invalidResponse(reason: "Foundation refused the response's head (\(head.statusCode))") }
        return response
    }

    /// Whether a response with `head`, to a `method` request, has no body whatever its
    /// headers say (RFC 9112 §6.3).
    static func hasNoBody(_ head: HTTP1ResponseHead, method: String) -> Bool {
        method == "HEAD" || head.statusCode == 204 || head.statusCode == 304 || head.statusCode < 200
    }
}

/// What Leash reads of an authentication challenge (RFC 9110 §11.6.1).
enum HTTP1Challenge {
    /// The `realm` parameter of a challenge such as `Basic realm="api", charset="UTF-8"`.
    static func realm(of challenge: String) -> String? {
        guard let range = challenge.range(of: "realm=", options: .caseInsensitive) else { return nil }
        let rest = challenge[range.upperBound...]
        if rest.first == "\"" {
            let quoted = rest.dropFirst()
            return String(quoted.prefix { $0 != "\"" })
        }
        return String(rest.prefix { $0 != "," && $0 != " " })
    }
}
