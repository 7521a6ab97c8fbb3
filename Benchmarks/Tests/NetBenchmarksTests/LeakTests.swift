import Dispatch
import Foundation
import Leash
import LeashTesting
import LoopbackServer
import Rx
import XCTest

@testable import net_benchmarks

/// An endpoint that is an object, so a test can hold it weakly and see when an execution
/// lets it go.
private final class CanaryEndpoint: Endpoint {
    var path: String { "/json" }
    var method: HTTPMethod { .get }
}

/// Something a completion handler captures, as an app's handler captures its view model.
private final class Canary {
    let name = "canary"
}

/// Waits up to 2 s for `condition`, running the run loop (frees may happen on other threads).
private func eventually(_ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(2)
    while !condition() {
        if Date() >= deadline { return false }
        RunLoop.current.run(until: Date().addingTimeInterval(0.01))
    }
    return true
}

/// What the benchmark's growing memory came from: a finished execution must let go of its
/// endpoint, its completion handler and its Rx subscription (`Resources.total` back to
/// where it was), as in RxSwift, where a terminated subscription drops its observer.
final class LeakTests: XCTestCase {
    private func stubClient() throws -> Client {
        let transport = StubTransport()
        transport.stub(.get, path: "/json", .json(LoopbackServer.sampleJSON))
        return Client(manager: try Manager.Builder().url("http://stub.invalid").transport(transport).build())
    }

    // Once a bug (fixed): Sources/Leash/Execution/Client.swift, `execute(_:serializer:queue:completion:)`:
    // the handle keeps the subscription (`handle.attach(subscription)`), the subscription's
    // handlers keep `deliver`, and `CallbackDelivery` keeps the handle: a cycle that only
    // `cancel()` breaks. Every callback execution leaks (~1.2 KB, plus whatever the
    // completion captures, such as a view controller).
    func testCallbackExecution_afterCompletion_releasesCompletionAndSubscription() throws {
        let client = try stubClient()
        let start = Resources.total
        weak var weakCanary: Canary?
        let done = expectation(description: "completed")
        do {
            let canary = Canary()
            weakCanary = canary
            client.execute(CanaryEndpoint()) { (response: Response<Sample>) in
                XCTAssertEqual(response.value, Sample.expected)
                XCTAssertEqual(canary.name, "canary")
                done.fulfill()
            }
        }
        wait(for: [done], timeout: 5)
        XCTAssertTrue(eventually { weakCanary == nil }, "the completion handler (and what it captures) is still held")
        XCTAssertTrue(eventually { Resources.total == start }, "Rx resources: \(Resources.total), at start \(start)")
    }

    // The control for the test above: the same execution, cancelled once complete, is freed,
    // so the test above fails for the cycle and not for something the test itself holds.
    func testCallbackExecution_cancelledAfterCompletion_releasesEverything() throws {
        let client = try stubClient()
        let start = Resources.total
        weak var weakCanary: Canary?
        weak var weakEndpoint: CanaryEndpoint?
        let done = expectation(description: "completed")
        var handle: DataRequest?
        do {
            let canary = Canary()
            let endpoint = CanaryEndpoint()
            weakCanary = canary
            weakEndpoint = endpoint
            handle = client.execute(endpoint) { (response: Response<Sample>) in
                XCTAssertEqual(response.value, Sample.expected)
                XCTAssertEqual(canary.name, "canary")
                done.fulfill()
            }
        }
        wait(for: [done], timeout: 5)
        handle?.cancel()
        handle = nil
        XCTAssertTrue(eventually { weakCanary == nil && weakEndpoint == nil }, "the execution is still held")
        XCTAssertTrue(eventually { Resources.total == start }, "Rx resources: \(Resources.total), at start \(start)")
    }

    // Once a bug (fixed): Sources/Leash/Execution/Client.swift, `AsyncExecution`: `start` stores the
    // subscription in `self.subscription`, whose handlers capture `self`; only `cancel()`
    // clears it, so every `await client.execute` that completes leaks (~450 bytes: the
    // waiter and the subscription; the endpoint and the pipeline are freed).
    func testAsyncExecution_afterCompletion_releasesItsSubscription() throws {
        let client = try stubClient()
        let start = Resources.total
        weak var weakEndpoint: CanaryEndpoint?
        let done = expectation(description: "completed")
        do {
            let endpoint = CanaryEndpoint()
            weakEndpoint = endpoint
            let box = EndpointBox(endpoint)
            Task {
                let value = try? await client.execute(box.endpoint, as: Sample.self)
                XCTAssertEqual(value, Sample.expected)
                done.fulfill()
            }
        }
        wait(for: [done], timeout: 5)
        XCTAssertTrue(eventually { weakEndpoint == nil }, "the endpoint is still held")
        XCTAssertTrue(eventually { Resources.total == start }, "Rx resources: \(Resources.total), at start \(start)")
    }

    // Once a bug (fixed): Sources/Rx/Core/ObservableType+Subscribe.swift, `SubscribeSink`: the returned
    // disposable is the sink, which keeps `onNext`/`onError`/`onCompleted`/`onDisposed`
    // after the sequence terminated. RxSwift drops them (its SinkDisposer lets go of the
    // sink on dispose), so `self.bag = source.subscribe(onNext: { self… })` is no cycle
    // there once the source completes, and is one here. This is the root of both leaks above.
    func testSubscribe_afterCompletion_releasesItsHandlersWhileTheDisposableIsHeld() throws {
        weak var weakCanary: Canary?
        var disposable: Disposable?
        do {
            let canary = Canary()
            weakCanary = canary
            disposable = Observable.just(1).subscribe(onNext: { _ in _ = canary.name })
        }
        XCTAssertNotNil(disposable)
        XCTAssertNil(weakCanary, "the completed subscription still holds its onNext handler")
        disposable = nil
    }
}

/// Hands the endpoint to the task; only read there.
private struct EndpointBox: @unchecked Sendable {
    let endpoint: CanaryEndpoint
    init(_ endpoint: CanaryEndpoint) { self.endpoint = endpoint }
}
