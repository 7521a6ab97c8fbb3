#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import LoopbackServer
import XCTest

/// The fault proxy, byte by byte: each fault seen through a raw socket against what the
/// server sends without the proxy.
final class FaultProxyTests: LoopbackTestCase {
    private var server: LoopbackServer!

    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try makeServer()
        server.route("GET", "/fixed", response: .text(String(repeating: "0123456789", count: 100)))
    }

    private func proxy(_ plan: FaultPlan = .none) throws -> FaultProxy {
        let proxy = try FaultProxy(in: server, plan: plan)
        addTeardownBlock { proxy.stop() }
        return proxy
    }

    private static let request = "GET /fixed HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"

    /// What the server sends for `request` without a proxy.
    private func direct(_ request: String = request) throws -> [UInt8] {
        let client = try RawClient(port: server.port)
        try client.send(request)
        return try client.readUntilClose()
    }

    /// What arrives through `proxy` for `request`, and how the stream ended.
    private func through(
        _ proxy: FaultProxy, _ request: String = request, timeout: TimeInterval = 10
    ) throws -> (bytes: [UInt8], ending: String) {
        let client = try RawClient(port: proxy.port, timeout: timeout)
        try client.send(request)
        var received: [UInt8] = []
        while true {
            do {
                let piece = try client.receiveAvailable()
                if piece.isEmpty { return (received, "closed") }
                received += piece
            } catch RawClientError.receiveFailed(let code) where code == ECONNRESET {
                return (received, "reset")
            } catch RawClientError.receiveFailed(let code) where code == EAGAIN || code == EWOULDBLOCK {
                return (received, "timed out")
            }
        }
    }

    func testNoFault_forwardsEveryByte_andRecordsTheRequestWithItsTag() throws {
        let proxy = try proxy()
        let tagged = Self.request.replacingOccurrences(of: "Host: x\r\n", with: "Host: x\r\nX-Leash-Tag: first\r\n")
        let result = try through(proxy, tagged)
        XCTAssertEqual(result.bytes, try direct(tagged))
        XCTAssertEqual(result.ending, "closed")
        let sighting = try XCTUnwrap(proxy.sightings.first)
        XCTAssertEqual([sighting.method, sighting.target, sighting.tag], ["GET", "/fixed", "first"])
        XCTAssertEqual(sighting.fault, Fault.none)
        XCTAssertTrue(proxy.waitForConnections(timeout: 10) { $0.count == 1 })
        XCTAssertEqual(proxy.connections.first?.responseBytes, result.bytes.count)
    }

    func testRefuse_resetsAtOnce_andNeverReachesTheServer() throws {
        let proxy = try proxy(.always(.refuse))
        let result = try through(proxy)
        XCTAssertEqual(result.bytes, [])
        XCTAssertEqual(result.ending, "reset")
        XCTAssertTrue(proxy.waitForConnections(timeout: 10) { $0.first?.ending == .faultReset })
        XCTAssertEqual(server.counters.connectionCount, 0)
    }

    func testBlackhole_neverAnswers_andNeverReachesTheServer() throws {
        let proxy = try proxy(.always(.blackhole))
        let result = try through(proxy, timeout: 1)
        XCTAssertEqual(result.bytes, [])
        XCTAssertEqual(result.ending, "timed out")
        XCTAssertEqual(server.counters.connectionCount, 0)
    }

    func testDelays_holdTheAnswer_butChangeNoByte() throws {
        for fault in [Fault.delayConnect(milliseconds: 300), .delayFirstByte(milliseconds: 300)] {
            let proxy = try proxy(.always(fault))
            let start = Date()
            let result = try through(proxy)
            XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.3, "\(fault)")
            XCTAssertEqual(result.bytes, try direct(), "\(fault)")
        }
    }

    func testPaceBandwidthAndSlowHead_deliverEveryByte_slowly() throws {
        let large = "GET /bytes/65536 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let cases: [(Fault, String, TimeInterval)] = [
            (.pace(bytes: 100, pauseMilliseconds: 5), Self.request, 0.05),
            (.bandwidth(bytesPerSecond: 256 * 1024), large, 0.2),
            (.slowHead(pauseMilliseconds: 1), Self.request, 0.05),
        ]
        for (fault, request, minimum) in cases {
            let proxy = try proxy(.always(fault))
            let start = Date()
            let result = try through(proxy, request)
            XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), minimum, "\(fault)")
            XCTAssertEqual(result.bytes, try direct(request), "\(fault)")
            XCTAssertEqual(result.ending, "closed")
        }
    }

    func testResetAndClose_afterNBytesOfTheResponse_cutThereExactly() throws {
        let whole = try direct()
        for (fault, ending) in [(Fault.reset(after: 50, .response), "reset"), (.close(after: 50, .response), "closed")]
        {
            let proxy = try proxy(.always(fault))
            let result = try through(proxy)
            XCTAssertEqual(result.bytes, Array(whole.prefix(50)), "\(fault)")
            XCTAssertEqual(result.ending, ending, "\(fault)")
        }
    }

    func testCloseAfterNBytesOfTheRequest_givesTheServerOnlyThose() throws {
        let proxy = try proxy(.always(.close(after: 10, .request)))
        let result = try through(proxy)
        XCTAssertEqual(result.bytes, [])
        XCTAssertEqual(result.ending, "closed")
        XCTAssertTrue(proxy.waitForConnections(timeout: 10) { $0.first?.requestBytes == 10 })
        XCTAssertEqual(server.counters.requestCount, 0)
    }

    func testStall_keepsTheConnectionOpen_withNothingAfterNBytes() throws {
        let proxy = try proxy(.always(.stall(after: 30, .response)))
        let client = try RawClient(port: proxy.port, timeout: 1)
        try client.send(Self.request)
        var received: [UInt8] = []
        let readUntilEnd = {
            while true {
                let piece = try client.receiveAvailable()
                if piece.isEmpty { return }
                received += piece
            }
        }
        XCTAssertThrowsError(try readUntilEnd(), "never closed") { error in
            XCTAssertEqual(error as? RawClientError, .receiveFailed(errno: EAGAIN), "timed out")
        }
        XCTAssertEqual(received, Array(try direct().prefix(30)))
        XCTAssertEqual(proxy.openCount, 1, "the server's close is stalled too")
    }

    func testCorrupt_flipsExactlyOneByte() throws {
        let whole = try direct()
        let proxy = try proxy(.always(.corrupt(at: 7, .response)))
        let result = try through(proxy)
        XCTAssertEqual(result.bytes.count, whole.count)
        let differing = zip(result.bytes, whole).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        XCTAssertEqual(differing, [7])
    }

    func testCloseInHead_cutsInsideTheHead_neverAtItsEnd() throws {
        let whole = try direct()
        let headLength = try XCTUnwrap(Self.headLength(whole))
        for (after, expected) in [(0, 0), (20, 20), (10_000, headLength - 1)] {
            let proxy = try proxy(.always(.closeInHead(after: after)))
            let result = try through(proxy)
            XCTAssertEqual(result.bytes, Array(whole.prefix(expected)), "after \(after)")
            XCTAssertEqual(result.ending, "closed")
        }
    }

    func testTruncateAndResetInBody_sendTheHeadAndNBytesOfAChunkedBody_thenCloseOrReset() throws {
        let request = "GET /bytes/1000?chunked=1&chunk=100 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let whole = try direct(request)
        let headLength = try XCTUnwrap(Self.headLength(whole))
        XCTAssertTrue(String(decoding: whole.prefix(headLength), as: UTF8.self).contains("chunked"))
        for (fault, ending) in [(Fault.truncateBody(after: 150), "closed"), (.resetInBody(after: 150), "reset")] {
            let proxy = try proxy(.always(fault))
            let result = try through(proxy, request)
            XCTAssertEqual(result.bytes, Array(whole.prefix(headLength + 150)), "\(fault)")
            XCTAssertEqual(result.ending, ending, "\(fault)")
        }
    }

    func testAPlannedFault_canHitTheSecondRequestOfAKeptAliveConnection() throws {
        let proxy = try proxy(.only(.close(after: 0, .response), connection: 0, request: 1))
        let client = try RawClient(port: proxy.port)
        try client.send("GET /json HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 200)
        try client.send("GET /json HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(client.serverClosed())
        XCTAssertEqual(proxy.sightings.map(\.fault), [.none, .close(after: 0, .response)])
    }

    func testAFaultNamedInARequest_appliesToThatRequestOnly_onAKeptAliveConnection() throws {
        let proxy = try proxy()
        let client = try RawClient(port: proxy.port)
        try client.send("GET /json HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 200)
        try client.send("GET /json HTTP/1.1\r\nHost: x\r\nX-Leash-Fault: close=response:0\r\n\r\n")
        XCTAssertTrue(client.serverClosed())
        XCTAssertEqual(proxy.sightings.map(\.fault), [.none, .close(after: 0, .response)])
        XCTAssertEqual(proxy.sightings.map(\.indexOnConnection), [0, 1])
        XCTAssertEqual(server.counters.requestCount, 2, "the server answered; the answer was lost")
    }

    func testAWebSocketPassesThrough_asRawBytesAfterItsUpgrade() throws {
        let proxy = try proxy()
        let client = try WebSocketTestClient(server: server, port: proxy.port)
        try client.sendText("through the proxy")
        XCTAssertEqual(try client.readFrame().text, "through the proxy")
        XCTAssertEqual(proxy.sightings.count, 1, "frames are not read as requests")
    }

    func testStop_endsEveryConnection_evenAStalledOne() throws {
        let proxy = try proxy(.always(.stall(after: 0, .response)))
        let client = try RawClient(port: proxy.port)
        try client.send(Self.request)
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.requestCount == 1 })
        proxy.stop()
        XCTAssertEqual(proxy.openCount, 0)
        XCTAssertEqual(proxy.connections.first?.ending, .stopped)
        XCTAssertTrue(client.serverClosed())
    }

    func testTheRandomPlan_isTheSameForTheSameSeed_andEveryFaultReadsBackFromItsText() {
        let first = (0..<200).map { FaultPlan.random(seed: 42).fault(connection: $0, request: 0) }
        let again = (0..<200).map { FaultPlan.random(seed: 42).fault(connection: $0, request: 0) }
        let other = (0..<200).map { FaultPlan.random(seed: 43).fault(connection: 0, request: $0) }
        XCTAssertEqual(first, again)
        XCTAssertNotEqual(first, other)
        XCTAssertEqual(Set(first.map(\.kind)), Set(Fault.Kind.allCases), "200 draws meet every kind")
        for fault in first { XCTAssertEqual(Fault(fault.description), fault, fault.description) }
        XCTAssertNil(Fault("reset=sideways:3"))
        XCTAssertNil(Fault("pace=0/1"))
        XCTAssertNil(Fault("close=response:-1"))
        let sparse = (0..<1000).map {
            FaultPlan.random(seed: 7, probability: 0.1).fault(connection: $0 % 10, request: $0 / 10)
        }
        XCTAssertEqual(Double(sparse.filter { $0 != .none }.count) / 1000, 0.1, accuracy: 0.05)
    }

    private static func headLength(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (3..<bytes.count).first { bytes[$0 - 3...$0].elementsEqual([13, 10, 13, 10]) }.map { $0 + 1 }
    }
}
