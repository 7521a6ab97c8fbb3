import Foundation
import Rx

/// Collects the events of one blocking read and wakes the blocked thread when it ends.
///
/// `@unchecked Sendable`: every mutable field is guarded by `condition`, except
/// `subscription`, which is set before subscribing and only read afterwards. The
/// predicate runs outside the lock, flagged by `isInPredicate`, so that a timed-out
/// reader can wait for it to return before it hands back the elements.
final class BlockingCollector<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private let max: Int?
    private let predicate: ((Element) throws -> Bool)?
    private var elements: [Element] = []
    private var error: Swift.Error?
    private var isStopped = false
    private var isInPredicate = false
    /// Whether the reader waits in the main run loop, which a stop must then wake.
    private var isWaitingOnMainRunLoop = false
    var subscription: SingleAssignmentDisposable?

    init(max: Int?, predicate: ((Element) throws -> Bool)?) {
        self.max = max
        self.predicate = predicate
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            if let predicate {
                let isRunning = withCondition { () -> Bool in
                    if isStopped { return false }
                    isInPredicate = true
                    return true
                }
                guard isRunning else { return }
                let outcome = Result { try predicate(element) }
                finish { collector in
                    collector.isInPredicate = false
                    if collector.isStopped { return false }
                    switch outcome {
                    case .success(let matches):
                        if matches { collector.elements.append(element) }
                        return collector.hasReachedMax
                    case .failure(let error):
                        collector.error = error
                        return true
                    }
                }
            } else {
                finish { collector in
                    if collector.isStopped { return false }
                    collector.elements.append(element)
                    return collector.hasReachedMax
                }
            }
        case .error(let error):
            finish { collector in
                if collector.isStopped { return false }
                collector.error = error
                return true
            }
        case .completed:
            finish { collector in !collector.isStopped }
        }
    }

    private var hasReachedMax: Bool {
        if let max { return elements.count >= max }
        return false
    }

    /// Applies `update` under the lock; if it returns true, the read stops: the reader is
    /// woken and the subscription disposed (outside the lock).
    private func finish(_ update: (BlockingCollector) -> Bool) {
        let (stops, wakeMain) = withCondition { () -> (Bool, Bool) in
            let stops = update(self)
            if stops { isStopped = true }
            condition.broadcast()
            return (stops, stops && isWaitingOnMainRunLoop)
        }
        guard stops else { return }
        // The main run loop sleeps until it has work: hand it an empty block to wake it.
        if wakeMain { DispatchQueue.main.async {} }
        subscription?.dispose()
    }

    /// Blocks until the read stops or `timeout` seconds pass; on timeout, records
    /// `RxError.timeout`.
    func wait(timeout: TimeInterval?) {
        let deadline = timeout.map { Date(timeIntervalSinceNow: $0) } ?? Date.distantFuture
        if Thread.isMainThread {
            waitRunningMainRunLoop(until: deadline)
        } else {
            withCondition {
                while !isStopped {
                    if !condition.wait(until: deadline) { break }
                }
            }
        }
        withCondition {
            if !isStopped {
                isStopped = true
                error = RxError.timeout
            }
            // A predicate still running on another thread must not outlive this call.
            while isInPredicate { condition.wait() }
        }
    }

    /// Waits on the main thread by running its run loop, so that work the sequence
    /// scheduled on the main queue runs. The run loop sleeps between events: no spinning.
    private func waitRunningMainRunLoop(until deadline: Date) {
        withCondition { isWaitingOnMainRunLoop = true }
        defer { withCondition { isWaitingOnMainRunLoop = false } }
        while !withCondition({ isStopped }) && Date() < deadline {
            if !RunLoop.current.run(mode: .default, before: deadline) {
                // No input source to wait on (the run loop returned at once): fall back to
                // the condition, which a stop also signals.
                withCondition {
                    while !isStopped {
                        if !condition.wait(until: deadline) { break }
                    }
                }
            }
        }
    }

    /// The elements and how the read ended.
    func result() -> MaterializedSequenceResult<Element> {
        withCondition {
            if let error { return .failed(elements: elements, error: error) }
            return .completed(elements: elements)
        }
    }

    private func withCondition<Result>(_ body: () throws -> Result) rethrows -> Result {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }
}
