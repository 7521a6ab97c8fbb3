/// How a manager writes arrays and booleans in URL queries and `FormURLEncoded` bodies.
///
/// Set per manager with `Manager.Builder.arrayEncoding(_:)` and `boolEncoding(_:)`; the
/// defaults keep Leash's long-standing form (`ids[]=1&ids[]=2`, `flag=true`).
///
/// ```swift
/// let manager = try Manager.Builder()
///     .url("https://api.example.com")
///     .arrayEncoding(.noBrackets)  // ids=1&ids=2
///     .boolEncoding(.numeric)  // flag=1
///     .build()
/// ```
public struct URLEncodingOptions: Hashable, Sendable {
    /// How the elements of an array are named.
    public enum ArrayEncoding: Hashable, Sendable {
        /// `ids[]=1&ids[]=2` (the default; PHP, Rails, Laravel).
        case brackets
        /// `ids=1&ids=2` (Go, Java servlets, Spring, most form parsers).
        case noBrackets
        /// `ids[0]=1&ids[1]=2`, keeping the position of each element.
        case indexInBrackets

        /// The name of the element at `index` of the array named `name`.
        func name(_ name: String, index: Int) -> String {
            switch self {
            case .brackets: return name + "[]"
            case .noBrackets: return name
            case .indexInBrackets: return "\(name)[\(index)]"
            }
        }
    }

    /// How a boolean is written.
    public enum BoolEncoding: Hashable, Sendable {
        /// `true` and `false` (the default).
        case literal
        /// `1` and `0`.
        case numeric

        /// The text of `value`.
        func text(_ value: Bool) -> String {
            switch self {
            case .literal: return value ? "true" : "false"
            case .numeric: return value ? "1" : "0"
            }
        }
    }

    /// How arrays are written (default `.brackets`).
    public var arrays: ArrayEncoding
    /// How booleans are written (default `.literal`).
    public var bools: BoolEncoding

    /// Options with the given strategies; the defaults are Leash's usual form.
    public init(arrays: ArrayEncoding = .brackets, bools: BoolEncoding = .literal) {
        self.arrays = arrays
        self.bools = bools
    }
}
