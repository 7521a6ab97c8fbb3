import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The delegate of `URLSessionTransport`'s session for plain requests: each task's head,
/// body chunks, metrics, challenges and completion come here and go to the task's
/// `PlainTask`. It:
/// - declines every redirect, so the 3xx is the task's response: Leash's pipeline follows
///   redirects itself (see `RedirectPolicy`), keeping a 307/308's body, which URLSession
///   on Linux drops;
/// - answers authentication challenges as the request's `CredentialHandling` says (by
///   default not at all: the 401 or 407 is the response, on every platform), and server
///   trust with the transport's `ServerTrustPolicy` for the host (Apple platforms: see
///   `Trust/ServerTrustPolicy.swift`);
/// - keeps the metrics URLSession collects for a task (Apple platforms), for the answer.
///
/// Delegate-based tasks rather than completion handlers: FoundationNetworking gives a
/// task's delegate the head and body of a 401 before it asks about its challenge, where a
/// completion-handler task's body would be lost (see Docs/URLSession-on-Linux.md), and a
/// task's metrics and completion meet in one place. FoundationNetworking asks a session's
/// delegate, not one given to a task alone.
///
/// `TransferDelegate` declines redirects and takes metrics the same way, in a few lines of
/// its own rather than from a shared superclass: on Linux a subclass's delegate methods
/// are not seen through a protocol conformance its superclass declared (the superclass's
/// defaults answer instead), and splitting the conformance would need `@objc` on Apple
/// platforms, which Linux cannot compile.
final class PlainSessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: `NSObject` is not `Sendable`; the tasks are behind their lock, and
    // `trust` and `cancelQueue` are immutable.
    /// Each task's `PlainTask`, by task identifier.
    private let tasks = LockedState<[Int: PlainTaskEvents]>([:])
    /// How servers' certificates are judged, per host (Apple platforms).
    let trust: ServerTrust
    /// Where challenges are answered: off URLSession's queue (see `ChallengeAnswers`).
    private let cancelQueue: DispatchQueue

    init(trust: ServerTrust, cancelQueue: DispatchQueue) {
        self.trust = trust
        self.cancelQueue = cancelQueue
    }

    /// Routes `task`'s calls to `plain` until it completes.
    func register(_ plain: PlainTaskEvents, for task: URLSessionTask) {
        tasks.withLock { $0[task.taskIdentifier] = plain }
    }

    func plainTask(for task: URLSessionTask, removing: Bool = false) -> PlainTaskEvents? {
        tasks.withLock { removing ? $0.removeValue(forKey: task.taskIdentifier) : $0[task.taskIdentifier] }
    }

    /// How many tasks are routed (for tests: 0 once every task ended).
    var taskCount: Int { tasks.withLock { $0.count } }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        plainTask(for: dataTask)?.received(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        plainTask(for: dataTask)?.received(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping (InputStream?) -> Void
    ) {
        // URLSession would send the request again (see `URLSessionTransport.resendRefused`):
        // the task fails first, so no answer to a copy can reach the execution.
        plainTask(for: task)?.refusedResend()
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Swift.Error?) {
        plainTask(for: task, removing: true)?.completed(error, response: task.response)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        plainTask(for: task)?.collected(TransportMetrics(metrics))
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let plain = plainTask(for: task)
        let answers = ChallengeAnswers(trust: trust, credentials: plain?.credentials ?? .none, cancelQueue: cancelQueue)
        answers.answer(
            challenge, task: task, completionHandler,
            trustFailed: { plain?.trustFailed($0) },
            deliverResponse: { plain?.deliverChallenged(challenge.failureResponse ?? task.response) },
            resending: { plain?.resending() })
    }
}

/// What the session's delegate tells one plain task (see `PlainTask`).
protocol PlainTaskEvents: AnyObject, Sendable {
    /// How the task answers authentication challenges.
    var credentials: CredentialHandling { get }
    func received(_ response: URLResponse)
    func received(_ data: Data)
    func collected(_ metrics: TransportMetrics)
    func completed(_ error: Swift.Error?, response: URLResponse?)
    func trustFailed(_ error: LeashError)
    /// The task's answer is the response that carried a challenge left unanswered.
    func deliverChallenged(_ response: URLResponse?)
    /// A challenge was answered with a credential: the request goes again, and what came
    /// so far is not the answer.
    func resending()
    /// URLSession asked for the body again, to send the request a second time on its own:
    /// the task fails with `URLSessionTransport.resendRefused` instead.
    func refusedResend()
}

/// One plain request's task: its head and body as URLSession hands them over, its
/// metrics, and its one answer to `observer`, handed off URLSession's queue (to the
/// execution's task through `handoff`, else to a delivery queue).
///
/// Head, body and metrics are touched only by the session's delegate calls, which
/// URLSession makes one at a time for a task; the answer goes out once (`state` decides
/// between finishing and a cancel; `answered` between the completion, late metrics and
/// their deadline).
final class PlainTask<Observer: ObserverType & SendableMetatype>: PlainTaskEvents, @unchecked Sendable
where Observer.Element == TransportResponse {
    // @unchecked: `head`, `body`, `metrics`, `trustFailure` and `waitingForMetrics` are
    // touched only by the task's delegate calls, one at a time; the answer goes out once,
    // decided by `state` (behind its lock) and `answered` (an atomic); the rest is
    // immutable.
    let state: TaskState
    let credentials: CredentialHandling
    private let observer: Observer
    private let handoff: ResponseHandoff?
    private let deliveryQueue: DispatchQueue
    /// Whether URLSession reports metrics (see `URLSessionPlatform.collectsMetrics`).
    private let collectsMetrics: Bool
    /// Applies the `Max-Age` of the cookies the response sets, where URLSession does not.
    private let cookieExpiry: CookieExpiry?
    private var head: HTTPURLResponse?
    private var body = Data()
    private var metrics: TransportMetrics?
    private var trustFailure: LeashError?
    /// The response, when the completion came before the metrics (Apple platforms).
    private var waitingForMetrics: TransportResponse?
    /// 1 once the answer went out.
    private let answered = AtomicInt(0)

    /// How long an answer waits for metrics that URLSession reports after the completion:
    /// they usually follow within a millisecond; an answer never waits for them longer.
    static var metricsGrace: DispatchTimeInterval { .milliseconds(50) }

    init(
        state: TaskState, credentials: CredentialHandling, observer: Observer, handoff: ResponseHandoff?,
        deliveryQueue: DispatchQueue, cookieExpiry: CookieExpiry? = nil,
        collectsMetrics: Bool = URLSessionPlatform.current.collectsMetrics
    ) {
        self.collectsMetrics = collectsMetrics
        self.cookieExpiry = cookieExpiry
        self.state = state
        self.credentials = credentials
        self.observer = observer
        self.handoff = handoff
        self.deliveryQueue = deliveryQueue
    }

    func received(_ response: URLResponse) {
        // Linux: the Max-Age of the cookies it sets (see CookieExpiry).
        cookieExpiry?.applyMaxAge(of: response)
        // A new head (URLSession sent the request again with a credential) starts the
        // body over.
        head = response as? HTTPURLResponse
        body = Data()
    }

    func received(_ data: Data) {
        // Most bodies come in one piece: kept as it is, not copied.
        if body.isEmpty {
            body = data
        } else {
            body.append(data)
        }
    }

    func trustFailed(_ error: LeashError) {
        trustFailure = error
    }

    func resending() {
        // FoundationNetworking does not always report the next head to the delegate: the
        // task's own response is the head then.
        head = nil
        body = Data()
    }

    func refusedResend() {
        if state.abort() { report(.failure(URLSessionTransport.resendRefused)) }
    }

    func collected(_ metrics: TransportMetrics) {
        self.metrics = metrics
        guard var waiting = waitingForMetrics else { return }
        waitingForMetrics = nil
        waiting.metrics = metrics
        report(.response(waiting))
    }

    func completed(_ error: Swift.Error?, response: URLResponse?) {
        // The task is over at URLSession, finished or cancelled: its place is free.
        state.ended()
        // Only the first of completion and cancellation reports: after a dispose (or an
        // answer already given for a challenge), nothing is delivered.
        guard state.finish() else { return }
        if let error {
            // A task the trust policy stopped ends as cancelled: say why instead.
            return report(.failure(trustFailure ?? URLSessionTransport.leashError(for: error)))
        }
        // FoundationNetworking never gives a delegate a 3xx's head (not even a final one):
        // the task's own response is the head then.
        guard let http = head ?? (response as? HTTPURLResponse) else {
            return report(.failure(LeashError.invalidResponse(reason: "the response is not HTTP")))
        }
        if head == nil { cookieExpiry?.applyMaxAge(of: http) }
        let answer = takeResponse(head: http)
        guard collectsMetrics, answer.metrics == nil else { return report(.response(answer)) }
        // URLSession may report the metrics just after the completion: the answer waits
        // for them, briefly (as Alamofire's task map does), rather than dropping them.
        waitingForMetrics = answer
        deliveryQueue.asyncAfter(deadline: .now() + Self.metricsGrace) { [self] in
            // The metrics never came: the answer goes without them.
            report(.response(answer))
        }
    }

    func deliverChallenged(_ response: URLResponse?) {
        // The challenge is answered (cancelled) after this: the task's completion then
        // finds the execution answered, and only gives its place back.
        guard let http = head ?? (response as? HTTPURLResponse), state.finish() else { return }
        report(.response(takeResponse(head: http)))
    }

    /// The response with `head`, the body received and the metrics so far; the body is
    /// let go of here.
    private func takeResponse(head: HTTPURLResponse) -> TransportResponse {
        var response = TransportResponse(httpResponse: head, data: body)
        response.metrics = metrics
        body = Data()
        return response
    }

    /// Hands the answer on, once, off URLSession's queue (its work queue on Linux, the
    /// session's one serial delegate queue elsewhere): different requests' answers in
    /// parallel.
    private func report(_ answer: PlainAnswer) {
        guard answered.exchange(1) == 0 else { return }
        let carried = Carried(answer)
        let observer = Carried(self.observer)
        let deliver: @Sendable () -> Void = { carried.value.report(to: observer.value) }
        if let handoff {
            handoff.hand(deliver)
        } else {
            deliveryQueue.async(execute: deliver)
        }
    }
}

/// A plain task's one answer.
enum PlainAnswer {
    case response(TransportResponse)
    case failure(LeashError)

    func report<Observer: ObserverType>(to observer: Observer) where Observer.Element == TransportResponse {
        switch self {
        case .response(let response):
            observer.onNext(response)
            observer.onCompleted()
        case .failure(let error):
            observer.onError(error)
        }
    }
}

/// How one task answers one authentication challenge: server trust with the host's
/// policy (Apple platforms), the others with the request's `CredentialHandling`. The
/// completion handler is called off URLSession's queue where an answer makes URLSession
/// cancel or resume the task (which waits for that queue on Linux).
struct ChallengeAnswers {
    let trust: ServerTrust
    let credentials: CredentialHandling
    let cancelQueue: DispatchQueue

    func answer(
        _ challenge: URLAuthenticationChallenge, task: URLSessionTask,
        _ completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void,
        trustFailed: (LeashError) -> Void, deliverResponse: () -> Void, resending: () -> Void
    ) {
        #if canImport(Security)
            if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust {
                trust.answer(challenge, completionHandler, failed: trustFailed)
                return
            }
        #endif
        let disposition: URLSession.AuthChallengeDisposition
        var credential: URLCredential?
        switch credentials.answer(to: challenge) {
        case .disposition(let chosen, let chosenCredential):
            disposition = chosen
            credential = chosenCredential
            resending()
        case .deliverResponse where URLSessionPlatform.current.deliversRejectedChallenges:
            // URLSession goes on without a credential and delivers the 401 or 407 itself.
            disposition = Self.continuingWithoutCredential(challenge)
        case .deliverResponse:
            // FoundationNetworking gave the delegate the head and body already; the
            // execution gets them now, and the task is cancelled.
            deliverResponse()
            disposition = .cancelAuthenticationChallenge
        }
        // Escapes to another queue: the answer is called exactly once, there.
        let answer = Carried((completionHandler, disposition, credential))
        cancelQueue.async { answer.value.0(answer.value.1, answer.value.2) }
    }

    /// How URLSession goes on without a credential and delivers the response itself: the
    /// protection space is rejected (URLSession asks about the next one, if the server
    /// offered several, then delivers the 401 or 407), except for a client certificate,
    /// which is simply not sent.
    private static func continuingWithoutCredential(
        _ challenge: URLAuthenticationChallenge
    ) -> URLSession.AuthChallengeDisposition {
        #if canImport(Security)
            if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodClientCertificate {
                return .performDefaultHandling
            }
        #endif
        return .rejectProtectionSpace
    }
}
