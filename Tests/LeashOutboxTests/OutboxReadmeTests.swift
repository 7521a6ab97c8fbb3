// The README's outbox examples, compiled and run (`ReadmeCodeBlocksTests` checks that each
// README block appears here line for line): a note composer whose notes wait in the outbox
// while the device is offline, tested in virtual time.

import Foundation
import LeashOutbox
import LeashTestSupport
import LeashTesting
import RxLeash
import RxTesting
import XCTest

/// `POST /notes` with the note's text.
struct CreateNote: Endpoint {
    let text: String
    var path: String { "/notes" }
    var method: HTTPMethod { .post }
    var parameters: Any? { ["text": text] }
}

/// Saves notes through the outbox; the screen shows how many are still to be sent.
final class NoteComposer {
    let waiting: Observable<Int>
    private let outbox: Outbox

    init(outbox: Outbox) {
        self.outbox = outbox
        waiting = outbox.rx.pendingCount
    }

    func save(_ text: String) throws {
        try outbox.enqueue(CreateNote(text: text), lane: "notes")
    }
}

final class NoteComposerTests: XCTestCase {
    func testANoteSavedOffline_isSentWhenTheNetworkComesBack() throws {
        let scheduler = TestScheduler(initialClock: 0)  // one tick = 1 s
        let stub = StubTransport(scheduler: scheduler)
            .stub(.post, path: "/notes", .error(.notConnectedToInternet), .error(.notConnectedToInternet), .status(201))
        let manager = try Manager.Builder()
            .url("https://api.example.com")
            .transport(stub)
            .scheduler(scheduler)  // the outbox's backoff runs in virtual time too
            .build()
        var options = OutboxOptions()
        options.jitter = 0  // exact waits: 1 s, then 2 s
        let storeURL = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID()).sqlite")
        let outbox = try Outbox(client: Client(manager: manager), storedAt: storeURL, options: options)
        let composer = NoteComposer(outbox: outbox)

        scheduler.scheduleAt(210) { try? composer.save("Buy milk") }
        let waiting = scheduler.start { composer.waiting }

        // Saved at 210 while offline, tried again at 211 and 213, sent at 213:
        XCTAssertEqual(waiting.events, [.next(200, 0), .next(210, 1), .next(213, 0)])
        XCTAssertEqual(stub.requests.count, 3)
        outbox.close()
        try? FileManager.default.removeItem(at: storeURL)
    }

    func testTheReadmesFirstExample_enqueuesAndReportsDelivery() throws {
        let stub = StubTransport().stub(.post, path: "/notes", .status(201))
        let client = Client(manager: try Manager.Builder().url("https://api.example.com").transport(stub).build())
        let folder = try TransferTestFolder(removedAfter: self)
        let fileURL = folder.store("outbox.sqlite")
        let disposeBag = DisposeBag()

        let outbox = try Outbox(client: client, storedAt: fileURL)
        outbox.rx.events
            .subscribe(onNext: { event in
                switch event {
                case .delivered(let item, let response): print("sent \(item.path): \(response.statusCode ?? 0)")
                case .failed(let item, let error): print("refused \(item.path): \(error)")  // stays in outbox.items()
                default: break
                }
            })
            .disposed(by: disposeBag)
        let item = try outbox.enqueue(CreateNote(text: "Buy milk"), lane: "notes")  // on disk when it returns

        XCTAssertEqual(try outbox.rx.pendingCount.filter { $0 == 0 }.take(1).toBlocking(timeout: 10).first(), 0)
        XCTAssertEqual(stub.requests.first?.value(forHTTPHeaderField: "Idempotency-Key"), item.idempotencyKey)
        outbox.close()
    }
}
