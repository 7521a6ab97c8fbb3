/// A parameter type whose properties are sent in the URL query.
///
/// ```swift
/// struct SearchQuery: QueryEncodable {
///     let term: String
///     let page: Int
/// }
/// // GET /search?page=2&term=swift%20rx
/// ```
///
/// The value is encoded with the manager's `JSONEncoder` (so its key and date strategies
/// apply) and flattened: keys are sorted, nested objects become `parent[child]`, arrays and
/// booleans are written as the manager's `urlEncoding` says (`key[]` and `true`/`false` by
/// default), and `nil` properties are left out.
public protocol QueryEncodable: Encodable {}
