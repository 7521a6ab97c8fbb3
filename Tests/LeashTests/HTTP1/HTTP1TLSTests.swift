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

#if os(Linux)
    /// `HTTP1Transport` over TLS: `https` to the loopback server behind a TLS front
    /// (`TestTLSServer` in its proxy mode), verified against the test authority, refused
    /// without it, and through an HTTP proxy's `CONNECT` tunnel (`https_proxy`).
    final class HTTP1TLSTests: LoopbackIntegrationCase {
        private func tlsFront() throws -> TestTLSServer {
            try XCTSkipUnless(CurlTLSByteStreamConnector.isAvailable, "libcurl cannot be loaded here")
            return try TestTLSServer(mode: .proxy, proxyPort: server.port)
        }

        private func transport(trusting authorities: URL?, proxies: HTTPProxyEnvironment? = nil) -> HTTP1Transport {
            var configuration = HTTP1Transport.Configuration()
            configuration.additionalTrustedAuthorities = authorities
            configuration.cookieStorage = nil
            return HTTP1Transport(
                configuration: configuration, connector: WebSocketByteStreams.connector, proxies: proxies)
        }

        private func get(_ transport: HTTP1Transport, _ url: URL) -> Result<TransportResponse, Error> {
            let result = Result { try transport.send(URLRequest(url: url)).toBlocking(timeout: 10).first() }
            return result.flatMap { response in
                response.map { .success($0) } ?? .failure(LeashError.invalidResponse(reason: "no response"))
            }
        }

        func testHTTPS_verifiedAgainstTheGivenAuthority_reachesTheServer_andKeepsTheConnection() throws {
            let front = try tlsFront()
            let transport = transport(trusting: front.authorityFile)
            let url = try XCTUnwrap(URL(string: "https://localhost:\(front.port)/json"))
            for _ in 0..<3 {
                let response = try get(transport, url).get()
                XCTAssertEqual(response.httpResponse.statusCode, 200)
                XCTAssertEqual(String(decoding: response.data, as: UTF8.self), LoopbackServer.sampleJSON)
            }
            XCTAssertEqual(server.counters.connectionCount, 1, "one TLS connection carried the three requests")
        }

        func testHTTPS_withoutTheAuthority_failsAsUntrusted_beforeAnythingIsSent() throws {
            let front = try tlsFront()
            let url = try XCTUnwrap(URL(string: "https://localhost:\(front.port)/json"))
            guard case .failure(let error) = get(transport(trusting: nil), url) else {
                return XCTFail("an untrusted certificate was accepted")
            }
            guard case .transport(let urlError) = error as? LeashError else { return XCTFail("\(error)") }
            XCTAssertTrue(
                [.serverCertificateUntrusted, .secureConnectionFailed, .serverCertificateHasUnknownRoot].contains(
                    urlError.code), "\(urlError)")
            XCTAssertEqual(server.counters.requestCount, 0)
        }

        func testHTTPS_throughAConnectProxy_tunnelsToTheServer() throws {
            let front = try tlsFront()
            let proxy = try TestConnectProxy()
            let proxies = HTTPProxyEnvironment(environment: [
                "https_proxy": "http://ada:s%40cret@127.0.0.1:\(proxy.port)"
            ])
            let transport = transport(trusting: front.authorityFile, proxies: proxies)
            let url = try XCTUnwrap(URL(string: "https://localhost:\(front.port)/json"))
            let response = try get(transport, url).get()
            XCTAssertEqual(response.httpResponse.statusCode, 200)
            XCTAssertEqual(proxy.nextLine(), "CONNECT localhost:\(front.port) HTTP/1.1")
            // "ada:s@cret" in Base64: the credentials of the proxy's URL, decoded once.
            XCTAssertEqual(proxy.nextLine(), "Proxy-Authorization: Basic YWRhOnNAY3JldA==")
        }
    }

    /// An HTTP proxy that serves only `CONNECT`: a Python 3 script (standard library only) on
    /// 127.0.0.1 that prints each tunnel's request line and `Proxy-Authorization`, answers
    /// `200`, then relays bytes both ways.
    final class TestConnectProxy: @unchecked Sendable {  // Sendable: immutable after init.
        static let script = """
            import socket, sys, threading
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.bind(("127.0.0.1", 0))
            listener.listen(16)
            print(listener.getsockname()[1], flush=True)

            def relay(source, destination):
                try:
                    while True:
                        data = source.recv(65536)
                        if not data:
                            break
                        destination.sendall(data)
                except OSError:
                    pass
                finally:
                    try:
                        destination.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass

            def serve(client):
                head = b""
                while b"\\r\\n\\r\\n" not in head:
                    data = client.recv(4096)
                    if not data:
                        client.close()
                        return
                    head += data
                lines = head.split(b"\\r\\n")
                print(lines[0].decode(), flush=True)
                for line in lines[1:]:
                    if line.lower().startswith(b"proxy-authorization:"):
                        print(line.decode(), flush=True)
                target = lines[0].split(b" ")[1].decode()
                host, port = target.rsplit(":", 1)
                upstream = socket.create_connection(("127.0.0.1" if host == "localhost" else host, int(port)))
                client.sendall(b"HTTP/1.1 200 Connection established\\r\\n\\r\\n")
                threading.Thread(target=relay, args=(client, upstream), daemon=True).start()
                relay(upstream, client)

            def accept():
                while True:
                    client, _ = listener.accept()
                    threading.Thread(target=serve, args=(client,), daemon=True).start()

            threading.Thread(target=accept, daemon=True).start()
            sys.stdin.read()
            """

        /// The port the proxy listens on.
        var port: Int { child.port }
        private let child: PythonScriptProcess

        /// Starts the proxy, or throws `XCTSkip` when python3 is not there.
        init() throws {
            child = try PythonScriptProcess(script: Self.script, arguments: [], purpose: "the proxy")
        }

        /// The next line the proxy prints (blocking), or nil at the end of its output.
        func nextLine() -> String? {
            child.nextLine()
        }
    }
#endif
