import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default transport: a `URLSession` data task per request.
///
/// Built to survive what URLSession on Linux does (see LINUX-URLSESSION.md in the design
/// notes):
/// - its session has no `URLCache` (a cancel racing a completion crashes a session that
///   has one);
/// - `cancel()` is issued asynchronously on a queue of its own, never from inside
///   URLSession's callbacks (disposing from a completion handler would do exactly that),
///   and never for a task that already finished;
/// - a request disposed before it starts never creates a task;
/// - the transport owns its session and invalidates it only when it is freed; every
///   observable `send` returns holds the transport, so no task is ever created on an
///   invalidated session (a fatal error in FoundationNetworking);
/// - Leash enforces timeouts itself, so URLSession's whole-second timeouts are not used.
///
/// Redirects are followed by URLSession (up to 20; a 307/308 after a POST loses the body
/// on Linux — answer with the final URL instead).
public final class URLSessionTransport: Transport, @unchecked Sendable {
    // @unchecked: `URLSession` is thread-safe; the other properties are immutable.

    /// A transport shared by every manager that does not set its own.
    public static let shared = URLSessionTransport()

    /// The session requests go through.
    public let session: URLSession

    private let cancelQueue = DispatchQueue(label: "leash.urlsession.cancel")

    /// Creates a transport with a session of its own.
    ///
    /// - Parameter configuration: The session configuration, copied; the copy's `urlCache`
    ///   is removed (see above). By default an ephemeral configuration.
    public init(configuration: URLSessionConfiguration = .ephemeral) {
        // A copy, so that the caller's configuration (perhaps shared) is left as it was.
        let configuration = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        configuration.urlCache = nil
        let delegateQueue = OperationQueue()
        delegateQueue.name = "leash.urlsession.delegate"
        delegateQueue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: nil, delegateQueue: delegateQueue)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends `request` with a data task; disposing cancels the task.
    public func send(_ request: URLRequest) -> Observable<TransportResponse> {
        DataTaskObservable(transport: self, request: request).asObservable()
    }

    /// Starts a data task for `request` that reports to `observer` once; the returned
    /// task state is the disposable that cancels it.
    fileprivate func start(_ request: URLRequest, observer: AnyObserver<TransportResponse>) -> Disposable {
        let task = TaskState(cancelQueue: cancelQueue)
        let dataTask = session.dataTask(with: request) { data, response, error in
            // Only the first of completion and cancellation reports: after a dispose,
            // nothing is delivered.
            guard task.finish() else { return }
            if let error {
                observer.onError(URLSessionTransport.leashError(for: error))
                return
            }
            guard let httpResponse = response as? HTTPURLResponse else {
                observer.onError(LeashError.invalidResponse(reason: "the response is not HTTP"))
                return
            }
            observer.onNext(TransportResponse(httpResponse: httpResponse, data: data ?? Data()))
            observer.onCompleted()
        }
        task.start(dataTask)
        return task
    }

    /// Maps a URLSession error to a `LeashError`.
    static func leashError(for error: Swift.Error) -> LeashError {
        if let urlError = error as? URLError {
            if urlError.code == .cancelled { return .cancelled }
            return .transport(urlError)
        }
        let nsError = error as NSError
        if nsError.domain == NSURLErrorDomain, let code = URLError.Code(rawValue: nsError.code) as URLError.Code? {
            if code == .cancelled { return .cancelled }
            return .transport(URLError(code, userInfo: nsError.userInfo))
        }
        return .transport(URLError(.unknown, userInfo: [NSUnderlyingErrorKey: nsError]))
    }
}

/// One data task as an observable: subscribing starts the task. (It keeps the transport,
/// not only its session: the session is invalidated when the transport is freed, and
/// this keeps it alive for as long as the observable can still be subscribed.)
private struct DataTaskObservable: ObservableType, @unchecked Sendable {
    // @unchecked: immutable; URLRequest is a value only read.
    typealias Element = TransportResponse

    let transport: URLSessionTransport
    let request: URLRequest

    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == TransportResponse {
        transport.start(request, observer: AnyObserver(observer))
    }
}

/// The life of one data task: not started, running, or finished/cancelled. Disposing it
/// cancels a running task, asynchronously, on a queue of its own (never inside
/// URLSession's callbacks, never for a task that already finished).
private final class TaskState: Disposable, @unchecked Sendable {
    // @unchecked: all state is behind `lock`.
    private let lock = Lock()
    private var task: URLSessionDataTask?
    private var isDone = false
    private let cancelQueue: DispatchQueue

    init(cancelQueue: DispatchQueue) {
        self.cancelQueue = cancelQueue
    }

    func dispose() {
        guard let running = cancelIfRunning() else { return }
        cancelQueue.async { running.cancel() }
    }

    /// Starts `task` unless the request was already cancelled.
    func start(_ task: URLSessionDataTask) {
        let cancelled = lock.withLock { () -> Bool in
            if !isDone { self.task = task }
            return isDone
        }
        if !cancelled { task.resume() }
    }

    /// Marks the task finished by URLSession; returns false if it was cancelled first.
    func finish() -> Bool {
        lock.withLock {
            if isDone { return false }
            isDone = true
            task = nil
            return true
        }
    }

    /// Marks the task cancelled; returns it if it was still running.
    func cancelIfRunning() -> URLSessionDataTask? {
        lock.withLock {
            if isDone { return nil }
            isDone = true
            defer { task = nil }
            return task
        }
    }
}
