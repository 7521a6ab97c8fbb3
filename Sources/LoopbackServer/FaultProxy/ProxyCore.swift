import Foundation

/// What the proxy's threads share, behind one lock.
struct ProxyState: Sendable {
    var isStopped = false
    var acceptLoopEnded = false
    var plan: FaultPlan
    /// The number the next accepted connection gets.
    var nextNumber = 0
    /// Open connections' descriptors (the client's, and the server's once connected), by
    /// number: `stop()` shuts them down to wake their threads.
    var open: [Int: [Int32]] = [:]
    var records: [FaultProxy.ConnectionRecord] = []
    var sightings: [FaultProxy.RequestSighting] = []
}

/// The proxy's listener, accept loop and shared state; its connections' threads retain
/// this, not the `FaultProxy`, so dropping the proxy stops it.
final class ProxyCore: Sendable {
    let listener: Int32
    let port: UInt16
    /// Both ends of the pipe that wakes every thread on `stop()`: a byte is written once
    /// and never read, so every `poll` on `wakeRead` returns from then on.
    let wakeRead: Int32
    let wakeWrite: Int32
    let upstream: (host: String, port: UInt16)
    let onRequest: (@Sendable (FaultProxy.RequestSighting) -> Void)?
    let state: ServerLock<ProxyState>
    /// How many records and sightings are kept.
    let logCapacity: Int

    init(
        upstream: (host: String, port: UInt16), plan: FaultPlan, logCapacity: Int,
        onRequest: (@Sendable (FaultProxy.RequestSighting) -> Void)?
    ) throws(LoopbackServerError) {
        self.logCapacity = logCapacity
        (listener, port, wakeRead, wakeWrite) = try Socket.makeListenerAndWakePipe(port: 0)
        self.upstream = upstream
        self.onRequest = onRequest
        state = ServerLock(ProxyState(plan: plan))
    }

    func start() {
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "FaultProxy.accept:\(port)"
        thread.start()
    }

    func stop() {
        let first = state.update { state -> Bool in
            guard !state.isStopped else { return false }
            state.isStopped = true
            for fds in state.open.values { fds.forEach(Socket.shutdownBoth) }
            return true
        }
        if first { Socket.signal(wakeWrite) }
        _ = state.wait(until: nil) { $0.acceptLoopEnded && $0.open.isEmpty }
        guard first else { return }
        Socket.close(listener)
        Socket.close(wakeRead)
        Socket.close(wakeWrite)
    }

    var isStopped: Bool { state.withLock { $0.isStopped } }

    /// Waits `milliseconds`, or less if the proxy stops; returns whether it is still running.
    func pause(milliseconds: Int) -> Bool {
        if milliseconds > 0 {
            _ = Socket.waitReadable([wakeRead], timeout: Int32(clamping: milliseconds))
        }
        return !isStopped
    }

    private func acceptLoop() {
        Socket.acceptConnections(on: listener, wake: wakeRead, isStopped: { isStopped }, accepted: startConnection)
        state.update { $0.acceptLoopEnded = true }
    }

    private func startConnection(_ fd: Int32) {
        let accepted = state.update { state -> (Int, Fault)? in
            guard !state.isStopped else { return nil }
            let number = state.nextNumber
            state.nextNumber += 1
            state.open[number] = [fd]
            return (number, state.plan.fault(connection: number, request: 0))
        }
        guard let (number, fault) = accepted else {
            Socket.close(fd)
            return
        }
        let thread = Thread { [self] in
            ProxiedConnection(number: number, client: fd, fault: fault, core: self).run()
        }
        thread.name = "FaultProxy.connection.\(number)"
        thread.stackSize = 1 << 20
        thread.start()
    }

    // MARK: - Called by connections

    /// Registers the server's side of connection `number`; false (and nothing registered)
    /// once the proxy stopped.
    func connected(_ number: Int, upstream fd: Int32) -> Bool {
        state.update { state in
            guard !state.isStopped else { return false }
            state.open[number, default: []].append(fd)
            return true
        }
    }

    /// The plan's fault for request number `request` on connection number `connection`.
    func plannedFault(connection: Int, request: Int) -> Fault {
        state.withLock { $0.plan }.fault(connection: connection, request: request)
    }

    /// Records a request head on its way to the server.
    func saw(_ sighting: FaultProxy.RequestSighting) {
        state.update { state in
            guard logCapacity > 0 else { return }
            state.sightings.append(sighting)
            Self.trim(&state.sightings, to: logCapacity)
        }
        onRequest?(sighting)
    }

    /// Closes connection `number`'s descriptors (`reset`: so that the client sees a reset)
    /// and records how it went.
    func ended(_ record: FaultProxy.ConnectionRecord, reset: Bool) {
        state.update { state in
            for fd in state.open.removeValue(forKey: record.number) ?? [] {
                if reset { Socket.resetAndClose(fd) } else { Socket.close(fd) }
            }
            guard logCapacity > 0 else { return }
            state.records.append(record)
            Self.trim(&state.records, to: logCapacity)
        }
    }

    /// Keeps the latest `capacity` entries, trimming in batches.
    private static func trim<Element>(_ log: inout [Element], to capacity: Int) {
        if log.count >= 2 * capacity { log.removeFirst(log.count - capacity) }
    }
}
