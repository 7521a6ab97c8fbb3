#if os(Linux) || os(Android)
    import CLeashEpoll
    import Foundation

    /// Readiness from Linux's epoll, edge-triggered: each socket is registered once, for
    /// reading and writing together, and never re-armed. The kernel reports every new
    /// arrival of bytes or of room to write, so `arm` has nothing to do, and no system call
    /// is made per wait (Dispatch's level-triggered sources re-armed their registration each
    /// time a source was resumed or suspended: about a tenth of the CPU with 64 requests in
    /// flight).
    final class EpollReadinessBackend: SocketReadinessBackend {
        /// How many reports one wait takes at most.
        private static let batch = 64

        /// The epoll instance; lives as long as the backend (for the shared loop, the process).
        private let epollFD: Int32

        /// A new epoll instance, or nil when none could be made (out of descriptors).
        init?() {
            let fd = leash_epoll_create()
            guard fd >= 0 else { return nil }
            epollFD = fd
        }

        deinit {
            ByteStreamSocket.close(epollFD)
        }

        func add(_ fd: Int32, id: UInt64) -> Int32? {
            // Registering a socket that is already ready reports it at once.
            leash_epoll_add(epollFD, fd, id) == 0 ? nil : errno
        }

        func arm(_ fd: Int32, id: UInt64, for readiness: SocketReadiness) {}

        func remove(_ fd: Int32, id: UInt64) {
            // A failure means the descriptor is no longer registered: nothing left to undo.
            _ = leash_epoll_remove(epollFD, fd)
        }

        func wait(_ report: (UInt64, SocketReadiness) -> Void) {
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: Self.batch) { ids in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.batch) { readiness in
                    // A signal (EINTR) returns -1: the loop simply waits again.
                    let count = leash_epoll_wait(epollFD, ids.baseAddress, readiness.baseAddress, Int32(Self.batch))
                    for index in 0..<max(0, Int(count)) {
                        // LEASH_EPOLL_READABLE and _WRITABLE are `SocketReadiness`'s own bits.
                        report(ids[index], SocketReadiness(rawValue: readiness[index]))
                    }
                }
            }
        }
    }
#endif
