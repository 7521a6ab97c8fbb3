import Foundation
import Rx

/// A disposable that counts every `dispose()` call it receives (it does not deduplicate),
/// so tests can check that containers dispose each member exactly once. It can also
/// append its `name` to a shared log, to check disposal order.
final class SpyDisposable: Disposable, @unchecked Sendable {
    // Sendable: the count and the log are behind `lock` / the log's own lock.
    private let lock = NSLock()
    private var calls = 0
    private let name: String
    private let log: SpyDisposalLog?

    init(_ name: String = "", log: SpyDisposalLog? = nil) {
        self.name = name
        self.log = log
    }

    /// How many times `dispose()` was called.
    var disposeCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return calls
    }

    func dispose() {
        lock.lock()
        calls += 1
        lock.unlock()
        log?.append(name)
    }
}

/// The names of disposables in the order they were disposed.
final class SpyDisposalLog: @unchecked Sendable {
    // Sendable: the names are behind `lock`.
    private let lock = NSLock()
    private var names: [String] = []

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return names
    }

    func append(_ name: String) {
        lock.lock()
        names.append(name)
        lock.unlock()
    }
}
