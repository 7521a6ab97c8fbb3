import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where an attempt's outcomes go once past the completion interceptors: its execution,
/// or the operator interceptors composed on it (`OperatorStage`).
protocol AttemptOutput: AnyObject, Sendable {
    /// Attempt `number` produced `response` (values, and failures as elements, so that
    /// the stages after can turn them around).
    func attempt(_ number: Int, produced response: Response<Data>, context: ExecutionContext)
    /// Attempt `number` produced its last outcome.
    func attemptFinished(_ number: Int)
}

/// One attempt of an execution, up to the completion interceptors: execution interceptors
/// → the manager's dispatcher → the transport (following redirects) → success or failure
/// interceptors and status validation → completion interceptors.
///
/// Each stage is a step of this one object rather than a chain of general-purpose
/// operators: an attempt costs one object and one chain per interceptor call, instead of
/// a producer, a sink and closures per stage, which keeps Leash's overhead a few percent
/// of a request's cost.
///
/// What the stages promise (and the tests check):
/// - interceptors of a kind run one after another, in the order added; each may call back
///   from any thread, at any time (`InterceptorLoop`);
/// - an outcome produced early (`complete(…, finish: false)`) or by an interceptor goes
///   through the completion interceptors like any other, in the order produced, one at a
///   time;
/// - `retry()` goes to the execution, which stops this attempt and starts the next;
/// - once the attempt is stopped (disposed, retried, the execution over), late calls from
///   its interceptors and its transport do nothing.
final class Attempt: Disposable, StageHost, @unchecked Sendable {
    // @unchecked: the mutable state is behind `state`; the rest is immutable.

    /// Where an attempt's request is: the request and context of one hop (a redirect
    /// makes the next).
    struct Step {
        let request: URLRequest
        let context: ExecutionContext
        /// How many redirects this attempt followed to get to its request.
        var hops = 0
    }

    /// Which stage an interceptor run belongs to, with what it needs to go on.
    enum Stage {
        case execution
        case success(TransportResponse, Step, streamHead: Bool)
        case failure(Swift.Error, Step)
        case completion(Response<Data>, ExecutionContext)
    }

    /// The mutable part of an attempt, decided under its lock and acted on after.
    private struct State {
        var isStopped = false
        /// The transport's request (or the dispatcher's place in line for it).
        var transport: Disposable?
        /// Outcomes waiting for the completion interceptors, which take one at a time.
        var pending: [(Response<Data>, ExecutionContext)] = []
        var isCompleting = false
        /// The source stages (execution, transport, success/failure) are done.
        var isSourceFinished = false
        /// Suspended from the callback form's handle: no request goes out.
        var isSuspended = false
        /// The request in flight (or held back while suspended), to send again on resume.
        var inFlight: Step?
        /// A stream's response: its head being judged, its body flowing, or ended.
        var stream = StreamState()
        /// The transport's pacing of the stream in flight, told of the chunks kept in
        /// `stream` (see `StreamPacing`); nil for other transports and requests.
        var pacing: StreamPacing?
        /// The context of the request sent last (an adapted or redirected one), which the
        /// completion interceptors see; the attempt's own until one is sent.
        var context: ExecutionContext?
    }

    let execution: Execution
    let number: Int
    /// The context the attempt began with.
    let context: ExecutionContext
    private let output: AttemptOutput
    private let state = LockedState(State())

    init(execution: Execution, number: Int, context: ExecutionContext, output: AttemptOutput) {
        self.execution = execution
        self.number = number
        self.context = context
        self.output = output
    }

    private var interceptors: InterceptorSet { execution.interceptors }
    var isLive: Bool { state.withLock { !$0.isStopped } }

    /// Runs the attempt with its built request, or with the failure to build one (which
    /// goes straight to the completion interceptors: they may still turn it around).
    func begin(_ request: Result<URLRequest, Swift.Error>) {
        let suspended = execution.attach(self)
        state.withLock { $0.isSuspended = suspended }
        switch request {
        case .success(let urlRequest):
            guard !interceptors.execution.isEmpty else {
                return send(Step(request: urlRequest, context: context))
            }
            InterceptorLoop(interceptors: interceptors.execution, host: self, stage: .execution, adapts: true) {
                $0.intercept(chain: $1)
            }
            .run(context: context)
        case .failure(let error):
            finishSource(with: .failure(LeashError.wrapping(error)))
        }
    }

    func dispose() {
        let transport = state.withLock { state -> Disposable? in
            state.isStopped = true
            state.pending.removeAll()
            defer { state.transport = nil }
            return state.transport
        }
        transport?.dispose()
    }

    // MARK: Interceptor results

    func stage(_ stage: Stage, reported result: StageResult<Data>) {
        switch (stage, result) {
        case (.execution, .proceed(let context)):
            // An execution interceptor may have adapted the request: the later ones, the
            // transport and the later stages see it.
            guard let request = context.request.urlRequest else { return }
            send(Step(request: request, context: context))
        case (.success(let response, let step, let streamHead), .proceed):
            let outcome = validated(response, request: step.request)
            streamHead ? judgedStreamHead(outcome) : finishSource(with: outcome)
        case (.failure(let error, _), .proceed):
            finishSource(with: .failure(error))
        case (.completion(let response, let context), .proceed):
            deliver(response, context)
        case (.completion(_, let context), .interim(let response)):
            // Handed on at once, skipping the later completion interceptors.
            output.attempt(number, produced: response.fromInterceptor(), context: context)
        case (.completion(_, let context), .complete(let response)):
            deliver(response.fromInterceptor(), context)
        case (_, .interim(let response)):
            enqueue(response.fromInterceptor())
        case (_, .complete(let response)):
            finishSource(with: response.fromInterceptor())
        case (.failure(let error, _), .retry):
            execution.retry(RetrySignal(lastError: error), from: number)
        case (.completion(let response, _), .retry):
            execution.retry(RetrySignal(lastError: response.error), from: number)
        case (_, .retry):
            execution.retry(RetrySignal(lastError: nil), from: number)
        }
    }

    // MARK: Sending

    private func send(_ step: Step) {
        let transfer: TransportRequest?
        do {
            transfer = try transportRequest(for: step.request)
        } catch {
            // An upload's file that cannot be read, a download's file that cannot be
            // made: nothing is sent.
            return failed(error, step)
        }
        // Only an execution with a handle can be suspended: the others skip the bookkeeping.
        if execution.recipe.control != nil {
            let heldBack = state.withLock { state -> Bool in
                state.inFlight = step
                return state.isSuspended
            }
            // Suspended: sent on resume.
            if heldBack { return }
        }
        let manager = execution.manager
        // Identical GETs in flight share one request (`Manager.flights`), joined before the
        // limits: only the flight's own request takes a place. A request whose progress is
        // observed (an event stream's) shares too, its answer in memory: its progress is then
        // only the end, as over a transport without `transfer`.
        if let flights = manager.flights, case .request = execution.recipe.kind,
            transfer.map({ $0.body == .inRequest && $0.destination == .memory }) ?? true,
            let key = SharingKey(sharing: step.request)
        {
            return join(flights, key, step)
        }
        // A stream or a WebSocket has a connection of its own: it never waits for a place.
        guard !execution.recipe.kind.hasOwnConnection, let dispatcher = manager.dispatcher else {
            return launch(step, transfer, place: nil)
        }
        let host = manager.dispatcherKey(for: transfer?.urlRequest ?? step.request)
        let place = DispatcherPlace(dispatcher: dispatcher, host: host)
        if dispatcher.tryAcquire(host: host) { return launch(step, transfer, place: place) }
        // Queued behind the manager's limits: the request is only this closure until a
        // place frees up, and ending the attempt removes it (it is the `transport` a
        // dispose reaches). Queued under the attempt's lock, so that the closure, which
        // takes that lock to launch, cannot run before the waiter is kept.
        let carried = Carried(transfer)
        let queued = state.withLock { state -> Bool? in
            guard canSend(state) else { return nil }
            let waiter = dispatcher.enqueue(host: host) { [self] in launch(step, carried.value, place: place) }
            guard let waiter else { return false }
            state.transport = waiter
            return true
        }
        // A place freed up meanwhile: it is this request's.
        if queued == false { launch(step, transfer, place: place) }
    }

    /// Joins the flight of identical requests for `key`, opening it (and sending its request,
    /// which the flight owns) if none can be joined: the flight's answer comes to this attempt
    /// as a transport's would. Leaving the flight (a dispose, a retry, a suspend) cancels its
    /// request only if no other execution still waits for it.
    private func join(_ flights: InFlightRequests, _ key: SharingKey, _ step: Step) {
        guard isLive else { return }
        // Reported first: a flight that already answers may answer this attempt at once.
        execution.progress(.requestSent(step.request, attempt: number))
        let ticket = flights.join(key, AnyObserver(TransportObserver(attempt: self, step: step)))
        let membership = Disposables.create { flights.leave(ticket) }
        guard keep(membership, step) else { return membership.dispose() }
        guard let connection = ticket.connection else { return }
        connection.setDisposable(
            SharedFlight.start(step.request, manager: execution.manager, flight: ticket.flight, flights: flights))
    }

    /// The request as the transport's `transfer` takes it, or `nil` for a plain request
    /// (the transport's fast path: a body in memory, no progress, no file).
    private func transportRequest(for urlRequest: URLRequest) throws -> TransportRequest? {
        guard let transfer = execution.transfer else { return nil }
        var request = urlRequest
        let body = try transfer.body(for: execution.recipe.endpoint, request: &request)
        let destination = try transfer.destination()
        guard transfer.reportsProgress || body != .inRequest || destination != .memory else { return nil }
        // A download's retry asks for the rest of its file: shown in the request events
        // and interceptors see.
        _ = TransferBodyPlan.requestRange(for: destination, in: &request)
        return TransportRequest(
            request, body: body, destination: destination, reportsProgress: transfer.reportsProgress)
    }

    /// Hands `step`'s request to the transport, holding `place` (given back when the
    /// transport's request ended). The request is kept as `transport` before it is sent,
    /// so that a dispose either comes first (nothing is sent) or cancels it.
    private func launch(_ step: Step, _ transfer: TransportRequest?, place: DispatcherPlace?) {
        guard isLive else {
            place?.release()
            return
        }
        execution.progress(.requestSent(transfer?.urlRequest ?? step.request, attempt: number))
        let manager = execution.manager
        let upgrade = execution.recipe.kind.webSocketUpgrade
        if upgrade == nil, let direct = manager.directTransport {
            // Without the observable around its request, with the answer handed to the
            // execution's task if it has one, and the place given back when URLSession
            // reports the task over.
            let options = DirectRequestOptions(
                handoff: execution.recipe.handoff, place: place, credentials: manager.credentials)
            let prepared: PreparedRequest
            if let transfer {
                // Bytes reported as they move: uploads from files, downloads, progress.
                let observer = TransferObserver(attempt: self, step: step.with(transfer.urlRequest))
                prepared = direct.prepareTransfer(transfer, options: options, observer: AnyObserver(observer))
            } else {
                prepared = direct.prepare(
                    step.request, options: options, observer: TransportObserver(attempt: self, step: step))
            }
            if keep(prepared, step, pacing: prepared.streamPacing) { prepared.launch() } else { prepared.dispose() }
            return
        }
        // Another transport: its observable is the request, kept by the answer, which gives
        // the place back when it ends or is disposed. The answer is kept as the attempt's
        // request before it subscribes, so that a stop meanwhile reaches it.
        if let transfer {
            let observer = TransferObserver(attempt: self, step: step.with(transfer.urlRequest), place: place)
            guard keep(observer, step) else { return observer.dispose() }
            observer.keep(manager.sender.transfer(transfer).subscribe(observer))
        } else {
            // A WebSocket's upgrade goes through its own transport.
            let transport: any Transport = upgrade ?? manager.sender
            let observer = TransportObserver(attempt: self, step: step, place: place)
            guard keep(observer, step) else { return observer.dispose() }
            observer.keep(transport.send(step.request).subscribe(observer))
        }
    }

    /// Keeps `request` as the attempt's transport request (sending `step`), unless it can
    /// no longer be sent; returns whether it was kept.
    private func keep(_ request: Disposable, _ step: Step, pacing: StreamPacing? = nil) -> Bool {
        state.withLock { state in
            guard canSend(state) else { return false }
            state.transport = request
            state.context = step.context
            state.pacing = pacing
            return true
        }
    }

    /// Whether a request may still go out: not stopped, and not suspended (suspended while
    /// starting, it is sent again on resume).
    private func canSend(_ state: State) -> Bool {
        !state.isStopped && !state.isSuspended
    }

    /// Stops the request in flight, quietly, until `resume()` (see `DataRequest.suspend()`,
    /// which says why URLSession's own `suspend()` is not used).
    func suspend() {
        let transport = state.withLock { state -> Disposable? in
            if state.isSuspended || state.isStopped { return nil }
            state.isSuspended = true
            // Only a request still waiting for its answer is stopped (and sent again).
            guard state.inFlight != nil else { return nil }
            defer { state.transport = nil }
            return state.transport
        }
        transport?.dispose()
    }

    /// Sends the request that `suspend()` stopped or held back, if any.
    func resume() {
        let pending = state.withLock { state -> Step? in
            if !state.isSuspended || state.isStopped { return nil }
            state.isSuspended = false
            return state.inFlight
        }
        guard let pending, isLive else { return }
        send(pending)
    }

    // MARK: The transport's answer

    /// The transport answered `step`'s request with `response`.
    func received(_ response: TransportResponse, _ step: Step) {
        if execution.recipe.kind.isStream, streamEnded() { return }
        answered()
        execution.progress(.responseReceived(response.httpResponse, data: response.data, attempt: number))
        if RedirectHop.redirects(status: response.httpResponse.statusCode), followRedirect(response.httpResponse, step)
        {
            return
        }
        runSuccess(response, step)
    }

    /// Sends the request that follows a redirect, if the execution's `RedirectPolicy` says
    /// to (or fails the attempt past its limit); `false` to take the redirect as the
    /// response.
    private func followRedirect(_ response: HTTPURLResponse, _ step: Step) -> Bool {
        guard isLive, let proposed = RedirectHop.proposedRequest(after: response, to: step.request),
            let target = proposed.url
        else { return false }
        let policy = execution.recipe.redirectPolicy
        let hop = step.hops + 1
        let redirect = Redirect(request: step.request, response: response, proposedRequest: proposed, hop: hop)
        guard let next = policy.nextRequest(after: redirect) else { return false }
        guard hop <= policy.limit else {
            failed(LeashError.tooManyRedirects(limit: policy.limit, url: next.url ?? target), step)
            return true
        }
        // The interceptors after the transport see the request that got the final answer.
        send(Step(request: next, context: step.context.replacingRequest(next), hops: hop))
        return true
    }

    /// The transport reported bytes moving for `step`'s request: the idle limit starts
    /// over, and the progress is reported (throttled); a stream's head is judged, and its
    /// chunks handed on.
    func transferred(_ event: TransportEvent, _ step: Step) {
        execution.deadline?.recordActivity()
        if execution.recipe.kind.isStream {
            switch event {
            case .response(let head) where TransferBodyPlan.streamsBody(status: head.statusCode):
                return judgeStreamHead(head, step)
            case .body(let chunk):
                return streamed(chunk)
            default:
                break
            }
        }
        guard let transfer = execution.transfer, transfer.reportsProgress, execution.reportsProgress, isLive else {
            return
        }
        switch event {
        case .uploadProgress(let progress):
            if let due = transfer.throttled(upload: progress) { execution.progress(.uploadProgress(due)) }
        case .downloadProgress(let progress):
            if let due = transfer.throttled(download: progress) { execution.progress(.downloadProgress(due)) }
        case .response, .body, .completed:
            break
        }
    }

    /// The transport failed `step`'s request.
    func failed(_ error: Swift.Error, _ step: Step) {
        answered()
        guard !interceptors.failure.isEmpty else { return finishSource(with: .failure(error)) }
        InterceptorLoop(interceptors: interceptors.failure, host: self, stage: .failure(error, step), cause: error) {
            $0.intercept(chain: $1, error: error)
        }
        .run(context: step.context)
    }

    /// The transport is done with the request in flight: a suspend no longer stops it.
    private func answered() {
        guard execution.recipe.control != nil else { return }
        state.withLock { $0.inFlight = nil }
    }

    private func runSuccess(_ response: TransportResponse, _ step: Step, streamHead: Bool = false) {
        guard !interceptors.success.isEmpty else {
            return stage(.success(response, step, streamHead: streamHead), reported: .proceed(step.context))
        }
        InterceptorLoop(
            interceptors: interceptors.success, host: self, stage: .success(response, step, streamHead: streamHead)
        ) {
            $0.intercept(chain: $1, response: response.httpResponse, data: response.data)
        }
        .run(context: step.context)
    }

    /// The response as an outcome: a value if its status is acceptable, else
    /// `LeashError.unacceptableStatusCode`.
    private func validated(_ response: TransportResponse, request: URLRequest) -> Response<Data> {
        let status = response.httpResponse.statusCode
        guard execution.recipe.acceptableStatusCodes.contains(status) else {
            let failure = StatusCodeFailure(
                statusCode: status, headers: HTTPHeaders(response.httpResponse), body: response.data,
                response: response.httpResponse, request: request)
            return .failure(LeashError.unacceptableStatusCode(failure))
        }
        let extra = ResponseExtra(
            source: .network, request: request, httpResponse: response.httpResponse, data: response.data,
            bodyFile: response.file, metrics: response.metrics)
        return .success(value: response.data, extra: extra)
    }

    // MARK: Streams

    /// Whether this attempt's stream was opened: its body began to reach the subscriber,
    /// so running the execution again would deliver it a second time from its start.
    var hasOpenedStream: Bool {
        state.withLock { $0.stream.hasOpened }
    }

    /// A stream's head arrived: the success interceptors and validation judge it (with an
    /// empty body) while its first chunks wait; accepted, its chunks flow (`openStream`),
    /// else the outcome ends the attempt and the connection is closed.
    private func judgeStreamHead(_ head: HTTPURLResponse, _ step: Step) {
        let live = state.withLock { state -> Bool in
            guard !state.isStopped else { return false }
            state.stream = StreamState(phase: .judging)
            return true
        }
        guard live else { return }
        execution.progress(.responseReceived(head, data: Data(), attempt: number))
        runSuccess(TransportResponse(httpResponse: head, data: Data()), step, streamHead: true)
    }

    /// The success interceptors and validation passed a stream's head with `outcome`.
    private func judgedStreamHead(_ outcome: Response<Data>) {
        guard case .success(_, let extra) = outcome, let details = extra as? ResponseExtra,
            let head = details.httpResponse
        else { return finishSource(with: outcome) }
        execution.progress(.streamOpened(head))
        openStream(details)
    }

    /// Hands on the chunks that came while the head was judged, then lets the next ones
    /// through as they come (in order: chunks arriving meanwhile queue behind these).
    ///
    /// This runs where the head's judgement ended: on the transport's thread, or on the
    /// thread a success interceptor called back from, which then feeds the subscriber
    /// while the transport's chunks are kept. The transport is told when each kept chunk
    /// is taken (`StreamPacing`), so that a subscriber stuck here is held to the
    /// slow-subscriber limits as one stuck on the transport's thread is.
    private func openStream(_ details: ResponseExtra) {
        while true {
            let (next, pacing) = state.withLock { state -> (StreamState.Next, StreamPacing?) in
                (state.isStopped ? .stop : state.stream.next(accepting: details), state.pacing)
            }
            switch next {
            case .chunks(let chunks):
                for chunk in chunks {
                    execution.progress(.bodyChunk(chunk))
                    pacing?.handedOn(chunk.count)
                }
            case .end: return finishSource(with: .success(value: Data(), extra: details))
            case .stop: return
            }
        }
    }

    /// A chunk of a stream's body: handed on if the stream is open, kept while its head
    /// is judged (or while the chunks kept before it are handed on), dropped once it is
    /// closed.
    private func streamed(_ chunk: Data) {
        let (admission, pacing) = state.withLock { state -> (StreamState.Admission, StreamPacing?) in
            (state.isStopped ? .dropped : state.stream.admit(chunk), state.pacing)
        }
        switch admission {
        case .handOn: execution.progress(.bodyChunk(chunk))
        // Returning does not mean the subscriber took it: its bytes still wait.
        case .kept: pacing?.kept(chunk.count)
        case .dropped: break
        }
    }

    /// The transport ended the response; whether it was a stream's, whose end is handled
    /// here (its head was judged already).
    private func streamEnded() -> Bool {
        switch state.withLock({ $0.stream.end() }) {
        case .notStreamed:
            return false
        case .ignore:
            return true
        case .finish(let details):
            answered()
            finishSource(with: .success(value: Data(), extra: details))
            return true
        }
    }

    // MARK: Completion stage

    /// The source stages produced their last outcome.
    private func finishSource(with response: Response<Data>) {
        let (transport, stopsStream) = state.withLock { state -> (Disposable?, Bool) in
            guard !state.isStopped else { return (nil, false) }
            defer { state.transport = nil }
            return (state.transport, state.stream.close())
        }
        // A stream whose head an interceptor answered, or that failed validation: its
        // connection is closed. Otherwise the transport's subscription has ended (or
        // ends now): let it go.
        if stopsStream { transport?.dispose() }
        withExtendedLifetime(transport) {}
        enqueue(response, isLast: true)
    }

    /// Queues an outcome for the completion interceptors, which take one at a time in
    /// the order produced; starts them if nothing is in progress.
    private func enqueue(_ response: Response<Data>, isLast: Bool = false) {
        let next = state.withLock { state -> (Response<Data>, ExecutionContext)? in
            if state.isStopped { return nil }
            let context = state.context ?? self.context
            if isLast { state.isSourceFinished = true }
            if state.isCompleting {
                state.pending.append((response, context))
                return nil
            }
            state.isCompleting = true
            return (response, context)
        }
        if let (response, context) = next { runCompletion(response, context) }
    }

    private func runCompletion(_ response: Response<Data>, _ context: ExecutionContext) {
        guard !interceptors.completion.isEmpty else { return deliver(response, context) }
        InterceptorLoop(
            interceptors: interceptors.completion, host: self, stage: .completion(response, context),
            cause: response.error
        ) { $0.intercept(chain: $1, response: response) }
        .run(context: context)
    }

    /// Hands an outcome that passed the completion interceptors on, then takes the next.
    ///
    /// The last outcome, if it is a value, settles the execution first (see
    /// `Execution.settle()`): however long the subscriber then takes, and even if it
    /// calls `cancelAll()` itself, neither the timeout nor a cancel can follow the value.
    /// If one of them won that race, the value is not delivered: it ends the execution.
    private func deliver(_ response: Response<Data>, _ context: ExecutionContext) {
        if response.isSuccess, isLastOutcome, !execution.settle() { return }
        output.attempt(number, produced: response, context: context)
        nextOutcome()
    }

    /// Whether nothing can follow the outcome being completed: the source stages are done
    /// and no other outcome waits.
    private var isLastOutcome: Bool {
        state.withLock { !$0.isStopped && $0.isSourceFinished && $0.pending.isEmpty }
    }

    /// Takes the next queued outcome, or ends the attempt if the source is done.
    private func nextOutcome() {
        enum Next {
            case complete(Response<Data>, ExecutionContext)
            case finish
            case wait
        }
        let next = state.withLock { state -> Next in
            if state.isStopped { return .wait }
            if !state.pending.isEmpty {
                let (response, context) = state.pending.removeFirst()
                return .complete(response, context)
            }
            state.isCompleting = false
            return state.isSourceFinished ? .finish : .wait
        }
        switch next {
        case .complete(let response, let context): runCompletion(response, context)
        case .finish: output.attemptFinished(number)
        case .wait: break
        }
    }
}

extension Attempt.Step {
    /// The same hop, sending `request` (a transfer's, with its range).
    func with(_ request: URLRequest) -> Attempt.Step {
        Attempt.Step(request: request, context: context, hops: hops)
    }
}
