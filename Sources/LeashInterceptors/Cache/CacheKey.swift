import Foundation
import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a cached body is stored under: the request's method, its URL without the query
/// (scheme, host, port and path), and its query items in a stable order.
///
/// Query items are sorted by name; items with the same name keep their order (for
/// `ids[]=2&ids[]=1` the order may mean something), so `?b=2&a=1` and `?a=1&b=2` share
/// an entry. Headers are not part of the key: a store shared by several users of one app
/// should be emptied (`removeAll()`) when the user changes, or the key extended by
/// overriding `CacheInterceptor.cacheKey(for:)`.
public struct CacheKey: Hashable, Sendable, CustomStringConvertible {
    /// The method, upper-cased (`"GET"`).
    public let method: String
    /// The URL without its query and fragment, as sent (percent-encoded).
    public let location: String
    /// The query, items sorted by name (percent-encoded, as sent); empty for none.
    public let query: String

    /// The key of a request for `url` with `method`.
    public init(method: HTTPMethod, url: URL) {
        self.method = method.rawValue
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            // Not parseable into components: the whole URL is the location, still a
            // stable key for the same request.
            self.location = url.absoluteString
            self.query = ""
            return
        }
        let items = components.percentEncodedQueryItems ?? []
        components.percentEncodedQuery = nil
        components.percentEncodedFragment = nil
        self.location = components.string ?? url.absoluteString
        self.query = Self.stableQuery(items)
    }

    /// The key of `request`; `nil` if it has no URL.
    public init?(request: URLRequest) {
        guard let url = request.url else { return nil }
        self.init(method: HTTPMethod(rawValue: request.httpMethod ?? "GET"), url: url)
    }

    /// A key with these parts, as given (for stores and tests that make keys themselves).
    public init(method: String, location: String, query: String = "") {
        self.method = method
        self.location = location
        self.query = query
    }

    /// `"GET https://api.example.com/users?a=1&b=2"`: one string for the whole key, what
    /// stores use as a dictionary key or hash into a file name.
    public var stringValue: String {
        query.isEmpty ? "\(method) \(location)" : "\(method) \(location)?\(query)"
    }

    /// Same as `stringValue`.
    public var description: String { stringValue }

    private static func stableQuery(_ items: [URLQueryItem]) -> String {
        // Sorted by name with the original position as a tie-break: a stable sort, so
        // repeated names keep their order.
        items.enumerated()
            .sorted { lhs, rhs in
                lhs.element.name == rhs.element.name ? lhs.offset < rhs.offset : lhs.element.name < rhs.element.name
            }
            .map { item in item.element.value.map { "\(item.element.name)=\($0)" } ?? item.element.name }
            .joined(separator: "&")
    }
}
