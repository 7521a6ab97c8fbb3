import Foundation
import LeashTestSupport
import LoopbackServer
import Rx
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Many sockets at once against `LoopbackServer`, subscribed and disposed at odd moments,
/// sending from many threads, with subscribers that dispose or close from inside `onNext`:
/// nothing crashes, every send tells its outcome once, and every resource comes back.
final class WebSocketStressTests: LoopbackIntegrationCase {
    private struct Echo: Endpoint {
        let query: [String: String]
        var path: String { "/ws/echo" }
        var method: HTTPMethod { .get }
        var parameters: Any? { query }
    }

    private var options: WebSocketOptions {
        var options = WebSocketOptions()
        options.pingInterval = 0.05
        options.pongTimeout = 5
        options.closeTimeout = 2
        return options
    }

    func testManySockets_disposedAtRandomMoments_whileSendingFromManyThreads() throws {
        let client = try makeClient()
        let sockets = 40
        let outcomes = SpecLocked(0)
        let sent = SpecLocked(0)
        let opened = SpecLocked(0)
        let group = DispatchGroup()
        for index in 0..<sockets {
            group.enter()
            let subscription = SingleAssignmentDisposable()
            let query = index % 4 == 0 ? ["send": "50", "size": "2000", "binary": "1"] : [:]
            subscription.setDisposable(
                client.rx.webSocket(Echo(query: query), options: options)
                    .subscribe(
                        onNext: { event in
                            guard case .opened(let socket) = event else { return }
                            opened.withLock { $0 += 1 }
                            // A quarter live on a little after opening.
                            if index % 4 == 3 {
                                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) {
                                    subscription.dispose()
                                }
                            }
                            // Sends from several threads at once.
                            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                                for message in 0..<10 {
                                    sent.withLock { $0 += 1 }
                                    _ = socket.send(.text("\(index)-\(thread)-\(message)"))
                                        .subscribe { _ in outcomes.withLock { $0 += 1 } }
                                }
                            }
                        },
                        onDisposed: { group.leave() }))
            // Disposed at once, a little later, a while later, or once open (above).
            if index % 4 != 3 {
                let delay = [0, 1, 5][index % 4]
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) { subscription.dispose() }
            }
        }

        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        let deadline = Date(timeIntervalSinceNow: 10)
        while outcomes.value < sent.value && Date() < deadline {
            RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.01))
        }
        XCTAssertEqual(outcomes.value, sent.value, "every send told its outcome")
        XCTAssertGreaterThanOrEqual(opened.value, sockets / 4, "the sockets disposed once open did open")
    }

    func testSubscribersThatDisposeOrCloseFromInsideOnNext() throws {
        let client = try makeClient()
        let query = ["send": "100", "size": "100"]

        // Disposing from inside onNext: nothing more is delivered.
        let delivered = SpecLocked(0)
        let disposable = SingleAssignmentDisposable()
        let disposed = expectation(description: "disposed")
        // The first message may come before `subscribe` returned its disposable: the
        // subscriber holds it until the disposable is there (which also holds the socket back).
        let assigned = DispatchSemaphore(value: 0)
        disposable.setDisposable(
            client.rx.webSocket(Echo(query: query), options: options)
                .subscribe(
                    onNext: { event in
                        guard event.message != nil else { return }
                        delivered.withLock { $0 += 1 }
                        _ = assigned.wait(timeout: .now() + 10)
                        disposable.dispose()
                    }, onDisposed: { disposed.fulfill() }))
        assigned.signal()
        wait(for: [disposed], timeout: 10)
        XCTAssertEqual(delivered.value, 1)
        XCTAssertEqual(server.waitForWebSocket(timeout: 5) { $0.closeReceived != nil }?.closeReceived?.code, 1000)

        // Closing from inside onNext: the messages already read may still come, then one close.
        let events = try client.rx.webSocket(Echo(query: query), options: options)
            .scan(into: [WebSocketEvent]()) { events, event in events.append(event) }
            .do(onNext: { events in
                if case .message = events.last, let socket = events.first?.socket { socket.close() }
            })
            .takeLast(1).toBlocking(timeout: 10).single()
        XCTAssertEqual(events.compactMap(\.close).count, 1)
        XCTAssertEqual(events.last?.close?.code, .normalClosure)
    }
}
