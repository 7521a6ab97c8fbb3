import Foundation
import Rx

/// What a watched socket has become ready for.
struct SocketReadiness: OptionSet, Sendable {
    let rawValue: UInt8

    /// A read would not block: bytes, the peer's close, or an error are there.
    static let readable = SocketReadiness(rawValue: 1)
    /// A write would not block, a connect has ended, or the connection failed.
    static let writable = SocketReadiness(rawValue: 2)
}

/// How a `SocketEventLoop` waits for readiness: epoll on Linux, `poll(2)` elsewhere.
///
/// Each watch is known by a number the loop never gives out twice, so a report that comes
/// after its watch was removed (its descriptor closed meanwhile, perhaps reused by a new
/// socket) names a number nobody holds any more, and is dropped.
protocol SocketReadinessBackend: AnyObject, Sendable {
    /// Starts watching `fd` as watch `id`; the `errno` that stopped it, or nil.
    func add(_ fd: Int32, id: UInt64) -> Int32?

    /// Asks for one report when `fd` is next ready for `readiness`. Backends that report
    /// every change anyway (epoll's edge-triggered mode) may do nothing.
    func arm(_ fd: Int32, id: UInt64, for readiness: SocketReadiness)

    /// Stops watching `fd`; after it, the descriptor may be closed.
    func remove(_ fd: Int32, id: UInt64)

    /// Waits until some watches are ready and hands each to `report` (called outside the
    /// backend's own locks); returns after one batch (or a spurious wake-up).
    func wait(_ report: (UInt64, SocketReadiness) -> Void)
}

/// One thread that waits for the readiness of every socket Leash reads and writes itself
/// (`HTTP1Transport`'s connections and the WebSocket byte streams on Linux), and tells each
/// socket's owner.
///
/// Why not a Dispatch read and write source per socket, as before: on Linux, libdispatch's
/// epoll bookkeeping can keep a freed registration when sources are set up and torn down on
/// several threads at once (swift-corelibs-libdispatch issue 949), and the next event for it
/// crashes the process in `_dispatch_event_loop_drain`. It did, in CI's soak, with
/// connections opening and closing on every core. Here a watch is a number in a table: a
/// report for a watch that is gone finds nothing, and nothing is freed under the loop.
///
/// Reports are edge-style. An owner tries its read or write first; only when that would
/// block does it `arm` the watch and wait, and the next change of readiness after that is
/// reported at least once. A report can also come unasked or when nothing changed: the
/// owner tries again and, if it would still block, waits again. Handlers run on the loop's
/// thread and must not block: owners hop to their own queues.
final class SocketEventLoop: Sendable {
    /// The process's loop, started on first use; nil only while no loop could be made (out of
    /// descriptors), in which case the next call tries again.
    static var shared: SocketEventLoop? {
        sharedLoop.withLock { loop in
            if let loop { return loop }
            loop = SocketEventLoop.makeDefault()
            return loop
        }
    }

    /// Where `shared` is kept.
    private static let sharedLoop = LockedState<SocketEventLoop?>(nil)

    /// A loop over the platform's backend (epoll on Linux, `poll(2)` elsewhere), or nil when
    /// it could not be made.
    private static func makeDefault() -> SocketEventLoop? {
        #if os(Linux) || os(Android)
            if let epoll = EpollReadinessBackend() { return SocketEventLoop(backend: epoll) }
        #endif
        return PollReadinessBackend().map { SocketEventLoop(backend: $0) }
    }

    /// The watches' handlers, by number.
    private struct Table {
        /// The next number to give out; never reused.
        var nextID: UInt64 = 1
        /// Who to tell, by watch number.
        var handlers: [UInt64: @Sendable (SocketReadiness) -> Void] = [:]
    }

    /// How readiness is waited for.
    private let backend: any SocketReadinessBackend
    /// The live watches.
    private let table = LockedState(Table())

    /// A loop over `backend`, whose thread starts now and runs for the life of the process
    /// (tests make loops of their own; each is one thread).
    init(backend: any SocketReadinessBackend) {
        self.backend = backend
        let thread = Thread { [self] in
            while true { waitOnce() }
        }
        thread.name = "Leash.SocketEventLoop"
        thread.start()
    }

    /// The number of watches live now (tests).
    var watchCount: Int { table.withLock { $0.handlers.count } }

    /// Watches `fd`, telling `handler` (on the loop's thread) when it becomes ready.
    /// - Returns: the watch, or the `errno` that kept the descriptor from being watched.
    func watch(_ fd: Int32, _ handler: @escaping @Sendable (SocketReadiness) -> Void) -> Result<
        SocketWatch, SocketErrno
    > {
        let id = table.withLock { table in
            defer { table.nextID += 1 }
            table.handlers[table.nextID] = handler
            return table.nextID
        }
        if let error = backend.add(fd, id: id) {
            _ = table.withLock { $0.handlers.removeValue(forKey: id) }
            return .failure(SocketErrno(error))
        }
        return .success(SocketWatch(loop: self, fd: fd, id: id))
    }

    /// See `SocketWatch.arm(for:)`.
    fileprivate func arm(_ fd: Int32, id: UInt64, for readiness: SocketReadiness) {
        backend.arm(fd, id: id, for: readiness)
    }

    /// See `SocketWatch.cancel()`: removes the watch once; later reports for it are dropped.
    fileprivate func cancel(_ fd: Int32, id: UInt64) {
        let removed = table.withLock { $0.handlers.removeValue(forKey: id) }
        // Only the call that removed it stops the backend: a second cancel comes after the
        // descriptor may have been closed, and its number given to another socket.
        if removed != nil { backend.remove(fd, id: id) }
    }

    /// One batch: waits, then tells each ready watch's handler, looked up as its report comes
    /// (no array per batch on this hot path) and called outside the table's lock, so that a
    /// handler may cancel its own watch.
    private func waitOnce() {
        backend.wait { id, readiness in
            table.withLock { $0.handlers[id] }?(readiness)
        }
    }
}

/// One socket watched by a `SocketEventLoop`, until `cancel()`.
final class SocketWatch: Sendable {
    /// The loop watching.
    private let loop: SocketEventLoop
    /// The watched descriptor.
    let fileDescriptor: Int32
    /// The watch's number in the loop's table.
    private let id: UInt64

    /// A watch the loop has registered.
    fileprivate init(loop: SocketEventLoop, fd: Int32, id: UInt64) {
        self.loop = loop
        self.fileDescriptor = fd
        self.id = id
    }

    /// Asks for a report when the socket is next ready for `readiness`: call it after a
    /// read or write would block, before waiting.
    func arm(for readiness: SocketReadiness) {
        loop.arm(fileDescriptor, id: id, for: readiness)
    }

    /// Stops watching. After it returns the descriptor may be closed; a report already on its
    /// way may still reach the handler once, and later ones are dropped. Calling it again
    /// does nothing.
    func cancel() {
        loop.cancel(fileDescriptor, id: id)
    }
}
