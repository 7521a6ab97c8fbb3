import Foundation
import Leash
import Rx
import RxLeash

// The client side of the Autobahn|Testsuite fuzzingserver's protocol: Leash's WebSocket,
// through `client.rx.webSocket`, echoing every message of every case.
//
//     ../shared/tools/autobahn/autobahn-py3.sh 9001 '*' /tmp/autobahn/reports &
//     swift run -c release --package-path Benchmarks autobahn-client --port 9001
//     python3 ../shared/tools/autobahn/summarise.py /tmp/autobahn/reports --agent leash
//
// Options: --port N (default 9001), --agent NAME (default leash), --cases 1,2,5 (case
// numbers, default all), --no-deflate.

/// A path on the fuzzingserver, with its query.
struct FuzzingServer: Endpoint {
    let path: String
    let query: [String: String]
    var method: HTTPMethod { .get }
    var parameters: Any? { query.isEmpty ? nil : query }
}

struct Arguments {
    var port = 9001
    var agent = "leash"
    var cases: [Int]?
    var deflate = true

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--port": port = iterator.next().flatMap(Int.init) ?? port
            case "--agent": agent = iterator.next() ?? agent
            case "--cases": cases = iterator.next()?.split(separator: ",").compactMap { Int($0) }
            case "--no-deflate": deflate = false
            default: print("unknown argument \(argument)")
            }
        }
    }
}

let arguments = Arguments(CommandLine.arguments)
let client = Client(
    manager: try Manager.Builder().url("http://127.0.0.1:\(arguments.port)").timeout(60).build())

let options: WebSocketOptions = {
    var options = WebSocketOptions()
    // The fuzzingserver counts an unsolicited ping as an unexpected frame, and case 9 sends
    // messages of up to 16 MiB.
    options.pingInterval = nil
    options.maximumMessageSize = 64 * 1024 * 1024
    options.maximumQueuedBytes = 128 * 1024 * 1024
    options.closeTimeout = 10
    return options
}()

/// Runs one connection to its end, echoing what arrives; returns the first text received.
@discardableResult
func run(_ endpoint: FuzzingServer, client: Client, options: WebSocketOptions) -> String? {
    let first = LockedBox<String?>(nil)
    let done = DispatchSemaphore(value: 0)
    let socket = LockedBox<WebSocket?>(nil)
    let subscription = client.rx.webSocket(endpoint, options: options)
        .subscribe(
            onNext: { event in
                switch event {
                case .opened(let opened): socket.set(opened)
                case .message(let message):
                    if case .text(let text) = message, first.get() == nil { first.set(text) }
                    socket.get()?.send(message)
                default: break
                }
            },
            onError: { error in
                print("  \(endpoint.path) \(endpoint.query): \(error)")
                done.signal()
            },
            onCompleted: { done.signal() })
    done.wait()
    subscription.dispose()
    return first.get()
}

/// A value shared with the subscription's thread.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}

guard let countText = run(FuzzingServer(path: "/getCaseCount", query: [:]), client: client, options: options),
    let count = Int(countText)
else {
    print("no case count from 127.0.0.1:\(arguments.port)")
    exit(1)
}
let started = Date()
let cases = arguments.cases ?? Array(1...count)
for number in cases {
    run(
        FuzzingServer(path: "/runCase", query: ["case": "\(number)", "agent": arguments.agent]), client: client,
        options: options)
    if number % 50 == 0 { print("case \(number) of \(count) (\(Int(Date().timeIntervalSince(started))) s)") }
}
run(FuzzingServer(path: "/updateReports", query: ["agent": arguments.agent]), client: client, options: options)
print("\(cases.count) cases run in \(Int(Date().timeIntervalSince(started))) s; report written by the server")
