import Foundation
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What `HTTP1Target` reads from a URL and what `HTTP1RequestHead` writes: the request line,
/// the headers the transport adds or leaves to the request, the body's framing, and the
/// typed errors for what cannot be sent.
final class HTTP1RequestHeadTests: XCTestCase {
    private func target(_ string: String) throws -> HTTP1Target {
        try HTTP1Target(try XCTUnwrap(URL(string: string)))
    }

    private func head(
        _ method: String = "GET", _ url: String = "http://api.example.test/users?page=2",
        headers: [String: String] = [:], body: HTTP1RequestBody = .none, absoluteForm: Bool = false,
        cookie: String? = nil
    ) throws -> (text: String, expectsContinue: Bool) {
        let made = try HTTP1RequestHead.make(
            method: method, target: try target(url), headers: headers, body: body, absoluteForm: absoluteForm,
            cookieHeader: cookie)
        return (String(decoding: made.bytes, as: UTF8.self), made.expectsContinue)
    }

    private func lines(_ text: String) -> [String] {
        text.components(separatedBy: "\r\n")
    }

    private func urlErrorCode(_ body: () throws -> Void) -> URLError.Code? {
        do {
            try body()
        } catch LeashError.transport(let error) {
            return error.code
        } catch {
            XCTFail("not a transport error: \(error)")
        }
        return nil
    }

    // MARK: Targets

    func testTarget_readsSchemeHostPortAndTarget_withoutTheFragment() throws {
        let plain = try target("http://API.Example.test/a/b?x=1&y=%20#section")
        XCTAssertEqual(plain.scheme, "http")
        XCTAssertEqual(plain.host, "api.example.test")
        XCTAssertEqual(plain.port, 80)
        XCTAssertEqual(plain.hostHeader, "API.Example.test")
        XCTAssertEqual(plain.pathAndQuery, "/a/b?x=1&y=%20")
        XCTAssertEqual(plain.absoluteForm, "http://API.Example.test/a/b?x=1&y=%20")

        let secure = try target("https://[::1]:8443")
        XCTAssertEqual(secure.host, "::1")
        XCTAssertEqual(secure.port, 8443)
        XCTAssertEqual(secure.hostHeader, "[::1]:8443")
        XCTAssertEqual(secure.pathAndQuery, "/")
        XCTAssertTrue(secure.isSecure)

        XCTAssertEqual(try target("http://h.test?q=1").pathAndQuery, "/?q=1")
    }

    func testTarget_userInfo_isDecoded_andLeftOutOfTheHostHeader() throws {
        let withUser = try target("http://ada:s%40cret@h.test:8080/x")
        XCTAssertEqual(withUser.userInfo?.user, "ada")
        XCTAssertEqual(withUser.userInfo?.password, "s@cret")
        XCTAssertEqual(withUser.hostHeader, "h.test:8080")
        XCTAssertEqual(withUser.port, 8080)
    }

    func testTarget_whatCannotBeSent_isATypedError() {
        XCTAssertEqual(urlErrorCode { _ = try target("ftp://h.test/file") }, .unsupportedURL)
        XCTAssertEqual(urlErrorCode { _ = try target("http://h.test:70000/") }, .badURL)
        XCTAssertEqual(urlErrorCode { _ = try target("http://h.test:0/") }, .badURL)
        XCTAssertEqual(urlErrorCode { _ = try target("http://@/x") }, .badURL, "no host")
        XCTAssertEqual(urlErrorCode { _ = try target("http://:80/x") }, .badURL, "no host")
        XCTAssertEqual(urlErrorCode { _ = try HTTP1Target(URL(fileURLWithPath: "/tmp/x")) }, .unsupportedURL)
    }

    // MARK: Heads

    func testHead_requestLine_andTheHeadersTheTransportAdds() throws {
        let (text, expectsContinue) = try head()
        let lines = lines(text)
        XCTAssertEqual(lines.first, "GET /users?page=2 HTTP/1.1")
        XCTAssertTrue(lines.contains("Host: api.example.test"))
        XCTAssertTrue(lines.contains("Accept-Encoding: gzip, deflate"))
        XCTAssertTrue(lines.contains("User-Agent: Leash/1.0"), "as the pipeline sends it")
        XCTAssertFalse(text.contains("Content-Length"), "a GET without a body says nothing of one")
        XCTAssertTrue(text.hasSuffix("\r\n\r\n"))
        XCTAssertFalse(expectsContinue)
    }

    func testHead_theRequestsOwnHeadersWin_butNeverTheFraming() throws {
        let (text, _) = try head(
            "POST",
            headers: [
                "Accept-Encoding": "identity", "User-Agent": "App/2", "Content-Length": "999",
                "Transfer-Encoding": "chunked", "Connection": "close", "Host": "other.test",
            ], body: .data(Data("hello".utf8)))
        let lines = lines(text)
        XCTAssertTrue(lines.contains("Accept-Encoding: identity"))
        XCTAssertTrue(lines.contains("User-Agent: App/2"))
        XCTAssertTrue(lines.contains("Host: other.test"))
        XCTAssertFalse(lines.contains("Accept-Encoding: gzip, deflate"))
        XCTAssertEqual(lines.filter { $0.lowercased().hasPrefix("content-length") }, ["Content-Length: 5"])
        XCTAssertFalse(text.lowercased().contains("transfer-encoding"))
        XCTAssertFalse(text.lowercased().contains("connection:"))
    }

    func testHead_bodyFraming_byMethodAndLength() throws {
        XCTAssertTrue(lines(try head("POST").text).contains("Content-Length: 0"), "a POST without a body says 0")
        XCTAssertFalse(try head("DELETE").text.contains("Content-Length"))
        let stream = InputStream(data: Data(count: 10))
        let chunked = try head("PUT", body: .stream(stream, length: nil))
        XCTAssertTrue(lines(chunked.text).contains("Transfer-Encoding: chunked"))
        XCTAssertTrue(chunked.expectsContinue, "a body of unknown length may be large")
        let large = try head("POST", body: .data(Data(count: Int(HTTP1RequestHead.continueThreshold))))
        XCTAssertTrue(lines(large.text).contains("Expect: 100-continue"))
        XCTAssertTrue(large.expectsContinue)
        let small = try head("POST", body: .data(Data(count: 1000)))
        XCTAssertFalse(small.expectsContinue)
        let told = try head(
            "POST", headers: ["Expect": ""], body: .data(Data(count: Int(HTTP1RequestHead.continueThreshold))))
        XCTAssertFalse(told.expectsContinue, "a request that sets Expect itself is left alone")
    }

    func testHead_absoluteForm_credentialsFromTheURL_andCookies() throws {
        let proxied = try head("GET", "http://ada:secret@h.test:8080/x?y", absoluteForm: true, cookie: "a=1; b=2")
        let lines = lines(proxied.text)
        XCTAssertEqual(lines.first, "GET http://h.test:8080/x?y HTTP/1.1")
        XCTAssertTrue(lines.contains("Authorization: Basic YWRhOnNlY3JldA=="))
        XCTAssertTrue(lines.contains("Cookie: a=1; b=2"))
        let own = try head(headers: ["Cookie": "mine=1"], cookie: "a=1")
        XCTAssertTrue(self.lines(own.text).contains("Cookie: mine=1"))
        XCTAssertFalse(own.text.contains("a=1"), "a Cookie the request sets itself wins")
    }

    func testHead_headerInjection_andBadNames_areEncodingErrors() {
        for headers in [["X-Evil": "a\r\nInjected: yes"], ["X-Evil": "a\nb"], ["Bad Name": "x"], ["": "x"]] {
            XCTAssertThrowsError(try head(headers: headers)) { error in
                guard case .encoding = error as? LeashError else { return XCTFail("\(error)") }
            }
        }
        XCTAssertThrowsError(try head("GET /x HTTP/1.1\r\n")) { error in
            guard case .encoding = error as? LeashError else { return XCTFail("\(error)") }
        }
    }

    // MARK: Bodies

    func testBodyReader_chunksAStreamOfUnknownLength_andChecksADeclaredOne() throws {
        let payload = Data((0..<150_000).map { UInt8($0 % 251) })
        let reader = HTTP1BodyReader(stream: InputStream(data: payload), length: nil)
        var wire = Data()
        var body: Int64 = 0
        while true {
            switch try reader.next() {
            case .bytes(let bytes, let count):
                wire.append(bytes)
                body += count
                continue
            case .end(let trailer):
                wire.append(trailer ?? Data())
            }
            break
        }
        XCTAssertEqual(body, Int64(payload.count))
        XCTAssertTrue(wire.starts(with: Data("10000\r\n".utf8)), "64 KiB pieces, in hex")
        XCTAssertTrue(wire.suffix(5) == Data("0\r\n\r\n".utf8))

        let short = HTTP1BodyReader(stream: InputStream(data: Data(count: 10)), length: 20)
        XCTAssertThrowsError(try { while case .bytes = try short.next() {} }()) { error in
            guard case .encoding = error as? LeashError else { return XCTFail("\(error)") }
        }
    }

    // MARK: Pacing

    func testStreamPacer_holdsBackPastTheLimit_andGoesOnAtHalf() {
        let pacer = HTTP1StreamPacer(policy: SlowSubscriberPolicy(bufferLimit: 100, longestHold: nil))
        let resumed = LockedCounter()
        XCTAssertFalse(pacer.holdsBack { resumed.add() })
        pacer.kept(101)
        XCTAssertTrue(pacer.holdsBack { resumed.add() })
        pacer.handedOn(40)
        XCTAssertEqual(resumed.value, 0, "61 bytes still wait: more than half the limit")
        pacer.handedOn(11)
        XCTAssertEqual(resumed.value, 1, "down to half: reading goes on, once")
        pacer.handedOn(50)
        XCTAssertEqual(resumed.value, 1)
    }

    func testStreamPacer_aSubscriberThatTakesNothingForTheLongestHold_endsTheStream() {
        let pacer = HTTP1StreamPacer(policy: SlowSubscriberPolicy(bufferLimit: 10, longestHold: 0.05))
        let stuck = expectation(description: "the hold ran out")
        pacer.whenStuck { waiting in
            XCTAssertEqual(waiting, 11)
            stuck.fulfill()
        }
        pacer.kept(11)
        XCTAssertTrue(pacer.holdsBack {})
        wait(for: [stuck], timeout: 5)
    }
}

/// A counter changed from another thread.
private final class LockedCounter: @unchecked Sendable {
    // @unchecked: `count` is behind `lock`.
    private let lock = NSLock()
    private var count = 0

    func add() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
