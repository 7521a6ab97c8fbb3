import Foundation
import XCTest

@testable import net_benchmarks

/// The WebSocket scenarios' own machinery: self-timed runs and the floor's frames.
final class WebSocketScenarioTests: XCTestCase {
    func testMeasureSideBySide_aSelfTimedRun_reportsItsOwnSecondsInsteadOfTheHarnessClock() {
        let own = OwnTime()
        var scenario = Scenario(name: "self-timed", operations: 1, expect: Tally(values: 1)) {
            own.record(wall: 2.5, cpu: 0.5)
            return Tally(values: 1)
        }
        scenario.ownTime = own
        let timing = measureSideBySide([scenario], repetitions: 3)
        XCTAssertEqual(timing.first?.seconds, 2.5)
        XCTAssertEqual(timing.first?.cpuPerOperation, 0.5)
    }

    func testMaskedBinaryFrame_usesTheShortestLengthAndMasksThePayload() {
        let payload = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0) })
        for (count, header) in [(0, 6), (125, 6), (126, 8), (65_535, 8), (65_536, 14)] {
            let frame = RawWebSocketClient.maskedBinaryFrame(payload.prefix(count))
            XCTAssertEqual(frame.count, header + count, "\(count) bytes")
            XCTAssertEqual(frame.first, 0x82)
            XCTAssertEqual(frame[1] & 0x80, 0x80, "masked")
            let key = Array(frame[header - 4..<header])
            let unmasked = frame.dropFirst(header).enumerated().map { $0.element ^ key[$0.offset & 3] }
            XCTAssertEqual(unmasked, Array(payload.prefix(count)))
            XCTAssertEqual(RawWebSocketClient.headerLength(count), header - 4, "the server's header: unmasked")
        }
    }
}
