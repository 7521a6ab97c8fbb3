import Foundation
import Leash
import LeashOutbox
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

/// A folder of its own for each test's stores, removed afterwards.
final class OutboxFolder {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("leash-outbox-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func store(_ name: String = "outbox.sqlite") -> URL { url.appendingPathComponent(name) }
}

/// Records an outbox's events with the virtual time each arrived at.
final class EventRecorder: @unchecked Sendable {
    // @unchecked: every access is behind `lock`.
    private let lock = NSLock()
    private var recorded: [(time: Int, event: OutboxEvent)] = []
    private let disposable: Disposable

    init(_ outbox: Outbox, clock: @escaping @Sendable () -> Int = { 0 }) {
        let box = Box()
        disposable = outbox.rx.events.subscribe(onNext: { event in box.recorder?.append(clock(), event) })
        box.recorder = self
    }

    deinit { disposable.dispose() }

    private final class Box: @unchecked Sendable {
        weak var recorder: EventRecorder?
    }

    private func append(_ time: Int, _ event: OutboxEvent) {
        lock.lock()
        recorded.append((time, event))
        lock.unlock()
    }

    var events: [(time: Int, event: OutboxEvent)] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

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
