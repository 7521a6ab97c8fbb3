import Foundation
import Leash
import Rx

/// The outbox's SQLite file: the items, their progress, and the schema they are kept in.
///
/// One connection, serialised by a lock (calls are short: a row or two, one commit). The
/// file is in WAL mode; an `insert` (and every change an app asks for) is committed with
/// `synchronous=FULL`, so that once it returns it survives a kill and a power cut. The
/// bookkeeping of sends is committed with `NORMAL` (see `write`).
final class OutboxStore: Sendable {

    let url: URL
    /// The connection, touched only inside `withLock`.
    private let database: LockedState<SQLiteDatabase?>

    /// Opens the store at `url`, creating it if there is no file; waits out another
    /// process's lock on it rather than fail.
    init(url: URL) throws {
        self.url = url
        let connection: SQLiteDatabase
        do {
            connection = try SQLiteDatabase(path: url.path, create: true)
        } catch let failure as SQLiteDatabase.Failure {
            throw OutboxError.storage(url: url, operation: "open", code: failure.code, message: failure.message)
        }
        try OutboxSchema.prepare(connection, at: url)
        database = LockedState(connection)
    }

    /// Closes the connection; every later call throws `OutboxError.closed`.
    func close() {
        let connection = database.withLock { database -> SQLiteDatabase? in
            defer { database = nil }
            return database
        }
        _ = connection  // released here, outside the lock
    }

    // MARK: Items

    /// Adds `record` at the end of its lane, durably.
    func insert(_ record: OutboxRecord) throws {
        try write("store the item") { db in
            try db.query(
                """
                INSERT INTO outbox_items (id, idempotency_key, lane, method, path, headers, body, attempts,
                    counted_attempts, state, not_before, error, enqueued_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, 0, NULL, NULL, ?)
                """,
                [
                    .text(record.id.uuidString), .text(record.idempotencyKey), .text(record.lane),
                    .text(record.method.rawValue), .text(record.path), .blob(Self.encodeHeaders(record.headers)),
                    record.body.map { .blob($0) } ?? .null, .real(record.enqueuedAt.timeIntervalSince1970),
                ])
        }
    }

    /// The first undelivered, unfailed item of each lane, lanes in the order of their oldest item.
    func laneHeads() throws -> [OutboxRecord] {
        try read("read the lanes") { db in
            try Self.records(
                db,
                "WHERE seq IN (SELECT MIN(seq) FROM outbox_items WHERE state != 3 GROUP BY lane) ORDER BY seq")
        }
    }

    /// Every item not yet delivered, failed ones included: lane by lane (lanes in the order
    /// of their oldest item), each in enqueue order.
    func all() throws -> [OutboxRecord] {
        let inOrder = try read("list the items") { db in try Self.records(db, "ORDER BY seq") }
        // Grouped here, in one pass: lanes in the order of their first (oldest) item.
        var lanes: [String: [OutboxRecord]] = [:]
        var laneOrder: [String] = []
        for record in inOrder {
            if lanes[record.lane] == nil { laneOrder.append(record.lane) }
            lanes[record.lane, default: []].append(record)
        }
        return laneOrder.flatMap { lanes[$0] ?? [] }
    }

    /// How many items wait for delivery (failed ones not counted).
    func pendingCount() throws -> Int {
        try read("count the items") { db in Int(try db.integer("SELECT COUNT(*) FROM outbox_items WHERE state != 3")) }
    }

    /// The first undelivered, unfailed item of `lane`.
    func head(of lane: String) throws -> OutboxRecord? {
        try read("read the lane") { db in try Self.head(of: lane, in: db) }
    }

    /// Marks `id` as being sent, one more attempt; `nil` if it is gone or failed meanwhile.
    func claim(_ id: UUID) throws -> OutboxRecord? {
        try write("mark the item as sending", durable: false) { db in try Self.claim(id, in: db) }
    }

    private static func head(of lane: String, in db: SQLiteDatabase) throws -> OutboxRecord? {
        try records(db, "WHERE lane = ? AND state != 3 ORDER BY seq LIMIT 1", [.text(lane)]).first
    }

    private static func claim(_ id: UUID, in db: SQLiteDatabase) throws -> OutboxRecord? {
        try db.query(
            """
            UPDATE outbox_items SET state = 1, attempts = attempts + 1, counted_attempts = counted_attempts + 1,
                not_before = NULL WHERE id = ? AND state != 3
            """, [.text(id.uuidString)])
        guard db.changes == 1 else { return nil }
        return try records(db, "WHERE id = ?", [.text(id.uuidString)], withBody: true).first
    }

    /// Removes a delivered item and, when `lane` is given, claims that lane's next item in
    /// the same commit if it is due by `now` (one commit per delivered item, not two).
    func remove(_ id: UUID, claimingNextOf lane: String?, now: Date) throws -> OutboxRecord? {
        try write("remove the delivered item", durable: false) { db in
            try db.query("DELETE FROM outbox_items WHERE id = ?", [.text(id.uuidString)])
            guard let lane, let next = try Self.head(of: lane, in: db) else { return nil }
            if next.phase == .waiting, let notBefore = next.notBefore, notBefore > now { return nil }
            return try Self.claim(next.id, in: db)
        }
    }

    /// Records that `id` waits until `date`; a wait for the credential does not count the send.
    func markWaiting(_ id: UUID, until date: Date, countsAttempt: Bool) throws {
        try write("schedule the retry", durable: false) { db in
            try db.query(
                """
                UPDATE outbox_items SET state = 2, not_before = ?,
                    counted_attempts = counted_attempts - ? WHERE id = ? AND state != 3
                """, [.real(date.timeIntervalSince1970), .integer(countsAttempt ? 0 : 1), .text(id.uuidString)])
        }
    }

    /// Moves the end of `id`'s wait to `date`.
    func reschedule(_ id: UUID, until date: Date) throws {
        try write("reschedule the retry", durable: false) { db in
            try db.query(
                "UPDATE outbox_items SET not_before = ? WHERE id = ? AND state = 2",
                [.real(date.timeIntervalSince1970), .text(id.uuidString)])
        }
    }

    /// Records that `id` failed for good, with `error`.
    func markFailed(_ id: UUID, error: LeashError) throws {
        try write("record the failure") { db in
            try db.query(
                "UPDATE outbox_items SET state = 3, not_before = NULL, error = ? WHERE id = ?",
                [.blob(StoredError(error).encoded()), .text(id.uuidString)])
        }
    }

    /// Items left `sending` by a process that ended (or by this one before it reopened):
    /// pending again, their attempt kept.
    func releaseInterruptedSends() throws {
        try write("recover interrupted sends", durable: false) { db in
            try db.query("UPDATE outbox_items SET state = 0 WHERE state = 1")
        }
    }

    /// Makes every waiting item due now (the app is back online: no point waiting more).
    func makeWaitingDue() throws {
        try write("wake the waiting items", durable: false) { db in
            try db.query("UPDATE outbox_items SET state = 0, not_before = NULL WHERE state = 2")
        }
    }

    /// Removes `id` if it was never sent; whether it did.
    func cancel(_ id: UUID) throws -> Bool {
        try write("cancel the item") { db in
            try db.query(
                "DELETE FROM outbox_items WHERE id = ? AND attempts = 0 AND state != 1", [.text(id.uuidString)])
            return db.changes == 1
        }
    }

    /// Makes a failed item pending again, with a fresh count of attempts; whether it was failed.
    func retry(_ id: UUID) throws -> Bool {
        try write("retry the item") { db in
            try db.query(
                "UPDATE outbox_items SET state = 0, error = NULL, counted_attempts = 0 WHERE id = ? AND state = 3",
                [.text(id.uuidString)])
            return db.changes == 1
        }
    }

    /// Removes a failed item; whether it was failed.
    func discard(_ id: UUID) throws -> Bool {
        try write("discard the item") { db in
            try db.query("DELETE FROM outbox_items WHERE id = ? AND state = 3", [.text(id.uuidString)])
            return db.changes == 1
        }
    }

    /// Removes every item (of `lane`, when given); how many.
    func purge(lane: String?) throws -> Int {
        try write("purge the items") { db in
            if let lane {
                try db.query("DELETE FROM outbox_items WHERE lane = ?", [.text(lane)])
            } else {
                try db.query("DELETE FROM outbox_items")
            }
            return db.changes
        }
    }

    /// A number that changes whenever another connection commits to the file.
    func dataVersion() throws -> Int64 {
        try read("watch the store") { db in try db.integer("PRAGMA data_version") }
    }

    /// Caps the file at its current size (or `pages` pages, if larger), as a full disk
    /// would: for tests of what a full disk does.
    func limitSizeForTesting(pages: Int) throws {
        try read("limit the size") { db in try db.query("PRAGMA max_page_count = \(pages)") { _ in } }
    }

    // MARK: Plumbing

    private func read<Result>(_ operation: String, _ body: (SQLiteDatabase) throws -> Result) throws -> Result {
        try access(operation) { db in try body(db) }
    }

    /// Runs `body` in one write transaction. A `durable` commit is on disk when it returns
    /// (`synchronous=FULL`: the WAL is synced); the others (`NORMAL`), the bookkeeping of
    /// sends, survive a killed process and reach the disk with the next durable commit or
    /// checkpoint. A power cut can lose such a commit: an item then goes out once more with
    /// its key, or counts one attempt fewer. Syncing them too halved the delivery rate.
    private func write<Result>(
        _ operation: String, durable: Bool = true, _ body: (SQLiteDatabase) throws -> Result
    ) throws -> Result {
        try access(operation) { db in
            try db.setSynchronous(durable ? .full : .normal)
            return try db.writeTransaction { try body(db) }
        }
    }

    private func access<Result>(_ operation: String, _ body: (SQLiteDatabase) throws -> Result) throws -> Result {
        try database.withLock { database in
            guard let database else { throw OutboxError.closed }
            do {
                return try body(database)
            } catch let failure as SQLiteDatabase.Failure {
                throw OutboxError.storage(url: url, operation: operation, code: failure.code, message: failure.message)
            }
        }
    }

    /// The columns of a record; the body only where it is sent (`claim`): lists and lane heads
    /// leave it out, so that they cost no memory for it however many items wait.
    private static func columns(withBody: Bool) -> String {
        """
        SELECT id, idempotency_key, lane, method, path, headers, \(withBody ? "body" : "NULL"), attempts,
            counted_attempts, state, not_before, error, enqueued_at FROM outbox_items
        """
    }

    private static func records(
        _ db: SQLiteDatabase, _ clause: String, _ bindings: [SQLiteValue] = [], withBody: Bool = false
    ) throws -> [OutboxRecord] {
        var records: [OutboxRecord] = []
        try db.query(columns(withBody: withBody) + " " + clause, bindings) { row in
            // A row this code did not write (edited by hand, damaged) is skipped, not a crash.
            guard let id = UUID(uuidString: row.text(0)) else { return }
            records.append(
                OutboxRecord(
                    id: id, idempotencyKey: row.text(1), lane: row.text(2), method: HTTPMethod(rawValue: row.text(3)),
                    path: row.text(4), headers: decodeHeaders(row.blob(5)), body: row.isNull(6) ? nil : row.blob(6),
                    enqueuedAt: Date(timeIntervalSince1970: row.real(12)), attempts: Int(row.integer(7)),
                    countedAttempts: Int(row.integer(8)),
                    phase: OutboxRecord.Phase(rawValue: row.integer(9)) ?? .pending,
                    notBefore: row.isNull(10) ? nil : Date(timeIntervalSince1970: row.real(10)),
                    error: row.isNull(11) ? nil : StoredError.decode(row.blob(11))))
        }
        return records
    }

    /// The headers as the lines of an HTTP head, `Name: value` each, in name order: read
    /// back at every send, where a JSON decoder cost a tenth of the outbox's own time per
    /// item. A field cannot hold a line break (`OutboxIntent` refuses one).
    private static func encodeHeaders(_ headers: [String: String]) -> Data {
        Data(headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\n" }.joined().utf8)
    }

    private static func decodeHeaders(_ data: Data) -> [String: String] {
        var headers: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...]
            headers[String(line[..<colon])] = String(value.hasPrefix(" ") ? value.dropFirst() : value)
        }
        return headers
    }
}
