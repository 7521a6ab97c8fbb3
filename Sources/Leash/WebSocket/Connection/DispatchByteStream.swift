import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `WebSocketByteStream` over a non-blocking descriptor, driven by Dispatch read and write
/// sources: plain TCP on every platform, TLS through libcurl on Linux (the `ByteStreamIO`
/// says which).
///
/// Everything happens on one serial queue: the calls hop onto it, the sources fire on it and
/// the completions run on it. A read is made only while a `receive` is outstanding, and the
/// read source is suspended otherwise, so a reader that stops asking stops reading and TCP's
/// window holds the peer back. Before waiting for readability, a `receive` always tries to
/// read first: TLS may hold decrypted bytes that no readiness event will announce.
///
/// The write source watches a duplicate of the descriptor (`dup`), not the descriptor
/// itself: on Linux, Dispatch keeps one epoll registration per descriptor number for the
/// read and the write source together, re-armed direction by direction as each source is
/// suspended and resumed, and that sharing loses readiness events: with one descriptor,
/// an 8 MB echo stalled for good 2 times in 100 under load (once at 1.8 MB, as it did in
/// CI), and four 8 MB echoes at once in 19 runs of 30
/// (`TCPByteStreamTests.testEchoes_withBothDirectionsBusyOnSeveralStreams_neverStall`); with
/// the duplicate, neither in 200 runs. Two numbers, two registrations. Writes still go
/// through `io`; the duplicate is only watched.
///
/// The descriptors are closed in the sources' cancel handlers, after both have run
/// (Dispatch's rule: a descriptor closed under a live source may be reused and watched by
/// mistake). Dropping the last reference closes the stream too.
package final class DispatchByteStream: WebSocketByteStream, @unchecked Sendable {
    // Sendable: the mutable state below is touched only on `queue` (or in deinit, when no
    // other reference is left); the sources and the queue are thread-safe.

    /// A source's run state, which decides how to resume, suspend and cancel it: Dispatch
    /// requires an inactive source to be activated once and a suspended one to be resumed
    /// before it is released.
    private enum SourceState {
        /// Created, never activated.
        case inactive
        /// Watching.
        case running
        /// Suspended after watching.
        case suspended
    }

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
    /// Fires while the descriptor is readable and a `receive` waits.
    private let readSource: DispatchSourceRead
    /// Fires while the descriptor is writable and a `send` waits.
    private let writeSource: DispatchSourceWrite
    /// Closes the descriptor once both sources are cancelled.
    private let closer: DescriptorCloser
    /// `readSource`'s run state.
    private var readState = SourceState.inactive
    /// `writeSource`'s run state.
    private var writeState = SourceState.inactive
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
    /// stream is closed or released.
    init(io: any ByteStreamIO, label: String = "Leash.DispatchByteStream") {
        let queue = DispatchQueue(label: label)
        self.queue = queue
        self.io = io
        // Without a duplicate (out of descriptors), both sources share the one descriptor.
        let watchedForWriting = ByteStreamSocket.duplicate(io.fileDescriptor)
        readSource = DispatchSource.makeReadSource(fileDescriptor: io.fileDescriptor, queue: queue)
        writeSource = DispatchSource.makeWriteSource(
            fileDescriptor: watchedForWriting ?? io.fileDescriptor, queue: queue)
        closer = DescriptorCloser(io: io, duplicate: watchedForWriting)
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readChunk, alignment: 1)
        let closer = closer
        readSource.setCancelHandler { closer.sourceCancelled() }
        writeSource.setCancelHandler { closer.sourceCancelled() }
        // Weak: a stream nobody holds any more closes itself (deinit) instead of living on
        // through its own sources.
        readSource.setEventHandler { [weak self] in self?.readable() }
        writeSource.setEventHandler { [weak self] in self?.writable() }
        queue.setSpecific(key: Self.queueKey, value: queueIdentity)
    }

    deinit {
        if !isClosed {
            cancelSources()
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
        closer.closed.notify(queue: .global(), execute: body)
    }

    package func receive(maximumLength: Int, _ completion: @escaping @Sendable (WebSocketByteStreamRead) -> Void) {
        queue.async { [self] in
            if isClosed { return completion(.failed(ByteStreamErrors.closed)) }
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
            if let writeFailure { return completion(0, writeFailure) }
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
            cancelSources()
            receive?(.failed(ByteStreamErrors.closed))
            send?.completion(send?.offset ?? 0, ByteStreamErrors.closed)
        }
    }

    // MARK: Reading

    /// The read source fired.
    private func readable() {
        if pendingReceive == nil {
            // Nobody asks: stop watching, so the peer waits on TCP's window.
            suspend(readSource, &readState)
        } else {
            readNow()
        }
    }

    /// Reads for the outstanding `receive`, or waits for readability if nothing is there.
    private func readNow() {
        guard let (maximumLength, completion) = pendingReceive else { return }
        let count = min(maximumLength, readBuffer.count)
        let result = io.read(into: UnsafeMutableRawBufferPointer(rebasing: readBuffer[0..<count]))
        let read: WebSocketByteStreamRead
        switch result {
        case .wouldBlock:
            return resume(readSource, &readState)
        case .moved(let moved):
            guard moved > 0, let base = readBuffer.baseAddress else { return resume(readSource, &readState) }
            read = .bytes(Data(bytes: base, count: moved))
        case .end:
            read = .end
            readOutcome = read
        case .failed(let error):
            read = .failed(error)
            readOutcome = read
        }
        pendingReceive = nil
        suspend(readSource, &readState)
        completion(read)
    }

    // MARK: Writing

    /// The write source fired.
    private func writable() {
        if pendingSend == nil {
            suspend(writeSource, &writeState)
        } else {
            writeNow()
        }
    }

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
                return resume(writeSource, &writeState)
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
        suspend(writeSource, &writeState)
        pending.completion(pending.offset, failure)
    }

    // MARK: Sources

    /// Starts watching with `source`, if it is not already.
    private func resume(_ source: any DispatchSourceProtocol, _ state: inout SourceState) {
        switch state {
        case .inactive: source.activate()
        case .suspended: source.resume()
        case .running: return
        }
        state = .running
    }

    /// Stops watching with `source`, if it is watching.
    private func suspend(_ source: any DispatchSourceProtocol, _ state: inout SourceState) {
        guard state == .running else { return }
        source.suspend()
        state = .suspended
    }

    /// Cancels both sources; their cancel handlers close the descriptor. A source that is
    /// inactive or suspended would never run its cancel handler (and must not be released
    /// suspended), so it is cancelled first, then let run.
    private func cancelSources() {
        readSource.cancel()
        writeSource.cancel()
        if readState != .running { readState == .inactive ? readSource.activate() : readSource.resume() }
        if writeState != .running { writeState == .inactive ? writeSource.activate() : writeSource.resume() }
        readState = .running
        writeState = .running
    }
}

/// Closes a stream's descriptors once both of its sources are cancelled.
private final class DescriptorCloser: @unchecked Sendable {
    // Sendable: `remaining` changes only in the cancel handlers, which run on the stream's
    // serial queue.
    /// What the descriptor belongs to.
    private let io: any ByteStreamIO
    /// The duplicate the write source watches, if there is one.
    private let duplicate: Int32?
    /// How many sources are still to run their cancel handlers.
    private var remaining = 2
    /// Entered until the descriptors are closed.
    let closed = DispatchGroup()

    /// A closer for `io`'s descriptor and its watched `duplicate`.
    init(io: any ByteStreamIO, duplicate: Int32?) {
        self.io = io
        self.duplicate = duplicate
        closed.enter()
    }

    /// One source's cancel handler ran; the second closes the descriptors.
    func sourceCancelled() {
        remaining -= 1
        guard remaining == 0 else { return }
        if let duplicate { ByteStreamSocket.close(duplicate) }
        io.close()
        closed.leave()
    }
}
