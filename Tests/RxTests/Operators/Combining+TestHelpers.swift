import Foundation
import Rx

/// Holds a subscription so that a handler can dispose the subscription it belongs to.
final class CombiningDisposableBox {
    var disposable: Disposable?
}

/// Records the elements a subscriber receives from several threads, and whether the
/// subscriber was ever entered while another thread was still inside it.
final class CombiningConcurrencyProbe<Element>: @unchecked Sendable {
    // Sendable: every access goes through `lock`.
    private let lock = NSLock()
    private var isInside = false
    private var overlapCount = 0
    private var received: [Element] = []

    /// Call at the start of the handler.
    func enter(_ element: Element) {
        lock.lock()
        if isInside { overlapCount += 1 }
        isInside = true
        received.append(element)
        lock.unlock()
    }

    /// Call at the end of the handler.
    func exit() {
        lock.lock()
        isInside = false
        lock.unlock()
    }

    /// How many times the handler was entered while already inside.
    var overlaps: Int {
        lock.lock()
        defer { lock.unlock() }
        return overlapCount
    }

    /// The elements received, in order.
    var elements: [Element] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }
}
