#if os(Linux)
    import Foundation
    import FoundationNetworking
    import Leash
    import Rx
    import XCTest

    /// The TLS byte stream on Linux (libcurl connect-only) against a local Python TLS server.
    final class CurlTLSByteStreamTests: XCTestCase {
        /// The connector under test.
        private let connector = CurlTLSByteStreamConnector()

        override func setUpWithError() throws {
            guard CurlTLSByteStreamConnector.isAvailable else { throw XCTSkip("libcurl cannot be loaded here") }
        }

        func testEcho_overTLS() throws {
            let server = try TestTLSServer()
            let stream = try connectStream(connector, to: server.address())
            XCTAssertNil(sendAll(stream, Data("hello, tls".utf8)))
            let (bytes, last) = receiveBytes(stream, count: 10)
            XCTAssertNil(last)
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "hello, tls")
            stream.close()
        }

        func testEcho_byHostName() throws {
            let server = try TestTLSServer()
            let stream = try connectStream(connector, to: server.address(host: "localhost"))
            XCTAssertNil(sendAll(stream, Data("name".utf8)))
            XCTAssertEqual(receiveBytes(stream, count: 4).bytes, Data("name".utf8))
            stream.close()
        }

        func testLargeTransfer_8MBEchoArrivesIntact() throws {
            let server = try TestTLSServer()
            let stream = try connectStream(connector, to: server.address())
            let payload = testPattern(count: 8 << 20, seed: 7)
            let started = Date()
            let sent = TestBox<URLError??>(nil)
            let sendDone = expectation(description: "sent")
            stream.send(payload) { error in
                sent.update { $0 = .some(error) }
                sendDone.fulfill()
            }
            let (echoed, last) = receiveBytes(stream, count: payload.count)
            wait(for: [sendDone], timeout: 60)
            let seconds = Date().timeIntervalSince(started)
            XCTAssertNil(last)
            XCTAssertEqual(sent.value, .some(nil))
            XCTAssertEqual(echoed.count, payload.count)
            XCTAssertTrue(echoed == payload, "the echoed bytes differ")
            print(
                "TLS 8 MB echo: \(String(format: "%.3f", seconds)) s, \(String(format: "%.0f", 16 / seconds)) MB/s both ways"
            )
            stream.close()
        }

        func testUntrustedCertificate_fails() throws {
            let server = try TestTLSServer()
            guard case .failure(let error) = connectResult(connector, to: server.address(trusting: false)) else {
                return XCTFail("connected to a server whose certificate nobody vouches for")
            }
            // curl reports "unable to get local issuer certificate" (CURLE_PEER_FAILED_VERIFICATION).
            XCTAssertEqual(error.code, .serverCertificateUntrusted, "\(error)")
        }

        func testHostNameNotInTheCertificate_fails() throws {
            // Linux routes all of 127.0.0.0/8 to the loopback; the certificate names only
            // 127.0.0.1, ::1 and localhost.
            let server = try TestTLSServer(host: "127.0.0.2")
            guard case .failure(let error) = connectResult(connector, to: server.address()) else {
                return XCTFail("accepted a certificate for another host")
            }
            XCTAssertEqual(error.code, .serverCertificateUntrusted, "\(error)")
        }

        func testPlainServer_failsTheHandshake() throws {
            let listener = try TestTCPListener()
            let accepted = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                // A plain echo answers the ClientHello with itself: not TLS.
                if let peer = try? listener.accept() {
                    accepted.signal()
                    peer.echoUntilEnd()
                }
            }
            var address = listener.address()
            address.isSecure = true
            guard case .failure(let error) = connectResult(connector, to: address) else {
                return XCTFail("a TLS connect succeeded against a plain server")
            }
            XCTAssertEqual(accepted.wait(timeout: .now() + 20), .success)
            XCTAssertTrue(
                [.secureConnectionFailed, .networkConnectionLost].contains(error.code), "\(error.code): \(error)")
        }

        func testAnEchoReadInSmallPieces_arrivesWhole() throws {
            // Each receive asks for 700 bytes, less than a TLS record: the rest of a record
            // waits in the TLS buffers, and the next records in the socket. The socket is
            // watched edge-triggered, so a receive must read what TLS holds before waiting,
            // and wait only once a read would block, or an echo stops half way.
            let server = try TestTLSServer()
            let stream = try connectStream(connector, to: server.address())
            let payload = testPattern(count: 1 << 20, seed: 11)
            let sendDone = expectation(description: "sent")
            stream.send(payload) { error in
                XCTAssertNil(error)
                sendDone.fulfill()
            }
            var echoed = Data()
            while echoed.count < payload.count {
                guard case .bytes(let some) = receiveOnce(stream, maximumLength: 700, within: 10) else {
                    return XCTFail("the echo stopped after \(echoed.count) of \(payload.count) bytes")
                }
                echoed += some
            }
            wait(for: [sendDone], timeout: 60)
            XCTAssertTrue(echoed == payload, "the echoed bytes differ")
            stream.close()
        }

        func testBufferedBytes_areReadWithoutWaitingForTheSocket() throws {
            // "bye" arrives in one TLS record; reading it a byte at a time leaves the rest in
            // the TLS buffers, where no socket readiness announces it.
            let server = try TestTLSServer(mode: .bye)
            let stream = try connectStream(connector, to: server.address())
            var bytes = Data()
            for _ in 0..<3 {
                guard case .bytes(let some) = receiveOnce(stream, maximumLength: 1) else {
                    return XCTFail("expected a byte")
                }
                bytes += some
            }
            XCTAssertEqual(bytes, Data("bye".utf8))
            guard case .end = receiveOnce(stream) else { return XCTFail("expected the end after close-notify") }
            stream.close()
        }

        func testClose_duringReceive_completesOnceWithAFailure() throws {
            let server = try TestTLSServer()
            let stream = try connectStream(connector, to: server.address())
            let calls = TestBox(0)
            let received = TestBox<WebSocketByteStreamRead?>(nil)
            let done = expectation(description: "receive")
            let closed = expectation(description: "closed")
            stream.receive(maximumLength: 10) { read in
                calls.update { $0 += 1 }
                received.update { $0 = read }
                done.fulfill()
            }
            (stream as? SocketByteStream)?.whenDescriptorClosed { closed.fulfill() }
            DispatchQueue.concurrentPerform(iterations: 4) { _ in stream.close() }
            wait(for: [done, closed], timeout: 20)
            XCTAssertEqual(calls.value, 1)
            guard case .failed(let error) = received.value else { return XCTFail("receive did not fail") }
            XCTAssertEqual(error.code, .cancelled)
        }

        func testClose_sendsCloseNotify() throws {
            let server = try TestTLSServer(mode: .reportClose)
            let stream = try connectStream(connector, to: server.address())
            XCTAssertNil(sendAll(stream, Data("hi".utf8)))
            stream.close()
            XCTAssertEqual(server.nextLine(), "close-notify")
        }

        func testDisposePendingHandshake_neverCompletesAndLeaksNoDescriptor() throws {
            // A listener that never accepts: TCP connects (the kernel queues it), the TLS
            // handshake waits for a ServerHello that never comes.
            let listener = try TestTCPListener()
            let before = try XCTUnwrap(openDescriptorCount())
            let connecting = expectation(description: "connecting")
            let settled = expectation(description: "settled")
            let completed = TestBox(false)
            let observed = CurlTLSByteStreamConnector { stage in
                switch stage {
                case .connecting: connecting.fulfill()
                case .settled: settled.fulfill()
                }
            }
            var address = listener.address()
            address.isSecure = true
            let pending = observed.connect(to: address) { _ in completed.update { $0 = true } }
            wait(for: [connecting], timeout: 20)
            let disposed = Date()
            pending.dispose()
            wait(for: [settled], timeout: 20)
            print("TLS connect abandoned \(String(format: "%.3f", Date().timeIntervalSince(disposed))) s after dispose")
            XCTAssertFalse(completed.value, "a disposed connect completed")
            XCTAssertEqual(openDescriptorCount(), before, "a descriptor leaked")
        }
    }
#endif
