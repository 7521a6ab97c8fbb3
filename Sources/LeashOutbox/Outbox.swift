import Foundation
import Leash
import Rx

/// Writes that survive being offline, killed and retried: each is on disk before `enqueue`
/// returns, and reaches the server with one effect, where the server deduplicates by key.
///
/// ```swift
/// let outbox = try Outbox(client: client, storedAt: documents.appendingPathComponent("outbox.sqlite"))
/// let item = try outbox.enqueue(NotesEndpoint.create(note), lane: "notes")
/// outbox.rx.events
///     .subscribe(onNext: { event in
///         if case .delivered(let item, _) = event { print("saved", item.path) }
///     })
///     .disposed(by: bag)
/// ```
///
/// - **Durable.** `enqueue` encodes the endpoint (with the client's encoding, so an
///   encoding error is thrown at once) and commits it to an SQLite store (WAL,
///   `synchronous=FULL`) before it returns. After a kill at any instant, every item whose
///   `enqueue` returned is in the store; one whose `enqueue` had not returned is whole or
///   absent.
/// - **One effect per key.** Each item carries a key (a UUID), sent in the
///   `Idempotency-Key` header on every attempt. An item leaves the store only once its 2xx
///   has arrived; a lost answer is asked for again with the same key. A server that
///   deduplicates by key applies the write once; one that does not may apply it more than
///   once (delivery is then at least once).
/// - **Order.** The items of a lane are sent one at a time, in enqueue order; lanes are
///   independent, so one stuck on retries holds no other.
/// - **Through the pipeline.** Each send goes through the client as any execution does:
///   the manager's headers, adapters and interceptors, and the credential of the moment,
///   refreshed on a 401. The store keeps the intent only (method, path, body, the
///   endpoint's own headers), never a token.
/// - **Retries** back off on the manager's scheduler, so a `TestScheduler` drives them in
///   virtual time; see `OutboxOptions` for what is retried.
/// - **Restarts.** A new `Outbox` on the same file carries on; an item that was on the wire
///   when the process died is sent again, with its key. Several outboxes (in several
///   processes) may share a file: all enqueue, one delivers (see `DeliveryLock`'s note in
///   the Durable Writes article).
///
/// `Sendable`: one outbox serves every thread of an app. Release it or `close()` it to stop
/// it; its items wait in the file for the next one.
public final class Outbox: Sendable {
    /// The client every item is sent with.
    public let client: Client
    /// The options it was opened with.
    public let options: OutboxOptions
    /// The store's file.
    public let fileURL: URL
    let courier: OutboxCourier

    /// Opens the outbox stored at `fileURL` (creating the file if there is none) and starts
    /// delivering what it holds.
    ///
    /// - Throws: `OutboxError.notAnOutbox` for a file that is not an outbox (another
    ///   database, random bytes, a damaged or truncated copy), `.newerSchema` for one written
    ///   by a newer Leash, `.storage` when SQLite cannot open it (a missing folder, no
    ///   permission). The file is never changed by a failed open. Another process's lock on
    ///   the file is waited out (up to a minute), never an error.
    public init(client: Client, storedAt fileURL: URL, options: OutboxOptions = OutboxOptions()) throws {
        self.client = client
        self.options = options
        self.fileURL = fileURL
        courier = OutboxCourier(client: client, store: try OutboxStore(url: fileURL), options: options)
        courier.start()
    }

    deinit {
        courier.close()
    }

    /// Stops delivering and lets go of the file: sends in flight are cancelled (their items
    /// are sent again, with their keys, by the next outbox on the file), the events
    /// complete, and later calls throw `OutboxError.closed`. Calling it again does nothing.
    public func close() {
        courier.close()
    }

    // MARK: Enqueueing

    /// Stores `endpoint` as an item of `lane` and returns once it is on disk; it is sent
    /// when the items before it in its lane are delivered or failed.
    ///
    /// The endpoint is encoded now: the method, the path with its query, the body (at most
    /// `OutboxOptions.maximumBodySize` bytes; a file or form is read in whole) and the
    /// endpoint's own headers are stored. The manager's headers and the credential are
    /// added at each send.
    ///
    /// - Throws: `LeashError.encoding` or `.invalidURL` for an endpoint that cannot be
    ///   encoded (nothing is stored); `OutboxError.storage` when the store cannot be written
    ///   (a full disk, a read-only file), `OutboxError.closed` after `close()`.
    @discardableResult
    public func enqueue(_ endpoint: Endpoint, lane: String = "default") throws -> OutboxItem {
        guard !courier.isClosed else { throw OutboxError.closed }
        let record = try OutboxIntent.record(
            for: endpoint, lane: lane, client: client, options: options, enqueuedAt: client.manager.scheduler.now)
        return try courier.enqueue(record)
    }

    // MARK: Reading

    /// The items not yet delivered, failed ones included: lane by lane (lanes in the order
    /// of their oldest item), each lane in enqueue order.
    public func items() throws -> [OutboxItem] {
        try courier.store.all().map(\.item)
    }

    /// How many items wait for delivery (failed ones not counted).
    public func pendingCount() throws -> Int {
        try courier.store.pendingCount()
    }

    // MARK: Steering

    /// Removes the item `id` if it was never sent; `true` when it was removed, `false` when
    /// it was sent already (or is being sent, or is gone).
    @discardableResult
    public func cancel(_ id: UUID) throws -> Bool {
        try courier.store.cancel(id)
    }

    /// Sends a failed item again, at its place in its lane, with a fresh count of attempts;
    /// `false` if `id` is not a failed item.
    @discardableResult
    public func retry(_ id: UUID) throws -> Bool {
        let retried = try courier.store.retry(id)
        if retried { courier.pump() }
        return retried
    }

    /// Removes a failed item for good; `false` if `id` is not a failed item.
    @discardableResult
    public func discard(_ id: UUID) throws -> Bool {
        try courier.store.discard(id)
    }

    /// Removes every item, sent or not, failed or not, of `lane` (of every lane when `nil`),
    /// and cancels their sends in flight: on logout, say. Returns how many were removed. A
    /// send already on the wire may still reach the server.
    @discardableResult
    public func purge(lane: String? = nil) throws -> Int {
        let removed = try courier.store.purge(lane: lane)
        courier.abandonSends(in: lane)
        courier.pump()
        return removed
    }

    /// Stops starting sends; enqueueing goes on. Sends in flight finish, and a send that
    /// started before the call goes out: the events come after the sends are on their way,
    /// so when `.delivered` reaches a subscriber, the lane's next item may be on the wire
    /// already, and a `pause()` from that handler stops the one after it.
    public func pause() {
        courier.pause()
    }

    /// Starts sending again after `pause()`.
    public func resume() {
        courier.resume()
    }

    /// Sends the items waiting for a retry now, without waiting out their backoff: call it
    /// when the app is back online or returns to the foreground.
    ///
    /// ```swift
    /// let monitor = NWPathMonitor()
    /// monitor.pathUpdateHandler = { path in
    ///     if path.status == .satisfied { try? outbox.retryNow() }
    /// }
    /// ```
    public func retryNow() throws {
        try courier.retryWaitingNow()
    }
}

extension Outbox: ReactiveCompatible {}
