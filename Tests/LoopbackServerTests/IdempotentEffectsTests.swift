import Foundation
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `IdempotentEffects` and its route, through URLSession against a running server.
final class IdempotentEffectsTests: LoopbackTestCase {
    private struct Created: Decodable, Equatable {
        let effect: Int
        let replayed: Bool
    }

    private let key = #""3F2504E0-4F89-11D3-9A0C-0305E82C3301""#

    private func write(
        _ server: LoopbackServer, _ path: String = "/idempotent/orders", method: String = "POST",
        key: String? = nil, body: String = #"{"item":1}"#, headers: [String: String] = [:]
    ) throws -> URLRequest {
        var request = URLRequest(url: try XCTUnwrap(URL(string: server.baseURL.absoluteString + path)))
        request.httpMethod = method
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let key { request.setValue(key, forHTTPHeaderField: "Idempotency-Key") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    private func created(_ result: FetchResult, file: StaticString = #filePath, line: UInt = #line) throws -> Created {
        XCTAssertEqual(result.status, 201, result.text ?? "\(String(describing: result.error))", file: file, line: line)
        return try decode(Created.self, from: result.data, file: file, line: line)
    }

    func testWithoutAKey_everyRequestPerformsTheEffect() throws {
        let server = try makeServer()
        let effects = server.idempotentRoute(path: "/idempotent/*")
        let session = makeSession()

        let first = fetch(try write(server, "/idempotent/orders?draft=1", headers: ["X-Trace": "a"]), on: session)
        XCTAssertEqual(try created(first), Created(effect: 1, replayed: false))
        XCTAssertEqual(first.text, #"{"effect":1,"replayed":false}"#)
        XCTAssertNil(first.response?.value(forHTTPHeaderField: "Idempotent-Replayed"))
        let second = fetch(try write(server, "/idempotent/orders?draft=1", method: "PUT"), on: session)
        XCTAssertEqual(try created(second), Created(effect: 2, replayed: false))

        XCTAssertEqual(effects.effects.map(\.sequence), [1, 2])
        XCTAssertEqual(effects.effects.map(\.method), ["POST", "PUT"])
        let effect = try XCTUnwrap(effects.effects.first)
        XCTAssertNil(effect.key)
        XCTAssertEqual(effect.path, "/idempotent/orders?draft=1")
        XCTAssertEqual(effect.body, Data(#"{"item":1}"#.utf8))
        XCTAssertEqual(effect.headers["x-trace"], "a")
        XCTAssertEqual(effect.headers["content-type"], "application/json")
        XCTAssertFalse(effect.responseDropped)
        XCTAssertEqual(effects.requestCount, 2)
    }

    func testAKeySeenWithTheSameRequest_isReplayedWithoutAnotherEffect() throws {
        let server = try makeServer()
        let effects = server.idempotentRoute(path: "/idempotent/*")
        let session = makeSession()

        XCTAssertEqual(
            try created(fetch(try write(server, key: key), on: session)), Created(effect: 1, replayed: false))
        let again = fetch(try write(server, key: key), on: session)
        XCTAssertEqual(try created(again), Created(effect: 1, replayed: true))
        XCTAssertEqual(again.response?.value(forHTTPHeaderField: "Idempotent-Replayed"), "true")

        XCTAssertEqual(effects.effects.count, 1)
        XCTAssertEqual(effects.effects.first?.key, key, "the key as received, quotes included")
        XCTAssertEqual(effects.effectCount(forKey: key), 1)
        XCTAssertEqual(effects.requestCount, 2)
    }

    func testKeysAreComparedExactly() throws {
        let server = try makeServer()
        let effects = server.idempotentRoute(path: "/idempotent/*")
        let session = makeSession()
        for variant in [#""abc""#, "abc", #""ABC""#] {
            XCTAssertFalse(try created(fetch(try write(server, key: variant), on: session)).replayed, variant)
        }
        XCTAssertEqual(effects.effects.compactMap(\.key), [#""abc""#, "abc", #""ABC""#])
        XCTAssertEqual(effects.effectCount(forKey: "abc"), 1)
    }

    func testAKeyReusedWithAnotherBodyPathOrMethod_is422WithoutAnEffect() throws {
        let server = try makeServer()
        let effects = server.idempotentRoute(path: "/idempotent/*")
        let session = makeSession()
        _ = try created(fetch(try write(server, key: key), on: session))

        let misuses = [
            try write(server, key: key, body: #"{"item":2}"#),
            try write(server, "/idempotent/other", key: key),
            try write(server, "/idempotent/orders?x=1", key: key),
            try write(server, method: "PUT", key: key),
        ]
        for misuse in misuses {
            let result = fetch(misuse, on: session)
            XCTAssertEqual(result.status, 422, "\(misuse)")
            XCTAssertEqual(result.text, #"{"error":"idempotency key reused with another request"}"#)
        }
        XCTAssertEqual(effects.effects.count, 1)
        XCTAssertEqual(effects.requestCount, 1 + misuses.count)
    }

    func testAKeyWhoseFirstRequestIsInProgress_is409_thenReplayed() throws {
        let server = try makeServer()
        let effects = server.idempotentRoute(path: "/idempotent/*")
        effects.holdsEffects = true
        defer { effects.holdsEffects = false }

        let firstResult = Locked<FetchResult?>(nil)
        let firstDone = expectation(description: "first request answered")
        makeSession().dataTask(with: try write(server, key: key)) { data, response, error in
            firstResult.withLock { $0 = FetchResult(data: data, response: response as? HTTPURLResponse, error: error) }
            firstDone.fulfill()
        }.resume()
        XCTAssertTrue(effects.waitForHeldRequests(1, timeout: 10))

        // A second connection: the first is busy with the held request.
        let session = makeSession()
        let conflict = fetch(try write(server, key: key), on: session)
        XCTAssertEqual(conflict.status, 409, conflict.text ?? "")
        XCTAssertEqual(effects.effects, [], "no effect while the first is held, none for the conflict")

        effects.holdsEffects = false
        wait(for: [firstDone], timeout: 10)
        XCTAssertEqual(try created(try XCTUnwrap(firstResult.value)), Created(effect: 1, replayed: false))
        XCTAssertEqual(try created(fetch(try write(server, key: key), on: session)), Created(effect: 1, replayed: true))
        XCTAssertEqual(effects.effectCount(forKey: key), 1)
        XCTAssertEqual(effects.requestCount, 3)
    }

    func testADroppedResponse_failsTheClient_afterTheEffect_andTheKeyReplaysIt() throws {
        let server = try makeServer()
        let effects = server.idempotentRoute(path: "/idempotent/*")
        let session = makeSession()
        _ = try created(fetch(try write(server), on: session))
        effects.dropResponseProbability = 1

        // Within 10 s: on a kept-alive connection, URLSession on Linux would re-send the
        // request without its body and wait for its 30 s timeout.
        let lost = fetch(try write(server, key: key), on: session, timeout: 10)
        XCTAssertNil(lost.response)
        XCTAssertNotNil(lost.urlErrorCode, "\(String(describing: lost.error))")
        XCTAssertEqual(effects.effects.map(\.responseDropped), [false, true])
        XCTAssertEqual(effects.effectCount(forKey: key), 1)
        XCTAssertEqual(server.requestCount, 2, "the client did not send it again")
        XCTAssertEqual(server.connectionCount, 2, "every answer closes its connection")

        effects.dropResponseProbability = 0
        let retry = fetch(try write(server, key: key), on: session, timeout: 10)
        XCTAssertEqual(try created(retry), Created(effect: 2, replayed: true))
        XCTAssertEqual(retry.response?.value(forHTTPHeaderField: "Idempotent-Replayed"), "true")
        XCTAssertEqual(effects.effectCount(forKey: key), 1)
        XCTAssertEqual(effects.requestCount, 3)
    }

    func testDropsFollowTheSeed() throws {
        // Straight through the route's handler: the generator is the point, not the wire.
        func drops(_ effects: IdempotentEffects) -> [Bool] {
            effects.dropResponseProbability = 0.5
            let route = effects.route(path: "*")
            for _ in 0..<32 { _ = route.handler(LoopbackRequest(method: "POST", target: "/w")) }
            return effects.effects.map(\.responseDropped)
        }
        let effects = IdempotentEffects(seed: 7)
        let pattern = drops(effects)
        XCTAssertEqual(pattern.count, 32)
        XCTAssertEqual(pattern, drops(IdempotentEffects(seed: 7)))
        effects.reset()
        XCTAssertEqual(drops(effects), pattern, "a reset starts the generator again from its seed")
        XCTAssertTrue(pattern.contains(true) && pattern.contains(false), "\(pattern)")
        XCTAssertNotEqual(pattern, drops(IdempotentEffects(seed: 8)))
    }

    func testFailNext_answersTheScriptedStatusesWithoutAnEffect_andLeavesTheKeyUnused() throws {
        let server = try makeServer()
        let effects = server.idempotentRoute(path: "/idempotent/*")
        effects.failNext(2, status: 503, headers: ["Retry-After": "2"])
        effects.failNext(1, status: 400)
        let session = makeSession()

        for _ in 0..<2 {
            let unavailable = fetch(try write(server, key: key), on: session)
            XCTAssertEqual(unavailable.status, 503)
            XCTAssertEqual(unavailable.response?.value(forHTTPHeaderField: "Retry-After"), "2")
        }
        XCTAssertEqual(fetch(try write(server, key: key), on: session).status, 400)
        XCTAssertEqual(effects.effects, [])
        XCTAssertEqual(
            try created(fetch(try write(server, key: key), on: session)), Created(effect: 1, replayed: false))
        XCTAssertEqual(effects.requestCount, 4)
    }

    func testRequiredHeader_refusesRequestsWithoutItWith401() throws {
        let server = try makeServer()
        let effects = server.idempotentRoute(path: "/idempotent/*")
        effects.requiredHeader = (name: "Authorization", value: "Bearer good")
        let session = makeSession()

        XCTAssertEqual(fetch(try write(server, key: key), on: session).status, 401)
        let wrong = try write(server, key: key, headers: ["Authorization": "Bearer stale"])
        XCTAssertEqual(fetch(wrong, on: session).status, 401)
        XCTAssertEqual(effects.effects, [])
        let right = try write(server, key: key, headers: ["authorization": "Bearer good"])
        XCTAssertEqual(try created(fetch(right, on: session)), Created(effect: 1, replayed: false))
        XCTAssertEqual(effects.effects.first?.headers["authorization"], "Bearer good")

        effects.requiredHeader = nil
        XCTAssertEqual(try created(fetch(try write(server), on: session)), Created(effect: 2, replayed: false))
        XCTAssertEqual(effects.requestCount, 4)
    }

    func testKeyHeaderName_isConfigurable() throws {
        let server = try makeServer()
        let effects = server.idempotentRoute(path: "/idempotent/*")
        effects.keyHeaderName = "X-Request-ID"
        let session = makeSession()

        for _ in 0..<2 {
            _ = try created(fetch(try write(server, headers: ["X-Request-ID": "r1"]), on: session))
        }
        _ = try created(fetch(try write(server, key: key), on: session))
        XCTAssertEqual(effects.effects.map(\.key), ["r1", nil])
        XCTAssertEqual(effects.effectCount(forKey: "r1"), 1)
    }

    func testReset_forgetsEffectsKeysCountsAndScripts() throws {
        let server = try makeServer()
        let effects = server.idempotentRoute(path: "/idempotent/*")
        let session = makeSession()
        _ = try created(fetch(try write(server, key: key), on: session))
        effects.failNext(1, status: 503)

        effects.reset()
        XCTAssertEqual(effects.effects, [])
        XCTAssertEqual(effects.requestCount, 0)
        XCTAssertEqual(
            try created(fetch(try write(server, key: key), on: session)), Created(effect: 1, replayed: false))
        XCTAssertTrue(effects.waitForRequests(1, timeout: 0))
        XCTAssertFalse(effects.waitForRequests(2, timeout: 0))
    }

    func testTheRouteAnswersOnlyItsMethodAndPath() throws {
        let server = try makeServer()
        let effects = server.idempotentRoute(method: "POST", path: "/idempotent/*")
        let session = makeSession()
        XCTAssertEqual(fetch(try write(server, method: "PUT"), on: session).status, 404)
        XCTAssertEqual(fetch(try write(server, "/elsewhere"), on: session).status, 404)
        XCTAssertEqual(effects.requestCount, 0)
    }
}
