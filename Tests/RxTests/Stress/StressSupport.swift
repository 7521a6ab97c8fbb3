import Foundation
import Rx
import XCTest

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How long stress tests may run: each loop stops at its iteration count or its time
/// budget, whichever comes first, so that the suite stays fast on a loaded machine and
/// under ThreadSanitizer (which is several times slower).
enum StressBudget {
    /// Whether the process runs under ThreadSanitizer (its runtime is linked in).
    static let isThreadSanitized: Bool = {
        guard let handle = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(handle) }
        return dlsym(handle, "__tsan_init") != nil
    }()

    /// `iterations`, reduced under ThreadSanitizer.
    static func iterations(_ iterations: Int) -> Int {
        isThreadSanitized ? max(1, iterations / 4) : iterations
    }

    /// Seconds a single stress loop may take.
    static let seconds: Double = 1.0
}

/// A deadline shared by the workers of one stress loop.
struct StressDeadline: Sendable {
    private let end: Date

    init(seconds: Double = StressBudget.seconds) {
        end = Date(timeIntervalSinceNow: seconds)
    }

    var hasPassed: Bool { Date() >= end }
}

/// Runs `body(worker, iteration)` on `workers` threads at once, each for up to
/// `iterations` iterations or until the time budget is spent.
func stressConcurrently(
    workers: Int, iterations: Int, _ body: @escaping @Sendable (_ worker: Int, _ iteration: Int) -> Void
) {
    let deadline = StressDeadline()
    let count = StressBudget.iterations(iterations)
    DispatchQueue.concurrentPerform(iterations: workers) { worker in
        for iteration in 0..<count {
            if iteration % 16 == 0 && deadline.hasPassed { return }
            body(worker, iteration)
        }
    }
}

/// A lock-protected integer.
final class StressCounter: @unchecked Sendable {
    // Sendable: the value is behind `lock`.
    private let lock = NSLock()
    private var count = 0

    init(_ initial: Int = 0) {
        count = initial
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    /// Adds one; returns the new value.
    @discardableResult
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count
    }
}

/// Lines threads up so that what follows on each starts at the same moment, which makes
/// narrow races (a terminal event against `dispose()`) likely to be hit. The threads spin
/// briefly (yielding): use it only between threads that are all running, such as those
/// of `stressRace`, never between tasks of a shared pool.
final class StressRendezvous: @unchecked Sendable {
    // Sendable: the count is behind `lock`.
    private let lock = NSLock()
    private var arrived = 0
    private let parties: Int

    init(parties: Int = 2) {
        self.parties = parties
    }

    func arriveAndWait() {
        lock.lock()
        arrived += 1
        lock.unlock()
        while true {
            lock.lock()
            let ready = arrived >= parties
            lock.unlock()
            if ready { return }
            sched_yield()
        }
    }
}

/// Runs each of `bodies` on its own thread (the first on the calling thread), all
/// starting at the same moment, and returns when all have finished.
func stressRace(_ bodies: [@Sendable () -> Void]) {
    guard let first = bodies.first else { return }
    let rendezvous = StressRendezvous(parties: bodies.count)
    let finished = DispatchSemaphore(value: 0)
    for body in bodies.dropFirst() {
        Thread.detachNewThread {
            rendezvous.arriveAndWait()
            body()
            finished.signal()
        }
    }
    rendezvous.arriveAndWait()
    first()
    for _ in bodies.dropFirst() { finished.wait() }
}

/// Burns roughly `iterations` steps of CPU, to shift one side of a race by a varying amount.
func stressSpin(_ iterations: Int) {
    var value = 0
    for step in 0..<iterations { value &+= step }
    withExtendedLifetime(value) {}
}

/// A lock-protected flag.
final class StressFlag: @unchecked Sendable {
    // Sendable: the value is behind `lock`.
    private let lock = NSLock()
    private var flag = false

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return flag
    }

    func set() {
        lock.lock()
        flag = true
        lock.unlock()
    }
}

/// An observer that checks the Rx contract while being hammered:
/// - it is never called by two threads at once (`overlaps`);
/// - once `markDisposed()` was called by a thread (right after its `dispose()`
///   returned), that thread never delivers to it again (`deliveriesAfterDisposeOnDisposingThread`);
/// - nothing follows a terminal event (`eventsAfterTerminal`);
/// - `deliveriesAfterDispose` counts deliveries from any thread after `markDisposed()`
///   (with a single emitting thread, at most the one element already in flight).
final class StressProbe: ObserverType, @unchecked Sendable {
    // Sendable: every field is behind `lock`.
    typealias Element = Int

    private let lock = NSLock()
    private var inside = 0
    private var disposer: pthread_t?
    private var isTerminated = false
    private var storage = Storage()

    private struct Storage {
        var overlaps = 0
        var deliveriesAfterDispose = 0
        var deliveriesAfterDisposeOnDisposingThread = 0
        var eventsAfterTerminal = 0
        var elements: [Int] = []
        var terminalEvents = 0
    }

    /// An optional subscription the probe disposes itself once it sees `disposeOn`.
    let subscription = SingleAssignmentDisposable()
    private let disposeOn: Int?

    init(disposeOn: Int? = nil) {
        self.disposeOn = disposeOn
    }

    func on(_ event: Event<Int>) {
        lock.lock()
        inside += 1
        if inside > 1 { storage.overlaps += 1 }
        if let disposer {
            storage.deliveriesAfterDispose += 1
            if pthread_equal(disposer, pthread_self()) != 0 {
                storage.deliveriesAfterDisposeOnDisposingThread += 1
            }
        }
        if isTerminated { storage.eventsAfterTerminal += 1 }
        switch event {
        case .next(let value): storage.elements.append(value)
        case .error, .completed:
            isTerminated = true
            storage.terminalEvents += 1
        }
        lock.unlock()

        if let disposeOn, event.element == disposeOn {
            subscription.dispose()
            markDisposed()
        }

        lock.lock()
        inside -= 1
        lock.unlock()
    }

    /// Records that the current thread's `dispose()` of this probe's subscription returned.
    func markDisposed() {
        lock.lock()
        disposer = pthread_self()
        lock.unlock()
    }

    var overlaps: Int { read { $0.overlaps } }
    var deliveriesAfterDisposeOnDisposingThread: Int { read { $0.deliveriesAfterDisposeOnDisposingThread } }
    var deliveriesAfterDispose: Int { read { $0.deliveriesAfterDispose } }
    var eventsAfterTerminal: Int { read { $0.eventsAfterTerminal } }
    var elements: [Int] { read { $0.elements } }
    var terminalEvents: Int { read { $0.terminalEvents } }

    private func read<Value>(_ body: (Storage) -> Value) -> Value {
        lock.lock()
        defer { lock.unlock() }
        return body(storage)
    }
}

/// A disposable that counts every `dispose()` call (it does not deduplicate) and can run
/// an action on each.
final class StressCountingDisposable: Disposable, @unchecked Sendable {
    // Sendable: the count is behind `lock`; the action is only called.
    private let lock = NSLock()
    private var calls = 0
    private let action: (@Sendable () -> Void)?

    init(action: (@Sendable () -> Void)? = nil) {
        self.action = action
    }

    var disposeCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return calls
    }

    func dispose() {
        lock.lock()
        calls += 1
        lock.unlock()
        action?()
    }
}

/// Asserts that `Resources.total` comes back to `expected`. Objects that background
/// threads release (a dispatched block and what it captured) may still be on their way
/// out when the test's own work is done, so this waits up to two seconds for the count
/// to settle, as `RxTestCase.tearDown` does.
func assertResourcesSettle(at expected: Int32, file: StaticString = #filePath, line: UInt = #line) {
    let deadline = Date(timeIntervalSinceNow: 2)
    while Resources.total != expected && Date() < deadline {
        RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.005))
    }
    XCTAssertEqual(Resources.total, expected, "Rx resources still alive", file: file, line: line)
}
