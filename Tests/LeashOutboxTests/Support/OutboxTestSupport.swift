import Foundation
import Leash
import LeashOutbox
import LeashTestSupport
import LeashTesting
import Rx
import RxTesting
import XCTest

/// A note the tests' endpoints send.
struct Note: Codable, Equatable, Sendable {
    var text: String
}

/// The write most tests enqueue: `POST /notes` with a JSON note.
struct PostNote: Endpoint {
    var text: String
    var path = "/notes"
    var method: HTTPMethod { .post }
    var parameters: Any? { Note(text: text) }
    var headers: [String: String]? { ["X-Client-Note": text] }
}

extension TransferTestFolder {
    /// A store file in the test's folder.
    func store(_ name: String = "outbox.sqlite") -> URL { file(name) }
}

/// Records an outbox's events with the virtual time each arrived at.
final class EventRecorder: Sendable {
    private let recorded = SpecLocked<[(time: Int, event: OutboxEvent)]>([])
    private let disposable: Disposable

    init(_ outbox: Outbox, clock: @escaping @Sendable () -> Int = { 0 }) {
        let recorded = self.recorded
        disposable = outbox.rx.events.subscribe(onNext: { event in recorded.withLock { $0.append((clock(), event)) } })
    }

    deinit { disposable.dispose() }

    var events: [(time: Int, event: OutboxEvent)] { recorded.value }

    /// Each event as "time kind path", for timelines that read as a list.
    var timeline: [String] {
        events.map { "\($0.time) \(Self.kind($0.event)) \($0.event.item.path)" }
    }

    static func kind(_ event: OutboxEvent) -> String {
        switch event {
        case .enqueued: return "enqueued"
        case .sending(let item): return "sending#\(item.attempts)"
        case .retrying(_, let after, _): return "retrying(\(after))"
        case .delivered(_, let extra): return "delivered(\(extra.statusCode ?? 0))"
        case .failed(_, let error): return "failed(\(error.statusCode.map(String.init) ?? "-"))"
        }
    }
}

extension XCTestCase {
    /// A client on `transport` whose timers run on `scheduler`.
    func stubClient(
        _ transport: StubTransport, scheduler: TestScheduler, configure: (Manager.Builder) -> Manager.Builder = { $0 }
    )
        throws -> Client
    {
        Client(
            manager: try configure(
                Manager.Builder().url("https://api.example.com").transport(transport).scheduler(scheduler)
            ).build())
    }

    /// Options with exact waits, for timelines in virtual time.
    func exactOptions(_ configure: (inout OutboxOptions) -> Void = { _ in }) -> OutboxOptions {
        var options = OutboxOptions()
        options.jitter = 0
        configure(&options)
        return options
    }
}

extension StubResponse {
    /// This response with `headers` added.
    func with(headers: [String: String]) -> StubResponse {
        var response = self
        for (name, value) in headers { response.headers[name] = value }
        return response
    }
}
