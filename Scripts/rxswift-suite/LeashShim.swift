// Leash's own code, not RxSwift's: what RxSwift's test suite takes from RxSwift's internal
// Platform files (compiled into RxSwift's test target), written against Leash's public API.
// Scripts/rxswift-suite.sh copies it into the generated port package.

import Dispatch
import Foundation
import Rx

#if TRACE_RESOURCES
    /// RxSwift's internal recursive lock, as the suite's mocks use it (`lock()`/`unlock()`).
    /// Under TRACE_RESOURCES RxSwift's counts itself and each held lock in `Resources.total`
    /// (`RecursiveLockTest.testLockUnlockCountsResources` checks it); this one does the same.
    final class RecursiveLock: NSRecursiveLock, @unchecked Sendable {
        override init() {
            Resources.incrementTotal()
            super.init()
        }

        override func lock() {
            super.lock()
            Resources.incrementTotal()
        }

        override func unlock() {
            super.unlock()
            Resources.decrementTotal()
        }

        deinit {
            Resources.decrementTotal()
        }
    }
#else
    /// RxSwift's internal recursive lock, as the suite's mocks use it (`lock()`/`unlock()`).
    typealias RecursiveLock = NSRecursiveLock
#endif

/// RxSwift's `Tests/Resources.swift` (left out: it forwards to `RxSwift.Resources` by module
/// name) makes `Resources` visible in every test file, also those that import no Rx module
/// (`RecursiveLockTest`); Leash's `Rx.Resources` is public, so a type alias does it.
typealias Resources = Rx.Resources

extension DispatchQueue {
    /// Whether the caller runs on the main thread (RxSwift's internal `DispatchQueue.isMain`).
    static var isMain: Bool { Thread.isMainThread }
}

/// A value behind a lock (RxSwift's internal `Synchronized`, used by `PrimitiveMockObserver`).
final class Synchronized<Value>: @unchecked Sendable {
    private let lock = NSRecursiveLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    @discardableResult
    func mutate<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&stored)
    }
}

/// RxSwift's internal atomic integer (its `Platform/AtomicInt.swift`), which `AtomicTests` and
/// `Atomic+Overrides` use through free functions; a lock around an `Int32`.
final class AtomicInt: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int32

    init(_ value: Int32 = 0) { self.value = value }

    /// Applies `body` to the value under the lock and returns the value from before.
    fileprivate func update(_ body: (inout Int32) -> Void) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        let old = value
        body(&value)
        return old
    }
}

/// Adds `value`; returns the value from before.
@discardableResult
func add(_ this: AtomicInt, _ value: Int32) -> Int32 { this.update { $0 += value } }

/// Subtracts `value`; returns the value from before.
@discardableResult
func sub(_ this: AtomicInt, _ value: Int32) -> Int32 { this.update { $0 -= value } }

/// Sets the bits of `mask`; returns the value from before.
@discardableResult
func fetchOr(_ this: AtomicInt, _ mask: Int32) -> Int32 { this.update { $0 |= mask } }

/// The current value.
func load(_ this: AtomicInt) -> Int32 { this.update { _ in } }

/// Adds one; returns the value from before.
@discardableResult
func increment(_ this: AtomicInt) -> Int32 { add(this, 1) }

/// Subtracts one; returns the value from before.
@discardableResult
func decrement(_ this: AtomicInt) -> Int32 { sub(this, 1) }

/// Whether the bits of `mask` are all set.
func isFlagSet(_ this: AtomicInt, _ mask: Int32) -> Bool { (load(this) & mask) != 0 }

/// RxSwift's internal FIFO queue (its `Platform/DataStructures/Queue.swift`), as `QueueTests`
/// uses it: a ring buffer that grows when full; iterates from the oldest element.
struct Queue<T>: Sequence {
    private var storage: [T?]
    private var head = 0
    private(set) var count = 0

    init(capacity: Int) { storage = Array(repeating: nil, count: Swift.max(capacity, 1)) }

    var isEmpty: Bool { count == 0 }

    /// The oldest element (the queue must not be empty, as in RxSwift).
    func peek() -> T {
        precondition(!isEmpty, "peek() on an empty Queue")
        return element(at: 0)
    }

    mutating func enqueue(_ element: T) {
        if count == storage.count {
            let elements = Array(self)
            storage = elements.map { Optional($0) } + Array(repeating: nil, count: storage.count)
            head = 0
        }
        storage[(head + count) % storage.count] = element
        count += 1
    }

    mutating func dequeue() -> T? {
        guard !isEmpty else { return nil }
        let first = storage[head]
        storage[head] = nil
        head = (head + 1) % storage.count
        count -= 1
        return first
    }

    func makeIterator() -> AnyIterator<T> {
        var index = 0
        return AnyIterator {
            guard index < count else { return nil }
            defer { index += 1 }
            return element(at: index)
        }
    }

    private func element(at offset: Int) -> T {
        guard let element = storage[(head + offset) % storage.count] else {
            preconditionFailure("Queue slot \(offset) is empty")
        }
        return element
    }
}

#if TRACE_RESOURCES
    /// RxSwift's internal debug counter of the deepest `concat` trampoline stack, which two
    /// `Observable+ConcatTests` tests read under TRACE_RESOURCES. Leash keeps no such counter,
    /// so it stays 0: those two tests (`testConcat_TailRecursionCollection`/`Sequence`) fail
    /// here by construction; the declaration only lets the rest of the file compile.
    var maxTailRecursiveSinkStackSize = 0
#endif
