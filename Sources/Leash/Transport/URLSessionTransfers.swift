import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session of `URLSessionTransport` for transfers: a delegate-based session whose
/// tasks report their bytes as they move (upload tasks streaming a file, data tasks whose
/// body is counted and written to memory or to a file as it arrives).
///
/// Plain requests do not come here: they have a session and a delegate of their own
/// (`PlainSessionDelegate`), without progress, files or streams to keep.
///
/// Delegate callbacks run where URLSession runs them (in place on Linux, on URLSession's
/// work queue, where nothing may wait for that queue); each task's events are handed on,
/// in order, to one of the transport's delivery queues, where the body is written and the
/// pipeline runs. The `didReceive response` decision is given at once, on the spot.
final class TransferSession: @unchecked Sendable {
    // @unchecked: `session` is thread-safe; `delegate` keeps its own state behind a lock.
    let session: URLSession
    private let delegate: TransferDelegate
    /// Where URLSession does not expire cookies itself (Linux), the expiry of the
    /// session's cookies; nil elsewhere.
    private let cookieExpiry: CookieExpiry?

    init(
        configuration: URLSessionConfiguration, trust: ServerTrust, cancelQueue: DispatchQueue,
        delegateQueue: OperationQueue
    ) {
        delegate = TransferDelegate(trust: trust, cancelQueue: cancelQueue)
        cookieExpiry = CookieExpiry(configuration: configuration)
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Prepares `request`, reporting to `observer` on `deliveryQueue`; the returned
    /// request sends it on `launch()`, and cancels it when disposed. A session made for
    /// this one request (a stream's) is kept alive by it until it ends, and then
    /// invalidated.
    func prepare(
        _ request: TransportRequest, options: DirectRequestOptions, deliveryQueue: DispatchQueue,
        cancelQueue: DispatchQueue, observer: AnyObserver<TransportEvent>, ownsSession: Bool = false,
        slowSubscribers: SlowSubscriberPolicy = .platformDefault
    ) -> PreparedRequest {
        let state = TaskState(cancelQueue: cancelQueue, place: options.place)
        var urlRequest = request.urlRequest
        let requestedOffset = TransferBodyPlan.requestRange(for: request.destination, in: &urlRequest)
        /// The body's size, when URLSession may not know it (a stream).
        var uploadSize: Int64 = 0
        /// How the task is made, once it is launched.
        enum Kind {
            case data
            case uploadFromFile(URL)
        }
        var kind = Kind.data
        if case .file(let url) = request.body {
            uploadSize = BodyFileWriter.existingSize(of: url)
            // Checked here: URLSession reports a missing file late, or not clearly.
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                state.dispose()
                observer.onError(
                    LeashError.fileAccess(
                        reason: "the upload's file does not exist or cannot be read", url: url, underlying: nil))
                return state
            }
            if URLSessionPlatform.current.streamsUploadFiles {
                // Not `uploadTask(with:fromFile:)`: on Linux its file source pauses the
                // transfer until a read completes and then resumes it with a forced `try`,
                // which crashes the process when the server dropped the connection
                // meanwhile (libcurl error 43; 1 in 5 uploads cut by the server). A stream body is
                // read as it is sent, without pausing.
                guard let stream = InputStream(url: url) else {
                    state.dispose()
                    observer.onError(
                        LeashError.fileAccess(reason: "the upload's file cannot be opened", url: url, underlying: nil))
                    return state
                }
                if urlRequest.value(forHTTPHeaderField: "Content-Length") == nil {
                    urlRequest.setValue(String(uploadSize), forHTTPHeaderField: "Content-Length")
                }
                // A stream's length is unknown to URLSession, so libcurl would send it
                // chunked, next to the Content-Length (a request servers refuse). A
                // Transfer-Encoding of only a space is how libcurl is told to send no
                // Transfer-Encoding and no chunks: the body goes out as it is, framed by
                // its Content-Length (checked by a test against the loopback server).
                if urlRequest.value(forHTTPHeaderField: "Transfer-Encoding") == nil {
                    urlRequest.setValue(" ", forHTTPHeaderField: "Transfer-Encoding")
                }
                urlRequest.httpBodyStream = stream
            } else {
                kind = .uploadFromFile(url)
            }
        }
        let output = TransferOutput(observer)
        let transfer = TransferTask(
            destination: request.destination, reportsProgress: request.reportsProgress,
            requestedOffset: requestedOffset, uploadSize: uploadSize, state: state, credentials: options.credentials,
            deliveryQueue: deliveryQueue, observer: output, session: ownsSession ? self : nil,
            slowSubscribers: slowSubscribers, cookieExpiry: cookieExpiry)
        let session = self.session
        let delegate = self.delegate
        let finalRequest = Carried(urlRequest)
        let cookieExpiry = self.cookieExpiry
        state.prepare {
            // Linux: no expired cookie is sent (the task takes its cookies when created).
            cookieExpiry?.dropExpiredCookiesIfDue()
            let task: URLSessionTask
            switch kind {
            case .data: task = session.dataTask(with: finalRequest.value)
            case .uploadFromFile(let url): task = session.uploadTask(with: finalRequest.value, fromFile: url)
            }
            delegate.register(transfer, for: task)
            return task
        }
        return PreparedTransfer(state: state, backlog: transfer.streamBacklog, output: output)
    }
}

/// A prepared transfer: its task, and what disposing it lets go of at once.
private struct PreparedTransfer: PreparedRequest {
    let state: TaskState
    let backlog: StreamBacklog?
    let output: TransferOutput

    var streamPacing: StreamPacing? { backlog }

    func launch() {
        state.launch()
    }

    func dispose() {
        state.dispose()
        // URLSession's queue may be waiting for the subscriber: it need not any more.
        backlog?.close()
        // Let go of the subscriber now, not when URLSession gets round to reporting the
        // cancelled task (seconds, behind a fast stream's chunks).
        output.release()
    }
}

/// A transfer's observer until the transfer is disposed, then nothing: the subscription it
/// leads to is freed at once, whatever still holds the transfer.
final class TransferOutput: Sendable {
    private let observer: LockedState<AnyObserver<TransportEvent>?>

    init(_ observer: AnyObserver<TransportEvent>) {
        self.observer = LockedState(observer)
    }

    func on(_ event: Event<TransportEvent>) {
        // Called outside the lock: the subscriber's code runs there.
        observer.withLock { $0 }?.on(event)
    }

    func release() {
        let released = observer.withLock { observer -> AnyObserver<TransportEvent>? in
            defer { observer = nil }
            return observer
        }
        // Freed outside the lock: freeing the subscription may run code of its own.
        withExtendedLifetime(released) {}
    }
}

/// Routes the session's delegate callbacks to each task's `TransferTask`.
///
/// Like the plain session's delegate (`PlainSessionDelegate`), it declines every redirect
/// (Leash's pipeline follows them), and it hands each task its metrics and trust failure.
final class TransferDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: `NSObject` is not `Sendable`; the transfers are behind their lock, and
    // `trust` and `cancelQueue` are immutable.
    /// Each task's transfer, by task identifier.
    private let transfers = LockedState<[Int: TransferTask]>([:])
    /// How servers' certificates are judged, per host (Apple platforms).
    let trust: ServerTrust
    /// Where challenges are answered: off URLSession's queue (see `ChallengeAnswers`).
    private let cancelQueue: DispatchQueue

    init(trust: ServerTrust, cancelQueue: DispatchQueue) {
        self.trust = trust
        self.cancelQueue = cancelQueue
    }

    func register(_ transfer: TransferTask, for task: URLSessionTask) {
        transfers.withLock { $0[task.taskIdentifier] = transfer }
    }

    /// Forgets the transfer of a task that will never report.
    func unregister(_ task: URLSessionTask) {
        _ = transfer(for: task, removing: true)
    }

    func transfer(for task: URLSessionTask, removing: Bool = false) -> TransferTask? {
        transfers.withLock { removing ? $0.removeValue(forKey: task.taskIdentifier) : $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        transfer(for: task)?.sent(totalBytesSent, of: totalBytesExpectedToSend)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        transfer(for: dataTask)?.received(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer(for: dataTask)?.received(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping (InputStream?) -> Void
    ) {
        // As `PlainSessionDelegate` does: URLSession would send the request again on its own.
        transfer(for: task)?.refusedResend()
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Swift.Error?) {
        transfer(for: task, removing: true)?.completed(error, response: task.response)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        transfer(for: task)?.metrics = TransportMetrics(metrics)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // On the session's delegate queue, like the task's other calls.
        let transfer = transfer(for: task)
        let answers = ChallengeAnswers(
            trust: trust, credentials: transfer?.credentials ?? .none, cancelQueue: cancelQueue)
        answers.answer(
            challenge, task: task, completionHandler,
            trustFailed: { transfer?.trustFailure = $0 },
            deliverResponse: {
                transfer?.completed(nil, response: challenge.failureResponse ?? task.response, taskEnded: false)
            },
            resending: { transfer?.resending() })
    }
}

/// One transfer: its body kept where URLSession hands it over (in memory, or written to
/// the destination file), and its events handed to its delivery queue, in order, where
/// the pipeline runs.
///
/// A body in memory is kept in place, on URLSession's queue, which calls one delegate
/// method at a time. A download's chunks are written to its file on a queue of the
/// task's own, so that receiving and writing overlap, with at most `backlogLimit` bytes
/// waiting: beyond that, URLSession's queue waits for the writes (a queue that runs
/// nothing but them, so the wait always ends), which slows the connection down instead of
/// growing memory (handing every chunk to the delivery queue, behind the subscriber, let
/// 40–70 MB pile up for a 100 MB download). Progress crosses to the delivery queue at most
/// once per `ProgressHops.interval`, the latest one at the end of each interval. `state`
/// decides, once, between finishing and cancelling (after a dispose nothing is reported).
///
/// A stream's chunks cross to its delivery queue (its own: see
/// `URLSessionTransport.transfer(_:)`) as they arrive, with at most the policy's limit
/// waiting for the subscriber: beyond that, URLSession's queue waits for it (which stops
/// reading from the socket, so TCP slows the server down), and a subscriber stuck for too
/// long ends the stream (see `SlowSubscriberPolicy`), instead of memory growing.
final class TransferTask: @unchecked Sendable {
    // @unchecked: `head`, `body`, `writer` (until handed to `writes`), `writes`,
    // `receivedBytes`, `expectedBytes` and `failure` are only touched on URLSession's
    // queue, one delegate call at a time; the writer and `writeError` then only on
    // `writes`; `hops` is behind its own lock; `backlog` and `writeFailed` are atomics (a
    // byte count and a flag, each read and changed alone, from two queues).

    /// The most bytes of a download waiting to be written before URLSession's queue waits.
    static let backlogLimit = 2 * 1024 * 1024
    private let destination: TransportRequest.Destination
    private let reportsProgress: Bool
    private let requestedOffset: Int64
    /// The body's size, if known to Leash (a file's), for progress URLSession cannot size.
    private let uploadSize: Int64
    private let state: TaskState
    /// How the task answers authentication challenges.
    let credentials: CredentialHandling
    private let deliveryQueue: DispatchQueue
    private let observer: TransferOutput
    private let hops = LockedState(ProgressHops())
    /// A stream's chunks waiting for the subscriber; nil unless the destination is `.stream`.
    let streamBacklog: StreamBacklog?
    /// The session made for this transfer alone (a stream's), kept until it ends.
    private let session: TransferSession?
    /// Applies the `Max-Age` of the cookies the response sets, where URLSession does not.
    private let cookieExpiry: CookieExpiry?
    /// Whether the body is handed on in chunks (a stream's success).
    private var streams = false
    /// What URLSession measured, where it does (before the task completes).
    var metrics: TransportMetrics?
    /// Why the trust policy stopped the task, which then ends as cancelled.
    var trustFailure: LeashError?

    private var head: HTTPURLResponse?
    private var body = Data()
    private var writer: BodyFileWriter?
    private var receivedBytes: Int64 = 0
    private var expectedBytes: Int64?
    /// Set when keeping the body failed: the task is cancelled and this is the error.
    private var failure: Swift.Error?
    /// Where a download's chunks are written, in order.
    private var writes: DispatchQueue?
    /// Bytes handed to `writes` and not written yet.
    private let backlog = AtomicInt(0)
    /// 1 once a write failed (on `writes`): later chunks are dropped.
    private let writeFailed = AtomicInt(0)
    /// The failed write's error (on `writes`).
    private var writeError: Swift.Error?

    init(
        destination: TransportRequest.Destination, reportsProgress: Bool, requestedOffset: Int64, uploadSize: Int64,
        state: TaskState, credentials: CredentialHandling, deliveryQueue: DispatchQueue, observer: TransferOutput,
        session: TransferSession?, slowSubscribers: SlowSubscriberPolicy, cookieExpiry: CookieExpiry?
    ) {
        self.session = session
        self.credentials = credentials
        self.cookieExpiry = cookieExpiry
        streamBacklog =
            destination == .stream
            ? StreamBacklog(
                slowSubscribers,
                holding: URLSessionPlatform.current.sharesOneWorkQueue ? .byWaiting : .bySuspending(state))
            : nil
        self.destination = destination
        self.reportsProgress = reportsProgress
        self.requestedOffset = requestedOffset
        self.uploadSize = uploadSize
        self.state = state
        self.deliveryQueue = deliveryQueue
        self.observer = observer
        streamBacklog?.whenSuspendedTooLong { [weak self] bufferedBytes in
            self?.overflowWhileSuspended(bufferedBytes)
        }
    }

    // MARK: On URLSession's queue

    /// A challenge was answered with a credential: the request goes again, and what came
    /// so far (a 401's head and body, kept in memory) is not the answer.
    func resending() {
        guard writer == nil, !streams else { return }
        head = nil
        body = Data()
        receivedBytes = 0
    }

    func sent(_ total: Int64, of reported: Int64) {
        // Not after the task finished (or a challenge's answer ended it): the progress
        // handed on from here may go out after URLSession finished the task, so it must all
        // be offered before that end.
        guard reportsProgress, failure == nil, state.isRunning else { return }
        let expected = reported > 0 ? reported : uploadSize
        report(.uploadProgress(TransferProgress(completedBytes: total, expectedBytes: expected > 0 ? expected : nil)))
    }

    func received(_ response: URLResponse) {
        // Linux: the Max-Age of the cookies it sets (see CookieExpiry), even if cancelled.
        cookieExpiry?.applyMaxAge(of: response)
        guard state.isRunning, failure == nil else { return }
        guard let http = response as? HTTPURLResponse else {
            fail(LeashError.invalidResponse(reason: "the response is not HTTP"))
            return
        }
        head = http
        let length = http.expectedContentLength
        if case .file(let url) = destination, TransferBodyPlan.writesToFile(status: http.statusCode) {
            do {
                let writer = try BodyFileWriter(url: url, head: http, requestedOffset: requestedOffset)
                self.writer = writer
                writes = DispatchQueue(label: "leash.urlsession.download-writes")
                receivedBytes = writer.startOffset
                expectedBytes = length >= 0 ? writer.startOffset + length : nil
            } catch {
                fail(error)
                return
            }
        } else {
            streams = destination == .stream && TransferBodyPlan.streamsBody(status: http.statusCode)
            expectedBytes = length >= 0 ? length : nil
        }
        hand([.next(.response(http))], when: streams ? .unlessCancelled : .whileRunning)
    }

    func received(_ data: Data) {
        guard state.isRunning, failure == nil, writeFailed.load() == 0 else { return }
        if let writer, let writes {
            let count = data.count
            // Too much waiting to be written: wait for it here, which slows the connection.
            if backlog.add(count) > Self.backlogLimit { writes.sync {} }
            writes.async { [self] in
                defer { _ = backlog.add(-count) }
                guard writeFailed.load() == 0 else { return }
                do {
                    try writer.write(data)
                } catch {
                    writeFailed.store(1)
                    writeError = error
                    writer.abandon()
                    if state.abort() { hand([.error(error)]) }
                }
            }
        } else if streams, let streamBacklog {
            handChunk(data, streamBacklog)
        } else if destination == .stream, body.count + data.count > TransferBodyPlan.errorBodyLimit {
            // An error page of a stream that does not end: its beginning is the answer.
            body.append(data.prefix(TransferBodyPlan.errorBodyLimit - body.count))
            finish(state.abort(), nil, response: nil)
            return
        } else {
            body.append(data)
        }
        receivedBytes += Int64(data.count)
        if reportsBodyProgress {
            report(.downloadProgress(TransferProgress(completedBytes: receivedBytes, expectedBytes: expectedBytes)))
        }
    }

    /// The task ended; `response` is the task's own, for a head the delegate was never
    /// given (FoundationNetworking does not report a 3xx's head to the delegate, even
    /// when the 3xx is the final response, with no `Location` to follow).
    ///
    /// Also called when a challenge is left unanswered on Linux (the response that carried
    /// it is the answer; the task is cancelled after, and its completion then only gives
    /// the task's place back).
    func completed(_ error: Swift.Error?, response: URLResponse?, taskEnded: Bool = true) {
        // The task is over at URLSession: its place is free.
        if taskEnded { state.ended() }
        if failure != nil { return }
        if head == nil, let response = response as? HTTPURLResponse {
            head = response
            cookieExpiry?.applyMaxAge(of: response)  // a head `received(_:)` never saw (a 3xx's)
        }
        let finished = state.finish()
        guard let writer, let writes else {
            finish(finished, error, response: nil)
            return
        }
        // After the chunks still waiting to be written.
        writes.async { [self] in
            if let writeError {
                // The write failed after URLSession finished: the failure is the outcome.
                if finished { hand([.error(writeError)]) }
                return
            }
            guard finished, error == nil else {
                writer.abandon()
                finish(finished, error, response: nil)
                return
            }
            do {
                try writer.close()
            } catch {
                hand([.error(error)])
                return
            }
            // The head was set before the first chunk was handed over (a writer is made
            // from it): reading it here follows that write.
            guard let head else { return finish(finished, nil, response: nil) }
            finish(finished, nil, response: TransportResponse(httpResponse: head, file: writer.url))
        }
    }

    /// Reports the end: `error`, or the response (`file`'s, else the body in memory).
    private func finish(_ finished: Bool, _ error: Swift.Error?, response fileResponse: TransportResponse?) {
        guard finished else { return }
        if let error {
            hand([.error(trustFailure ?? URLSessionTransport.leashError(for: error))])
            return
        }
        guard let head else {
            hand([.error(LeashError.invalidResponse(reason: "the transfer ended without a response"))])
            return
        }
        var response: TransportResponse
        if let fileResponse {
            response = fileResponse
        } else {
            response = TransportResponse(httpResponse: head, data: body)
            body = Data()
        }
        response.metrics = metrics
        var events: [Event<TransportEvent>] = []
        // Progress held back for a report that will now find the task finished.
        if let held = hops.takeLatest() { events.append(.next(held)) }
        if reportsBodyProgress {
            // The last progress always reports every byte.
            events.append(
                .next(.downloadProgress(TransferProgress(completedBytes: receivedBytes, expectedBytes: receivedBytes))))
        }
        events.append(.next(.completed(response)))
        events.append(.completed)
        hand(events)
    }

    /// Whether the body's progress is reported: not for an error page that a download
    /// keeps in memory (its progress bar would fill just before the failure).
    private var reportsBodyProgress: Bool {
        guard reportsProgress else { return false }
        if case .file = destination { return writes != nil }
        return true
    }

    /// URLSession asked for the body again, to send the request a second time on its own
    /// (see `URLSessionTransport.resendRefused`): the transfer fails instead.
    func refusedResend() {
        fail(URLSessionTransport.resendRefused)
    }

    /// Keeping the body failed (the file could not be written): the task is cancelled and
    /// the transfer fails with `error`, once.
    private func fail(_ error: Swift.Error) {
        guard failure == nil else { return }
        failure = error
        writer?.abandon()
        writer = nil
        guard state.abort() else { return }
        hand([.error(error)])
    }

    // MARK: Hand-offs

    /// Reports `progress` now if an interval passed since the last report, else at the end
    /// of the interval (the latest progress by then).
    private func report(_ progress: TransportEvent) {
        switch hops.offer(progress) {
        case .now(let isComplete):
            // The complete progress (every byte) is the last one the app sees: it must go
            // out even if URLSession finished the task before the delivery queue got to it
            // (an upload's last bytes are sent just before its answer arrives, and the
            // task's end is handed on behind it, so it still comes before that end).
            hand([.next(progress)], when: isComplete ? .unlessCancelled : .whileRunning)
        case .later(let due):
            deliveryQueue.asyncAfter(deadline: due) { [self] in
                // Taken even from a task that finished meanwhile (its end, handed on
                // behind this, then finds nothing held back): dropped only after a cancel.
                guard let latest = hops.takeLatest(), !state.isCancelled else { return }
                observer.on(.next(latest))
            }
        case .pending:
            break
        }
    }

    /// Hands a stream's `chunk` to the delivery queue, then waits while too much is
    /// waiting there (see `StreamBacklog`).
    private func handChunk(_ chunk: Data, _ backlog: StreamBacklog) {
        let count = chunk.count
        deliveryQueue.async { [self] in
            defer { backlog.delivered(count) }
            // Delivered even if the task finished meanwhile (its end is queued behind).
            if !state.isCancelled { observer.on(.next(.body(chunk))) }
        }
        if let overflow = backlog.add(count) { fail(LeashError.streamOverflow(bufferedBytes: overflow)) }
    }

    /// Ends a suspended stream whose subscriber took nothing for the longest hold (from
    /// `StreamBacklog`'s timer, while URLSession calls no delegate method of the task).
    private func overflowWhileSuspended(_ bufferedBytes: Int) {
        if state.abort() { hand([.error(LeashError.streamOverflow(bufferedBytes: bufferedBytes))]) }
    }

    /// When a handed event still goes out.
    private enum Handing {
        /// Always (a failure, the end).
        case always
        /// While the task runs: progress and a transfer's head no longer matter after a
        /// dispose or the end.
        case whileRunning
        /// Unless the task was cancelled: a stream's head must come before its chunks
        /// even if the task finished before the delivery queue got to it.
        case unlessCancelled
    }

    /// Hands `events` to the delivery queue, to go out as `when` says.
    private func hand(_ events: [Event<TransportEvent>], when: Handing = .always) {
        let carried = Carried(events)
        deliveryQueue.async { [self] in
            switch when {
            case .always: break
            case .whileRunning: if !state.isRunning { return }
            case .unlessCancelled: if state.isCancelled { return }
            }
            for event in carried.value { observer.on(event) }
        }
    }
}

/// When a transfer's progress crosses to its delivery queue: at most once per
/// `interval`, and the latest one at the end of an interval in which some was held back.
///
/// A plain value kept behind its transfer's `LockedState`, which decides under the lock
/// (the `LockedState` methods below).
private struct ProgressHops {
    /// The shortest time between two reports: well under the pipeline's own throttle
    /// (`ProgressThrottle`), so that it still chooses which to report, and short enough
    /// that an idle limit counts from within 25 ms of the last byte.
    static let interval: UInt64 = 25_000_000

    enum Decision {
        /// Report this one now; `isComplete` if it reports every byte.
        case now(isComplete: Bool)
        /// Report the latest at `due` (a report is scheduled for then).
        case later(DispatchTime)
        /// A report is already scheduled; it will carry this one if nothing newer comes.
        case pending
    }

    private var lastReport: UInt64 = 0
    private var latest: TransportEvent?
    private var isScheduled = false

    /// What to do with `progress`, offered at `now` (nanoseconds of uptime).
    mutating func offer(_ progress: TransportEvent, isComplete: Bool, at now: UInt64) -> Decision {
        if isComplete {
            // Every byte: reported at once, and nothing older after it.
            latest = nil
            lastReport = now
            return .now(isComplete: true)
        }
        if isScheduled {
            latest = progress
            return .pending
        }
        if now &- lastReport >= Self.interval {
            lastReport = now
            return .now(isComplete: false)
        }
        latest = progress
        isScheduled = true
        return .later(DispatchTime(uptimeNanoseconds: lastReport &+ Self.interval))
    }

    /// The progress held back for the scheduled report, if any, taken at `now`.
    mutating func takeLatest(at now: UInt64) -> TransportEvent? {
        isScheduled = false
        lastReport = now
        defer { latest = nil }
        return latest
    }
}

extension LockedState where State == ProgressHops {
    /// What to do with `progress` (see `ProgressHops.Decision`).
    fileprivate func offer(_ progress: TransportEvent) -> ProgressHops.Decision {
        let now = DispatchTime.now().uptimeNanoseconds
        let isComplete: Bool
        switch progress {
        case .uploadProgress(let value), .downloadProgress(let value): isComplete = value.isComplete
        default: isComplete = false
        }
        return withLock { $0.offer(progress, isComplete: isComplete, at: now) }
    }

    /// The progress held back for the scheduled report, if any.
    fileprivate func takeLatest() -> TransportEvent? {
        let now = DispatchTime.now().uptimeNanoseconds
        return withLock { $0.takeLatest(at: now) }
    }
}
