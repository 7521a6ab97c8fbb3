import Foundation
import Leash

/// The forms an execution takes in the soak.
enum Form: String, CaseIterable, Sendable {
    /// `client.execute(_:as:completion:)`, cancelled through its `DataRequest`.
    case callback
    /// `client.rx.execute`, disposed.
    case rx
    /// `try await client.execute`, its task cancelled.
    case async
    /// `client.rx.upload` of `Data` or an `UploadFile` to `/upload`, which answers the
    /// bytes' count and SHA-256.
    case upload
    /// `client.rx.download` to a file, resumed by the retry policy's next attempt.
    case download
    /// `client.rx.lines` of NDJSON.
    case lines
    /// `client.rx.serverSentEvents` with reconnecting.
    case sse
    /// `client.rx.webSocket` to the echo route, with a reconnect policy.
    case webSocket
    /// A `WebSocketSession` to the echo route, with a reconnect policy: its message sent at
    /// once (kept until a connection opens), the session closed after the echo. Named
    /// `wsSession` in reports and `--forms`, to fit the report's column.
    case webSocketSession = "wsSession"
    /// `client.rx.execute` of a route that wants the current token, through the token
    /// refresher, while the token expires every few seconds.
    case refresh
}

/// How one execution ended, as its form saw it.
enum Outcome: Sendable {
    /// A value; `verified` says whether it was checked against its source and matched
    /// (nil when there is nothing to check).
    case value(verified: Bool?)
    /// A `LeashError`.
    case failure(LeashError)
    /// An error that is no `LeashError`.
    case untyped(String)
    /// The soak disposed (or cancelled) it before it ended.
    case disposed
}

/// One form's counts.
struct FormCounts: Sendable {
    var started = 0
    /// Executions that went through a fault.
    var faulted = 0
    var ended = 0
    var endedTwice = 0
    var values = 0
    var failures = 0
    var disposed = 0
    var untyped = 0
    var eventsAfterDispose = 0
    /// Executions whose one event in flight reached the subscriber just after the dispose
    /// returned (see `ExecutionTracker.event()`): reported, not a broken promise.
    var racedDispose = 0
    var sentAfterEnd = 0
    var neverEnded = 0
    var verified = 0
    var mismatched = 0
    /// Failures by `LeashError` case, for the report.
    var failureKinds: [String: Int] = [:]
    /// Up to a few examples of what went wrong, with the execution's number.
    var examples: [String] = []

    /// Whether every invariant held.
    var held: Bool {
        started == ended && endedTwice == 0 && untyped == 0 && eventsAfterDispose == 0 && sentAfterEnd == 0
            && neverEnded == 0 && mismatched == 0
    }
}

/// Every form's counts, and when each execution ended (to tell a request sent after its
/// execution's end), behind one lock.
final class Ledger: @unchecked Sendable {
    // @unchecked: every mutable field is touched only under `lock`.
    private let lock = NSLock()
    private var counts: [Form: FormCounts] = [:]
    /// When execution `n` ended, at slot `n % endSlots` (with `n`, to tell a reused slot).
    private var ends: [(execution: Int, uptime: UInt64)]
    /// When each attempt's request was adapted (built for sending), by attempt number.
    private var attempts: [(execution: Int, uptime: UInt64)]
    /// Attempts that went through the transport (every form's but the WebSocket's, whose
    /// upgrade runs on Leash's own sockets), counted only when the transport is URLSession's:
    /// each then started one URLSession task.
    private var urlSessionAttempts = 0
    /// Whether the transport is `URLSessionTransport`, whose tasks are counted.
    let countsURLSessionTasks: Bool
    private static let endSlots = 1 << 16
    private static let attemptSlots = 1 << 17

    init(countsURLSessionTasks: Bool) {
        self.countsURLSessionTasks = countsURLSessionTasks
        ends = Array(repeating: (-1, 0), count: Self.endSlots)
        attempts = Array(repeating: (-1, 0), count: Self.attemptSlots)
    }

    func update(_ form: Form, _ change: (inout FormCounts) -> Void) {
        lock.withLock { change(&counts[form, default: FormCounts()]) }
    }

    func snapshot() -> [Form: FormCounts] {
        lock.withLock { counts }
    }

    /// Records a problem's example (the first few per form).
    func example(_ form: Form, _ text: String) {
        update(form) { if $0.examples.count < 5 { $0.examples.append(text) } }
    }

    func ended(_ execution: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.withLock { ends[execution % Self.endSlots] = (execution, now) }
    }

    /// Attempt `attempt` of `execution` was built for sending (through the transport, or on
    /// the WebSocket's own sockets).
    func adapted(attempt: Int, of execution: Int, throughTransport: Bool) {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.withLock {
            attempts[attempt % Self.attemptSlots] = (execution, now)
            if throughTransport && countsURLSessionTasks { urlSessionAttempts += 1 }
        }
    }

    /// The URLSession tasks started so far: the attempts through the transport and the
    /// token client's `refreshes` when the transport is URLSession's, else 0.
    func urlSessionTasks(refreshes: Int) -> Int {
        guard countsURLSessionTasks else { return 0 }
        return lock.withLock { urlSessionAttempts } + refreshes
    }

    /// Whether a request of `execution`'s attempt number `attempt` that reached the proxy
    /// was built after the execution had ended: a request sent after its end. One built
    /// before the end and still on its way is not (the end may race its sending).
    func builtAfterEnd(attempt: Int, of execution: Int) -> Bool {
        lock.withLock {
            let end = ends[execution % Self.endSlots]
            let built = attempts[attempt % Self.attemptSlots]
            guard end.execution == execution, built.execution == execution else { return false }
            return built.uptime > end.uptime
        }
    }
}

/// One execution's end, decided once: the first end counts, a second is counted as such,
/// and an event after the soak's dispose returned is counted as an event after dispose.
final class ExecutionTracker: @unchecked Sendable {
    // @unchecked: the mutable fields are touched only under `lock`.
    let number: Int
    let form: Form
    private let ledger: Ledger
    private let lock = NSLock()
    private var endCount = 0
    private var disposed = false
    /// Events that began after the dispose returned.
    private var lateEvents = 0
    /// Whether the dispose was counted as the end (no end came before it).
    private var endedByDispose = false
    /// Ends that came after the soak's stop began and before its dispose returned: counted
    /// as raced events, not as the end, so the dispose is still the end.
    private var lateEnds = 0
    private let ended = DispatchSemaphore(value: 0)

    init(number: Int, form: Form, ledger: Ledger) {
        self.number = number
        self.form = form
        self.ledger = ledger
        ledger.update(form) { $0.started += 1 }
    }

    /// Records `text` among the examples of what went wrong.
    func note(_ text: String) {
        ledger.example(form, "#\(number): \(text)")
    }

    /// A non-terminal event arrived.
    func event() {
        let late = lock.withLock { disposed }
        if late { arrivedLate("events after dispose") }
    }

    /// Something arrived after the dispose returned.
    ///
    /// One event (an element or the end) can have passed the last check of the sink
    /// delivering it just before the dispose, on another thread, and reach the subscriber
    /// just after the dispose returned: Rx's sinks check, then call (as RxSwift's do), and
    /// so does the callback form's queue; a dispose that waited for the delivery in
    /// progress could deadlock a subscriber that disposes from another thread it waits for.
    /// That one is counted apart; a second is a broken promise.
    private func arrivedLate(_ what: String) {
        let lateCount = lock.withLock { () -> Int in
            lateEvents += 1
            return lateEvents
        }
        if lateCount == 1 {
            ledger.update(form) { $0.racedDispose += 1 }
        } else {
            ledger.update(form) { $0.eventsAfterDispose += 1 }
            ledger.example(form, "#\(number): \(what)")
        }
    }

    /// Whether the soak's dispose already returned: read first thing in a terminal
    /// callback, so that one that began before the dispose returned (and ends after it)
    /// is not taken for one that began after.
    var isDisposed: Bool {
        lock.withLock { disposed }
    }

    /// The execution ended with `outcome` (a terminal event, a completion, a return);
    /// `began` is `isDisposed` as the callback began (nil: read it now).
    func end(_ outcome: Outcome, disposedWhenBegun began: Bool? = nil) {
        let (count, late, racedDispose) = lock.withLock { () -> (Int, Bool, Bool) in
            endCount += 1
            let late = began ?? disposed
            if late && !disposed { lateEnds += 1 }
            // Begun before the dispose returned, and the dispose counted as the end: this
            // end raced it and is the real one (the dispose's is taken back below).
            let raced = !late && endedByDispose && endCount - lateEnds == 2
            if raced { endedByDispose = false }
            return (raced ? 1 : endCount, late, raced)
        }
        if racedDispose {
            ledger.update(form) {
                $0.ended -= 1
                $0.disposed -= 1
            }
        }
        if late {
            arrivedLate("\(outcome) after dispose")
            return
        }
        guard count == 1 else {
            ledger.update(form) { $0.endedTwice += 1 }
            ledger.example(form, "#\(number): ended again with \(outcome)")
            return
        }
        if !racedDispose { ledger.ended(number) }
        ledger.update(form) { counts in
            counts.ended += 1
            switch outcome {
            case .value(let verified):
                counts.values += 1
                if verified == true { counts.verified += 1 }
                if verified == false { counts.mismatched += 1 }
            case .failure(let error):
                counts.failures += 1
                counts.failureKinds[Self.kind(of: error), default: 0] += 1
            case .untyped:
                counts.untyped += 1
            case .disposed:
                counts.disposed += 1
            }
        }
        if case .value(verified: false) = outcome {
            ledger.example(form, "#\(number): a value that differs from its source")
        }
        if case .untyped(let text) = outcome { ledger.example(form, "#\(number): untyped error \(text)") }
        if !racedDispose { ended.signal() }
    }

    /// The soak's dispose (or cancel) returned: from now on no event may arrive, and the
    /// execution counts as ended by the dispose unless it ended before.
    func disposeReturned() {
        let first = lock.withLock { () -> Bool in
            defer { disposed = true }
            endCount += 1
            // The first end counted: none came before, or only ends that raced the stop (an
            // end that began once the stop had begun, which is not counted; without this the
            // execution was never counted as ended, nor its end signalled).
            let first = endCount - lateEnds == 1
            endedByDispose = first
            return first
        }
        guard first else { return }
        ledger.ended(number)
        ledger.update(form) {
            $0.ended += 1
            $0.disposed += 1
        }
        ended.signal()
    }

    /// Waits for the end, up to `seconds`; false if it did not come.
    func waitForEnd(seconds: Double) -> Bool {
        guard ended.wait(timeout: .now() + seconds) == .success else { return false }
        // A latch: the next wait returns at once too.
        ended.signal()
        return true
    }

    /// The execution never ended within the watchdog's time.
    func neverEnded() {
        ledger.update(form) { $0.neverEnded += 1 }
        ledger.example(form, "#\(number): never ended")
    }

    private static func kind(of error: LeashError) -> String {
        switch error {
        case .transport(let urlError): return "transport(\(urlError.code.rawValue))"
        case .unacceptableStatusCode(let failure): return "status(\(failure.statusCode))"
        default:
            let text = "\(error)"
            return String(text.prefix { $0 != "(" })
        }
    }
}
