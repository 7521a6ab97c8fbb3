import Foundation
import Leash
import XCTest

/// Validation of received close frames: the code ranges and the reason's UTF-8.
final class WebSocketCloseCodeTests: XCTestCase {
    /// A close payload with `code` and `reason` bytes.
    private func payload(_ code: UInt16, _ reason: [UInt8] = []) -> Data {
        Data([UInt8(code >> 8), UInt8(code & 0xFF)] + reason)
    }

    /// The constants carry the RFC's and the registry's numbers.
    func testConstants_haveTheRegisteredValues() {
        let values: [(WebSocketCloseCode, UInt16)] = [
            (.normalClosure, 1000), (.goingAway, 1001), (.protocolError, 1002), (.unsupportedData, 1003),
            (.noStatusReceived, 1005), (.abnormalClosure, 1006), (.invalidFramePayloadData, 1007),
            (.policyViolation, 1008), (.messageTooBig, 1009), (.mandatoryExtension, 1010),
            (.internalServerError, 1011), (.serviceRestart, 1012), (.tryAgainLater, 1013), (.badGateway, 1014),
            (.tlsHandshake, 1015),
        ]
        for (code, value) in values { XCTAssertEqual(code.rawValue, value) }
    }

    /// An empty payload is a close without a code.
    func testValidate_acceptsAnEmptyPayload() throws {
        XCTAssertNil(try WebSocketCloseCode.validateClosePayload(Data()))
    }

    /// One byte cannot hold a code: 1002.
    func testValidate_rejectsAOneBytePayload() {
        XCTAssertThrowsError(try WebSocketCloseCode.validateClosePayload(Data([0x03]))) {
            XCTAssertEqual($0 as? WebSocketProtocolViolation, .closePayloadTooShort)
            XCTAssertEqual(($0 as? WebSocketProtocolViolation)?.closeCode, .protocolError)
        }
    }

    /// The codes Autobahn's case 7.7 sends are accepted, with their reasons.
    func testValidate_acceptsTheCodesValidOnTheWire() throws {
        let valid: [UInt16] = [
            1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999,
        ]
        for code in valid {
            let close = try WebSocketCloseCode.validateClosePayload(payload(code, Array("bye €".utf8)))
            XCTAssertEqual(close?.code.rawValue, code)
            XCTAssertEqual(close?.reason, "bye €")
        }
    }

    /// The codes Autobahn's case 7.9 sends are rejected with 1002.
    func testValidate_rejectsTheCodesInvalidOnTheWire() {
        let invalid: [UInt16] = [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535]
        for code in invalid {
            XCTAssertThrowsError(try WebSocketCloseCode.validateClosePayload(payload(code)), "\(code)") {
                XCTAssertEqual($0 as? WebSocketProtocolViolation, .invalidCloseCode(code))
                XCTAssertEqual(($0 as? WebSocketProtocolViolation)?.closeCode.rawValue, 1002)
            }
        }
    }

    /// A reason that is not UTF-8, or stops inside a sequence, fails with 1007.
    func testValidate_rejectsAReasonThatIsNotUTF8() {
        let reasons: [([UInt8], Int)] = [([0x41, 0xED, 0xA0, 0x80], 2), ([0xCE, 0xBA, 0xE1], 3), ([0xC0, 0x80], 0)]
        for (reason, offset) in reasons {
            XCTAssertThrowsError(try WebSocketCloseCode.validateClosePayload(payload(1000, reason))) {
                XCTAssertEqual($0 as? WebSocketProtocolViolation, .invalidUTF8(atOffset: offset))
                XCTAssertEqual(($0 as? WebSocketProtocolViolation)?.closeCode.rawValue, 1007)
            }
        }
    }

    /// A payload that is a slice of a larger buffer is read from its own start.
    func testValidate_readsASliceFromItsStart() throws {
        let buffer = Data([0xFF, 0x03, 0xE8, 0x41])
        let close = try WebSocketCloseCode.validateClosePayload(buffer.dropFirst())
        XCTAssertEqual(close?.code, .normalClosure)
        XCTAssertEqual(close?.reason, "A")
    }
}
