// swift-tools-version: 6.2
import PackageDescription

/// Benchmarks for Leash, kept out of the root package so that its dependencies
/// (OpenCombine, for comparison) never reach users. Run with:
///
///     swift run -c release --package-path Benchmarks rx-benchmarks
///     swift run -c release --package-path Benchmarks net-benchmarks
///     swift run -c release --package-path Benchmarks outbox-benchmarks
///     swift run -c release --package-path Benchmarks soak --minutes 30
///     swift run -c release --package-path Benchmarks peer-benchmarks
let package = Package(
    name: "LeashBenchmarks",
    // The root package's minimums: a package may not declare lower ones than a dependency.
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    dependencies: [
        .package(name: "Leash", path: "../"),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", exact: "0.14.0"),
        // For peer-benchmarks alone (SwiftNIO's HTTP client, as a peer of HTTP1Transport):
        // no other target depends on it, so building any other product neither compiles nor
        // links it (it is still resolved, with its dependencies, whatever product is built).
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
        // AsyncHTTPClient's own dependency, named for the modules peer-benchmarks imports
        // (`NIOCore`, `NIOFoundationCompat`, `NIOPosix`); the version AsyncHTTPClient resolves anyway.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
    ],
    targets: [
        .executableTarget(
            name: "rx-benchmarks",
            dependencies: [.product(name: "Rx", package: "Leash"), "OpenCombine"],
            path: "Sources/RxBenchmarks"
        ),
        // The root package's in-process HTTP server. It is a target there, not a product (it
        // is test support, not for users), so this package cannot depend on it; instead
        // `Sources/LoopbackServer` is a symlink to `../../Sources/LoopbackServer` and the same
        // sources are compiled again here as a target of this package. Nothing is copied, the
        // root package is untouched (it never looks inside Benchmarks/), and the two targets
        // of the same name never meet in one build graph because the root's is not reachable
        // from any product this package uses.
        // The server imports the root's `LeashDigest` target. That target cannot be compiled
        // again here like the server (SwiftPM refuses a second target of that name, since a
        // library product of the root, `LeashInterceptors`, contains it), and it is no product
        // of its own: `LeashInterceptors` brings it.
        .target(
            name: "LoopbackServer", dependencies: [.product(name: "LeashInterceptors", package: "Leash")],
            path: "Sources/LoopbackServer"),
        // What the benchmark executables share: starting the server child, reading /proc.
        .target(name: "BenchmarkSupport", path: "Sources/BenchmarkSupport"),
        // Counts heap allocations by interposing the malloc family (glibc); see its source.
        .target(name: "MallocCounter", path: "Sources/MallocCounter"),
        // The heap in use and the allocator's settings (glibc), for the soak; see its source.
        .target(name: "HeapInfo", path: "Sources/HeapInfo"),
        .executableTarget(
            name: "net-benchmarks",
            dependencies: [
                .product(name: "Leash", package: "Leash"), .product(name: "LeashTesting", package: "Leash"),
                .product(name: "Rx", package: "Leash"), .product(name: "RxLeash", package: "Leash"), "LoopbackServer",
                "MallocCounter", "BenchmarkSupport",
            ],
            path: "Sources/NetBenchmarks"
        ),
        // Leash's own HTTP/1.1 client against its peer, AsyncHTTPClient (SwiftNIO), on the same
        // loopback server and the same requests as net-benchmarks; see its main.swift.
        // `Sources/PeerBenchmarks/Shared` is a symlink to `../NetBenchmarks/Shared`: the
        // harness, the request loop, the fixtures, the server child and the Leash and
        // URLSession scenarios are compiled into both executables, written once, as
        // `LoopbackServer` is above (a library target of their own would have to make all of
        // them public and put a module boundary inside the measured code of net-benchmarks).
        .executableTarget(
            name: "peer-benchmarks",
            dependencies: [
                .product(name: "Leash", package: "Leash"), .product(name: "Rx", package: "Leash"),
                .product(name: "RxLeash", package: "Leash"), "LoopbackServer", "MallocCounter", "BenchmarkSupport",
                "LeashAsyncHTTPClient", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/PeerBenchmarks"
        ),
        // A Leash `Transport` over AsyncHTTPClient, for server-side users who run SwiftNIO
        // already. It lives here, not in the root package, because the root package has no
        // dependencies; see its source for what it carries.
        .target(
            name: "LeashAsyncHTTPClient",
            dependencies: [
                .product(name: "Leash", package: "Leash"), .product(name: "Rx", package: "Leash"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/LeashAsyncHTTPClient"
        ),
        // The durable outbox (`LeashOutbox`): enqueue latency (one SQLite commit each), delivery
        // rate against a plain loop of `client.execute` on the same loopback server, and memory
        // with 100,000 items stored; see its main.swift.
        .executableTarget(
            name: "outbox-benchmarks",
            dependencies: [
                .product(name: "LeashOutbox", package: "Leash"), .product(name: "Leash", package: "Leash"),
                .product(name: "RxLeash", package: "Leash"), .product(name: "Rx", package: "Leash"),
                "LoopbackServer", "MallocCounter", "BenchmarkSupport",
            ],
            path: "Sources/OutboxBenchmarks"
        ),
        // The soak: executions of every form through the fault-injecting proxy, for as long as
        // asked, checking Leash's promises and the process's resources; see its main.swift.
        .executableTarget(
            name: "soak",
            dependencies: [
                .product(name: "Leash", package: "Leash"), .product(name: "Rx", package: "Leash"),
                .product(name: "RxLeash", package: "Leash"), .product(name: "LeashInterceptors", package: "Leash"),
                "LoopbackServer", "BenchmarkSupport", "HeapInfo",
            ],
            path: "Sources/Soak"
        ),
        // The client side of the Autobahn|Testsuite fuzzingserver's protocol (WebSocket
        // conformance): see its source for how to run it.
        .executableTarget(
            name: "autobahn-client",
            dependencies: [
                .product(name: "Leash", package: "Leash"), .product(name: "Rx", package: "Leash"),
                .product(name: "RxLeash", package: "Leash"),
            ],
            path: "Sources/AutobahnClient"
        ),
        // Checks of the benchmark's own machinery (the request driver, the verification,
        // the malloc counter) and of the leaks it found; run in debug, not timed.
        .testTarget(
            name: "NetBenchmarksTests",
            dependencies: [
                "net-benchmarks", .product(name: "Leash", package: "Leash"),
                .product(name: "LeashTesting", package: "Leash"), .product(name: "Rx", package: "Leash"),
                "LoopbackServer", "MallocCounter",
            ]
        ),
        // `AsyncHTTPClientTransport` under Leash's pipeline against the loopback server: plain
        // requests, interceptors, a token-refresh storm, cancellation, timeouts, errors.
        .testTarget(
            name: "LeashAsyncHTTPClientTests",
            dependencies: [
                "LeashAsyncHTTPClient", "LoopbackServer", .product(name: "Leash", package: "Leash"),
                .product(name: "Rx", package: "Leash"), .product(name: "RxLeash", package: "Leash"),
                .product(name: "RxTesting", package: "Leash"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
