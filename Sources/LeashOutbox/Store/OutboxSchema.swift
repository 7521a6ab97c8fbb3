import Foundation

/// The store's schema: how a file is recognised as an outbox, created, and brought up to date.
///
/// A file is an outbox when SQLite's header carries `applicationID` (`PRAGMA application_id`,
/// a field SQLite keeps for exactly this). Its schema version is `PRAGMA user_version`;
/// `migrations[n]` takes a file from version n to n + 1, so a file of any earlier version
/// is brought up to `version` step by step, in one transaction.
enum OutboxSchema {
    /// "LSOB": Leash's outbox, in the database header.
    static let applicationID: Int64 = 0x4C53_4F42

    /// The schema this code writes.
    static var version: Int { migrations.count }

    /// Each step's SQL; never edit one that shipped, add a step.
    static let migrations: [String] = [
        // 0 → 1: the items.
        """
        CREATE TABLE outbox_items (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            idempotency_key TEXT NOT NULL,
            lane TEXT NOT NULL,
            method TEXT NOT NULL,
            path TEXT NOT NULL,
            headers BLOB NOT NULL,
            body BLOB,
            attempts INTEGER NOT NULL,
            counted_attempts INTEGER NOT NULL,
            state INTEGER NOT NULL,
            not_before REAL,
            error BLOB,
            enqueued_at REAL NOT NULL
        );
        CREATE INDEX outbox_items_undelivered ON outbox_items (lane, seq) WHERE state != 3;
        """
    ]

    /// How long opening waits, in all, for other connections' locks (each SQLite call also
    /// waits up to `busyTimeoutMilliseconds` by itself).
    static let openPatience: TimeInterval = 60
    /// How long one SQLite call waits for another connection's lock.
    static let busyTimeoutMilliseconds: Int32 = 5_000

    /// Checks that `db` is an outbox of a version this code reads (or an empty file, which
    /// becomes one), migrates it, and sets the journal and sync modes.
    static func prepare(_ db: SQLiteDatabase, at url: URL) throws {
        db.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
        let deadline = Date().addingTimeInterval(openPatience)
        while true {
            do {
                try prepareOnce(db, at: url)
                return
            } catch let failure as SQLiteDatabase.Failure where failure.isBusy && Date() < deadline {
                // Another process is creating, migrating or checkpointing the file: wait it out.
                Thread.sleep(forTimeInterval: 0.05)
            } catch let failure as SQLiteDatabase.Failure where failure.isNotADatabase {
                throw OutboxError.notAnOutbox(
                    url: url, reason: "it is not an SQLite database, or it is damaged or truncated (\(failure.message))"
                )
            } catch let failure as SQLiteDatabase.Failure {
                throw OutboxError.storage(url: url, operation: "open", code: failure.code, message: failure.message)
            }
        }
    }

    private static func prepareOnce(_ db: SQLiteDatabase, at url: URL) throws {
        if try check(db, at: url) < version {
            try db.writeTransaction {
                // Checked again inside the write lock: another process may have just done it.
                for step in try check(db, at: url)..<version {
                    try db.execute(migrations[step])
                }
                try db.execute("PRAGMA application_id = \(applicationID)")
                try db.execute("PRAGMA user_version = \(version)")
            }
        }
        // WAL: readers and the writer do not block each other, and a commit is one append.
        try db.query("PRAGMA journal_mode = WAL") { _ in }
        try db.setSynchronous(.full)
        // Reads every page of the items table: a truncated or damaged copy fails here, at
        // open, with a clear error, not on some later send.
        _ = try db.integer("SELECT COUNT(*) FROM outbox_items")
    }

    /// The schema version of `db` (0 for an empty file); throws unless it is an empty file or
    /// an outbox this code can read.
    private static func check(_ db: SQLiteDatabase, at url: URL) throws -> Int {
        let application = try db.integer("PRAGMA application_id")
        let fileVersion = Int(try db.integer("PRAGMA user_version"))
        if application == 0 && fileVersion == 0 {
            let objects = try db.integer("SELECT COUNT(*) FROM sqlite_master")
            guard objects == 0 else {
                throw OutboxError.notAnOutbox(
                    url: url, reason: "it is another SQLite database (it has \(objects) tables and indexes of its own)")
            }
            return 0
        }
        guard application == applicationID else {
            throw OutboxError.notAnOutbox(
                url: url, reason: "it is another application's SQLite database (application id \(application))")
        }
        if fileVersion > version {
            throw OutboxError.newerSchema(url: url, version: fileVersion, supported: version)
        }
        return fileVersion
    }
}
