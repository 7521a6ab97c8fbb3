import Foundation

/// What an attempt knows of a stream's response (see `Attempt`): its head being
/// judged by the success interceptors and validation (chunks wait meanwhile), its body
/// flowing, or over. A plain value: `Attempt` decides with it under its lock and acts
/// after.
struct StreamState {
    /// Where the stream is.
    enum Phase {
        /// No streamed head in this attempt (none yet, or the answer is not a stream's).
        case none
        /// The head is being judged; chunks wait in `pending`.
        case judging
        /// The head was accepted: chunks flow as they come.
        case open
        /// The stream ended, or was stopped: later chunks are dropped.
        case closed
    }

    /// What `openStream` does next.
    enum Next {
        /// Hands these on (they came while the head was judged, or while handing on).
        case chunks([Data])
        /// The transport ended the body meanwhile: the stream is complete.
        case end
        /// Nothing waits: later chunks flow directly.
        case stop
    }

    /// What the transport's end of the response means.
    enum End {
        /// The response was not streamed: the usual stages take it.
        case notStreamed
        /// The stream is over already (stopped, or waiting for its head's judgement,
        /// which then completes it).
        case ignore
        /// The stream's body ended: it completes with these details.
        case finish(ResponseExtra)
    }

    var phase: Phase = .none
    /// Chunks waiting for the head's judgement (or for the chunks before them).
    private var pending: [Data] = []
    /// Whether `openStream` is handing chunks on: new ones queue behind.
    private var isDraining = false
    /// Whether the transport ended the body before the stream opened.
    private var hasEnded = false
    /// The accepted head's details.
    private var details: ResponseExtra?

    /// Whether the head was accepted: from then on the body goes to the subscriber.
    var hasOpened: Bool { details != nil }

    init(phase: Phase = .none) {
        self.phase = phase
    }

    /// Accepts the head (the first call) and says what to hand on next.
    mutating func next(accepting accepted: ResponseExtra) -> Next {
        guard phase == .judging || (phase == .open && isDraining) else { return .stop }
        if details == nil {
            details = accepted
            phase = .open
            isDraining = true
        }
        if !pending.isEmpty {
            defer { pending.removeAll() }
            return .chunks(pending)
        }
        isDraining = false
        if hasEnded {
            phase = .closed
            return .end
        }
        return .stop
    }

    /// What becomes of a chunk that arrived (see `admit`).
    enum Admission {
        /// Handed on now, by the thread that brought it.
        case handOn
        /// Kept in `pending`, for `openStream` to hand on (on the thread running it).
        case kept
        /// Dropped: the stream is over.
        case dropped
    }

    /// A chunk arrived: whether to hand it on now, keep it, or drop it.
    mutating func admit(_ chunk: Data) -> Admission {
        switch phase {
        case .open where !isDraining:
            return .handOn
        case .judging, .open:
            pending.append(chunk)
            return .kept
        case .none, .closed:
            return .dropped
        }
    }

    /// The transport ended the response.
    mutating func end() -> End {
        switch phase {
        case .none:
            return .notStreamed
        case .closed:
            return .ignore
        case .judging:
            hasEnded = true
            return .ignore
        case .open where isDraining:
            hasEnded = true
            return .ignore
        case .open:
            phase = .closed
            guard let details else { return .ignore }
            return .finish(details)
        }
    }

    /// The attempt's source finished (the stream's end, or an outcome that ends it
    /// early): returns whether a stream was still going, whose connection must close.
    mutating func close() -> Bool {
        let wasGoing = phase == .judging || phase == .open
        phase = .closed
        pending.removeAll()
        return wasGoing
    }
}
