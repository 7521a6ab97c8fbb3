// Only in the build that takes Apple platforms' branches on Linux (`-DLEASH_APPLE_BRANCHES`, a
// CI step): there NetworkByteStreamConnector compiles against the stand-in of Network.framework
// (Sources/Leash/WebSocket/Connection/Apple/NetworkStandIn), whose connections these tests
// script. On an Apple platform the connector meets the real framework instead.
#if LEASH_APPLE_BRANCHES && !canImport(Network)
    import Foundation
    import Rx
    import XCTest

    @testable import Leash

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// Apple platforms' byte streams (WebSockets, `HTTP1Transport`), opened with `NWConnection`:
    /// the connect's state machine (states, failures, dispose, TLS's extra authorities) and the
    /// stream's reads, writes, close, viability and queue, against a scripted connection.
    final class NetworkByteStreamConnectorTests: XCTestCase {
        /// What a connect reported.
        private typealias ConnectResult = Result<any WebSocketByteStream, URLError>

        /// Values that arrive on other threads, waited for with a timeout.
        private final class Arrivals<Value: Sendable>: Sendable {
            /// What arrived, oldest first.
            private let values = LockedState<[Value]>([])
            /// Signalled once per value.
            private let arrived = DispatchSemaphore(value: 0)

            /// Records `value`.
            func add(_ value: Value) {
                values.withLock { $0.append(value) }
                arrived.signal()
            }

            /// Waits up to `seconds` for the next value not yet waited for; nil if none came.
            func next(within seconds: Double = 10) -> Value? {
                guard arrived.wait(timeout: .now() + seconds) == .success else { return nil }
                return values.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            }

            /// How many arrived and were not yet taken.
            var count: Int {
                values.withLock { $0.count }
            }
        }

        /// A connect under way: its disposable, the connection it made (nil if none) and what it
        /// reports.
        private struct Connecting {
            /// The attempt.
            let disposable: Disposable
            /// The stand-in connection it made.
            let connection: NWConnection?
            /// What it reported.
            let reports: Arrivals<ConnectResult>
        }

        /// Records the connections made during each test.
        private var script = NetworkStandInScript()

        override func setUp() {
            super.setUp()
            script = NetworkStandInScript()
            script.install()
        }

        override func tearDown() {
            script.uninstall()
            super.tearDown()
        }

        // MARK: Connecting

        func testConnect_plainAddress_isTCPWithoutDelayOrTLS() throws {
            let connecting = connect(WebSocketAddress(host: "example.com", port: 8080, isSecure: false))
            let connection = try XCTUnwrap(connecting.connection)
            let port = try XCTUnwrap(NWEndpoint.Port(rawValue: 8080))
            XCTAssertEqual(connection.endpoint, .hostPort(host: .name("example.com"), port: port))
            XCTAssertTrue(connection.parameters.tcpOptions.noDelay)
            XCTAssertNil(connection.parameters.tlsOptions)
            XCTAssertNotNil(connection.startQueue, "started")
            connection.enter(.preparing)
            connection.drain()
            XCTAssertEqual(connecting.reports.count, 0, "nothing before the connection is ready")
            connecting.disposable.dispose()
        }

        func testConnect_secureAddress_keepsTheSystemsEvaluation() throws {
            let connecting = connect(WebSocketAddress(host: "example.com", port: 443, isSecure: true))
            let tls = try XCTUnwrap(connecting.connection?.parameters.tlsOptions)
            XCTAssertNil(tls.securityProtocolOptions.verifyQueue, "no verify block of its own")
            connecting.disposable.dispose()
        }

        func testConnect_ready_reportsAStreamOnce() throws {
            let connecting = connect(WebSocketAddress(host: "example.com", port: 80, isSecure: false))
            let connection = try XCTUnwrap(connecting.connection)
            connection.enter(.preparing)
            connection.enter(.ready)
            let stream = try XCTUnwrap(connecting.reports.next()).get()
            XCTAssertTrue(stream is NetworkByteStream)
            connection.enter(.failed(.posix(.ECONNRESET)))
            connection.drain()
            XCTAssertEqual(connecting.reports.count, 0, "reported once: the stream owns the connection now")
            XCTAssertEqual(connection.cancelCount, 0)
            stream.close()
        }

        func testConnect_oncePastTheOutcome_releasesTheAttempt() throws {
            weak var released: AnyObject?
            var stream: (any WebSocketByteStream)?
            try {
                let connecting = connect(WebSocketAddress(host: "example.com", port: 80, isSecure: false))
                released = connecting.disposable as AnyObject
                let connection = try XCTUnwrap(connecting.connection)
                connection.enter(.ready)
                stream = try XCTUnwrap(connecting.reports.next()).get()
                connection.drain()
            }()
            XCTAssertNil(released, "the connection no longer holds the attempt through its handler")
            stream?.close()
        }

        func testConnect_badPort_failsWithBadURLWithoutAConnection() {
            for port in [0, -1, 65536, 70000] {
                let connecting = connect(WebSocketAddress(host: "example.com", port: port, isSecure: false))
                XCTAssertNil(connecting.connection, "port \(port)")
                XCTAssertEqual(failureCode(connecting.reports.next()), .badURL, "port \(port)")
            }
            XCTAssertTrue(script.connections.isEmpty)
        }

        func testConnect_waitingForANetwork_failsAtOnceAndCancels() throws {
            let cases: [(NWError, URLError.Code)] = [
                (.posix(.ENETDOWN), .notConnectedToInternet),
                (.posix(.ECONNREFUSED), .cannotConnectToHost),
                (.posix(.ETIMEDOUT), .timedOut),
                (.dns(-65554), .cannotFindHost),
            ]
            for (error, code) in cases {
                let connecting = connect(WebSocketAddress(host: "example.com", port: 80, isSecure: false))
                let connection = try XCTUnwrap(connecting.connection)
                connection.enter(.preparing)
                connection.enter(.waiting(error))
                XCTAssertEqual(failureCode(connecting.reports.next()), code, "\(error)")
                XCTAssertEqual(connection.cancelCount, 1, "\(error): a waiting connection would retry")
                connection.enter(.failed(error))
                connection.drain()
                XCTAssertEqual(connecting.reports.count, 0, "\(error): reported once")
            }
        }

        func testConnect_failed_mapsTheErrorAndCancels() throws {
            let cases: [(NWError, URLError.Code)] = [
                (.posix(.ECONNRESET), .cannotConnectToHost),
                (.dns(-65554), .cannotFindHost),
                (.tls(-9813), .serverCertificateUntrusted),
                (.tls(-9814), .serverCertificateHasBadDate),
                (.tls(-9806), .secureConnectionFailed),
                (.wifiAware(1), .cannotConnectToHost),
            ]
            for (error, code) in cases {
                let connecting = connect(WebSocketAddress(host: "example.com", port: 443, isSecure: true))
                let connection = try XCTUnwrap(connecting.connection)
                connection.enter(.failed(error))
                XCTAssertEqual(failureCode(connecting.reports.next()), code, "\(error)")
                XCTAssertEqual(connection.cancelCount, 1, "\(error)")
            }
        }

        func testDispose_whileConnecting_cancelsAndReportsNothing() throws {
            weak var released: AnyObject?
            let connection = try { () throws -> NWConnection in
                let connecting = connect(WebSocketAddress(host: "example.com", port: 80, isSecure: false))
                released = connecting.disposable as AnyObject
                let connection = try XCTUnwrap(connecting.connection)
                connection.enter(.preparing)
                connecting.disposable.dispose()
                XCTAssertEqual(connection.cancelCount, 1)
                connection.enter(.ready)  // too late: the attempt is over
                connection.drain()
                XCTAssertEqual(connecting.reports.count, 0)
                return connection
            }()
            XCTAssertNil(released, "the cancelled state released the attempt")
            XCTAssertEqual(connection.cancelCount, 1)
        }

        func testDispose_racingReady_closesTheStreamNobodyGets() throws {
            let connecting = connect(WebSocketAddress(host: "example.com", port: 80, isSecure: false))
            let connection = try XCTUnwrap(connecting.connection)
            let queue = try XCTUnwrap(connection.startQueue)
            queue.suspend()
            connection.enter(.ready)  // delivered once the queue resumes, after the dispose
            connecting.disposable.dispose()
            XCTAssertEqual(connection.cancelCount, 1)
            queue.resume()
            connection.drain()
            XCTAssertEqual(connecting.reports.count, 0)
            XCTAssertGreaterThanOrEqual(connection.cancelCount, 2, "the stream made at .ready was closed")
        }

        func testTunnelProxy_isRefusedWithoutAConnection() {
            let address = WebSocketAddress(
                host: "example.com", port: 443, isSecure: true, tunnelProxy: "http://proxy.example:3128")
            let connecting = connect(address)
            guard case .failure(let error) = connecting.reports.next() else { return XCTFail("no failure") }
            XCTAssertEqual(error.code, .unsupportedURL)
            XCTAssertTrue(error.localizedDescription.contains("tunnel"), error.localizedDescription)
            XCTAssertTrue(script.connections.isEmpty)
        }

        // MARK: TLS with extra trusted authorities

        func testExtraAuthorities_areTrustedBesidesTheSystems() throws {
            let file = try temporaryFile(TestCertificates.authorityPEM)
            defer { try? FileManager.default.removeItem(at: file) }
            let authority = try XCTUnwrap(PEMCertificates.der(inPEM: TestCertificates.authorityPEM).first)
            let other = try XCTUnwrap(PEMCertificates.der(inPEM: TestCertificates.certificatePEM).first)
            let connecting = connect(
                WebSocketAddress(host: "localhost", port: 443, isSecure: true, additionalTrustedAuthorities: file))
            let connection = try XCTUnwrap(connecting.connection)
            let options = try XCTUnwrap(connection.parameters.tlsOptions).securityProtocolOptions
            XCTAssertTrue(options.verifyQueue === connection.startQueue, "verified on the connection's queue")
            XCTAssertEqual(options.verify(SecTrust(presentedRoot: authority, isTrustedBySystem: false)), true)
            XCTAssertEqual(
                options.verify(SecTrust(presentedRoot: other, isTrustedBySystem: false)), false,
                "a root that is neither the extra authority nor the system's")
            XCTAssertEqual(
                options.verify(SecTrust(presentedRoot: other, isTrustedBySystem: true)), true,
                "the system's roots still count")
            connecting.disposable.dispose()
        }

        func testExtraAuthorities_unreadable_failWithoutAConnection() throws {
            let keyOnly = try temporaryFile(TestCertificates.keyPEM)
            defer { try? FileManager.default.removeItem(at: keyOnly) }
            for file in [keyOnly, keyOnly.appendingPathExtension("missing")] {
                let connecting = connect(
                    WebSocketAddress(host: "localhost", port: 443, isSecure: true, additionalTrustedAuthorities: file))
                XCTAssertEqual(failureCode(connecting.reports.next()), .secureConnectionFailed, file.lastPathComponent)
            }
            XCTAssertTrue(script.connections.isEmpty)
        }

        // MARK: Reading

        func testReceive_deliversTheBytesAsked() throws {
            let (stream, connection) = try openStream()
            let reads = Arrivals<WebSocketByteStreamRead>()
            stream.receive(maximumLength: 100, reads.add)
            let receive = try XCTUnwrap(connection.nextReceive())
            XCTAssertEqual(receive.minimumIncompleteLength, 1)
            XCTAssertEqual(receive.maximumLength, 100)
            receive.complete(data: Data("hello".utf8))
            XCTAssertEqual(bytes(reads.next()), Data("hello".utf8))
            stream.receive(maximumLength: 0, reads.add)
            XCTAssertEqual(connection.nextReceive()?.maximumLength, 1, "never a receive of nothing")
            stream.close()
        }

        func testReceive_endOfStream_afterTheLastBytes() throws {
            let (stream, connection) = try openStream()
            let reads = Arrivals<WebSocketByteStreamRead>()
            stream.receive(maximumLength: 100, reads.add)
            try XCTUnwrap(connection.nextReceive()).complete(data: Data("last".utf8), isComplete: true)
            XCTAssertEqual(bytes(reads.next()), Data("last".utf8), "the bytes first")
            stream.receive(maximumLength: 100, reads.add)
            try XCTUnwrap(connection.nextReceive()).complete(data: nil, isComplete: true)
            XCTAssertTrue(isEnd(reads.next()))
            stream.receive(maximumLength: 100, reads.add)
            try XCTUnwrap(connection.nextReceive()).complete(data: Data(), isComplete: true)
            XCTAssertTrue(isEnd(reads.next()), "empty content is no bytes")
            stream.close()
        }

        func testReceive_failures_mapToURLErrors() throws {
            let (stream, connection) = try openStream()
            let reads = Arrivals<WebSocketByteStreamRead>()
            let cases: [(NWError?, URLError.Code)] = [
                (.posix(.ECONNRESET), .networkConnectionLost),
                (.tls(-9806), .secureConnectionFailed),
                (nil, .networkConnectionLost),  // neither bytes, nor the end, nor an error
            ]
            for (error, code) in cases {
                stream.receive(maximumLength: 100, reads.add)
                try XCTUnwrap(connection.nextReceive()).complete(data: nil, error: error)
                XCTAssertEqual(failureCode(reads.next()), code, "\(String(describing: error))")
            }
            stream.close()
        }

        // MARK: Writing

        func testSend_writesTheBytesAsOneDefaultMessage() throws {
            let (stream, connection) = try openStream()
            let errors = Arrivals<URLError?>()
            stream.send(Data("abc".utf8), errors.add)
            let send = try XCTUnwrap(connection.nextSend())
            XCTAssertEqual(send.content, Data("abc".utf8))
            XCTAssertTrue(send.contentContext === NWConnection.ContentContext.defaultMessage)
            XCTAssertFalse(send.contentContext.isFinal, "completing it must not close the sending side")
            XCTAssertTrue(send.isComplete)
            send.complete()
            XCTAssertEqual(errors.next(), .some(nil))
            let written = Arrivals<Int?>()
            stream.send(Data("defg".utf8)) { count, _ in written.add(count) }
            try XCTUnwrap(connection.nextSend()).complete()
            XCTAssertEqual(written.next(), 4)
            stream.close()
        }

        func testSend_failure_mapsTheErrorAndCannotTellWhatWasWritten() throws {
            let (stream, connection) = try openStream()
            let errors = Arrivals<URLError?>()
            stream.send(Data("abc".utf8), errors.add)
            try XCTUnwrap(connection.nextSend()).complete(error: .posix(.EPIPE))
            XCTAssertEqual(errors.next()??.code, .networkConnectionLost)
            let written = Arrivals<Int?>()
            stream.send(Data("abc".utf8)) { count, _ in written.add(count) }
            try XCTUnwrap(connection.nextSend()).complete(error: .posix(.ECONNRESET))
            XCTAssertEqual(written.next(), .some(nil))
            stream.close()
        }

        // MARK: Closing

        func testClose_cancelsOnceAndOutstandingCallsFailAsCancelled() throws {
            let (stream, connection) = try openStream()
            let reads = Arrivals<WebSocketByteStreamRead>()
            let errors = Arrivals<URLError?>()
            stream.receive(maximumLength: 100, reads.add)
            stream.send(Data("abc".utf8), errors.add)
            let receive = try XCTUnwrap(connection.nextReceive())
            let send = try XCTUnwrap(connection.nextSend())
            stream.close()
            stream.close()
            XCTAssertEqual(connection.cancelCount, 1)
            // Whatever the framework fails them with, a closed stream says cancelled.
            receive.complete(data: nil, error: .posix(.ECONNRESET))
            send.complete(error: .posix(.EPIPE))
            XCTAssertEqual(failureCode(reads.next()), .cancelled)
            XCTAssertEqual(errors.next()??.code, .cancelled)
        }

        func testAfterClose_callsFailOnTheQueueWithoutReachingTheConnection() throws {
            let (stream, connection) = try openStream()
            stream.close()
            let onQueue = Arrivals<Bool>()
            let reads = Arrivals<WebSocketByteStreamRead>()
            stream.receive(maximumLength: 100) { read in
                onQueue.add(stream.isOnItsQueue)
                reads.add(read)
            }
            XCTAssertEqual(failureCode(reads.next()), .cancelled)
            XCTAssertEqual(onQueue.next(), true, "completed on the stream's queue, not in the call")
            let errors = Arrivals<URLError?>()
            stream.send(Data("abc".utf8), errors.add)
            XCTAssertEqual(errors.next()??.code, .cancelled)
            XCTAssertEqual(connection.receiveCount, 0)
            XCTAssertNil(connection.nextSend(within: 0.1))
        }

        func testReleasingTheStream_cancelsTheConnection() throws {
            let connection = try { () throws -> NWConnection in
                let (stream, connection) = try openStream()
                XCTAssertEqual(connection.cancelCount, 0)
                _ = stream
                return connection
            }()
            // The connect's report may still hold the stream on the connection's queue (the
            // block that handed it over has not returned yet): the last reference goes there.
            connection.drain()
            XCTAssertEqual(connection.cancelCount, 1)
        }

        // MARK: What the connection pool asks

        func testIsOnItsQueue_onlyInItsCompletions() throws {
            let (stream, connection) = try openStream()
            XCTAssertFalse(stream.isOnItsQueue)
            let onQueue = Arrivals<Bool>()
            stream.receive(maximumLength: 100) { _ in onQueue.add(stream.isOnItsQueue) }
            try XCTUnwrap(connection.nextReceive()).complete(data: Data("x".utf8))
            XCTAssertEqual(onQueue.next(), true)
            stream.close()
        }

        func testHasInputOrHangup_followsViabilityAndState() throws {
            let (stream, connection) = try openStream()
            XCTAssertFalse(stream.hasInputOrHangup)
            connection.changeViability(to: false)
            connection.drain()
            XCTAssertTrue(stream.hasInputOrHangup, "no usable path: no new request")
            connection.changeViability(to: true)
            connection.drain()
            XCTAssertFalse(stream.hasInputOrHangup, "the path is back")
            connection.enter(.failed(.posix(.ECONNRESET)))
            connection.drain()
            XCTAssertTrue(stream.hasInputOrHangup, "failed after it was ready")
            stream.close()
        }

        // MARK: Helpers

        /// Starts connecting to `address` with the connector under test.
        private func connect(_ address: WebSocketAddress) -> Connecting {
            let before = script.connections.count
            let reports = Arrivals<ConnectResult>()
            let disposable = NetworkByteStreamConnector().connect(to: address, reports.add)
            return Connecting(
                disposable: disposable, connection: script.connections.dropFirst(before).first, reports: reports)
        }

        /// A stream over a connection scripted to be ready, and that connection.
        private func openStream() throws -> (any WebSocketByteStream, NWConnection) {
            let connecting = connect(WebSocketAddress(host: "example.com", port: 80, isSecure: false))
            let connection = try XCTUnwrap(connecting.connection)
            connection.enter(.preparing)
            connection.enter(.ready)
            return (try XCTUnwrap(connecting.reports.next()).get(), connection)
        }

        /// A temporary file holding `text`.
        private func temporaryFile(_ text: String) throws -> URL {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("leash-nw-\(UUID()).pem")
            try text.write(to: file, atomically: true, encoding: .utf8)
            return file
        }

        /// The code of a failed connect, nil otherwise.
        private func failureCode(_ result: ConnectResult?) -> URLError.Code? {
            guard case .failure(let error) = result else { return nil }
            return error.code
        }

        /// The code of a failed read, nil otherwise.
        private func failureCode(_ read: WebSocketByteStreamRead?) -> URLError.Code? {
            guard case .failed(let error) = read else { return nil }
            return error.code
        }

        /// The bytes of a read, nil otherwise.
        private func bytes(_ read: WebSocketByteStreamRead?) -> Data? {
            guard case .bytes(let data) = read else { return nil }
            return data
        }

        /// Whether a read is the end of the stream.
        private func isEnd(_ read: WebSocketByteStreamRead?) -> Bool {
            guard case .end = read else { return false }
            return true
        }
    }
#endif
