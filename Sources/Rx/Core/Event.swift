import Foundation

/// A sequence event: an element, or one of the two terminal events.
///
/// Every sequence follows the grammar `next* (error | completed)?`: any number of
/// elements, then at most one terminal event, after which nothing more is delivered.
public enum Event<Element> {
    /// The next element of the sequence.
    case next(Element)
    /// The sequence terminated with an error.
    case error(Swift.Error)
    /// The sequence completed successfully.
    case completed
}

extension Event: Sendable where Element: Sendable {}

extension Event: CustomDebugStringConvertible {
    /// A description of the event, for logs and test failures.
    public var debugDescription: String {
        switch self {
        case .next(let value): return "next(\(value))"
        case .error(let error): return "error(\(error))"
        case .completed: return "completed"
        }
    }
}

extension Event {
    /// Whether this is `error` or `completed`.
    @inlinable public var isStopEvent: Bool {
        switch self {
        case .next: return false
        case .error, .completed: return true
        }
    }

    /// The element of a `next` event, otherwise `nil`.
    @inlinable public var element: Element? {
        if case .next(let value) = self { return value }
        return nil
    }

    /// The error of an `error` event, otherwise `nil`.
    @inlinable public var error: Swift.Error? {
        if case .error(let error) = self { return error }
        return nil
    }

    /// Whether this is `completed`.
    @inlinable public var isCompleted: Bool {
        if case .completed = self { return true }
        return false
    }

    /// Transforms the element of a `next` event; a thrown error becomes an `error` event.
    public func map<Result>(_ transform: (Element) throws -> Result) -> Event<Result> {
        switch self {
        case .next(let element):
            do { return .next(try transform(element)) } catch { return .error(error) }
        case .error(let error): return .error(error)
        case .completed: return .completed
        }
    }
}

extension Event: Equatable where Element: Equatable {
    /// Events are equal when they are the same case with equal elements. Two errors are
    /// equal when their `NSError` forms have the same domain and code and the errors have
    /// the same description, as in RxTest: errors are not `Equatable` in general, and this
    /// is what tests need to compare. A Swift error's domain is its qualified type name, so
    /// errors of different types differ.
    public static func == (lhs: Event<Element>, rhs: Event<Element>) -> Bool {
        switch (lhs, rhs) {
        case (.next(let l), .next(let r)): return l == r
        case (.completed, .completed): return true
        case (.error(let l), .error(let r)): return errorsAreEqual(l, r)
        default: return false
        }
    }
}

/// Whether two errors count as equal in event comparisons: the same `NSError` domain and
/// code, and the same description.
///
/// This is RxTest's rule on Apple platforms. A Swift error's domain is its qualified type
/// name, so errors of different types differ, while a Foundation error compares equal to
/// the `NSError` it bridges to (`URLError(.timedOut)` and the `NSError` a session
/// reports). RxTest on Linux compares descriptions only; one rule everywhere keeps a test
/// from passing on one platform and failing on another.
package func errorsAreEqual(_ lhs: Swift.Error, _ rhs: Swift.Error) -> Bool {
    let left = lhs as NSError
    let right = rhs as NSError
    return left.domain == right.domain && left.code == right.code
        && String(describing: lhs) == String(describing: rhs)
}

/// Something that can be turned into an `Event`, so that operators such as
/// `dematerialize` can be written over sequences of events.
public protocol EventConvertible {
    /// The type of element in the event.
    associatedtype Element
    /// The event.
    var event: Event<Element> { get }
}

extension Event: EventConvertible {
    /// The event itself.
    public var event: Event<Element> { self }
}
