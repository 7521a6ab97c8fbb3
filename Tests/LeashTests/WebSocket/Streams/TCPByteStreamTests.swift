import Foundation
import Leash
import Rx
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The plain TCP byte stream against real sockets on the loopback interface.
final class TCPByteStreamTests: XCTestCase {
    /// The connector under test.
    private let connector = TCPByteStreamConnector()

    func testEcho_bytesComeBack() throws {
        let listener = try TestTCPListener()
        let stream = try connectStream(connector, to: listener.address())
        let peer = try listener.accept()
        DispatchQueue.global().async { peer.echoUntilEnd() }
        XCTAssertNil(sendAll(stream, Data("hello, socket".utf8)))
        let (bytes, last) = receiveBytes(stream, count: 13)
        XCTAssertNil(last)
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "hello, socket")
        stream.close()
    }

    func testEcho_overIPv6AndByName() throws {
        let listener: TestTCPListener
        do {
            listener = try TestTCPListener(ipv6: true)
        } catch {
            throw XCTSkip("no IPv6 loopback here: \(error)")
        }
        let stream = try connectStream(connector, to: listener.address(host: "::1"))
        let peer = try listener.accept()
        DispatchQueue.global().async { peer.echoUntilEnd() }
        XCTAssertNil(sendAll(stream, Data("six".utf8)))
        XCTAssertEqual(receiveBytes(stream, count: 3).bytes, Data("six".utf8))
        stream.close()

        // "localhost" may resolve to ::1 and 127.0.0.1: whichever refuses, the other answers.
        let v4 = try TestTCPListener()
        let byName = try connectStream(connector, to: v4.address(host: "localhost"))
        _ = try v4.accept()
        byName.close()
    }

    func testLargeTransfer_8MBEchoArrivesIntact() throws {
        let listener = try TestTCPListener()
        let stream = try connectStream(connector, to: listener.address())
        let peer = try listener.accept()
        DispatchQueue.global().async { peer.echoUntilEnd() }
        let payload = testPattern(count: 8 << 20)
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
            "TCP 8 MB echo: \(String(format: "%.3f", seconds)) s, \(String(format: "%.0f", 16 / seconds)) MB/s both ways"
        )
        stream.close()
    }

    /// Several streams with both directions busy at once, round after round: every byte
    /// comes back, and no receive waits 10 s for its next bytes.
    ///
    /// The read and write sources of a stream used to watch one descriptor. Dispatch on
    /// Linux keeps one epoll registration per descriptor number for both, re-armed direction
    /// by direction as the stream suspends and resumes them (every receive does), and a
    /// readiness event was lost there: the 8 MB echo above stalled once in CI at 1.7 MB.
    /// With the descriptor shared again, this test failed 19 runs of 30 under a CPU burner
    /// per core (a stream stopped between 1.3 and 6.1 MB) and the 8 MB echo 2 of 100 (once
    /// at 1.8 MB); with the duplicate, neither failed in 200 runs. The peers echo on
    /// threads of their own, so Dispatch's thread pool is not what is tested.
    func testEchoes_withBothDirectionsBusyOnSeveralStreams_neverStall() throws {
        let streams = 4
        let size = 8 << 20
        for round in 0..<2 {
            let stalls = TestBox<[String]>([])
            let group = DispatchGroup()
            for index in 0..<streams {
                let listener = try TestTCPListener()
                let stream = try connectStream(connector, to: listener.address())
                let peer = try listener.accept()
                Thread.detachNewThread { peer.echoUntilEnd() }
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    let payload = testPattern(count: size, seed: UInt32(round * streams + index + 1))
                    stream.send(payload) { _ in }
                    let (echoed, last) = receiveBytes(stream, count: size, within: 10)
                    if echoed != payload {
                        let how = last.map { "ended with \($0)" } ?? "no byte for 10 s"
                        stalls.update {
                            $0.append("round \(round), stream \(index): \(echoed.count) of \(size) bytes, \(how)")
                        }
                    }
                    stream.close()
                }
            }
            XCTAssertEqual(group.wait(timeout: .now() + 120), .success, "round \(round) did not finish")
            XCTAssertEqual(stalls.value, [], "echoes that stopped")
        }
    }

    func testBackpressure_aReaderThatDoesNotAskHoldsThePeerBack() throws {
        let listener = try TestTCPListener()
        let stream = try connectStream(connector, to: listener.address())
        let peer = try listener.accept()
        // With no receive outstanding the stream reads nothing, so the peer's writes stop once
        // the kernel's buffers are full; a stream reading ahead would let it write on (the
        // limit is far beyond any loopback buffer).
        let chunk = [UInt8](repeating: 7, count: 65536)
        let limit = 256 << 20
        guard let written = peer.writeUntilWouldBlock(chunk: chunk, limit: limit) else {
            return XCTFail("the peer wrote \(limit) bytes without blocking: the stream reads without being asked")
        }
        print("TCP backpressure: the peer blocked after \(written) bytes")
        // All of it is there once asked for.
        let (bytes, last) = receiveBytes(stream, count: written)
        XCTAssertNil(last)
        XCTAssertEqual(bytes.count, written)
        stream.close()
    }

    func testBackpressure_sendCompletesOnlyAfterThePeerReadMostOfIt() throws {
        // A fixed, small receive buffer on the peer, so that the kernel holds little.
        let listener = try TestTCPListener(receiveBuffer: 64 * 1024)
        let stream = try connectStream(connector, to: listener.address())
        let peer = try listener.accept()
        let total = 32 << 20
        let peerRead = TestBox(0)
        let readAtCompletion = TestBox<Int?>(nil)
        let sendDone = expectation(description: "sent")
        stream.send(testPattern(count: total)) { error in
            XCTAssertNil(error)
            readAtCompletion.update { $0 = peerRead.value }
            sendDone.fulfill()
        }
        // The peer reads only now, slowly enough for the count to mean something.
        while peerRead.value < total {
            let some = try peer.readSome(maximum: 16384)
            if some.isEmpty { break }
            peerRead.update { $0 += some.count }
        }
        wait(for: [sendDone], timeout: 60)
        let read = try XCTUnwrap(readAtCompletion.value)
        // What the peer had not read when the send completed was in kernel buffers (the
        // client's send buffer grows to at most 4 MB by default on Linux).
        print("TCP send backpressure: \(total - read) bytes were in flight when the send completed")
        XCTAssertGreaterThan(read, total - (12 << 20), "send completed long before the peer read the bytes")
        stream.close()
    }

    func testPeerClose_receivesTheRestThenEnd() throws {
        let listener = try TestTCPListener()
        let stream = try connectStream(connector, to: listener.address())
        let peer = try listener.accept()
        try peer.write(Array("bye".utf8))
        peer.close()
        let (bytes, last) = receiveBytes(stream, count: 4)
        XCTAssertEqual(bytes, Data("bye".utf8))
        guard case .end = last else { return XCTFail("expected the end, got \(String(describing: last))") }
        guard case .end = receiveOnce(stream) else { return XCTFail("the end is not repeated") }
        stream.close()
    }

    func testPeerReset_failsWithConnectionLost() throws {
        let listener = try TestTCPListener()
        let stream = try connectStream(connector, to: listener.address())
        let peer = try listener.accept()
        // SO_LINGER with a zero timeout makes close() send a reset.
        var resetOnClose = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(peer.fd, SOL_SOCKET, SO_LINGER, &resetOnClose, socklen_t(MemoryLayout<linger>.size))
        peer.close()
        guard case .failed(let error) = receiveOnce(stream) else { return XCTFail("expected a failure") }
        XCTAssertEqual(error.code, .networkConnectionLost)
        // Writing to the reset socket fails too, and never raises SIGPIPE.
        XCTAssertNotNil(sendAll(stream, Data(count: 1 << 20)))
        stream.close()
    }

    func testWriteAfterPeerClose_failsWithoutSIGPIPE() throws {
        let listener = try TestTCPListener()
        let stream = try connectStream(connector, to: listener.address())
        try listener.accept().close()
        // The first write may still be accepted by the kernel; the reset that answers it
        // makes a later one fail (EPIPE), which must come back as an error, not a signal.
        var failure: URLError?
        for _ in 0..<50 where failure == nil {
            failure = sendAll(stream, Data(count: 65536))
        }
        XCTAssertEqual(failure?.code, .networkConnectionLost)
        stream.close()
    }

    func testClose_duringReceiveAndSend_completesEachOnceWithAFailure() throws {
        let listener = try TestTCPListener(receiveBuffer: 64 * 1024)
        let stream = try connectStream(connector, to: listener.address())
        let peer = try listener.accept()
        let receiveDone = expectation(description: "receive")
        let sendDone = expectation(description: "send")
        let received = TestBox<WebSocketByteStreamRead?>(nil)
        let sent = TestBox<URLError?>(nil)
        stream.receive(maximumLength: 100) { read in
            received.update { $0 = read }
            receiveDone.fulfill()
        }
        // Far more than the buffers hold, with nobody reading: the send stays pending.
        stream.send(Data(count: 64 << 20)) { error in
            sent.update { $0 = error }
            sendDone.fulfill()
        }
        let closed = expectation(description: "descriptor closed")
        (stream as? SocketByteStream)?.whenDescriptorClosed { closed.fulfill() }
        stream.close()
        stream.close()
        wait(for: [receiveDone, sendDone, closed], timeout: 20)
        guard case .failed(let receiveError) = received.value else { return XCTFail("receive did not fail") }
        XCTAssertEqual(receiveError.code, .cancelled)
        XCTAssertEqual(sent.value?.code, .cancelled)
        // Calls after close fail at once, and the peer sees the connection end.
        guard case .failed = receiveOnce(stream) else { return XCTFail("receive after close did not fail") }
        XCTAssertEqual(sendAll(stream, Data([1]))?.code, .cancelled)
        while let some = try? peer.readSome(), !some.isEmpty {}
    }

    func testRefusedPort_failsWithCannotConnectToHost() throws {
        // Bound but not listening: connecting is refused.
        let bound = try TestTCPListener(listen: false)
        guard case .failure(let error) = connectResult(connector, to: bound.address()) else {
            return XCTFail("connected to a port nobody listens on")
        }
        XCTAssertEqual(error.code, .cannotConnectToHost)
    }

    func testUnknownHost_failsWithCannotFindHost() {
        let address = WebSocketAddress(host: "no-such-host.invalid", port: 80, isSecure: false)
        guard case .failure(let error) = connectResult(connector, to: address) else {
            return XCTFail("connected to a host that does not exist")
        }
        XCTAssertTrue([.cannotFindHost, .dnsLookupFailed].contains(error.code), "\(error.code)")
    }

    func testSecureAddress_isRefusedByThePlainConnector() throws {
        let listener = try TestTCPListener()
        var address = listener.address()
        address.isSecure = true
        guard case .failure(let error) = connectResult(connector, to: address) else {
            return XCTFail("a wss address connected in clear")
        }
        XCTAssertEqual(error.code, .unsupportedURL)
    }

    func testDisposePendingConnect_neverCompletesAndLeaksNoDescriptor() throws {
        #if os(Linux)
            let dropsSYNsWhenTheAcceptQueueIsFull = true
        #else
            let dropsSYNsWhenTheAcceptQueueIsFull = false
        #endif
        try XCTSkipUnless(dropsSYNsWhenTheAcceptQueueIsFull, "needs Linux: a connect to a full listener stays pending")
        // A listener whose accept queue is full drops further SYNs: a connect to it stays
        // pending until given up.
        let listener = try TestTCPListener(backlog: 0)
        let before = try XCTUnwrap(openDescriptorCount())
        // Fill the accept queue: Linux admits backlog + 1 connections, the next one waits.
        let filler = try connectStream(connector, to: listener.address())
        let connecting = expectation(description: "connecting")
        let settled = expectation(description: "settled")
        let completed = TestBox(false)
        let observed = TCPByteStreamConnector { stage in
            switch stage {
            case .connecting: connecting.fulfill()
            case .settled: settled.fulfill()
            }
        }
        let pending = observed.connect(to: listener.address()) { _ in completed.update { $0 = true } }
        wait(for: [connecting], timeout: 20)
        pending.dispose()
        wait(for: [settled], timeout: 20)
        XCTAssertFalse(completed.value, "a disposed connect completed")
        let fillerClosed = expectation(description: "filler closed")
        (filler as? SocketByteStream)?.whenDescriptorClosed { fillerClosed.fulfill() }
        filler.close()
        wait(for: [fillerClosed], timeout: 20)
        XCTAssertEqual(openDescriptorCount(), before, "a descriptor leaked")
    }

    func testDroppingTheStream_closesTheDescriptor() throws {
        let listener = try TestTCPListener()
        let before = try XCTUnwrap(openDescriptorCount())
        let closed = expectation(description: "closed")
        do {
            let stream = try connectStream(connector, to: listener.address())
            (stream as? SocketByteStream)?.whenDescriptorClosed { closed.fulfill() }
        }
        wait(for: [closed], timeout: 20)
        XCTAssertEqual(openDescriptorCount(), before)
    }

    func testCloseFromManyThreads_completesOnceAndClosesOnce() throws {
        let listener = try TestTCPListener(backlog: 64)
        for _ in 0..<20 {
            let stream = try connectStream(connector, to: listener.address())
            let peer = try listener.accept()
            let calls = TestBox(0)
            let receiveDone = expectation(description: "receive")
            let closed = expectation(description: "closed")
            stream.receive(maximumLength: 10) { _ in
                calls.update { $0 += 1 }
                receiveDone.fulfill()
            }
            (stream as? SocketByteStream)?.whenDescriptorClosed { closed.fulfill() }
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                if index % 2 == 0 { stream.send(Data([1, 2, 3])) { _ in } }
                stream.close()
            }
            wait(for: [receiveDone, closed], timeout: 20)
            XCTAssertEqual(calls.value, 1)
            peer.close()
        }
    }
}
