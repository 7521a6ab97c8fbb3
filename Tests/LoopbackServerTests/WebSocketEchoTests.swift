import Foundation
import LoopbackServer
import XCTest

/// `/ws/echo` once open: echoes, pings, the closing handshake and the connection's log.
final class WebSocketEchoTests: LoopbackTestCase {
    func testEcho_textStaysTextAndBinaryStaysBinary() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server)
        try client.sendText("hello")
        let text = try client.readFrame()
        XCTAssertEqual(text, ReceivedFrame(fin: true, rsv: 0, opcode: 1, isMasked: false, payload: Array("hello".utf8)))
        let binary = (0..<300).map { UInt8($0 % 256) }
        try client.send(opcode: 2, binary)
        XCTAssertEqual(
            try client.readFrame(), ReceivedFrame(fin: true, rsv: 0, opcode: 2, isMasked: false, payload: binary))
        try client.send(opcode: 1, [])
        XCTAssertEqual(try client.readFrame().payload, [])
        let large = Array(repeating: UInt8(7), count: 70_000)
        try client.send(opcode: 2, large)
        XCTAssertEqual(try client.readFrame().payload, large)
    }

    func testEcho_framesSentWithTheHandshakeAreServed() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server, readAnswer: false)
        try client.sendText("early")
        XCTAssertEqual(try client.raw.readHead().status, 101)
        XCTAssertEqual(try client.readFrame().text, "early")
    }

    func testFragmentedMessage_isEchoedWholeAfterThePongOfAPingBetweenFragments() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server)
        try client.send(opcode: 1, Array("frag".utf8), fin: false)
        try client.send(opcode: 9, Array("between".utf8))
        try client.send(opcode: 0, Array("ment".utf8), fin: false)
        try client.send(opcode: 0, Array("ed".utf8))
        XCTAssertEqual(
            try client.readFrame(),
            ReceivedFrame(fin: true, rsv: 0, opcode: 10, isMasked: false, payload: Array("between".utf8)))
        XCTAssertEqual(
            try client.readFrame(),
            ReceivedFrame(fin: true, rsv: 0, opcode: 1, isMasked: false, payload: Array("fragmented".utf8)))

        let log = try XCTUnwrap(server.waitForWebSocket(timeout: 10) { $0.messages.count == 1 })
        XCTAssertEqual(log.frames.map(\.opcode), [1, 9, 0, 0])
        XCTAssertEqual(log.frames.map(\.fin), [false, true, false, true])
        XCTAssertEqual(
            log.messages, [LoopbackServer.WebSocketLog.Message(isText: true, payload: Array("fragmented".utf8))])
    }

    func testPing_isAnsweredWithAPongCarryingItsPayload() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server)
        try client.send(opcode: 9, [1, 2, 3])
        XCTAssertEqual(
            try client.readFrame(), ReceivedFrame(fin: true, rsv: 0, opcode: 10, isMasked: false, payload: [1, 2, 3]))
        try client.send(opcode: 10, [9])  // An unsolicited pong: logged, not answered.
        try client.sendText("after")
        XCTAssertEqual(try client.readFrame().text, "after")
        let log = try XCTUnwrap(server.waitForWebSocket(timeout: 10) { $0.messages.count == 1 })
        XCTAssertEqual(log.pongs.map(\.payload), [[9]])
    }

    func testCloseHandshake_theServerAnswersWithTheSameCodeThenClosesTCP() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server)
        try client.sendClose(1000, reason: "bye")
        let close = try client.readFrame()
        XCTAssertEqual(close.opcode, 8)
        XCTAssertEqual(close.payload, [0x03, 0xE8])
        XCTAssertEqual(try client.readUntilClose(), [])
        client.raw.close()

        let log = try XCTUnwrap(server.waitForWebSocket(timeout: 10) { $0.isFinished })
        XCTAssertEqual(log.closeReceived, LoopbackServer.WebSocketLog.Close(code: 1000, reason: Array("bye".utf8)))
        XCTAssertEqual(log.closeReceived?.reasonText, "bye")
        XCTAssertEqual(log.closeSent, LoopbackServer.WebSocketLog.Close(code: 1000, reason: []))
        XCTAssertTrue(log.clientClosedTCP)
        XCTAssertTrue(log.clientClosedTCPAfterCloseFrame)
        XCTAssertNil(log.violation)
    }

    func testCloseHandshake_anEmptyCloseIsAnsweredWithAnEmptyClose() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server)
        try client.sendClose(nil)
        XCTAssertEqual(
            try client.readFrame(), ReceivedFrame(fin: true, rsv: 0, opcode: 8, isMasked: false, payload: []))
        XCTAssertEqual(try client.readUntilClose(), [])
        client.raw.close()
        let log = try XCTUnwrap(server.waitForWebSocket(timeout: 10) { $0.isFinished })
        XCTAssertEqual(log.closeReceived, LoopbackServer.WebSocketLog.Close(code: nil, reason: []))
        XCTAssertEqual(log.closeSent, LoopbackServer.WebSocketLog.Close(code: nil, reason: []))
    }

    func testLog_recordsEachFrameWithItsMaskingKey() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server)
        try client.send(opcode: 1, Array("one".utf8), maskingKey: [1, 2, 3, 4])
        _ = try client.readFrame()
        try client.send(opcode: 2, [0xFF, 0x00], maskingKey: [0xAA, 0xBB, 0xCC, 0xDD])
        _ = try client.readFrame()

        let log = try XCTUnwrap(server.waitForWebSocket(timeout: 10) { $0.frames.count == 2 })
        typealias Frame = LoopbackServer.WebSocketLog.Frame
        XCTAssertEqual(
            log.frames,
            [
                Frame(opcode: 1, fin: true, rsv: 0, maskingKey: [1, 2, 3, 4], payload: Array("one".utf8)),
                Frame(opcode: 2, fin: true, rsv: 0, maskingKey: [0xAA, 0xBB, 0xCC, 0xDD], payload: [0xFF, 0x00]),
            ])
        XCTAssertTrue(log.frames.allSatisfy(\.isMasked))
        XCTAssertFalse(log.clientClosedTCP)
        XCTAssertFalse(log.isFinished)
    }

    func testClientClosingTCPWithoutACloseFrame_isLogged() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server)
        client.raw.close()
        let log = try XCTUnwrap(server.waitForWebSocket(timeout: 10) { $0.isFinished })
        XCTAssertTrue(log.clientClosedTCP)
        XCTAssertFalse(log.clientClosedTCPAfterCloseFrame)
        XCTAssertNil(log.closeReceived)
    }

    func testStop_closesOpenWebSocketConnections() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server, target: "/ws/echo?ignoreClose&ignorePings")
        XCTAssertNotNil(server.waitForWebSocket(timeout: 10) { _ in true })
        server.stop()
        XCTAssertTrue(client.raw.serverClosed())
        let log = try XCTUnwrap(server.waitForWebSocket(timeout: 10) { $0.isFinished })
        XCTAssertFalse(log.clientClosedTCP)
    }
}
