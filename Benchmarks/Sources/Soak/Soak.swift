import BenchmarkSupport
import Foundation
import HeapInfo
import Leash
import LoopbackServer

/// One soak run: warm-up, the baseline of what the process holds, workers driving
/// executions until the time is up (with token expiries, `cancelAll()`s and memory
/// samples beside them), then the check that everything came back.
final class Soak: @unchecked Sendable {
    // @unchecked: `samples` is touched only under `sampleLock`; the rest is immutable or
    // only touched by the thread running `run()`.
    let options: SoakOptions
    let ledger: Ledger
    let world: SoakWorld
    private let numbers = AtomicCounter()
    private let sampleLock = NSLock()
    private var samples: [MemorySample] = []
    private var cancelAlls = 0

    init(options: SoakOptions) throws {
        self.options = options
        ledger = Ledger(countsURLSessionTasks: options.transport.isURLSession)
        world = try SoakWorld(ledger: ledger, transport: options.transport)
    }

    /// What the run found.
    struct Findings {
        var counts: [Form: FormCounts]
        var start: ResourceSnapshot
        var end: ResourceSnapshot
        /// Memory through the run, and how much of it URLSession leaks per task (when the
        /// transport is URLSession's).
        var memory: MemoryFindings
        var tokens: (expiries: Int, refreshes: Int, redundant: Int)
        var cancelAlls: Int
        var executions: Int
        /// What was still open when the resources did not come back.
        var leftOpen: String?
        var seconds: Double
    }

    func run() throws -> Findings {
        // URLSession's own leak per task, measured before anything else allocates, when the
        // requests are URLSession tasks (with HTTP1Transport there is none to take out).
        let urlSessionLeak = options.transport.isURLSession ? URLSessionLeak.bytesPerTask(server: world.server) : nil
        // Warm-up: each form twice without faults, so that what the first use of a kind of
        // execution creates for good (the transport's threads, caches) is in the baseline.
        try world.start()
        for number in 0..<(2 * Form.allCases.count) {
            let form = Form.allCases[number % Form.allCases.count]
            let plan = ExecutionPlan(
                number: number, form: form, fault: .none, disposeAfter: nil, slowSubscriber: nil, size: 1000,
                variant: number >= Form.allCases.count)
            execute(plan)
        }
        for _ in 0..<Form.allCases.count * 2 { _ = numbers.next() }
        world.stopClient()
        waitUntilQuiet()
        let start = ResourceSnapshot.take(soakFolder: world.folder)

        try world.start()
        let began = Date()
        let deadline = began.addingTimeInterval(options.minutes * 60)
        let workers = DispatchGroup()
        for index in 0..<options.concurrency {
            workers.enter()
            let thread = Thread { [self] in
                while Date() < deadline {
                    execute(ExecutionPlan.draw(number: numbers.next(), options: options))
                }
                workers.leave()
            }
            thread.name = "soak.worker.\(index)"
            thread.start()
        }
        let chaos = Thread { [self] in disturb(until: deadline) }
        chaos.name = "soak.chaos"
        chaos.start()
        workers.wait()
        let seconds = Date().timeIntervalSince(began)
        // Let the chaos thread see the deadline and finish its last sample.
        while !chaos.isFinished { Thread.sleep(forTimeInterval: 0.05) }

        world.stopClient()
        waitUntilQuiet()
        let end = waitForResources(toReturnTo: start)
        var leftOpen: String?
        if !end.isBack(to: start) {
            let kinds = ResourceSnapshot.descriptorKinds().sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            leftOpen =
                "connections open at the proxy \(world.proxy.openConnections), at the server "
                + "\(world.server.counters.openConnectionCount); descriptors: \(kinds.joined(separator: ", "))"
        }
        let samples = sampleLock.withLock { self.samples }
        return Findings(
            counts: ledger.snapshot(), start: start, end: end,
            memory: MemoryFindings(samples: samples, urlSessionLeakPerTask: urlSessionLeak),
            tokens: world.tokens.counts, cancelAlls: cancelAlls, executions: numbers.peek(), leftOpen: leftOpen,
            seconds: seconds)
    }

    /// Replays the executions `options.only` names, alone and in turn, and describes each.
    func replay() throws -> String {
        try world.start()
        var lines = ["soak: replay through \(options.transport.name), seed \(options.seed)"]
        for number in options.only {
            let plan = ExecutionPlan.draw(number: number, options: options)
            let before = ledger.snapshot()[plan.form] ?? FormCounts()
            execute(plan)
            let after = ledger.snapshot()[plan.form] ?? FormCounts()
            lines.append("#\(number): \(plan)")
            lines.append(
                "  ended \(after.ended - before.ended), values \(after.values - before.values), "
                    + "failures \(after.failureKinds.filter { before.failureKinds[$0.key] != $0.value }.keys.sorted()), "
                    + "disposed \(after.disposed - before.disposed), problems \(after.examples.dropFirst(before.examples.count))"
            )
        }
        world.stopClient()
        return lines.joined(separator: "\n")
    }

    /// Runs one execution to its end (or past the watchdog), disposing or cancelling it
    /// when its plan says.
    private func execute(_ plan: ExecutionPlan) {
        guard let client = world.client else { return }
        let tracker = ExecutionTracker(number: plan.number, form: plan.form, ledger: ledger)
        if plan.fault != .none { ledger.update(plan.form) { $0.faulted += 1 } }
        SoakWorld.forms.withLock { $0[plan.number % SoakWorld.formSlots] = plan.form }
        let stop = FormRunner(client: client, folder: world.folder).start(plan, tracker)
        let stopNow = {
            stop.stop()
            if stop.isDispose { tracker.disposeReturned() }
        }
        if let delay = plan.disposeAfter, !tracker.waitForEnd(seconds: delay) { stopNow() }
        // An event stream that reconnects goes on for ever by design, and so does a
        // WebSocket session whose one message was lost with the connection it went on (sent
        // at most once, it is not sent again, so no echo ever comes): the soak leaves them
        // after a while, as a user leaves a screen.
        if plan.form == .sse || plan.form == .webSocketSession, !tracker.waitForEnd(seconds: 3) { stopNow() }
        // A cold WebSocket stream sends its message once per connection; one the proxy
        // stalls waits for the pings to find the connection dead (30 s, then 10 s for the
        // pong) and reconnects, and a second stall would take it past the watchdog. Left
        // after 45 s: one liveness check fits, and a run of stalls is not a hang.
        if plan.form == .webSocket, !tracker.waitForEnd(seconds: 45) { stopNow() }
        if !tracker.waitForEnd(seconds: options.watchdogSeconds) {
            tracker.neverEnded()
            stopNow()
            _ = tracker.waitForEnd(seconds: 10)
        }
    }

    /// Beside the workers: the token expires every 2 s (a refresh storm for every
    /// protected request in flight), `cancelAll()` every 7 s, and memory sampled each second
    /// (with the URLSession tasks started so far, whose own leak the report takes out; none
    /// with HTTP1Transport).
    private func disturb(until deadline: Date) {
        var tick = 0
        while Date() < deadline {
            Thread.sleep(forTimeInterval: 1)
            tick += 1
            if tick % 2 == 0 { world.tokens.expire() }
            if tick % 7 == 0 {
                world.client?.manager.cancelAll()
                cancelAlls += 1
            }
            let sample = MemorySample(
                resident: ProcStatus.value("VmRSS") ?? 0, heapInUse: Int(heap_info_in_use()),
                urlSessionTasks: ledger.urlSessionTasks(refreshes: world.tokens.counts.refreshes))
            sampleLock.withLock { samples.append(sample) }
        }
    }

    /// Waits until no connection is open at the proxy or the server (the client's sessions
    /// were let go of), up to 30 s.
    private func waitUntilQuiet() {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, world.proxy.openCount > 0 || world.server.counters.openConnectionCount > 0 {
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Waits up to 30 s for what the process holds to come back to `start` (threads of
    /// Dispatch's pool linger a little after their work).
    private func waitForResources(toReturnTo start: ResourceSnapshot) -> ResourceSnapshot {
        let deadline = Date().addingTimeInterval(30)
        var now = ResourceSnapshot.take(soakFolder: world.folder)
        while !now.isBack(to: start) && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
            now = ResourceSnapshot.take(soakFolder: world.folder)
        }
        return now
    }
}
