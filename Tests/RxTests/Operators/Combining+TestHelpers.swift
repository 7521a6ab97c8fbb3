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
        // Stay inside for a moment (a short computation the optimiser cannot drop), so that
        // a second thread delivering concurrently would find this one still inside.
        var spin = 0
        for step in 0..<200 { spin = spin &* 31 &+ step }
        if spin == 42 { print("unreachable") }
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
