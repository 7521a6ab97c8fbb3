import Dispatch
import Foundation
import Leash
import Rx

/// Sends an outbox's items: one at a time per lane, in enqueue order, through the client's
/// whole pipeline, and decides after each send what becomes of the item.
///
/// It owns everything an outbox holds besides its public face: the store, the delivery
/// lock, the sends in flight, the retry timers (on the manager's scheduler, so a
/// `TestScheduler` drives them) and the events. `Outbox` closes it when closed or released;
/// nothing here holds the `Outbox` itself.
///
/// Every step is decided under `state`'s lock and carried out after it. `pump()` is the one
/// place that starts sends: any thread may ask for it (an enqueue, a finished send, a
/// timer, the store watcher), and one thread at a time runs it, again while asked.
final class OutboxCourier: Sendable {
    /// A busy lane: a send in flight, or a retry timer (`timer` set). `token` tells this turn
    /// of the lane from later ones, so that a late outcome or timer of an abandoned turn
    /// changes nothing.
    private struct Lane {
        var token: Int
        var subscription: Disposable? = nil
        var timer: Disposable? = nil

        /// Cancels the turn's send or timer.
        func cancel() {
            subscription?.dispose()
            timer?.dispose()
        }
    }

    private struct State {
        var isClosed = false
        var isPaused = false
        /// Lanes with a send in flight or a retry timer; other lanes are idle.
        var busyLanes: [String: Lane] = [:]
        var isPumping = false
        /// What the next round of `pump` looks at: every lane, or these.
        var pumpsEveryLane = false
        var lanesToPump: Set<String> = []
        var nextToken = 0
        var watcher: DispatchSourceTimer?
        /// The store's data version when a pump last read the lanes.
        var watchedVersion: Int64?
    }

    let client: Client
    let options: OutboxOptions
    let store: OutboxStore
    let eventLine = EventLine()
    private let deliveryLock: DeliveryLock?
    private let state = LockedState(State())
    /// Makes a change to the store and the event that tells it one step, so that events
    /// come in the order of the changes whichever threads make them. It counts the changes:
    /// a lock over an empty value made ThreadSanitizer see a race on the lock's own memory.
    private let ordering = LockedState(0)

    init(client: Client, store: OutboxStore, options: OutboxOptions) {
        self.client = client
        self.store = store
        self.options = options
        deliveryLock = DeliveryLock(beside: store.url)
    }

    private var scheduler: SchedulerType { client.manager.scheduler }

    // MARK: Life

    /// Starts delivering (if no other outbox on the store is) and watching the store.
    func start() {
        startWatching()
        pump()
    }

    /// Stops every send and timer, lets go of the delivery lock and the store, and
    /// completes the events. Sends in flight are cancelled; their items stay in the store
    /// and are sent again (with their key) by the next outbox on it.
    func close() {
        let (lanes, watcher) = state.withLock { state -> ([Lane], DispatchSourceTimer?) in
            guard !state.isClosed else { return ([], nil) }
            state.isClosed = true
            defer {
                state.busyLanes = [:]
                state.watcher = nil
            }
            return (Array(state.busyLanes.values), state.watcher)
        }
        watcher?.cancel()
        for lane in lanes { lane.cancel() }
        ordering.withLock { _ in store.close() }
        deliveryLock?.release()
        eventLine.finish()
    }

    var isClosed: Bool { state.withLock { $0.isClosed } }

    func pause() { state.withLock { $0.isPaused = true } }

    func resume() {
        state.withLock { $0.isPaused = false }
        pump()
    }

    // MARK: Changes from the public face

    /// Stores `record`, tells `.enqueued`, and has it sent when its lane is free.
    func enqueue(_ record: OutboxRecord) throws -> OutboxItem {
        try ordering.withLock { changes in
            changes += 1
            try store.insert(record)
            eventLine.submit(.enqueued(record.item))
        }
        pump(lane: record.lane)
        return record.item
    }

    /// Cancels the waits of every waiting item, and sends them now.
    func retryWaitingNow() throws {
        try store.makeWaitingDue()
        let timers = state.withLock { state -> [Disposable] in
            var timers: [Disposable] = []
            for (name, lane) in state.busyLanes {
                guard let timer = lane.timer else { continue }
                timers.append(timer)
                state.busyLanes[name] = nil
            }
            return timers
        }
        for timer in timers { timer.dispose() }
        pump()
    }

    /// Cancels the sends in flight of `lane` (every lane when `nil`), after a purge.
    func abandonSends(in lane: String?) {
        let abandoned = state.withLock { state -> [Lane] in
            let names = lane.map { [$0] } ?? Array(state.busyLanes.keys)
            return names.compactMap { state.busyLanes.removeValue(forKey: $0) }
        }
        for lane in abandoned { lane.cancel() }
    }

    // MARK: Pumping

    /// Starts a send (or a retry timer) in every idle lane with an item to deliver (in
    /// `lane` alone, when given), then delivers the events queued meanwhile.
    ///
    /// One thread pumps at a time; a thread that asks while another pumps leaves its
    /// request (the lane, or every lane) to that thread, which goes round again for it.
    /// The events go last, after every send is on its way: a subscriber runs on the thread
    /// that delivers, and a slow one must hold back no send (nor the other threads' pumps).
    func pump(lane: String? = nil) {
        defer { eventLine.drain() }
        let shouldRun = state.withLock { state -> Bool in
            if let lane { state.lanesToPump.insert(lane) } else { state.pumpsEveryLane = true }
            if state.isPumping { return false }
            state.isPumping = true
            return true
        }
        guard shouldRun else { return }
        while true {
            let request = state.withLock { state -> (everyLane: Bool, lanes: Set<String>)? in
                guard state.pumpsEveryLane || !state.lanesToPump.isEmpty else {
                    state.isPumping = false
                    return nil
                }
                defer {
                    state.pumpsEveryLane = false
                    state.lanesToPump = []
                }
                return (state.pumpsEveryLane, state.lanesToPump)
            }
            guard let request else { return }
            pumpOnce(everyLane: request.everyLane, lanes: request.lanes)
        }
    }

    private func pumpOnce(everyLane: Bool, lanes: Set<String>) {
        guard state.withLock({ !$0.isClosed && !$0.isPaused }), let newlyHeld = acquireDelivery() else { return }
        let heads: [OutboxRecord]
        if everyLane || newlyHeld {
            // Read before the heads: a commit of another process after this moves the
            // version, and the watcher pumps again for it.
            let version = try? store.dataVersion()
            state.withLock { $0.watchedVersion = version }
            heads = (try? store.laneHeads()) ?? []
        } else {
            let idle = state.withLock { state in lanes.filter { state.busyLanes[$0] == nil } }
            heads = idle.sorted().compactMap { try? store.head(of: $0) }
        }
        for head in heads {
            guard let token = occupy(head.lane) else { continue }
            let now = scheduler.now
            if head.phase == .waiting, var notBefore = head.notBefore, notBefore > now {
                // Never longer than the longest wait: a clock set back since the item was
                // stored must not hold it for the difference.
                let latest = now.addingTimeInterval(max(0, options.maximumRetryDelay))
                if notBefore > latest, (try? store.reschedule(head.id, until: latest)) != nil { notBefore = latest }
                wait(lane: head.lane, token: token, until: notBefore)
            } else {
                claimAndSend(head, token: token)
            }
        }
    }

    /// Makes `lane` busy with a new turn, unless it is busy, or the outbox stopped.
    private func occupy(_ lane: String) -> Int? {
        state.withLock { state -> Int? in
            guard !state.isClosed, !state.isPaused, state.busyLanes[lane] == nil else { return nil }
            state.nextToken += 1
            state.busyLanes[lane] = Lane(token: state.nextToken)
            return state.nextToken
        }
    }

    /// Whether this outbox delivers, and whether it just started to: it holds the store's
    /// delivery lock, or just took it (and then sends left `sending` by the previous holder
    /// are due again, in every lane); `nil` while another outbox holds it.
    private func acquireDelivery() -> Bool? {
        guard let deliveryLock else { return nil }
        if deliveryLock.isHeld { return false }
        guard deliveryLock.tryAcquire() else { return nil }
        do {
            try store.releaseInterruptedSends()
            return true
        } catch {
            deliveryLock.release()
            return nil
        }
    }

    private func wait(lane: String, token: Int, until date: Date) {
        let delay = date.timeIntervalSince(scheduler.now)
        let timer = scheduler.scheduleRelative((), dueTime: RxTimeInterval.fromSeconds(delay)) { [weak self] _ in
            self?.timerFired(lane: lane, token: token)
            return Disposables.create()
        }
        // Fired already (a zero delay on an immediate scheduler), or abandoned: nothing to keep.
        let stale = state.withLock { state -> Bool in
            guard state.busyLanes[lane]?.token == token else { return true }
            state.busyLanes[lane] = Lane(token: token, timer: timer)
            return false
        }
        if stale { timer.dispose() }
    }

    private func timerFired(lane: String, token: Int) {
        freeLane(lane, token: token)
        pump(lane: lane)
    }

    /// Ends the lane's turn `token`, unless it ended already.
    private func freeLane(_ lane: String, token: Int) {
        state.withLock { state in
            if state.busyLanes[lane]?.token == token { state.busyLanes[lane] = nil }
        }
    }

    // MARK: Sending

    private func claimAndSend(_ head: OutboxRecord, token: Int) {
        let claimed = try? ordering.withLock { changes -> OutboxRecord? in
            changes += 1
            guard let record = try store.claim(head.id) else { return nil }
            eventLine.submit(.sending(record.item))
            return record
        }
        guard let record = claimed ?? nil else {
            // Gone meanwhile (cancelled, purged) or the store failed: free the lane, look again.
            freeLane(head.lane, token: token)
            state.withLock { _ = $0.lanesToPump.insert(head.lane) }
            return
        }
        send(record, token: token)
    }

    /// Sends `record`, claimed already, as the lane's turn `token`.
    private func send(_ record: OutboxRecord, token: Int) {
        let endpoint = StoredEndpoint(record, keyHeader: options.idempotencyKeyHeader)
        let subscription = client.responseStream(endpoint, serializer: DataResponseSerializer()).subscribe(
            onNext: { [self] response in
                switch response {
                case .success(_, let extra): finish(record, token: token, outcome: .success(.of(extra)))
                case .failure(let error): finish(record, token: token, outcome: .failure(Self.leashError(error)))
                }
            },
            onError: { [self] error in finish(record, token: token, outcome: .failure(Self.leashError(error))) },
            onCompleted: { [self] in
                finish(
                    record, token: token,
                    outcome: .failure(.invalidResponse(reason: "the execution ended without a response")))
            })
        let finished = state.withLock { state -> Bool in
            guard state.busyLanes[record.lane]?.token == token else { return true }
            state.busyLanes[record.lane]?.subscription = subscription
            return false
        }
        if finished { subscription.dispose() }
    }

    private static func leashError(_ error: Error) -> LeashError {
        error as? LeashError ?? .invalidResponse(reason: "the pipeline failed: \(error)")
    }

    /// Records what became of `record`'s send, tells it, and frees its lane; after a
    /// delivery, claims the lane's next item in the same commit and sends it at once.
    private func finish(_ record: OutboxRecord, token: Int, outcome: Result<ResponseExtra, LeashError>) {
        let lane = record.lane
        // The lane stays busy until the store has the outcome: freed earlier, another pump
        // could send the item again meanwhile. After a delivery it moves on to its next turn
        // now, before the store changes, so that a purge or a close meanwhile finds that
        // turn and ends it.
        let next = state.withLock { state -> (current: Bool, nextToken: Int?) in
            guard state.busyLanes[lane]?.token == token, !state.isClosed else { return (false, nil) }
            guard case .success = outcome, !state.isPaused else { return (true, nil) }
            state.nextToken += 1
            state.busyLanes[lane] = Lane(token: state.nextToken)
            return (true, state.nextToken)
        }
        guard next.current else { return }
        let now = scheduler.now
        let following = try? ordering.withLock { changes -> OutboxRecord? in
            changes += 1
            switch outcome {
            case .success(let extra):
                let following = try store.remove(
                    record.id, claimingNextOf: next.nextToken == nil ? nil : lane, now: now)
                eventLine.submit(.delivered(record.item, extra))
                if let following { eventLine.submit(.sending(following.item)) }
                return following
            case .failure(let error):
                switch RetryVerdict.of(error, record: record, options: options, now: now) {
                case .retry(let delay, let countsAttempt):
                    let until = now.addingTimeInterval(delay)
                    try store.markWaiting(record.id, until: until, countsAttempt: countsAttempt)
                    eventLine.submit(
                        .retrying(record.moved(to: .waiting, notBefore: until).item, after: delay, error: error))
                case .fail(let failure):
                    try store.markFailed(record.id, error: failure)
                    eventLine.submit(.failed(record.moved(to: .failed, error: failure).item, failure))
                }
                return nil
            }
        }
        if let following = following ?? nil, let nextToken = next.nextToken {
            send(following, token: nextToken)
            eventLine.drain()
        } else {
            freeLane(lane, token: next.nextToken ?? token)
            pump(lane: lane)
        }
    }

    // MARK: Watching the store

    /// Looks at the store every `storeWatchInterval` seconds, in real time: for items that
    /// another process added (the data version moves), and for the delivery lock, when
    /// another outbox holds it, to take over once its holder is gone.
    private func startWatching() {
        let interval = options.storeWatchInterval
        guard interval.isFinite, interval > 0 else { return }
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.watch() }
        let stale = state.withLock { state -> Bool in
            guard !state.isClosed else { return true }
            state.watcher = timer
            return false
        }
        if !stale { timer.resume() }
    }

    private func watch() {
        guard deliveryLock?.isHeld == true else {
            pump()
            return
        }
        guard let version = try? store.dataVersion() else { return }
        if state.withLock({ $0.watchedVersion != version }) { pump() }
    }
}
