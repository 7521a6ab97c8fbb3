import Foundation
import Leash
import LeashTestSupport
import LeashTesting
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Streams through the whole pipeline in virtual time: `StubTransport` plays each chunk at
/// its tick of the test's `TestScheduler`, which is also the manager's clock (idle limits,
/// reconnection waits). One tick is one second.
final class StreamVirtualTimeTests: VirtualTimeTestCase {
    private struct Item: Codable, Equatable {
        let index: Int
    }

    private func client(configure: (Manager.Builder) -> Void = { _ in }) throws -> Client {
        try makePipelineClient(transport, scheduler: scheduler, configure: configure)
    }

    private let feed = PipelineEndpoint(path: "/feed")

    // MARK: Chunks

    func testStream_deliversEachChunkAtItsTick_thenCompletesWithTheBody() throws {
        transport.stub(.get, path: "/v1/feed", .chunks(["a", "bc", "def"], every: 2))
        let client = try client()

        let observer = scheduler.start { client.chunkStream(self.feed).map(chunkText) }

        XCTAssertEqual(observer.events, [.next(200, "a"), .next(202, "bc"), .next(204, "def"), .completed(204)])
    }

    func testStream_anInterceptorsAnswerInPlaceOfTheNetwork_isOneChunk() throws {
        transport.stub(.get, path: "/v1/feed", .chunks(["never"], every: 1))
        let client = try client {
            $0.add(interceptor: PipelineExecutionInterceptor { $0.complete(with: Data("cached".utf8)) })
        }

        let observer = scheduler.start { client.chunkStream(self.feed).map(chunkText) }

        XCTAssertEqual(observer.events, [.next(200, "cached"), .completed(200)])
        XCTAssertTrue(transport.requests.isEmpty, "nothing was sent")
    }

    func testStream_successInterceptorsSeeTheHeadBeforeAnyChunk_andMayEndTheStream() throws {
        transport.stub(.get, path: "/v1/feed", .chunks(["a", "b", "c"], every: 1))
        let seen = PipelineLog()
        let client = try client {
            $0.add(
                interceptor: PipelineSuccessInterceptor { chain, response, data in
                    seen.append("\(response.statusCode) \(data.count)")
                    chain.complete(with: PipelineAppError.rejected("no feeds today"))
                })
        }

        let observer = scheduler.start { client.chunkStream(self.feed) }

        XCTAssertEqual(seen.all, ["200 0"], "the head, with no body yet")
        XCTAssertEqual(observer.events.count, 1)
        XCTAssertEqual(observer.events.first?.time, 200)
        XCTAssertEqual(observer.events.first?.value.error as? PipelineAppError, .rejected("no feeds today"))
    }

    func testStream_chunksArrivingWhileTheHeadIsJudged_waitAndComeInOrder() throws {
        transport.stub(.get, path: "/v1/feed", .chunks(["a", "b", "c", "d"], every: 1))
        let held = PipelineBox<InterceptorChain<Data>?>(nil)
        let client = try client {
            $0.add(interceptor: PipelineSuccessInterceptor { chain, _, _ in held.value = chain })
        }
        let scheduler = self.scheduler!
        // The interceptor decides at 202, when "a", "b" and "c" have arrived.
        scheduler.scheduleAt(202) { held.value?.proceed() }

        let observer = scheduler.start { client.chunkStream(self.feed).map(chunkText) }

        XCTAssertEqual(
            observer.events,
            [.next(202, "a"), .next(202, "b"), .next(202, "c"), .next(203, "d"), .completed(203)])
    }

    func testStream_anUnacceptableStatus_failsWithItsWholeBody_andNoChunk() throws {
        transport.stub(.get, path: "/v1/feed", .chunks(["{\"error\":", "\"down\"}"], status: 503))
        let client = try client()

        let observer = scheduler.start { client.chunkStream(self.feed) }

        XCTAssertEqual(observer.events.count, 1)
        guard case .unacceptableStatusCode(let failure)? = observer.events.first?.value.error as? LeashError else {
            return XCTFail("expected the status failure, got \(observer.events)")
        }
        XCTAssertEqual(failure.statusCode, 503)
        XCTAssertEqual(chunkText(failure.body), "{\"error\":\"down\"}", "the error page comes whole")
    }

    func testStream_cutMidBody_deliversWhatArrived_thenTheTransportError() throws {
        transport.stub(.get, path: "/v1/feed", StubResponse.chunks(["aaaa", "bbbb", "cccc"]).dropping(after: 6))
        let client = try client()

        let observer = scheduler.start { client.chunkStream(self.feed).map(chunkText) }

        XCTAssertEqual(observer.events.map(\.value.element), ["aaaa", "bb", nil])
        guard case .transport(let error)? = observer.events.last?.value.error as? LeashError else {
            return XCTFail("expected a transport failure, got \(observer.events)")
        }
        XCTAssertEqual(error.code, .networkConnectionLost)
    }

    func testStream_hasNoWholeDeadline_butAStallLongerThanTheIdleLimitEndsIt() throws {
        // Chunks 10 s apart outlast a 15 s timeout many times over; a 30 s silence does not.
        transport.stub(
            .get, path: "/v1/feed",
            StubResponse.chunks(["a", "b", "c", "d", "e"], every: 10).keepingOpen())
        let client = try client { $0.timeout(15) }

        let observer = scheduler.start { client.chunkStream(self.feed).map(chunkText) }

        XCTAssertEqual(observer.events.map(\.value.element), ["a", "b", "c", "d", "e", nil])
        XCTAssertEqual(observer.events.last?.time, 255, "15 s after the last chunk, at 240")
        guard case .timeout(let seconds)? = observer.events.last?.value.error as? LeashError else {
            return XCTFail("expected a timeout, got \(observer.events)")
        }
        XCTAssertEqual(seconds, 15)
    }

    func testStream_anEndpointsOwnTimeout_boundsTheWholeStream() throws {
        transport.stub(.get, path: "/v1/feed", StubResponse.chunks(["a", "b", "c"], every: 10))
        let client = try client()
        var endpoint = feed
        endpoint.timeout = 15

        let observer = scheduler.start { client.chunkStream(endpoint).map(chunkText) }

        XCTAssertEqual(observer.events.map(\.value.element), ["a", "b", nil])
        XCTAssertEqual(observer.events.last?.time, 215)
    }

    func testStream_disposingStopsTheChunks() throws {
        transport.stub(.get, path: "/v1/feed", StubResponse.chunks(["a", "b", "c", "d"]).keepingOpen())
        let client = try client()

        let observer = scheduler.start(disposed: 202) { client.chunkStream(self.feed).map(chunkText) }

        XCTAssertEqual(observer.events, [.next(200, "a"), .next(201, "b")])
    }

    func testStream_overATransportThatOnlySends_getsTheWholeBodyAsOneChunk() throws {
        transport.stub(.get, path: "/v1/feed", .chunks(["a", "b", "c"], every: 1))
        let client = try makePipelineClient(SendOnlyTransport(base: transport), scheduler: scheduler)

        let observer = scheduler.start { client.lineStream(self.feed, as: String.self) }

        XCTAssertEqual(observer.events, [.next(200, "abc"), .completed(200)])
    }

    // MARK: Lines

    func testLines_decodesEachLineWhenComplete_joiningLinesSplitAcrossChunks() throws {
        transport.stub(
            .get, path: "/v1/feed",
            .chunks(["{\"index\":0}\n{\"ind", "ex\":1}\r\n", "\n{\"index\":2}"], every: 1))
        let client = try client()

        let observer = scheduler.start { client.lineStream(self.feed, as: Item.self) }

        XCTAssertEqual(
            observer.events,
            [.next(200, Item(index: 0)), .next(201, Item(index: 1)), .next(202, Item(index: 2)), .completed(202)])
    }

    func testLines_asString_givesEveryRawLine() throws {
        transport.stub(.get, path: "/v1/feed", .chunks(["one\ntw", "o\r\n\nthree"], every: 1))
        let client = try client()

        let observer = scheduler.start { client.lineStream(self.feed, as: String.self) }

        XCTAssertEqual(
            observer.events,
            [.next(200, "one"), .next(201, "two"), .next(201, ""), .next(201, "three"), .completed(201)])
    }

    func testLines_aBadLine_failsWithItsNumberAndExcerpt_afterTheGoodOnes() throws {
        transport.stub(.get, path: "/v1/feed", .chunks(["{\"index\":0}\n{\"index\":\n{\"index\":2}\n"]))
        let client = try client()

        let observer = scheduler.start { client.lineStream(self.feed, as: Item.self) }

        XCTAssertEqual(observer.events.first, .next(200, Item(index: 0)))
        XCTAssertEqual(observer.events.count, 2)
        guard case .decoding(let type, _, let excerpt)? = observer.events.last?.value.error as? LeashError else {
            return XCTFail("expected a decoding failure, got \(observer.events)")
        }
        XCTAssertTrue(type.contains("line 2"), type)
        XCTAssertEqual(excerpt, "line 2: {\"index\":")
    }

    func testLines_invalidUTF8_asString_isADecodingFailure() throws {
        transport.stub(.get, path: "/v1/feed", .chunks([Data("ok\n".utf8), Data([0x66, 0xFF, 0x0A])]))
        let client = try client()

        let observer = scheduler.start { client.lineStream(self.feed, as: String.self) }

        XCTAssertEqual(observer.events.first, .next(200, "ok"))
        guard case .decoding(let type, _, _)? = observer.events.last?.value.error as? LeashError else {
            return XCTFail("expected a decoding failure, got \(observer.events)")
        }
        XCTAssertTrue(type.contains("line 2"), type)
    }

    func testLines_aLineLongerThanTheLimit_failsInsteadOfGrowing() throws {
        let long = String(repeating: "x", count: 100)
        transport.stub(.get, path: "/v1/feed", .chunks(["short\n", long, long]).keepingOpen())
        let client = try client()

        let observer = scheduler.start { client.lineStream(self.feed, as: String.self, maximumLineLength: 150) }

        XCTAssertEqual(observer.events.first, .next(200, "short"))
        XCTAssertEqual(observer.events.last?.time, 202, "when the line passed 150 bytes")
        guard case .invalidResponse? = observer.events.last?.value.error as? LeashError else {
            return XCTFail("expected invalidResponse, got \(observer.events)")
        }
    }

    func testLines_fromAScriptedValueList() throws {
        transport.stub(.get, path: "/v1/feed", .lines([Item(index: 7), Item(index: 8)], every: 5))
        let client = try client()

        let observer = scheduler.start { client.lineStream(self.feed, as: Item.self) }

        XCTAssertEqual(observer.events, [.next(200, Item(index: 7)), .next(205, Item(index: 8)), .completed(205)])
    }
}

/// A chunk as text.
private func chunkText(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

/// A transport that implements only `send`: `transfer` is the protocol's default.
private struct SendOnlyTransport: Transport {
    let base: StubTransport

    func send(_ request: URLRequest) -> Observable<TransportResponse> {
        base.send(request)
    }
}
