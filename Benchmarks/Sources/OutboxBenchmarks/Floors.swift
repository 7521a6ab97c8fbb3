import Foundation

#if canImport(SQLite3)
    import SQLite3
#else
    // The root's `CSQLite` module map (libsqlite3), which `LeashOutbox` brings into this
    // build as `LeashInterceptors` brings `LeashDigest` to the loopback server (see
    // Package.swift): no package dependency, and the same library the outbox links.
    import CSQLite
#endif

/// The floor of `outbox.enqueue`: the same row committed by SQLite directly, with the
/// outbox's schema (its first migration, copied, since `OutboxSchema` is internal to the
/// root package: keep the two alike), its pragmas (WAL, `synchronous=FULL`)
/// and its statement (`BEGIN IMMEDIATE`, the `INSERT`, `COMMIT`), the statement prepared
/// once. What the outbox adds on top is its own work: encoding the endpoint, the row's
/// UUIDs, its locks and events.
final class SQLiteFloor {
    private var handle: OpaquePointer?
    private var insert: OpaquePointer?
    private let headers = Data(#"{"Content-Type":"application\/json"}"#.utf8)
    private let body: Data

    /// Creates the database at `path`.
    init(path: String, body: Data) {
        self.body = body
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK else { fail("SQLite floor: cannot open \(path)") }
        execute("PRAGMA journal_mode = WAL")
        execute("PRAGMA synchronous = FULL")
        execute(
            """
            BEGIN IMMEDIATE;
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
            COMMIT;
            """)
        let sql = """
            INSERT INTO outbox_items (id, idempotency_key, lane, method, path, headers, body, attempts,
                counted_attempts, state, not_before, error, enqueued_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, 0, NULL, NULL, ?)
            """
        guard sqlite3_prepare_v2(handle, sql, -1, &insert, nil) == SQLITE_OK else { fail("SQLite floor: \(message)") }
    }

    deinit {
        sqlite3_finalize(insert)
        sqlite3_close_v2(handle)
    }

    /// Commits one row (ids made before the clock starts) and returns the seconds the
    /// commit took: `BEGIN IMMEDIATE`, binding, the insert, `COMMIT`.
    func timedInsert() -> Double {
        let id = UUID().uuidString
        let key = "\"" + UUID().uuidString.lowercased() + "\""
        let start = monotonicSeconds()
        execute("BEGIN IMMEDIATE")
        bind(text: id, at: 1)
        bind(text: key, at: 2)
        bind(text: "default", at: 3)
        bind(text: "POST", at: 4)
        bind(text: "/notes", at: 5)
        bind(blob: headers, at: 6)
        bind(blob: body, at: 7)
        sqlite3_bind_double(insert, 8, Date().timeIntervalSince1970)
        guard sqlite3_step(insert) == SQLITE_DONE else { fail("SQLite floor: \(message)") }
        sqlite3_reset(insert)
        execute("COMMIT")
        return monotonicSeconds() - start
    }

    /// The rows in the table.
    func count() -> Int {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, "SELECT COUNT(*) FROM outbox_items", -1, &statement, nil) == SQLITE_OK,
            sqlite3_step(statement) == SQLITE_ROW
        else { fail("SQLite floor: \(message)") }
        defer { sqlite3_finalize(statement) }
        return Int(sqlite3_column_int64(statement, 0))
    }

    private var message: String { String(cString: sqlite3_errmsg(handle)) }

    private func execute(_ sql: String) {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { fail("SQLite floor: \(sql): \(message)") }
    }

    /// SQLite copies the bytes at once (`SQLITE_TRANSIENT`, a macro Swift does not import).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func bind(text: String, at index: Int32) {
        sqlite3_bind_text(insert, index, text, -1, Self.transient)
    }

    private func bind(blob: Data, at index: Int32) {
        blob.withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(insert, index, bytes.baseAddress, Int32(bytes.count), Self.transient)
        }
    }
}

/// The disk's own floor: appends of `blockSize` bytes to a file, each followed by
/// `fdatasync`, as a WAL commit appends its frames (one 4 KiB page and a 24-byte header
/// per page changed; an insert changes about four: the table, its two indexes and
/// `sqlite_sequence`) and syncs them.
final class DiskFloor {
    static let blockSize = 16 * 1024
    private let descriptor: Int32
    private let block = [UInt8](repeating: 0x5A, count: DiskFloor.blockSize)
    private(set) var appended = 0

    /// Creates the file at `path`.
    init(path: String) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { fail("disk floor: cannot open \(path): errno \(errno)") }
    }

    deinit {
        close(descriptor)
    }

    /// Appends one block and syncs it; the seconds both took.
    func timedAppend() -> Double {
        let start = monotonicSeconds()
        let written = block.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == block.count, Self.sync(descriptor) == 0 else { fail("disk floor: errno \(errno)") }
        let seconds = monotonicSeconds() - start
        appended += 1
        return seconds
    }

    /// `fdatasync` where there is one (SQLite's sync on Linux), else `fsync`.
    private static func sync(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
            return fdatasync(descriptor)
        #else
            return fsync(descriptor)
        #endif
    }
}
