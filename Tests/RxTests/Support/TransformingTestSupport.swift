import Foundation
import Rx

/// Records values from `@Sendable` operator closures (selector calls, their times).
final class TransformingLog<Value>: @unchecked Sendable {
    // Sendable: every access takes the lock.
    private let lock = NSLock()
    private var storage: [Value] = []

    func append(_ value: Value) {
        lock.lock()
        defer { lock.unlock() }
        storage.append(value)
    }

    var values: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}

/// Detects an observer entered from two threads at once: `enter` and `leave` bracket the
/// observer's work, and `maximumInside` is the most threads seen inside together.
final class TransformingConcurrencyProbe: @unchecked Sendable {
    // Sendable: every access takes the lock. The lock is held only to count, never across the
    // observer's work, so it cannot serialise the calls it watches.
    private let lock = NSLock()
    private var inside = 0
    private var maximum = 0

    func enter() {
        lock.lock()
        defer { lock.unlock() }
        inside += 1
        maximum = max(maximum, inside)
    }

    func leave() {
        lock.lock()
        defer { lock.unlock() }
        inside -= 1
    }

    var maximumInside: Int {
        lock.lock()
        defer { lock.unlock() }
        return maximum
    }
}

/// Lets a subscription's own handler dispose it.
final class TransformingDisposableBox {
    var disposable: Disposable?
}
