import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Observes one execution for the `async` form: keeps the last value, and tells the
/// awaiting task's mailbox when the execution is over.
final class AsyncExecution<Value>: ObserverType, @unchecked Sendable {
    // @unchecked: all state is behind `lock`; the values only pass from the execution's
    // thread to the awaiting task.
    //
    // Generic code from here runs unspecialised (the value type is the app's): every
    // generic type it touches (`Optional<Value>`, a `Result`, a tuple) is a look-up at run
    // time, so the state is kept to `last` and an untyped `failure`.
    private let lock = Lock()
    private let mailbox: TaskMailbox
    private var subscription: Disposable?
    private var isCancelled = false
    private var isFinished = false
    /// The last value so far; once finished without `failure`, the result.
    private var last: Value?
    private var failure: Swift.Error?

    init(mailbox: TaskMailbox) {
        self.mailbox = mailbox
    }

    /// Subscribes to `values`, unless the task was cancelled already (then nothing is sent).
    func start<Values: ObservableType>(_ values: Values) where Values.Element == Response<Value> {
        if lock.withLock({ isCancelled }) { return }
        let subscription = values.subscribe(self)
        let disposeNow = lock.withLock { () -> Bool in
            if isCancelled { return true }
            // The subscription's handlers hold this object: keep the subscription only
            // while the execution runs, or the two would keep each other alive.
            if !isFinished { self.subscription = subscription }
            return false
        }
        if disposeNow { subscription.dispose() }
    }

    /// The last value, or the failure; once the mailbox said the execution is over.
    func result() throws -> Value {
        var value: Value?
        let failure = lock.withLock { () -> Swift.Error? in
            swap(&value, &last)
            return isFinished ? self.failure : LeashError.cancelled
        }
        if let failure { throw failure }
        guard let value else { throw LeashError.cancelled }
        return value
    }

    func on(_ event: Event<Response<Value>>) {
        switch event {
        case .next(.success(let value, _)):
            lock.withLock { last = value }
        case .next(.failure(let error)), .error(let error):
            finish(failing: error)
        case .completed:
            let hasValue = lock.withLock { last != nil }
            finish(
                failing: hasValue
                    ? nil : LeashError.invalidResponse(reason: "the execution completed without a value"))
        }
    }

    func cancel() {
        let subscription = lock.withLock { () -> Disposable? in
            isCancelled = true
            defer { self.subscription = nil }
            return self.subscription
        }
        // The transport issues its task's cancel() asynchronously itself, off the
        // cooperative pool and outside URLSession's callbacks.
        subscription?.dispose()
        finish(failing: LeashError.cancelled)
    }

    /// Ends the execution, with the last value or with `failure` (the first end counts),
    /// and ends the task's loop.
    private func finish(failing failure: Swift.Error?) {
        var dropped: Value?
        var subscription: Disposable?
        let isFirst = lock.withLock { () -> Bool in
            if isFinished { return false }
            isFinished = true
            self.failure = failure
            swap(&subscription, &self.subscription)
            if failure != nil { swap(&dropped, &last) }
            return true
        }
        guard isFirst else { return }
        // Released here, outside the lock: freeing them may run the app's deinits.
        withExtendedLifetime(subscription) {}
        withExtendedLifetime(dropped) {}
        mailbox.finish()
    }
}

extension AsyncExecution {
    /// Runs `values` for the awaiting task: the transport hands its answer to `mailbox`,
    /// and this task runs the rest of the pipeline (one thread hop per request, as with
    /// `URLSession.data(for:)`); returns the last value. Cancelling the task cancels it.
    static func value<Values: ObservableType>(of values: Values, mailbox: TaskMailbox) async throws -> Value
    where Values.Element == Response<Value> {
        let execution = AsyncExecution<Value>(mailbox: mailbox)
        return try await withTaskCancellationHandler {
            execution.start(values)
            while case .job(let job) = await mailbox.next() { job() }
            return try execution.result()
        } onCancel: {
            execution.cancel()
        }
    }
}
