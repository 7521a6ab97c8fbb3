import Foundation
import Leash
import LeashOutbox
import LeashTestSupport
import LoopbackServer
import Rx
import RxLeash
import RxTesting
import XCTest

/// The outbox against a real server on 127.0.0.1 that deduplicates by key
/// (`LoopbackServer.idempotentRoute`): lost answers, kept-alive connections, token refresh.
final class OutboxLoopbackTests: LeakCheckedTestCase {
    private var server: LoopbackServer!
    private var folder: TransferTestFolder!

    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try LoopbackServer()
        server.start()
        folder = try TransferTestFolder(removedAfter: self)
    }

    override func tearDown() {
        server.stop()
        server = nil
        super.tearDown()
    }

    private func outbox(
        _ configure: (Manager.Builder) -> Manager.Builder = { $0 }, options: (inout OutboxOptions) -> Void = { _ in }
    ) throws -> Outbox {
        let manager = try configure(Manager.Builder().url(server.baseURL).timeout(5)).build()
        return try Outbox(
            client: Client(manager: manager), storedAt: folder.store(),
            options: exactOptions {
                $0.initialRetryDelay = 0.01
                $0.maximumRetryDelay = 0.05
                options(&$0)
            })
    }

    /// Waits until nothing is left to deliver.
    private func drain(_ outbox: Outbox, timeout: TimeInterval = 30) throws {
        XCTAssertEqual(
            try outbox.rx.pendingCount.filter { $0 == 0 }.take(1).toBlocking(timeout: timeout).first(), 0)
    }

    private func number(_ effect: IdempotentEffects.Effect) -> String? {
        (try? JSONDecoder().decode(Note.self, from: effect.body))?.text
    }

    func testLostAnswers_areAskedForAgainWithTheSameKey_andEachWriteHasOneEffect() throws {
        let effects = server.idempotentRoute(method: "POST", path: "/notes", seed: 42)
        effects.dropResponseProbability = 0.4
        let outbox = try outbox()
        let items = try (0..<30).map { try outbox.enqueue(PostNote(text: "\($0)")) }
        try drain(outbox)

        XCTAssertEqual(effects.effects.map(number), (0..<30).map { "\($0)" }, "each once, in order")
        XCTAssertEqual(Set(effects.effects.compactMap(\.key)), Set(items.map(\.idempotencyKey)))
        XCTAssertGreaterThan(effects.effects.filter(\.responseDropped).count, 0)
        XCTAssertGreaterThan(effects.requestCount, 30, "lost answers were asked for again")
        XCTAssertEqual(try outbox.items().count, 0)
    }

    func testALostAnswerOnAKeptAliveConnection_isDeliveredOnce_withItsBody() throws {
        // Kept-alive connections: on Linux, URLSession would re-send the POST without its body
        // on a new connection when the server closes the reused one without answering; the
        // transport fails the send as lost instead, and the retry carries body and key.
        let effects = server.idempotentRoute(method: "POST", path: "/notes", seed: 7)
        effects.closesConnections = false
        let outbox = try outbox { $0.timeout(1) }
        try outbox.enqueue(PostNote(text: "warm-up"))  // opens the connection to reuse
        try drain(outbox)
        effects.dropResponseProbability = 1
        let item = try outbox.enqueue(PostNote(text: "after the drop"))
        XCTAssertTrue(effects.waitForRequests(2, timeout: 10))
        effects.dropResponseProbability = 0
        try drain(outbox)

        XCTAssertEqual(effects.effects.map(number), ["warm-up", "after the drop"])
        XCTAssertEqual(effects.effectCount(forKey: item.idempotencyKey), 1)
        XCTAssertFalse(effects.effects.contains { $0.body.isEmpty }, "no effect of an empty copy")
    }

    func testAnExpiredToken_isRefreshedThroughThePipeline_andTheWriteGoesOutWithTheNewOne() throws {
        let effects = server.idempotentRoute(method: "POST", path: "/notes")
        effects.requiredHeader = ("Authorization", "Bearer fresh")
        server.route("POST", "/token", response: .json(Data(#"{"token":"fresh"}"#.utf8)))
        let tokens = SpecAuthenticator(token: "stale")
        let tokenClient = Client(manager: try Manager.Builder().url(server.baseURL).build())
        let refresher = TokenRefresher(authenticator: tokens) {
            tokenClient.rx.single(RefreshTokenEndpoint(), type: RefreshedToken.self)
                .do(onSuccess: { tokens.accessToken = $0.token }).asCompletable()
        }
        let outbox = try outbox { $0.refreshing(with: refresher) }
        try outbox.enqueue(PostNote(text: "a"))
        try drain(outbox)
        XCTAssertEqual(effects.effects.count, 1)
        XCTAssertEqual(effects.effects.first?.headers["authorization"], "Bearer fresh")
    }

    func testARefusedCredential_neverFailsTheItem_itWaitsUntilTheCredentialIsGood() throws {
        let effects = server.idempotentRoute(method: "POST", path: "/notes")
        effects.requiredHeader = ("Authorization", "Bearer good")
        let tokens = SpecAuthenticator(token: "bad")
        let outbox = try outbox({ $0.authenticator(tokens) }, options: { $0.maximumAttempts = 1 })
        let retried = expectation(description: "three waits for the credential")
        retried.expectedFulfillmentCount = 3
        retried.assertForOverFulfill = false
        let subscription = outbox.rx.events.subscribe(onNext: { event in
            if case .retrying = event { retried.fulfill() }
            if case .failed = event { XCTFail("a 401 failed the item") }
        })
        try outbox.enqueue(PostNote(text: "a"))
        wait(for: [retried], timeout: 10)
        tokens.accessToken = "good"
        try drain(outbox)
        subscription.dispose()
        XCTAssertEqual(effects.effects.count, 1)
    }
}

/// `POST /token`, answering `RefreshedToken`.
private struct RefreshTokenEndpoint: Endpoint {
    var path: String { "/token" }
    var method: HTTPMethod { .post }
}

private struct RefreshedToken: Decodable, Sendable {
    let token: String
}
