import Foundation

#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// One SQLite connection, as thin as the outbox needs: statements, bindings, rows and
/// transactions. Not thread-safe by itself: `OutboxStore` holds it behind its lock.
final class SQLiteDatabase {
    /// A failed SQLite call: the (extended) result code and SQLite's message.
    struct Failure: Error, CustomStringConvertible {
        let code: Int32
        let message: String

        /// The primary result code (`SQLITE_BUSY` for `SQLITE_BUSY_SNAPSHOT`, say).
        var primaryCode: Int32 { code & 0xFF }
        /// Another connection holds a lock that this call needed.
        var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }
        /// The file is not an SQLite database, or is damaged or truncated.
        var isNotADatabase: Bool { primaryCode == SQLITE_NOTADB || primaryCode == SQLITE_CORRUPT }

        var description: String { "SQLite error \(code): \(message)" }
    }

    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]

    /// Opens (and creates, when `create`) the database at `path`.
    init(path: String, create: Bool) throws {
        var connection: OpaquePointer?
        // NOMUTEX: the store serialises every call itself. No shared cache: each connection
        // locks the file for itself, which is how two processes on one store see each other.
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE
        if create { flags |= SQLITE_OPEN_CREATE }
        let result = sqlite3_open_v2(path, &connection, flags, nil)
        guard result == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let connection { sqlite3_close_v2(connection) }
            throw Failure(code: result, message: message)
        }
        handle = connection
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// How a commit reaches the disk (`PRAGMA synchronous`, in WAL mode).
    enum Synchronous: String {
        /// The WAL is synced at every commit: a commit survives a power cut.
        case full = "FULL"
        /// The WAL is synced at checkpoints only: a commit survives a killed process.
        case normal = "NORMAL"
    }

    private var synchronous: Synchronous?

    /// Sets how the next commits reach the disk (a change between transactions is allowed,
    /// and costs no I/O).
    func setSynchronous(_ level: Synchronous) throws {
        guard level != synchronous else { return }
        try execute("PRAGMA synchronous = \(level.rawValue)")
        synchronous = level
    }

    /// How long a call waits for another connection's lock before it fails with `SQLITE_BUSY`.
    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Runs `sql`, which may hold several statements and returns no rows worth reading.
    func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &error)
        if result != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(error)
            throw Failure(code: sqlite3_extended_errcode(handle), message: message)
        }
    }

    /// Runs `sql` with `bindings`, calling `row` for each result row; the statement is
    /// prepared once per connection and kept.
    func query(_ sql: String, _ bindings: [SQLiteValue] = [], row: ((SQLiteRow) throws -> Void)? = nil) throws {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (index, value) in bindings.enumerated() {
            try check(value.bind(to: statement, at: Int32(index + 1)))
        }
        while true {
            let result = sqlite3_step(statement)
            if result == SQLITE_DONE { return }
            guard result == SQLITE_ROW else { throw failure(result) }
            try row?(SQLiteRow(statement: statement))
        }
    }

    /// The first column of the first row of `sql`, as an integer (0 without a row).
    func integer(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> Int64 {
        var value: Int64 = 0
        try query(sql, bindings) { value = $0.integer(0) }
        return value
    }

    /// Rows changed by the last insert, update or delete.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`, so a busy file is met at the
    /// start, where waiting is safe), committed if `body` returns, rolled back if it throws.
    func writeTransaction<Result>(_ body: () throws -> Result) throws -> Result {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard result == SQLITE_OK, let statement else { throw failure(result) }
        statements[sql] = statement
        return statement
    }

    private func check(_ result: Int32) throws {
        if result != SQLITE_OK { throw failure(result) }
    }

    private func failure(_ result: Int32) -> Failure {
        Failure(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
    }
}

/// A value bound to a statement's parameter.
enum SQLiteValue {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    case null

    /// SQLite copies the bytes at once (`SQLITE_TRANSIENT`, a macro Swift does not import).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    fileprivate func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch self {
        case .integer(let value): return sqlite3_bind_int64(statement, index, value)
        case .real(let value): return sqlite3_bind_double(statement, index, value)
        case .text(let value): return sqlite3_bind_text(statement, index, value, -1, Self.transient)
        case .blob(let value):
            return value.withUnsafeBytes { bytes in
                // A zero-length blob with a nil pointer would bind NULL: bind an empty one.
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_zeroblob(statement, index, 0)
                }
                return sqlite3_bind_blob(statement, index, base, Int32(bytes.count), Self.transient)
            }
        case .null: return sqlite3_bind_null(statement, index)
        }
    }
}

/// The current row of a statement, read by column index.
struct SQLiteRow {
    fileprivate let statement: OpaquePointer

    func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    func real(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }

    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, column) else { return "" }
        return String(cString: bytes)
    }

    func blob(_ column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }
}
