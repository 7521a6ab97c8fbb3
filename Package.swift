// swift-tools-version: 6.0
import PackageDescription

/// Leash: a networking layer in which every request is a reactive stream.
///
/// The root package has no dependencies: it ships its own reactive core (`Rx`) and its
/// virtual-time test support (`RxTesting`). Benchmarks live in the nested `Benchmarks/`
/// package so that their dependencies never reach users.
let package = Package(
    name: "Leash",
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6)],
    products: [
        .library(name: "Rx", targets: ["Rx"]),
        .library(name: "RxTesting", targets: ["RxTesting"]),
        .library(name: "Leash", targets: ["Leash"]),
    ],
    targets: [
        .target(name: "Rx"),
        .target(name: "RxTesting", dependencies: ["Rx"]),
        .target(name: "Leash", dependencies: ["Rx"]),
        .testTarget(name: "RxTests", dependencies: ["Rx", "RxTesting"]),
        .testTarget(name: "LeashTests", dependencies: ["Leash", "Rx", "RxTesting", "LoopbackServer"]),
        .target(name: "LoopbackServer"),
        .testTarget(name: "LoopbackServerTests", dependencies: ["LoopbackServer"]),
    ],
    swiftLanguageModes: [.v6]
)

// Resource tracing (the live-subscription counter `Resources.total`) costs an atomic
// increment per subscription, so it is compiled into debug builds only; tests run in debug.
for target in package.targets where target.type != .plugin {
    var settings = target.swiftSettings ?? []
    settings.append(.define("TRACE_RESOURCES", .when(configuration: .debug)))
    target.swiftSettings = settings
}
