import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `async` form's sink: keeps the last value, reports transfer progress if asked, and
/// tells the awaiting task's mailbox when the execution is over.
final class AsyncExecution<Value>: ExecutionSink, @unchecked Sendable {
    // @unchecked: all state is behind `state`'s lock (`last` too, though kept outside the
    // struct); the values only pass from the execution's thread to the awaiting task.
    //
    // Generic code from here runs unspecialised (the value type is the app's): every
    // generic type it touches (`Optional<Value>`, a `Result`, a lock over a generic state)
    // is a look-up at run time, so the locked state is not generic (declared outside the
    // class: a type nested in a generic class is generic too) and the value is kept beside
    // it.
    private let state = LockedState(AsyncExecutionState())
    /// The last value so far; once finished without `failure`, the result. Behind `state`'s
    /// lock.
    private var last: Value?
    private let mailbox: TaskMailbox
    /// Which transfer progress goes to `onProgress`, if any.
    private let direction: TransferDirection?
    private let onProgress: (@Sendable (TransferProgress) -> Void)?

    init(
        mailbox: TaskMailbox, direction: TransferDirection? = nil,
        onProgress: (@Sendable (TransferProgress) -> Void)? = nil
    ) {
        self.mailbox = mailbox
        self.direction = direction
        self.onProgress = onProgress
    }

    var reportsProgress: Bool { onProgress != nil }

    /// Starts `recipe` for the awaiting task (unless it was cancelled already).
    func start<Serializer: ResponseSerializer>(_ recipe: ExecutionRecipe, serializer: Serializer)
    where Serializer.SerializedObject == Value {
        if state.withLock({ $0.isCancelled }) { return }
        let execution = recipe.start(self, serializer: serializer)
        let disposeNow = state.withLock { state -> Bool in
            if state.isCancelled { return true }
            // The execution holds this sink: keep it only while it runs, or the two would
            // keep each other alive.
            if !state.isFinished { state.execution = execution }
            return false
        }
        if disposeNow { execution.dispose() }
    }

    /// The last value, or the failure; once the mailbox said the execution is over.
    func result() throws -> Value {
        var value: Value?
        let failure = state.withLock { state -> Swift.Error? in
            swap(&value, &last)
            return state.isFinished ? state.failure : LeashError.cancelled
        }
        if let failure { throw failure }
        guard let value else { throw LeashError.cancelled }
        return value
    }

    func progress(_ progress: ExecutionProgress) {
        if let direction, let step = direction.progress(of: progress) { onProgress?(step) }
    }

    func value(_ value: Value, extra: ResponseExtra) {
        var previous: Value? = value
        state.withLock { state in
            swap(&previous, &last)
            state.hasValue = true
        }
        // Released here, outside the lock: freeing it may run the app's deinits.
        withExtendedLifetime(previous) {}
    }

    func end(_ error: Swift.Error?) {
        if let error { return finish(failing: error) }
        let hasValue = state.withLock { $0.hasValue }
        finish(failing: hasValue ? nil : LeashError.invalidResponse(reason: "the execution completed without a value"))
    }

    func cancel() {
        let execution = state.withLock { state -> Execution? in
            state.isCancelled = true
            defer { state.execution = nil }
            return state.execution
        }
        // The transport issues its task's cancel() asynchronously itself, off the
        // cooperative pool and outside URLSession's callbacks.
        execution?.dispose()
        finish(failing: LeashError.cancelled)
    }

    /// Ends the execution, with the last value or with `failure` (the first end counts),
    /// and ends the task's loop.
    private func finish(failing failure: Swift.Error?) {
        var dropped: Value?
        let released = state.withLock { state -> Execution?? in
            if state.isFinished { return nil }
            state.isFinished = true
            state.failure = failure
            if failure != nil { swap(&dropped, &last) }
            defer { state.execution = nil }
            return .some(state.execution)
        }
        guard let released else { return }
        // Released here, outside the lock: freeing them may run the app's deinits.
        withExtendedLifetime(released) {}
        withExtendedLifetime(dropped) {}
        mailbox.finish()
    }
}

/// The mutable part of an `AsyncExecution`, but for its value, decided under its lock.
private struct AsyncExecutionState {
    var execution: Execution?
    var isCancelled = false
    var isFinished = false
    /// Whether `last` holds a value.
    var hasValue = false
    var failure: Swift.Error?
}

extension AsyncExecution {
    /// Runs `recipe` for the awaiting task: the transport hands its answer to the task's
    /// mailbox, and this task runs the rest of the pipeline (one thread hop per request, as
    /// with `URLSession.data(for:)`); returns the last value. Cancelling the task cancels
    /// it. Transfer progress in `direction` goes to `progress`, if given.
    static func value<Serializer: ResponseSerializer>(
        of recipe: ExecutionRecipe, serializer: Serializer, direction: TransferDirection? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> Value where Serializer.SerializedObject == Value {
        let mailbox = TaskMailbox()
        var recipe = recipe
        // A plain request's answer is handed to this task; a transfer's events keep their
        // own queue (progress comes while the task waits for the end).
        if direction == nil { recipe.handoff = mailbox }
        let execution = AsyncExecution<Value>(mailbox: mailbox, direction: direction, onProgress: progress)
        return try await withTaskCancellationHandler {
            execution.start(recipe, serializer: serializer)
            while case .job(let job) = await mailbox.next() { job() }
            return try execution.result()
        } onCancel: {
            execution.cancel()
        }
    }
}
