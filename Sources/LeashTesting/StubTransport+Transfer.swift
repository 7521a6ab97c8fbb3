import Foundation
import Leash
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension StubTransport {
    /// Answers a transfer with the next scripted response, step by step on the
    /// transport's scheduler (in virtual time on a `TestScheduler`): the request's body in
    /// `progressSteps` upload steps, the head after the response's `delay`, the body in as
    /// many download steps (or in its scripted `chunks`), then the end. A file
    /// destination gets the body written (from where a `Range` asks, if the response
    /// `acceptsRanges`); a stream destination gets each step's bytes as a `.body` chunk,
    /// and stays open after the last one if the response `keepsOpen`; a response that
    /// `dropsAfter` some bytes keeps those (in the file too) and fails with
    /// `URLError.networkConnectionLost`.
    public func transfer(_ request: TransportRequest) -> Observable<TransportEvent> {
        let carried = Carried(request.urlRequest)
        let scheduler = self.scheduler ?? StubTransport.defaultScheduler
        return Observable.deferred { [self] in
            let response = nextResponse(for: carried.value)
            let steps: [StubStep]
            do {
                steps = try StubScript(request: request, response: response).steps()
            } catch {
                return .error(error)
            }
            return StubStep.play(steps, on: scheduler)
        }
    }

    /// Where transfers' steps run without a scheduler of the stub's own.
    static let defaultScheduler = ConcurrentDispatchQueueScheduler(qos: .default)
}

/// One step of a scripted transfer: after `delay` (from the previous step), `action`
/// runs and says what to report.
struct StubStep: @unchecked Sendable {
    // @unchecked: the actions only touch the step's own file writer, one step at a time.
    let delay: TimeInterval?
    let action: () throws -> [Event<TransportEvent>]

    /// Runs `steps` one after another on `scheduler`; an action that throws fails the
    /// transfer; disposing stops it.
    static func play(_ steps: [StubStep], on scheduler: SchedulerType) -> Observable<TransportEvent> {
        Observable.create { observer in
            let player = StubPlayer(steps: steps, scheduler: scheduler, observer: observer)
            player.run(0)
            return player.current
        }
    }
}

/// Plays the steps of one scripted transfer, each after the previous one.
private final class StubPlayer: @unchecked Sendable {
    // @unchecked: immutable; `current` is thread-safe.
    let steps: [StubStep]
    let scheduler: SchedulerType
    let observer: AnyObserver<TransportEvent>
    let current = SerialDisposable()

    init(steps: [StubStep], scheduler: SchedulerType, observer: AnyObserver<TransportEvent>) {
        self.steps = steps
        self.scheduler = scheduler
        self.observer = observer
    }

    func run(_ index: Int) {
        guard index < steps.count, !current.isDisposed else { return }
        let step = steps[index]
        guard let delay = step.delay, delay > 0 else {
            perform(step, index)
            return
        }
        current.disposable = scheduler.scheduleRelative((), dueTime: .fromSeconds(delay)) { [self] _ in
            perform(step, index)
            return Disposables.create()
        }
    }

    private func perform(_ step: StubStep, _ index: Int) {
        guard !current.isDisposed else { return }
        let events: [Event<TransportEvent>]
        do {
            events = try step.action()
        } catch {
            observer.onError(error)
            return
        }
        for event in events { observer.on(event) }
        if !events.contains(where: { $0.isStopEvent }) { run(index + 1) }
    }
}

/// The steps of one scripted transfer.
private struct StubScript {
    let request: TransportRequest
    let response: StubResponse

    func steps() throws -> [StubStep] {
        var urlRequest = request.urlRequest
        let requestedOffset = TransferBodyPlan.requestRange(for: request.destination, in: &urlRequest)
        let outcome = response.makeOutcome(for: urlRequest)
        var steps = try uploadSteps(urlRequest)
        let answer: TransportResponse
        switch outcome {
        case .failure(let error):
            steps.append(StubStep(delay: response.delay) { [.error(error)] })
            return steps
        case .success(let scripted):
            answer = ranged(scripted, requestedOffset: requestedOffset, urlRequest: urlRequest)
        }
        let body = answer.data
        let cut = response.dropsAfter.map { min($0, body.count) }
        let delivered = cut ?? body.count
        let status = answer.httpResponse.statusCode
        let writes = request.destination.isFile && TransferBodyPlan.writesToFile(status: status)
        let streams = request.destination == .stream && TransferBodyPlan.streamsBody(status: status)
        let file = FileSteps(
            destination: request.destination, head: answer.httpResponse, requestedOffset: requestedOffset)
        steps.append(
            StubStep(delay: response.delay) {
                if writes { try file.open() }
                return [.next(.response(answer.httpResponse))]
            })
        let expected = Int64(body.count) + (writes ? file.startOffset : 0)
        // An error page a download keeps in memory reports no progress (see
        // `TransferTask.reportsBodyProgress`).
        let reports = request.reportsProgress && (writes || !request.destination.isFile)
        var sent = 0
        for (index, end) in response.chunkEnds(forBodyOf: body.count).enumerated() {
            let upTo = min(delivered, end)
            let chunk = body.subdata(in: min(sent, upTo)..<upTo)
            sent = max(sent, upTo)
            steps.append(
                StubStep(delay: index == 0 ? nil : response.progressInterval) {
                    if writes { try file.write(chunk) }
                    var events: [Event<TransportEvent>] = []
                    if streams, !chunk.isEmpty { events.append(.next(.body(chunk))) }
                    if reports {
                        events.append(
                            .next(
                                .downloadProgress(
                                    TransferProgress(
                                        completedBytes: (writes ? file.startOffset : 0) + Int64(upTo),
                                        expectedBytes: expected))))
                    }
                    return events
                })
        }
        if cut != nil {
            steps.append(
                StubStep(delay: nil) {
                    if writes { try file.close() }
                    return [.error(LeashError.transport(URLError(.networkConnectionLost)))]
                })
        } else if streams && response.keepsOpen {
            // The connection stays open: the stream ends when it is disposed.
        } else {
            steps.append(
                StubStep(delay: nil) {
                    if streams {
                        let head = TransportResponse(httpResponse: answer.httpResponse, data: Data())
                        return [.next(.completed(head)), .completed]
                    }
                    guard writes, let url = file.url else { return [.next(.completed(answer)), .completed] }
                    try file.close()
                    return [
                        .next(.completed(TransportResponse(httpResponse: answer.httpResponse, file: url))), .completed,
                    ]
                })
        }
        return steps
    }

    /// The request's body sent in `progressSteps` steps.
    private func uploadSteps(_ urlRequest: URLRequest) throws -> [StubStep] {
        let size: Int64
        switch request.body {
        case .inRequest:
            size = Int64(urlRequest.httpBody?.count ?? 0)
        case .file(let url):
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                throw LeashError.fileAccess(
                    reason: "the upload's file does not exist or cannot be read", url: url, underlying: nil)
            }
            size = BodyFileWriter.existingSize(of: url)
        }
        guard size > 0, request.reportsProgress else { return [] }
        let count = response.progressSteps
        return (1...count).map { step in
            let progress = TransferProgress(completedBytes: size * Int64(step) / Int64(count), expectedBytes: size)
            return StubStep(delay: step == 1 ? nil : response.progressInterval) { [.next(.uploadProgress(progress))] }
        }
    }

    /// `scripted`, or its `206 Partial Content` from `requestedOffset` if the response
    /// accepts ranges.
    private func ranged(_ scripted: TransportResponse, requestedOffset: Int64, urlRequest: URLRequest)
        -> TransportResponse
    {
        let total = scripted.data.count
        guard response.acceptsRanges, requestedOffset > 0, requestedOffset < total,
            scripted.httpResponse.statusCode == 200, let url = urlRequest.url
        else { return scripted }
        var headers = response.headers
        headers["Content-Range"] = "bytes \(requestedOffset)-\(total - 1)/\(total)"
        let partial = HTTPURLResponse(
            url: url, statusCode: 206, httpVersion: "HTTP/1.1", headerFields: headers.dictionary)
        guard let partial else { return scripted }
        return TransportResponse(httpResponse: partial, data: scripted.data.subdata(in: Int(requestedOffset)..<total))
    }
}

/// The destination file of a scripted transfer, written step by step.
private final class FileSteps: @unchecked Sendable {
    // @unchecked: used by one step at a time (the steps run one after another).
    private let destination: TransportRequest.Destination
    private let head: HTTPURLResponse
    private let requestedOffset: Int64
    private var writer: BodyFileWriter?

    init(destination: TransportRequest.Destination, head: HTTPURLResponse, requestedOffset: Int64) {
        self.destination = destination
        self.head = head
        self.requestedOffset = requestedOffset
    }

    var url: URL? {
        if case .file(let url) = destination { return url }
        return nil
    }

    /// What the file keeps from before (known once opened; the offset asked for until then).
    var startOffset: Int64 { writer?.startOffset ?? (head.statusCode == 206 ? requestedOffset : 0) }

    func open() throws {
        guard let url else { return }
        writer = try BodyFileWriter(url: url, head: head, requestedOffset: requestedOffset)
    }

    func write(_ data: Data) throws {
        try writer?.write(data)
    }

    func close() throws {
        try writer?.close()
        writer = nil
    }
}

extension TransportRequest.Destination {
    /// Whether the body goes to a file.
    var isFile: Bool {
        if case .file = self { return true }
        return false
    }
}
