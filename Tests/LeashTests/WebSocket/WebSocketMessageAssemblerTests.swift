import Foundation
import Leash
import XCTest

/// Reassembly of fragmented messages, control frames between fragments, and the limits.
final class WebSocketMessageAssemblerTests: XCTestCase {
    /// A data or control frame with `bytes` as its payload.
    private func frame(_ opcode: WebSocketFrame.Opcode, _ bytes: [UInt8], fin: Bool = true) -> WebSocketFrame {
        WebSocketFrame(fin: fin, opcode: opcode, payload: Data(bytes))
    }

    /// Appends `frames`, returning the messages and the violation that stopped it, if any.
    private func assemble(
        _ frames: [WebSocketFrame], into assembler: inout WebSocketMessageAssembler
    ) -> (messages: [WebSocketMessageAssembler.Message], violation: WebSocketProtocolViolation?) {
        var messages: [WebSocketMessageAssembler.Message] = []
        for frame in frames {
            do {
                if let message = try assembler.append(frame) { messages.append(message) }
            } catch {
                return (messages, error)
            }
        }
        return (messages, nil)
    }

    /// Unfragmented messages come out whole.
    func testAppend_passesUnfragmentedMessages() throws {
        var assembler = WebSocketMessageAssembler()
        XCTAssertEqual(try assembler.append(frame(.text, Array("héllo".utf8))), .text("héllo"))
        XCTAssertEqual(try assembler.append(frame(.binary, [0, 0xFF])), .binary(Data([0, 0xFF])))
        XCTAssertEqual(try assembler.append(frame(.text, [])), .text(""))
    }

    /// Fragments join; a ping between them comes out at once, before the message.
    func testAppend_joinsFragmentsAndPassesAnInterleavedPingAtOnce() throws {
        var assembler = WebSocketMessageAssembler()
        XCTAssertNil(try assembler.append(frame(.text, Array("frag".utf8), fin: false)))
        XCTAssertTrue(assembler.isAssembling)
        XCTAssertEqual(try assembler.append(frame(.ping, [1, 2])), .ping(Data([1, 2])))
        XCTAssertNil(try assembler.append(frame(.continuation, Array("men".utf8), fin: false)))
        XCTAssertEqual(try assembler.append(frame(.pong, [])), .pong(Data()))
        XCTAssertEqual(try assembler.append(frame(.continuation, Array("ted".utf8))), .text("fragmented"))
        XCTAssertFalse(assembler.isAssembling)
        XCTAssertNil(try assembler.append(frame(.binary, [1], fin: false)))
        XCTAssertNil(try assembler.append(frame(.continuation, [], fin: false)))
        XCTAssertEqual(try assembler.append(frame(.continuation, [2])), .binary(Data([1, 2])))
    }

    /// A close frame comes out validated, with its code and reason.
    func testAppend_passesAValidatedClose() throws {
        var assembler = WebSocketMessageAssembler()
        XCTAssertEqual(
            try assembler.append(frame(.close, [0x03, 0xE8, 0x6F, 0x6B])), .close(code: .normalClosure, reason: "ok"))
        XCTAssertEqual(try assembler.append(frame(.close, [])), .close(code: nil, reason: ""))
        XCTAssertThrowsError(try assembler.append(frame(.close, [0x03, 0xED]))) {
            XCTAssertEqual(($0 as? WebSocketProtocolViolation)?.closeCode, .protocolError)
        }
    }

    /// A continuation with no message open fails with 1002.
    func testAppend_rejectsAContinuationWithoutStart() {
        var assembler = WebSocketMessageAssembler()
        let result = assemble([frame(.continuation, [0x41])], into: &assembler)
        XCTAssertEqual(result.violation, .continuationWithoutStart)
        XCTAssertEqual(result.violation?.closeCode.rawValue, 1002)

        var afterMessage = WebSocketMessageAssembler()
        let late = assemble([frame(.text, [0x41]), frame(.continuation, [0x41])], into: &afterMessage)
        XCTAssertEqual(late.messages, [.text("A")])
        XCTAssertEqual(late.violation, .continuationWithoutStart)
    }

    /// A new text or binary frame while a message is open fails with 1002.
    func testAppend_rejectsADataFrameWhileAMessageIsOpen() {
        for opcode in [WebSocketFrame.Opcode.text, .binary] {
            var assembler = WebSocketMessageAssembler()
            let result = assemble([frame(.binary, [1], fin: false), frame(opcode, [2])], into: &assembler)
            XCTAssertEqual(result.violation, .dataFrameWhileMessageOpen)
            XCTAssertEqual(result.violation?.closeCode.rawValue, 1002)
        }
    }

    /// The size limit counts all fragments: 1009 at the fragment that passes it.
    func testAppend_enforcesTheMaximumMessageSize() {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 10)
        let fits = assemble(
            [frame(.binary, Array(repeating: 1, count: 6), fin: false), frame(.continuation, [1, 2, 3, 4])],
            into: &assembler)
        XCTAssertEqual(fits.messages.count, 1)
        XCTAssertNil(fits.violation)

        let result = assemble(
            [
                frame(.text, Array(repeating: 0x41, count: 6), fin: false),
                frame(.continuation, Array(repeating: 0x41, count: 5)),
            ],
            into: &assembler)
        XCTAssertEqual(result.violation, .messageTooLarge(11))
        XCTAssertEqual(result.violation?.closeCode.rawValue, 1009)
    }

    /// A sequence split between fragments, even across a ping, is valid text.
    func testAppend_acceptsASequenceSplitAcrossFragments() throws {
        let bytes = Array("κ🌍".utf8)  // CE BA F0 9F 8C 8D
        var assembler = WebSocketMessageAssembler()
        let result = assemble(
            [
                frame(.text, [bytes[0]], fin: false), frame(.continuation, [bytes[1], bytes[2]], fin: false),
                frame(.ping, []), frame(.continuation, [bytes[3], bytes[4]], fin: false),
                frame(.continuation, [bytes[5]]),
            ], into: &assembler)
        XCTAssertNil(result.violation)
        XCTAssertEqual(result.messages, [.ping(Data()), .text("κ🌍")])
    }

    /// Bad text fails with 1007 at the fragment holding the bad byte, before the message ends.
    func testAppend_rejectsInvalidTextAsSoonAsItArrives() {
        var assembler = WebSocketMessageAssembler()
        var fragments = [frame(.text, Array("κόσμε".utf8), fin: false), frame(.continuation, [0xED], fin: false)]
        fragments.append(frame(.continuation, [0xA0, 0x80], fin: false))
        let result = assemble(fragments, into: &assembler)
        XCTAssertEqual(result.violation, .invalidUTF8(atOffset: 11))
        XCTAssertEqual(result.violation?.closeCode.rawValue, 1007)
    }

    /// The Autobahn-style invalid sequences each fail with 1007 in a single-frame message.
    func testAppend_rejectsOverlongsSurrogatesAndOutOfRange() {
        for bytes: [UInt8] in [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80]] {
            var assembler = WebSocketMessageAssembler()
            XCTAssertThrowsError(try assembler.append(frame(.text, bytes)), "\(bytes)") {
                XCTAssertEqual(($0 as? WebSocketProtocolViolation)?.closeCode, .invalidFramePayloadData)
            }
        }
    }

    /// A message ending inside a sequence fails with 1007; binary data is not checked at all.
    func testAppend_rejectsTextEndingInsideASequence() {
        var assembler = WebSocketMessageAssembler()
        let result = assemble(
            [frame(.text, [0x41, 0xE2], fin: false), frame(.continuation, [0x82])], into: &assembler)
        XCTAssertEqual(result.violation, .invalidUTF8(atOffset: 3))
        XCTAssertEqual(result.violation?.closeCode.rawValue, 1007)

        var binary = WebSocketMessageAssembler()
        XCTAssertEqual(try binary.append(frame(.binary, [0xC0, 0x80])), .binary(Data([0xC0, 0x80])))
    }
}
