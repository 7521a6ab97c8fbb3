/// Errors that `Rx` itself produces.
public enum RxError: Swift.Error, CustomDebugStringConvertible {
    /// An unknown error.
    case unknown
    /// An operation was performed on a disposed object.
    case disposed(object: AnyObject & Sendable)
    /// An arithmetic overflow.
    case overflow
    /// An argument was out of range (for example `element(at:)` past the end).
    case argumentOutOfRange
    /// The sequence had no elements where one was required.
    case noElements
    /// The sequence had more than one element where exactly one was required.
    case moreThanOneElement
    /// A timeout elapsed.
    case timeout

    /// A description of the error.
    public var debugDescription: String {
        switch self {
        case .unknown: return "Unknown error occurred."
        case .disposed(let object): return "Object `\(object)` was already disposed."
        case .overflow: return "Arithmetic overflow occurred."
        case .argumentOutOfRange: return "Argument out of range."
        case .noElements: return "Sequence doesn't contain any elements."
        case .moreThanOneElement: return "Sequence contains more than one element."
        case .timeout: return "Sequence timeout."
        }
    }
}

extension RxError: CustomStringConvertible {
    /// Same as `debugDescription`.
    public var description: String { debugDescription }
}
