import Dispatch
import Foundation
import Leash
import LeashOutbox
import Rx

/// An outbox's events during a delivery run: the ids of the delivered items in the order
/// delivered, and any retry or failure (none is expected from the loopback server). Once
/// `expected` items are delivered it calls `reached` (on the delivering thread) and wakes
/// `wait`. The outbox hands out events after starting its next send, so a `pause()` in
/// `reached` stops the sends after that one.
final class DeliveryRecorder: @unchecked Sendable {
    // @unchecked: the mutable state is only touched under `lock`; `reached` is called once.
    private let lock = NSLock()
    private var delivered: [UUID] = []
    private var retries = 0
    private var failures = 0
    private var reachedAt: Double?
    private let expected: Int
    private let reached: () -> Void
    private let done = DispatchSemaphore(value: 0)

    init(expecting expected: Int, reached: @escaping () -> Void = {}) {
        self.expected = expected
        self.reached = reached
        delivered.reserveCapacity(expected)
    }

    func record(_ event: OutboxEvent) {
        let isLast = lock.withLock { () -> Bool in
            switch event {
            case .delivered(let item, _):
                delivered.append(item.id)
                guard delivered.count == expected else { return false }
                reachedAt = monotonicSeconds()
                return true
            case .retrying: retries += 1
            case .failed: failures += 1
            case .enqueued, .sending: break
            }
            return false
        }
        if isLast {
            reached()
            done.signal()
        }
    }

    /// Waits until `expected` items are delivered; `false` after `timeout` seconds.
    func wait(timeout: Double) -> Bool {
        done.wait(timeout: .now() + .milliseconds(Int(timeout * 1000))) == .success
    }

    /// The delivered ids in order, the retries and failures, and when the last expected
    /// item was delivered (`monotonicSeconds()`).
    var snapshot: (delivered: [UUID], retries: Int, failures: Int, reachedAt: Double?) {
        lock.withLock { (delivered, retries, failures, reachedAt) }
    }
}

/// The sides of the delivery-rate scenario: the outbox delivering `items` notes it holds,
/// and plain loops executing as many, one at a time, with the same client on the same server.
enum DeliveryContenders {
    /// The longest a run may take before it counts as stuck (a retry's backoff, say).
    static func timeout(items: Int) -> Double { max(120, Double(items) * 0.1) }

    /// An outbox opened on a fresh store, paused, with `items` notes enqueued (untimed);
    /// timed from `resume()` to the last `.delivered` event. Checked: every item delivered
    /// in enqueue order without a retry, the store empty, and the server received exactly
    /// `items` notes in order, whose keys are exactly the items' keys.
    static func outbox(client: Client, server: NotesServerProcess, scratch: ScratchFolder, items: Int) -> Contender {
        Contender(name: "outbox, one lane: resume() → last .delivered", operations: items) {
            let folder = scratch.fresh("delivery")
            let outbox = openOutbox(client: client, at: folder)
            outbox.pause()
            var enqueued: [OutboxItem] = []
            enqueued.reserveCapacity(items)
            for seq in 0..<items {
                do {
                    enqueued.append(try outbox.enqueue(CreateNote(note: .numbered(seq))))
                } catch {
                    fail("outbox.enqueue: \(error)")
                }
            }
            let recorder = DeliveryRecorder(expecting: items)
            let subscription = outbox.rx.events.subscribe(onNext: { recorder.record($0) })
            server.reset()
            var finished = false
            return Contender.Prepared(
                run: {
                    outbox.resume()
                    finished = recorder.wait(timeout: timeout(items: items))
                },
                verify: {
                    defer {
                        subscription.dispose()
                        outbox.close()
                        scratch.remove(folder)
                    }
                    let seen = recorder.snapshot
                    let progress =
                        "\(seen.delivered.count) of \(items) delivered, \(seen.retries) retries, \(seen.failures) failures"
                    guard finished else { return "not delivered within \(Int(timeout(items: items))) s: \(progress)" }
                    guard seen.retries == 0, seen.failures == 0 else { return progress }
                    guard seen.delivered == enqueued.map(\.id) else { return "delivered out of enqueue order" }
                    if let problem = server.stats().problem(expecting: items) { return problem }
                    guard server.keys() == Set(enqueued.map(\.idempotencyKey)) else {
                        return "the keys the server received are not the items' keys"
                    }
                    let pending = try? outbox.pendingCount()
                    return pending == 0 ? nil : "\(pending.map(String.init) ?? "unknown") items still pending"
                })
        }
    }

    /// `try await client.execute(_:as: EmptyResponse.self)` of `items` notes in a loop, each
    /// with a fresh key. Checked: no error, and the server received exactly `items` notes in
    /// order, each with a key of its own.
    static func plainAsync(client: Client, server: NotesServerProcess, items: Int) -> Contender {
        Contender(name: "plain loop: try await client.execute", operations: items) {
            server.reset()
            let outcome = LoopOutcome()
            return Contender.Prepared(
                run: {
                    let done = DispatchSemaphore(value: 0)
                    Task.detached {
                        for seq in 0..<items {
                            let endpoint = CreateNote(note: .numbered(seq), key: CreateNote.freshKey())
                            do {
                                _ = try await client.execute(endpoint, as: EmptyResponse.self)
                            } catch {
                                outcome.recordFailure(error)
                            }
                        }
                        done.signal()
                    }
                    done.wait()
                },
                verify: { outcome.problem ?? server.stats().problem(expecting: items) })
        }
    }

    /// `client.execute(_:completion:)` of `items` notes, each started by the previous one's
    /// completion, each with a fresh key. Checked as `plainAsync`.
    static func plainCallback(client: Client, server: NotesServerProcess, items: Int) -> Contender {
        Contender(name: "plain loop: client.execute callback", operations: items) {
            server.reset()
            let chain = CallbackChain(client: client, total: items)
            return Contender.Prepared(
                run: { chain.run() },
                verify: { chain.outcome.problem ?? server.stats().problem(expecting: items) })
        }
    }
}

/// The errors of a plain loop.
final class LoopOutcome: @unchecked Sendable {
    // @unchecked: the state is only touched under `lock`.
    private let lock = NSLock()
    private var failures = 0
    private var firstError: Error?

    func recordFailure(_ error: Error) {
        lock.withLock {
            failures += 1
            if firstError == nil { firstError = error }
        }
    }

    /// What went wrong, if anything.
    var problem: String? {
        lock.withLock {
            failures == 0 ? nil : "\(failures) executions failed, the first with \(firstError.map { "\($0)" } ?? "?")"
        }
    }
}

/// Executes `total` notes one after another through the callback API: each completion
/// starts the next (the transport answers asynchronously, so the stack does not grow).
final class CallbackChain: @unchecked Sendable {
    // @unchecked: immutable, besides `outcome`, which is thread-safe.
    private let client: Client
    private let total: Int
    private let done = DispatchSemaphore(value: 0)
    let outcome = LoopOutcome()

    init(client: Client, total: Int) {
        self.client = client
        self.total = total
    }

    /// Runs the chain and returns once the last note is answered.
    func run() {
        guard total > 0 else { return }
        issue(0)
        done.wait()
    }

    private func issue(_ seq: Int) {
        client.execute(CreateNote(note: .numbered(seq), key: CreateNote.freshKey())) {
            [self] (response: Response<EmptyResponse>) in
            if let error = response.error { outcome.recordFailure(error) }
            if seq + 1 < total {
                issue(seq + 1)
            } else {
                done.signal()
            }
        }
    }
}
