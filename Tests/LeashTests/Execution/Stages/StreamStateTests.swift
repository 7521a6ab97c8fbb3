import Foundation
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `StreamState`, what an attempt knows of a stream's response: chunks wait while the head
/// is judged and are handed on in order once it is accepted, the body's end completes the
/// stream only once every kept chunk is out, and nothing passes once it is closed.
final class StreamStateTests: XCTestCase {
    private let details = ResponseExtra(source: .network, httpResponse: executionTestResponse(206))

    private func chunk(_ text: String) -> Data { Data(text.utf8) }

    private func texts(_ next: StreamState.Next) -> [String]? {
        guard case .chunks(let chunks) = next else { return nil }
        return chunks.map { String(decoding: $0, as: UTF8.self) }
    }

    func testNoStreamedHead_theEndIsNotAStreams_andChunksAreDropped() {
        var state = StreamState()
        XCTAssertFalse(state.hasOpened)
        guard case .dropped = state.admit(chunk("a")) else { return XCTFail("a chunk without a head was kept") }
        guard case .notStreamed = state.end() else { return XCTFail("a plain response's end was taken") }
        XCTAssertFalse(state.close(), "no stream was going")
    }

    func testChunksWhileJudged_areKept_thenHandedOnInOrder_thenFlowDirectly() {
        var state = StreamState(phase: .judging)
        guard case .kept = state.admit(chunk("a")), case .kept = state.admit(chunk("b")) else {
            return XCTFail("chunks during the judgement must wait")
        }
        XCTAssertEqual(texts(state.next(accepting: details)), ["a", "b"])
        XCTAssertTrue(state.hasOpened)
        // A chunk arriving while the kept ones are handed on queues behind them.
        guard case .kept = state.admit(chunk("c")) else { return XCTFail("c overtook the kept chunks") }
        XCTAssertEqual(texts(state.next(accepting: details)), ["c"])
        guard case .stop = state.next(accepting: details) else { return XCTFail("nothing was left to hand on") }
        guard case .handOn = state.admit(chunk("d")) else { return XCTFail("an open stream's chunk must flow") }
        XCTAssertEqual(state.phase, .open)
    }

    func testBodyEndingWhileJudged_completesOnlyAfterTheKeptChunks() {
        var state = StreamState(phase: .judging)
        _ = state.admit(chunk("a"))
        guard case .ignore = state.end() else { return XCTFail("the end came before the judgement") }
        XCTAssertEqual(texts(state.next(accepting: details)), ["a"])
        guard case .end = state.next(accepting: details) else { return XCTFail("the stream never completed") }
        XCTAssertEqual(state.phase, .closed)
        guard case .dropped = state.admit(chunk("late")) else { return XCTFail("a chunk after the end passed") }
    }

    func testBodyEndingWhileKeptChunksAreHandedOn_waitsForThem() {
        var state = StreamState(phase: .judging)
        _ = state.admit(chunk("a"))
        XCTAssertEqual(texts(state.next(accepting: details)), ["a"])
        guard case .ignore = state.end() else { return XCTFail("the end overtook the draining") }
        guard case .end = state.next(accepting: details) else { return XCTFail("the drain must complete it") }
    }

    func testBodyEndingOnAnOpenStream_finishesWithTheAcceptedHead_once() {
        var state = StreamState(phase: .judging)
        guard case .stop = state.next(accepting: details) else { return XCTFail("nothing was kept") }
        guard case .finish(let finished) = state.end() else { return XCTFail("the open stream's end was lost") }
        XCTAssertEqual(finished.statusCode, 206, "finished with the accepted head's details")
        guard case .ignore = state.end() else { return XCTFail("a second end finished it again") }
    }

    func testClose_saysWhetherAStreamWasGoing_andDropsWhatWaits() {
        var judged = StreamState(phase: .judging)
        _ = judged.admit(chunk("a"))
        XCTAssertTrue(judged.close(), "a stream being judged was going")
        guard case .stop = judged.next(accepting: details) else { return XCTFail("a closed stream handed on") }
        XCTAssertFalse(judged.hasOpened)

        var open = StreamState(phase: .judging)
        _ = open.next(accepting: details)
        XCTAssertTrue(open.close())
        XCTAssertFalse(open.close(), "closed already")
        guard case .ignore = open.end() else { return XCTFail("a closed stream finished") }
    }
}
