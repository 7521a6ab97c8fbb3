import Dispatch
import Foundation

/// A time interval for schedulers and time operators, as in RxSwift.
public typealias RxTimeInterval = DispatchTimeInterval

/// An absolute time for schedulers.
public typealias RxTime = Date

extension DispatchTimeInterval {
    /// The interval in seconds (`.never` is infinity).
    @usableFromInline
    package var seconds: Double {
        switch self {
        case .seconds(let value): return Double(value)
        case .milliseconds(let value): return Double(value) / 1_000
        case .microseconds(let value): return Double(value) / 1_000_000
        case .nanoseconds(let value): return Double(value) / 1_000_000_000
        case .never: return .infinity
        @unknown default: return .infinity
        }
    }

    /// The interval in nanoseconds, saturating (`.never` is `Int.max`).
    @usableFromInline
    package var nanoseconds: Int {
        switch self {
        case .seconds(let value):
            return value.multipliedReportingOverflow(by: 1_000_000_000).overflow ? .max : value * 1_000_000_000
        case .milliseconds(let value):
            return value.multipliedReportingOverflow(by: 1_000_000).overflow ? .max : value * 1_000_000
        case .microseconds(let value):
            return value.multipliedReportingOverflow(by: 1_000).overflow ? .max : value * 1_000
        case .nanoseconds(let value): return value
        case .never: return .max
        @unknown default: return .max
        }
    }

    /// Builds an interval from seconds, rounding to nanoseconds (Leash's API measures time
    /// in seconds, as `TimeInterval`; schedulers take this type). Too long or not finite
    /// is `.never`, and less than nothing is nothing.
    package static func fromSeconds(_ seconds: Double) -> DispatchTimeInterval {
        if seconds.isNaN || seconds >= Double(Int.max) / 1_000_000_000 { return .never }
        return .nanoseconds(Int((max(0, seconds) * 1_000_000_000).rounded()))
    }
}

extension Date {
    /// This date moved by `interval`.
    func adding(_ interval: DispatchTimeInterval) -> Date {
        addingTimeInterval(interval.seconds)
    }
}
