import Foundation
import Rx

/// What the process holds, read from `/proc/self` and Rx's resource count: compared at the
/// start and the end of a run, when nothing is in flight.
struct ResourceSnapshot: CustomStringConvertible {
    /// Live Rx resources (`Resources.total`).
    var rxResources: Int32
    /// Open file descriptors.
    var descriptors: Int
    /// Threads.
    var threads: Int
    /// Files of transfers in progress (Leash's temporary folder) and the soak's own.
    var temporaryFiles: Int

    static func take(soakFolder: URL) -> ResourceSnapshot {
        ResourceSnapshot(
            rxResources: Resources.total, descriptors: count(in: "/proc/self/fd"), threads: threadCount(),
            temporaryFiles: count(
                in: FileManager.default.temporaryDirectory.appendingPathComponent("leash-transfers").path)
                + count(in: soakFolder.path))
    }

    /// Whether `self` (the end) holds no more than `start` did.
    func isBack(to start: ResourceSnapshot) -> Bool {
        rxResources <= start.rxResources && descriptors <= start.descriptors && threads <= start.threads
            && temporaryFiles <= start.temporaryFiles
    }

    var description: String {
        "Rx resources \(rxResources), descriptors \(descriptors), threads \(threads), temporary files \(temporaryFiles)"
    }

    /// What the open descriptors are (sockets, pipes, files…), by kind: what to look at
    /// when they did not come back.
    static func descriptorKinds() -> [String: Int] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        var kinds: [String: Int] = [:]
        for entry in entries {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)")) ?? "?"
            let kind = target.hasPrefix("/") ? "file \(target)" : String(target.prefix { $0 != ":" })
            kinds[kind, default: 0] += 1
        }
        return kinds
    }

    private static func count(in path: String) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: path).count) ?? 0
    }

    private static func threadCount() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("Threads:") {
            return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
    }
}
