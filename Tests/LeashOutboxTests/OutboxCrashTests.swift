import Foundation
import Leash
import LeashOutbox
import LeashTestSupport
import LoopbackServer
import XCTest

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Kill at any instant: child processes (`outbox-crash-child`) enqueue and deliver to a
/// server that deduplicates by key and drops some answers after doing the work, and are
/// SIGKILLed at random moments, round after round on one store; then the store is drained.
/// Every item whose `enqueue` returned must have exactly one effect, none two, each lane in
/// order, and the store must end empty. Without keys, the same run must show the duplicates
/// the keys prevent.
///
/// The moments and drops come from a seed, printed when a check fails; `OUTBOX_CRASH_SEED`
/// runs one seed again (a process's own timing still varies from run to run).
final class OutboxCrashTests: XCTestCase {
    private struct Run {
        var committed: Set<Int> = []
        var effects: [IdempotentEffects.Effect] = []
        var leftInStore = 0
        var requests = 0
        var killedWhileEnqueueing = 0
    }

    func testKilledAtRandom_everyCommittedItemHasExactlyOneEffect_inLaneOrder() throws {
        let seed = Self.seed(default: 0x5EED_0001)
        let run = try crashRun(seed: seed, rounds: 16, itemsPerRound: 30, processes: 1, keys: true)
        assertExactlyOnce(run, seed: seed)
    }

    func testTwoProcessesOnOneStore_killedAtRandom_stillOneEffectPerItem() throws {
        let seed = Self.seed(default: 0x5EED_0002)
        let run = try crashRun(seed: seed, rounds: 12, itemsPerRound: 20, processes: 2, keys: true)
        assertExactlyOnce(run, seed: seed)
    }

    func testWithoutKeys_theSameRunAppliesSomeWritesTwice() throws {
        let seed = Self.seed(default: 0x5EED_0003)
        let run = try crashRun(seed: seed, rounds: 4, itemsPerRound: 30, processes: 1, keys: false)
        let counts = Dictionary(grouping: run.effects, by: Self.number).mapValues(\.count)
        XCTAssertEqual(run.leftInStore, 0, "seed \(seed)")
        XCTAssertTrue(run.committed.isSubset(of: Set(counts.keys.compactMap { $0 })), "seed \(seed): a write was lost")
        let duplicated = counts.filter { $0.value > 1 }.count
        XCTAssertGreaterThan(duplicated, 0, "seed \(seed): lost answers must show as duplicates without keys")
    }

    // MARK: The run

    private func crashRun(seed: UInt64, rounds: Int, itemsPerRound: Int, processes: Int, keys: Bool) throws -> Run {
        let server = try LoopbackServer()
        server.start()
        defer { server.stop() }
        let effects = server.idempotentRoute(method: "POST", path: "/idempotent/*", seed: seed)
        effects.dropResponseProbability = 0.25
        let folder = try TransferTestFolder(removedAfter: self)
        let store = folder.store()
        var random = SplitMix64(seed: seed)
        var run = Run()
        var next = 0

        for _ in 0..<rounds {
            let children = try (0..<processes).map { _ -> Child in
                defer { next += itemsPerRound }
                return try Child.launch(
                    store: store, baseURL: server.baseURL, first: next, count: itemsPerRound, keys: keys)
            }
            // Each is killed at its own moment: at open, mid-enqueue, mid-delivery, or after.
            for child in children {
                child.kill(after: 0.4 * random.nextUnit())
            }
            for child in children {
                let outcome = child.finish()
                run.committed.formUnion(outcome.committed)
                if outcome.committed.count < itemsPerRound { run.killedWhileEnqueueing += 1 }
            }
        }
        let drain = try Child.launch(store: store, baseURL: server.baseURL, first: next, count: 0, keys: keys)
        let drained = drain.finish(timeout: 90)
        XCTAssertTrue(drained.exitedCleanly, "seed \(seed): the draining child did not finish:\n\(drained.output)")

        let outbox = try Outbox(
            client: Client(manager: try Manager.Builder().url(server.baseURL).build()), storedAt: store)
        outbox.pause()
        run.leftInStore = try outbox.items().count
        outbox.close()
        run.effects = effects.effects
        run.requests = effects.requestCount
        print(
            "outbox crash run, seed \(seed): \(rounds) rounds of \(processes) process(es), "
                + "\(run.killedWhileEnqueueing) killed while enqueueing, \(run.committed.count) items committed, "
                + "\(run.effects.count) effects, \(run.requests) requests")
        return run
    }

    private func assertExactlyOnce(_ run: Run, seed: UInt64, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(run.leftInStore, 0, "seed \(seed): the store is not empty", file: file, line: line)
        XCTAssertGreaterThan(
            run.committed.count, 0, "seed \(seed): no child committed anything", file: file, line: line)
        let counts = Dictionary(grouping: run.effects, by: Self.number).mapValues(\.count)
        let twice = counts.filter { $0.value > 1 }.map(\.key)
        XCTAssertTrue(twice.isEmpty, "seed \(seed): applied twice: \(twice)", file: file, line: line)
        let missing = run.committed.filter { counts[$0] == nil }
        XCTAssertTrue(
            missing.isEmpty, "seed \(seed): committed but never applied: \(missing.sorted())", file: file, line: line)
        // Within a lane (each child has lanes of its own), the effects come in enqueue order.
        for (lane, effects) in Dictionary(grouping: run.effects, by: Self.lane) {
            let numbers = effects.compactMap(Self.number)
            XCTAssertEqual(numbers, numbers.sorted(), "seed \(seed): lane \(lane) out of order", file: file, line: line)
        }
    }

    private static func number(_ effect: IdempotentEffects.Effect) -> Int? {
        (try? JSONSerialization.jsonObject(with: effect.body) as? [String: Any])?["number"] as? Int
    }

    private static func lane(_ effect: IdempotentEffects.Effect) -> String {
        (try? JSONSerialization.jsonObject(with: effect.body) as? [String: Any])?["lane"] as? String ?? "?"
    }

    private static func seed(default value: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment["OUTBOX_CRASH_SEED"].flatMap { UInt64($0) } ?? value
    }
}

/// One `outbox-crash-child` process and what it printed.
private final class Child: @unchecked Sendable {
    // @unchecked: `process` is touched by the test's thread only; `output` is locked.
    struct Outcome {
        var committed: Set<Int>
        var exitedCleanly: Bool
        var output: String
    }

    private let process = Process()
    private let pipe = Pipe()
    private let output = SpecLocked(Data())
    /// Signalled once the reader has read the child's output to its end.
    private let outputRead = DispatchSemaphore(value: 0)

    /// The child's executable, built beside the test bundle (SwiftPM builds it for this target).
    static var executable: URL? {
        let candidates = [
            Bundle.main.executableURL?.deletingLastPathComponent(), Bundle.main.bundleURL,
            Bundle(for: Child.self).bundleURL.deletingLastPathComponent(),
        ]
        return candidates.compactMap { $0?.appendingPathComponent("outbox-crash-child") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static func launch(store: URL, baseURL: URL, first: Int, count: Int, keys: Bool) throws -> Child {
        let child = Child()
        guard let executable else { throw XCTSkip("outbox-crash-child is not built beside the tests") }
        child.process.executableURL = executable
        child.process.arguments =
            [
                "--store", store.path, "--base-url", baseURL.absoluteString, "--first", String(first), "--count",
                String(count), "--lanes", "3",
            ] + (keys ? [] : ["--no-keys"])
        child.process.standardOutput = child.pipe
        try child.process.run()
        // Read with blocking reads on a thread of their own until the end, not with a
        // `readabilityHandler`: on Linux that arms a Dispatch read source, and tearing such
        // sources down while their descriptors close can leave libdispatch's epoll loop a
        // freed registration (swift-corelibs-libdispatch issue 949); it crashed this test's
        // process once in CI, in `_dispatch_event_loop_drain`.
        let handle = child.pipe.fileHandleForReading
        let output = child.output
        let outputRead = child.outputRead
        Thread.detachNewThread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                output.withLock { $0.append(data) }
            }
            outputRead.signal()
        }
        return child
    }

    /// Sends SIGKILL after `seconds` (unless the child ended before).
    func kill(after seconds: TimeInterval) {
        let process = self.process
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            if process.isRunning { _ = sendKill(to: process.processIdentifier) }
        }
    }

    /// Waits for the child to end (killing it after `timeout` seconds) and reads what it said.
    func finish(timeout: TimeInterval = 60) -> Outcome {
        let ended = DispatchSemaphore(value: 0)
        let process = self.process
        DispatchQueue.global().async {
            process.waitUntilExit()
            ended.signal()
        }
        if ended.wait(timeout: .now() + timeout) == .timedOut {
            _ = sendKill(to: process.processIdentifier)
            ended.wait()
        }
        // The child is gone, so the pipe's write end is closed: the reader reaches the end.
        outputRead.wait()
        let text = output.withLock { String(decoding: $0, as: UTF8.self) }
        let committed = text.split(separator: "\n").compactMap { line -> Int? in
            line.hasPrefix("committed ") ? Int(line.dropFirst("committed ".count)) : nil
        }
        return Outcome(
            committed: Set(committed),
            exitedCleanly: process.terminationReason == .exit && process.terminationStatus == 0, output: text)
    }
}

/// SIGKILL (a free function: inside `Child`, `kill` is its own method).
private func sendKill(to pid: Int32) -> Int32 {
    kill(pid, SIGKILL)
}
