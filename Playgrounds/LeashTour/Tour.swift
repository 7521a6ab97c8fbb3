import Dispatch
import Foundation

/// Runs the tour's steps in order: each one narrates what it does and checks that Leash
/// behaved as narrated. The tour fails (exit status 1) if any check fails.
final class Tour: @unchecked Sendable {
    // @unchecked: the tour runs its steps one after another on the main thread; `record`
    // is the only method other threads may reach, and it takes the lock.

    /// Where the read-only steps send their requests, and the local server if there is one.
    let api: TourAPI
    private let lock = NSLock()
    private var passed = 0
    private var failed: [String] = []
    private var stepNumber = 0

    init(api: TourAPI) {
        self.api = api
    }

    /// Runs one step. Steps that need the tour's own server (it counts requests, answers
    /// 401s, hands out tokens) are skipped against a real API.
    func step(_ title: String, needsLocalServer: Bool = false, _ body: () throws -> Void) {
        stepNumber += 1
        print("\n▶ \(stepNumber). \(title)")
        if needsLocalServer && api.server == nil {
            say("(skipped: it needs the tour's own server, and this run uses \(api.baseURL))")
            return
        }
        do {
            try body()
        } catch {
            check(false, "the step ended with an error: \(error)")
        }
    }

    /// Narration: what happens and why.
    func say(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            print("   \(line)")
        }
    }

    /// A claim the narration made, checked.
    func check(_ condition: Bool, _ claim: String) {
        lock.withLock {
            if condition { passed += 1 } else { failed.append("step \(stepNumber): \(claim)") }
        }
        print("   \(condition ? "✓" : "✗") \(claim)")
    }

    /// Prints the summary; true if every check passed.
    func finish() -> Bool {
        lock.withLock {
            print("\n\(passed) checks passed, \(failed.count) failed.")
            for failure in failed { print("   ✗ \(failure)") }
            return failed.isEmpty
        }
    }
}

/// Waits for an async operation from synchronous code (the tour runs its steps in order
/// on the main thread).
func waitFor<Value: Sendable>(timeout: TimeInterval = 10, _ operation: @escaping @Sendable () async throws -> Value)
    throws -> Value
{
    let box = TourBox<Result<Value, Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do {
            box.value = .success(try await operation())
        } catch {
            box.value = .failure(error)
        }
        done.signal()
    }
    guard done.wait(timeout: .now() + timeout) == .success, let result = box.value else {
        throw TourError.timedOut(seconds: timeout)
    }
    return try result.get()
}

/// Waits for a callback: `start` is given the function to call with the result.
func waitForCallback<Value: Sendable>(
    timeout: TimeInterval = 10, _ start: (@escaping @Sendable (Value) -> Void) -> Void
) throws -> Value {
    let box = TourBox<Value?>(nil)
    let done = DispatchSemaphore(value: 0)
    start { value in
        box.value = value
        done.signal()
    }
    guard done.wait(timeout: .now() + timeout) == .success, let value = box.value else {
        throw TourError.timedOut(seconds: timeout)
    }
    return value
}

/// What can go wrong in the tour's own machinery.
enum TourError: Error, CustomStringConvertible {
    case timedOut(seconds: TimeInterval)
    case badArguments(String)

    var description: String {
        switch self {
        case .timedOut(let seconds): return "nothing arrived within \(seconds) s"
        case .badArguments(let message): return message
        }
    }
}

/// A value shared with callbacks on other threads.
final class TourBox<Value>: @unchecked Sendable {
    // @unchecked: every access holds the lock.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    func mutate(_ change: (inout Value) -> Void) {
        lock.withLock { change(&stored) }
    }
}
