import Foundation
import Rx

/// What a connection tells its owner, in wire order: messages and pongs from the one
/// thread reading at a time, and the close once, from whichever thread ends it.
protocol WebSocketConnectionListener: AnyObject, Sendable {
    /// A whole message arrived. The next bytes are read only once this returns, so a slow
    /// listener holds the server back (TCP's window) instead of buffering.
    func received(_ message: WebSocketMessage)
    /// A keepalive ping was answered after `roundTrip` seconds.
    func ponged(roundTrip: TimeInterval)
    /// The connection is over; nothing follows. `requested`: the app asked for the close.
    func closed(_ close: WebSocketClose, requested: Bool)
}

/// One open WebSocket connection: RFC 6455 over a byte stream, after the handshake.
///
/// It reads frames only when the previous chunk's messages were handed on (backpressure),
/// answers pings, keeps the server alive-checked with its own pings, writes one outgoing
/// queue bounded in bytes (control frames go ahead of messages not yet started), and runs
/// the closing handshake under a timer. It ends exactly once (`finish`), whatever ends it:
/// the closing handshake, the server cutting the connection, a protocol violation, a dead
/// peer, a write failure, or the close timer.
final class WebSocketConnection: @unchecked Sendable {
    // @unchecked: `reader` is touched only by the thread running the one outstanding
    // receive's completion (each receive is asked from the previous one's completion, so
    // they are ordered); everything else mutable is behind `state`'s lock.

    /// A frame waiting to be written.
    private struct Outgoing {
        var bytes: Data
        /// What the message counts against `maximumQueuedBytes` (0 for control frames).
        var counted: Int
        var completion: (@Sendable (LeashError?) -> Void)?
    }

    private struct State {
        var listener: (any WebSocketConnectionListener)?
        var outgoing: [Outgoing] = []
        var queuedBytes = 0
        var isWriting = false
        /// A close frame was queued: no more messages are accepted.
        var closeSent = false
        /// The app asked for the close (`WebSocket.close`): however the connection then
        /// ends, it is not reconnected.
        var closeRequested = false
        /// The server's close frame, once it arrived (its code, if it had one).
        var closeReceived: (code: WebSocketCloseCode?, reason: String)?
        /// What went wrong on this side, to report with the close.
        var failure: LeashError?
        var isFinished = false
        var closeTimer: Disposable?
        var pingTimer: Disposable?
        var pongTimer: Disposable?
        /// The keepalive ping waiting for its pong: its payload and when it was sent.
        var ping: (payload: Data, sentAt: Date)?
        var pingsSent: UInt64 = 0
        /// When the last bytes arrived: any frame is a sign of life.
        var lastHeard: Date
    }

    /// The read side: frames and messages, confined to the reading thread.
    private struct Reader {
        var decoder: WebSocketFrameDecoder
        var assembler: WebSocketMessageAssembler
        /// A violation or a close frame stopped the reading of frames: bytes are read (to
        /// see the connection end) and dropped.
        var isStopped = false
        /// The text frame still arriving, checked so far: the UTF-8 state after its first
        /// `checked` payload bytes (invalid text fails at the first bad byte, not at the
        /// frame's end).
        var partialText: (validator: IncrementalUTF8Validator, checked: Int)?
    }

    private let stream: any WebSocketByteStream
    private let options: WebSocketOptions
    private let manager: Manager
    private let state: LockedState<State>
    private var reader: Reader
    private let leftover: Data

    /// The largest read asked of the stream at once.
    static let readSize = 256 * 1024

    /// The compressor of outgoing messages when permessage-deflate was agreed (else `nil`),
    /// behind a lock held while a message is compressed, encoded and queued: messages are
    /// compressed in the order they are queued, which the peer's inflater follows. Taken
    /// before `state`'s lock, never inside it.
    private let sending: LockedState<PerMessageDeflateCompressor?>

    /// - Throws: `WebSocketCompressionError` when zlib cannot set up for the agreed `deflate`.
    init(
        stream: any WebSocketByteStream, leftover: Data, deflate: PerMessageDeflateParameters?,
        options: WebSocketOptions, manager: Manager
    ) throws {
        self.stream = stream
        self.leftover = leftover
        self.options = options
        self.manager = manager
        let maximum = max(options.maximumMessageSize, 0)
        // A compressed frame may inflate up to the message limit; its own size is bounded by
        // the same limit (deflate never needs more than the input's size plus a little).
        reader = Reader(
            decoder: WebSocketFrameDecoder(
                role: .client, maximumFrameSize: maximum,
                allowedReservedBits: deflate == nil ? [] : PerMessageDeflateParameters.reservedBits),
            assembler: WebSocketMessageAssembler(
                maximumMessageSize: maximum, decompressor: try deflate?.makeClientDecompressor()))
        sending = LockedState(try deflate?.makeClientCompressor())
        state = LockedState(State(lastHeard: manager.scheduler.now))
    }

    /// Starts reading (the bytes that came with the handshake first) and pinging, telling
    /// `listener`.
    func start(listener: any WebSocketConnectionListener) {
        state.withLock { $0.listener = listener }
        if let interval = options.pingInterval, interval > 0, interval.isFinite {
            schedulePing(after: interval)
        }
        // The bytes that came with the handshake first: the caller (the run) has handed
        // `.opened` on, so what they complete follows it.
        if leftover.isEmpty || process(leftover) { read() }
    }

    /// Stops telling the listener anything (the subscriber disposed).
    func detach() {
        let listener = state.withLock { state -> (any WebSocketConnectionListener)? in
            defer { state.listener = nil }
            return state.listener
        }
        withExtendedLifetime(listener) {}
    }

    var queuedBytes: Int { state.withLock { $0.queuedBytes } }

    // MARK: Reading

    private func read() {
        stream.receive(maximumLength: Self.readSize) { [self] result in
            switch result {
            case .bytes(let bytes):
                if process(bytes) { read() }
            case .end:
                ended(failure: nil)
            case .failed(let error):
                ended(failure: .transport(error))
            }
        }
    }

    /// Decodes `bytes` and hands on what they complete; whether to read on.
    private func process(_ bytes: Data) -> Bool {
        let listener = state.withLock { state -> (any WebSocketConnectionListener)? in
            state.lastHeard = manager.scheduler.now
            return state.isFinished ? nil : state.listener
        }
        if reader.isStopped { return !isFinished }
        let output = reader.decoder.decode(bytes)
        for frame in output.frames {
            let message: WebSocketMessageAssembler.Message?
            do {
                message = try reader.assembler.append(frame)
            } catch {
                violated(error)
                return true
            }
            guard let message else { continue }
            switch message {
            case .text(let text): listener?.received(.text(text))
            case .binary(let data): listener?.received(.binary(data))
            case .ping(let payload): enqueueControl(.pong, payload)
            case .pong(let payload): ponged(payload, listener: listener)
            case .close(let code, let reason):
                receivedClose(code: code, reason: reason)
                return true
            }
        }
        if let violation = output.violation {
            violated(violation)
        } else {
            checkPartialText(restart: !output.frames.isEmpty)
        }
        return true
    }

    /// Checks the text of the frame still arriving as far as it came (RFC 6455 §8.1: an
    /// endpoint fails the connection as soon as it finds invalid UTF-8). `restart` after whole
    /// frames were taken: the partial frame, if any, is a new one.
    private func checkPartialText(restart: Bool) {
        guard let partial = reader.decoder.partialFrame else {
            reader.partialText = nil
            return
        }
        if restart || reader.partialText == nil {
            guard let validator = reader.assembler.textState(continuedBy: partial.opcode, rsv1: partial.rsv1) else {
                reader.partialText = nil
                return
            }
            reader.partialText = (validator, 0)
        }
        guard var text = reader.partialText, partial.received > text.checked else { return }
        // Only what arrived since the last check is copied and checked.
        if let offset = text.validator.validate(reader.decoder.partialPayload(from: text.checked)) {
            return violated(.invalidUTF8(atOffset: text.checked + offset))
        }
        text.checked = partial.received
        reader.partialText = text
    }

    private var isFinished: Bool { state.withLock { $0.isFinished } }

    /// The server broke the protocol: close with the code for it, and read nothing more.
    private func violated(_ violation: WebSocketProtocolViolation) {
        reader.isStopped = true
        let failure = LeashError.webSocketProtocolViolation(
            reason: String(describing: violation), closeCode: violation.closeCode)
        startClosing(code: violation.closeCode, reason: "", failure: failure, flushingQueue: false)
    }

    /// The server's close frame: answered at once (echoing its code) unless this side
    /// closed first; then the server closes the connection (§7.1.1: the server closes TCP
    /// first), or the close timer does.
    private func receivedClose(code: WebSocketCloseCode?, reason: String) {
        reader.isStopped = true
        state.withLock { $0.closeReceived = (code, reason) }
        startClosing(code: code ?? .normalClosure, reason: "", failure: nil, flushingQueue: false, echoing: code == nil)
    }

    /// The connection ended under the reader: the server closed it (`failure == nil`) or it
    /// failed.
    private func ended(failure: LeashError?) {
        let failure =
            failure ?? (state.withLock { $0.closeReceived } == nil ? .transport(URLError(.networkConnectionLost)) : nil)
        finish(failure: failure, timedOut: false)
    }

    // MARK: Keepalive

    private func schedulePing(after interval: TimeInterval) {
        let timer = manager.deadline(after: interval) { [weak self] in self?.sendPing(interval: interval) }
        let keep = state.withLock { state -> Bool in
            guard !state.isFinished, !state.closeSent else { return false }
            state.pingTimer = timer
            return true
        }
        if !keep { timer.dispose() }
    }

    private func sendPing(interval: TimeInterval) {
        let now = manager.scheduler.now
        let payload = state.withLock { state -> Data? in
            // One ping at a time: an unanswered one keeps its pong timer running.
            guard !state.isFinished, !state.closeSent, state.ping == nil else { return nil }
            state.pingsSent += 1
            var count = state.pingsSent.bigEndian
            let payload = withUnsafeBytes(of: &count) { Data($0) }
            state.ping = (payload, now)
            return payload
        }
        guard let payload else { return schedulePing(after: interval) }
        enqueueControl(.ping, payload)
        let timeout = options.pongTimeout
        let pongTimer = manager.deadline(after: timeout) { [weak self] in self?.pongTimedOut(payload, sentAt: now) }
        let keep = state.withLock { state -> Bool in
            guard !state.isFinished else { return false }
            state.pongTimer?.dispose()
            state.pongTimer = pongTimer
            return true
        }
        if !keep { pongTimer.dispose() }
        schedulePing(after: interval)
    }

    /// No pong in time: unless anything at all arrived since the ping, the peer is dead.
    private func pongTimedOut(_ payload: Data, sentAt: Date) {
        let dead = state.withLock { state -> Bool in
            guard state.ping?.payload == payload else { return false }
            if state.lastHeard < sentAt { return true }
            // Something arrived since the ping: alive, though it did not answer; the next
            // tick pings again.
            state.ping = nil
            return false
        }
        guard dead else { return }
        finish(failure: .timeout(seconds: options.pongTimeout), timedOut: true)
    }

    private func ponged(_ payload: Data, listener: (any WebSocketConnectionListener)?) {
        let now = manager.scheduler.now
        let roundTrip = state.withLock { state -> TimeInterval? in
            // Unsolicited pongs (§5.5.3) and late ones are ignored.
            guard let ping = state.ping, ping.payload == payload else { return nil }
            state.ping = nil
            state.pongTimer?.dispose()
            state.pongTimer = nil
            return now.timeIntervalSince(ping.sentAt)
        }
        if let roundTrip { listener?.ponged(roundTrip: roundTrip) }
    }

    // MARK: Writing

    /// Queues `message` (see `WebSocket.send(_:)`); `completion` tells its outcome once.
    func send(_ message: WebSocketMessage, completion: @escaping @Sendable (LeashError?) -> Void) {
        if let refusal = offer(message, completion: completion) { completion(refusal) }
    }

    /// Queues `message` if it can be queued now, and then `completion` tells once whether it
    /// was written; if not, returns why, before anything was written, and `completion` is
    /// never called (a `WebSocketSession` keeps a message the closing connection refused
    /// for the next one: it never reached the server).
    func offer(_ message: WebSocketMessage, completion: @escaping @Sendable (LeashError?) -> Void) -> LeashError? {
        let (opcode, payload): (WebSocketFrame.Opcode, Data)
        switch message {
        case .text(let text): (opcode, payload) = (.text, Data(text.utf8))
        case .binary(let data): (opcode, payload) = (.binary, data)
        }
        let outcome = sending.withLock { compressor -> (refusal: LeashError?, write: Bool) in
            // Refused before compressing: with context takeover, a message compressed and
            // then not sent would leave the server's inflater out of step. The bound covers
            // the header (at most 14 bytes) and what deflate may add to data it cannot shrink.
            if compressor != nil {
                let bound = payload.count + payload.count / 1000 + 24
                if let refusal = state.withLock({ refusal(adding: bound, $0) }) { return (refusal, false) }
            }
            let frame: WebSocketFrame
            do {
                frame =
                    try compressor?.messageFrame(opcode: opcode, payload: payload)
                    ?? WebSocketFrame(opcode: opcode, payload: payload)
            } catch {
                return (.encoding(reason: "the message could not be compressed", underlying: error), false)
            }
            var encoder = WebSocketFrameEncoder()
            guard let bytes = try? encoder.encode(frame) else { return (.webSocketSendFailed(.closed), false) }
            return state.withLock { state -> (refusal: LeashError?, write: Bool) in
                if let refusal = refusal(adding: bytes.count, state) { return (refusal, false) }
                state.outgoing.append(Outgoing(bytes: bytes, counted: bytes.count, completion: completion))
                state.queuedBytes += bytes.count
                return (nil, claimWriting(&state))
            }
        }
        if let refusal = outcome.refusal { return refusal }
        if outcome.write { writeNext() }
        return nil
    }

    /// Why a message of `bytes` cannot be queued now, if it cannot.
    private func refusal(adding bytes: Int, _ state: State) -> LeashError? {
        guard !state.closeSent, !state.isFinished else { return .webSocketSendFailed(.closed) }
        guard state.queuedBytes + bytes <= options.maximumQueuedBytes else {
            return .webSocketSendFailed(
                .queueFull(queuedBytes: state.queuedBytes, messageBytes: bytes, limit: options.maximumQueuedBytes))
        }
        return nil
    }

    /// Takes the writing role if nobody holds it.
    private func claimWriting(_ state: inout State) -> Bool {
        guard !state.isWriting else { return false }
        state.isWriting = true
        return true
    }

    /// Queues a control frame ahead of the messages not yet started.
    private func enqueueControl(_ opcode: WebSocketFrame.Opcode, _ payload: Data) {
        var encoder = WebSocketFrameEncoder()
        guard let bytes = try? encoder.encode(WebSocketFrame(opcode: opcode, payload: payload.prefix(125))) else {
            return
        }
        let write = state.withLock { state -> Bool in
            guard !state.isFinished else { return false }
            // Nothing follows a close frame (§5.5.1).
            if state.closeSent && opcode != .close { return false }
            // Behind the control frames already waiting (pongs answer pings in order, §5.5.3),
            // ahead of the messages.
            let place = state.outgoing.firstIndex { $0.counted > 0 } ?? state.outgoing.count
            state.outgoing.insert(Outgoing(bytes: bytes, counted: 0, completion: nil), at: place)
            return claimWriting(&state)
        }
        if write { writeNext() }
    }

    /// The most bytes joined into one write: small messages go out together.
    private static let batchSize = 256 * 1024

    /// Writes what waits, as the writer: one write at a time, until the queue is empty.
    private func writeNext() {
        let batch = state.withLock { state -> [Outgoing] in
            guard !state.isFinished, !state.outgoing.isEmpty else {
                state.isWriting = false
                return []
            }
            var count = 1
            var bytes = state.outgoing[0].bytes.count
            while count < state.outgoing.count, bytes + state.outgoing[count].bytes.count <= Self.batchSize {
                bytes += state.outgoing[count].bytes.count
                count += 1
            }
            defer { state.outgoing.removeFirst(count) }
            return Array(state.outgoing.prefix(count))
        }
        guard !batch.isEmpty else { return }
        var bytes = batch[0].bytes
        if batch.count > 1 {
            bytes.reserveCapacity(batch.reduce(0) { $0 + $1.bytes.count })
            for item in batch.dropFirst() { bytes.append(item.bytes) }
        }
        stream.send(bytes) { [self] error in
            if let error {
                for item in batch { item.completion?(.transport(error)) }
                return finish(failure: .transport(error), timedOut: false)
            }
            let written = batch.reduce(0) { $0 + $1.counted }
            state.withLock { $0.queuedBytes -= written }
            for item in batch { item.completion?(nil) }
            writeNext()
        }
    }

    // MARK: Closing

    /// Closes with `code` and `reason` (see `WebSocket.close(code:reason:)`), after what is
    /// queued.
    func close(code: WebSocketCloseCode, reason: String) {
        state.withLock { $0.closeRequested = true }
        let code = code.isValidOnTheWire ? code : .normalClosure
        startClosing(code: code, reason: reason, failure: nil, flushingQueue: true)
    }

    /// Sends a close frame (once), and starts the timer that cuts the connection if the
    /// closing handshake does not end in time. Unless `flushingQueue`, the messages not yet
    /// started are dropped (their sends fail): the connection is failing, or answering the
    /// server's close, which must go out "as soon as practical" (§5.5.1).
    private func startClosing(
        code: WebSocketCloseCode, reason: String, failure: LeashError?, flushingQueue: Bool, echoing empty: Bool = false
    ) {
        var payload = Data()
        if !empty {
            payload.append(UInt8(code.rawValue >> 8))
            payload.append(UInt8(code.rawValue & 0xff))
            payload.append(contentsOf: Self.truncated(reason))
        }
        var encoder = WebSocketFrameEncoder()
        guard let bytes = try? encoder.encode(WebSocketFrame(opcode: .close, payload: payload)) else { return }
        let (dropped, write, timers) = state.withLock { state -> ([Outgoing], Bool, [Disposable?]) in
            if failure != nil, state.failure == nil { state.failure = failure }
            guard !state.closeSent, !state.isFinished else { return ([], false, []) }
            state.closeSent = true
            var dropped: [Outgoing] = []
            let close = Outgoing(bytes: bytes, counted: 0, completion: nil)
            if flushingQueue {
                state.outgoing.append(close)
            } else {
                dropped = state.outgoing
                state.outgoing = [close]
                state.queuedBytes -= dropped.reduce(0) { $0 + $1.counted }
            }
            defer { (state.pingTimer, state.pongTimer) = (nil, nil) }
            return (dropped, claimWriting(&state), [state.pingTimer, state.pongTimer])
        }
        timers.forEach { $0?.dispose() }
        for item in dropped { item.completion?(.webSocketSendFailed(.closed)) }
        if write { writeNext() }
        let timeout = options.closeTimeout
        let timer = manager.deadline(after: max(timeout, 0)) { [weak self] in
            self?.finish(failure: .timeout(seconds: timeout), timedOut: true)
        }
        let keep = state.withLock { state -> Bool in
            guard !state.isFinished, state.closeTimer == nil else { return false }
            state.closeTimer = timer
            return true
        }
        if !keep { timer.dispose() }
    }

    /// `reason` as UTF-8 of at most 123 bytes, cut at a character boundary (a close frame's
    /// payload is at most 125 bytes, two of them the code).
    private static func truncated(_ reason: String) -> Data {
        var bytes = Data()
        for character in reason {
            let utf8 = Data(String(character).utf8)
            if bytes.count + utf8.count > 123 { break }
            bytes.append(utf8)
        }
        return bytes
    }

    /// Ends the connection once: closes the stream, fails the sends still queued, and tells
    /// the listener how it closed.
    private func finish(failure: LeashError?, timedOut: Bool) {
        let ended = state.withLock { state -> (State, any WebSocketConnectionListener)? in
            guard !state.isFinished else { return nil }
            state.isFinished = true
            if let failure, state.failure == nil { state.failure = failure }
            let snapshot = state
            state.outgoing = []
            state.listener = nil
            (state.closeTimer, state.pingTimer, state.pongTimer) = (nil, nil, nil)
            return snapshot.listener.map { (snapshot, $0) } ?? (snapshot, NoListener())
        }
        guard let (snapshot, listener) = ended else { return }
        [snapshot.closeTimer, snapshot.pingTimer, snapshot.pongTimer].forEach { $0?.dispose() }
        stream.close()
        for item in snapshot.outgoing { item.completion?(.webSocketSendFailed(.closed)) }
        let close: WebSocketClose
        if let received = snapshot.closeReceived {
            close = WebSocketClose(
                code: received.code ?? .noStatusReceived, reason: received.reason,
                wasClean: snapshot.closeSent && !timedOut, failure: snapshot.failure)
        } else {
            close = WebSocketClose(code: .abnormalClosure, wasClean: false, failure: snapshot.failure)
        }
        listener.closed(close, requested: snapshot.closeRequested)
    }
}

/// The listener of a connection whose subscriber left: hears nothing.
private final class NoListener: WebSocketConnectionListener {
    func received(_ message: WebSocketMessage) {}
    func ponged(roundTrip: TimeInterval) {}
    func closed(_ close: WebSocketClose, requested: Bool) {}
}
