import Foundation
import Leash
import LeashTestSupport
import LoopbackServer
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if os(Linux)
    /// `wss://` end to end on Linux: a WebSocket through the whole pipeline over libcurl's TLS,
    /// to `LoopbackServer` behind a TLS front (a Python `ssl` proxy with a test certificate).
    final class SecureWebSocketTests: XCTestCase {
        private struct Echo: Endpoint {
            var path: String { "/ws/echo" }
            var method: HTTPMethod { .get }
        }

        private var server: LoopbackServer!

        override func setUpWithError() throws {
            try super.setUpWithError()
            server = try LoopbackServer()
            server.start()
        }

        override func tearDown() {
            server.stop()
            server = nil
            super.tearDown()
        }

        private func options(trusting authority: URL?) -> WebSocketOptions {
            var options = WebSocketOptions()
            options.pingInterval = nil
            options.trustedAuthorities = authority
            return options
        }

        func testWss_echoesThroughTLS_andClosesCleanly() throws {
            let tls = try TestTLSServer(mode: .proxy, host: "127.0.0.1", proxyPort: server.port)
            // https becomes wss; the certificate names localhost.
            let client = Client(manager: try Manager.Builder().url("https://localhost:\(tls.port)").build())
            let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

            let events = try client.webSocketStream(Echo(), options: options(trusting: tls.authorityFile))
                .do(onNext: { event in
                    guard case .opened(let socket) = event else { return }
                    socket.send(.text("secret"))
                    socket.send(.binary(big))
                    socket.close(code: .normalClosure, reason: "bye")
                })
                .toBlocking(timeout: 20).toArray()

            XCTAssertEqual(events.compactMap(\.message), [.text("secret"), .binary(big)])
            XCTAssertEqual(events.last?.close?.wasClean, true)
            XCTAssertEqual(server.waitForWebSocket(timeout: 5) { $0.closeReceived != nil }?.closeReceived?.code, 1000)
        }

        func testWss_withAnUntrustedCertificate_failsTheHandshake() throws {
            let tls = try TestTLSServer(mode: .proxy, host: "127.0.0.1", proxyPort: server.port)
            let client = Client(manager: try Manager.Builder().url("https://localhost:\(tls.port)").build())

            let result = client.webSocketStream(Echo(), options: options(trusting: nil)).toBlocking(timeout: 20)
                .materialize()

            guard case .failed(let elements, LeashError.transport(let error)) = result else {
                return XCTFail("\(result)")
            }
            XCTAssertTrue(elements.isEmpty)
            XCTAssertEqual(error.code, .serverCertificateUntrusted)
            XCTAssertTrue(server.webSocketLogs.isEmpty, "nothing reached the server")
        }
    }
#endif
