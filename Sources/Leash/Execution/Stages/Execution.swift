import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One execution, from subscription to its end: the one object that owns it.
///
/// It holds what lasts as long as the execution does: its place in the manager's registry
/// (`cancelAll()`), its deadline, its transfer's files, its marks and end report, the
/// attempt running now, and the outcomes waiting to be serialized. It runs the attempts
/// one after another (the one retry loop: `retry(_:from:)`), and ends exactly once
/// (`finish(_:)`), whatever ends it first: the last outcome, a failure, the deadline,
/// `cancelAll()`, or a dispose.
///
/// The stages, in order, and the file each lives in:
/// 1. the manager's request gates (`RequestGate`), then the request is built: here;
/// 2. execution interceptors → the manager's dispatcher → the transport → redirects →
///    success or failure interceptors and validation → completion interceptors: `Attempt`;
/// 3. operator interceptors, composed on the attempt's outcomes: `OperatorStage`;
/// 4. serialization and the serialization interceptors: `ExecutionOutlet` (the
///    interceptors through a `SerializationRun`);
/// 5. the form: the outlet hands values, progress and the end to the form's sink
///    (`ExecutionSink`), one at a time, through a `DeliveryLine`.
///
/// Not generic: the value type is the outlet's business, so nothing here pays for
/// generic metadata at run time.
final class Execution: Disposable, ManagedExecution, DeadlineTarget, AttemptOutput, @unchecked Sendable {
    // @unchecked: the mutable state is behind `state`; the rest is immutable.

    /// The mutable part of an execution, decided under its lock and acted on after.
    private struct State {
        /// Set once, by whatever ends the execution first.
        var isOver = false
        /// The attempt in progress (1 from the start; each retry adds one).
        var attemptNumber = 0
        /// The attempt running now (for suspend and resume), if any.
        var attempt: Attempt?
        /// What the attempt in progress runs on: a gate's wait, the operator interceptors'
        /// subscription, or the attempt itself.
        var running: Disposable?
        /// Suspended from the callback form's handle.
        var isSuspended = false
        /// Outcomes of the attempt in progress waiting to be serialized (one at a time:
        /// serialization interceptors may call back later).
        var waiting: [(Response<Data>, ExecutionContext)] = []
        /// An outcome is being serialized.
        var isSerializing = false
        /// The attempt in progress produced its last outcome.
        var attemptFinished = false
    }

    let recipe: ExecutionRecipe
    let interceptors: InterceptorSet
    /// The typed end: serializes outcomes and hands them to the form.
    let outlet: ExecutionOutput
    /// Whether the form reports progress (events, transfers, streams).
    let reportsProgress: Bool
    let deadline: ExecutionDeadline?
    /// What the execution moves besides small bodies (files, progress), if anything.
    let transfer: ExecutionTransfer?
    /// What operator interceptors record across attempts; made only when there are some.
    let marks: ExecutionMarks?
    /// The end the manager's end observers are told of; `nil` without any.
    let endReport: EndReport?
    private let state = LockedState(State())

    init(recipe: ExecutionRecipe, outlet: ExecutionOutput, reportsProgress: Bool) {
        self.recipe = recipe
        self.interceptors = recipe.manager.interceptorSet
        self.outlet = outlet
        self.reportsProgress = reportsProgress
        let deadline = recipe.makeDeadline()
        self.deadline = deadline
        self.transfer = recipe.makeTransfer(reportsProgress: reportsProgress, deadline: deadline)
        self.marks = interceptors.operators.isEmpty ? nil : ExecutionMarks()
        self.endReport = EndReport(observers: interceptors.endObservers)
    }

    var client: Client { recipe.client }
    var manager: Manager { recipe.client.manager }
    var registryKey: ObjectIdentifier { ObjectIdentifier(self) }

    /// Starts the execution: listed for `cancelAll()`, its deadline armed, its first
    /// attempt begun.
    func start() {
        manager.executions.add(self)
        recipe.control?.attach(self)
        deadline?.start(self)
        startAttempt(1)
    }

    // MARK: Attempts and the retry loop

    /// Starts attempt `number` once every request gate of the manager lets it through.
    private func startAttempt(_ number: Int) {
        let gates = manager.requestGates
        let waits = gates.isEmpty ? [] : gates.compactMap { $0.admission(for: recipe.endpoint, attempt: number) }
        guard !waits.isEmpty else { return beginAttempt(number) }
        let wait = SingleAssignmentDisposable()
        guard keepRunning(wait, attempt: number) else { return }
        wait.setDisposable(
            Completable.concat(waits).subscribe(
                onCompleted: { [self] in beginAttempt(number) },
                onError: { [self] error in
                    if isCurrent(number) { finish(error) }
                }))
    }

    /// Builds attempt `number`'s request (reporting it) and runs the attempt.
    private func beginAttempt(_ number: Int) {
        let request: Result<URLRequest, Swift.Error>
        let context: ExecutionContext
        do {
            let urlRequest = try recipe.urlRequest()
            progress(.requestPrepared(urlRequest, attempt: number))
            request = .success(urlRequest)
            context = makeContext(urlRequest, attempt: number)
        } catch {
            request = .failure(error)
            context = makeContext(URLRequest(url: manager.baseURL), attempt: number)
        }
        guard interceptors.operators.isEmpty else {
            let outcomes = OperatorStage.outcomes(of: self, attempt: number, request: request, context: context)
            let subscription = SingleAssignmentDisposable()
            guard keepRunning(subscription, attempt: number) else { return }
            subscription.setDisposable(
                outcomes.subscribe(OperatorStage.Output(execution: self, attempt: number, context: context)))
            return
        }
        let attempt = Attempt(execution: self, number: number, context: context, output: self)
        guard keepRunning(attempt, attempt: number) else { return }
        attempt.begin(request)
    }

    private func makeContext(_ request: URLRequest, attempt: Int) -> ExecutionContext {
        ExecutionContext(
            client: client, endpoint: recipe.endpoint, request: DataRequest(request), attempt: attempt, marks: marks,
            ending: endReport)
    }

    /// Keeps `running` as what attempt `number` runs on; `false` (and disposes it) if the
    /// execution is over or moved on.
    private func keepRunning(_ running: Disposable, attempt number: Int) -> Bool {
        let kept = state.withLock { state -> Bool in
            guard !state.isOver else { return false }
            if state.attemptNumber != number {
                // A new attempt: nothing of the previous one is waiting any more.
                state.attemptNumber = number
                state.waiting.removeAll()
                state.isSerializing = false
                state.attemptFinished = false
            }
            state.running = running
            return true
        }
        if !kept { running.dispose() }
        return kept
    }

    /// `attempt` began (an attempt the operator interceptors subscribed to included):
    /// the one a suspend reaches; returns whether it starts suspended.
    ///
    /// An attempt that begins after the execution ended is stopped at once: with operator
    /// interceptors it runs inside their subscription, which the end can dispose only once
    /// subscribing returned, and by then its request would be out.
    func attach(_ attempt: Attempt) -> Bool {
        let (suspended, isOver) = state.withLock { state in
            if !state.isOver { state.attempt = attempt }
            return (state.isSuspended, state.isOver)
        }
        if isOver { attempt.dispose() }
        return suspended
    }

    /// Whether attempt `number` is the one in progress, and the execution not over.
    func isCurrent(_ number: Int) -> Bool {
        state.withLock { !$0.isOver && $0.attemptNumber == number }
    }

    /// Whether the execution is still running.
    var isLive: Bool { state.withLock { !$0.isOver } }

    /// The one retry loop: attempt `number` asked to run the execution again (an
    /// interceptor's `retry()`, an operator's `context.retry()`). The attempt stops; past
    /// the manager's `maximumRetryCount` the execution fails with
    /// `LeashError.retryLimitExceeded`; a stream whose body began to reach the subscriber
    /// fails with the error that asked for the retry (a new attempt would deliver the body
    /// again from its start: lines twice, an event glued to a half line); otherwise the
    /// next attempt starts from the gates.
    func retry(_ signal: RetrySignal, from number: Int) {
        let (isCurrent, stopped, attempt) = state.withLock { state -> (Bool, Disposable?, Attempt?) in
            guard !state.isOver, state.attemptNumber == number else { return (false, nil, nil) }
            defer {
                state.running = nil
                state.attempt = nil
            }
            return (true, state.running, state.attempt)
        }
        guard isCurrent else { return }
        stopped?.dispose()
        if attempt?.hasOpenedStream == true {
            return finish(
                signal.lastError ?? LeashError.invalidResponse(reason: "the stream was asked to start over mid-body"))
        }
        guard manager.allowsRetry(afterAttempt: number) else {
            return finish(LeashError.retryLimitExceeded(attempts: number, lastError: signal.lastError))
        }
        do {
            // A settled deadline runs again for the next attempt (and throws if it passed
            // meanwhile), and `cancelAll()` reaches the execution again.
            try deadline?.rearm()
        } catch {
            return finish(error)
        }
        manager.executions.unsettle(registryKey)
        progress(.retrying(attempt: number + 1))
        startAttempt(number + 1)
    }

    // MARK: Outcomes

    /// Attempt `number`'s next outcome, past the completion (and operator) interceptors:
    /// serialized and handed on, one at a time, in the order they come.
    func attempt(_ number: Int, produced response: Response<Data>, context: ExecutionContext) {
        let serializeNow = state.withLock { state -> Bool in
            guard !state.isOver, state.attemptNumber == number else { return false }
            if state.isSerializing {
                state.waiting.append((response, context))
                return false
            }
            state.isSerializing = true
            return true
        }
        if serializeNow { outlet.serialize(response, context: context, attempt: number, execution: self) }
    }

    /// Attempt `number` produced its last outcome: the execution completes once that is
    /// serialized and handed on.
    func attemptFinished(_ number: Int) {
        let completes = state.withLock { state -> Bool in
            guard !state.isOver, state.attemptNumber == number else { return false }
            state.attemptFinished = true
            return !state.isSerializing
        }
        if completes { finish(nil) }
    }

    /// The outlet is done with attempt `number`'s outcome: the next one waiting is
    /// serialized, or the execution completes if the attempt is done.
    func serialized(attempt number: Int) {
        enum Next {
            case serialize(Response<Data>, ExecutionContext)
            case complete
            case wait
        }
        let next = state.withLock { state -> Next in
            guard !state.isOver, state.attemptNumber == number else { return .wait }
            if !state.waiting.isEmpty {
                let (response, context) = state.waiting.removeFirst()
                return .serialize(response, context)
            }
            state.isSerializing = false
            return state.attemptFinished ? .complete : .wait
        }
        switch next {
        case .serialize(let response, let context):
            outlet.serialize(response, context: context, attempt: number, execution: self)
        case .complete:
            finish(nil)
        case .wait:
            break
        }
    }

    /// Progress of the execution, for the forms that report it.
    func progress(_ progress: ExecutionProgress) {
        guard reportsProgress else { return }
        guard let deadline, deadline.limits.idle != nil else { return outlet.progress(progress) }
        // The time the subscriber takes over progress is not a stall (see
        // `ExecutionDeadline.delivering(_:)`).
        deadline.delivering { outlet.progress(progress) }
    }

    /// The final value of an attempt is about to be delivered: neither the deadline nor
    /// `cancelAll()` can end the execution from now on (see `ExecutionDeadline` and
    /// `ExecutionRegistry`), unless a retry follows. Returns false if one of them won the
    /// race: then the value must not be delivered, since that end is on its way.
    func settle() -> Bool {
        if let deadline, !deadline.settle() { return false }
        return manager.executions.settle(registryKey)
    }

    // MARK: Suspending

    /// Stops the request in flight until `resume()` (see `DataRequest.suspend()`).
    func suspend() {
        let attempt = state.withLock { state -> Attempt? in
            state.isSuspended = true
            return state.attempt
        }
        deadline?.pauseIdle(true)
        attempt?.suspend()
    }

    /// Sends the request that `suspend()` stopped or held back, if any.
    func resume() {
        let attempt = state.withLock { state -> Attempt? in
            state.isSuspended = false
            return state.attempt
        }
        deadline?.pauseIdle(false)
        attempt?.resume()
    }

    // MARK: The end

    /// Ends the execution with `error` (`nil`: completed), unless it ended already: it
    /// leaves the registry, its deadline stops, its files are removed, the manager's end
    /// observers are told, what still runs is cancelled (before the form hears of the end:
    /// once it does, no request of this execution can still start), and the form gets the
    /// end.
    func finish(_ error: Swift.Error?) {
        let (wasRunning, running) = stop()
        guard wasRunning else { return }
        transfer?.release()
        endReport?.end(error.map { .failed($0) } ?? .completed, client: client, endpoint: recipe.endpoint)
        running.dispose()
        outlet.end(error)
    }

    func deadlinePassed(_ seconds: TimeInterval) {
        finish(LeashError.timeout(seconds: seconds))
    }

    func cancelFromManager() {
        finish(LeashError.cancelled)
    }

    /// The subscriber let go: what runs is cancelled, and the form hears nothing more.
    func dispose() {
        let (wasRunning, running) = stop()
        outlet.release()
        guard wasRunning else { return }
        running.dispose()
        transfer?.release()
        endReport?.end(.disposed, client: client, endpoint: recipe.endpoint)
    }

    /// Marks the execution over, out of the registry and its deadline stopped; returns
    /// whether it was running (the first end), and what it ran on, to be cancelled: the
    /// attempt's subscription and the attempt itself. They differ with operator
    /// interceptors, whose subscription is disposable only once subscribing returned,
    /// while the attempt inside it may be building its request right now.
    private func stop() -> (wasRunning: Bool, running: Running) {
        let (wasRunning, running, dropped) = state.withLock { state in
            guard !state.isOver else { return (false, Running(), [(Response<Data>, ExecutionContext)]()) }
            state.isOver = true
            defer {
                state.attempt = nil
                state.running = nil
                state.waiting = []
            }
            return (true, Running(subscription: state.running, attempt: state.attempt), state.waiting)
        }
        // Released here, outside the lock: freeing outcomes may run the app's deinits.
        withExtendedLifetime(dropped) {}
        guard wasRunning else { return (false, Running()) }
        manager.executions.remove(self)
        deadline?.cancel()
        recipe.control?.executionEnded()
        return (true, running)
    }

    /// What an ending execution ran on, to be cancelled: two fields, not an array (an
    /// array cost two allocations per execution).
    private struct Running {
        var subscription: Disposable?
        var attempt: Attempt?

        func dispose() {
            subscription?.dispose()
            attempt?.dispose()
        }
    }
}
