import Dispatch
import Foundation
import Rx

/// How an `HTTP1Exchange` paces a stream by its subscriber (see `SlowSubscriberPolicy`).
///
/// A chunk handed on in place is taken by the time the hand-off returns: the next read
/// waits for it, so a subscriber merely slower than the network holds the connection to its
/// own pace with nothing piling up. The pipeline may keep chunks instead (a success
/// interceptor still judging the head, or chunks before it still being handed on from that
/// interceptor's thread): those are counted here, and past the policy's `bufferLimit` the
/// next read waits until the subscriber is down to half of it. TCP then tells the server to
/// wait. A subscriber that takes nothing for the policy's `longestHold` ends the stream
/// with `LeashError.streamOverflow`.
final class HTTP1StreamPacer: StreamPacing, Sendable {
    private struct State {
        var kept = 0
        /// Resumes reading, while reading waits for the subscriber.
        var resume: (@Sendable () -> Void)?
        /// Chunks handed on so far: a hold lasts while this does not move.
        var handedOn = 0
        var isClosed = false
        /// Told the bytes waiting when the subscriber took nothing for the longest hold.
        var stuck: (@Sendable (Int) -> Void)?
    }

    private let policy: SlowSubscriberPolicy
    private let state = LockedState(State())

    init(policy: SlowSubscriberPolicy) {
        self.policy = policy
    }

    /// Sets what is told the bytes waiting when the subscriber took nothing for the longest
    /// hold (it must end the stream).
    func whenStuck(_ handler: @escaping @Sendable (Int) -> Void) {
        state.withLock { $0.stuck = handler }
    }

    func kept(_ bytes: Int) {
        state.withLock { $0.kept += bytes }
    }

    func handedOn(_ bytes: Int) {
        let resume = state.withLock { state -> (@Sendable () -> Void)? in
            state.kept -= bytes
            state.handedOn += 1
            guard state.kept <= policy.bufferLimit / 2, let resume = state.resume else { return nil }
            state.resume = nil
            return resume
        }
        resume?()
    }

    /// Whether reading must wait for the subscriber; if so, `resume` runs once it may go on.
    func holdsBack(resume: @escaping @Sendable () -> Void) -> Bool {
        let (holds, seen, waiting) = state.withLock { state -> (Bool, Int, Int) in
            guard !state.isClosed, state.kept > policy.bufferLimit else { return (false, 0, 0) }
            state.resume = resume
            return (true, state.handedOn, state.kept)
        }
        if holds, let longest = policy.longestHold { checkHold(after: longest, seen: seen, waiting: waiting) }
        return holds
    }

    /// Ends the stream if the subscriber took nothing since `seen` within `delay`.
    private func checkHold(after delay: TimeInterval, seen: Int, waiting: Int) {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            let stuck = state.withLock { state -> (Int, (@Sendable (Int) -> Void)?)? in
                guard !state.isClosed, state.resume != nil, state.handedOn == seen else { return nil }
                state.isClosed = true
                state.resume = nil
                return (state.kept, state.stuck)
            }
            if let (waiting, handler) = stuck { handler?(waiting) }
        }
    }

    /// The stream ended: nothing waits any more.
    func close() {
        state.withLock {
            $0.isClosed = true
            $0.resume = nil
            $0.stuck = nil
        }
    }
}
