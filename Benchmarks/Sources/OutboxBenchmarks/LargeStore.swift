import Foundation
import Leash
import LeashOutbox
import Rx

/// What the large-store scenario measured.
struct LargeStoreReport {
    /// This process's resident memory at one point of the scenario.
    struct Reading {
        let point: String
        let stored: Int
        let resident: Int?
    }

    var readings: [Reading] = []
    /// Seconds of all the enqueues together (readings excluded).
    var enqueueSeconds = 0.0
    /// Latencies of the first and the last `window` enqueues, ascending.
    var firstLatencies: [Double] = []
    var lastLatencies: [Double] = []
    /// Seconds of each `pendingCount()` call on the full store.
    var pendingCountSeconds: [Double] = []
    /// Bytes of the store's files (database, WAL, shared memory) once full.
    var storeBytes = 0
    /// Seconds of `Outbox.init` on the full store (a relaunch).
    var openSeconds = 0.0
    /// Deliveries seen after the reopening, and the seconds from the end of `init` to the last.
    var drained = 0
    var drainSeconds = 0.0
    /// Peak RSS (VmHWM) while enqueueing, and over the whole scenario.
    var peakWhileEnqueueing: Int?
    var peakOverall: Int?
}

/// Enqueues `items` notes into an outbox on a fresh store, paused, reading this process's
/// RSS along the way; times `pendingCount()` on the full store; closes the outbox and
/// times opening a new one on the file (which starts delivering at once, as after a
/// relaunch); lets it deliver `drain` notes, pauses it, and reads the RSS again. Never calls
/// `items()`, the one call that loads every item.
///
/// Checked: the count is `items` when full; after the drain, the server received exactly
/// the items that left the store (`items` minus the pending count), in order, each with a
/// key of its own, and no send was retried.
func measureLargeStore(
    client: Client, server: NotesServerProcess, scratch: ScratchFolder, items: Int, drain: Int
) -> LargeStoreReport {
    var report = LargeStoreReport()
    let window = min(2_000, items)
    report.firstLatencies.reserveCapacity(window)
    report.lastLatencies.reserveCapacity(window)
    let folder = scratch.fresh("large-store")
    server.reset()
    ProcessMemory.resetPeak()
    report.readings.append(.init(point: "before the outbox", stored: 0, resident: ProcessMemory.resident()))

    var outbox = openOutbox(client: client, at: folder)
    outbox.pause()
    report.readings.append(.init(point: "outbox open, paused, empty", stored: 0, resident: ProcessMemory.resident()))
    let checkpoints = Set([1_000, 10_000, items].filter { $0 <= items })
    for seq in 0..<items {
        let start = monotonicSeconds()
        do {
            try outbox.enqueue(CreateNote(note: .numbered(seq)))
        } catch {
            fail("outbox.enqueue of item \(seq): \(error)")
        }
        let seconds = monotonicSeconds() - start
        report.enqueueSeconds += seconds
        if seq < window { report.firstLatencies.append(seconds) }
        if seq >= items - window { report.lastLatencies.append(seconds) }
        if checkpoints.contains(seq + 1) {
            report.readings.append(
                .init(
                    point: "enqueued \(grouped(Double(seq + 1)))", stored: seq + 1, resident: ProcessMemory.resident()))
        }
    }
    report.firstLatencies.sort()
    report.lastLatencies.sort()
    report.peakWhileEnqueueing = ProcessMemory.peak()

    for _ in 0..<5 {
        let start = monotonicSeconds()
        let pending = try? outbox.pendingCount()
        report.pendingCountSeconds.append(monotonicSeconds() - start)
        guard pending == items else { fail("large store: pendingCount() is \(pending ?? -1), expected \(items)") }
    }
    report.readings.append(
        .init(point: "after 5 × pendingCount()", stored: items, resident: ProcessMemory.resident()))
    report.storeBytes = ScratchFolder.size(of: folder)
    outbox.close()

    // A relaunch: a new outbox on the full file. It delivers from inside `init` on (its
    // first send starts there, before a subscriber can attach, so the recorder may see one
    // delivery less than the server); the recorder pauses it after `drain` deliveries, and
    // the send already started then (events come after the next send starts) finishes.
    let holder = OutboxHolder()
    let recorder = DeliveryRecorder(expecting: drain) { holder.outbox?.pause() }
    let openStart = monotonicSeconds()
    outbox = openOutbox(client: client, at: folder)
    let openEnd = monotonicSeconds()
    holder.outbox = outbox
    let subscription = outbox.rx.events.subscribe(onNext: { recorder.record($0) })
    report.openSeconds = openEnd - openStart
    let finished = recorder.wait(timeout: DeliveryContenders.timeout(items: drain))
    outbox.pause()
    let seen = recorder.snapshot
    guard finished, let reachedAt = seen.reachedAt else {
        fail("large store: \(seen.delivered.count) of \(drain) delivered after reopening, \(seen.retries) retries")
    }
    report.drainSeconds = reachedAt - openEnd
    let (pending, stats) = settled(outbox, server: server, items: items)
    report.drained = seen.delivered.count
    report.readings.append(
        .init(
            point: "reopened, \(grouped(Double(stats.requests))) delivered", stored: pending,
            resident: ProcessMemory.resident()))
    report.peakOverall = ProcessMemory.peak()
    subscription.dispose()
    outbox.close()
    scratch.remove(folder)

    let delivered = items - pending
    if seen.retries > 0 || seen.failures > 0 {
        fail("large store: \(seen.retries) retries and \(seen.failures) failures while draining")
    }
    if let problem = stats.problem(expecting: delivered) { fail("large store: \(problem)") }
    // The recorder's `drain`, the send under way when it paused, and the first send, which
    // the recorder may have missed.
    guard (drain...drain + 2).contains(delivered) else {
        fail("large store: \(delivered) items left the store, \(seen.delivered.count) delivery events")
    }
    return report
}

/// The pending count of a paused `outbox` and what the server saw, once they agree: every
/// item that left the store received, and no request received for an item still in it. The
/// send under way at the pause finishes meanwhile. Gives up after 10 s.
private func settled(_ outbox: Outbox, server: NotesServerProcess, items: Int) -> (pending: Int, stats: NotesStats) {
    let deadline = monotonicSeconds() + 10
    var pending = -1
    var stats = NotesStats()
    repeat {
        Thread.sleep(forTimeInterval: 0.05)
        pending = (try? outbox.pendingCount()) ?? -1
        stats = server.stats()
        if stats.requests == items - pending { break }
    } while monotonicSeconds() < deadline
    return (pending, stats)
}

/// The reopened outbox, for the recorder's callback to pause: it exists only once `init`
/// returns, and the callback runs only after the subscription that follows.
private final class OutboxHolder: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Outbox?

    var outbox: Outbox? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
