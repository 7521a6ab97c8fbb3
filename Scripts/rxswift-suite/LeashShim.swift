// Leash's own code, not RxSwift's: what RxSwift's test suite takes from RxSwift's internal
// Platform files (compiled into RxSwift's test target), written against Leash's public API.
// Scripts/rxswift-suite.sh copies it into the generated port package.

import Dispatch
import Foundation
import Rx

/// RxSwift's internal recursive lock, as the suite's mocks use it (`lock()`/`unlock()`).
typealias RecursiveLock = NSRecursiveLock

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
