import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One attempt of an execution up to the completion interceptors, as one observable of
/// outcomes (`Response<Data>`): execution interceptors → transport → success or failure
/// interceptors and status validation → completion interceptors.
///
/// Each of these stages is a step of one state machine (`AttemptRun`) rather than a chain
/// of general-purpose operators: an execution costs one object for the attempt and one
/// chain per interceptor call, instead of a producer, a sink and closures per stage, which
/// is what keeps Leash's overhead a few percent of a request's cost. Operator
/// interceptors and serialization, which are written as stream operators, compose on the
/// observable this produces.
///
/// What the stages promise (and the tests check):
/// - interceptors of a kind run one after another, in the order added; each may call back
///   from any thread, at any time;
/// - an outcome produced early (`complete(…, finish: false)`) or by an interceptor goes
///   through the completion interceptors like any other, in the order produced, one at a
///   time;
/// - `retry()` ends the attempt with `RetrySignal`, which the pipeline turns into the next
///   attempt;
/// - disposing cancels the transport's request and ignores later interceptor calls.
struct AttemptProducer: ObservableType, @unchecked Sendable {
    // @unchecked: immutable.
    typealias Element = Response<Data>

    /// How the run begins.
    enum Start {
        /// With a request already built (or failed to build) for `context`; a retry ends
        /// the run with `RetrySignal`, for the stages composed after it to restart.
        case prepared(Result<URLRequest, Swift.Error>, ExecutionContext)
        /// Building the request of attempt `n` itself; a retry restarts the run in place
        /// (nothing composed after it needs to know), up to the manager's limit.
        case retryingInPlace(fromAttempt: Int)
    }

    let stages: DataStages
    let start: Start

    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Response<Data> {
        run(AnyObserver(observer))
    }

    /// Starts the run for `observer`.
    func run(_ observer: AnyObserver<Response<Data>>) -> Disposable {
        let run = AttemptRun(stages: stages, observer: observer)
        switch start {
        case .prepared(let request, let context):
            run.begin(request, context: context, generation: 0, retriesInPlace: false)
        case .retryingInPlace(let attempt):
            let (request, context) = stages.prepare(attempt)
            run.begin(request, context: context, generation: 0, retriesInPlace: true)
        }
        return run
    }
}

/// The state machine of one attempt (and, retrying in place, of the attempts after it).
///
/// Every step carries the attempt's `generation`: after a retry, late calls from the
/// previous attempt's interceptors or transport are ignored.
final class AttemptRun: Disposable, @unchecked Sendable {
    // @unchecked: the mutable state is behind `lock`; the rest is immutable after `init`.
    private let stages: DataStages
    private let output: SerialObserver<Response<Data>>
    private let lock = Lock()
    private var isDisposed = false
    private var generation = 0
    private var retriesInPlace = false
    private var transport: Disposable?
    /// Outcomes waiting for the completion interceptors, which take one at a time.
    private var pendingOutcomes: [Response<Data>] = []
    private var isCompleting = false
    /// Whether the source stages (execution, transport, success/failure) are done.
    private var isSourceFinished = false
    /// Suspended from the callback form's handle (`DataRequest.suspend()`): no request
    /// goes out.
    private var isSuspended = false
    /// The request in flight (or held back while suspended), to send again on resume.
    private var inFlight: (request: URLRequest, step: Step)?
    /// A stream's response in the attempt in progress: its head being judged, its body
    /// flowing, or ended.
    private var stream = StreamGate()

    init(stages: DataStages, observer: AnyObserver<Response<Data>>) {
        self.stages = stages
        self.output = SerialObserver(observer)
    }

    private var interceptors: InterceptorSet { stages.interceptors }

    /// One attempt's step: its context and generation.
    struct Step {
        let context: ExecutionContext
        let generation: Int
        /// How many redirects this attempt followed to get to its request.
        var hops = 0
    }

    func begin(
        _ request: Result<URLRequest, Swift.Error>, context: ExecutionContext, generation: Int, retriesInPlace: Bool
    ) {
        let suspended = stages.control?.attach(self) ?? false
        lock.withLock {
            self.retriesInPlace = retriesInPlace
            isSuspended = suspended
        }
        let step = Step(context: context, generation: generation)
        switch request {
        case .success(let urlRequest):
            runExecution(at: 0, urlRequest, step)
        case .failure(let error):
            // Nothing to send: the failure goes straight to the completion interceptors,
            // which may still turn it around or retry.
            finishSource(with: .failure(LeashError.wrapping(error)), step)
        }
    }

    func dispose() {
        let transport = lock.withLock { () -> Disposable? in
            isDisposed = true
            pendingOutcomes.removeAll()
            defer { self.transport = nil }
            return self.transport
        }
        output.release()
        transport?.dispose()
    }

    /// Whether `step` is still the attempt in progress (not disposed, not retried).
    private func isCurrent(_ step: Step) -> Bool {
        lock.withLock { !isDisposed && generation == step.generation }
    }

    private func chain(
        _ step: Step, cause: Swift.Error? = nil, onDecision: @escaping @Sendable (InterceptorDecision<Data>) -> Void
    ) -> InterceptorChain<Data> {
        InterceptorChain(context: step.context, cause: cause, onDecision: onDecision)
    }

    // MARK: Source stages

    private func runExecution(at index: Int, _ urlRequest: URLRequest, _ step: Step) {
        guard isCurrent(step) else { return }
        guard index < interceptors.execution.count else {
            send(urlRequest, step)
            return
        }
        interceptors.execution[index].intercept(
            chain: chain(step) { [self] decision in
                switch decision {
                case .proceed: runExecution(at: index + 1, urlRequest, step)
                case .proceedWith(let adapted):
                    // Later interceptors, the transport and the later stages see the
                    // adapted request.
                    let adaptedStep = Step(context: step.context.replacingRequest(adapted), generation: step.generation)
                    runExecution(at: index + 1, adapted, adaptedStep)
                case .interim(let response): enqueueOutcome(response.fromInterceptor(), step)
                case .complete(let response): finishSource(with: response.fromInterceptor(), step)
                case .retry: retry(RetrySignal(lastError: nil), step)
                }
            })
    }

    private func send(_ urlRequest: URLRequest, _ step: Step) {
        let transfer: TransportRequest?
        do {
            transfer = try stages.transportRequest(for: urlRequest)
        } catch {
            // An upload's file that cannot be read, a download's file that cannot be
            // made: nothing is sent.
            failed(error, step)
            return
        }
        // Only an execution with a handle can be suspended: the others skip the bookkeeping.
        if stages.control != nil {
            let heldBack = lock.withLock { () -> Bool in
                inFlight = (urlRequest, step)
                return isSuspended
            }
            // Suspended: sent on resume.
            if heldBack { return }
        }
        let manager = stages.client.manager
        // A stream has a connection of its own: it never waits for a place.
        guard !stages.streams, let dispatcher = manager.dispatcher else {
            return launch(urlRequest, transfer, step, place: nil)
        }
        let host = manager.dispatcherKey(for: transfer?.urlRequest ?? urlRequest)
        let place = DispatcherPlace(dispatcher: dispatcher, host: host)
        if dispatcher.tryAcquire(host: host) {
            return launch(urlRequest, transfer, step, place: place)
        }
        // Queued behind the manager's limits: the request is only this closure until a
        // place frees up, and ending the execution removes it (it is the `transport` a
        // dispose reaches). Queued under the run's lock, so that the closure, which takes
        // that lock to launch, cannot run before the waiter is kept.
        let carried = Carried(transfer)
        let queued = lock.withLock { () -> Bool? in
            guard canSend(step) else { return nil }
            let waiter = dispatcher.enqueue(host: host) { [self] in
                launch(urlRequest, carried.value, step, place: place)
            }
            guard let waiter else { return false }
            transport = waiter
            return true
        }
        // A place freed up meanwhile: it is this request's.
        if queued == false {
            launch(urlRequest, transfer, step, place: place)
        }
    }

    /// Hands `step`'s request to the transport, holding `place` (given back when the
    /// transport's request ended). The request is kept as `transport` before it is sent,
    /// so that a dispose either comes first (nothing is sent) or cancels it.
    private func launch(_ urlRequest: URLRequest, _ transfer: TransportRequest?, _ step: Step, place: DispatcherPlace?)
    {
        guard isCurrent(step) else {
            place?.release()
            return
        }
        stages.progress.send(.requestSent(transfer?.urlRequest ?? urlRequest, attempt: step.context.attempt))
        let manager = stages.client.manager
        if let direct = manager.directTransport {
            // Without the observable around its request, with the answer handed to the
            // execution's task if it has one, and the place given back when URLSession
            // reports the task over.
            let options = DirectRequestOptions(handoff: stages.handoff, place: place, credentials: manager.credentials)
            let prepared: PreparedRequest
            if let transfer {
                // Bytes reported as they move: uploads from files, downloads, progress.
                let observer = TransferObserver(run: self, request: transfer.urlRequest, step: step)
                prepared = direct.prepareTransfer(transfer, options: options, observer: AnyObserver(observer))
            } else {
                let observer = TransportObserver(run: self, request: urlRequest, step: step)
                prepared = direct.prepare(urlRequest, options: options, observer: observer)
            }
            if keep(prepared, step) {
                prepared.launch()
            } else {
                prepared.dispose()
            }
            return
        }
        // Another transport: its observable is the request, and the place is given back
        // when it ends or is disposed.
        let holder = SingleAssignmentDisposable()
        guard keep(holder, step) else {
            place?.release()
            return
        }
        let answer: AttemptAnswer
        let subscription: Disposable
        if let transfer {
            let observer = TransferObserver(run: self, request: transfer.urlRequest, step: step, place: place)
            (answer, subscription) = (observer, manager.transport.transfer(transfer).subscribe(observer))
        } else {
            let observer = TransportObserver(run: self, request: urlRequest, step: step, place: place)
            (answer, subscription) = (observer, manager.transport.send(urlRequest).subscribe(observer))
        }
        // Disposing the answer gives the place back.
        holder.setDisposable(Disposables.create(subscription, answer))
    }

    /// Keeps `request` as the attempt's transport request, unless `step` can no longer
    /// send; returns whether it did.
    private func keep(_ request: Disposable, _ step: Step) -> Bool {
        lock.withLock { () -> Bool in
            guard canSend(step) else { return false }
            transport = request
            return true
        }
    }

    /// Whether `step` may still send its request: not disposed, not retried since, and
    /// not suspended (suspended while starting, it is stopped now and sent again on
    /// resume). Under `lock`.
    private func canSend(_ step: Step) -> Bool {
        !isDisposed && generation == step.generation && !isSuspended
    }

    /// Stops the request in flight, quietly, until `resume()` (see `DataRequest.suspend()`,
    /// which says why URLSession's own `suspend()` is not used).
    func suspend() {
        let transport = lock.withLock { () -> Disposable? in
            if isSuspended || isDisposed { return nil }
            isSuspended = true
            // Only a request still waiting for its answer is stopped (and sent again).
            guard inFlight != nil else { return nil }
            defer { self.transport = nil }
            return self.transport
        }
        stages.deadline?.pauseIdle(true)
        transport?.dispose()
    }

    /// Sends the request that `suspend()` stopped or held back, if any.
    func resume() {
        let pending = lock.withLock { () -> (request: URLRequest, step: Step)? in
            if !isSuspended || isDisposed { return nil }
            isSuspended = false
            return inFlight
        }
        stages.deadline?.pauseIdle(false)
        guard let pending, isCurrent(pending.step) else { return }
        send(pending.request, pending.step)
    }

    /// The transport answered `step`'s request with `response`.
    func received(_ response: TransportResponse, _ urlRequest: URLRequest, _ step: Step) {
        if stages.streams, streamEnded(step) { return }
        answered(step)
        stages.progress.send(
            .responseReceived(response.httpResponse, data: response.data, attempt: step.context.attempt))
        if RedirectHop.redirects(status: response.httpResponse.statusCode),
            followRedirect(response.httpResponse, urlRequest, step)
        {
            return
        }
        runSuccess(at: 0, response, urlRequest, step)
    }

    /// Sends the request that follows a redirect, if the execution's `RedirectPolicy` says
    /// to (or fails the attempt past its limit); `false` to take the redirect as the
    /// response.
    private func followRedirect(_ response: HTTPURLResponse, _ urlRequest: URLRequest, _ step: Step) -> Bool {
        guard isCurrent(step), let proposed = RedirectHop.proposedRequest(after: response, to: urlRequest),
            let target = proposed.url
        else { return false }
        let policy = stages.redirectPolicy
        let hop = step.hops + 1
        let redirect = Redirect(request: urlRequest, response: response, proposedRequest: proposed, hop: hop)
        guard let next = policy.nextRequest(after: redirect) else { return false }
        guard hop <= policy.limit else {
            failed(LeashError.tooManyRedirects(limit: policy.limit, url: next.url ?? target), step)
            return true
        }
        // The interceptors after the transport see the request that got the final answer.
        send(next, Step(context: step.context.replacingRequest(next), generation: step.generation, hops: hop))
        return true
    }

    /// The transport reported bytes moving for `step`'s request: the idle limit starts
    /// over, and the progress is reported (throttled); a stream's head is judged, and its
    /// chunks handed on.
    func transferred(_ event: TransportEvent, _ urlRequest: URLRequest, _ step: Step) {
        stages.deadline?.recordActivity()
        if stages.streams {
            switch event {
            case .response(let head) where TransferBodyPlan.streamsBody(status: head.statusCode):
                return judgeStreamHead(head, urlRequest, step)
            case .body(let chunk):
                return streamed(chunk, step)
            default:
                break
            }
        }
        guard let transfer = stages.transfer, transfer.reportsProgress, stages.progress.isReporting,
            isCurrent(step)
        else { return }
        switch event {
        case .uploadProgress(let progress):
            if let due = transfer.throttled(upload: progress) { deliver(.uploadProgress(due)) }
        case .downloadProgress(let progress):
            if let due = transfer.throttled(download: progress) { deliver(.downloadProgress(due)) }
        case .response, .body, .completed:
            break
        }
    }

    // MARK: Streams

    /// A stream's head arrived: the success interceptors and validation judge it (with an
    /// empty body) while its first chunks wait; accepted, its chunks flow (`openStream`),
    /// else the outcome ends the attempt and the connection is closed.
    private func judgeStreamHead(_ head: HTTPURLResponse, _ urlRequest: URLRequest, _ step: Step) {
        let current = lock.withLock { () -> Bool in
            guard !isDisposed, generation == step.generation else { return false }
            stream = StreamGate(phase: .judging)
            return true
        }
        guard current else { return }
        stages.progress.send(.responseReceived(head, data: Data(), attempt: step.context.attempt))
        runSuccess(at: 0, TransportResponse(httpResponse: head, data: Data()), urlRequest, step, streamHead: true)
    }

    /// The success interceptors and validation passed a stream's head with `outcome`.
    private func judgedStreamHead(_ outcome: Response<Data>, _ step: Step) {
        guard case .success(_, let extra) = outcome, let details = extra as? ResponseExtra,
            let head = details.httpResponse
        else {
            finishSource(with: outcome, step)
            return
        }
        deliver(.streamOpened(head))
        openStream(details, step)
    }

    /// Hands on the chunks that came while the head was judged, then lets the next ones
    /// through as they come (in order: chunks arriving meanwhile queue behind these).
    private func openStream(_ details: ResponseExtra, _ step: Step) {
        while true {
            let next = lock.withLock { () -> StreamGate.Next in
                guard !isDisposed, generation == step.generation else { return .stop }
                return stream.next(accepting: details)
            }
            switch next {
            case .chunks(let chunks): for chunk in chunks { deliver(.bodyChunk(chunk)) }
            case .end: return finishSource(with: .success(value: Data(), extra: details), step)
            case .stop: return
            }
        }
    }

    /// A chunk of a stream's body: handed on if the stream is open, kept while its head
    /// is judged, dropped once it is closed.
    private func streamed(_ chunk: Data, _ step: Step) {
        let open = lock.withLock { () -> Bool in
            guard !isDisposed, generation == step.generation else { return false }
            return stream.admit(chunk)
        }
        if open { deliver(.bodyChunk(chunk)) }
    }

    /// The transport ended `step`'s response; whether it was a stream's, whose end is
    /// handled here (its head was judged already).
    private func streamEnded(_ step: Step) -> Bool {
        let end = lock.withLock { () -> StreamGate.End in
            guard generation == step.generation else { return .ignore }
            return stream.end()
        }
        switch end {
        case .notStreamed: return false
        case .ignore: return true
        case .finish(let details):
            answered(step)
            finishSource(with: .success(value: Data(), extra: details), step)
            return true
        }
    }

    /// Hands `progress` to the subscriber; the time it spends there is not a stall (see
    /// `ExecutionDeadline.delivering(_:)`).
    private func deliver(_ progress: ExecutionProgress) {
        guard let deadline = stages.deadline else { return stages.progress.send(progress) }
        deadline.delivering { stages.progress.send(progress) }
    }

    /// The transport failed `step`'s request.
    func failed(_ error: Swift.Error, _ step: Step) {
        answered(step)
        runFailure(at: 0, error, step)
    }

    /// The transport is done with `step`'s request: a suspend no longer stops it.
    private func answered(_ step: Step) {
        guard stages.control != nil else { return }
        lock.withLock {
            if inFlight?.step.generation == step.generation { inFlight = nil }
        }
    }

    private func runSuccess(
        at index: Int, _ response: TransportResponse, _ urlRequest: URLRequest, _ step: Step, streamHead: Bool = false
    ) {
        guard isCurrent(step) else { return }
        guard index < interceptors.success.count else {
            let outcome = stages.validated(response, request: urlRequest)
            if streamHead { return judgedStreamHead(outcome, step) }
            finishSource(with: outcome, step)
            return
        }
        interceptors.success[index].intercept(
            chain: chain(step) { [self] decision in
                switch decision {
                case .proceed, .proceedWith:
                    runSuccess(at: index + 1, response, urlRequest, step, streamHead: streamHead)
                case .interim(let result): enqueueOutcome(result.fromInterceptor(), step)
                case .complete(let result): finishSource(with: result.fromInterceptor(), step)
                case .retry: retry(RetrySignal(lastError: nil), step)
                }
            },
            response: response.httpResponse, data: response.data)
    }

    private func runFailure(at index: Int, _ error: Swift.Error, _ step: Step) {
        guard isCurrent(step) else { return }
        guard index < interceptors.failure.count else {
            finishSource(with: .failure(error), step)
            return
        }
        interceptors.failure[index].intercept(
            chain: chain(step, cause: error) { [self] decision in
                switch decision {
                case .proceed, .proceedWith: runFailure(at: index + 1, error, step)
                case .interim(let result): enqueueOutcome(result.fromInterceptor(), step)
                case .complete(let result): finishSource(with: result.fromInterceptor(), step)
                case .retry: retry(RetrySignal(lastError: error), step)
                }
            },
            error: error)
    }

    /// The source stages produced their last outcome.
    private func finishSource(with response: Response<Data>, _ step: Step) {
        let (release, stopsStream) = lock.withLock { () -> (Disposable?, Bool) in
            guard generation == step.generation else { return (nil, false) }
            defer { transport = nil }
            return (transport, stream.close())
        }
        // A stream whose head an interceptor answered, or that failed validation: its
        // connection is closed. Otherwise the transport's subscription has ended (or
        // ends now): let it go.
        if stopsStream { release?.dispose() }
        withExtendedLifetime(release) {}
        enqueueOutcome(response, step, isLast: true)
    }

    // MARK: Completion stage

    /// Queues an outcome for the completion interceptors, which take one at a time in
    /// the order produced; starts processing if nothing is in progress.
    private func enqueueOutcome(_ response: Response<Data>, _ step: Step, isLast: Bool = false) {
        let next = lock.withLock { () -> Response<Data>? in
            if isDisposed || generation != step.generation { return nil }
            if isLast { isSourceFinished = true }
            pendingOutcomes.append(response)
            if isCompleting { return nil }
            isCompleting = true
            return pendingOutcomes.removeFirst()
        }
        if let next { runCompletion(at: 0, next, step) }
    }

    private func runCompletion(at index: Int, _ response: Response<Data>, _ step: Step) {
        guard isCurrent(step) else { return }
        guard index < interceptors.completion.count else {
            deliver(response, step)
            return
        }
        let cause = response.error
        interceptors.completion[index].intercept(
            chain: chain(step, cause: cause) { [self] decision in
                switch decision {
                case .proceed, .proceedWith: runCompletion(at: index + 1, response, step)
                case .interim(let result): output.onNext(result.fromInterceptor())
                case .complete(let result): deliver(result.fromInterceptor(), step)
                case .retry: retry(RetrySignal(lastError: cause), step)
                }
            },
            response: response)
    }

    /// Hands an outcome that passed the completion interceptors on, then takes the next.
    ///
    /// The last outcome, if it is a value, settles the execution first (see
    /// `DataStages.settle()`): however long the subscriber then takes, and even if it
    /// calls `cancelAll()` itself, neither the timeout nor a cancel can follow the value.
    /// If one of them won that race, the value is not delivered: it ends the execution.
    private func deliver(_ response: Response<Data>, _ step: Step) {
        if response.isSuccess, isLastOutcome(step), !stages.settle() { return }
        output.onNext(response)
        nextOutcome(step)
    }

    /// Whether nothing can follow the outcome being completed in `step`: the source
    /// stages are done and no other outcome waits.
    private func isLastOutcome(_ step: Step) -> Bool {
        lock.withLock { generation == step.generation && isSourceFinished && pendingOutcomes.isEmpty }
    }

    /// Takes the next queued outcome, or ends the attempt if the source is done.
    private func nextOutcome(_ step: Step) {
        enum Next {
            case process(Response<Data>)
            case finish
            case wait
        }
        let next = lock.withLock { () -> Next in
            if isDisposed || generation != step.generation { return .wait }
            if !pendingOutcomes.isEmpty { return .process(pendingOutcomes.removeFirst()) }
            isCompleting = false
            return isSourceFinished ? .finish : .wait
        }
        switch next {
        case .process(let response): runCompletion(at: 0, response, step)
        case .finish: output.onCompleted()
        case .wait: break
        }
    }

    // MARK: Retry and failure

    /// An interceptor asked for a retry: either restart here, with the request built
    /// anew, or end with the signal for the stages composed after this run.
    private func retry(_ signal: RetrySignal, _ step: Step) {
        let restart = lock.withLock { () -> (inPlace: Bool, transport: Disposable?)? in
            guard !isDisposed, generation == step.generation else { return nil }
            guard retriesInPlace else { return (false, nil) }
            // The attempt ends here: later calls from its interceptors are ignored.
            generation += 1
            stream = StreamGate()
            pendingOutcomes.removeAll()
            isCompleting = false
            isSourceFinished = false
            defer { transport = nil }
            return (true, transport)
        }
        guard let restart else { return }
        guard restart.inPlace else {
            fail(signal)
            return
        }
        restart.transport?.dispose()
        let attempt = step.context.attempt
        do {
            try stages.prepareRetry(after: signal, attempt: attempt)
        } catch {
            fail(error)
            return
        }
        let (request, context) = stages.prepare(attempt + 1)
        begin(request, context: context, generation: step.generation + 1, retriesInPlace: true)
    }

    private func fail(_ error: Swift.Error) {
        guard !lock.withLock({ isDisposed }) else { return }
        output.onError(error)
        dispose()
    }
}
