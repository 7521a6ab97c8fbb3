import Dispatch
import Foundation
import Leash
import LeashTestSupport
import LoopbackServer
import Rx
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `Manager.cancelAll()` racing executions started and ending on several threads: each
/// execution ends exactly once, with its value or `LeashError.cancelled`; nothing is left
/// in the registry or alive. Run under ThreadSanitizer in CI.
final class CancelAllStressTests: LoopbackIntegrationCase {
    /// How each execution ended: "value", "cancelled", or what else happened.
    private final class Endings: @unchecked Sendable {
        // @unchecked: every access holds `lock`.
        private let lock = NSLock()
        private var endings: [[String]]

        init(count: Int) {
            endings = Array(repeating: [], count: count)
        }

        /// Records `ending` of execution `index`; true if it is its first (a second end
        /// must fail the test, not unbalance its `DispatchGroup`).
        func record(_ index: Int, _ ending: String) -> Bool {
            lock.withLock {
                endings[index].append(ending)
                return endings[index].count == 1
            }
        }

        var all: [[String]] { lock.withLock { endings } }
    }

    private static func ending(_ error: Swift.Error?) -> String {
        guard let error else { return "value" }
        if case .cancelled = error as? LeashError { return "cancelled" }
        return "\(error)"
    }

    func testCancelAll_racingNewExecutionsOnSeveralThreads() throws {
        let client = try makeClient()
        let count = specIsThreadSanitized ? 120 : 400
        let endings = Endings(count: count)
        let group = DispatchGroup()
        let disposeBag = CompositeDisposable()
        let starting = DispatchGroup()
        for _ in 0..<count { group.enter() }
        let threads = 4
        for thread in 0..<threads {
            starting.enter()
            DispatchQueue.global().async {
                defer { starting.leave() }
                for index in stride(from: thread, to: count, by: threads) {
                    let path = "/delay/\(index % 7)"
                    switch index % 3 {
                    case 0:
                        client.execute(SpecEndpoint(path), serializer: DataResponseSerializer()) { response in
                            if endings.record(index, Self.ending(response.error)) { group.leave() }
                        }
                    case 1:
                        let subscription = client.bareValues(
                            SpecEndpoint(path, timeout: index % 2 == 0 ? 30 : nil), serializer: DataResponseSerializer()
                        )
                        .subscribe(
                            onError: { error in
                                if endings.record(index, Self.ending(error)) { group.leave() }
                            },
                            onCompleted: {
                                if endings.record(index, "value") { group.leave() }
                            })
                        _ = disposeBag.insert(subscription)
                    default:
                        Task {
                            let first: Bool
                            do {
                                _ = try await client.execute(SpecEndpoint(path), serializer: DataResponseSerializer())
                                first = endings.record(index, "value")
                            } catch {
                                first = endings.record(index, Self.ending(error))
                            }
                            if first { group.leave() }
                        }
                    }
                }
            }
        }
        // cancelAll() from another thread, again and again, while they start and end.
        let cancelling = DispatchGroup()
        cancelling.enter()
        let stop = SpecLocked(false)
        DispatchQueue.global().async {
            while !stop.value { client.manager.cancelAll() }
            cancelling.leave()
        }
        starting.wait()
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success, "every execution ended")
        stop.withLock { $0 = true }
        cancelling.wait()
        disposeBag.dispose()

        let all = endings.all
        XCTAssertTrue(all.allSatisfy { $0.count == 1 }, "each ended once: \(all.filter { $0.count != 1 })")
        let unexpected = all.flatMap { $0 }.filter { $0 != "value" && $0 != "cancelled" }
        XCTAssertEqual(unexpected, [], "only values and cancellations")
        XCTAssertGreaterThan(all.filter { $0 == ["cancelled"] }.count, 0, "cancelAll cancelled some")
        XCTAssertEqual(client.manager.executions.count, 0, "nothing left in the registry")

        // After the storm: as usual.
        let later = try outcome(client, SpecEndpoint("/delay/1"), DataResponseSerializer())
        XCTAssertEqual(later.statusCode, 200)
    }
}
