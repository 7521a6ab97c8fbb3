// The child process of the outbox's crash test (`OutboxCrashTests`): opens an outbox on a
// store, enqueues a range of items, and delivers them to a server that deduplicates by key,
// until the test kills it (SIGKILL, at a moment of its choosing) or everything is delivered.
//
//     outbox-crash-child --store PATH --base-url URL --first N --count M --lanes L [--no-keys]
//
// It prints `committed N` (flushed at once) after `enqueue` of item N returned, so that the
// test knows which items must have exactly one effect, and `drained` once nothing is left
// to deliver. `--count 0` only delivers what the store holds. Exit status 0: drained; 2: bad
// arguments or an outbox that would not open.

import Foundation
import Leash
import LeashOutbox

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `POST /idempotent/items` with the item's number and lane; the same bytes on every attempt.
struct CrashItem: Endpoint {
    let number: Int
    let lane: String
    var path: String { "/idempotent/items" }
    var method: HTTPMethod { .post }
    var parameters: Any? { ["number": number, "lane": lane] }
}

func argument(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

/// Writes `line` at once (no buffer to lose when the process is killed).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

guard let store = argument("--store"), let baseURL = argument("--base-url"),
    let first = argument("--first").flatMap(Int.init), let count = argument("--count").flatMap(Int.init),
    let lanes = argument("--lanes").flatMap(Int.init), lanes > 0
else {
    say("usage: outbox-crash-child --store PATH --base-url URL --first N --count M --lanes L [--no-keys]")
    exit(2)
}

var options = OutboxOptions()
options.initialRetryDelay = 0.01
options.maximumRetryDelay = 0.1
options.storeWatchInterval = 0.05
if CommandLine.arguments.contains("--no-keys") { options.idempotencyKeyHeader = nil }

let outbox: Outbox
do {
    // A short timeout: on Linux, URLSession re-sends a POST whose kept-alive connection
    // closed without an answer on a new connection without its body, and the server waits
    // for the body until the client gives up (README: Durable writes). The retry that
    // follows carries the body and the key again.
    let manager = try Manager.Builder().url(baseURL).timeout(1).build()
    outbox = try Outbox(client: Client(manager: manager), storedAt: URL(fileURLWithPath: store), options: options)
} catch {
    say("could not open: \(error)")
    exit(2)
}

for number in first..<(first + count) {
    // Lanes of this child's own, so that each lane's enqueue order is its numbers' order.
    let lane = "from-\(first)-lane-\(number % lanes)"
    do {
        try outbox.enqueue(CrashItem(number: number, lane: lane), lane: lane)
        say("committed \(number)")
    } catch {
        say("enqueue \(number) failed: \(error)")
    }
}
// Another child may hold the delivery lock and drain the store for both, and this one sees
// no events of that: it looks at the store.
while (try? outbox.pendingCount()) != 0 { usleep(20_000) }
say("drained")
outbox.close()
exit(0)
