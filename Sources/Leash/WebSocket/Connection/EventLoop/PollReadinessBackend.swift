#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif
import Rx

/// Readiness from `poll(2)`, for systems without epoll (on Apple platforms Leash's sockets
/// are Network.framework's, so this is a fallback; Linux's tests run it too).
///
/// Each report is one-shot: a watch is polled only for what it was armed for, and disarmed
/// once reported, so that a socket left readable while its owner reads nothing does not
/// wake the loop again and again. Arming wakes the loop through a pipe, so the next `poll`
/// includes it.
final class PollReadinessBackend: SocketReadinessBackend {
    /// A watched descriptor and what it is armed for.
    private struct Entry {
        /// The descriptor.
        var fd: Int32
        /// What its owner waits for.
        var armed: SocketReadiness
    }

    /// The watches, by number.
    private let entries = LockedState<[UInt64: Entry]>([:])
    /// The pipe that wakes `poll` when a watch is armed: read end, write end.
    private let wake: (read: Int32, write: Int32)

    /// A backend with its wake-up pipe, or nil when the pipe could not be made.
    init?() {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wake = (ends[0], ends[1])
    }

    deinit {
        ByteStreamSocket.close(wake.read)
        ByteStreamSocket.close(wake.write)
    }

    func add(_ fd: Int32, id: UInt64) -> Int32? {
        entries.withLock { $0[id] = Entry(fd: fd, armed: []) }
        return nil
    }

    func arm(_ fd: Int32, id: UInt64, for readiness: SocketReadiness) {
        let changed = entries.withLock { entries -> Bool in
            guard var entry = entries[id], !entry.armed.isSuperset(of: readiness) else { return false }
            entry.armed.formUnion(readiness)
            entries[id] = entry
            return true
        }
        guard changed else { return }
        var byte: UInt8 = 1
        // A full pipe already holds a wake-up; nothing else can fail here that matters.
        _ = write(wake.write, &byte, 1)
    }

    func remove(_ fd: Int32, id: UInt64) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }

    func wait(_ report: (UInt64, SocketReadiness) -> Void) {
        let watched = entries.withLock { entries in
            entries.compactMap { id, entry in entry.armed.isEmpty ? nil : (id, entry.fd, entry.armed) }
        }
        var descriptors = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        for (_, fd, armed) in watched {
            var events: Int16 = 0
            if armed.contains(.readable) { events |= Int16(POLLIN) }
            if armed.contains(.writable) { events |= Int16(POLLOUT) }
            descriptors.append(pollfd(fd: fd, events: events, revents: 0))
        }
        guard poll(&descriptors, nfds_t(descriptors.count), -1) > 0 else { return }
        if descriptors[0].revents != 0 {
            var drain = [UInt8](repeating: 0, count: 64)
            while read(wake.read, &drain, drain.count) > 0 {}
        }
        var fired: [(UInt64, SocketReadiness)] = []
        for (index, (id, _, armed)) in watched.enumerated() {
            let revents = descriptors[index + 1].revents
            guard revents != 0 else { continue }
            // A hang-up, an error or a closed descriptor answer whatever was asked.
            let failed = revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
            var readiness: SocketReadiness = []
            if revents & Int16(POLLIN) != 0 || failed { readiness.insert(.readable) }
            if revents & Int16(POLLOUT) != 0 || failed { readiness.insert(.writable) }
            readiness.formIntersection(armed)
            fired.append((id, readiness))
        }
        guard !fired.isEmpty else { return }
        entries.withLock { entries in
            for (id, readiness) in fired { entries[id]?.armed.subtract(readiness) }
        }
        for (id, readiness) in fired where !readiness.isEmpty { report(id, readiness) }
    }
}
