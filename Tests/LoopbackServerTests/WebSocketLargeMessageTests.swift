import Foundation
import LoopbackServer
import XCTest

/// Large messages both ways, and the URL helper.
final class WebSocketLargeMessageTests: LoopbackTestCase {
    func testEcho_aLargeTextMessageInFragments() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server)
        let text = Array(String(repeating: "héllo ", count: 700_000).utf8)
        let half = text.count / 2
        try client.send(opcode: 1, Array(text[..<half]), fin: false)
        try client.send(opcode: 0, Array(text[half...]))
        let echo = try client.readFrame()
        XCTAssertEqual(echo.opcode, 1)
        XCTAssertEqual(echo.payload, text)
    }

    func testMessage_sixteenMegabytesAsOneFrame() throws {
        let server = try makeServer()
        let client = try WebSocketTestClient(server: server, target: "/ws/echo?message=\(16 << 20)&binary=1")
        let frame = try client.readFrame()
        XCTAssertTrue(frame.fin)
        XCTAssertEqual(frame.opcode, 2)
        XCTAssertEqual(Data(frame.payload), LoopbackServer.patternBytes(in: 0..<(16 << 20)))
    }

    func testWebSocketURL_usesTheWSScheme() throws {
        let server = try makeServer()
        let url = server.webSocketURL(queryItems: [
            URLQueryItem(name: "hang", value: nil), URLQueryItem(name: "send", value: "2"),
        ])
        XCTAssertEqual(url.absoluteString, "ws://127.0.0.1:\(server.port)/ws/echo?hang&send=2")
    }
}
