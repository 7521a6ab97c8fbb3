import Foundation
import Leash
import LeashOutbox

/// One side of the enqueue-latency comparison: `start` makes a fresh store and returns its
/// timed operation (which times itself, so that its own bookkeeping stays outside) and its
/// check, which also removes the store.
struct LatencyContender {
    /// One round on one fresh store.
    struct Session {
        /// Does operation number `seq` and returns the seconds it took.
        let operation: (Int) -> Double
        let finish: () -> String?
    }

    let name: String
    let start: () -> Session
}

/// Every sample of one contender, pooled over the rounds.
struct LatencyResult {
    let name: String
    /// Seconds, ascending.
    let samples: [Double]
    /// The median over the rounds of process CPU seconds per operation.
    let cpuPerOperation: Double

    /// The nearest-rank percentile at `fraction` (0.99 for p99).
    func quantile(_ fraction: Double) -> Double { percentile(samples, fraction) }
    var max: Double { samples.last ?? .nan }
    var mean: Double { samples.reduce(0, +) / Double(samples.count) }
}

/// Measures `contenders` side by side: a warm-up of `warmUp` operations each on a store of
/// its own, then `rounds` rounds in which each does `count` operations on a fresh store, in
/// an order rotated every round. Every round is checked.
func measureLatencies(_ contenders: [LatencyContender], count: Int, warmUp: Int, rounds: Int) -> [LatencyResult] {
    for contender in contenders { _ = session(contender, count: warmUp) }
    var samples = Array(repeating: [Double](), count: contenders.count)
    var cpu = Array(repeating: [Double](), count: contenders.count)
    for round in 0..<rounds {
        for offset in 0..<contenders.count {
            let index = (offset + round) % contenders.count
            let (times, cpuSeconds) = session(contenders[index], count: count)
            samples[index] += times
            cpu[index].append(cpuSeconds / Double(count))
        }
    }
    return contenders.indices.map { index in
        LatencyResult(
            name: contenders[index].name, samples: samples[index].sorted(), cpuPerOperation: median(cpu[index]))
    }
}

private func session(_ contender: LatencyContender, count: Int) -> (samples: [Double], cpu: Double) {
    let session = contender.start()
    var samples: [Double] = []
    samples.reserveCapacity(count)
    let cpuStart = processCPUSeconds()
    for seq in 0..<count { samples.append(session.operation(seq)) }
    let cpu = processCPUSeconds() - cpuStart
    if let problem = session.finish() { fail("\(contender.name): \(problem)") }
    return (samples, cpu)
}

/// The three sides of the enqueue-latency scenario.
enum EnqueueContenders {
    /// `outbox.enqueue` of a note on an outbox opened on a fresh store and paused: encoding
    /// the endpoint, the item's ids, one SQLite commit (WAL, `synchronous=FULL`), the event.
    /// Checked: every item stored and pending, each with a key of its own.
    static func outbox(client: Client, scratch: ScratchFolder) -> LatencyContender {
        LatencyContender(name: "outbox.enqueue (paused)") {
            let folder = scratch.fresh("enqueue")
            let outbox = openOutbox(client: client, at: folder)
            outbox.pause()
            var keys = Set<String>()
            var enqueued = 0
            return LatencyContender.Session(
                operation: { seq in
                    let start = monotonicSeconds()
                    let item: OutboxItem
                    do {
                        item = try outbox.enqueue(CreateNote(note: .numbered(seq)))
                    } catch {
                        fail("outbox.enqueue: \(error)")
                    }
                    let seconds = monotonicSeconds() - start
                    keys.insert(item.idempotencyKey)
                    enqueued += 1
                    return seconds
                },
                finish: {
                    defer {
                        outbox.close()
                        scratch.remove(folder)
                    }
                    let pending = try? outbox.pendingCount()
                    guard pending == enqueued else {
                        return "\(pending.map(String.init) ?? "no") items pending after \(enqueued) enqueues"
                    }
                    guard keys.count == enqueued else { return "\(keys.count) distinct keys for \(enqueued) items" }
                    return nil
                })
        }
    }

    /// The same row committed by SQLite directly (see `SQLiteFloor`).
    static func sqlite(scratch: ScratchFolder) -> LatencyContender {
        LatencyContender(name: "SQLite floor: the same row, schema and pragmas") {
            let folder = scratch.fresh("sqlite-floor")
            let body = (try? JSONEncoder().encode(Note.numbered(100_000))) ?? Data()
            let floor = SQLiteFloor(path: folder.appendingPathComponent("floor.sqlite").path, body: body)
            var inserted = 0
            return LatencyContender.Session(
                operation: { _ in
                    inserted += 1
                    return floor.timedInsert()
                },
                finish: {
                    defer { scratch.remove(folder) }
                    let rows = floor.count()
                    return rows == inserted ? nil : "\(rows) rows after \(inserted) inserts"
                })
        }
    }

    /// Appends of 16 KiB, each synced (see `DiskFloor`).
    static func disk(scratch: ScratchFolder) -> LatencyContender {
        LatencyContender(name: "disk floor: 16 KiB append + fdatasync") {
            let folder = scratch.fresh("disk-floor")
            let path = folder.appendingPathComponent("floor.bin").path
            let floor = DiskFloor(path: path)
            return LatencyContender.Session(
                operation: { _ in floor.timedAppend() },
                finish: {
                    defer { scratch.remove(folder) }
                    let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
                    let expected = floor.appended * DiskFloor.blockSize
                    return size == expected ? nil : "the file has \(size ?? -1) bytes, expected \(expected)"
                })
        }
    }
}

/// An outbox on `outbox.sqlite` in `folder`, with the default options.
func openOutbox(client: Client, at folder: URL) -> Outbox {
    do {
        return try Outbox(client: client, storedAt: folder.appendingPathComponent("outbox.sqlite"))
    } catch {
        fail("cannot open the outbox in \(folder.path): \(error)")
    }
}
