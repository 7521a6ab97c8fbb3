import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A manager's queue in front of its transport: at most `perHost` requests to one host
/// (and port), and `total` in all, are at the transport at once; the others wait here, in
/// the order they came, and reach the transport only when a place frees up.
///
/// Why Leash keeps its own queue: a request queued inside URLSession (beyond
/// `httpMaximumConnectionsPerHost`) is out of reach of a cancel that races the connection
/// freeing up, and reaches the server after its execution ended (`cancelAll()` on ten
/// requests to a hanging route sent some of the queued ones, in 2 runs of 3). A request
/// waiting here is only a closure: ending its execution removes it, and it is never sent.
///
/// A place is given back when the transport's request has really ended: for
/// `URLSessionTransport`, when URLSession reports the task finished (a cancelled task
/// holds its connection until then), so that URLSession itself never has more than
/// `perHost` of this manager's tasks for a host; for other transports, when the request's
/// observable ends or is disposed.
///
/// Streams do not queue here: each has a session and a connection of its own, and a
/// stream that lasts for hours must not hold a place that plain requests wait for.
final class RequestDispatcher: Sendable {
    // All mutable state is behind `state` (the waiters' `position` and `turn` too).

    /// The most requests at the transport for one host.
    let perHost: Int
    /// The most requests at the transport in all.
    let total: Int

    /// The places taken and the requests waiting, decided under the lock.
    private struct State {
        let perHost: Int
        let total: Int
        var running = 0
        var runningByHost: [String: Int] = [:]
        /// The requests waiting, by host (only hosts with some): a place given back for a
        /// host looks at that host's line, not at every request waiting (with 64 requests
        /// in flight to one host, a scan of the 58 waiting, each hashing its host, cost
        /// more than the rest of the dispatcher).
        var waiting: [String: HostLine] = [:]
        /// The next waiter's turn: which of several hosts' first waiters came first.
        var nextTurn = 0
        /// Counts `cancelWaiting()` calls: a request promoted before one starts only if none
        /// came since.
        var epoch = 0

        mutating func takePlace(_ host: String) -> Bool {
            guard running < total else { return false }
            let forHost = runningByHost[host] ?? 0
            guard forHost < perHost else { return false }
            running += 1
            runningByHost[host] = forHost + 1
            return true
        }

        mutating func givePlaceBack(_ host: String) {
            running -= 1
            if let count = runningByHost[host], count > 1 {
                runningByHost[host] = count - 1
            } else {
                runningByHost[host] = nil
            }
        }

        mutating func append(_ waiter: Waiter) {
            waiter.turn = nextTurn
            nextTurn &+= 1
            waiting[waiter.host, default: HostLine()].append(waiter)
        }

        /// The waiting requests that can go now, oldest first (one whose host is full is
        /// skipped, not a barrier for the others), with their places taken.
        mutating func promote() -> [Waiter] {
            var ready: [Waiter] = []
            while running < total {
                // The first waiter of each host with a free place; the oldest of them goes.
                // (Nearly always one host waits, so this looks at one line.)
                var next: Waiter?
                for line in waiting.values {
                    guard let first = line.first, next.map({ first.turn < $0.turn }) ?? true else { continue }
                    if (runningByHost[first.host] ?? 0) < perHost { next = first }
                }
                guard let next, takePlace(next.host) else { break }
                remove(next)
                ready.append(next)
            }
            return ready
        }

        /// Takes every waiting request out (to be let go of outside the lock).
        mutating func removeAllWaiting() -> [Waiter] {
            let waiters = waiting.values.flatMap { $0.waiters }.sorted { $0.turn < $1.turn }
            for waiter in waiters { waiter.position = nil }
            waiting.removeAll()
            return waiters
        }

        mutating func remove(_ waiter: Waiter) {
            guard waiter.position != nil, let index = waiting.index(forKey: waiter.host) else { return }
            // Through `values[index]`, which changes the line in place (an optional-chained
            // `waiting[host]?.remove` copied the line's slots on each removal).
            if waiting.values[index].remove(waiter) {
                waiting.remove(at: index)
            }
        }

        var waitingCount: Int { waiting.values.reduce(0) { $0 + $1.count } }
    }

    /// One host's waiting requests, oldest first; those removed before their turn are
    /// `nil` until the front passes them.
    private struct HostLine {
        private var slots: [Waiter?] = []
        /// Where the line begins (the slots before it were taken).
        private var start = 0
        /// How many are still waiting.
        private(set) var count = 0

        var first: Waiter? { start < slots.count ? slots[start] : nil }

        var waiters: [Waiter] { slots[start...].compactMap { $0 } }

        mutating func append(_ waiter: Waiter) {
            waiter.position = slots.count
            slots.append(waiter)
            count += 1
        }

        /// Removes `waiter`; `true` when the line is empty after.
        mutating func remove(_ waiter: Waiter) -> Bool {
            guard let position = waiter.position, position < slots.count, slots[position] === waiter else {
                return count == 0
            }
            slots[position] = nil
            waiter.position = nil
            count -= 1
            compact()
            return count == 0
        }

        /// Drops the removed requests at the front, and the slots when all are removed.
        private mutating func compact() {
            while start < slots.count, slots[start] == nil { start += 1 }
            if start == slots.count {
                slots.removeAll(keepingCapacity: true)
                start = 0
            } else if start > 64, start * 2 > slots.count {
                slots.removeFirst(start)
                for (offset, waiter) in slots.enumerated() { waiter?.position = offset }
                start = 0
            }
        }
    }

    private let state: LockedState<State>
    /// Where waiting requests are started when a place frees up: never in place, since
    /// places are given back on URLSession's work queue, where creating a task deadlocks.
    private let startQueue: DispatchQueue

    init(
        perHost: Int, total: Int,
        startQueue: DispatchQueue = DispatchQueue(label: "leash.dispatcher", attributes: .concurrent)
    ) {
        self.perHost = max(1, perHost)
        self.total = max(1, total)
        self.startQueue = startQueue
        state = LockedState(State(perHost: self.perHost, total: self.total))
    }

    /// The key a request counts against: its host and port.
    static func hostKey(of request: URLRequest) -> String {
        guard let url = request.url, var host = url.host else { return "" }
        // Hosts are nearly always lowercase already: `lowercased()` only when needed (it
        // cost more than the rest of the dispatcher, per request).
        if host.utf8.contains(where: { (65...90).contains($0) }) { host = host.lowercased() }
        if let port = url.port { return host + ":" + String(port) }
        return host
    }

    /// Takes a place for a request to `host` if there is one (`true`: the caller sends it
    /// now and gives the place back with `release(host:)`).
    func tryAcquire(host: String) -> Bool {
        state.withLock { $0.takePlace(host) }
    }

    /// Queues `start` for a place for `host`, unless one freed up since `tryAcquire`
    /// (then returns `nil`, and the caller sends it now). Disposing the returned waiter
    /// removes it from the queue; once started, disposing it does nothing.
    func enqueue(host: String, start: @escaping @Sendable () -> Void) -> Disposable? {
        state.withLock { state -> Waiter? in
            if state.takePlace(host) { return nil }
            let waiter = Waiter(host: host, dispatcher: self, start: start)
            state.append(waiter)
            return waiter
        }
    }

    /// Gives back a place taken for `host`, and starts the waiting requests that can go:
    /// on a queue of the dispatcher's if `hop` (a place given back on URLSession's work
    /// queue, where creating a task deadlocks), else in place (another transport's request
    /// ended: a `StubTransport` in virtual time starts the next one in the same instant).
    func release(host: String, hop: Bool = true) {
        let (ready, promotedIn) = state.withLock { state -> ([Waiter], Int) in
            state.givePlaceBack(host)
            return (state.promote(), state.epoch)
        }
        for waiter in ready {
            guard let start = waiter.takeStart() else {
                // Disposed between its promotion and now: its place goes to the next.
                release(host: waiter.host, hop: hop)
                continue
            }
            guard hop else {
                start()
                continue
            }
            startQueue.async { [self] in
                // `cancelWaiting()` came meanwhile: this request's execution is being
                // cancelled, and must not start first.
                if state.withLock({ $0.epoch == promotedIn }) {
                    start()
                } else {
                    release(host: waiter.host)
                }
            }
        }
    }

    /// Drops every waiting request, and those promoted but not started yet: their
    /// executions are about to be cancelled (`Manager.cancelAll()`), and a place freed
    /// meanwhile must not send one of them first. (Each execution's own cancel then finds
    /// its request gone.)
    func cancelWaiting() {
        let dropped = state.withLock { state -> [Waiter] in
            state.epoch &+= 1
            return state.removeAllWaiting()
        }
        // Their closures (and the executions they hold) go now, outside the lock.
        for waiter in dropped { _ = waiter.takeStart() }
    }

    /// How many requests are at the transport, and how many wait (for tests).
    var counts: (running: Int, waiting: Int) {
        state.withLock { ($0.running, $0.waitingCount) }
    }

    fileprivate func remove(_ waiter: Waiter) {
        state.withLock { $0.remove(waiter) }
    }

    /// A request waiting for a place.
    fileprivate final class Waiter: Disposable, @unchecked Sendable {
        // @unchecked: `position` and `turn` are behind the dispatcher's lock; `start` behind its own.
        let host: String
        weak var dispatcher: RequestDispatcher?
        /// Where it is in its host's line, while it waits.
        var position: Int?
        /// When it came, among all waiters (set when it is queued).
        var turn = 0
        private let start: LockedState<(@Sendable () -> Void)?>

        init(host: String, dispatcher: RequestDispatcher, start: @escaping @Sendable () -> Void) {
            self.host = host
            self.dispatcher = dispatcher
            self.start = LockedState(start)
        }

        /// The start, once: `nil` if the request was disposed meanwhile.
        func takeStart() -> (@Sendable () -> Void)? {
            start.withLock { start in
                defer { start = nil }
                return start
            }
        }

        func dispose() {
            // Let go of the closure (and the execution it holds) at once.
            _ = takeStart()
            dispatcher?.remove(self)
        }
    }
}

/// A place taken in a `RequestDispatcher`, for a request to `host`: given back once, by
/// whoever holds it when the transport's request ends.
struct DispatcherPlace: Sendable {
    let dispatcher: RequestDispatcher
    let host: String

    /// Gives the place back; `hop` as for `RequestDispatcher.release(host:hop:)`.
    func release(hop: Bool = true) {
        dispatcher.release(host: host, hop: hop)
    }
}
