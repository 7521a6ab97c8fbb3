import Foundation
import LeashTestSupport
import LoopbackServer
import Rx
import RxTesting
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `HTTP1Transport` against a server that answers with seeded garbage: random bytes, and
/// valid responses truncated, with flipped bytes, with huge chunk sizes, bad
/// `Content-Length`s, heads over the parser's limits, header lines that never end, floods of
/// interim answers, closed cleanly or reset. Every request ends once, in time, with a value
/// or a typed `LeashError` (never a hang or a crash); a valid answer is read exactly; and no
/// connection stays leased at the end.
final class HTTP1FuzzServerTests: LeakCheckedTestCase {
    /// What the server answers to one request, and what the client may make of it.
    struct Answer {
        /// The kind, for the report.
        let kind: String
        /// The bytes written.
        let bytes: Data
        /// Written in pieces of these sizes (the rest in one write).
        let pieces: [Int]
        /// What happens after the bytes: the connection is kept for the next request, closed
        /// cleanly, or reset.
        let after: After
        /// For a valid answer: the body the client must get.
        let validBody: Data?
        /// Whether no value can come of it (a head or a body cut short, a limit exceeded, a
        /// body that does not decode): only an error is right.
        var mustFail = false

        enum After {
            case keep, close, reset
        }
    }

    /// The answer to request `number` of the run seeded with `seed`: the same every run.
    static func answer(to number: Int, seed: UInt64) -> Answer {
        var generator = SplitMix64(seed: seed ^ (UInt64(number) &* 0x9E37_79B9_7F4A_7C15))
        func below(_ bound: Int) -> Int { Int(generator.next() % UInt64(max(1, bound))) }
        func bytes(_ count: Int) -> Data { Data((0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }) }
        func closing() -> Answer.After { below(2) == 0 ? .close : .reset }
        func pieces(_ total: Int) -> [Int] {
            guard below(2) == 0 else { return [] }
            return (0..<below(8)).map { _ in 1 + below(max(1, total / 4)) }
        }

        let (valid, keeps, body) = validResponse(&generator)
        var mustFail = true
        let kinds = [
            "valid", "soup", "http-soup", "truncated", "flipped", "huge-chunk", "bad-length", "too-many-headers",
            "head-too-large", "endless-line", "interim-flood", "bad-status", "bad-gzip",
        ]
        let kind = kinds[below(kinds.count)]
        let data: Data
        switch kind {
        case "valid":
            return Answer(
                kind: kind, bytes: valid, pieces: pieces(valid.count), after: keeps ? .keep : .close, validBody: body)
        case "soup":
            data = bytes(below(3_000))
        case "http-soup":
            data = Data("HTTP/1.1 ".utf8) + bytes(below(3_000))
        case "truncated":
            data = valid.prefix(below(valid.count))
            // A body delimited by the close is whole wherever it is cut, once its head came.
            mustFail = keeps || data.count < valid.count - body.count
        case "flipped":
            mustFail = false
            var flipped = valid
            for _ in 0...below(4) { flipped[below(flipped.count)] ^= UInt8(1 + below(255)) }
            data = flipped
        case "huge-chunk":
            let sizes = [
                "FFFFFFFFFFFFFFFFFF\r\n", "7FFFFFFFFFFFFFFF\r\nabc", "-1\r\n", "10;x=\u{1}\r\n", "ffffffffffffffff\r\n",
                String(repeating: "0", count: 2_000) + "1\r\n", "8000000000000000\r\n",
            ]
            data = Data(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + sizes[below(sizes.count)]).utf8)
        case "bad-length":
            let lengths = [
                "-1", "abc", "99999999999999999999999", "10, 20", "5\r\nContent-Length: 6", "100", "1", " ", "0x10",
                "+5",
            ]
            data = Data(("HTTP/1.1 200 OK\r\nContent-Length: \(lengths[below(lengths.count)])\r\n\r\nhello").utf8)
            mustFail = false
        case "too-many-headers":
            let fields = (0..<(129 + below(100))).map { "X-Field-\($0): v\r\n" }.joined()
            data = Data(("HTTP/1.1 200 OK\r\n" + fields + "Content-Length: 0\r\n\r\n").utf8)
        case "head-too-large":
            let line = "X-Padding: " + String(repeating: "p", count: 1_000) + "\r\n"
            data = Data(("HTTP/1.1 200 OK\r\n" + String(repeating: line, count: 70) + "\r\n").utf8)
        case "endless-line":
            data = Data(("HTTP/1.1 200 OK\r\nX-Endless: " + String(repeating: "e", count: 20_000 + below(20_000))).utf8)
        case "interim-flood":
            let interims = 10 + below(20)
            data = Data((String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: interims)).utf8) + valid
            mustFail = interims > HTTP1ParserLimits.default.maximumInterimResponses
        case "bad-status":
            let lines = [
                "HTTP/2.0 200 OK", "HTTP/1.1 20 OK", "HTTP/1.1 2000 OK", "HTTP/1.1 099 Low", "ICY 200 OK", "HTTP/1.1",
                "HTTP/1.1 200 OK\u{0}", "HTTP/1.1 101 Switching Protocols",
            ]
            data = Data((lines[below(lines.count)] + "\r\nContent-Length: 2\r\n\r\nok").utf8)
            mustFail = false
        default:
            data = Data("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 40\r\n\r\n".utf8) + bytes(40)
        }
        return Answer(
            kind: kind, bytes: data, pieces: pieces(data.count), after: closing(), validBody: nil, mustFail: mustFail)
    }

    /// A valid response, whether it keeps the connection, and its body.
    private static func validResponse(_ generator: inout SplitMix64) -> (Data, keeps: Bool, body: Data) {
        let length = Int(generator.next() % 3_000)
        let body = Data((0..<length).map { _ in UInt8(ascii: "a") + UInt8(truncatingIfNeeded: generator.next() % 26) })
        switch generator.next() % 3 {
        case 0:
            return (Data("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n".utf8) + body, true, body)
        case 1:
            var chunked = Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
            var offset = 0
            while offset < length {
                let size = min(length - offset, 1 + Int(generator.next() % 700))
                chunked.append(Data((String(size, radix: 16) + "\r\n").utf8))
                chunked.append(body[offset..<offset + size])
                chunked.append(Data("\r\n".utf8))
                offset += size
            }
            chunked.append(Data("0\r\nX-Trailer: t\r\n\r\n".utf8))
            return (chunked, true, body)
        default:
            // Delimited by the close.
            return (Data("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".utf8) + body, false, body)
        }
    }

    func testSeededBrokenAnswers_endEveryRequestOnce_inTime_withAValueOrATypedError() throws {
        let seed: UInt64 = 0x4C45_4153_4831
        let requests = 400
        let server = try HTTP1RawServer { connection in
            while let request = connection.readRequest() {
                let number = Int(request.target.split(separator: "/").last ?? "") ?? 0
                let answer = Self.answer(to: number, seed: seed)
                var rest = answer.bytes
                for size in answer.pieces where !rest.isEmpty {
                    guard connection.write(rest.prefix(size)) else { return }
                    rest = rest.dropFirst(size)
                }
                guard connection.write(rest) else { return }
                switch answer.after {
                case .keep: continue
                case .close: return connection.close()
                case .reset: return connection.reset()
                }
            }
        }
        defer { server.stop() }
        let transport = HTTP1Integration.transport()
        let outcomes = SpecLocked<[String: Int]>([:])
        let problems = SpecLocked<[String]>([])
        let started = Date()

        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for number in stride(from: worker, to: requests, by: 4) {
                let answer = Self.answer(to: number, seed: seed)
                let outcome = transport.send(URLRequest(url: server.url("/fuzz/\(number)")))
                    .toBlocking(timeout: 3).materialize()
                let name: String
                switch outcome {
                case .completed(let elements) where elements.count == 1:
                    name = "value \(elements[0].httpResponse.statusCode)"
                    if answer.mustFail {
                        problems.withLock { $0.append("#\(number) \(answer.kind): a value from a broken answer") }
                    }
                    if let body = answer.validBody, elements[0].data != body {
                        problems.withLock { $0.append("#\(number) valid: body of \(elements[0].data.count) bytes") }
                    }
                case .completed(let elements):
                    name = "completed with \(elements.count) values"
                    problems.withLock { $0.append("#\(number) \(answer.kind): \(name)") }
                case .failed(_, LeashError.transport(let error)):
                    name = "transport \(error.code.rawValue)"
                    if answer.validBody != nil, server.log.requests.contains(where: { $0.target == "/fuzz/\(number)" })
                    {
                        // A valid answer fails only if its request never reached the server (a
                        // kept-alive connection the server was closing, after an answer that closes).
                        problems.withLock { $0.append("#\(number) valid failed: \(error)") }
                    }
                case .failed(_, LeashError.invalidResponse):
                    name = "invalidResponse"
                case .failed(_, let error):
                    name = "other"
                    problems.withLock { $0.append("#\(number) \(answer.kind): \(error)") }
                }
                outcomes.withLock { $0["\(answer.kind): \(name)", default: 0] += 1 }
            }
        }

        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(problems.value, [], "requests that hung or ended wrongly")
        XCTAssertEqual(outcomes.value.values.reduce(0, +), requests)
        XCTAssertTrue(
            HTTP1Integration.eventually { transport.pool.counts.busy == 0 },
            "connections still leased: \(transport.pool.counts)")
        XCTAssertLessThan(elapsed, 5)
        let report = outcomes.value.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }
        print(
            "HTTP1FuzzServerTests: \(requests) requests in \(String(format: "%.2f", elapsed)) s:\n  "
                + report.joined(separator: "\n  "))
    }
}
