// swift-tools-version: 6.0
import PackageDescription

/// Benchmarks for Leash, kept out of the root package so that its dependencies
/// (OpenCombine, for comparison) never reach users. Run with:
///
///     swift run -c release --package-path Benchmarks rx-benchmarks
let package = Package(
    name: "LeashBenchmarks",
    platforms: [.macOS(.v10_15)],
    dependencies: [
        .package(name: "Leash", path: "../"),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", exact: "0.14.0"),
    ],
    targets: [
        .executableTarget(
            name: "rx-benchmarks",
            dependencies: [.product(name: "Rx", package: "Leash"), "OpenCombine"],
            path: "Sources/RxBenchmarks"
        )
    ],
    swiftLanguageModes: [.v6]
)
