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

/// Many executions at once against a real server, started on several threads and ended
/// every way (a value, a failure, a timeout, a dispose, `cancelAll()` racing them): each
/// tells the end observer exactly once. Run under ThreadSanitizer in CI.
final class ExecutionEndStressTests: LoopbackIntegrationCase {
    /// An endpoint that knows which execution it is.
    private struct IndexedEndpoint: Endpoint {
        let index: Int
        let path: String
        var method: HTTPMethod { .get }
        var timeout: TimeInterval?
    }

    /// The ends told, per execution index.
    private final class Ends: ExecutionEndObserver, @unchecked Sendable {
        // @unchecked: `counts` is locked.
        private let counts: SpecLocked<[Int]>

        init(count: Int) {
            counts = SpecLocked(Array(repeating: 0, count: count))
        }

        func executionDidEnd(_ end: ExecutionEnd) {
            guard let index = (end.endpoint as? IndexedEndpoint)?.index else { return }
            counts.withLock { $0[index] += 1 }
        }

        var all: [Int] { counts.value }
    }

    func testEveryExecution_isToldOfItsEndOnce_howeverItEnds() throws {
        let count = specIsThreadSanitized ? 120 : 400
        let ends = Ends(count: count)
        let client = try makeClient { $0.add(interceptor: ends) }
        let finished = DispatchGroup()
        let started = DispatchGroup()
        let subscriptions = CompositeDisposable()
        // A subscriber told of an end twice must fail the test, not unbalance `finished`.
        let endedTwice = SpecLocked<[Int]>([])
        let left = SpecLocked(Set<Int>())
        let leave: @Sendable (Int) -> Void = { index in
            if left.withLock({ $0.insert(index).inserted }) {
                finished.leave()
            } else {
                endedTwice.withLock { $0.append(index) }
            }
        }
        let threads = 4
        for thread in 0..<threads {
            started.enter()
            DispatchQueue.global().async {
                defer { started.leave() }
                for index in stride(from: thread, to: count, by: threads) {
                    // Values, a 404, a timeout (50 ms against 300 ms), or a dispose.
                    let path = ["/delay/\(index % 5)", "/status/404", "/delay/300", "/delay/200"][index % 4]
                    let endpoint = IndexedEndpoint(index: index, path: path, timeout: index % 4 == 2 ? 0.05 : nil)
                    let serializer = DataResponseSerializer()
                    finished.enter()
                    if index % 4 == 3 {
                        let values = client.bareValues(endpoint, serializer: serializer)
                        let subscription = values.subscribe(onError: { _ in })
                        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(index % 20)) {
                            subscription.dispose()
                            leave(index)
                        }
                        continue
                    }
                    if index % 2 == 0 {
                        let subscription = client.eventStream(endpoint, serializer: serializer)
                            .subscribe(onError: { _ in leave(index) }, onCompleted: { leave(index) })
                        _ = subscriptions.insert(subscription)
                    } else {
                        client.execute(endpoint, serializer: serializer) { _ in leave(index) }
                    }
                }
            }
        }
        // cancelAll() now and then while they start and end.
        let stop = SpecLocked(false)
        let cancelling = DispatchGroup()
        cancelling.enter()
        DispatchQueue.global().async {
            while !stop.value { client.manager.cancelAll() }
            cancelling.leave()
        }
        started.wait()
        XCTAssertEqual(finished.wait(timeout: .now() + 60), .success, "every execution ended")
        stop.withLock { $0 = true }
        cancelling.wait()
        subscriptions.dispose()

        XCTAssertEqual(endedTwice.value, [], "each subscriber told of one end")
        XCTAssertEqual(client.manager.executions.count, 0, "nothing left in flight")
        let all = ends.all
        XCTAssertEqual(all.indices.filter { all[$0] != 1 }, [], "told once each: \(all.filter { $0 != 1 }.count) not")
    }
}
