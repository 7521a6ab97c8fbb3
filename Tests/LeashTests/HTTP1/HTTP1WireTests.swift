import Foundation
import LeashDigest
import LeashTestSupport
import LoopbackServer
import Rx
import RxTesting
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What `HTTP1Transport` puts on the wire and reads from it, against the `LoopbackServer`:
/// content codings undone, chunked bodies, bodiless answers (HEAD, 204, 304) that leave the
/// connection usable, `Expect: 100-continue` for a large file, a stream of unknown length sent
/// chunked, cookies (deletion, `Path`, `Secure`), and `http_proxy`/`no_proxy`.
final class HTTP1WireTests: LoopbackIntegrationCase {
    /// Sends `request` through `transport`, which must answer, and waits until the
    /// connection is back in the pool (the answer is reported before the connection is given
    /// back: without the wait, the next request could open another).
    private func answer(_ transport: HTTP1Transport, _ request: URLRequest) throws -> TransportResponse {
        let response = try HTTP1Integration.send(transport, request).get()
        XCTAssertTrue(HTTP1Integration.eventually { transport.pool.counts.busy == 0 }, "the connection never came back")
        return response
    }

    /// GETs `path` (with its query, if any) from the server through `transport` (see `answer`).
    private func get(_ transport: HTTP1Transport, _ path: String) throws -> TransportResponse {
        try answer(transport, URLRequest(url: try XCTUnwrap(URL(string: server.baseURL.absoluteString + path))))
    }

    // MARK: Content codings

    func testGzipDeflateAndChunkedGzipBodies_areDecoded_onOneKeptAliveConnection() throws {
        let original = ZlibCompression.text(count: 200_000)
        let gzip = try ZlibCompression.compress(original, as: .gzip)
        let zlib = try ZlibCompression.compress(original, as: .zlib)
        XCTAssertLessThan(gzip.count, original.count / 2)
        server.route("GET", "/gzip", response: LoopbackResponse(headers: ["Content-Encoding": "gzip"], body: gzip))
        server.route(
            "GET", "/deflate", response: LoopbackResponse(headers: ["Content-Encoding": "deflate"], body: zlib))
        server.route(
            "GET", "/gzip-chunked",
            response: LoopbackResponse(headers: ["Content-Encoding": "gzip"], body: gzip).chunked(size: 777))
        let transport = HTTP1Integration.transport()

        for path in ["/gzip", "/deflate", "/gzip-chunked"] {
            let response = try get(transport, path)
            XCTAssertEqual(response.httpResponse.statusCode, 200, path)
            XCTAssertEqual(response.data.count, original.count, path)
            XCTAssertEqual(response.data, original, path)
        }

        XCTAssertEqual(
            server.requestLog.map { $0.headers["Accept-Encoding"] }, [String?](repeating: "gzip, deflate", count: 3))
        XCTAssertEqual(server.connectionCount, 1)
    }

    func testACorruptGzipBody_failsAsUndecodable() throws {
        var gzip = try ZlibCompression.compress(ZlibCompression.text(count: 10_000), as: .gzip)
        gzip[gzip.count / 2] ^= 0xFF
        server.route("GET", "/bad-gzip", response: LoopbackResponse(headers: ["Content-Encoding": "gzip"], body: gzip))

        let result = HTTP1Integration.send(HTTP1Integration.transport(), URLRequest(url: server.url(path: "/bad-gzip")))

        guard case .failure(LeashError.transport(let error)) = result else {
            return XCTFail("expected a transport error, got \(result)")
        }
        XCTAssertEqual(error.code, .cannotDecodeContentData)
    }

    // MARK: Framing

    func testAChunkedBody_arrivesWhole_andTheConnectionIsKept() throws {
        server.route("GET", "/chunked", response: LoopbackResponse.pattern(length: 100_000).chunked(size: 999))
        let transport = HTTP1Integration.transport()

        let response = try get(transport, "/chunked")
        let again = try get(transport, "/chunked")

        XCTAssertEqual(response.httpResponse.value(forHTTPHeaderField: "Transfer-Encoding"), "chunked")
        XCTAssertEqual(response.data, LoopbackServer.patternBytes(in: 0..<100_000))
        XCTAssertEqual(again.data, response.data)
        XCTAssertEqual(server.connectionCount, 1)
    }

    func testAHeadRequest_endsWithTheHead_thoughItAnnouncesABody_andTheConnectionIsKept() throws {
        let transport = HTTP1Integration.transport()
        var head = URLRequest(url: server.url(path: "/bytes/5000"))
        head.httpMethod = "HEAD"

        let response = try HTTP1Integration.send(transport, head, timeout: 2).get()
        XCTAssertTrue(HTTP1Integration.eventually { transport.pool.counts == (idle: 1, busy: 0) })
        let next = try get(transport, "/json")

        XCTAssertEqual(response.httpResponse.statusCode, 200)
        XCTAssertEqual(response.httpResponse.value(forHTTPHeaderField: "Content-Length"), "5000")
        XCTAssertEqual(response.data, Data())
        XCTAssertEqual(next.data, Data(LoopbackServer.sampleJSON.utf8), "the HEAD's answer left nothing behind")
        XCTAssertEqual(server.requestLog.map(\.method), ["HEAD", "GET"])
        XCTAssertEqual(server.connectionCount, 1)
    }

    func testNoContentAndNotModified_haveNoBody_andTheConnectionIsKept() throws {
        server.route("GET", "/not-modified", response: .empty(status: 304))
        let transport = HTTP1Integration.transport()

        let noContent = try HTTP1Integration.send(
            transport, URLRequest(url: server.url(path: "/status/204")), timeout: 2
        )
        .get()
        XCTAssertTrue(HTTP1Integration.eventually { transport.pool.counts == (idle: 1, busy: 0) })
        let notModified = try HTTP1Integration.send(
            transport, URLRequest(url: server.url(path: "/not-modified")), timeout: 2
        ).get()
        XCTAssertTrue(HTTP1Integration.eventually { transport.pool.counts == (idle: 1, busy: 0) })
        let next = try get(transport, "/json")

        XCTAssertEqual(noContent.httpResponse.statusCode, 204)
        XCTAssertEqual(noContent.data, Data())
        XCTAssertEqual(notModified.httpResponse.statusCode, 304)
        XCTAssertEqual(notModified.data, Data())
        XCTAssertEqual(next.data, Data(LoopbackServer.sampleJSON.utf8))
        XCTAssertEqual(server.connectionCount, 1)
    }

    // MARK: Request bodies

    func testATwoMegabyteFileUpload_asksForContinue_andArrivesWhole() throws {
        let folder = try TransferTestFolder(removedAfter: self).url
        let file = folder.appendingPathComponent("two-megabytes.bin")
        let bytes = LoopbackServer.patternBytes(in: 0..<(2 << 20))
        try bytes.write(to: file)
        let client = try makeClient { $0.transport(HTTP1Integration.transport()) }

        let events = try client.uploadEventStream(
            SpecEndpoint(
                "/upload", method: .post, parameters: UploadFile(file, contentType: "application/octet-stream")),
            as: LoopbackServer.ReceivedUpload.self
        ).toBlocking(timeout: 10).toArray()

        let received = try XCTUnwrap(events.compactMap(\.value).first)
        XCTAssertEqual(
            received,
            LoopbackServer.ReceivedUpload(
                bytes: 2 << 20, sha256: SHA256.hexDigest(bytes), contentType: "application/octet-stream", chunked: false
            ))
        XCTAssertEqual(server.counters.continueCount, 1)
        let request = try XCTUnwrap(server.requestLog.last)
        XCTAssertEqual(request.headers["Expect"], "100-continue")
        XCTAssertEqual(request.headers["Content-Length"], String(2 << 20))
    }

    func testALargeBodyTheServerRefusesBeforeContinue_isNeverSent_andTheAnswerComes() throws {
        server.route("POST", "/refuse", streamingHandler: { _, _ in .status(413) })
        var request = URLRequest(url: server.url(path: "/refuse"))
        request.httpMethod = "POST"
        request.httpBody = LoopbackServer.patternBytes(in: 0..<(2 << 20))

        let response = try HTTP1Integration.send(HTTP1Integration.transport(), request).get()

        XCTAssertEqual(response.httpResponse.statusCode, 413)
        XCTAssertEqual(server.requestLog.last?.headers["Expect"], "100-continue")
        XCTAssertEqual(server.counters.continueCount, 0)
        XCTAssertEqual(server.counters.requestBodyBytes, 0, "the body went though the server refused it first")
    }

    func testALargeBodyToAServerThatNeverSaysContinue_goesAfterTheContinueTimeout() throws {
        let raw = try HTTP1RawServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nreceived")
        }
        addTeardownBlock { raw.stop() }
        let transport = HTTP1Integration.transport { $0.continueTimeout = 0.05 }
        let body = LoopbackServer.patternBytes(in: 0..<(1 << 20))
        var request = URLRequest(url: raw.url("/upload"))
        request.httpMethod = "PUT"
        request.httpBody = body

        let response = try HTTP1Integration.send(transport, request).get()

        XCTAssertEqual(response.data, Data("received".utf8))
        let received = try XCTUnwrap(raw.log.requests.first)
        XCTAssertEqual(received.header("Expect"), "100-continue")
        XCTAssertEqual(received.body, body)
    }

    func testAStreamBodyWithoutALength_goesChunked_andArrivesWhole() throws {
        let bytes = LoopbackServer.patternBytes(in: 0..<300_000)
        var request = URLRequest(url: server.url(path: "/upload"))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: bytes)
        request.setValue("application/x-test", forHTTPHeaderField: "Content-Type")

        let response = try HTTP1Integration.send(HTTP1Integration.transport(), request).get()

        let received = try JSONDecoder().decode(LoopbackServer.ReceivedUpload.self, from: response.data)
        XCTAssertEqual(
            received,
            LoopbackServer.ReceivedUpload(
                bytes: bytes.count, sha256: SHA256.hexDigest(bytes), contentType: "application/x-test", chunked: true))
        let logged = try XCTUnwrap(server.requestLog.last)
        XCTAssertEqual(logged.headers["Transfer-Encoding"], "chunked")
        XCTAssertNil(logged.headers["Content-Length"])
    }

    // MARK: Cookies

    /// A transport keeping cookies in an ephemeral storage of its own.
    private func cookieTransport() throws -> (HTTP1Transport, HTTPCookieStorage) {
        let storage = try XCTUnwrap(URLSessionConfiguration.ephemeral.httpCookieStorage)
        for cookie in storage.cookies ?? [] { storage.deleteCookie(cookie) }
        return (HTTP1Integration.transport { $0.cookieStorage = storage }, storage)
    }

    /// The cookies the server received with a GET of `/cookies`.
    private func cookiesSent(_ transport: HTTP1Transport) throws -> [String: String] {
        let response = try get(transport, "/cookies")
        return try JSONDecoder().decode(LoopbackServer.ReceivedCookies.self, from: response.data).cookies
    }

    func testACookieSetAgainWithMaxAgeZero_isDeleted_andNoLongerSent() throws {
        let (transport, storage) = try cookieTransport()
        XCTAssertEqual(try get(transport, "/cookies/set?kept=1&gone=2").httpResponse.statusCode, 302)
        XCTAssertEqual(try cookiesSent(transport), ["kept": "1", "gone": "2"])

        _ = try get(transport, "/cookies/set?gone=2&max-age=0")

        XCTAssertEqual(try cookiesSent(transport), ["kept": "1"])
        XCTAssertEqual(storage.cookies?.map(\.name), ["kept"])
        // A negative Max-Age deletes too; a Max-Age wins over a past Expires (RFC 6265 §5.3).
        _ = try get(transport, "/cookies/set?negative=3")
        _ = try get(transport, "/cookies/set?negative=3&max-age=-1")
        _ = try get(transport, "/cookies/set?lasting=4&max-age=100&expires-in=-100")
        XCTAssertEqual(try cookiesSent(transport), ["kept": "1", "lasting": "4"])
        _ = try get(transport, "/cookies/delete?lasting")
        // httpbin's deletion (an `Expires` in the past and `Max-Age=0`) too.
        _ = try get(transport, "/cookies/delete?kept")
        XCTAssertEqual(try cookiesSent(transport), [:])
        XCTAssertEqual(storage.cookies?.count, 0)
    }

    func testACookiesPath_limitsTheRequestsThatSendIt() throws {
        server.route(
            "GET", "/scoped/set",
            response: LoopbackResponse(status: 204, headers: ["Set-Cookie": "scoped=1; Path=/echo/scoped"]))
        let (transport, _) = try cookieTransport()
        _ = try get(transport, "/scoped/set")

        func cookieHeader(_ path: String) throws -> String? {
            let data = try get(transport, path).data
            return try JSONDecoder().decode(LoopbackServer.EchoedRequest.self, from: data).headers["cookie"]
        }

        XCTAssertEqual(try cookieHeader("/echo/scoped"), "scoped=1")
        XCTAssertEqual(try cookieHeader("/echo/scoped/deeper?x=1"), "scoped=1")
        XCTAssertNil(try cookieHeader("/echo/scopedness"), "a path that only starts with the cookie's")
        XCTAssertNil(try cookieHeader("/echo/other"))
    }

    func testACookieWithoutAPath_isScopedToTheDirectoryOfTheURLThatSetIt() throws {
        // RFC 6265 §5.1.4: the default path is the request path up to its last "/".
        server.route(
            "GET", "/echo/dir/set", response: LoopbackResponse(status: 204, headers: ["Set-Cookie": "defaulted=1"]))
        let (transport, storage) = try cookieTransport()
        _ = try get(transport, "/echo/dir/set")
        let stored = storage.cookies?.map { "\($0.name) path \($0.path)" } ?? []

        func cookieHeader(_ path: String) throws -> String? {
            let data = try get(transport, path).data
            return try JSONDecoder().decode(LoopbackServer.EchoedRequest.self, from: data).headers["cookie"]
        }

        XCTAssertEqual(try cookieHeader("/echo/dir/other"), "defaulted=1", "stored: \(stored)")
        XCTAssertNil(try cookieHeader("/echo/elsewhere"), "stored: \(stored)")
    }

    func testASecureCookie_isNotSentOverPlainHTTP() throws {
        var headers = LoopbackHeaders()
        headers.add(name: "Set-Cookie", value: "secret=1; Path=/; Secure")
        headers.add(name: "Set-Cookie", value: "plain=2; Path=/")
        server.route("GET", "/secure/set", response: LoopbackResponse(status: 204, headers: headers))
        let (transport, _) = try cookieTransport()
        _ = try get(transport, "/secure/set")

        XCTAssertEqual(try cookiesSent(transport), ["plain": "2"])
    }

    // MARK: Proxies

    /// A proxy that answers every request itself, with `proxied`, logging it.
    private func rawProxy() throws -> HTTP1RawServer {
        let proxy = try HTTP1RawServer { connection in
            while connection.readRequest() != nil {
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\nproxied")
            }
        }
        addTeardownBlock { proxy.stop() }
        return proxy
    }

    private func transport(environment: [String: String]) -> HTTP1Transport {
        var configuration = HTTP1Transport.Configuration()
        configuration.cookieStorage = nil
        return HTTP1Transport(
            configuration: configuration, connector: WebSocketByteStreams.connector,
            proxies: HTTPProxyEnvironment(environment: environment))
    }

    func testHTTPProxy_getsTheRequestInAbsoluteForm_withItsCredentials() throws {
        let proxy = try rawProxy()
        let transport = transport(environment: ["http_proxy": "http://user:p%40ss@127.0.0.1:\(proxy.port)"])

        let response = try answer(transport, URLRequest(url: URL(string: "http://origin.test:8080/a/b?q=1#frag")!))

        XCTAssertEqual(response.data, Data("proxied".utf8))
        let request = try XCTUnwrap(proxy.log.requests.first)
        XCTAssertEqual(proxy.log.requests.count, 1)
        XCTAssertEqual(request.line, "GET http://origin.test:8080/a/b?q=1 HTTP/1.1")
        XCTAssertEqual(request.header("Host"), "origin.test:8080")
        XCTAssertEqual(request.header("Proxy-Authorization"), "Basic " + Data("user:p@ss".utf8).base64EncodedString())
        XCTAssertEqual(server.requestCount, 0)
    }

    func testHTTPProxy_pointedAtTheLoopbackServer_carriesTheRequest() throws {
        let transport = transport(environment: ["http_proxy": "127.0.0.1:\(server.port)"])

        let response = try answer(transport, URLRequest(url: URL(string: "http://origin.test/echo/through?x=1")!))

        let echoed = try JSONDecoder().decode(LoopbackServer.EchoedRequest.self, from: response.data)
        XCTAssertEqual(echoed.path, "/echo/through")
        XCTAssertEqual(echoed.query, "x=1")
        XCTAssertEqual(echoed.headers["host"], "origin.test")
        XCTAssertNil(echoed.headers["proxy-authorization"])
        XCTAssertEqual(server.requestCount, 1)
    }

    func testNoProxy_sendsTheMatchingHostDirectly_andOthersThroughTheProxy() throws {
        let proxy = try rawProxy()
        let transport = transport(environment: [
            "http_proxy": "http://127.0.0.1:\(proxy.port)", "no_proxy": "example.com, 127.0.0.1",
        ])

        let direct = try get(transport, "/json")
        let proxied = try answer(transport, URLRequest(url: URL(string: "http://origin.test/json")!))

        XCTAssertEqual(direct.data, Data(LoopbackServer.sampleJSON.utf8))
        XCTAssertEqual(server.requestCount, 1)
        XCTAssertEqual(proxied.data, Data("proxied".utf8))
        XCTAssertEqual(proxy.log.requests.map(\.line), ["GET http://origin.test/json HTTP/1.1"])
    }
}
