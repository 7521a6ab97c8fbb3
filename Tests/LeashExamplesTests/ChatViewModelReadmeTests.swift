import Foundation
import LeashTesting  // StubTransport and its scripted WebSocket peer
import RxLeash
import RxTesting  // TestScheduler, and XCTAssertEqual for recorded events
import XCTest

/// A chat room: `GET /rooms/{name}`, upgraded to a WebSocket (`wss://` under an `https`
/// base URL).
struct ChatRoom: Endpoint {
    let name: String
    var path: String { "/rooms/\(name)" }
    var method: HTTPMethod { .get }
}

/// A chat screen's view model: a text field and a send button in; the conversation, the
/// connection's status and one-off errors out. It holds the room's `WebSocketSession` for as
/// long as it lives: the connection comes back after a drop, and a message sent while it is
/// down goes out once it is back.
final class ChatViewModel: Sendable {
    /// What was said in the room, oldest first (this app's own messages come back from the
    /// server like everyone else's).
    let messages: Driver<[String]>
    /// "Connecting…", "Connected", "Offline" (just dropped) or "Reconnecting…".
    let status: Driver<String>
    /// One-off problems, for a banner: a message that could not be sent, the room gone.
    let errors: Signal<String>
    /// The subscriptions that run while the view model lives (releasing it closes the room).
    private let disposeBag = DisposeBag()

    init(text: Driver<String>, send: Signal<Void>, room: ChatRoom, client: Client, reconnect: WebSocketReconnectPolicy)
    {
        var options = WebSocketOptions()
        options.reconnect = reconnect
        let session = client.webSocketSession(room, options: options)
        let conversation = BehaviorRelay<[String]>(value: [])
        let failures = PublishRelay<String>()

        // Kept from the start, whether or not a view is bound yet.
        session.events
            .compactMap { event -> String? in
                guard case .message(.text(let line)) = event else { return nil }
                return line
            }
            .subscribe(
                onNext: { conversation.accept(conversation.value + [$0]) },
                onError: { failures.accept("The room closed: \($0)") }
            )
            .disposed(by: disposeBag)

        // A tap sends what the field holds; while the connection is down the session keeps
        // the message and sends it once it is back.
        send.withLatestFrom(text)
            .filter { !$0.isEmpty }
            .emit(onNext: { [disposeBag] line in
                session.send(.text(line))
                    .subscribe(onError: { failures.accept("Not sent: \(line) (\($0))") })
                    .disposed(by: disposeBag)
            })
            .disposed(by: disposeBag)

        messages = conversation.asDriver()
        // A view that binds late first learns where the connection stands now.
        status = session.events
            .compactMap { event -> String? in
                switch event {
                case .opened: return "Connected"
                case .closed: return "Offline"
                case .reconnecting: return "Reconnecting…"
                case .message, .pong: return nil
                }
            }
            .startWith("Connecting…")
            .asDriver(onErrorJustReturn: "Offline")
        errors = failures.asSignal()
    }
}

final class ChatViewModelReadmeTests: XCTestCase {
    func testAMessageTypedWhileReconnecting_goesOutOnceTheConnectionIsBack() throws {
        let scheduler = TestScheduler(initialClock: 0)
        let transport = StubTransport(scheduler: scheduler)
        // The server's side, once per connection: it echoes every message, and cuts the
        // connection 30 s after it opened.
        transport.stubWebSocket(path: "/rooms/general") { peer in
            peer.onMessage { message in peer.send(message) }
            peer.after(30) { peer.drop() }
        }
        let client = Client(
            manager: try Manager.Builder().url("https://chat.example.com").transport(transport)
                .scheduler(scheduler).build())
        var reconnect = WebSocketReconnectPolicy()
        reconnect.initialDelay = 5
        reconnect.jitter = 0  // exact virtual times

        // Drivers and Signals made inside deliver on the test scheduler, not the main thread.
        SharingScheduler.mock(scheduler: scheduler) {
            // The user types "hello" and taps send at 10; the connection drops at 30; the
            // user types and sends "are you there?" at 32 and 33, while reconnecting.
            let text = scheduler.createHotObservable([.next(10, "hello"), .next(32, "are you there?")])
            let taps = scheduler.createHotObservable([.next(11, ()), .next(33, ())])
            let viewModel = ChatViewModel(
                text: text.asDriver(onErrorJustReturn: ""), send: taps.asSignal(onErrorJustReturn: ()),
                room: ChatRoom(name: "general"), client: client, reconnect: reconnect)
            let messages = scheduler.createObserver([String].self)
            let status = scheduler.createObserver(String.self)
            let errors = scheduler.createObserver(String.self)
            let bag = DisposeBag()
            viewModel.messages.drive(messages).disposed(by: bag)
            viewModel.status.drive(status).disposed(by: bag)
            viewModel.errors.emit(to: errors).disposed(by: bag)

            // Up to 60: the second connection (open at 35) is still up.
            scheduler.advanceTo(60)

            // Outputs reach the view on the scheduler, a tick after each hop: the tap at 11
            // reaches the view model at 12, the echo the view at 13. The message typed while
            // reconnecting goes out when the connection is back at 35, and comes back then.
            XCTAssertEqual(
                messages.events,
                [.next(1, []), .next(13, ["hello"]), .next(36, ["hello", "are you there?"])])
            XCTAssertEqual(
                status.events,
                [
                    .next(1, "Connecting…"), .next(2, "Connected"), .next(31, "Offline"),
                    .next(32, "Reconnecting…"), .next(36, "Connected"),
                ])
            XCTAssertEqual(errors.events, [])
        }
    }
}
