import Foundation
import Rx

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which outbox on a store delivers: an exclusive `flock` on a file beside the store
/// (`<store>-delivery.lock`).
///
/// Any number of outboxes, in any number of processes (an app and its extension), may
/// enqueue into one store; only the holder of this lock sends, so no key is ever on the
/// wire from two of them at once. The kernel releases the lock when its holder's process
/// dies, however it dies, so another outbox takes over without waiting for a lease to
/// expire. A lock file, not a row in the database: a row cannot tell a dead holder from a
/// slow one.
///
/// The lock is held while the outbox is open: on iOS, a suspended app that holds a file
/// lock in an App Group container is terminated (`0xdead10cc`), so an app whose store is
/// there closes its outbox when it goes to the background (the Durable Writes article).
final class DeliveryLock: Sendable {
    let url: URL
    private let descriptor: Int32
    private let held = LockedState(false)

    /// Opens (creating it if needed) the lock file beside `storeURL`; `nil` if it cannot be
    /// opened, and then this outbox never delivers (it still enqueues).
    init?(beside storeURL: URL) {
        url = URL(fileURLWithPath: storeURL.path + "-delivery.lock")
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)  // releases the lock too
    }

    /// Whether this outbox holds the lock.
    var isHeld: Bool { held.withLock { $0 } }

    /// Takes the lock if nobody holds it; whether this outbox holds it now.
    func tryAcquire() -> Bool {
        held.withLock { isHeld in
            if !isHeld { isHeld = flock(descriptor, LOCK_EX | LOCK_NB) == 0 }
            return isHeld
        }
    }

    /// Lets the lock go, for another outbox to take.
    func release() {
        held.withLock { isHeld in
            if isHeld { _ = flock(descriptor, LOCK_UN) }
            isHeld = false
        }
    }
}
