import Foundation
import LoopbackServer
import XCTest

/// What `/ws/echo` sends on its own when its query asks, and how it fails a client that
/// breaks the protocol.
final class WebSocketScriptTests: LoopbackTestCase {
    /// `count` bytes of a scripted text message: `a`…`z` cycling.
    private func scriptedText(_ count: Int, from offset: Int = 0) -> [UInt8] {
        (offset..<offset + count).map { UInt8(ascii: "a") + UInt8($0 % 26) }
    }

    /// Whether `bytes` are UTF-8 (decoding with repair changes nothing).
    private func isUTF8(_ bytes: ArraySlice<UInt8>) -> Bool {
        String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes)
    }

    private func isUTF8(_ bytes: [UInt8]) -> Bool {
        isUTF8(bytes[...])
    }

    // MARK: - Pushed messages

    func testSend_pushesMessagesThenEchoes() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server, target: "/ws/echo?send=3&size=30")
        for _ in 0..<3 {
            XCTAssertEqual(
                try client.readFrame(),
                ReceivedFrame(fin: true, rsv: 0, opcode: 1, isMasked: false, payload: scriptedText(30)))
        }
        try client.sendText("echo")
        XCTAssertEqual(try client.readFrame().text, "echo")

        let binary = try WebSocketTestClient(server: server, target: "/ws/echo?send=1&size=100000&binary=1")
        let frame = try binary.readFrame()
        XCTAssertEqual(frame.opcode, 2)
        XCTAssertEqual(Data(frame.payload), LoopbackServer.patternBytes(in: 0..<100_000))
    }

    func testFragments_splitEachMessageWithPingsBetween() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server, target: "/ws/echo?send=1&size=10&fragments=3")
        var frames: [ReceivedFrame] = []
        for _ in 0..<5 { frames.append(try client.readFrame()) }
        XCTAssertEqual(frames.map(\.opcode), [1, 9, 0, 9, 0])
        XCTAssertEqual(frames.map(\.fin), [false, true, false, true, true])
        XCTAssertEqual(frames.map(\.payload.count), [3, 10, 3, 10, 4])
        XCTAssertEqual(frames[0].payload + frames[2].payload + frames[4].payload, scriptedText(10))
        XCTAssertEqual(frames[1].text, "fragment 1")
        try client.send(opcode: 10, frames[1].payload)
        let log = try XCTUnwrap(server.waitForWebSocket(timeout: 10) { !$0.pongs.isEmpty })
        XCTAssertEqual(log.pingsSent, 2)
    }

    func testMessage_sendsOneLargeFrame() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server, target: "/ws/echo?message=1000000")
        let frame = try client.readFrame()
        XCTAssertTrue(frame.fin)
        XCTAssertEqual(frame.opcode, 1)
        XCTAssertEqual(frame.payload, scriptedText(1_000_000))
    }

    func testFlood_countsWhatTheSocketTookWhileTheClientDoesNotRead() throws {
        let server = try makeServer()
        let total = 64 << 20
        let client = try WebSocketTestClient(
            server: server, target: "/ws/echo?flood=\(total)", receiveBufferSize: 64 * 1024)
        // Buffers on the way hold far less than 64 MB: the server is blocked part way.
        let started = try XCTUnwrap(server.waitForWebSocket(timeout: 10) { $0.floodBytesWritten > 0 })
        XCTAssertLessThan(started.floodBytesWritten, total)
        var received = 0
        while received < total {
            let frame = try client.readFrame()
            XCTAssertEqual(frame.opcode, 2)
            received += frame.payload.count
        }
        XCTAssertEqual(received, total)
        XCTAssertNotNil(server.waitForWebSocket(timeout: 10) { $0.floodBytesWritten == total })
    }

    func testPing_sendsPingsAndLogsPongs() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server, target: "/ws/echo?ping=10")
        for number in 1...2 {
            let ping = try client.readFrame()
            XCTAssertEqual(ping.opcode, 9)
            XCTAssertEqual(ping.text, String(number))
            try client.send(opcode: 10, ping.payload)
        }
        let log = try XCTUnwrap(server.waitForWebSocket(timeout: 10) { $0.pongs.count == 2 })
        XCTAssertEqual(log.pongs.map(\.payload), [Array("1".utf8), Array("2".utf8)])
        XCTAssertGreaterThanOrEqual(log.pingsSent, 2)
    }

    // MARK: - Closing

    func testClose_sendsTheCodeAndReasonThenClosesTCPOnTheClientsAnswer() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(
            server: server, target: "/ws/echo?send=1&size=2&close=4001&reason=going%20now")
        XCTAssertEqual(try client.readFrame().text, "ab")
        let close = try client.readFrame()
        XCTAssertEqual(close.opcode, 8)
        XCTAssertEqual(close.closeCode, 4001)
        XCTAssertEqual(String(decoding: close.payload.dropFirst(2), as: UTF8.self), "going now")
        try client.sendText("ignored")  // After its close, the server echoes nothing.
        try client.sendClose(4001)
        XCTAssertEqual(try client.readUntilClose(), [])
        client.raw.close()
        let log = try XCTUnwrap(server.waitForWebSocket(timeout: 10) { $0.isFinished })
        XCTAssertEqual(log.closeSent?.code, 4001)
        XCTAssertEqual(log.closeReceived?.code, 4001)
        XCTAssertEqual(log.messages.map(\.text), ["ignored"])
        XCTAssertTrue(log.clientClosedTCPAfterCloseFrame)
    }

    func testCloseVariants_sendEmptyRawAndInvalidPayloads() throws {
        let server = try makeServer()
        let empty = try WebSocketTestClient(server: server, target: "/ws/echo?close=none")
        XCTAssertEqual(try empty.readFrame().payload, [])
        for code: UInt16 in [999, 1005, 5000] {
            let raw = try WebSocketTestClient(server: server, target: "/ws/echo?closeCode=\(code)")
            XCTAssertEqual(try raw.readFrame().closeCode, code)
        }
        let badReason = try WebSocketTestClient(server: server, target: "/ws/echo?badCloseReason")
        let close = try badReason.readFrame()
        XCTAssertEqual(close.closeCode, 1000)
        XCTAssertFalse(isUTF8(close.payload.dropFirst(2)))
    }

    func testIgnoreClose_neverAnswersTheClientsClose() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server, target: "/ws/echo?ignoreClose")
        try client.sendClose(1000)
        XCTAssertNotNil(server.waitForWebSocket(timeout: 10) { $0.closeReceived != nil })
        client.raw.shutdownWrite()
        XCTAssertEqual(try client.readUntilClose(), [], "no close frame, and TCP closed only after the client's")
        let log = try XCTUnwrap(server.waitForWebSocket(timeout: 10) { $0.isFinished })
        XCTAssertNil(log.closeSent)
        XCTAssertTrue(log.clientClosedTCPAfterCloseFrame)
    }

    func testIgnorePings_neverAnswersPings() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server, target: "/ws/echo?ignorePings")
        try client.send(opcode: 9, [1])
        try client.sendText("after")
        XCTAssertEqual(try client.readFrame().text, "after", "the echo comes first: the ping got no pong")
    }

    func testDrop_closesTCPWithoutACloseFrame() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server, target: "/ws/echo?drop")
        XCTAssertEqual(try client.readUntilClose(), [])
        client.raw.close()
        let log = try XCTUnwrap(server.waitForWebSocket(timeout: 10) { $0.isFinished })
        XCTAssertNil(log.closeSent)
        XCTAssertTrue(log.clientClosedTCP)
    }

    func testDropMidFrame_sendsHalfAFrameThenCloses() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server, target: "/ws/echo?dropMidFrame")
        let rest = try client.readUntilClose()
        XCTAssertEqual(rest.count, 2 + 32)
        XCTAssertEqual(Array(rest.prefix(2)), [0x81, 64])
    }

    // MARK: - Faulty frames from the server

    func testViolationOptions_sendTheFaultyFrames() throws {
        let server = try makeServer()
        let masked = try WebSocketTestClient(server: server, target: "/ws/echo?masked")
        let maskedFrame = try masked.readFrame()
        XCTAssertTrue(maskedFrame.isMasked)
        XCTAssertEqual(maskedFrame.text, "masked")
        XCTAssertEqual(try WebSocketTestClient(server: server, target: "/ws/echo?rsv=4").readFrame().rsv, 4)
        XCTAssertEqual(try WebSocketTestClient(server: server, target: "/ws/echo?opcode=3").readFrame().opcode, 3)
        let invalid = try WebSocketTestClient(server: server, target: "/ws/echo?invalidUTF8").readFrame()
        XCTAssertEqual(invalid.opcode, 1)
        XCTAssertFalse(isUTF8(invalid.payload))
    }

    // MARK: - Faulty frames from the client

    /// Sends `frame` raw and expects a close frame with `code`, then the end of TCP.
    private func expectFailure(_ frame: [UInt8], code: UInt16, file: StaticString = #filePath, line: UInt = #line)
        throws -> LoopbackServer.WebSocketLog
    {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server)
        try client.raw.send(frame)
        let close = try client.readFrame()
        XCTAssertEqual(close.opcode, 8, file: file, line: line)
        XCTAssertEqual(close.closeCode, code, file: file, line: line)
        XCTAssertEqual(try client.readUntilClose(), [], file: file, line: line)
        client.raw.close()
        let log = try XCTUnwrap(server.waitForWebSocket(timeout: 10) { $0.isFinished }, file: file, line: line)
        XCTAssertEqual(log.closeSent?.code, code, file: file, line: line)
        XCTAssertNotNil(log.violation, file: file, line: line)
        return log
    }

    func testClientViolations_failTheConnection() throws {
        typealias Client = WebSocketTestClient
        let unmasked = try expectFailure(Client.frame(opcode: 1, Array("hi".utf8), maskingKey: nil), code: 1002)
        XCTAssertEqual(unmasked.frames.first?.isMasked, false)
        XCTAssertEqual(unmasked.violation, "unmasked frame")
        let rsv = try expectFailure(Client.frame(opcode: 1, [], rsv: 4), code: 1002)
        XCTAssertEqual(rsv.frames.first?.rsv, 4)
        _ = try expectFailure(Client.frame(opcode: 3, []), code: 1002)
        _ = try expectFailure(Client.frame(opcode: 0, [1]), code: 1002)
        _ = try expectFailure(Client.frame(opcode: 9, [], fin: false), code: 1002)
        _ = try expectFailure(Client.frame(opcode: 9, [UInt8](repeating: 0, count: 126)), code: 1002)
        _ = try expectFailure(Client.frame(opcode: 8, [3]), code: 1002)
        _ = try expectFailure(Client.frame(opcode: 8, [0x03, 0xED]), code: 1002)  // 1005
        _ = try expectFailure(Client.frame(opcode: 8, [0x03, 0xE8, 0xFF]), code: 1007)
        _ = try expectFailure(Client.frame(opcode: 1, [0xED, 0xA0, 0x80]), code: 1007)  // A surrogate.
        _ = try expectFailure(Client.frame(opcode: 1, [0xC3], fin: false) + Client.frame(opcode: 0, [0x28]), code: 1007)
        _ = try expectFailure(Client.frame(opcode: 1, [], fin: false) + Client.frame(opcode: 2, []), code: 1002)
        // A length of 5 written in the 16-bit form, which must be the 7-bit one.
        _ = try expectFailure([0x81, 0x80 | 126, 0, 5, 0, 0, 0, 0] + Array("hello".utf8), code: 1002)
        // A 64-bit length with its top bit set.
        _ = try expectFailure([0x82, 0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0], code: 1002)
        // 1 GiB announced: over the limit, failed before the payload comes.
        _ = try expectFailure([0x82, 0x80 | 127, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0], code: 1009)
    }
}
