import Foundation
import Leash
import LeashTestSupport
import LeashTesting
import LoopbackServer
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `Manager.cancelAll()`: every execution in flight, in every form, ends with
/// `LeashError.cancelled`, the server sees each connection close, and later executions
/// run as usual.
final class CancelAllTests: LoopbackIntegrationCase {
    /// What each form ended with, by name.
    private let endings = SpecLocked<[String: String]>([:])

    private func record(_ form: String, _ error: Swift.Error?, _ done: XCTestExpectation) {
        let ending = error.map { "\($0)" } ?? "no error"
        let isFirst = endings.withLock { endings -> Bool in
            if endings[form] != nil { return false }
            endings[form] = ending
            return true
        }
        XCTAssertTrue(isFirst, "\(form) ended twice")
        done.fulfill()
    }

    private static let cancelled = "\(LeashError.cancelled)"

    func testCancelAll_endsEveryFormInFlightWithCancelled_andTheServerSeesEachConnectionClose() async throws {
        // Every form at the server at once: more than the default 6 per host.
        let client = try makeClient { $0.maximumRequests(perHost: 16) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("report.bin")
        let disposeBag = DisposeBag()
        var forms: [String: XCTestExpectation] = [:]
        func ended(_ form: String) -> XCTestExpectation {
            let done = expectation(description: form)
            forms[form] = done
            return done
        }

        // client.rx.execute's stream, without and with a deadline (a timer that may end it
        // from another thread), and the events form.
        let bare = ended("values")
        client.bareValues(SpecEndpoint("/hang"), serializer: DataResponseSerializer())
            .subscribe(onNext: { _ in XCTFail("a value") }, onError: { self.record("values", $0, bare) })
            .disposed(by: disposeBag)
        let timed = ended("values with a timeout")
        client.bareValues(SpecEndpoint("/hang", timeout: 60), serializer: DataResponseSerializer())
            .subscribe(onError: { self.record("values with a timeout", $0, timed) })
            .disposed(by: disposeBag)
        let events = ended("events")
        client.eventStream(SpecEndpoint("/hang"), serializer: DataResponseSerializer())
            .subscribe(onError: { self.record("events", $0, events) })
            .disposed(by: disposeBag)
        // The callback form.
        let callback = ended("callback")
        let request = client.execute(SpecEndpoint("/hang"), serializer: DataResponseSerializer()) { response in
            self.record("callback", response.error, callback)
        }
        // `await client.execute`, in a task of its own.
        let awaited = Task {
            try await client.execute(SpecEndpoint("/hang"), serializer: DataResponseSerializer())
        }
        // Transfers and a stream.
        let download = ended("download")
        client.download(SpecEndpoint("/hang"), to: destination) { response in
            self.record("download", response.error, download)
        }
        let upload = ended("upload")
        let body = Data(repeating: 7, count: 64 * 1024)
        client.upload(SpecEndpoint("/hang", method: .post, parameters: body), as: LoopbackSample.self) { response in
            self.record("upload", response.error, upload)
        }
        let stream = ended("stream")
        client.chunkStream(SpecEndpoint("/hang"))
            .subscribe(onError: { self.record("stream", $0, stream) })
            .disposed(by: disposeBag)

        let count = forms.count + 1
        waitForServer("every request") { $0.requestCount >= count }
        XCTAssertEqual(client.manager.executions.count, count)

        client.manager.cancelAll()

        await fulfillment(of: Array(forms.values), timeout: 10)
        do {
            _ = try await awaited.value
            XCTFail("the async form returned a value")
        } catch {
            XCTAssertEqual("\(error)", Self.cancelled, "the async form")
        }
        XCTAssertEqual(
            endings.value, forms.mapValues { _ in Self.cancelled }, "every form ends with LeashError.cancelled")
        XCTAssertFalse(request.isCancelled, "cancelAll is not the handle's cancel(): the callback is called")
        waitForServer("every connection closing") { $0.clientDisconnectCount >= count }
        XCTAssertEqual(client.manager.executions.count, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path), "nothing at the destination")

        // Started after cancelAll(): as usual.
        let later = try outcome(client, SpecEndpoint("/delay/10"), DataResponseSerializer())
        XCTAssertEqual(later.statusCode, 200)
        XCTAssertEqual(client.manager.executions.count, 0, "a finished execution leaves the registry")
    }

    func testCancelAll_withASerializationInterceptor_endsTheValuesFormsWithCancelled() throws {
        // The values forms then take the composed pipeline's values, without and with a
        // deadline: the same observer ends them.
        let client = try makeClient { $0.add(interceptor: ProceedingSerializationInterceptor()) }
        let disposeBag = DisposeBag()
        var forms: [XCTestExpectation] = []
        for (form, timeout) in [("values", nil), ("values with a timeout", 60 as TimeInterval?)] {
            let done = expectation(description: form)
            forms.append(done)
            client.bareValues(SpecEndpoint("/hang", timeout: timeout), serializer: DataResponseSerializer())
                .subscribe(onNext: { _ in XCTFail("a value") }, onError: { self.record(form, $0, done) })
                .disposed(by: disposeBag)
        }
        waitForServer("every request") { $0.requestCount >= 2 }
        XCTAssertEqual(client.manager.executions.count, 2)

        client.manager.cancelAll()

        wait(for: forms, timeout: 10)
        XCTAssertEqual(endings.value, ["values": Self.cancelled, "values with a timeout": Self.cancelled])
        XCTAssertEqual(client.manager.executions.count, 0)
        let later = try outcome(client, SpecEndpoint("/delay/1"), DataResponseSerializer())
        XCTAssertEqual(later.statusCode, 200, "\(later)")
        XCTAssertEqual(client.manager.executions.count, 0, "a finished execution leaves the registry")
    }

    func testCancelAll_leavesOtherManagersAndFinishedExecutionsAlone() throws {
        let client = try makeClient()
        let other = try makeClient()
        let finished = try outcome(client, SpecEndpoint("/delay/1"), DataResponseSerializer())
        XCTAssertEqual(finished.statusCode, 200)
        let done = expectation(description: "the other manager's request answered")
        other.execute(SpecEndpoint("/delay/300"), serializer: DataResponseSerializer()) { response in
            XCTAssertEqual(response.statusCode, 200, "\(response)")
            done.fulfill()
        }
        waitForServer("the other request") { $0.requestCount >= 2 }
        client.manager.cancelAll()
        wait(for: [done], timeout: 10)
    }

    func testCancelAll_duringAGate_endsTheWaitWithCancelled() throws {
        let gate = NeverOpeningGate()
        let client = try makeClient { $0.gate(gate) }
        let done = expectation(description: "ended")
        client.execute(SpecEndpoint("/delay/1"), serializer: DataResponseSerializer()) { response in
            XCTAssertEqual("\(response.error.map { "\($0)" } ?? "a value")", Self.cancelled)
            done.fulfill()
        }
        client.manager.cancelAll()
        wait(for: [done], timeout: 10)
        XCTAssertEqual(server.counters.requestCount, 0, "nothing was sent")
        XCTAssertTrue(gate.waitWasDisposed.value, "the wait was cancelled")
    }

    func testCancelAll_whileAnEventStreamWaitsToReconnect_endsItWithCancelled() throws {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.001)
        let stub = StubTransport(scheduler: scheduler)
            .stub(
                .get, path: "/feed", .serverSentEvents([ServerSentEvent(id: "1", data: "a")], every: 0.01))
        let client = Client(
            manager: try Manager.Builder().url("https://api.example.com").transport(stub).scheduler(scheduler).build())
        let observer = scheduler.createObserver(String.self)
        let subscription = client.serverSentEventStream(
            SpecEndpoint("/feed"), options: ServerSentEventOptions(reconnecting: true, reconnectionDelay: 3)
        )
        .map(\.data)
        .subscribe(observer)
        defer { subscription.dispose() }

        scheduler.advanceTo(1000)  // the connection ended at 10 ms; the next is due at 3010 ms
        XCTAssertEqual(stub.requests.count, 1)
        XCTAssertEqual(client.manager.executions.count, 1, "the waiting stream is in flight")
        client.manager.cancelAll()
        scheduler.advanceTo(10_000)

        XCTAssertEqual(observer.events.map(\.value.element), ["a", nil])
        XCTAssertEqual(observer.events.last?.value.error.map { "\($0)" }, Self.cancelled)
        XCTAssertEqual(stub.requests.count, 1, "no reconnection after cancelAll")
        XCTAssertEqual(client.manager.executions.count, 0)
    }
}

/// A gate that never lets an attempt go, and says whether its wait was disposed.
private final class NeverOpeningGate: RequestGate, @unchecked Sendable {
    // @unchecked: `waitWasDisposed` is locked.
    let waitWasDisposed = SpecLocked(false)

    func admission(for endpoint: Endpoint, attempt: Int) -> Completable? {
        let flag = waitWasDisposed
        return Completable.create { _ in Disposables.create { flag.withLock { $0 = true } } }
    }
}

/// A serialization interceptor that lets every value through.
private struct ProceedingSerializationInterceptor: SerializationInterceptor {
    func intercept<Serializer: ResponseSerializer>(
        chain: InterceptorChain<Serializer.SerializedObject>, response: Response<Data>,
        result: Result<Serializer.SerializedObject, Swift.Error>, serializer: Serializer
    ) {
        chain.proceed()
    }
}
