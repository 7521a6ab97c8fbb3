import Foundation
import LeashExamples
import LeashInterceptors
import RxLeash

extension Tour {
    /// Ready-made interceptors: a logger, a validator, a cache answering before the network.
    func interceptors() {
        step("Interceptors: logging, validation, cache-then-network") {
            say(
                """
                Interceptors guide each request through its life. LeashInterceptors has ready-made
                ones: here a logger (its lines go to a Logger of our own), a validator that turns
                the API's error body into the app's error, and a cache that answers /users/{id}
                at once from memory, then from the network.
                """)
            let lines = TourLogger()
            let client = Client(
                manager: try Manager.Builder()
                    .url(api.baseURL)
                    .add(interceptor: LoggerInterceptor(logger: lines))
                    .add(interceptor: BodyValidator<NotFound>())
                    .add(interceptor: UserCache())
                    .build())

            let first = try client.rx.response(GetUser(id: 1)).toBlocking(timeout: 10).toArray()
            check(first.map(\.source) == [.network], "the first time, one value, from the network")

            let second = try client.rx.response(GetUser(id: 1)).toBlocking(timeout: 10).toArray()
            say("The second time: \(second.map { "\($0.source)" }.joined(separator: ", then "))")
            check(
                second.map(\.source) == [.cache, .network] && second.allSatisfy { $0.value.id == 1 },
                "the cached value first, marked as cached, then the network's, then completion")

            do {
                _ = try waitFor { try await client.execute(GetUser(id: 9_999)) }
                check(false, "a missing user fails")
            } catch is NotFound {
                check(true, "a 404 with an error body arrives as the app's own error type")
            }

            say("What the logger wrote:")
            for line in lines.lines { say("   \(line)") }
            check(lines.lines.first?.hasPrefix("👉👉👉 GET") == true, "the logger wrote Leash's lines")
        }
    }
}

/// The tour's API answers 404 with `{}`; JSONPlaceholder does too.
private struct NotFound: Decodable, Error {}

/// Caches users: the stored value at once, then the network's.
private final class UserCache: CacheInterceptor, @unchecked Sendable {
    // @unchecked: CacheInterceptor is thread-safe; this subclass adds no state.
    init() {
        super.init(dataStore: InMemoryDataStore())
        register(policy: CachePolicy.CacheAndRenew(), to: "/users/[0-9]+")
    }
}

/// Keeps the logger's lines, to show them in order.
private final class TourLogger: Logger, @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [String] = []

    func log(_ message: String, level: LogLevel) {
        lock.withLock { stored.append(level == .error ? "error: \(message)" : message) }
    }

    var lines: [String] { lock.withLock { stored } }
}
