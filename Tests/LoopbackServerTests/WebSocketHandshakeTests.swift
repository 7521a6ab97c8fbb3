import Foundation
import LeashDigest
import LoopbackServer
import XCTest

/// The opening handshake of `/ws/echo` and its scripted faults.
final class WebSocketHandshakeTests: LoopbackTestCase {
    func testHandshake_answers101WithTheAcceptOfRFC6455sExample() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server, headers: [("X-Test", "a")])
        let answer = client.handshake
        XCTAssertEqual(answer.status, 101)
        XCTAssertEqual(answer.headers["Upgrade"], "websocket")
        XCTAssertEqual(answer.headers["Connection"], "Upgrade")
        XCTAssertEqual(answer.headers["Sec-WebSocket-Accept"], WebSocketTestClient.exampleAccept)
        XCTAssertNil(answer.headers["Sec-WebSocket-Protocol"])
        XCTAssertNil(answer.headers["Sec-WebSocket-Extensions"])
        XCTAssertNil(answer.headers["Content-Length"])

        let log = try XCTUnwrap(server.waitForWebSocket(timeout: 10) { _ in true })
        XCTAssertEqual(log.request.path, "/ws/echo")
        XCTAssertEqual(log.request.headers["Sec-WebSocket-Key"], WebSocketTestClient.exampleKey)
        XCTAssertEqual(log.request.headers["x-test"], "a")
        XCTAssertEqual(server.requestLog.map(\.path), ["/ws/echo"])
        XCTAssertEqual(log.connectionID, server.requestLog.first?.connectionID)
    }

    func testHandshake_acceptIsComputedForAnyKey() throws {
        let server = try makeServer()
        let key = Data((1...16).map { UInt8($0) }).base64EncodedString()
        let client = try WebSocketTestClient(server: server, key: key)
        XCTAssertEqual(client.handshake.headers["Sec-WebSocket-Accept"], WebSocketAccept.value(forKey: key))
    }

    func testHandshake_refusesRequestsThatAreNotUpgrades() throws {
        let server = try makeServer()
        let plain = try RawClient(port: server.port)
        try plain.send("GET /ws/echo HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = try plain.readResponse()
        XCTAssertEqual(answer.status, 426)
        XCTAssertEqual(answer.headers["Upgrade"], "websocket")

        let version8 = try WebSocketTestClient(server: server, headers: [("Sec-WebSocket-Version", "8")])
        XCTAssertEqual(version8.handshake.status, 426)
        XCTAssertEqual(version8.handshake.headers["Sec-WebSocket-Version"], "13")
        XCTAssertEqual(try WebSocketTestClient(server: server, key: "c2hvcnQ=").handshake.status, 400)
        XCTAssertEqual(
            try WebSocketTestClient(server: server, headers: [("Connection", "keep-alive")]).handshake.status, 400)
        XCTAssertEqual(try WebSocketTestClient(server: server, target: "/ws/other").handshake.status, 404)
        XCTAssertEqual(try WebSocketTestClient(server: server, target: "/ws/echo?send=x").handshake.status, 400)
        XCTAssertEqual(server.webSocketLogs, [])
    }

    func testStatusOption_answersThatStatusInsteadOfUpgrading() throws {
        let server = try makeServer()
        for status in [200, 403, 503] {
            let client = try WebSocketTestClient(server: server, target: "/ws/echo?status=\(status)", readAnswer: false)
            let answer = try client.raw.readResponse()
            XCTAssertEqual(answer.status, status)
            XCTAssertFalse(answer.body.isEmpty)
        }
        XCTAssertEqual(server.webSocketLogs, [])
    }

    func testAuthorizationOption_answers401UnlessTheHeaderMatches() throws {
        let server = try makeServer()
        let refused = try WebSocketTestClient(
            server: server, target: "/ws/echo?authorization=Bearer%20new", headers: [("Authorization", "Bearer old")])
        XCTAssertEqual(refused.handshake.status, 401)
        XCTAssertEqual(refused.handshake.headers["WWW-Authenticate"], "Bearer")
        XCTAssertEqual(
            try WebSocketTestClient(server: server, target: "/ws/echo?authorization=x").handshake.status, 401)
        let accepted = try WebSocketTestClient(
            server: server, target: "/ws/echo?authorization=Bearer%20new", headers: [("Authorization", "Bearer new")])
        XCTAssertEqual(accepted.handshake.status, 101)
    }

    func testAcceptOption_sendsAWrongOrNoAccept() throws {
        let server = try makeServer()
        let wrong = try WebSocketTestClient(server: server, target: "/ws/echo?accept=wrong")
        XCTAssertEqual(wrong.handshake.status, 101)
        let value = try XCTUnwrap(wrong.handshake.headers["Sec-WebSocket-Accept"])
        XCTAssertNotEqual(value, WebSocketTestClient.exampleAccept)
        let missing = try WebSocketTestClient(server: server, target: "/ws/echo?accept=missing")
        XCTAssertEqual(missing.handshake.status, 101)
        XCTAssertNil(missing.handshake.headers["Sec-WebSocket-Accept"])
    }

    func testHangOption_neverAnswers() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server, target: "/ws/echo?hang", readAnswer: false)
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.requestCount == 1 })
        // The client gives up: the server, still waiting, sees it leave and has sent nothing.
        client.raw.shutdownWrite()
        XCTAssertEqual(try client.raw.readUntilClose(), [])
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.clientDisconnectCount == 1 })
        XCTAssertEqual(server.webSocketLogs, [])
    }

    func testProtocolOptions_negotiateOrImposeASubprotocol() throws {
        let server = try makeServer()
        let offered = [("Sec-WebSocket-Protocol", "superchat, chat")]
        let negotiated = try WebSocketTestClient(
            server: server, target: "/ws/echo?protocols=chat,superchat", headers: offered)
        XCTAssertEqual(negotiated.handshake.headers["Sec-WebSocket-Protocol"], "superchat")
        let none = try WebSocketTestClient(server: server, target: "/ws/echo?protocols=mqtt", headers: offered)
        XCTAssertNil(none.handshake.headers["Sec-WebSocket-Protocol"])
        let imposed = try WebSocketTestClient(server: server, target: "/ws/echo?protocol=other", headers: offered)
        XCTAssertEqual(imposed.handshake.headers["Sec-WebSocket-Protocol"], "other")

        let logs = server.webSocketLogs
        XCTAssertEqual(logs.map(\.selectedProtocol), ["superchat", nil, "other"])
    }

    func testExtensionsOption_sendsTheHeader() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server, target: "/ws/echo?extensions=permessage-deflate")
        XCTAssertEqual(client.handshake.headers["Sec-WebSocket-Extensions"], "permessage-deflate")
    }
}
