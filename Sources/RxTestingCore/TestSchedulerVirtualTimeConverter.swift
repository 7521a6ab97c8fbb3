import Foundation
import Rx

/// Virtual time of `TestScheduler`: integer ticks, each `resolution` seconds long.
public struct TestSchedulerVirtualTimeConverter: VirtualTimeConverterType {
    /// Virtual time is a tick count.
    public typealias VirtualTimeUnit = Int
    /// Virtual intervals are tick counts.
    public typealias VirtualTimeIntervalUnit = Int

    private let resolution: Double

    init(resolution: Double) {
        self.resolution = resolution
    }

    /// The date of a tick.
    public func convertFromVirtualTime(_ virtualTime: Int) -> RxTime {
        Date(timeIntervalSince1970: TimeInterval(virtualTime) * resolution)
    }

    /// The tick of a date, rounded to the nearest.
    public func convertToVirtualTime(_ time: RxTime) -> Int {
        Int((time.timeIntervalSince1970 / resolution).rounded())
    }

    /// The seconds of a tick count.
    public func convertFromVirtualTimeInterval(_ virtualTimeInterval: Int) -> TimeInterval {
        TimeInterval(virtualTimeInterval) * resolution
    }

    /// The tick count of an interval, rounded to the nearest.
    public func convertToVirtualTimeInterval(_ timeInterval: TimeInterval) -> Int {
        Int((timeInterval / resolution).rounded())
    }

    /// `time` plus `offset` ticks.
    public func offsetVirtualTime(_ time: Int, offset: Int) -> Int { time + offset }

    /// Compares ticks.
    public func compareVirtualTime(_ lhs: Int, _ rhs: Int) -> VirtualTimeComparison {
        lhs < rhs ? .lessThan : (lhs == rhs ? .equal : .greaterThan)
    }
}
