import Foundation
import XCTest

@testable import Leash

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

/// The socket event loop behind `SocketByteStream`, over each backend: epoll (Linux's
/// default) and `poll(2)` (other systems'), driven through byte streams on socket pairs.
final class SocketEventLoopTests: XCTestCase {
    /// One loop per backend for the whole run (a loop's thread lives as long as the process).
    private static let loops: [(name: String, loop: SocketEventLoop)] = {
        var loops: [(String, SocketEventLoop)] = []
        #if os(Linux) || os(Android)
            if let epoll = EpollReadinessBackend() { loops.append(("epoll", SocketEventLoop(backend: epoll))) }
        #endif
        if let poll = PollReadinessBackend() { loops.append(("poll", SocketEventLoop(backend: poll))) }
        return loops
    }()

    func testEveryBackendIsHere() {
        #if os(Linux)
            XCTAssertEqual(Self.loops.map(\.name), ["epoll", "poll"])
        #else
            XCTAssertEqual(Self.loops.map(\.name), ["poll"])
        #endif
    }

    func testAReaderAskingForLittleAtATime_getsEveryByte_inOrder() throws {
        for (name, loop) in Self.loops {
            let (writer, reader) = try Self.streamPair(on: loop)
            let payload = testPattern(count: 300_000, seed: 7)
            // The writer fills the socket's buffer and waits for room many times over while
            // the reader, asking for 1,000 bytes at a time, empties it: each wait must be
            // woken, on both sides.
            let sent = expectation(description: "\(name): sent")
            writer.send(payload) { error in
                XCTAssertNil(error, name)
                sent.fulfill()
            }
            var received = Data()
            while received.count < payload.count {
                let read = receiveOnce(reader, maximumLength: 1_000, within: 10)
                guard case .bytes(let bytes) = read else {
                    return XCTFail("\(name): \(String(describing: read)) after \(received.count) bytes")
                }
                received += bytes
            }
            wait(for: [sent], timeout: 20)
            XCTAssertTrue(received == payload, "\(name): the bytes differ")
            writer.close()
            guard case .end? = receiveOnce(reader, within: 10) else { return XCTFail("\(name): no end") }
            reader.close()
        }
    }

    func testAReceiveWaitingBeforeTheBytesArrive_isWokenByThem() throws {
        for (name, loop) in Self.loops {
            let (writer, reader) = try Self.streamPair(on: loop)
            for round in 0..<50 {
                let received = expectation(description: "\(name): round \(round)")
                let box = TestBox<WebSocketByteStreamRead?>(nil)
                reader.receive(maximumLength: 64) { read in
                    box.update { $0 = read }
                    received.fulfill()
                }
                // The receive is queued first and usually finds nothing; the send's bytes wake it.
                XCTAssertNil(sendAll(writer, Data([UInt8(round)])), name)
                wait(for: [received], timeout: 10)
                guard case .bytes(let bytes)? = box.value else { return XCTFail("\(name): round \(round)") }
                XCTAssertEqual(bytes, Data([UInt8(round)]), "\(name): round \(round)")
            }
            writer.close()
            reader.close()
        }
    }

    func testStreamsOpenedAndClosedOnManyThreadsAtOnce_allEcho_andLeaveNothingWatchedOrOpen() throws {
        // What crashed libdispatch's epoll loop (swift-corelibs-libdispatch issue 949):
        // registrations made and torn down on several threads at once, with events in flight.
        for (name, loop) in Self.loops {
            let watchesBefore = loop.watchCount
            let descriptorsBefore = try XCTUnwrap(openDescriptorCount())
            let threads = 8
            let rounds = 400
            let failures = TestBox<[String]>([])
            let done = DispatchGroup()
            for thread in 0..<threads {
                done.enter()
                Thread.detachNewThread {
                    defer { done.leave() }
                    for round in 0..<rounds {
                        guard let (left, right) = try? Self.streamPair(on: loop) else {
                            return failures.update { $0.append("thread \(thread): no socket pair") }
                        }
                        let closed = DispatchGroup()
                        for stream in [left, right] {
                            closed.enter()
                            stream.whenDescriptorClosed { closed.leave() }
                        }
                        let message = Data("\(thread).\(round)".utf8)
                        // Half the rounds close with bytes unread and a receive outstanding.
                        if round % 2 == 0 {
                            left.send(message) { _ in }
                            right.receive(maximumLength: 64) { _ in }
                        } else if sendAll(left, message) != nil
                            || receiveBytes(right, count: message.count, within: 10).bytes != message
                        {
                            failures.update { $0.append("thread \(thread), round \(round): no echo") }
                        }
                        left.close()
                        right.close()
                        if closed.wait(timeout: .now() + 10) != .success {
                            failures.update { $0.append("thread \(thread), round \(round): not closed") }
                        }
                    }
                }
            }
            XCTAssertEqual(done.wait(timeout: .now() + 120), .success, "\(name): the threads did not finish")
            XCTAssertEqual(failures.value, [], name)
            XCTAssertEqual(loop.watchCount, watchesBefore, "\(name): watches left in the loop's table")
            XCTAssertEqual(openDescriptorCount(), descriptorsBefore, "\(name): descriptors left open")
        }
    }

    func testACancelledWatch_isNeverReportedAgain_evenWhenItsDescriptorNumberIsReused() throws {
        for (name, loop) in Self.loops {
            let (first, firstPeer) = try Self.socketPair()
            let stale = TestBox(0)
            guard case .success(let watch) = loop.watch(first, { _ in stale.update { $0 += 1 } }) else {
                return XCTFail("\(name): not watched")
            }
            watch.arm(for: [.readable, .writable])
            watch.cancel()
            let reportsAtCancel = stale.value
            ByteStreamSocket.close(first)
            ByteStreamSocket.close(firstPeer)
            // The next socket is very likely given the same number; its reports must reach
            // its own handler only.
            let (second, secondPeer) = try Self.socketPair()
            let reported = expectation(description: "\(name): the new socket's report")
            reported.assertForOverFulfill = false
            guard case .success(let secondWatch) = loop.watch(second, { _ in reported.fulfill() }) else {
                return XCTFail("\(name): not watched")
            }
            secondWatch.arm(for: .readable)
            var byte: UInt8 = 1
            XCTAssertEqual(write(secondPeer, &byte, 1), 1)
            wait(for: [reported], timeout: 10)
            // A report already on its way at the cancel may come once; none after the new
            // socket's own report, which came through the same loop later.
            XCTAssertLessThanOrEqual(stale.value, reportsAtCancel + 1, name)
            secondWatch.cancel()
            secondWatch.cancel()
            ByteStreamSocket.close(second)
            ByteStreamSocket.close(secondPeer)
        }
    }

    // MARK: Helpers

    /// A connected pair of non-blocking, close-on-exec Unix stream sockets.
    private static func socketPair() throws -> (Int32, Int32) {
        var ends: [Int32] = [0, 0]
        #if canImport(Glibc)
            let type = Int32(SOCK_STREAM.rawValue)
        #else
            let type = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { throw URLError(.cannotConnectToHost) }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        return (ends[0], ends[1])
    }

    /// Two byte streams over the ends of a socket pair, watched by `loop`.
    private static func streamPair(on loop: SocketEventLoop) throws -> (SocketByteStream, SocketByteStream) {
        let (left, right) = try socketPair()
        return (
            SocketByteStream(io: SocketByteStreamIO(fileDescriptor: left), loop: loop),
            SocketByteStream(io: SocketByteStreamIO(fileDescriptor: right), loop: loop)
        )
    }
}
