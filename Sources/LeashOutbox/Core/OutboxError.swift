import Foundation

/// Why an outbox's store could not be opened or written.
///
/// The outbox never resets or rewrites a store it cannot read: the file is left as it was.
public enum OutboxError: Error, CustomStringConvertible, Sendable {
    /// The file is not an outbox: not an SQLite database at all (random bytes, a truncated
    /// or damaged copy), or another application's database. `reason` says which.
    case notAnOutbox(url: URL, reason: String)
    /// The store was written by a newer version of Leash, whose schema this one does not know.
    case newerSchema(url: URL, version: Int, supported: Int)
    /// SQLite failed: the disk is full, the folder is read-only, the file was removed…
    /// `code` is SQLite's extended result code, `message` its explanation.
    case storage(url: URL, operation: String, code: Int32, message: String)
    /// The outbox was closed (or released): it no longer takes or sends items.
    case closed

    /// A sentence a developer can act on.
    public var description: String {
        switch self {
        case .notAnOutbox(let url, let reason):
            return "\(url.path) is not a Leash outbox: \(reason). The file was left as it is."
        case .newerSchema(let url, let version, let supported):
            return "\(url.path) holds outbox schema \(version), newer than the \(supported) this Leash reads; "
                + "it was written by a newer version of the app and was left as it is."
        case .storage(let url, let operation, let code, let message):
            return "Could not \(operation) the outbox at \(url.path): \(message) (SQLite \(code))."
        case .closed:
            return "The outbox is closed."
        }
    }
}
