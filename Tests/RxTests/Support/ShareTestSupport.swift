import Dispatch
import Foundation
import Rx

// Helpers for the subject, sharing and scheduler tests.

/// Runs `body` on one thread while another keeps sending increasing numbers to `observer`.
func shareRunWhileEmitting<Observer: ObserverType & Sendable>(into observer: Observer, _ body: () -> Void)
where Observer.Element == Int {
    let done = DispatchSemaphore(value: 0)
    let stop = ShareStopFlag()
    DispatchQueue.global().async {
        var value = 1
        while !stop.isSet {
            observer.onNext(value)
            value += 1
        }
        done.signal()
    }
    body()
    stop.set()
    done.wait()
}

/// A flag one thread sets and another polls.
final class ShareStopFlag: @unchecked Sendable {
    // Sendable: every access takes the lock.
    private let lock = NSLock()
    private var value = false

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }
}

/// Records failures from other threads (XCTest assertions want the test's thread).
final class ShareFailureLog: @unchecked Sendable {
    // Sendable: every access takes the lock.
    private let lock = NSLock()
    private var storage: [String] = []

    func record(_ message: String) {
        lock.lock()
        storage.append(message)
        lock.unlock()
    }

    var messages: [String] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}

/// Checks that an observer is never called concurrently and sees strictly increasing values.
final class ShareOrderChecker: @unchecked Sendable {
    // Sendable: `last` is confined by the property under test (serial delivery); `busy`
    // detects a violation of it.
    private let failures: ShareFailureLog
    private let slowFirstDelivery: Bool
    private var last = Int.min
    private let busy = NSLock()

    /// - Parameter slowFirstDelivery: Lingers in the first delivery (the replay), which
    ///   widens the window in which a racing live event could overtake it.
    init(failures: ShareFailureLog, slowFirstDelivery: Bool = false) {
        self.failures = failures
        self.slowFirstDelivery = slowFirstDelivery
    }

    func receive(_ value: Int) {
        guard busy.try() else {
            failures.record("concurrent delivery of \(value)")
            return
        }
        defer { busy.unlock() }
        if slowFirstDelivery && last == Int.min { usleep(50) }
        if value <= last { failures.record("\(value) after \(last)") }
        last = value
    }
}

/// A thread-safe list of strings.
final class ShareEventLog: @unchecked Sendable {
    // Sendable: every access takes the lock.
    private let lock = NSLock()
    private var storage: [String] = []

    func append(_ entry: String) {
        lock.lock()
        storage.append(entry)
        lock.unlock()
    }

    var entries: [String] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}

/// Holds a disposable across threads.
final class ShareDisposableHolder: @unchecked Sendable {
    // Sendable: every access takes the lock.
    private let lock = NSLock()
    private var disposable: Disposable?

    func set(_ newValue: Disposable) {
        lock.lock()
        disposable = newValue
        lock.unlock()
    }

    func take() -> Disposable? {
        lock.lock()
        defer {
            disposable = nil
            lock.unlock()
        }
        return disposable
    }
}
