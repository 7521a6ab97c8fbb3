import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `WebSocketByteStream` over a non-blocking descriptor, watched by the `SocketEventLoop`:
/// plain TCP on every platform, TLS through libcurl on Linux (the `ByteStreamIO` says which).
///
/// Everything happens on one serial queue: the calls hop onto it, the loop's reports hop onto
/// it and the completions run on it. A read is made only while a `receive` is outstanding,
/// so a reader that stops asking stops reading and TCP's window holds the peer back. A
/// `receive` or `send` always tries first and waits for the loop only when the call would
/// block (TLS may hold decrypted bytes that no readiness report will announce); a report
/// that finds nothing waiting, or nothing to move, is ignored.
///
/// `close()` stops the watch, then closes the descriptor: a report already on its way finds
/// a closed stream. Dropping the last reference closes the stream too.
package final class SocketByteStream: WebSocketByteStream, @unchecked Sendable {
    // Sendable: the mutable state below is touched only on `queue` (or in deinit, when no
    // other reference is left); the watch and the queue are thread-safe.

    /// A `send` in progress.
    private struct PendingSend {
        /// What to write.
        var bytes: Data
        /// How much of it is written.
        var offset: Int
        /// The caller's completion, told how many bytes were written before a failure.
        var completion: @Sendable (Int, URLError?) -> Void
    }

    /// How many bytes one read takes at most: enough for a fast loopback, small enough to
    /// keep per-stream memory modest.
    private static let readChunk = 64 * 1024

    /// Where everything happens.
    private let queue: DispatchQueue
    /// What moves the bytes.
    private let io: any ByteStreamIO
    /// The loop's watch on the descriptor; nil when it could not be watched (then every
    /// `receive` and `send` fails with `watchFailure`).
    private var watch: SocketWatch?
    /// Why the descriptor could not be watched.
    private var watchFailure: URLError?
    /// Entered until the descriptor is closed.
    private let closed = DispatchGroup()
    /// The outstanding `receive`.
    private var pendingReceive: (maximumLength: Int, completion: @Sendable (WebSocketByteStreamRead) -> Void)?
    /// The outstanding `send`.
    private var pendingSend: PendingSend?
    /// `.end` or `.failed` once reading has reached either: every later `receive` gets it.
    private var readOutcome: WebSocketByteStreamRead?
    /// The failure of a write: every later `send` gets it.
    private var writeFailure: URLError?
    /// Whether `close()` (or deinit) has run.
    private var isClosed = false
    /// Where reads land before they are copied into the `Data` handed on; reused.
    private let readBuffer: UnsafeMutableRawBufferPointer

    /// A stream over `io`, which it owns from now on: `io.close()` runs once, when the
    /// stream is closed or released. `loop` is the process's shared loop unless a test names
    /// one.
    init(io: any ByteStreamIO, label: String = "Leash.SocketByteStream", loop: SocketEventLoop? = nil) {
        queue = DispatchQueue(label: label)
        self.io = io
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readChunk, alignment: 1)
        closed.enter()
        queue.setSpecific(key: Self.queueKey, value: queueIdentity)
        guard let loop = loop ?? SocketEventLoop.shared else {
            watchFailure = ByteStreamErrors.socket(EMFILE, whileConnecting: false)
            return
        }
        // Weak: a stream nobody holds any more closes itself (deinit) instead of living on
        // through the loop's table. The report hops to the queue, where the state is.
        let watched = loop.watch(io.fileDescriptor) { [weak self] readiness in
            guard let self else { return }
            queue.async { self.ready(readiness) }
        }
        switch watched {
        case .success(let watch): self.watch = watch
        case .failure(let failure): watchFailure = ByteStreamErrors.socket(failure.code, whileConnecting: false)
        }
    }

    deinit {
        if !isClosed {
            closeDescriptor()
            let receive = pendingReceive?.completion
            let send = pendingSend?.completion
            let written = pendingSend?.offset ?? 0
            if receive != nil || send != nil {
                queue.async {
                    receive?(.failed(ByteStreamErrors.closed))
                    send?(written, ByteStreamErrors.closed)
                }
            }
        }
        readBuffer.deallocate()
    }

    /// Runs `body` (on a Dispatch thread) once the descriptor is closed: tests count
    /// descriptors with it.
    package func whenDescriptorClosed(_ body: @escaping @Sendable () -> Void) {
        closed.notify(queue: .global(), execute: body)
    }

    package func receive(maximumLength: Int, _ completion: @escaping @Sendable (WebSocketByteStreamRead) -> Void) {
        queue.async { [self] in
            if isClosed { return completion(.failed(ByteStreamErrors.closed)) }
            if let watchFailure { return completion(.failed(watchFailure)) }
            if let readOutcome { return completion(readOutcome) }
            // Two receives at once break the contract; the second fails rather than
            // replacing (and losing) the first.
            guard pendingReceive == nil, maximumLength > 0 else { return completion(.failed(URLError(.unknown))) }
            pendingReceive = (maximumLength, completion)
            readNow()
        }
    }

    package func send(_ bytes: Data, _ completion: @escaping @Sendable (URLError?) -> Void) {
        enqueueSend(bytes) { _, error in completion(error) }
    }

    package func send(
        _ bytes: Data, reportingWritten completion: @escaping @Sendable (_ written: Int?, URLError?) -> Void
    ) {
        enqueueSend(bytes) { written, error in completion(written, error) }
    }

    /// Writes `bytes`, telling `completion` how many were written before a failure.
    private func enqueueSend(_ bytes: Data, _ completion: @escaping @Sendable (Int, URLError?) -> Void) {
        queue.async { [self] in
            if isClosed { return completion(0, ByteStreamErrors.closed) }
            if let failure = writeFailure ?? watchFailure { return completion(0, failure) }
            guard pendingSend == nil else { return completion(0, URLError(.unknown)) }
            pendingSend = PendingSend(bytes: bytes, offset: 0, completion: completion)
            writeNow()
        }
    }

    package var hasInputOrHangup: Bool {
        // Polled without the queue: the descriptor stays open until the stream is closed,
        // and an idle stream's owner (the pool) is the only one that could close it.
        guard ByteStreamSocket.hasInputOrHangup(io.fileDescriptor) else { return false }
        // Something is there. Over TLS it may be only the protocol's own records (a TLS 1.3
        // server sends its session tickets after the handshake), which a read takes without
        // returning data: the connection is fine then. Data, the end or a failure make it
        // unusable (the byte read is lost with it).
        return onQueue {
            guard !isClosed, pendingReceive == nil, readOutcome == nil else { return true }
            var byte: UInt8 = 0
            let result = withUnsafeMutableBytes(of: &byte) { io.read(into: $0) }
            switch result {
            case .wouldBlock, .moved(0): return false
            case .moved, .end, .failed: return true
            }
        }
    }

    package var isOnItsQueue: Bool {
        DispatchQueue.getSpecific(key: Self.queueKey) == queueIdentity
    }

    /// Runs `body` on the stream's queue: in place when already there (the pool may look at a
    /// connection from one of its own completions), else waiting for it.
    private func onQueue<Result>(_ body: () -> Result) -> Result {
        if isOnItsQueue { return body() }
        return queue.sync(execute: body)
    }

    /// Marks each stream's queue, so that `onQueue` knows when it runs there.
    private static let queueKey = DispatchSpecificKey<Int>()
    /// This stream's mark on its queue.
    private var queueIdentity: Int { ObjectIdentifier(self).hashValue }

    package func close() {
        queue.async { [self] in
            guard !isClosed else { return }
            isClosed = true
            let receive = pendingReceive?.completion
            let send = pendingSend
            pendingReceive = nil
            pendingSend = nil
            closeDescriptor()
            receive?(.failed(ByteStreamErrors.closed))
            send?.completion(send?.offset ?? 0, ByteStreamErrors.closed)
        }
    }

    /// Stops the watch, then closes the descriptor (in that order: a descriptor closed while
    /// watched could be reused by another socket under the same registration).
    private func closeDescriptor() {
        isClosed = true
        watch?.cancel()
        io.close()
        closed.leave()
    }

    /// The loop reported `readiness`: retries whatever waits for it.
    private func ready(_ readiness: SocketReadiness) {
        guard !isClosed else { return }
        if readiness.contains(.readable) { readNow() }
        if readiness.contains(.writable) { writeNow() }
    }

    // MARK: Reading

    /// Reads for the outstanding `receive`, or waits for readability if nothing is there.
    private func readNow() {
        guard let (maximumLength, completion) = pendingReceive else { return }
        let count = min(maximumLength, readBuffer.count)
        let result = io.read(into: UnsafeMutableRawBufferPointer(rebasing: readBuffer[0..<count]))
        let read: WebSocketByteStreamRead
        switch result {
        case .wouldBlock:
            return watch?.arm(for: .readable) ?? ()
        case .moved(let moved):
            guard moved > 0, let base = readBuffer.baseAddress else { return watch?.arm(for: .readable) ?? () }
            read = .bytes(Data(bytes: base, count: moved))
        case .end:
            read = .end
            readOutcome = read
        case .failed(let error):
            read = .failed(error)
            readOutcome = read
        }
        pendingReceive = nil
        completion(read)
    }

    // MARK: Writing

    /// Writes the outstanding `send` until it is all written, the kernel takes no more (then
    /// waits for writability) or a write fails.
    private func writeNow() {
        guard var pending = pendingSend else { return }
        var failure: URLError?
        writing: while pending.offset < pending.bytes.count {
            let offset = pending.offset
            let result = pending.bytes.withUnsafeBytes { raw in
                io.write(from: UnsafeRawBufferPointer(rebasing: raw[offset...]))
            }
            switch result {
            case .moved(let moved) where moved > 0:
                pending.offset += moved
            case .moved, .wouldBlock:
                pendingSend = pending
                return watch?.arm(for: .writable) ?? ()
            case .end:
                failure = URLError(.networkConnectionLost)
                break writing
            case .failed(let error):
                failure = error
                break writing
            }
        }
        pendingSend = nil
        writeFailure = failure
        pending.completion(pending.offset, failure)
    }
}
