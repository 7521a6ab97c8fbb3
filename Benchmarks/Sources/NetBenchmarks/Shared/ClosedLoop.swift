import Dispatch
import Foundation

/// Drives `total` callback-style requests with `inFlight` of them outstanding at any time:
/// each completion starts the next request, as an app chaining calls does, and the calling
/// thread sleeps until the last one completes.
///
/// `issue` starts one request and must call the closure it is given exactly once, with the
/// decoded value or `nil` for a failure, from whatever thread the response arrives on. It
/// must not call it synchronously (that would recurse once per request); every network
/// transport answers asynchronously.
func closedLoop(total: Int, inFlight: Int, issue: @escaping @Sendable (@escaping @Sendable (Sample?) -> Void) -> Void)
    -> Tally
{
    let loop = ClosedLoop(total: total, issue: issue)
    return loop.run(inFlight: inFlight)
}

private final class ClosedLoop: @unchecked Sendable {
    // @unchecked: the counters are only touched under `lock`; the rest is immutable.
    private let lock = NSLock()
    private var issued = 0
    private var finished = 0
    private var tally = Tally()
    private let total: Int
    private let issue: @Sendable (@escaping @Sendable (Sample?) -> Void) -> Void
    private let done = DispatchSemaphore(value: 0)

    init(total: Int, issue: @escaping @Sendable (@escaping @Sendable (Sample?) -> Void) -> Void) {
        self.total = total
        self.issue = issue
    }

    func run(inFlight: Int) -> Tally {
        let first = min(inFlight, total)
        lock.withLock { issued = first }
        for _ in 0..<first { start() }
        if first > 0 { done.wait() }
        return lock.withLock { tally }
    }

    private func start() {
        issue { [self] sample in complete(sample) }
    }

    private func complete(_ sample: Sample?) {
        let (next, last) = lock.withLock { () -> (Bool, Bool) in
            tally.record(sample)
            finished += 1
            guard issued < total else { return (false, finished == total) }
            issued += 1
            return (true, false)
        }
        if next { start() }
        if last { done.signal() }
    }
}
