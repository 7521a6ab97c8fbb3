// swift-tools-version: 6.2
import PackageDescription

/// Leash: a networking layer in which every request is a reactive stream.
///
/// The root package has no dependencies: it ships its own reactive core (`Rx`) and its
/// virtual-time test support (`RxTesting`). Benchmarks live in the nested `Benchmarks/`
/// package so that their dependencies never reach users.
let package = Package(
    name: "Leash",
    // Swift 6.2 (Xcode 26, which App Store submissions require) and the first releases whose
    // Swift concurrency runtime ships with the OS; README.md's Installation says why.
    // Scripts/check-apple-availability.py reads these minimums.
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    products: [
        .library(name: "Rx", targets: ["Rx"]),
        .library(name: "RxTesting", targets: ["RxTesting"]),
        .library(name: "Leash", targets: ["Leash"]),
        .library(name: "LeashTesting", targets: ["LeashTesting"]),
        .library(name: "RxLeash", targets: ["RxLeash"]),
        .library(name: "LeashInterceptors", targets: ["LeashInterceptors"]),
        .library(name: "LeashOutbox", targets: ["LeashOutbox"]),
    ],
    targets: [
        .target(name: "Rx"),
        // RxTest and RxBlocking for tests: RxTestingCore re-exported, plus XCTest assertions.
        .target(name: "RxTesting", dependencies: ["Rx", "RxTestingCore"]),
        // The test scheduler and blocking reads without XCTest, which an executable must not
        // link (on macOS it fails to load); the tour uses these.
        .target(name: "RxTestingCore", dependencies: ["Rx"]),
        // The system's zlib, for WebSocket permessage-deflate: a module map, not a dependency.
        .systemLibrary(name: "CZlib"),
        .target(
            name: "Leash",
            dependencies: [
                "Rx", "CZlib", "LeashDigest", .target(name: "CLeashCurl", condition: .when(platforms: [.linux])),
                .target(name: "CLeashEpoll", condition: .when(platforms: [.linux, .android])),
            ]),
        // TLS for WebSockets on Linux: libcurl's connect-only mode, loaded at run time (no
        // libcurl headers or link-time dependency). Compiles to nothing elsewhere.
        .target(name: "CLeashCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // Linux's epoll for the socket event loop (Glibc's module leaves it out). Compiles to
        // nothing elsewhere.
        .target(name: "CLeashEpoll"),
        // Test doubles (`StubTransport`), out of `Leash` so that apps do not ship them. No
        // XCTest: previews and executables (the tour) use them too.
        .target(name: "LeashTesting", dependencies: ["Leash", "Rx"]),
        .target(name: "RxLeash", dependencies: ["Leash", "Rx"]),
        .target(name: "LeashInterceptors", dependencies: ["Leash", "Rx", "LeashDigest"]),
        // Writes kept on disk until the server has them, in SQLite: the system's SQLite3 module
        // on Apple platforms, libsqlite3 (Debian's libsqlite3-dev) through CSQLite on Linux.
        .target(
            name: "LeashOutbox",
            dependencies: ["Leash", "RxLeash", "Rx", .target(name: "CSQLite", condition: .when(platforms: [.linux]))]),
        // The system's SQLite on Linux: a module map, not a dependency (Apple platforms have SQLite3).
        .systemLibrary(name: "CSQLite"),
        // SHA-256, shared by the disk cache, the loopback server and the tests that check transfers;
        // SHA-1 for the WebSocket handshake's Sec-WebSocket-Accept (client and loopback server).
        .target(name: "LeashDigest"),
        .target(name: "LoopbackServer", dependencies: ["LeashDigest"]),
        // The narrated tour of Leash (`swift run leash-tour`), with its API on a loopback server.
        .executableTarget(
            name: "leash-tour",
            dependencies: [
                "LeashExamples", "Leash", "LeashTesting", "RxLeash", "LeashInterceptors", "LeashOutbox", "Rx",
                "RxTestingCore", "LoopbackServer", "LeashDigest",
            ],
            path: "Playgrounds/LeashTour"),
        // What the tour and the example tests share: the example API and a view model.
        .target(name: "LeashExamples", dependencies: ["Leash", "RxLeash"], path: "Playgrounds/Examples"),
        // Helpers shared by the Leash test targets (a loopback server per test, leak checks).
        .target(
            name: "LeashTestSupport",
            dependencies: ["Leash", "LeashTesting", "Rx", "RxTesting", "LoopbackServer", "LeashDigest"],
            path: "Tests/LeashTestSupport"),
        .testTarget(name: "RxTests", dependencies: ["Rx", "RxTesting"]),
        .testTarget(
            name: "LeashTests",
            dependencies: [
                "Leash", "LeashTesting", "Rx", "RxTesting", "LoopbackServer", "LeashTestSupport", "LeashDigest",
            ]),
        .testTarget(
            name: "LeashTestingTests", dependencies: ["LeashTesting", "Leash", "Rx", "RxTesting", "LeashTestSupport"]),
        .testTarget(
            name: "RxLeashTests",
            dependencies: ["RxLeash", "Leash", "LeashTesting", "Rx", "RxTesting", "LoopbackServer", "LeashTestSupport"]),
        .testTarget(
            name: "LeashInterceptorsTests",
            dependencies: [
                "LeashInterceptors", "RxLeash", "Leash", "LeashTesting", "Rx", "RxTesting", "LoopbackServer",
                "LeashTestSupport", "LeashDigest",
            ]),
        .testTarget(
            name: "LeashOutboxTests",
            dependencies: [
                "LeashOutbox", "RxLeash", "Leash", "LeashTesting", "Rx", "RxTesting", "LoopbackServer",
                "LeashTestSupport", "outbox-crash-child",
            ]),
        // The child process of the outbox's crash test: enqueues and delivers until killed.
        .executableTarget(
            name: "outbox-crash-child", dependencies: ["LeashOutbox", "Leash"],
            path: "Tests/OutboxCrashChild"),
        .testTarget(name: "LoopbackServerTests", dependencies: ["LoopbackServer", "LeashDigest"]),
        .testTarget(name: "LeashDigestTests", dependencies: ["LeashDigest"]),
        .testTarget(
            name: "LeashExamplesTests",
            dependencies: [
                "LeashExamples", "RxLeash", "Leash", "LeashInterceptors", "LeashTesting", "Rx", "RxTesting",
                "LeashTestSupport",
            ]),
        // The README's whole example, alone in its module so that its `User` and `TokenStore`
        // are the README's and no other test's.
        .testTarget(
            name: "LandingPageExampleTests", dependencies: ["RxLeash", "Leash", "LeashTesting", "Rx", "RxTesting"]),
    ],
    swiftLanguageModes: [.v6]
)

// Resource tracing (the live-subscription counter `Resources.total`) costs an atomic
// increment per subscription, so it is compiled into debug builds only; tests run in debug.
// A system library target (CZlib) compiles nothing and may not carry settings.
for target in package.targets where target.type != .plugin && target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.define("TRACE_RESOURCES", .when(configuration: .debug)))
    target.swiftSettings = settings
}
