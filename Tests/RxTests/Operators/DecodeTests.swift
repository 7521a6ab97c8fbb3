import Foundation
import Rx
import RxTesting
import XCTest

final class DecodeTests: RxTestCase {
    func testDecode_decodesEachJSONElementAtItsTime() throws {
        let scheduler = TestScheduler(initialClock: 0)
        let encoder = JSONEncoder()
        let xs = scheduler.createHotObservable([
            .next(210, try encoder.encode(DecodePoint(x: 1, y: 2))),
            .next(220, try encoder.encode(DecodePoint(x: 3, y: 4))),
            .completed(300),
        ])
        let res = scheduler.start { xs.decode(type: DecodePoint.self, decoder: JSONDecoder()) }
        XCTAssertEqual(
            res.events, [.next(210, DecodePoint(x: 1, y: 2)), .next(220, DecodePoint(x: 3, y: 4)), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testDecode_propertyListDecoderIsADataDecoder() throws {
        let scheduler = TestScheduler(initialClock: 0)
        let data = try PropertyListEncoder().encode(DecodePoint(x: 5, y: 6))
        let xs = scheduler.createHotObservable([.next(210, data), .completed(300)])
        let res = scheduler.start { xs.decode(type: DecodePoint.self, decoder: PropertyListDecoder()) }
        XCTAssertEqual(res.events, [.next(210, DecodePoint(x: 5, y: 6)), .completed(300)])
    }

    func testDecode_decodingErrorEndsSequenceAndDisposesUpstream() throws {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, try JSONEncoder().encode(DecodePoint(x: 1, y: 2))),
            .next(220, Data("not json".utf8)),
            .next(230, try JSONEncoder().encode(DecodePoint(x: 3, y: 4))),
            .completed(300),
        ])
        let res = scheduler.start { xs.decode(type: DecodePoint.self, decoder: JSONDecoder()) }
        XCTAssertEqual(res.events.count, 2)
        XCTAssertEqual(res.events.first, .next(210, DecodePoint(x: 1, y: 2)))
        XCTAssertEqual(res.events.last?.time, 220)
        XCTAssertTrue(res.events.last?.value.error is DecodingError)
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testDecode_usesACustomDataDecoder() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, Data([1, 2, 3])), .error(250, testError)])
        let res = scheduler.start { xs.decode(type: Int.self, decoder: ByteCountDecoder()) }
        XCTAssertEqual(res.events, [.next(210, 3), .error(250, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testDecode_disposeUnsubscribes() throws {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(260, try JSONEncoder().encode(DecodePoint(x: 1, y: 2)))])
        let res = scheduler.start(disposed: 250) { xs.decode(type: DecodePoint.self, decoder: JSONDecoder()) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }
}

private struct DecodePoint: Codable, Equatable {
    let x: Int
    let y: Int
}

/// A decoder that is not `Sendable` and decodes only `Int`: the byte count.
private final class ByteCountDecoder: DataDecoder {
    func decode<Item: Decodable>(_ type: Item.Type, from data: Data) throws -> Item {
        guard let count = data.count as? Item else { throw testError2 }
        return count
    }
}
