import Foundation

/// Converts between a virtual time scheduler's own units and real dates and intervals.
public protocol VirtualTimeConverterType: Sendable {
    /// The unit of virtual time (for `TestScheduler`, `Int` ticks).
    associatedtype VirtualTimeUnit: Sendable
    /// The unit of virtual time intervals.
    associatedtype VirtualTimeIntervalUnit: Sendable

    /// The date of `virtualTime`.
    func convertFromVirtualTime(_ virtualTime: VirtualTimeUnit) -> RxTime
    /// The virtual time of `time`.
    func convertToVirtualTime(_ time: RxTime) -> VirtualTimeUnit
    /// The seconds of `virtualTimeInterval`.
    func convertFromVirtualTimeInterval(_ virtualTimeInterval: VirtualTimeIntervalUnit) -> TimeInterval
    /// The virtual interval of `timeInterval` seconds.
    func convertToVirtualTimeInterval(_ timeInterval: TimeInterval) -> VirtualTimeIntervalUnit
    /// `time` moved by `offset`.
    func offsetVirtualTime(_ time: VirtualTimeUnit, offset: VirtualTimeIntervalUnit) -> VirtualTimeUnit
    /// How two virtual times compare.
    func compareVirtualTime(_ lhs: VirtualTimeUnit, _ rhs: VirtualTimeUnit) -> VirtualTimeComparison
}

/// The result of comparing two virtual times.
public enum VirtualTimeComparison: Sendable {
    /// The left time is earlier.
    case lessThan
    /// The times are equal.
    case equal
    /// The left time is later.
    case greaterThan
}
